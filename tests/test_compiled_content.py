"""The compiled content tables hold a row for every record the public may see, and none
for anything else: news (also news whose publishedAt is still ahead: a request decides
those by the clock), downloads, gallery images, schedules, topper placeholders, pages."""
import uuid

import pytest

from conftest import BIG, SMALL, writable
from db.compiled.tables import (
    PublicDocument,
    PublicDownload,
    PublicImage,
    PublicNews,
    PublicPage,
    PublicPlaceholder,
    PublicSchedule,
    PublicTag,
)
from fixture_rules import flag, visible_downloads, visible_images, visible_programme_ids, visible_sub_fests


def published_news_ids(data):
    return {n["id"] for n in data["news"] if n.get("status", "draft") == "published" and flag(n, "is_public")
            and not flag(n, "is_deleted", False) and n.get("published_at")}


def schedule_ids(data):
    programmes = visible_programme_ids(data)
    return {s["id"] for s in data["schedules"] if s["sub_fest_programme"] in programmes}


def placeholder_ids(data):
    sub_fests = {s["id"] for s in visible_sub_fests(data)}
    return {p["id"] for p in data["topperPlaceholders"]
            if flag(p, "is_published", False) and p["sub_fest"] in sub_fests}


def page_ids(data):
    return {p["id"] for p in data.get("websitePages", []) if flag(p, "is_published") and flag(p, "is_public")}


@pytest.fixture(scope="module")
def compiled(seeded):
    """``compiled(model, slug)``: the ids of the festival's rows in a compiled table."""
    def ids(model, festival_id):
        with writable(seeded[0]):
            rows = model.select(model.id).where(model.festival == uuid.UUID(festival_id)).tuples()
            return {str(row_id) for (row_id,) in rows}
    return ids


@pytest.mark.parametrize("slug", [BIG, SMALL])
@pytest.mark.parametrize("model, section, expected", [
    (PublicNews, "news", published_news_ids),
    (PublicDownload, "downloads", lambda data: {d["id"] for d in visible_downloads(data)}),
    (PublicImage, "galleryImages", lambda data: {i["id"] for i in visible_images(data)}),
    (PublicSchedule, "schedules", schedule_ids),
    (PublicPlaceholder, "topperPlaceholders", placeholder_ids),
    (PublicPage, "websitePages", page_ids),
])
def test_compiled_rows_are_exactly_the_visible_records(compiled, fixture_data, slug, model, section, expected):
    data = fixture_data[slug]
    want = expected(data)
    assert compiled(model, data["festival"]["id"]) == want
    assert {row["id"] for row in data[section]} - want, "the fixture holds hidden records of this kind"


def test_future_news_is_compiled_and_left_to_the_clock(compiled, fixture_data):
    from fixture_rules import visible_news

    data = fixture_data[BIG]
    future = published_news_ids(data) - {n["id"] for n in visible_news(data)}
    assert future, "the fixture holds published news dated in the future"
    assert future <= compiled(PublicNews, data["festival"]["id"])


def test_news_tags_are_stored_a_to_z_folded(seeded, fixture_data):
    data = fixture_data[BIG]
    with writable(seeded[0]):
        stored = {value for (value,) in PublicTag.select(PublicTag.value)
                  .where((PublicTag.festival == uuid.UUID(data["festival"]["id"])) & (PublicTag.kind == "news-tag"))
                  .tuples()}
    published = published_news_ids(data)
    tags = {t for n in data["news"] if n["id"] in published for t in n.get("tags", [])}
    assert stored == {t.lower() for t in tags}


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_filter_documents_are_the_festival_and_each_public_sub_fest(seeded, fixture_data, slug):
    data = fixture_data[slug]
    with writable(seeded[0]):
        keys = {key for (key,) in PublicDocument.select(PublicDocument.key)
                .where((PublicDocument.festival == uuid.UUID(data["festival"]["id"]))
                       & (PublicDocument.kind == "filters")).tuples()}
    assert keys == {"", *(s["slug"] for s in visible_sub_fests(data))}
