"""Sub-fests from the compiled tables."""
from ..compiled import kinds
from ..compiled.tables import PublicSubFest as S
from .sql import Select, contains_all, equals

SUB_FEST_SORTS = {
    "displayOrder": S.display_order,
    "name": S.name_key,
    "startDate": S.start_date,
}

SUB_FEST_FILTERS = {
    "search": lambda terms: contains_all(S.search, terms),
}


def list_sub_fests(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of the festival's public sub-fests: ``items`` are ``(body,)`` tuples."""
    return (Select(S)
            .where(*equals(S.festival, festival_id))
            .total_of(kinds.LIST_SUB_FESTS, festival_id, festival_id)
            .filter(SUB_FEST_FILTERS, filters)
            .sort(SUB_FEST_SORTS, sort_by, sort_order, S.id)
            .page(page, limit, S.body))


def sub_fest_summaries(festival_id):
    """``(id, slug, summary JSON)`` of every public sub-fest of the festival."""
    return list(S.select(S.id, S.slug, S.summary).where(S.festival == festival_id).tuples())
