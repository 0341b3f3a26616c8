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
    """The board's order (``rank``): points down, then the rule's metrics, then name, then id."""
    return total.sort_key()


def _iso(moment):
    return None if moment is None else moment.isoformat()


def history_for(contributions, final, leaders, top_n, new_total, rule=None, eligible=None):
    """The history of one placeholder as a dict (see the module's docstring).

    ``contributions``: ``(result, entity id, name, details)`` of every counted result, in the
    board's order of addition; ``final``: the current totals by entity id (of the entities
    the board lists); ``leaders``: the first ``RACE_SIZE`` of the ranked current board;
    ``new_total(entity id, name, details)`` makes an empty total
    (``db.compiler.leaderboards.Total``); ``rule``: the board's rule when it is not today's
    (``db.source.board_rule.Rule``); ``eligible(total)``: whether an entity may be listed
    yet (its ``eligible_if``), None when everyone may."""
    metrics = bool(rule is not None and rule.tie_break)
    width = 1 + (len(rule.tie_break) if metrics else 0)
    dense = rule is not None and rule.rank_style == "dense"
    race_ids = [total.entity_id for _, _, total in leaders]
    # the race entries' numbers on the final (current) board, ranked on the whole board
    standings = [[place, tied, total.points, len(total.programmes), _iso(total.last_result_at)]
                 + ([list(total.metrics())] if metrics else [])
                 for place, tied, total in leaders]
    index = {entity_id: n for n, entity_id in enumerate(race_ids)}
    entities = [[str(i), final[i].name, final[i].details] for i in race_ids]

    by_moment = defaultdict(list)
    for contribution in contributions:  # kept in data order within a moment
        by_moment[contribution[0].published_at or EARLIEST].append(contribution)
    totals, keys, by_key, listed = {}, [], {}, {}
    steps = []
    board = _Board(width, dense, metrics)
    for at in sorted(by_moment):
        for result, entity_id, name, details in by_moment[at]:
            total = totals.get(entity_id)
            if total is None:
                shown = final.get(entity_id)
                name, details = (shown.name, shown.details) if shown is not None else (name, details)
                total = totals[entity_id] = new_total(entity_id, name, details)
            elif entity_id in listed:
                keys.pop(bisect.bisect_left(keys, listed.pop(entity_id)))
            total.add(result)
            if eligible is not None and not eligible(total):
                continue
            key = _key(total)
            bisect.insort(keys, key)
            listed[entity_id] = key
            by_key[key[-2:]] = total
        board.moment(keys)
        steps.append({"at": _iso(at), "board": board.rows(keys, by_key, index, entities, top_n),
                      "race": [board.standing(keys, listed.get(i), totals.get(i)) for i in race_ids]})
    return {"race": len(race_ids), "final": standings, "entities": entities, "steps": steps}


class _Board:
    """The ranks of one moment under the board's rule (``rank``'s rules, over sorted keys)."""

    def __init__(self, width, dense, metrics):
        self.width, self.dense, self.metrics = width, dense, metrics
        self.places = None

    def moment(self, keys):
        self.places = None  # the dense ranks of the moment, made when first asked for

    def _dense_places(self, keys):
        if self.places is None:
            self.places, distinct = [], 0
            for n, key in enumerate(keys):
                if n == 0 or key[:self.width] != keys[n - 1][:self.width]:
                    distinct += 1
                self.places.append(distinct)
        return self.places

    def rows(self, keys, by_key, index, entities, top_n):
        """The displayed board of the moment."""
        board = []
        current = distinct = 0
        w = self.width
        for n, key in enumerate(keys):
            if n == 0 or key[:w] != keys[n - 1][:w]:
                current = n + 1
                distinct += 1
            place = distinct if self.dense else current
            if top_n and place > top_n:
                break
            total = by_key[key[-2:]]
            tied = (n > 0 and keys[n - 1][:w] == key[:w]) or (n + 1 < len(keys) and keys[n + 1][:w] == key[:w])
            at = index.get(total.entity_id)
            if at is None:
                at = index[total.entity_id] = len(entities)
                entities.append([str(total.entity_id), total.name, total.details])
            row = [at, place, tied, -key[0], len(total.programmes), _iso(total.last_result_at)]
            if self.metrics:
                row.append(list(total.metrics()))
            board.append(row)
        return board

    def standing(self, keys, key, total):
        """``[rank, points]`` of a race entry at the moment, None before it is listed."""
        if key is None:
            return None
        points = round(total.points, 6)
        at = bisect.bisect_left(keys, key[:self.width])
        if self.dense:
            return [self._dense_places(keys)[at], points]
        return [at + 1, points]


def history_row(history):
    """``(digest, body)`` of a history, as stored in ``TopperHistory``."""
    body = orjson.dumps(history, default=str).decode()
    return hashlib.sha256(body.encode()).hexdigest(), body
