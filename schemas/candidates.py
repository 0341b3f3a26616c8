"""Candidates: query arguments and output. Nothing private is named here."""
from marshmallow import fields

from . import examples
from .common import ContextSchema, OutSchema, Uuid, list_envelope, sort_args
from .enums import GENDERS
from .fields import Array, Bool, CanonicalUUID, Enum, Text
from .nested import (
    CandidateIdentitySchema,
    CategoryRefSchema,
    PointsSummarySchema,
    SectionRefSchema,
    SubFestRefSchema,
    TeamRefSchema,
)
from .selectors import CandidateSelectorArgs, SubFestSelectorArgs

# The public sort names; db/read/candidates.py maps each to a compiled column.
CANDIDATE_SORT_NAMES = ("chestNo", "name")


# The query parameters that test a private value (docs/api-conventions.md, "Private values"):
# off unless the festival turns them on, one value a request, a budget of their own, and
# answers no cache keeps (app/door/__init__.py).
PRIVATE_PARAMETERS = ("admNoPattern",)
ADM_NO_OFF_MESSAGE = ("This festival has not enabled the admNoPattern filter "
                      "(admission_number_filter in its festival file).")


class CandidateQueryArgsSchema(SubFestSelectorArgs, sort_args(CANDIDATE_SORT_NAMES, "chestNo")):
    search = Array(Text(), split=False, metadata={"example": ["Sidharth"],
        "description": "Words to find in the name or chest number; several terms must all match."})
    category_ids = Array(CanonicalUUID(), metadata={
        "description": "Any of these categories.", "example": [examples.CATEGORY_ID]})
    team_ids = Array(CanonicalUUID(), metadata={"example": [examples.TEAM_ID],
        "description": "Any of these teams, including the teams below them (a district's schools)."})
    gender = Array(Enum(GENDERS), metadata={"example": ["female"], "description": "Any of these genders."})
    is_active = Array(Bool(), metadata={
        "description": "Output stays restricted to active candidates.", "example": [True]})
    chest_no_pattern = Array(Text(max_length=40), metadata={"example": ["10*"],
        "description": "Chest number patterns, `*` matching any run of characters; any of them."})
    # A private field: off unless the festival turns it on; then one exact value a request,
    # so one request tests one guess, and the front door gives it a small budget of its own.
    adm_no_pattern = Array(Text(max_length=60), max_items=1, metadata={"example": ["X-0000"],
        "description": "One exact admission number (case-insensitive; `*` is an ordinary character, "
                       "no partial match; one value a request). A 400 unless the festival has turned "
                       "this filter on; then a budget of its own per visitor (RATELIMIT_PRIVATE_FILTER) "
                       "and answers marked `Cache-Control: private, no-store`. The number itself is "
                       "never returned."})
    has_avatar = Array(Bool(), metadata={"example": [True], "description": "Has an avatar image."})
    has_registration = Array(Bool(), metadata={
        "description": "Takes part in at least one entry.", "example": [True]})
    section_ids = Array(CanonicalUUID(), metadata={
        "description": "In any of these sections.", "example": [examples.SECTION_ID]})


class CandidateDetailQueryArgsSchema(CandidateSelectorArgs):
    """One candidate, by id or by chest number."""


class CandidateSchema(OutSchema):
    id = Uuid(metadata={"description": "Sub-fest candidate id."})
    candidate = fields.Nested(CandidateIdentitySchema, attribute="identity")
    avatar_url = fields.String(allow_none=True)
    sub_fest = fields.Nested(SubFestRefSchema)
    category = fields.Nested(CategoryRefSchema, attribute="category_ref", allow_none=True, metadata={
        "description": "Set only when the category is public."})
    team = fields.Nested(TeamRefSchema, attribute="team_ref", allow_none=True, metadata={
        "description": "Set only when the team is public."})
    sections = fields.List(fields.Nested(SectionRefSchema), attribute="section_list")
    points_summary = fields.Nested(PointsSummarySchema)
    registration_count = fields.Integer(metadata={
        "description": "Entries the candidate takes part in (individual, or as a group member)."})


CandidateListSchema = list_envelope(CandidateSchema, "CandidateList")


class CandidateDetailSchema(CandidateSchema):
    context = fields.Nested(ContextSchema)
