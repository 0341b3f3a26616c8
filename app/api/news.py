"""GET /news."""
from flask import g

from db.news import list_news
from schemas.news import NewsListSchema, NewsQueryArgsSchema

from ..context import list_response
from ..smorest import Blueprint

blp = Blueprint("news", __name__, description="Published public news of the festival.")


@blp.get("/news")
@blp.arguments(NewsQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, NewsListSchema)
def news(**args):
    """List published public news"""
    return list_response(list_news(g.festival.id, **args))
