"""Gallery: query arguments and output."""
from marshmallow import fields


from . import examples
from .common import OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .fields import CanonicalUUID
from .nested import CategoryRefSchema


# The public sort names; db/read/gallery.py maps each to a compiled column.
IMAGE_SORT_NAMES = ("createdAt", "updatedAt", "title", "displayOrder")


class GalleryQueryArgsSchema(sort_args(IMAGE_SORT_NAMES, "createdAt", "desc")):
    album_id = CanonicalUUID(metadata={
        "description": "Only images of this album.", "example": examples.ALBUM_ID})
    sub_fest_program_id = CanonicalUUID(metadata={
        "description": "Only images of this programme.", "example": examples.PROGRAMME_ID})
    category_id = CanonicalUUID(metadata={
        "description": "Only images of this category.", "example": examples.CATEGORY_ID})


class AlbumRefSchema(OutSchema):
    id = Uuid()
    title = fields.String()


class ImageProgrammeRefSchema(OutSchema):
    """The programme an image shows: enough to link to it."""

    id = Uuid(metadata={"description": "Sub-fest programme id."})
    code = fields.String()
    name = fields.String()
    name_local = fields.String(allow_none=True)


class GalleryImageSchema(OutSchema):
    id = Uuid()
    title = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    image_url = fields.String()
    thumbnail_url = fields.String(allow_none=True)
    album = fields.Nested(AlbumRefSchema)
    programme = fields.Nested(ImageProgrammeRefSchema, attribute="programme_ref", allow_none=True,
                              metadata={"description": "Set only when the programme is public."})
    category = fields.Nested(CategoryRefSchema, attribute="category_ref", allow_none=True,
                             metadata={"description": "Set only when the category is public."})
    created_at = UtcDateTime()
    updated_at = UtcDateTime()


class GalleryAlbumSchema(OutSchema):
    id = Uuid()
    title = fields.String()
    description = fields.String(allow_none=True)
    cover_url = fields.String(allow_none=True)
    image_count = fields.Integer(metadata={"description": "Public images in the album."})
    created_at = UtcDateTime()
    updated_at = UtcDateTime()


GalleryListSchema = list_envelope(
    GalleryImageSchema, "GalleryList",
    gallery_albums=fields.List(fields.Nested(GalleryAlbumSchema)),
    gallery_images=fields.List(fields.Nested(GalleryImageSchema), metadata={
        "description": "The same images as `data`, kept for website compatibility routes."}),
)
