"""GET /schedules."""
from flask_smorest import abort

from db.read.schedules import ReversedRange, list_schedules
from schemas.schedules import ScheduleListSchema, ScheduleQueryArgsSchema

from .lookups import narrowing_sub_fest_or_404
from .responses import list_json
from .operations import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("schedules", __name__, group=SCHEDULES_AND_RESULTS,
                description="When and where the public programmes run.")


@blp.operation("/schedules", "listSchedules", ScheduleQueryArgsSchema, ScheduleListSchema)
def schedules(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List schedules of public programmes

    When and where each public programme is on stage, earliest first by default. `subFestSlug`
    or `subFestId`, `subFestProgramId`, `venueId` and a time window (`scheduledAtFrom`,
    `scheduledAtTo`: a day of the festival's zone or an instant) narrow the list.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    try:
        page = list_schedules(festival.id, festival.timezone, sub_fest_id=sub_fest and sub_fest.id, **args)
    except ReversedRange as exc:
        abort(400, errors={"query": {"scheduledAtFrom": [str(exc)]}})
    return list_json(page, [body for (body,) in page.items], festival.context_json(sub_fest))
