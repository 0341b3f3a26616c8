"""News from the compiled tables: ``/news``.

Only news that is published, public and not deleted is compiled, with its ``publishedAt``;
a request keeps the items whose ``publishedAt`` is not after its ``now``, so an item
appears the moment its time comes.
"""
from ..query import apply_filters, apply_sorting, ascii_lower, page_of_rows, search_folded
from ..read_model import PublicNews as N
from . import tagged

NEWS_SORTS = {
    "publishedAt": N.published_at,
    "createdAt": N.created_at,
    "updatedAt": N.updated_at,
    "title": N.title_key,
}


def news_filters(festival_id):
    """The filter table of ``/news``: argument name -> condition. Tags match A-Z
    case-insensitively (they are stored folded)."""
    return {
        "search": lambda terms: search_folded(N.search, terms),
        "status": lambda values: N.status.in_(values),
        "is_public": lambda values: N.is_public.in_(values),
        "tags": lambda tags: tagged(N, "news-tag", festival_id, [ascii_lower(tag) for tag in tags]),
        "has_thumbnail": lambda wanted: N.has_thumbnail.in_(wanted),
        "has_feature_image": lambda wanted: N.has_feature_image.in_(wanted),
    }


def list_news(festival_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of the news visible at ``now``: ``(body,)`` rows."""
    query = N.select().where((N.festival == festival_id) & (N.published_at <= now))
    query = apply_filters(query, news_filters(festival_id), filters)
    query = apply_sorting(query, sort_by, sort_order, NEWS_SORTS, N.id)
    return page_of_rows(query, (N.body,), page, limit)
