"""Compile the published leaderboards: placeholders, their entries, and the website pages
that show them. The entries themselves are computed by :mod:`db.compiler.leaderboards`; here they are
only stored, with the placeholders the rules of :mod:`db.source.topper_lists` let the public see
(scope keys of hidden sections and collections masked)."""
import datetime

import orjson

from schemas.toppers import (
    TopperEntrySchema,
    TopperPlaceholderSchema,
    TopperPlaceholderWithEntriesSchema,
    WebsitePageSchema,
)

from ..compiled.tables import (
    PublicPage,
    PublicPlaceholder,
    PublicTopperEntry,
    PublicTopperHistory,
    PublicTopperPastEntry,
    PublicTopperStep,
    ends_text,
)
from ..compiled.templates import dumps
from ..query import text_sort_key
from ..source import models as m
from ..source import visibility
from ..source.topper_lists import attach_categories, attach_entry_lists, page_placeholders, visible_placeholders


def compile_toppers(festival_id, writer):
    body_schema, with_entries_schema = TopperPlaceholderSchema(), TopperPlaceholderWithEntriesSchema()
    entry_schema = TopperEntrySchema()
    placeholders = list(visible_placeholders(festival_id).order_by(m.TopperPlaceholder.id))
    attach_categories(placeholders)
    attach_entry_lists(placeholders)
    for placeholder in placeholders:
        _compile_placeholder(writer, placeholder, body_schema, with_entries_schema, entry_schema)
    compile_histories(festival_id, writer, placeholders)
    page_schema = WebsitePageSchema()
    for page in visibility.public_pages(festival_id):
        shown = [str(placeholder.id) for placeholder in page_placeholders(festival_id, page.id)]
        writer.add(PublicPage, id=page.id, slug=page.slug, body=dumps(page_schema.dump(page)),
                   placeholders=dumps(shown))


def _compile_placeholder(writer, p, body_schema, with_entries_schema, entry_schema):
    writer.add(
        PublicPlaceholder, id=p.id, sub_fest=p.sub_fest_id, is_published=p.is_published,
        entity_type=p.entity_type, scope_type=p.scope_type, display_order=p.display_order,
        label_key=text_sort_key(p.label), scope_type_key=text_sort_key(p.scope_type),
        entity_type_key=text_sort_key(p.entity_type), last_computed_at=p.last_computed_at,
        body=dumps(body_schema.dump(p)), with_entries=dumps(with_entries_schema.dump(p)))
    for entry in p.entry_list:
        writer.add(
            PublicTopperEntry, placeholder=p.id, entity_id=entry.entity_id, rank=entry.rank,
            points=entry.points, programme_count=entry.programme_count,
            last_result_at=entry.last_result_at, name_key=text_sort_key(entry.name),
            body=dumps(entry_schema.dump(entry)))


# --- histories: the board as it stood, and the race ------------------------------------------

# The numbers of a moment: an entity's stored body has every other member of its entry.
MOMENT_MEMBERS = ("rank", "tied", "points", "programmeCount", "lastResultAt", "metrics")


def compile_histories(festival_id, writer, placeholders):
    """Write the history of each visible placeholder whose history moved since the last
    compile (all of them after a whole clear), and drop those of placeholders no longer
    visible: a change to one sub-fest's results rewrites only the boards it moved."""
    compiled = dict(PublicTopperHistory.select(PublicTopperHistory.placeholder, PublicTopperHistory.digest)
                    .where(PublicTopperHistory.festival == festival_id).tuples())
    visible = {p.id: p for p in placeholders}
    stored = {row.placeholder_id: row for row in m.TopperHistory.select()
              .where(m.TopperHistory.placeholder.in_(list(visible)))} if visible else {}
    stale = [i for i in compiled if i not in visible or stored.get(i) is None
             or stored[i].digest != compiled[i]]
    for model in (PublicTopperHistory, PublicTopperStep, PublicTopperPastEntry):
        for start in range(0, len(stale), 200):
            model.delete().where((model.festival == festival_id)
                                 & model.placeholder.in_(stale[start:start + 200])).execute()
    entry_schema = TopperEntrySchema()
    for placeholder_id, row in stored.items():
        if compiled.get(placeholder_id) == row.digest:
            continue
        _compile_history(writer, visible[placeholder_id], row, entry_schema)


