"""What a compile changed, in public terms: the compiled JSON before and after, compared.

Only compiled rows are compared, and a hidden record has none, so a change to a hidden
record is never listed and nothing in the list tells that one exists. A record that stops
being public is listed once as ``removed`` (its id was public until then).

Beside its id, a change carries the natural keys a site fetches the record by (a
programme's code and sub-fest slug, a leaderboard's label, a news item's title...), read
from the record's public JSON: of the record after the change, or, for a record that was
removed, as it was last shown (a site that routes by code must know which page to drop),
except a candidate's: a person no longer public is listed by id alone. Nothing else is read,
so nothing a public answer does not show can be recorded.

A candidate is listed when what its answers show (``/candidate-detail``, ``/candidate-result``,
``/candidate-registrations``) changed: ``results`` when its published results did.
"""
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass

import orjson

from ..bulk import insert_rows
from ..compiled import kinds
from ..compiled.templates import ascii_json, dumps, render
from ..compiled.tables import (
    KEPT_REVISIONS,
    PublicCandidate,
    PublicChange,
    PublicDownload,
    PublicImage,
    PublicNews,
    PublicPlaceholder,
    PublicProgramme,
    PublicRevision,
    PublicRecompile,
    PublicRegistration,
    PublicTopperEntry,
)


def _digest(*texts):
    # Of the ASCII form (templates.ascii_json): JSON compiled before stored text was ASCII
    # digests as the same JSON compiled now, so an upgrade alone changes nothing.
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(ascii_json(str(text)).encode())
        h.update(b"\x00")
    return h.digest()


# Slots of stored JSON (db/compiled/templates.py) read as null: no natural key is in one.
_NULL_SLOTS = defaultdict(lambda: "null")

# Of each kind of change: its natural keys, from the record's public JSON (``shown``).
NATURAL_KEYS = {
    kinds.CHANGE_PROGRAMME: lambda shown: {"program_code": shown.get("code"),
                                           "sub_fest_slug": (shown.get("subFest") or {}).get("slug")},
    kinds.CHANGE_LEADERBOARD: lambda shown: {"placeholder_label": shown.get("label"),
                                             "sub_fest_slug": (shown.get("subFest") or {}).get("slug")},
    kinds.CHANGE_NEWS: lambda shown: {"title": shown.get("title")},
    kinds.CHANGE_DOWNLOAD: lambda shown: {"title": shown.get("title")},
    kinds.CHANGE_GALLERY_IMAGE: lambda shown: {"title": shown.get("title"),
                                               "album_title": (shown.get("album") or {}).get("title")},
    kinds.CHANGE_CANDIDATE: lambda shown: {"chest_no": (shown.get("candidate") or {}).get("chestNo"),
                                           "sub_fest_slug": (shown.get("subFest") or {}).get("slug")},
}

# Kinds whose second digest is of their published results: a change of it is ``results``.
WITH_RESULTS = (kinds.CHANGE_PROGRAMME, kinds.CHANGE_CANDIDATE)

# Kinds whose record that stops being public is named by its id alone (a person: what the
# public can no longer see is not written again).
UNNAMED_WHEN_REMOVED = (kinds.CHANGE_CANDIDATE,)


def natural_keys(kind, body):
    """The natural keys of a record of ``kind`` from its stored public JSON, as JSON text."""
    return dumps(NATURAL_KEYS[kind](orjson.loads(render(body, _NULL_SLOTS))))


