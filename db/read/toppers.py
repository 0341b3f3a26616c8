"""Leaderboards from the compiled tables: ``/topper-placeholders``, ``/toppers`` and
``/page-toppers``. Only published placeholders of public sub-fests are compiled, with the
entries :mod:`db.compiler.leaderboards` computed for them and the pages that show them."""
from collections import Counter

import orjson

from ..compiled import kinds
from ..compiled.tables import PublicPage as W
from ..compiled.tables import PublicPlaceholder as P
from ..compiled.tables import PublicTopperEntity as H_ENTITY
from ..compiled.tables import PublicTopperEntry as E
from ..compiled.tables import PublicTopperHistory as H_HISTORY
from ..compiled.tables import PublicTopperStep as H_STEP
from ..query import Page, ascii_lower, text_sort_key
from . import find_by_selectors
from .sql import Select, column, compare, equals, one_of

PLACEHOLDER_SORTS = {
    "displayOrder": P.display_order,
    "label": P.label_key,
    "scopeType": P.scope_type_key,
    "entityType": P.entity_type_key,
    "lastComputedAt": P.last_computed_at,
}

PLACEHOLDER_FILTERS = {
    "is_published": lambda wanted: equals(P.is_published, wanted),
    "entity_type": lambda value: equals(P.entity_type, value),
    "scope_type": lambda value: equals(P.scope_type, value),
}

ENTRY_SORTS = {
    # the stored order: rank, then name (ties are listed by name)
    "rank": (E.rank, E.name_key),
    "points": E.points,
    "name": E.name_key,
    "programmeCount": E.programme_count,
    "lastResultAt": E.last_result_at,
}


def list_placeholders(festival_id, sub_fest_id, page, limit, sort_by, sort_order, **filters):
    """One page of a sub-fest's published placeholders: ``(body,)`` rows."""
    return (Select(P)
            .where(*equals(P.festival, festival_id))
            .where(*equals(P.sub_fest, sub_fest_id))
            .total_of(kinds.LIST_PLACEHOLDERS, festival_id, sub_fest_id)
            .filter(PLACEHOLDER_FILTERS, filters)
            .sort(PLACEHOLDER_SORTS, sort_by, sort_order, P.id)
            .page(page, limit, P.body))


def get_placeholder(festival_id, placeholder_id):
    """``(sub_fest, body)`` of the published placeholder with this id, or None."""
    return (Select(P)
            .where(*equals(P.festival, festival_id))
            .where(*equals(P.id, placeholder_id))
            .first(P.sub_fest, P.body))


def find_placeholders(festival_id, placeholder_id=None, label=None, sub_fest_id=None):
    """``(id,)`` of the published placeholders matching every selector given (see
    :func:`find_by_selectors`). A label compares A-Z case-insensitively, on ``label_key``:
    the folded label and a NUL begin the key (``db.query.text_sort_key``), so the keys of one
    folded label are those from ``folded + NUL`` to ``folded + \\x01``, a range of the list's
    sort index (a label holds no NUL)."""
    labelled = ()
    if label is not None:
        # bytes as they are: both drivers take them for a BLOB or bytea (the field's own
        # conversion is its model's engine's, and a request may read the local SQLite copy)
        folded = ascii_lower(label).encode()
        labelled = (f'{column(P.label_key)} >= ? AND {column(P.label_key)} < ?', [folded + b"\x00", folded + b"\x01"]),
    return find_by_selectors(P, (P.id,), festival_id, ((P.id, placeholder_id), (P.sub_fest, sub_fest_id)),
                             *labelled)


def list_entries(festival_id, placeholder_id, page, limit, sort_by, sort_order):
    """One page of a placeholder's entries (best first by default): ``(body,)`` rows."""
    return (Select(E)
            .where(*equals(E.festival, festival_id))
            .where(*equals(E.placeholder, placeholder_id))
            .total_of(kinds.LIST_ENTRIES, festival_id, placeholder_id)
            .sort(ENTRY_SORTS, sort_by, sort_order, E.entity_id)
            .page(page, limit, E.body))


def placeholders_with_entries(festival_id, placeholder_ids):
    """The JSON of each published placeholder of ``placeholder_ids`` with its entries, in
    the order given (ids of placeholders that are not published are left out)."""
    if not placeholder_ids:
        return []
    rows = (Select(P)
            .where(*equals(P.festival, festival_id))
            .where(*one_of(P.id, placeholder_ids))
            .rows(P.id, P.with_entries))
    by_id = {str(P.id.python_value(row_id)): body for row_id, body in rows}
    return [by_id[str(i)] for i in placeholder_ids if str(i) in by_id]


def find_page(festival_id, page_id=None, slug=None):
    """``(body, placeholder ids)`` of the published public page matching every selector
    given, or None."""
    select = Select(W).where(*equals(W.festival, festival_id))
    if page_id is not None:
        select.where(*equals(W.id, page_id))
    if slug is not None:
        select.where(*equals(W.slug, slug))
    row = select.first(W.body, W.placeholders)
    return row and (row[0], orjson.loads(row[1]))


# --- histories ----------------------------------------------------------------------------------


def entry_json(body, rank, tied, points, programmes, last_result_at):
    """An entry's JSON: the numbers of a moment before the entity's stored members."""
    return (f'{{"rank":{rank},"tied":{"true" if tied else "false"},"points":{orjson.dumps(points).decode()},'
            f'"programmeCount":{programmes},"lastResultAt":{orjson.dumps(last_result_at).decode()},{body[1:]}')


