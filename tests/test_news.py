"""GET /news: visibility, every parameter, sorting, paging, sanitised HTML."""
import pytest

from conftest import BIG, ENCODINGS, SMALL, array_query
from fixture_rules import parse_time, visible_news


@pytest.fixture(scope="module")
def news(fixture_data):
    return {slug: visible_news(data) for slug, data in fixture_data.items()}


def ids(items):
    return [item["id"] for item in items]


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_visible_news(api, news, slug):
    body = api.ok("/news", key=slug, limit=500)
    assert sorted(ids(body["data"])) == sorted(n["id"] for n in news[slug])
    assert body["meta"]["total"] == len(news[slug])


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_hidden_news_of_every_kind_stays_hidden(api, fixture_data, news, slug):
    shown = set(ids(api.all("/news", key=slug)))
    hidden = {n["id"] for n in fixture_data[slug]["news"]} - {n["id"] for n in news[slug]}
    assert hidden, "the fixture must hold hidden news"
    assert not shown & hidden


def test_default_order_is_newest_first_with_id_tie_breaker(api):
    items = api.ok("/news", limit=500)["data"]
    keys = [(item["publishedAt"], item["id"]) for item in items]
    assert keys == sorted(keys, reverse=True)


def test_item_fields(api, fixture_data):
    item = api.ok("/news", limit=1)["data"][0]
    assert set(item) == {
        "id", "title", "summary", "contentHtml", "tags", "publishedAt", "thumbnailUrl",
        "featureImageUrl", "createdAt", "updatedAt",
    }
    row = next(n for n in fixture_data[BIG]["news"] if n["id"] == item["id"])
    assert item["title"] == row["title"]
    assert item["publishedAt"].endswith("Z")
    assert parse_time(item["publishedAt"]) == parse_time(row["published_at"]).replace(microsecond=0)
    assert item["tags"] == sorted(row.get("tags", []))


def test_content_html_is_sanitised(api, news):
    dirty = [n for n in news[BIG] if "<script" in (n.get("content_html") or "")
             or "onclick" in (n.get("content_html") or "")]
    assert dirty, "the fixture must hold visible news with unsafe HTML"
    for item in api.all("/news"):
        html = (item["contentHtml"] or "").lower()
        assert "<script" not in html
        assert "onclick" not in html
        assert "javascript:" not in html
    by_id = {item["id"]: item for item in api.all("/news")}
    assert by_id[dirty[0]["id"]]["contentHtml"], "safe parts of the HTML are kept"


@pytest.mark.parametrize("sort_by, column", [
    ("publishedAt", "published_at"), ("createdAt", "created_at"),
    ("updatedAt", "updated_at"), ("title", "title"),
])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, news, sort_by, column, order):
    items = api.ok("/news", sortBy=sort_by, sortOrder=order, limit=500)["data"]
    values = [item[sort_by] for item in items]
    assert len(items) == len(news[BIG])
    if sort_by == "title":
        # the documented text order: case-insensitive
        values = [v.lower() for v in values]
    assert values == sorted(values, reverse=(order == "desc"))


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_pages_neither_repeat_nor_skip(api, news, order):
    pages = []
    for page in range(1, 50):
        body = api.ok("/news", sortBy="title", sortOrder=order, limit=3, page=page)
        if not body["data"]:
            break
        pages.extend(ids(body["data"]))
    whole = ids(api.ok("/news", sortBy="title", sortOrder=order, limit=500)["data"])
    assert pages == whole
    assert len(set(pages)) == len(news[BIG])


