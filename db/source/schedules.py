"""Schedule queries: when and where the visible programmes run."""
from peewee import JOIN

from . import models as m
from .programmes import attach_categories
from ..query import apply_filters, apply_sorting, paginate
from .scopes import public_schedules, visible_venue

SCHEDULE_SORTS = {
    "scheduledAt": m.Schedule.scheduled_at,
    "durationMinutes": m.Schedule.duration_minutes,
    "programCode": m.SubFestProgramme.code,
    "programName": m.Programme.name,
    "venueName": m.Venue.name,
}

SCHEDULE_FILTERS = {
    "sub_fest_id": lambda sub_fest_id: m.SubFestProgramme.sub_fest == sub_fest_id,
    "sub_fest_program_id": lambda programme_id: m.Schedule.sub_fest_programme == programme_id,
    # the venue join only matches public venues, so a private venue's id finds nothing
    "venue_id": lambda venue_id: m.Venue.id == venue_id,
    "scheduled_at_from": lambda moment: m.Schedule.scheduled_at >= moment,
    "scheduled_at_to": lambda moment: m.Schedule.scheduled_at <= moment,
}


def list_schedules(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of schedules of visible programmes; ``venue_ref`` is set only for public venues."""
    query = (public_schedules(festival_id, m.Schedule, m.SubFestProgramme, m.Programme, m.SubFest, m.Venue)
             .join_from(m.Schedule, m.Venue, JOIN.LEFT_OUTER,
                        on=((m.Schedule.venue == m.Venue.id) & visible_venue()), attr="venue_ref"))
    query = apply_filters(query, SCHEDULE_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, SCHEDULE_SORTS, m.Schedule.id)
    result = paginate(query, page, limit)
    attach_categories([schedule.sub_fest_programme for schedule in result.items])
    return result
