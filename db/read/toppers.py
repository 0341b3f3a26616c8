"""Leaderboards from the compiled tables: ``/topper-placeholders``, ``/toppers`` and
``/page-toppers``. Only published placeholders of public sub-fests are compiled, with the
entries :mod:`db.compiler.leaderboards` computed for them and the pages that show them."""
import orjson

from ..compiled import kinds
from ..compiled.tables import END_WIDTH
from ..compiled.tables import PublicPage as W
from ..compiled.tables import PublicPlaceholder as P
from ..compiled.tables import PublicTopperEntry as E
from ..compiled.tables import PublicTopperHistory as H_HISTORY
from ..compiled.tables import PublicTopperPastEntry as PAST
from ..compiled.tables import PublicTopperStep as H_STEP
from ..query import Page, ascii_lower
from . import find_by_selectors
from .sql import Select, column, equals, marks, one_of, run

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


def entry_sorts(entries):
    """The sorts of a board's entries (``entries``: the current board's table or a past
    step's): the stored order is rank, then name (ties are listed by name)."""
    return {
        "rank": (entries.rank, entries.name_key),
        "points": entries.points,
        "name": entries.name_key,
        "programmeCount": entries.programme_count,
        "lastResultAt": entries.last_result_at,
    }


ENTRY_SORTS = entry_sorts(E)


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

# The entry sorts of a board of the past: those of the current board (``ENTRY_SORTS``), on
# the same columns of the step's entries, read by the same sort indexes.
PAST_SORTS = entry_sorts(PAST)


def _step_at(festival, placeholder):
    """SQL of the number of the last step at or before a moment (a ``?`` after those of
    ``festival`` and ``placeholder``, the SQL expressions naming the festival and the
    placeholder: ``?`` when the placeholder is one, so the subquery runs once), by the
    ``(festival, placeholder, at)`` index."""
    return (f'(SELECT "step" FROM "{H_STEP._meta.table_name}" WHERE "festival" = {festival} '
            f'AND "placeholder" = {placeholder} AND "at" <= ? ORDER BY "at" DESC LIMIT 1)')


def list_entries_as_of(festival_id, placeholder_id, moment, page, limit, sort_by, sort_order):
    """``(at, page)``: one page of the board as it stood at ``moment`` (naive UTC), sorted
    as :func:`list_entries` sorts, and the publication moment it is of (None before the
    first: an empty board). One statement: the page of the last step's entries, each row
    with the step's moment and total (a page past the end reads the step alone)."""
    select = (Select(PAST)
              .where(*equals(PAST.festival, festival_id))
              .where(*equals(PAST.placeholder, placeholder_id))
              .where('"step" = ' + _step_at("?", "?"), [H_STEP.festival.db_value(festival_id),
                                                      H_STEP.placeholder.db_value(placeholder_id),
                                                      H_STEP.at.db_value(moment)])
              .sort(PAST_SORTS, sort_by, sort_order, PAST.entity_id))
    rows = select.rows(PAST.at, PAST.total, PAST.body, limit=limit, offset=(page - 1) * limit)
    if rows:
        at, total = PAST.at.python_value(rows[0][0]), rows[0][1]
    else:
        step = (Select(H_STEP)
                .where(*equals(H_STEP.festival, festival_id))
                .where(*equals(H_STEP.placeholder, placeholder_id))
                .where('"at" <= ?', [H_STEP.at.db_value(moment)])
                .sort({"at": H_STEP.at}, "at", "desc", H_STEP.step)
                .first(H_STEP.at, H_STEP.total))
        at, total = step or (None, 0)
    return at, Page(items=[(body,) for _, _, body in rows], page=page, limit=limit, total=total)