def _entities(festival_id, placeholder_id, numbers=None, below=None):
    """``{number: body}`` of a history's entities: those of ``numbers``, or those below ``below``."""
    select = (Select(H_ENTITY)
              .where(*equals(H_ENTITY.festival, festival_id))
              .where(*equals(H_ENTITY.placeholder, placeholder_id)))
    if numbers is not None:
        if not numbers:
            return {}
        select.where(*one_of(H_ENTITY.number, sorted(numbers)))
    if below is not None:
        select.where(*compare(H_ENTITY.number, "<", below))
    return dict(select.rows(H_ENTITY.number, H_ENTITY.body))


# The entry sorts of /toppers on a board of the past: the place in a step's board entry
# (``[entity number, rank, tied, points, programmes, last result at]``) of the number each
# sorts by first (None: the name, which is the entity's), and whether equal ones go by name.
_PAST_SORTS = {
    "rank": (1, True),
    "points": (3, False),
    "name": (None, True),
    "programmeCount": (4, False),
    "lastResultAt": (5, False),
}


def list_entries_as_of(festival_id, placeholder_id, moment, page, limit, sort_by, sort_order):
    """``(at, page)``: one page of the board as it stood at ``moment`` (naive UTC), sorted
    as :func:`list_entries` sorts (NULLs last, ties by name where the sort says, then by
    entity id), and the publication moment it is of (None before the first: an empty board).

    Only the entities whose first sort value another entry shares are read to sort (by name
    and id); the rest of the page's entities are read after, so a board without ties reads
    only the page's entities and decodes none of them."""
    at, board = _step_as_of(festival_id, placeholder_id, moment)
    place, by_name = _PAST_SORTS[sort_by]
    if place is None:
        present, absent = board, []
        clashing = board
    else:
        present = [entry for entry in board if entry[place] is not None]
        absent = [entry for entry in board if entry[place] is None]
        counts = Counter(entry[place] for entry in present)
        clashing = [entry for entry in present if counts[entry[place]] > 1]
    bodies = _entities(festival_id, placeholder_id, {entry[0] for entry in clashing})
    tie_keys = {}
    for number, body in bodies.items():
        member = orjson.loads(body)
        tie_keys[number] = ((text_sort_key(member["name"]),) if by_name else ()) + (member["entityId"],)

    def key(entry):
        first = () if place is None else (entry[place],)
        return first + tie_keys.get(entry[0], ())

    present = sorted(present, key=key, reverse=sort_order == "desc")
    start = (page - 1) * limit
    shown = (present + absent)[start:start + limit]
    missing = {entry[0] for entry in shown} - set(bodies)
    if missing:
        bodies.update(_entities(festival_id, placeholder_id, missing))
    items = [(entry_json(bodies[number], *numbers),) for number, *numbers in shown]
    return at, Page(items=items, page=page, limit=limit, total=len(board))


def placeholders_as_of(festival_id, placeholder_ids, moment):
    """``[(JSON, at)]``: each published placeholder of ``placeholder_ids`` with its entries as
    they stood at ``moment`` (the shape of ``placeholders_with_entries``), in the order given,
    and the publication its board is of (None: an empty board)."""
    if not placeholder_ids:
        return []
    rows = (Select(P)
            .where(*equals(P.festival, festival_id))
            .where(*one_of(P.id, placeholder_ids))
            .rows(P.id, P.body))
    by_id = {str(P.id.python_value(row_id)): body for row_id, body in rows}
    boards = []
    for placeholder_id in (str(i) for i in placeholder_ids):
        if placeholder_id not in by_id:
            continue
        at, board = _step_as_of(festival_id, placeholder_id, moment)
        bodies = _entities(festival_id, placeholder_id, {entry[0] for entry in board})
        entries = ",".join(entry_json(bodies[number], *numbers) for number, *numbers in board)
        boards.append((f'{by_id[placeholder_id][:-1]},"entries":[{entries}]}}', at))
    return boards


def _step_as_of(festival_id, placeholder_id, moment):
    """``(at, board)`` of the last step at or before ``moment``, one read by index (``(None,
    [])`` before the first)."""
    row = (Select(H_STEP)
           .where(*equals(H_STEP.festival, festival_id))
           .where(*equals(H_STEP.placeholder, placeholder_id))
           .where(*compare(H_STEP.at, "<=", moment))
           .sort({"at": H_STEP.at}, "at", "desc", H_STEP.step)
           .first(H_STEP.at, H_STEP.board))
    if row is None:
        return None, []
    return row[0], orjson.loads(row[1])


def race_of(festival_id, placeholder_id, top, page, limit):
    """``(entries, steps page)`` of a leaderboard's race: the JSON of its ``top`` best entries
    by the final board, and one page of its steps as ``(step, at, race)`` rows, where ``race``
    has each race entry's ``[rank, points]`` (or null)."""
    head = (Select(H_HISTORY)
            .where(*equals(H_HISTORY.festival, festival_id))
            .where(*equals(H_HISTORY.placeholder, placeholder_id))
            .first(H_HISTORY.race, H_HISTORY.final))
    race, final = (head[0], orjson.loads(head[1])) if head else (0, [])
    shown = min(top, race)
    bodies = _entities(festival_id, placeholder_id, below=shown)
    entries = [(bodies[n], final[n]) for n in range(shown)]
    steps = (Select(H_STEP)
             .where(*equals(H_STEP.festival, festival_id))
             .where(*equals(H_STEP.placeholder, placeholder_id))
             .sort({"step": H_STEP.step}, "step", "asc", H_STEP.step)
             .page(page, limit, H_STEP.step, H_STEP.at, H_STEP.race))
    steps.items = [(step, H_STEP.at.python_value(at), race) for step, at, race in steps.items]
    return entries, steps
