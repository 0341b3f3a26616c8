"""GET /gallery."""
from flask import g

from db.gallery import list_album_summaries, list_images
from schemas.gallery import GalleryListSchema, GalleryQueryArgsSchema

from ..context import list_response
from ..smorest import Blueprint

blp = Blueprint("gallery", __name__, description="Public gallery images and albums.")


@blp.get("/gallery")
@blp.arguments(GalleryQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, GalleryListSchema)
def gallery(**args):
    """List public gallery images with the public albums"""
    page = list_images(g.festival.id, **args)
    return list_response(page, gallery_albums=list_album_summaries(g.festival.id),
                         gallery_images=page.items)
