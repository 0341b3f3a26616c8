"""Schedules from the compiled tables: ``/schedules``.

A schedule's venue is compiled only when it is public: ``venueId`` matches public venues
only, and sorting by ``venueName`` puts the schedules without a public venue last.
"""
from ..compiled.tables import PublicSchedule as S
from .sql import Select, compare, equals

SCHEDULE_SORTS = {
    "scheduledAt": S.scheduled_at,
    "durationMinutes": S.duration_minutes,
    "programCode": S.program_code_key,
    "programName": S.program_name_key,
    "venueName": S.venue_name_key,
}

SCHEDULE_FILTERS = {
    "sub_fest_id": lambda sub_fest_id: equals(S.sub_fest, sub_fest_id),
    "sub_fest_program_id": lambda programme_id: equals(S.sub_fest_programme, programme_id),
    "venue_id": lambda venue_id: equals(S.venue, venue_id),
    "scheduled_at_from": lambda moment: compare(S.scheduled_at, ">=", moment),
    "scheduled_at_to": lambda moment: compare(S.scheduled_at, "<=", moment),
}


def list_schedules(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of schedules of visible programmes: ``(body,)`` rows."""
    return (Select(S)
            .where(*equals(S.festival, festival_id))
            .filter(SCHEDULE_FILTERS, filters)
            .sort(SCHEDULE_SORTS, sort_by, sort_order, S.id)
            .page(page, limit, S.body))
