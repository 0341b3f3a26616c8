"""News from the compiled tables: ``/news``.

Only news that is published, public and not deleted is compiled, with its ``publishedAt``;
a request keeps the items whose ``publishedAt`` is not after its ``now``, so an item
appears the moment its time comes.
"""
from ..compiled import kinds
from ..compiled.tables import PublicNews as N
from ..query import ascii_lower
from .sql import Select, any_bool, compare, contains_all, equals, one_of, tagged

NEWS_SORTS = {
    "publishedAt": N.published_at,
    "createdAt": N.created_at,
    "updatedAt": N.updated_at,
    "title": N.title_key,
}


def news_filters(festival_id):
    """The filter table of ``/news``: argument name -> SQL fragment. Tags match A-Z
    case-insensitively (they are stored folded)."""
    return {
        "search": lambda terms: contains_all(N.search, terms),
        "status": lambda values: one_of(N.status, values),
        "is_public": lambda values: any_bool(N.is_public, values),
        "tags": lambda tags: tagged(N, kinds.TAG_NEWS, festival_id, [ascii_lower(tag) for tag in tags]),
        "has_thumbnail": lambda wanted: any_bool(N.has_thumbnail, wanted),
        "has_feature_image": lambda wanted: any_bool(N.has_feature_image, wanted),
    }


def list_news(festival_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of the news visible at ``now``: ``(body,)`` rows."""
    return (Select(N)
            .where(*equals(N.festival, festival_id))
            .where(*compare(N.published_at, "<=", now))
            .filter(news_filters(festival_id), filters)
            .sort(NEWS_SORTS, sort_by, sort_order, N.id)
            .page(page, limit, N.body))
