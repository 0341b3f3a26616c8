"""Schedules from the compiled tables: ``/schedules``.

A schedule's venue is compiled only when it is public: ``venueId`` matches public venues
only, and sorting by ``venueName`` puts the schedules without a public venue last.

``scheduledAtFrom``/``scheduledAtTo`` given as bare dates are days of the festival: they
arrive as moments on the festival's clock (naive, a ``datetime`` subclass) and are placed in
the festival's time zone here, the one place that knows it.
"""
import datetime

from ..clock import festival_zone
from ..compiled import kinds
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
    "sub_fest_program_id": lambda programme_id: equals(S.sub_fest_programme, programme_id),
    "venue_id": lambda venue_id: equals(S.venue, venue_id),
    "scheduled_at_from": lambda moment: compare(S.scheduled_at, ">=", moment),
    "scheduled_at_to": lambda moment: compare(S.scheduled_at, "<=", moment),
}


def utc_moment(moment, zone):
    """``moment`` as naive UTC: a naive UTC instant stays; a moment on the festival's clock
    (any other ``datetime`` subclass) is placed in ``zone``. A day past either end of the
    calendar once in UTC is its end: no schedule lies beyond it."""
    if moment is None or type(moment) is datetime.datetime:
        return moment
    local = datetime.datetime.combine(moment.date(), moment.time(), tzinfo=zone)
    try:
        return local.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    except OverflowError:
        return datetime.datetime.min if moment.year == datetime.MINYEAR else datetime.datetime.max


def list_schedules(festival_id, time_zone, page, limit, sort_by, sort_order, **filters):
    """One page of schedules of visible programmes: ``(body,)`` rows. A range whose start,
    placed in the festival's ``time_zone``, is after its end matches no schedule: an empty page."""
    zone = festival_zone(time_zone)
    filters["scheduled_at_from"] = utc_moment(filters.get("scheduled_at_from"), zone)
    filters["scheduled_at_to"] = utc_moment(filters.get("scheduled_at_to"), zone)
    select = Select(S).where(*equals(S.festival, festival_id))
    sub_fest_id = filters.pop("sub_fest_id", None)
    if sub_fest_id is not None:
        select.where(*equals(S.sub_fest, sub_fest_id))
    return (select
            .total_of(kinds.LIST_SCHEDULES, festival_id, sub_fest_id or festival_id)
            .filter(SCHEDULE_FILTERS, filters)
            .sort(SCHEDULE_SORTS, sort_by, sort_order, S.id)
            .page(page, limit, S.body))
