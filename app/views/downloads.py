"""GET /downloads."""

from db.read.downloads import list_downloads
from schemas.downloads import DownloadListSchema, DownloadQueryArgsSchema

from .responses import list_json
from .operations import PUBLIC_CONTENT, Blueprint

blp = Blueprint("downloads", __name__, group=PUBLIC_CONTENT,
                description="Public downloads of the festival.")


@blp.operation("/downloads", "listDownloads", DownloadQueryArgsSchema, DownloadListSchema)
def downloads(festival, **args):
    """List public downloads

    Circulars, manuals and schedules a festival publishes, newest first by default; `category`
    and `search` narrow the list.
    """
    page = list_downloads(festival.id, **args)
    return list_json(page, [body for (body,) in page.items], festival.context_json())
