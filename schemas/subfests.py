"""Sub-fests: query arguments and output."""
from marshmallow import fields

from db.read.subfests import SUB_FEST_SORTS

from .common import OutSchema, Uuid, list_envelope, sort_args
from .fields import Array, Text


class SubFestQueryArgsSchema(sort_args(tuple(SUB_FEST_SORTS), "displayOrder")):
    search = Array(Text(), split=False, metadata={"description": "Words to find in the name or slug."})


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
