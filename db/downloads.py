"""Download queries."""
from . import models as m
from .query import apply_filters, apply_sorting, iequals, paginate, search_terms
from .scopes import public_downloads

DOWNLOAD_SORTS = {
    "createdAt": m.Download.created_at,
    "updatedAt": m.Download.updated_at,
    "title": m.Download.title,
    "category": m.Download.category,
}

DOWNLOAD_FILTERS = {
    "search": lambda terms: search_terms(
        (m.Download.title, m.Download.description, m.Download.category), terms),
    "category": lambda category: iequals(m.Download.category, category),
    "is_public": lambda wanted: m.Download.is_public == wanted,
}


def list_downloads(festival_id, page, limit, sort_by, sort_order, **filters):
    query = apply_filters(public_downloads(festival_id), DOWNLOAD_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, DOWNLOAD_SORTS, m.Download.id)
    return paginate(query, page, limit)
