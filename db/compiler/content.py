"""Compile the festival's content: news, downloads, gallery images and albums, schedules."""
from schemas.downloads import DownloadSchema
from schemas.gallery import GalleryAlbumSchema, GalleryImageSchema
from schemas.news import NewsSchema
from schemas.schedules import ScheduleSchema

from ..compiled import kinds
from ..compiled.tables import PublicDocument, PublicDownload, PublicImage, PublicNews, PublicSchedule
from ..compiled.templates import dumps
from ..query import ascii_lower, search_text, text_sort_key
from ..source import visibility
from ..source.gallery import list_album_summaries, load_images
from ..source.news import attach_tags
from ..source.schedules import load_schedules


def compile_content(festival_id, writer):
    """News, downloads and the gallery (schedules are compiled per programme)."""
    compile_news(festival_id, writer)
    compile_downloads(festival_id, writer)
    compile_gallery(festival_id, writer)


def compile_news(festival_id, writer):
    """News that is visible now or once its ``publishedAt`` passes; a request decides which
    (``published_at <= now``). Tags are stored A-Z folded for the ``tags`` filter."""
    schema = NewsSchema()
    items = list(visibility.published_news_of(festival_id))
    attach_tags(items)
    for news in items:
        writer.add(
            PublicNews, id=news.id, status=news.status, is_public=news.is_public,
            published_at=news.published_at, search=search_text(news.title, news.summary),
            has_thumbnail=bool(news.thumbnail_url), has_feature_image=bool(news.feature_image_url),
            created_at=news.created_at, updated_at=news.updated_at, title_key=text_sort_key(news.title),
            body=dumps(schema.dump(news)))
        writer.tag(kinds.TAG_NEWS, news.id, [ascii_lower(tag) for tag in news.tags])


def compile_downloads(festival_id, writer):
    schema = DownloadSchema()
    for download in visibility.public_downloads(festival_id):
        category = download.category
        writer.add(
            PublicDownload, id=download.id,
            search=search_text(download.title, download.description, category),
            category=None if category is None else ascii_lower(category), is_public=download.is_public,
            created_at=download.created_at, updated_at=download.updated_at,
            title_key=text_sort_key(download.title), category_key=text_sort_key(category),
            body=dumps(schema.dump(download)))


def compile_gallery(festival_id, writer):
    """Public images of public albums (their programme and category kept only when public),
    and the album summaries every ``/gallery`` answer carries (a document)."""
    schema = GalleryImageSchema()
    for image in load_images(festival_id):
        writer.add(
            PublicImage, id=image.id, album=image.album_id,
            sub_fest_programme=image.sub_fest_programme_id if image.programme_ref else None,
            category=image.category_id if image.category_ref else None,
            created_at=image.created_at, updated_at=image.updated_at, title_key=text_sort_key(image.title),
            display_order=image.display_order, body=dumps(schema.dump(image)))
    albums = GalleryAlbumSchema(many=True).dump(list_album_summaries(festival_id))
    writer.add(PublicDocument, kind=kinds.DOCUMENT_GALLERY_ALBUMS, key="", body=dumps(albums))


def compile_schedules(festival_id, writer, programme_ids=None):
    """Schedules of visible programmes (of ``programme_ids`` only, when given: the caller
    has cleared their rows); the venue is kept only when it is public."""
    schema = ScheduleSchema()
    for schedule in load_schedules(festival_id, programme_ids):
        programme = schedule.sub_fest_programme
        venue = schedule.venue_ref if getattr(schedule.venue_ref, "id", None) else None
        writer.add(
            PublicSchedule, id=schedule.id, sub_fest=programme.sub_fest_id, sub_fest_programme=programme.id,
            venue=venue and venue.id, scheduled_at=schedule.scheduled_at,
            duration_minutes=schedule.duration_minutes, program_code_key=text_sort_key(programme.code),
            program_name_key=text_sort_key(programme.programme.name),
            venue_name_key=venue and text_sort_key(venue.name), body=dumps(schema.dump(schedule)))
