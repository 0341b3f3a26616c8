"""Downloads from the compiled tables: ``/downloads``."""
from ..compiled import kinds
from ..compiled.tables import PublicDownload as D
from ..query import ascii_lower
from .sql import Select, contains_all, equals

DOWNLOAD_SORTS = {
    "createdAt": D.created_at,
    "updatedAt": D.updated_at,
    "title": D.title_key,
    "category": D.category_key,
}

DOWNLOAD_FILTERS = {
    "search": lambda terms: contains_all(D.search, terms),
    # the category is stored A-Z folded: it matches A-Z case-insensitively
    "category": lambda category: equals(D.category, ascii_lower(category)),
    "is_public": lambda wanted: equals(D.is_public, wanted),
}


def list_downloads(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of the festival's public downloads: ``(body,)`` rows."""
    return (Select(D)
            .where(*equals(D.festival, festival_id))
            .total_of(kinds.LIST_DOWNLOADS, festival_id, festival_id)
            .filter(DOWNLOAD_FILTERS, filters)
            .sort(DOWNLOAD_SORTS, sort_by, sort_order, D.id)
            .page(page, limit, D.body))
