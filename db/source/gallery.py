"""Gallery queries: public images in public albums, and album summaries."""
from peewee import JOIN, fn

from . import models as m
from ..query import apply_filters, apply_sorting, paginate
from .scopes import public_albums, public_category_ids, public_images, public_programme_ids, public_programmes

IMAGE_SORTS = {
    "createdAt": m.GalleryImage.created_at,
    "updatedAt": m.GalleryImage.updated_at,
    "title": m.GalleryImage.title,
    "displayOrder": m.GalleryImage.display_order,
}


def image_filters(festival_id):
    """Filters of ``/gallery``. A hidden programme's or category's id matches nothing: the
    images' link to it is not public, so a filter must not reveal it."""
    return {
        "album_id": lambda album_id: m.GalleryImage.album == album_id,
        "sub_fest_program_id": lambda programme_id: (
            (m.GalleryImage.sub_fest_programme == programme_id)
            & m.GalleryImage.sub_fest_programme.in_(public_programme_ids(festival_id))),
        "category_id": lambda category_id: (
            (m.GalleryImage.category == category_id)
            & m.GalleryImage.category.in_(public_category_ids(festival_id))),
    }


def list_images(festival_id, page, limit, sort_by, sort_order, **filters):
    """One page of public images, each with ``programme_ref``/``category_ref`` when public."""
    query = apply_filters(public_images(festival_id), image_filters(festival_id), filters)
    query = apply_sorting(query, sort_by, sort_order, IMAGE_SORTS, m.GalleryImage.id)
    result = paginate(query, page, limit)
    _attach_public_refs(festival_id, result.items)
    return result


def _attach_public_refs(festival_id, images):
    programme_ids = {i.sub_fest_programme_id for i in images if i.sub_fest_programme_id}
    category_ids = {i.category_id for i in images if i.category_id}
    programmes = {}
    if programme_ids:
        rows = (public_programmes(festival_id, m.SubFestProgramme.id, m.SubFestProgramme.code,
                                  m.Programme.name, m.Programme.name_local)
                .where(m.SubFestProgramme.id.in_(list(programme_ids)))
                .dicts())
        programmes = {row["id"]: row for row in rows}
    categories = {}
    if category_ids:
        rows = (m.Category.select(m.Category.id, m.Category.name, m.Category.name_local)
                .where(m.Category.id.in_(list(category_ids))
                       & m.Category.id.in_(public_category_ids(festival_id)))
                .dicts())
        categories = {row["id"]: row for row in rows}
    for image in images:
        image.programme_ref = programmes.get(image.sub_fest_programme_id)
        image.category_ref = categories.get(image.category_id)


def list_album_summaries(festival_id):
    """Every public album with its count of public images."""
    image_count = fn.COUNT(m.GalleryImage.id)
    return list(public_albums(festival_id)
                .select_extend(image_count.alias("image_count"))
                .join(m.GalleryImage, JOIN.LEFT_OUTER,
                      on=((m.GalleryImage.album == m.GalleryAlbum.id)
                          & (m.GalleryImage.is_public == True)))  # noqa: E712
                .group_by(m.GalleryAlbum.id)
                .order_by(m.GalleryAlbum.display_order, m.GalleryAlbum.created_at, m.GalleryAlbum.id))
