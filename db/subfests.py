"""Sub-fest queries."""
from . import models as m
from .query import apply_filters, apply_sorting, paginate, search_terms
from .scopes import public_sub_fests

SUB_FEST_SORTS = {
    "displayOrder": m.SubFest.display_order,
    "name": m.SubFest.name,
    "startDate": m.SubFest.start_date,
}

SUB_FEST_FILTERS = {
    "search": lambda terms: search_terms((m.SubFest.name, m.SubFest.name_local, m.SubFest.slug), terms),
}


def list_sub_fests(festival_id, page, limit, sort_by, sort_order, **filters):
    query = apply_filters(public_sub_fests(festival_id), SUB_FEST_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, SUB_FEST_SORTS, m.SubFest.id)
    return paginate(query, page, limit)


def get_public_sub_fest(festival_id, sub_fest_id=None, slug=None):
    """The visible sub-fest with this id or slug, or None."""
    query = public_sub_fests(festival_id)
    if sub_fest_id is not None:
        query = query.where(m.SubFest.id == sub_fest_id)
    if slug is not None:
        query = query.where(m.SubFest.slug == slug)
    return query.first()
