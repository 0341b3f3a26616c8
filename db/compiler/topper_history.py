"""How a leaderboard moved: its board after each publication moment, and the points race.

A result counts from its ``published_at``. The history is worked out from the results that
count now (``db.compiler.leaderboards.counted_contributions``, under the privacy rules of the board),
which :func:`db.compiler.leaderboards.history_of` hands over with the final totals: a result
withdrawn, hidden or unpublished since is gone from the past as well, and only the
publication moments of results that count now are steps. Each step is the board as
:func:`db.compiler.leaderboards.rank` would rank the results published by then (same points,
ties and top-N cut), so the last step is the current board.

Stored compactly, per placeholder (``TopperHistory.body``):

- ``final``: ``[rank, tied, points, programmes, last result at]`` of each race entry now;
- ``entities``: ``[entity id, name, details]`` of every entity any step shows; the first
  ``race`` of them are the race's entries, best first by the final board;
- ``steps``: ``{"at", "board", "race"}`` per moment, oldest first; ``board`` is the displayed
  board, ``[entity index, rank, tied, points, programmes, last result at]`` per entry;
  ``race`` is ``[rank, points]`` (``null`` before its first counted result) of each race entry.
"""
import bisect
import datetime
import hashlib
from collections import defaultdict

import orjson

from ..compiled.tables import RACE_SIZE  # noqa: F401  (the most entries a race follows)

# A published result without a publication time counts from the start.
EARLIEST = datetime.datetime(1970, 1, 1)


def _key(total):
    """The board's order (``rank``): points down, then name, then id."""
    return (-round(total.points, 6), total.name.casefold(), str(total.entity_id))


def _iso(moment):
    return None if moment is None else moment.isoformat()


def history_for(contributions, final, leaders, top_n, new_total):
    """The history of one placeholder as a dict (see the module's docstring).

    ``contributions``: ``(result, entity id, name, details)`` of every counted result, in the
    board's order of addition; ``final``: the current totals by entity id; ``leaders``: the
    first ``RACE_SIZE`` of the ranked current board; ``new_total(entity id, name, details)``
    makes an empty total (``db.compiler.leaderboards.Total``)."""
    race_ids = [total.entity_id for _, _, total in leaders]
    # the race entries' numbers on the final (current) board, ranked on the whole board
    standings = [[place, tied, total.points, len(total.programmes), _iso(total.last_result_at)]
                 for place, tied, total in leaders]
    index = {entity_id: n for n, entity_id in enumerate(race_ids)}
    entities = [[str(i), final[i].name, final[i].details] for i in race_ids]

    by_moment = defaultdict(list)
    for contribution in contributions:  # kept in data order within a moment
        by_moment[contribution[0].published_at or EARLIEST].append(contribution)
    totals, keys, by_key = {}, [], {}
    steps = []
    for at in sorted(by_moment):
        for result, entity_id, name, details in by_moment[at]:
            total = totals.get(entity_id)
            if total is None:
                total = totals[entity_id] = new_total(entity_id, final[entity_id].name, final[entity_id].details)
            else:
                keys.pop(bisect.bisect_left(keys, _key(total)))
            total.add(result)
            key = _key(total)
            bisect.insort(keys, key)
            by_key[key[1:]] = total
        steps.append({"at": _iso(at), "board": _board(keys, by_key, index, entities, top_n),
                      "race": [_standing(keys, totals.get(i)) for i in race_ids]})
    return {"race": len(race_ids), "final": standings, "entities": entities, "steps": steps}


def _board(keys, by_key, index, entities, top_n):
    """The displayed board of the moment (``rank``'s rules, over the sorted ``keys``)."""
    board = []
    current = 0
    for n, key in enumerate(keys):
        if n == 0 or key[0] != keys[n - 1][0]:
            current = n + 1
        if top_n and current > top_n:
            break
        total = by_key[key[1:]]
        tied = (n > 0 and keys[n - 1][0] == key[0]) or (n + 1 < len(keys) and keys[n + 1][0] == key[0])
        at = index.get(total.entity_id)
        if at is None:
            at = index[total.entity_id] = len(entities)
            entities.append([str(total.entity_id), total.name, total.details])
        board.append([at, current, tied, -key[0], len(total.programmes), _iso(total.last_result_at)])
    return board


def _standing(keys, total):
    """``[rank, points]`` of a race entry at the moment, None before it has a result."""
    if total is None:
        return None
    points = round(total.points, 6)
    return [bisect.bisect_left(keys, (-points,)) + 1, points]


def history_row(history):
    """``(digest, body)`` of a history, as stored in ``TopperHistory``."""
    body = orjson.dumps(history, default=str).decode()
    return hashlib.sha256(body.encode()).hexdigest(), body
