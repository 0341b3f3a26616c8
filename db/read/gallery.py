"""Gallery images and album summaries from the compiled tables: ``/gallery``.

An image's programme and category are compiled only when they are public, so filtering by
a hidden programme's or category's id matches nothing and reveals nothing.
"""
from ..query import apply_filters, apply_sorting, page_of_rows
from ..read_model import PublicImage as I
from . import stored_document

IMAGE_SORTS = {
    "createdAt": I.created_at,
    "updatedAt": I.updated_at,
    "title": I.title_key,
    "displayOrder": I.display_order,
}

IMAGE_FILTERS = {
    "album_id": lambda album_id: I.album == album_id,
    "sub_fest_program_id": lambda programme_id: I.sub_fest_programme == programme_id,
    "category_id": lambda category_id: I.category == category_id,
}


def list_images(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of public images: ``(body,)`` rows."""
    query = apply_filters(I.select().where(I.festival == festival_id), IMAGE_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, IMAGE_SORTS, I.id)
    return page_of_rows(query, (I.body,), page, limit)


def album_summaries(festival_id):
    """The JSON array of every public album with its count of public images."""
    return stored_document(festival_id, "gallery-albums") or "[]"
