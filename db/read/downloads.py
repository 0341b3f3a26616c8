"""Downloads from the compiled tables: ``/downloads``."""
from ..query import apply_filters, apply_sorting, ascii_lower, page_of_rows, search_folded
from ..read_model import PublicDownload as D

DOWNLOAD_SORTS = {
    "createdAt": D.created_at,
    "updatedAt": D.updated_at,
    "title": D.title_key,
    "category": D.category_key,
}

DOWNLOAD_FILTERS = {
    "search": lambda terms: search_folded(D.search, terms),
    # the category is stored A-Z folded: it matches A-Z case-insensitively
    "category": lambda category: D.category == ascii_lower(category),
    "is_public": lambda wanted: D.is_public == wanted,
}


def list_downloads(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of the festival's public downloads: ``(body,)`` rows."""
    query = apply_filters(D.select().where(D.festival == festival_id), DOWNLOAD_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, DOWNLOAD_SORTS, D.id)
    return page_of_rows(query, (D.body,), page, limit)
