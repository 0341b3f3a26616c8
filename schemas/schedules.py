"""Schedules: query arguments and output."""
from marshmallow import fields

from . import examples
from .common import OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .fields import CanonicalUUID, Instant
from .nested import ProgrammeSummarySchema, SubFestRefSchema, VenueRefSchema
from .selectors import optional_sub_fest_fields

# The public sort names; db/read/schedules.py maps each to a compiled column.
SCHEDULE_SORT_NAMES = ("scheduledAt", "durationMinutes", "programCode", "programName", "venueName")


class ScheduleQueryArgsSchema(sort_args(SCHEDULE_SORT_NAMES, "scheduledAt")):
    sub_fest_id, sub_fest_slug = optional_sub_fest_fields("schedules")
    sub_fest_program_id = CanonicalUUID(metadata={
        "description": "Only schedules of this programme.", "example": examples.PROGRAMME_ID})
    venue_id = CanonicalUUID(metadata={
        "description": "Only schedules at this (public) venue.", "example": examples.VENUE_ID})
    scheduled_at_from = Instant(metadata={"example": examples.FESTIVAL_DAY,
        "description": "Schedules at or after this moment: a date (its first moment in the festival's "
                       "time zone) or "
                       "an ISO 8601 date-time with an offset. After `scheduledAtTo`, no schedule matches "
                       "(an empty page)."})
    scheduled_at_to = Instant(end_of_day=True, metadata={"example": examples.FESTIVAL_DAY,
        "description": "Schedules at or before this moment: a date (its last moment in the festival's "
                       "time zone) or "
                       "an ISO 8601 date-time with an offset."})


class ScheduleSchema(OutSchema):
    id = Uuid()
    scheduled_at = UtcDateTime()
    duration_minutes = fields.Integer(allow_none=True)
    venue = fields.Nested(VenueRefSchema, attribute="venue_ref", allow_none=True, metadata={
        "description": "Set only when the venue is public."})
    sub_fest = fields.Nested(SubFestRefSchema, attribute="sub_fest_programme.sub_fest")
    sub_fest_program = fields.Nested(ProgrammeSummarySchema, attribute="sub_fest_programme")


ScheduleListSchema = list_envelope(ScheduleSchema, "ScheduleList")
