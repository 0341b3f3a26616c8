"""Leaderboards from the compiled tables: ``/topper-placeholders``, ``/toppers`` and
``/page-toppers``. Only published placeholders of public sub-fests are compiled, with the
entries :mod:`db.source.toppers` computed for them and the pages that show them."""
import orjson

from ..compiled import kinds
from ..compiled.tables import PublicPage as W
from ..compiled.tables import PublicPlaceholder as P
from ..compiled.tables import PublicTopperEntry as E
from ..query import ascii_lower
from . import find_by_selectors
from .sql import Select, column, equals, one_of

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
