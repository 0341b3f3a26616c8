"""Programmes: query arguments and output."""
from marshmallow import fields, post_load

from . import examples
from .common import ContextSchema, OutSchema, QueryArgs, UtcDateTime, Uuid, list_envelope, sort_args
from .enums import PROGRAM_TYPES, SUB_FEST_PROGRAMME_STATUSES
from .fields import Array, Bool, CanonicalUUID, Enum, Text
from .nested import (
    CategoryRefSchema,
    CollectionRefSchema,
    ProgramRefSchema,
    ScheduleRefSchema,
    SubFestRefSchema,
)
from .selectors import ProgrammeSelectorArgs, SubFestSelectorArgs

# The public sort names; db/read/programmes.py maps each to a compiled column.
PROGRAMME_SORT_NAMES = ("displayOrder", "code", "name", "status", "programType", "publishedAt")


WINDOW_RULE = ("Open when opensAt <= now <= closesAt; a missing opensAt means open since ever, "
               "a missing closesAt open until further notice, and a window with neither is closed.")


class ProgrammeFilterArgsSchema(QueryArgs):
    """The public-safe programme filters, shared by every programme list.

    ``status`` and ``statuses`` are one filter (loaded into ``statuses``), as are
    ``collectionId`` and ``collectionIds`` (into ``collection_ids``).
    """

    search = Text(metadata={
        "description": "Text to find in the programme's name or code.", "example": "Ottanthullal"})
    category_ids = Array(CanonicalUUID(), metadata={
        "description": "Any of these categories.", "example": [examples.CATEGORY_ID]})
    venues = Array(CanonicalUUID(), metadata={"example": [examples.VENUE_ID],
        "description": "Programmes scheduled at any of these venue ids."})
    status = Enum(SUB_FEST_PROGRAMME_STATUSES, metadata={"example": "result_published",
        "description": "Programme status; combined with `statuses` as any of. "
                       "Output stays restricted to active public programmes."})
    statuses = Array(Enum(SUB_FEST_PROGRAMME_STATUSES), metadata={"example": ["ongoing", "completed"],
        "description": "Any of these statuses; combined with `status`."})
    program_type = Enum(PROGRAM_TYPES, metadata={"example": "individual", "description": "Programme type."})
    program_code_pattern = Text(max_length=60, metadata={"example": "HS-*",
        "description": "Programme code pattern, `*` matching any run of characters, "
                       "case-insensitive; matches the sub-fest code (`HS-G02`) or the "
                       "programme's own code (`G02`)."})
    collection_id = CanonicalUUID(metadata={
        "description": "In this programme collection.", "example": examples.COLLECTION_ID})
    collection_ids = Array(CanonicalUUID(), metadata={"example": [examples.COLLECTION_ID],
        "description": "In any of these programme collections; combined with `collectionId`."})
    judges = Array(CanonicalUUID(), metadata={
        "description": "Judged by any of these judge ids.", "example": [examples.JUDGE_ID]})
    position_criteria_id = CanonicalUUID(metadata={
        "description": "Uses this position criteria.", "example": examples.POSITION_CRITERIA_ID})
    grade_criteria_id = CanonicalUUID(metadata={
        "description": "Uses this grade criteria.", "example": examples.GRADE_CRITERIA_ID})
    requires_topic_registration = Bool(metadata={"example": False,
        "description": "Whether the programme needs a topic registration."})
    candidate_registration_open = Bool(metadata={"example": False,
        "description": f"Candidate registration window open now. {WINDOW_RULE}"})
    topic_registration_open = Bool(metadata={"example": False,
        "description": f"Topic registration window open now. {WINDOW_RULE}"})
    has_schedule = Bool(metadata={"example": True, "description": "Has at least one schedule."})
    has_results = Bool(metadata={"example": True, "description": "Has at least one published public result."})
    has_judges = Bool(metadata={"example": True, "description": "Has at least one judge assigned."})
    has_registrations = Bool(metadata={"example": True, "description": "Has at least one registration."})

    @post_load
    def merge_aliases(self, data, **kwargs):
        """One value and a list of the same filter mean any of them; empty text is no filter."""
        statuses = list(data.pop("statuses", None) or [])
        if data.get("status") is not None:
            statuses.append(data["status"])
        data.pop("status", None)
        data["statuses"] = statuses
        collection_ids = list(data.pop("collection_ids", None) or [])
        if data.get("collection_id") is not None:
            collection_ids.append(data["collection_id"])
        data.pop("collection_id", None)
        data["collection_ids"] = collection_ids
        return {name: value for name, value in data.items() if value != ""}


class ProgrammeQueryArgsSchema(SubFestSelectorArgs, ProgrammeFilterArgsSchema,
                               sort_args(PROGRAMME_SORT_NAMES, "displayOrder")):
    """The programmes of one sub-fest, filtered."""


class ProgrammeDetailQueryArgsSchema(ProgrammeSelectorArgs):
    """One programme, by id or by code."""


class ProgrammeSchema(OutSchema):
    """A programme as run in one sub-fest (the list item)."""

    id = Uuid(metadata={"description": "Sub-fest programme id."})
    code = fields.String(metadata={"description": "The programme's code in this sub-fest."})
    status = fields.String(metadata={"enum": list(SUB_FEST_PROGRAMME_STATUSES)})
    published_at = UtcDateTime(allow_none=True)
    sub_fest = fields.Nested(SubFestRefSchema)
    program = fields.Nested(ProgramRefSchema, attribute="programme")
    category = fields.Nested(CategoryRefSchema, attribute="category_ref", allow_none=True, metadata={
        "description": "Set only when the category is public."})
    next_schedule = fields.Nested(ScheduleRefSchema, allow_none=True, metadata={
        "description": "The earliest schedule at or after now, or null."})
    result_count = fields.Integer(metadata={"description": "Published public results."})
    registration_count = fields.Integer(metadata={"description": "Active registrations."})


ProgrammeListSchema = list_envelope(ProgrammeSchema, "ProgrammeList")


class ProgrammeDetailSchema(ProgrammeSchema):
    context = fields.Nested(ContextSchema)
    requires_topic_registration = fields.Boolean()
    candidate_registration_opens_at = UtcDateTime(allow_none=True)
    candidate_registration_closes_at = UtcDateTime(allow_none=True)
    candidate_registration_open = fields.Boolean(metadata={"description": WINDOW_RULE})
    topic_registration_opens_at = UtcDateTime(allow_none=True)
    topic_registration_closes_at = UtcDateTime(allow_none=True)
    topic_registration_open = fields.Boolean(metadata={"description": WINDOW_RULE})
    schedules = fields.List(fields.Nested(ScheduleRefSchema), attribute="schedule_list", metadata={
        "description": "Every schedule of the programme, earliest first."})
    collections = fields.List(fields.Nested(CollectionRefSchema), attribute="collection_list", metadata={
        "description": "The public programme collections it belongs to."})
