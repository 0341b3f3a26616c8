"""Building blocks every endpoint's schemas share: camelCase output, paging, sorting, envelopes."""
import datetime

import marshmallow as ma
from marshmallow import fields, validate

from .fields import Enum, WholeNumber

MAX_LIMIT = 500
MAX_PAGE = 1_000_000


def camelcase(name):
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class OutSchema(ma.Schema):
    """Output schema: snake_case attributes, camelCase JSON (the marshmallow recipe)."""

    def on_bind_field(self, field_name, field_obj):
        field_obj.data_key = camelcase(field_obj.data_key or field_name)


class UtcDateTime(fields.DateTime):
    """Naive-UTC datetimes out as ISO 8601 with ``Z``."""

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.datetime.fromisoformat(value)
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value.isoformat(timespec="seconds") + "Z"


class Uuid(fields.UUID):
    """UUIDs out as canonical strings, whatever the database handed back."""

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else str(value)


class QueryArgs(OutSchema):
    """Base of every query-argument schema: camelCase names in the query string, snake_case
    in Python; unknown parameters are ignored (websites add cache-busters)."""

    class Meta:
        unknown = ma.EXCLUDE


class PageArgs(QueryArgs):
    page = WholeNumber(
        load_default=1, validate=validate.Range(min=1, max=MAX_PAGE),
        metadata={"description": "Page number, from 1."})
    limit = WholeNumber(
        load_default=20, validate=validate.Range(min=1, max=MAX_LIMIT),
        metadata={"description": f"Items per page, 1 to {MAX_LIMIT}."})


def sort_args(sort_fields, default, default_order="asc"):
    """A paging schema with ``sortBy`` limited to ``sort_fields`` and ``sortOrder``.

    Ties are always broken by ``id``, so pages never repeat or skip rows.
    """
    attrs = {
        "sort_by": Enum(sort_fields, load_default=default, metadata={
            "description": f"Sort field; ties are broken by id. Default `{default}`."}),
        "sort_order": Enum(("asc", "desc"), load_default=default_order, metadata={
            "description": f"Sort direction. Default `{default_order}`."}),
    }
    return type("SortArgs", (PageArgs,), attrs)


class MetaSchema(OutSchema):
    page = fields.Integer()
    limit = fields.Integer()
    total = fields.Integer()
    total_pages = fields.Integer()
    has_next_page = fields.Boolean()
    has_previous_page = fields.Boolean()


class FestivalSummarySchema(OutSchema):
    id = Uuid()
    slug = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)
    short_name = fields.String(allow_none=True)
    location = fields.String(allow_none=True)
    timezone = fields.String()
    start_date = fields.Date(allow_none=True)
    end_date = fields.Date(allow_none=True)
    logo_url = fields.String(allow_none=True)
    website_url = fields.String(allow_none=True)


class SubFestSummarySchema(OutSchema):
    id = Uuid()
    slug = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)


class FreshnessSchema(OutSchema):
    revision = fields.Integer()
    changed_at = UtcDateTime(allow_none=True)


class ContextSchema(OutSchema):
    festival = fields.Nested(FestivalSummarySchema)
    sub_fest = fields.Nested(SubFestSummarySchema, allow_none=True)
    data = fields.Nested(FreshnessSchema, metadata={"description": "How fresh the data is."})


def list_envelope(item_schema, name, **extra):
    """``{"data": [items], "meta": {...}, "context": {...}}`` around ``item_schema``."""
    attrs = {
        "data": fields.List(fields.Nested(item_schema)),
        "meta": fields.Nested(MetaSchema),
        "context": fields.Nested(ContextSchema),
        **extra,
    }
    return type(name, (OutSchema,), attrs)