def snapshot(festival_id, programme_ids=None, candidate_ids=None):
    """``{kind: {id: (digest, detail digest, sub-fest, visible_at, natural keys)}}`` of the
    tracked records (of the programmes ``programme_ids`` and candidates ``candidate_ids``
    only, when given: a compile of a ``Recompile`` changes no other).

    For programmes and candidates the second digest is of the results, so a change can say
    ``results``; a candidate's first is of its record and its entries.
    """
    p, n = PublicProgramme, PublicNews
    programmes = p.select(p.id, p.body, p.results, p.sub_fest).where(p.festival == festival_id)
    if programme_ids is not None:
        programmes = programmes.where(p.id.in_(list(programme_ids)))
    programme, news, download, image = (kinds.CHANGE_PROGRAMME, kinds.CHANGE_NEWS, kinds.CHANGE_DOWNLOAD,
                                        kinds.CHANGE_GALLERY_IMAGE)
    found = {
        programme: {row[0]: (_digest(row[1]), _digest(row[2]), row[3], None, natural_keys(programme, row[1]))
                    for row in programmes.tuples()},
        news: {row[0]: (_digest(row[1], row[2]), None, None, row[2], natural_keys(news, row[1])) for row in
               n.select(n.id, n.body, n.published_at).where(n.festival == festival_id).tuples()},
        download: {row[0]: (_digest(row[1]), None, None, None, natural_keys(download, row[1])) for row in
                   PublicDownload.select(PublicDownload.id, PublicDownload.body)
                   .where(PublicDownload.festival == festival_id).tuples()},
        image: {row[0]: (_digest(row[1]), None, None, None, natural_keys(image, row[1])) for row in
                PublicImage.select(PublicImage.id, PublicImage.body)
                .where(PublicImage.festival == festival_id).tuples()},
    }
    # A leaderboard is "changed" only when what it shows moved: its computation time alone
    # (recomputed with every import) is no change.
    boards = {row[0]: [_without_time(row[1]), row[2], natural_keys(kinds.CHANGE_LEADERBOARD, row[1])] for row in
              PublicPlaceholder.select(PublicPlaceholder.id, PublicPlaceholder.body, PublicPlaceholder.sub_fest)
              .where(PublicPlaceholder.festival == festival_id).tuples()}
    e = PublicTopperEntry
    for placeholder, body in (e.select(e.placeholder, e.body).where(e.festival == festival_id)
                              .order_by(e.placeholder, e.rank, e.entity_id).tuples()):
        if placeholder in boards:
            boards[placeholder][0] += body
    found[kinds.CHANGE_LEADERBOARD] = {pid: (_digest(text), None, sub_fest, None, keys)
                                       for pid, (text, sub_fest, keys) in boards.items()}
    found[kinds.CHANGE_CANDIDATE] = _candidates(festival_id, candidate_ids)
    return found


def _candidates(festival_id, candidate_ids=None):
    """The candidates' part of :func:`snapshot`: what ``/candidate-detail``, ``/candidate-result``
    and ``/candidate-registrations`` show of each public candidate."""
    c, r = PublicCandidate, PublicRegistration
    people = c.select(c.id, c.body, c.detail, c.summary, c.results, c.sub_fest).where(c.festival == festival_id)
    entries = r.select(r.candidate, r.body).where(r.festival == festival_id)
    if candidate_ids is not None:
        if not candidate_ids:
            return {}
        ids = list(candidate_ids)
        people, entries = people.where(c.id.in_(ids)), entries.where(r.candidate.in_(ids))
    shown = defaultdict(list)
    for candidate, body in entries.tuples():
        shown[candidate].append(body)
    return {row[0]: (_digest(row[1], row[2], row[3], *sorted(shown.get(row[0], ()))), _digest(row[4]), row[5], None,
                     natural_keys(kinds.CHANGE_CANDIDATE, row[1]))
            for row in people.tuples()}


def _without_time(body):
    shown = json.loads(body)
    shown.pop("lastComputedAt", None)
    return json.dumps(shown, sort_keys=True)


@dataclass
class LeaderboardMove:
    """A public leaderboard whose entries move: ``entries`` is ``[(name, points before,
    points after)]`` of each entity whose points changed or who comes on or goes off the
    board (None: not on it), in the order of the board after."""

    id: object
    label: str
    sub_fest: str
    entries: list

    def line(self):
        moved = ", ".join(f"{name} {_points(old)} -> {_points(new)}" for name, old, new in self.entries)
        return f"leaderboard {self.sub_fest} {self.label!r}: {moved or 'order or details'}"


def _points(value):
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else str(value)


