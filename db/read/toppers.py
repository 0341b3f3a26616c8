"""Leaderboards from the compiled tables: ``/topper-placeholders``, ``/toppers`` and
``/page-toppers``. Only published placeholders of public sub-fests are compiled, with the
entries :mod:`db.toppers` computed for them and the pages that show them."""
import orjson

from ..query import apply_filters, apply_sorting, page_of_rows
from ..read_model import PublicPage as W
from ..read_model import PublicPlaceholder as P
from ..read_model import PublicTopperEntry as E

PLACEHOLDER_SORTS = {
    "displayOrder": P.display_order,
    "label": P.label_key,
    "scopeType": P.scope_type_key,
    "entityType": P.entity_type_key,
    "lastComputedAt": P.last_computed_at,
}

PLACEHOLDER_FILTERS = {
    "is_published": lambda wanted: P.is_published == wanted,
    "entity_type": lambda value: P.entity_type == value,
    "scope_type": lambda value: P.scope_type == value,
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
    query = P.select().where((P.festival == festival_id) & (P.sub_fest == sub_fest_id))
    query = apply_filters(query, PLACEHOLDER_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, PLACEHOLDER_SORTS, P.id)
    return page_of_rows(query, (P.body,), page, limit)


def get_placeholder(festival_id, placeholder_id):
    """``(sub_fest, body)`` of the published placeholder with this id, or None."""
    return (P.select(P.sub_fest, P.body)
            .where((P.festival == festival_id) & (P.id == placeholder_id))
            .tuples()
            .first())


def list_entries(festival_id, placeholder_id, page, limit, sort_by, sort_order):
    """``(placeholder, entries)``: the placeholder's ``(sub_fest, body)`` (None when it is
    not published) and one page of its entries, ``(body,)`` rows.

    The placeholder rides on the page's rows; only a page without rows reads it apart.
    """
    query = (E.select()
             .join(P, on=(P.id == E.placeholder))
             .where((E.festival == festival_id) & (E.placeholder == placeholder_id)))
    query = apply_sorting(query, sort_by, sort_order, ENTRY_SORTS, E.entity_id)
    entries = page_of_rows(query, (E.body, P.sub_fest, P.body), page, limit)
    if not entries.items:
        return get_placeholder(festival_id, placeholder_id), entries
    placeholder = entries.items[0][1:]
    entries.items = [row[:1] for row in entries.items]
    return placeholder, entries


def placeholders_with_entries(festival_id, placeholder_ids):
    """The JSON of each published placeholder of ``placeholder_ids`` with its entries, in
    the order given (ids that are not published are left out)."""
    if not placeholder_ids:
        return []
    rows = dict(P.select(P.id, P.with_entries)
                .where((P.festival == festival_id) & P.id.in_(placeholder_ids))
                .tuples())
    by_id = {str(key): value for key, value in rows.items()}
    return [by_id[str(i)] for i in placeholder_ids if str(i) in by_id]


def find_page(festival_id, page_id=None, slug=None):
    """``(body, placeholder ids)`` of the published public page matching every selector
    given, or None."""
    query = W.select(W.body, W.placeholders).where(W.festival == festival_id)
    if page_id is not None:
        query = query.where(W.id == page_id)
    if slug is not None:
        query = query.where(W.slug == slug)
    row = query.tuples().first()
    return row and (row[0], orjson.loads(row[1]))
