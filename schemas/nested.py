"""Nested objects, one schema each, reused wherever they appear. Public fields only.

The serialised objects are Peewee model instances (or dicts with the same attribute
names). ``CandidateIdentitySchema`` is the only view of a person the API has: it names
no private field, and nothing else may serialise a ``Candidate``.
"""
from marshmallow import fields

from .common import OutSchema, UtcDateTime, Uuid
from .enums import GENDERS, PROGRAM_TYPES, SUB_FEST_PROGRAMME_STATUSES


class SubFestRefSchema(OutSchema):
    id = Uuid()
    slug = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)


class ProgramRefSchema(OutSchema):
    """The master programme: name, code and type."""

    id = Uuid()
    code = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    program_type = fields.String(metadata={"enum": list(PROGRAM_TYPES)})
    duration_minutes = fields.Integer(allow_none=True)


class CategoryRefSchema(OutSchema):
    id = Uuid()
    name = fields.String()
    name_local = fields.String(allow_none=True)


class TeamRefSchema(OutSchema):
    id = Uuid()
    name = fields.String()
    public_name = fields.String(allow_none=True)
    color_code = fields.String(allow_none=True)
    level = fields.Integer()
    logo_url = fields.String(allow_none=True)


class SectionRefSchema(OutSchema):
    id = Uuid()
    key = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)


class VenueRefSchema(OutSchema):
    id = Uuid()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    location = fields.String(allow_none=True)


class CollectionRefSchema(OutSchema):
    id = Uuid()
    key = fields.String()
    name = fields.String()


class CandidateIdentitySchema(OutSchema):
    """A candidate as the public sees them: name, chest number, gender. Nothing private."""

    id = Uuid(metadata={"description": "Sub-fest candidate id."})
    chest_no = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    gender = fields.String(allow_none=True, metadata={"enum": list(GENDERS)})
    avatar_url = fields.String(allow_none=True)


class ScheduleRefSchema(OutSchema):
    id = Uuid()
    scheduled_at = UtcDateTime()
    duration_minutes = fields.Integer(allow_none=True)
    venue = fields.Nested(VenueRefSchema, allow_none=True)


class ProgrammeSummarySchema(OutSchema):
    """A sub-fest programme inside another object (a schedule, result, registration, group)."""

    id = Uuid(metadata={"description": "Sub-fest programme id."})
    code = fields.String(metadata={"description": "The programme's code in its sub-fest."})
    status = fields.String(metadata={"enum": list(SUB_FEST_PROGRAMME_STATUSES)})
    program = fields.Nested(ProgramRefSchema, attribute="programme")
    category = fields.Nested(CategoryRefSchema, attribute="category_ref", allow_none=True, metadata={
        "description": "Set only when the category is public."})


class PointsBreakdownSchema(OutSchema):
    """How a result's points add up: ``points == positionPoints + gradePoints``."""

    position_points = fields.Float()
    grade_points = fields.Float()


class PointsSummarySchema(OutSchema):
    """A candidate's points from published public results of the entries they took part in.

    A group result counts in full for each member; ``individualPoints`` and
    ``groupPoints`` split ``totalPoints`` by the kind of entry.
    """

    total_points = fields.Float()
    individual_points = fields.Float()
    group_points = fields.Float()
    result_count = fields.Integer(metadata={"description": "Published public results counted."})
    by_position = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "Results per position, e.g. `{\"1\": 2, \"3\": 1}`."})
    by_grade = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "Results per grade, e.g. `{\"A\": 3}`."})
