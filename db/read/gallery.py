"""Gallery images and album summaries from the compiled tables: ``/gallery``.

An image's programme and category are compiled only when they are public, so filtering by
a hidden programme's or category's id matches nothing and reveals nothing.
"""
from ..compiled import kinds
from ..compiled.tables import PublicImage as I
from .documents import stored_document
from .sql import Select, equals

IMAGE_SORTS = {
    "createdAt": I.created_at,
    "updatedAt": I.updated_at,
    "title": I.title_key,
    "displayOrder": I.display_order,
}

IMAGE_FILTERS = {
    "album_id": lambda album_id: equals(I.album, album_id),
    "sub_fest_program_id": lambda programme_id: equals(I.sub_fest_programme, programme_id),
    "category_id": lambda category_id: equals(I.category, category_id),
}


def list_images(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of public images: ``(body,)`` rows."""
    return (Select(I)
            .where(*equals(I.festival, festival_id))
            .total_of(kinds.LIST_IMAGES, festival_id, festival_id)
            .filter(IMAGE_FILTERS, filters)
            .sort(IMAGE_SORTS, sort_by, sort_order, I.id)
            .page(page, limit, I.body))


def album_summaries(festival_id):
    """The JSON array of every public album with its count of public images."""
    return stored_document(festival_id, kinds.DOCUMENT_GALLERY_ALBUMS) or "[]"
