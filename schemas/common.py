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
    """Output schema: snake_case attributes, camelCase JSON (the marshmallow recipe).

    Every field of an answer is always there (``null`` where the field allows none, never
    left out), so the OpenAPI document lists each as required and a generated client types
    it without "unset".
    """

    ALWAYS_PRESENT = True

    def on_bind_field(self, field_name, field_obj):
        field_obj.data_key = camelcase(field_obj.data_key or field_name)
        if self.ALWAYS_PRESENT:
            field_obj.required = True


def item_of_detail(item, detail):
    """A function making ``item``'s dump (a list item's JSON) out of ``detail``'s dump of the
    same object, where ``detail`` is ``item``'s schema with fields added (``CandidateDetailSchema``
    is ``CandidateSchema`` and ``context``): the compiler dumps each record once, not twice.

    The item's fields must be the detail's first ones, the same declarations in the same order;
    a ``TypeError`` says when they are not.
    """
    keys = [field.data_key for field in item.dump_fields.values()]
    inherited = all(type(detail)._declared_fields.get(name) is declared
                    for name, declared in type(item)._declared_fields.items())
    if not (isinstance(detail, type(item)) and inherited and not item.only and not detail.only
            and not item.exclude and not detail.exclude
            and [field.data_key for field in detail.dump_fields.values()][:len(keys)] == keys):
        raise TypeError(f"{type(detail).__name__} is not {type(item).__name__} with fields added")
    return lambda dumped: {key: dumped[key] for key in keys}


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

    ALWAYS_PRESENT = False

    class Meta:
        unknown = ma.EXCLUDE


class PageArgs(QueryArgs):
    page = WholeNumber(
        load_default=1, validate=validate.Range(min=1, max=MAX_PAGE),
        metadata={"description": "Page number, from 1.", "example": 1})
    limit = WholeNumber(
        load_default=20, validate=validate.Range(min=1, max=MAX_LIMIT),
        metadata={"description": f"Items per page, 1 to {MAX_LIMIT}.", "example": 20})


def sort_args(sort_fields, default, default_order="asc"):
    """A paging schema with ``sortBy`` limited to ``sort_fields`` and ``sortOrder``.

    Ties are always broken by ``id``, so pages never repeat or skip rows.
    """
    attrs = {
        "sort_by": Enum(sort_fields, load_default=default, metadata={
            "description": f"Sort field; ties are broken by id. Default `{default}`.", "example": default}),
        "sort_order": Enum(("asc", "desc"), load_default=default_order, metadata={
            "description": f"Sort direction. Default `{default_order}`.", "example": default_order}),
    }
    return type("SortArgs", (PageArgs,), attrs)


class MetaSchema(OutSchema):
    class Meta:
        description = ("The paging of a list. A page past the end is an empty `data` with this "
                       "`meta`, not an error.")

    page = fields.Integer(metadata={"description": "This page's number, from 1."})
    limit = fields.Integer(metadata={"description": f"Items per page asked for (1 to {MAX_LIMIT})."})
    total = fields.Integer(metadata={"description": "Items of the whole list, all pages together."})
    total_pages = fields.Integer(metadata={"description": "Pages of the whole list; 0 when it is empty."})
    has_next_page = fields.Boolean(metadata={"description": "Whether a page follows this one."})
    has_previous_page = fields.Boolean(metadata={"description": "Whether a page comes before this one."})


class FestivalSummarySchema(OutSchema):
    class Meta:
        description = "The festival the API key belongs to."

    id = Uuid()
    slug = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True, metadata={"description": "The name in the local language."})
    short_name = fields.String(allow_none=True)
    location = fields.String(allow_none=True)
    timezone = fields.String(metadata={
        "description": "IANA time zone (`Asia/Kolkata`): a date in a query is a day of this zone."})
    start_date = fields.Date(allow_none=True)
    end_date = fields.Date(allow_none=True)
    logo_url = fields.String(allow_none=True)
    website_url = fields.String(allow_none=True)


class SubFestSummarySchema(OutSchema):
    id = Uuid()
    slug = fields.String(metadata={"description": "What `subFestSlug` takes."})
    name = fields.String()
    name_local = fields.String(allow_none=True, metadata={"description": "The name in the local language."})


class FreshnessSchema(OutSchema):
    class Meta:
        description = "How fresh the data is."

    revision = fields.Integer(metadata={
        "description": "The festival's data revision: it grows with every change of its data. "
                       "Give it to `/changes?sinceRevision=` to learn what changed after it."})
    changed_at = UtcDateTime(allow_none=True, metadata={"description": "When the revision was made."})


class ContextSchema(OutSchema):
    class Meta:
        description = "Which festival (and sub-fest) answered, and how fresh the data is."

    festival = fields.Nested(FestivalSummarySchema, metadata={"description": "The festival the API key belongs to."})
    sub_fest = fields.Nested(SubFestSummarySchema, allow_none=True, metadata={
        "description": "The sub-fest the answer is of; null when it is of the whole festival."})
    data = fields.Nested(FreshnessSchema, metadata={"description": "How fresh the data is."})


def list_envelope(item_schema, name, **extra):
    """``{"data": [items], "meta": {...}, "context": {...}}`` around ``item_schema``."""
    attrs = {
        "Meta": type("Meta", (), {"description": "A page of a list: the items, the paging, the context."}),
        "data": fields.List(fields.Nested(item_schema), metadata={"description": "The items of this page."}),
        "meta": fields.Nested(MetaSchema, metadata={"description": "The paging."}),
        "context": fields.Nested(ContextSchema, metadata={
            "description": "Which festival (and sub-fest) answered, and how fresh the data is."}),
        **extra,
    }
    return type(name, (OutSchema,), attrs)
