"""GET /gallery."""

from db.read.gallery import album_summaries, list_images
from schemas.gallery import GalleryListSchema, GalleryQueryArgsSchema

from .responses import list_json
from .operations import PUBLIC_CONTENT, Blueprint

blp = Blueprint("gallery", __name__, group=PUBLIC_CONTENT,
                description="Public gallery images and albums.")


@blp.operation("/gallery", "listGallery", GalleryQueryArgsSchema, GalleryListSchema)
def gallery(festival, **args):
    """List public gallery images with the public albums

    Gallery images, newest first by default, with the public albums; `albumId`,
    `subFestProgramId` and `categoryId` narrow the list.
    """
    page = list_images(festival.id, **args)
    images = [body for (body,) in page.items]
    return list_json(page, images, festival.context_json(), galleryAlbums=album_summaries(festival.id),
                     galleryImages=f"[{','.join(images)}]")
