"""GET /schedules."""
from db.read.schedules import list_schedules
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
    `scheduledAtTo`: a day of the festival's zone or an instant) narrow the list; a window
    whose start is after its end holds no schedule (an empty page).
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    page = list_schedules(festival.id, festival.timezone, sub_fest_id=sub_fest and sub_fest.id, **args)
    return list_json(page, [body for (body,) in page.items], festival.context_json(sub_fest))
