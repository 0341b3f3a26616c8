"""The gallery as the compile step loads it: public images in public albums, and album summaries."""
from peewee import JOIN, fn

from . import models as m
from .visibility import public_albums, public_category_ids, public_images, public_programmes


def load_images(festival_id):
    """Every public image of a public album, oldest first, each with ``programme_ref`` and
    ``category_ref`` set only when that programme or category is public."""
    images = list(public_images(festival_id).order_by(m.GalleryImage.created_at, m.GalleryImage.id))
    _attach_public_refs(festival_id, images)
    return images


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
