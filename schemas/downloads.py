"""Downloads: query arguments and output."""
from marshmallow import fields


from . import examples
from .common import OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .fields import Array, Bool, Text


# The public sort names; db/read/downloads.py maps each to a compiled column.
DOWNLOAD_SORT_NAMES = ("createdAt", "updatedAt", "title", "category")


class DownloadQueryArgsSchema(sort_args(DOWNLOAD_SORT_NAMES, "createdAt", "desc")):
    search = Array(Text(), split=False, metadata={"example": ["manual"],
        "description": "Words to find in the title, description or category; all must match."})
    category = Text(max_length=100, metadata={
        "description": "Download category label; the case of A-Z is ignored.", "example": examples.DOWNLOAD_CATEGORY})
    is_public = Bool(metadata={
        "description": "Output stays restricted to public downloads.", "example": True})


class DownloadSchema(OutSchema):
    id = Uuid()
    title = fields.String()
    description = fields.String(allow_none=True)
    category = fields.String(allow_none=True)
    file_url = fields.String()
    created_at = UtcDateTime()
    updated_at = UtcDateTime()


DownloadListSchema = list_envelope(DownloadSchema, "DownloadList")
