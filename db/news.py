"""News queries."""
from . import models as m
from .query import any_of, apply_filters, apply_sorting, iequals_any, paginate, presence, search_terms
from .scopes import public_news

NEWS_SORTS = {
    "publishedAt": m.News.published_at,
    "createdAt": m.News.created_at,
    "updatedAt": m.News.updated_at,
    "title": m.News.title,
}

NEWS_FILTERS = {
    "search": lambda terms: search_terms((m.News.title, m.News.summary), terms),
    "status": lambda values: m.News.status.in_(values),
    "is_public": lambda values: m.News.is_public.in_(values),
    "tags": lambda tags: m.News.id.in_(
        m.NewsTag.select(m.NewsTag.news).where(iequals_any(m.NewsTag.tag, tags))),
    "has_thumbnail": lambda wanted: any_of(presence(m.News.thumbnail_url, w) for w in wanted),
    "has_feature_image": lambda wanted: any_of(presence(m.News.feature_image_url, w) for w in wanted),
}


def list_news(festival_id, page, limit, sort_by, sort_order, now=None, **filters):
    """One page of the festival's visible news, with each item's tags attached."""
    query = apply_filters(public_news(festival_id, now), NEWS_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, NEWS_SORTS, m.News.id)
    result = paginate(query, page, limit)
    attach_tags(result.items)
    return result


def attach_tags(items):
    """Set ``item.tags`` for every news item with one query."""
    by_id = {item.id: item for item in items}
    for item in items:
        item.tags = []
    if not by_id:
        return
    links = (m.NewsTag
             .select(m.NewsTag.news, m.NewsTag.tag)
             .where(m.NewsTag.news.in_(list(by_id)))
             .order_by(m.NewsTag.tag)
             .tuples())
    for news_id, tag in links:
        by_id[news_id].tags.append(tag)