def placeholders_as_of(festival_id, placeholder_ids, moment):
    """``[(JSON, at)]``: each published placeholder of ``placeholder_ids`` with its entries as
    they stood at ``moment`` (the shape of ``placeholders_with_entries``), in the order given,
    and the publication its board is of (None: an empty board). One statement: each
    placeholder with its last step at or before the moment."""
    if not placeholder_ids:
        return []
    p, s = P._meta.table_name, H_STEP._meta.table_name
    step_at = _step_at('p."festival"', 'p."id"')
    ids = [P.id.db_value(i) for i in placeholder_ids]
    sql = (f'SELECT p."id", p."body", s."at", s."entries" FROM "{p}" p LEFT JOIN "{s}" s '
           f'ON s."festival" = p."festival" AND s."placeholder" = p."id" AND s."step" = {step_at} '
           f'WHERE p."festival" = ? AND p."id" IN ({marks(ids)})')
    rows = run(sql, [H_STEP.at.db_value(moment), P.festival.db_value(festival_id), *ids]).fetchall()
    by_id = {str(P.id.python_value(row_id)): (body, at, entries) for row_id, body, at, entries in rows}
    boards = []
    for placeholder_id in (str(i) for i in placeholder_ids):
        if placeholder_id not in by_id:
            continue
        body, at, entries = by_id[placeholder_id]
        boards.append((f'{body[:-1]},"entries":[{entries or ""}]}}', H_STEP.at.python_value(at)))
    return boards


def _first(column, ends):
    """SQL of the first ``top`` items (a ``?``) of a comma-separated list column, cut where
    its ``ends`` column says (``db.compiled.tables.ends_text``)."""
    return f'substr({column}, 1, CAST(substr({ends}, (? - 1) * {END_WIDTH} + 1, {END_WIDTH}) AS INTEGER))'


def race_head(festival_id, placeholder_id, top):
    """``(sub_fest, placeholder body, steps, entries)`` of a published placeholder and its
    race (``PublicTopperHistory``): how many steps it has and the JSON of its best ``top``
    entries, comma-separated (none without a history), in one statement; None when the
    placeholder is not published."""
    p, h = P._meta.table_name, H_HISTORY._meta.table_name
    sql = (f'SELECT p."sub_fest", p."body", h."steps", {_first("h.entries", "h.entry_ends")} FROM "{p}" p '
           f'LEFT JOIN "{h}" h ON h."placeholder" = p."id" AND h."festival" = p."festival" '
           f'WHERE p."festival" = ? AND p."id" = ?')
    row = run(sql, [top, P.festival.db_value(festival_id), P.id.db_value(placeholder_id)]).fetchone()
    if row is None:
        return None
    sub_fest, body, steps, entries = row
    return P.sub_fest.python_value(sub_fest), body, steps or 0, entries or ""


def race_steps(festival_id, placeholder_id, steps, top, page, limit, moment=None):
    """``(at, steps page)``: one page of a race's steps, oldest first, each as the JSON the
    race writes with the standings of its best ``top`` entries (``steps``: how many it
    has). With ``moment`` (naive UTC), only the steps at or before it, and ``at`` the last
    of them (None before the first); else ``at`` is None. One statement either way (a page
    past the end reads the last step alone)."""
    offset = (page - 1) * limit
    table = f'"{H_STEP._meta.table_name}"'
    step = f"s.head || {_first('s.standings', 's.standing_ends')} || ']}}'"
    if moment is None:
        rows = run(f'SELECT {step} FROM {table} s WHERE s."festival" = ? AND s."placeholder" = ? '
                   f'ORDER BY s."step" LIMIT ? OFFSET ?',
                   [top, H_STEP.festival.db_value(festival_id), H_STEP.placeholder.db_value(placeholder_id),
                    limit, offset]).fetchall()
        at, total = None, steps
        items = [text for (text,) in rows]
    else:
        # steps are numbered in the order of their moments: those by then are the first k,
        # k the number of the last one (``k``), whose number and moment lead each row
        params = [H_STEP.festival.db_value(festival_id), H_STEP.placeholder.db_value(placeholder_id)] * 2
        params.append(H_STEP.at.db_value(moment))
        last = 'k."festival" = ? AND k."placeholder" = ? AND k."step" = ' + _step_at("?", "?")
        found = run(f'SELECT k."step", k."at", {step} FROM {table} k JOIN {table} s '
                    f'ON s."festival" = k."festival" AND s."placeholder" = k."placeholder" AND s."step" <= k."step" '
                    f'WHERE {last} ORDER BY s."step" LIMIT ? OFFSET ?', [top, *params, limit, offset]).fetchall()
        head = found[0][:2] if found else run(f'SELECT k."step", k."at" FROM {table} k WHERE {last}', params).fetchone()
        total, at = head if head else (0, None)
        at = H_STEP.at.python_value(at)
        items = [text for _, _, text in found]
    return at, Page(items=items, page=page, limit=limit, total=total)
