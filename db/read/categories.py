"""Categories from the compiled tables: ``/categories``."""
from ..compiled import kinds
from ..compiled.tables import PublicCategory as K
from .sql import Select, contains_all, equals

CATEGORY_SORTS = {
    "displayOrder": K.display_order,
    "name": K.name_key,
}

CATEGORY_FILTERS = {
    "search": lambda terms: contains_all(K.search, terms),
}


def list_categories(festival_id, sub_fest_id, page, limit, sort_by, sort_order, **filters):
    """One page of a sub-fest's public categories: ``(body,)`` rows."""
    return (Select(K)
            .where(*equals(K.festival, festival_id))
            .where(*equals(K.sub_fest, sub_fest_id))
            .total_of(kinds.LIST_CATEGORIES, festival_id, sub_fest_id)
            .filter(CATEGORY_FILTERS, filters)
            .sort(CATEGORY_SORTS, sort_by, sort_order, K.id)
            .page(page, limit, K.body))