def leaderboard_entries(festival_id):
    """``{placeholder id: (label, sub-fest slug, {entity id: (name, points, rank)})}`` of the
    public leaderboards."""
    boards = {}
    for pid, body in (PublicPlaceholder.select(PublicPlaceholder.id, PublicPlaceholder.body)
                      .where(PublicPlaceholder.festival == festival_id).tuples()):
        shown = json.loads(body)
        boards[pid] = (shown.get("label"), (shown.get("subFest") or {}).get("slug"), {})
    e = PublicTopperEntry
    for pid, entity, points, rank, body in (e.select(e.placeholder, e.entity_id, e.points, e.rank, e.body)
                                            .where(e.festival == festival_id).tuples()):
        if pid in boards:
            boards[pid][2][entity] = (json.loads(body).get("name"), points, rank)
    return boards


def leaderboard_moves(before, after):
    """The leaderboards whose entries differ between two :func:`leaderboard_entries`."""
    moves = []
    for pid, (label, sub_fest, entries) in after.items():
        old = before.get(pid, (label, sub_fest, {}))[2]
        if old == entries:
            continue
        moved = []
        for entity in sorted(old.keys() | entries.keys(),
                             key=lambda i: ((entries.get(i) or old[i])[2], (entries.get(i) or old[i])[0] or "")):
            was, now = old.get(entity), entries.get(entity)
            if (was and was[1]) != (now and now[1]):  # points changed, or on or off the board
                moved.append(((now or was)[0], was and was[1], now and now[1]))
        moves.append(LeaderboardMove(pid, label, sub_fest, moved))
    return sorted(moves, key=lambda move: (move.sub_fest or "", move.label or ""))


def differences(before, after, now):
    """``(kind, id, action, sub-fest, visible_at, natural keys)`` for every tracked record
    that changed (the keys as JSON text: of the record now, or as it was last shown)."""
    changes = []
    for kind in after.keys() | before.keys():
        old, new = before.get(kind, {}), after.get(kind, {})
        for item, (digest, detail, sub_fest, visible_at, keys) in new.items():
            previous = old.get(item)
            if previous is None:
                action = kinds.ADDED
            elif previous[0] == digest and previous[1] == detail:
                continue
            elif kind in WITH_RESULTS and previous[1] != detail:
                action = kinds.RESULTS
            else:
                action = kinds.CHANGED
            changes.append((kind, item, action, sub_fest, max(now, visible_at or now), keys))
        for item, (_, _, sub_fest, _, keys) in old.items():
            if item not in new:
                changes.append((kind, item, kinds.REMOVED, sub_fest, now,
                                None if kind in UNNAMED_WHEN_REMOVED else keys))
    return changes


def record(festival_id, revision, changes, now, recompile=None):
    """Store the revision's time, its changes and what its compile wrote again (``revision`` is
    ``(number, FestivalRevision.changed_at)``; ``recompile`` a ``db.compiler.Recompile``, None for
    the whole festival); prune those of revisions older than the last :data:`KEPT_REVISIONS`."""
    revision, changed_at = revision
    # A revision is recorded once; a rolled-back dry run leaves nothing behind.
    PublicRevision.insert(festival=festival_id, revision=revision, changed_at=now).execute()
    PublicRecompile.insert(festival=festival_id, revision=revision, changed_at=changed_at, whole=recompile is None,
                           programme_ids=None if recompile is None else _ids(recompile.programme_ids),
                           candidate_ids=None if recompile is None else _ids(recompile.candidate_ids)).execute()
    rows = [{"festival": festival_id, "revision": revision, "kind": kind, "item": item, "action": action,
             "sub_fest": sub_fest, "visible_at": visible_at, "natural_keys": keys}
            for kind, item, action, sub_fest, visible_at, keys in changes]
    insert_rows(PublicChange, rows)
    for model in (PublicChange, PublicRecompile):
        model.delete().where((model.festival == festival_id) & (model.revision <= revision - KEPT_REVISIONS)).execute()
    return len(rows)


def _ids(ids):
    return json.dumps(sorted(str(i) for i in ids))
