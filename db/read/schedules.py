"""Schedules from the compiled tables: ``/schedules``.

A schedule's venue is compiled only when it is public: ``venueId`` matches public venues
only, and sorting by ``venueName`` puts the schedules without a public venue last.
"""
from ..query import apply_filters, apply_sorting, page_of_rows
from ..read_model import PublicSchedule as S

SCHEDULE_SORTS = {
    "scheduledAt": S.scheduled_at,
    "durationMinutes": S.duration_minutes,
    "programCode": S.program_code_key,
    "programName": S.program_name_key,
    "venueName": S.venue_name_key,
}

SCHEDULE_FILTERS = {
    "sub_fest_id": lambda sub_fest_id: S.sub_fest == sub_fest_id,
    "sub_fest_program_id": lambda programme_id: S.sub_fest_programme == programme_id,
    "venue_id": lambda venue_id: S.venue == venue_id,
    "scheduled_at_from": lambda moment: S.scheduled_at >= moment,
    "scheduled_at_to": lambda moment: S.scheduled_at <= moment,
}


def list_schedules(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of schedules of visible programmes: ``(body,)`` rows."""
    query = apply_filters(S.select().where(S.festival == festival_id), SCHEDULE_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, SCHEDULE_SORTS, S.id)
    return page_of_rows(query, (S.body,), page, limit)
