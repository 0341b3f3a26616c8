"""GET /downloads."""
from flask import g

from db.downloads import list_downloads
from schemas.downloads import DownloadListSchema, DownloadQueryArgsSchema

from ..context import list_response
from ..smorest import Blueprint

blp = Blueprint("downloads", __name__, description="Public downloads of the festival.")


@blp.get("/downloads")
@blp.arguments(DownloadQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, DownloadListSchema)
def downloads(**args):
    """List public downloads"""
    return list_response(list_downloads(g.festival.id, **args))
