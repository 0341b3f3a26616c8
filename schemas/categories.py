"""Categories: query arguments and output."""
from marshmallow import fields

from db.read.categories import CATEGORY_SORTS

from .common import OutSchema, Uuid, list_envelope, sort_args
from .fields import Array, Text
from .selectors import SubFestSelectorArgs


class CategoryQueryArgsSchema(SubFestSelectorArgs, sort_args(tuple(CATEGORY_SORTS), "displayOrder")):
    search = Array(Text(), split=False, metadata={
        "description": "Words to find in the name; several terms must all match."})


class CategorySchema(OutSchema):
    id = Uuid()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    display_order = fields.Integer()
    candidate_count = fields.Integer(metadata={"description": "Active public candidates."})
    programme_count = fields.Integer(metadata={"description": "Active public programmes."})


CategoryListSchema = list_envelope(CategorySchema, "CategoryList")
