"""News: query arguments and output."""
from marshmallow import fields

from . import examples
from .common import OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .enums import NEWS_STATUSES
from .fields import Array, Bool, Enum, Text
from .html import SafeHtml


# The public sort names; db/read/news.py maps each to a compiled column.
NEWS_SORT_NAMES = ("publishedAt", "createdAt", "updatedAt", "title")


class NewsQueryArgsSchema(sort_args(NEWS_SORT_NAMES, "publishedAt", "desc")):
    search = Array(Text(), split=False, metadata={"example": ["Thrissur"],
        "description": "Words to find in the title or summary; several terms must all match."})
    status = Array(Enum(NEWS_STATUSES), metadata={"example": ["published"],
        "description": "Output stays restricted to published news."})
    is_public = Array(Bool(), metadata={
        "description": "Output stays restricted to public news.", "example": [True]})
    tags = Array(Text(), metadata={
        "description": "Any of these tags; the case of A-Z is ignored.", "example": [examples.NEWS_TAG]})
    has_thumbnail = Array(Bool(), metadata={"example": [True], "description": "Has a thumbnail image."})
    has_feature_image = Array(Bool(), metadata={"example": [True], "description": "Has a feature image."})


class NewsSchema(OutSchema):
    id = Uuid()
    title = fields.String()
    summary = fields.String(allow_none=True)
    content_html = SafeHtml(allow_none=True, metadata={
        "description": "Sanitised HTML (allow-listed tags, no scripts), safe to render."})
    tags = fields.List(fields.String())
    published_at = UtcDateTime()
    thumbnail_url = fields.String(allow_none=True)
    feature_image_url = fields.String(allow_none=True)
    created_at = UtcDateTime()
    updated_at = UtcDateTime()

NewsListSchema = list_envelope(NewsSchema, "NewsList")
