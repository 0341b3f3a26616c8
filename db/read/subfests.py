"""Sub-fests from the compiled tables."""
from ..query import apply_filters, apply_sorting, page_of_rows, search_folded
from ..read_model import PublicSubFest as S

SUB_FEST_SORTS = {
    "displayOrder": S.display_order,
    "name": S.name_key,
    "startDate": S.start_date,
}

SUB_FEST_FILTERS = {
    "search": lambda terms: search_folded(S.search, terms),
}


def list_sub_fests(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of the festival's public sub-fests: ``items`` are ``(body,)`` tuples."""
    query = apply_filters(S.select().where(S.festival == festival_id), SUB_FEST_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, SUB_FEST_SORTS, S.id)
    return page_of_rows(query, (S.body,), page, limit)


def sub_fest_summaries(festival_id):
    """``(id, slug, summary JSON)`` of every public sub-fest of the festival."""
    return list(S.select(S.id, S.slug, S.summary).where(S.festival == festival_id).tuples())
