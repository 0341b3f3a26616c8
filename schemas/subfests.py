"""Sub-fests: query arguments and output."""
from marshmallow import fields


from . import examples
from .common import OutSchema, Uuid, list_envelope, sort_args
from .fields import Array, Text


# The public sort names; db/read/subfests.py maps each to a compiled column.
SUB_FEST_SORT_NAMES = ("displayOrder", "name", "startDate")


class SubFestQueryArgsSchema(sort_args(SUB_FEST_SORT_NAMES, "displayOrder")):
    search = Array(Text(), split=False, metadata={
        "description": "Words to find in the name or slug.", "example": ["general"]})


class SubFestSchema(OutSchema):
    id = Uuid()
    slug = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    start_date = fields.Date(allow_none=True)
    end_date = fields.Date(allow_none=True)
    logo_url = fields.String(allow_none=True)
    display_order = fields.Integer()


SubFestListSchema = list_envelope(SubFestSchema, "SubFestList")