def entry_json(body, rank, tied, points, programmes, last_result_at, metrics=None):
    """An entry's JSON: the numbers of a moment (``metrics``: the board's tie-break metrics
    and their values, a dict) before the entity's stored members."""
    return (f'{{"rank":{rank},"tied":{"true" if tied else "false"},"points":{orjson.dumps(points).decode()},'
            f'"programmeCount":{programmes},"lastResultAt":{orjson.dumps(last_result_at).decode()},'
            f'"metrics":{orjson.dumps(metrics or {}).decode()},{body[1:]}')


def _metrics(names, row, at):
    """The metrics of a stored history row (its element ``at``, when the board has any)."""
    return dict(zip(names, row[at])) if names and len(row) > at else None


def standing_json(entity_id, standing):
    """A race entry's standing at a step as the race writes it: ``rank`` null (and no
    points) before its first counted result."""
    rank, points = standing or (None, 0)
    return (f'{{"entityId":"{entity_id}","rank":{orjson.dumps(rank).decode()},'
            f'"points":{orjson.dumps(float(points)).decode()}}}')


def _moment(value):
    """A stored naive-UTC ISO moment as the API writes it."""
    return None if value is None else datetime.datetime.fromisoformat(value).isoformat(timespec="seconds") + "Z"


def _instant(value):
    return None if value is None else datetime.datetime.fromisoformat(value)


def _entity(placeholder, entity_id, name, details, entry_schema):
    """``(entity id, body, name key)``: the entity's entry JSON without the numbers of a moment."""
    body = entry_schema.dump({"entity_type": placeholder.entity_type, "entity_id": entity_id, "name": name,
                              "details": details, "rank": 0, "tied": False, "points": 0,
                              "programme_count": 0, "last_result_at": None})
    for member in MOMENT_MEMBERS:
        body.pop(member)
    return body["entityId"], dumps(body), text_sort_key(name)


def _compile_history(writer, placeholder, row, entry_schema):
    """The rows of one history (``db.compiler.topper_history``'s body): each step with its
    board written out (``PublicTopperStep``, ``PublicTopperPastEntry``), and the race's
    entries with their current numbers (``PublicTopperHistory``)."""
    history = orjson.loads(row.body)
    names = list(placeholder.rule.tie_break)
    entities = [_entity(placeholder, *entity, entry_schema) for entity in history["entities"]]
    steps = history["steps"]
    for number, step in enumerate(steps, 1):
        at = datetime.datetime.fromisoformat(step["at"])
        board = step["board"]
        texts = []
        for entry in board:
            index, rank, tied, points, programmes, last = entry[:6]
            entity_id, body, name_key = entities[index]
            text = entry_json(body, rank, tied, float(points), programmes, _moment(last), _metrics(names, entry, 6))
            texts.append(text)
            writer.add(PublicTopperPastEntry, placeholder=placeholder.id, step=number, entity_id=entity_id, at=at,
                       total=len(board), rank=rank, points=float(points), programme_count=programmes,
                       last_result_at=_instant(last), name_key=name_key, body=text)
        standings = [standing_json(entities[n][0], standing) for n, standing in enumerate(step["race"])]
        head = f'{{"step":{number},"at":{orjson.dumps(_moment(step["at"])).decode()},"standings":['
        writer.add(PublicTopperStep, placeholder=placeholder.id, step=number, at=at, total=len(board),
                   entries=",".join(texts), head=head, standings=",".join(standings),
                   standing_ends=ends_text(standings))
    entries = [entry_json(entities[n][1], *final[:2], float(final[2]), final[3], _moment(final[4]),
                          _metrics(names, final, 5))
               for n, final in enumerate(history["final"])]
    writer.add(PublicTopperHistory, placeholder=placeholder.id, digest=row.digest, steps=len(steps),
               entries=",".join(entries), entry_ends=ends_text(entries))
