"""GET /schedules."""

from db.read.schedules import list_schedules
from schemas.schedules import ScheduleListSchema, ScheduleQueryArgsSchema

from ..context import festival_id
from ..lookups import sub_fest_ref_by_slug_or_404
from ..responses import list_json
from ..smorest import Blueprint

blp = Blueprint("schedules", __name__, description="When and where the public programmes run.")


@blp.get("/schedules")
@blp.arguments(ScheduleQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, ScheduleListSchema)
def schedules(sub_fest_slug=None, **args):
    """List schedules of public programmes"""
    sub_fest = sub_fest_ref_by_slug_or_404(sub_fest_slug) if sub_fest_slug else None
    page = list_schedules(festival_id(), sub_fest_id=sub_fest and sub_fest.id, **args)
    return list_json(page, [body for (body,) in page.items], sub_fest)