def test_meta_of_a_middle_page(api, news):
    total = len(news[BIG])
    assert total >= 3
    body = api.ok("/news", limit=2, page=2)
    assert body["meta"] == {
        "page": 2, "limit": 2, "total": total, "totalPages": -(-total // 2),
        "hasNextPage": total > 4, "hasPreviousPage": True,
    }


def test_page_past_the_end_is_empty_200(api, news):
    body = api.ok("/news", page=999)
    assert body["data"] == []
    assert body["meta"]["total"] == len(news[BIG])
    assert body["meta"]["hasNextPage"] is False


def test_search_matches_title_and_summary_case_insensitively(api, news):
    target = news[BIG][0]
    word = target["title"].split()[0]
    found = ids(api.ok("/news", search=word.upper(), limit=500)["data"])
    assert target["id"] in found
    expected = [n["id"] for n in news[BIG]
                if word.lower() in n["title"].lower() or word.lower() in (n.get("summary") or "").lower()]
    assert sorted(found) == sorted(expected)


def test_several_search_terms_must_all_match(api, news):
    target = news[BIG][0]
    words = target["title"].split()[:2]
    assert len(words) == 2
    found = ids(api.ok("/news", search=words, limit=500)["data"])
    assert target["id"] in found
    for item in api.ok("/news", search=words, limit=500)["data"]:
        text = (item["title"] + " " + (item["summary"] or "")).lower()
        assert all(w.lower() in text for w in words)


@pytest.mark.parametrize("term", ["%", "_", "\\", "%%%"])
def test_search_wildcards_are_literal(api, news, term):
    expected = [n["id"] for n in news[BIG]
                if term in n["title"] or term in (n.get("summary") or "")]
    assert sorted(ids(api.ok("/news", search=term, limit=500)["data"])) == sorted(expected)


def test_search_never_finds_hidden_news(api, fixture_data, news):
    hidden = [n for n in fixture_data[BIG]["news"] if n["id"] not in {v["id"] for v in news[BIG]}]
    assert api.ok("/news", search=hidden[0]["title"])["data"] == []


@pytest.mark.parametrize("params, expect_all", [
    ({"status": "published"}, True),
    ({"status": "draft"}, False),
    ({"status": "draft,archived"}, False),
    ({"status": ["draft", "published"]}, True),
    ({"isPublic": "true"}, True),
    ({"isPublic": "FALSE"}, False),
    ({"isPublic": "0,1"}, True),
])
def test_status_and_is_public_never_widen_the_output(api, news, params, expect_all):
    found = ids(api.ok("/news", limit=500, **params)["data"])
    assert sorted(found) == (sorted(n["id"] for n in news[BIG]) if expect_all else [])


def _tagged(news, tags):
    return sorted(n["id"] for n in news if set(n.get("tags", [])) & set(tags))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_tags_any_of_in_three_encodings(app, keys, news, encoding):
    all_tags = sorted({t for n in news[BIG] for t in n.get("tags", [])})
    assert len(all_tags) >= 2
    wanted = all_tags[:2]
    query = array_query("tags", wanted, encoding)
    response = app.test_client().get(f"/public-api/v1/news?limit=500&{query}",
                                      headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200
    assert sorted(ids(response.get_json()["data"])) == _tagged(news[BIG], wanted)


def test_unknown_tag_gives_nothing(api):
    assert api.ok("/news", tags="no-such-tag")["data"] == []


@pytest.mark.parametrize("param, column", [
    ("hasThumbnail", "thumbnail_url"), ("hasFeatureImage", "feature_image_url"),
])
@pytest.mark.parametrize("value", ["true", "false", "true,false"])
def test_image_presence_filters(api, news, param, column, value):
    wanted = {v == "true" for v in value.split(",")}
    expected = sorted(n["id"] for n in news[BIG] if bool(n.get(column)) in wanted)
    assert 0 < len(expected) or value != "true,false"
    assert sorted(ids(api.ok("/news", limit=500, **{param: value})["data"])) == expected


def test_both_values_of_image_filters_are_exercised(news):
    for column in ("thumbnail_url", "feature_image_url"):
        assert any(n.get(column) for n in news[BIG])
        assert any(not n.get(column) for n in news[BIG])


def test_filters_combine_with_and(api, news):
    tag = sorted({t for n in news[BIG] for t in n.get("tags", [])})[0]
    expected = sorted(n["id"] for n in news[BIG] if tag in n.get("tags", []) and n.get("thumbnail_url"))
    found = ids(api.ok("/news", tags=tag, hasThumbnail="true", limit=500)["data"])
    assert sorted(found) == expected


def test_future_news_appears_once_its_time_comes(api, fixture_data, monkeypatch):
    import db.clock

    future = [n for n in fixture_data[BIG]["news"]
              if n.get("status") == "published" and n.get("is_public", True)
              and not n.get("is_deleted") and n.get("published_at")
              and parse_time(n["published_at"]).year >= 2090]
    assert future, "the fixture must hold future-dated news"
    later = parse_time(future[0]["published_at"])
    monkeypatch.setattr(db.clock, "utcnow", lambda: later)
    assert future[0]["id"] in ids(api.all("/news"))


@pytest.mark.parametrize("spelling", [str.upper, str.title, lambda tag: tag[0].upper() + tag[1:]])
def test_tags_match_a_to_z_case_insensitively(api, news, spelling):
    tag = sorted({t for n in news[BIG] for t in n.get("tags", [])})[0]
    expected = _tagged(news[BIG], [tag])
    assert expected
    assert sorted(ids(api.ok("/news", tags=spelling(tag), limit=500)["data"])) == expected


def test_a_hidden_news_tag_matches_nothing_in_any_case(api, news):
    visible_tags = {t for n in news[BIG] for t in n.get("tags", [])}
    assert "HIDDEN-tag" not in visible_tags
    for spelling in ("HIDDEN-tag", "hidden-tag", "HIDDEN-TAG"):
        assert api.ok("/news", tags=spelling)["data"] == []


def test_query_count_does_not_grow_with_the_page(api, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/news", limit=1)
    counts = []
    for limit in (1, 5):
        with query_count() as counter:
            body = api.ok("/news", limit=limit, tags="results,live")
        assert len(body["data"]) == limit
        counts.append(counter.count)
    # key, then the compiled news' page with its count
    assert counts == [2] * 2
