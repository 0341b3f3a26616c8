"""Categories: query arguments and output."""
from marshmallow import fields


from . import examples
from .common import OutSchema, Uuid, list_envelope, sort_args
from .fields import Array, Text
from .selectors import SubFestSelectorArgs


# The public sort names; db/read/categories.py maps each to a compiled column.
CATEGORY_SORT_NAMES = ("displayOrder", "name")


class CategoryQueryArgsSchema(SubFestSelectorArgs, sort_args(CATEGORY_SORT_NAMES, "displayOrder")):
    search = Array(Text(), split=False, metadata={"example": ["High School"],
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
