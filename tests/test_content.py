"""GET /subfests, /downloads and /gallery: visibility and every parameter."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import (
    visible_albums,
    visible_category_ids,
    visible_downloads,
    visible_images,
    visible_programme_ids,
    visible_sub_fests,
)


def ids(items):
    return sorted(item["id"] for item in items)


# --- /subfests ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_subfests_lists_only_active_public_ones(api, fixture_data, slug):
    body = api.ok("/subfests", key=slug, limit=500)
    assert ids(body["data"]) == ids(visible_sub_fests(fixture_data[slug]))
    assert body["meta"]["total"] == len(visible_sub_fests(fixture_data[slug]))
    hidden = {s["id"] for s in fixture_data[slug]["subFests"]} - {s["id"] for s in body["data"]}
    assert hidden, "the fixture must hold inactive or non-public sub-fests"


@pytest.mark.parametrize("sort_by, key", [("displayOrder", "displayOrder"), ("name", "name"),
                                          ("startDate", "startDate")])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_subfests_sorting(api, sort_by, key, order):
    items = api.ok("/subfests", sortBy=sort_by, sortOrder=order)["data"]
    values = [(item[key] is None, item[key].lower() if isinstance(item[key], str) else item[key])
              for item in items]
    values = [v for v in values if not v[0]]
    assert [v[1] for v in values] == sorted((v[1] for v in values), reverse=(order == "desc"))


def test_subfests_search(api, fixture_data):
    target = visible_sub_fests(fixture_data[BIG])[0]
    found = api.ok("/subfests", search=target["name"].lower())["data"]
    assert target["id"] in ids(found)
    assert all(target["name"].lower() in s["name"].lower() or target["name"].lower() in s["slug"]
               for s in found)


# --- /downloads ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_downloads_lists_only_public_ones(api, fixture_data, slug):
    body = api.ok("/downloads", key=slug, limit=500)
    assert ids(body["data"]) == ids(visible_downloads(fixture_data[slug]))
    assert len(fixture_data[slug]["downloads"]) > len(body["data"]), "the fixture holds private downloads"


def test_download_fields(api):
    item = api.ok("/downloads", limit=1)["data"][0]
    assert set(item) == {"id", "title", "description", "category", "fileUrl", "createdAt", "updatedAt"}


def test_downloads_category_filter_is_case_insensitive(api, fixture_data):
    public = visible_downloads(fixture_data[BIG])
    category = next(d["category"] for d in public if d.get("category"))
    expected = [d for d in public if (d.get("category") or "").lower() == category.lower()]
    assert ids(api.ok("/downloads", category=category.upper(), limit=500)["data"]) == ids(expected)


def test_downloads_search(api, fixture_data):
    public = visible_downloads(fixture_data[BIG])
    word = public[0]["title"].split()[0].lower()
    expected = [d for d in public if any(word in (d.get(f) or "").lower()
                                         for f in ("title", "description", "category"))]
    assert ids(api.ok("/downloads", search=word, limit=500)["data"]) == ids(expected)


def test_private_download_is_not_found_by_search(api, fixture_data):
    private = [d for d in fixture_data[BIG]["downloads"] if not d.get("is_public", True)]
    assert private
    assert api.ok("/downloads", search=private[0]["title"])["data"] == []


@pytest.mark.parametrize("value, expect_all", [("true", True), ("false", False), ("1", True)])
def test_downloads_is_public_never_widens(api, fixture_data, value, expect_all):
    found = api.ok("/downloads", isPublic=value, limit=500)["data"]
    assert ids(found) == (ids(visible_downloads(fixture_data[BIG])) if expect_all else [])


@pytest.mark.parametrize("sort_by", ["createdAt", "updatedAt", "title", "category"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_downloads_sorting(api, sort_by, order):
    items = api.ok("/downloads", sortBy=sort_by, sortOrder=order, limit=500)["data"]
    values = [item[sort_by] for item in items if item[sort_by] is not None]
    values = [v.lower() for v in values] if sort_by in ("title", "category") else values
    assert values == sorted(values, reverse=(order == "desc"))
    nulls = [i for i, item in enumerate(items) if item[sort_by] is None]
    assert nulls == list(range(len(items) - len(nulls), len(items))), "NULLs sort last"


# --- /gallery ------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_gallery_lists_public_images_of_public_albums(api, fixture_data, slug):
    body = api.ok("/gallery", key=slug, limit=500)
    expected = visible_images(fixture_data[slug])
    assert ids(body["data"]) == ids(expected)
    assert body["galleryImages"] == body["data"]
    assert ids(body["galleryAlbums"]) == ids(visible_albums(fixture_data[slug]))
    assert len(fixture_data[slug]["galleryImages"]) > len(expected), "the fixture holds hidden images"


def test_album_image_counts_count_public_images_only(api, fixture_data):
    images = visible_images(fixture_data[BIG])
    for album in api.ok("/gallery")["galleryAlbums"]:
        assert album["imageCount"] == sum(1 for i in images if i["album"] == album["id"])


def test_image_in_hidden_album_is_hidden(api, fixture_data):
    data = fixture_data[BIG]
    hidden_albums = {a["id"] for a in data["galleryAlbums"] if not a.get("is_public", True)}
    public_in_hidden = [i for i in data["galleryImages"] if i["album"] in hidden_albums and i.get("is_public", True)]
    assert public_in_hidden, "the fixture must hold a public image in a hidden album"
    shown = {i["id"] for i in api.all("/gallery")}
    assert not shown & {i["id"] for i in public_in_hidden}


@pytest.mark.parametrize("param, column", [
    ("albumId", "album"), ("subFestProgramId", "sub_fest_programme"), ("categoryId", "category"),
])
def test_gallery_filters(api, fixture_data, param, column):
    images = visible_images(fixture_data[BIG])
    value = next(i[column] for i in images if i.get(column))
    expected = [i for i in images if i.get(column) == value]
    assert ids(api.ok("/gallery", limit=500, **{param: value})["data"]) == ids(expected)


@pytest.mark.parametrize("slug", [BIG, SMALL])
@pytest.mark.parametrize("param, column, visible", [
    ("subFestProgramId", "sub_fest_programme", visible_programme_ids),
    ("categoryId", "category", visible_category_ids),
])
def test_gallery_filter_by_a_hidden_reference_matches_nothing(api, fixture_data, slug, param, column, visible):
    """A public image's link to a hidden programme or category is not shown, so filtering
    by that hidden id must not reveal it either."""
    data = fixture_data[slug]
    hidden = {i[column] for i in visible_images(data) if i.get(column)} - visible(data)
    assert hidden, "the fixture must hold a public image linked to a hidden record"
    for value in hidden:
        body = api.ok("/gallery", key=slug, limit=500, **{param: value})
        assert (body["data"], body["meta"]["total"]) == ([], 0)


def test_gallery_references_only_public_programmes_and_categories(api, fixture_data):
    data = fixture_data[BIG]
    programmes = visible_programme_ids(data)
    categories = visible_category_ids(data)
    seen_programme = seen_category = False
    for item in api.all("/gallery"):
        row = next(i for i in data["galleryImages"] if i["id"] == item["id"])
        if row.get("sub_fest_programme") in programmes:
            assert item["programme"]["id"] == row["sub_fest_programme"]
            seen_programme = True
        else:
            assert item["programme"] is None
        if row.get("category") in categories:
            assert item["category"]["id"] == row["category"]
            seen_category = True
        else:
            assert item["category"] is None
    assert seen_programme and seen_category


@pytest.mark.parametrize("sort_by", ["createdAt", "updatedAt", "title", "displayOrder"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_gallery_sorting_is_stable_across_pages(api, sort_by, order):
    whole = [i["id"] for i in api.ok("/gallery", sortBy=sort_by, sortOrder=order, limit=500)["data"]]
    paged = []
    for page in range(1, 200):
        data = api.ok("/gallery", sortBy=sort_by, sortOrder=order, limit=7, page=page)["data"]
        if not data:
            break
        paged.extend(i["id"] for i in data)
    assert paged == whole


# --- query counts ---------------------------------------------------------------------------


@pytest.mark.parametrize("path, expected", [
    # key, then the compiled rows' page with its total
    ("/subfests", 2),
    ("/downloads", 2),
    # ... and the compiled album summaries
    ("/gallery", 3),
])
def test_query_count_does_not_grow_with_the_page(api, query_count, path, expected):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok(path, limit=1)
    counts = []
    for limit in (1, 3):
        with query_count() as counter:
            body = api.ok(path, limit=limit)
        assert len(body["data"]) == limit
        counts.append(counter.count)
    assert counts == [expected] * 2
