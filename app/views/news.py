"""GET /news."""

from db import clock
from db.read.news import list_news
from schemas.news import NewsListSchema, NewsQueryArgsSchema

from .responses import list_json
from .operations import PUBLIC_CONTENT, Blueprint

blp = Blueprint("news", __name__, group=PUBLIC_CONTENT,
                description="Published public news of the festival.")


@blp.operation("/news", "listNews", NewsQueryArgsSchema, NewsListSchema)
def news(festival, **args):
    """List published public news

    The festival's published news, newest first by default. `contentHtml` is sanitised and safe
    to render.
    """
    page = list_news(festival.id, now=clock.utcnow(), **args)
    return list_json(page, [body for (body,) in page.items], festival.context_json())
