"""News: the tags of news items, for the compile step."""
from . import models as m
from .related import attach_lists


def attach_tags(items):
    """Set ``item.tags`` for every news item with one query."""
    attach_lists(items, "tags", lambda ids: (m.NewsTag
                                             .select(m.NewsTag.news, m.NewsTag.tag)
                                             .where(m.NewsTag.news.in_(ids))
                                             .order_by(m.NewsTag.tag)
                                             .tuples()))
