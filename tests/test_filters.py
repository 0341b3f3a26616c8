"""GET /filters: the public filter options, of the festival or of one sub-fest."""
import datetime

import pytest

from conftest import API, BIG, SMALL, writable
from db import clock
from fixture_rules import (
    PRIVATE_FIELD_NAMES, flag, private_values, publication, visible_programme_ids, visible_sub_fests)
from seed.pipeline.write.update import update_fixture
from structure_rules import one_404
from structure_rules import fests  # noqa: F401 (fixtures)
from structure_tiny import shape  # noqa: F401 (fixture)

KEYS = {"context", "subFests", "categories", "teams", "sections", "venues", "programmeCollections",
        "topperOptions"}


def id_set(items):
    return {i["id"] for i in items}


def published_placeholders(festival, sub_fest_ids):
    return [p for p in festival.rows("topperPlaceholders")
            if flag(p, "is_published", False) and p["sub_fest"] in sub_fest_ids]


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_whole_festival_options(api, fests, slug):
    festival = fests[slug]
    body = api.ok("/filters", key=slug)
    assert set(body) == KEYS
    assert body["context"]["subFest"] is None and body["context"]["festival"]["slug"] == slug
    visible = festival.sub_fest_ids
    assert [s["id"] for s in body["subFests"]] == [
        s["id"] for s in sorted(festival.sub_fests, key=lambda s: (s.get("display_order", 0), s["name"], s["id"]))]
    assert id_set(body["categories"]) == {c["id"] for s in visible for c in festival.categories(s)}
    assert id_set(body["teams"]) == {t["id"] for s in visible for t in festival.teams(s)}
    assert id_set(body["sections"]) == {x["id"] for x in festival.rows("sections")
                                        if x["sub_fest"] in visible and festival.visible("sections", x["id"])}
    assert id_set(body["venues"]) == {v["id"] for v in festival.rows("venues") if flag(v, "is_public")}
    assert id_set(body["programmeCollections"]) == {
        c["id"] for c in festival.rows("programmeCollections") if flag(c, "is_public")}
    placeholders = published_placeholders(festival, visible)
    assert id_set(body["topperOptions"]["placeholders"]) == {p["id"] for p in placeholders}
    assert body["topperOptions"]["entityTypes"] == sorted({p["entity_type"] for p in placeholders})
    assert body["topperOptions"]["scopeTypes"] == sorted({p["scope_type"] for p in placeholders})
    for category in body["categories"]:
        assert category["subFestId"] in visible


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_one_sub_fest_options(api, fests, slug):
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        sid = sub_fest["id"]
        body = api.ok("/filters", key=slug, subFestSlug=sub_fest["slug"])
        assert body["context"]["subFest"]["id"] == sid
        assert [s["id"] for s in body["subFests"]] == [sid]
        assert id_set(body["categories"]) == {c["id"] for c in festival.categories(sid)}
        assert id_set(body["teams"]) == {t["id"] for t in festival.teams(sid)}
        programmes = festival.programmes(sid)
        assert id_set(body["venues"]) == {s["venue"] for p in programmes for s in festival.schedules(p["id"])
                                          if festival.visible("venues", s["venue"])}
        assert id_set(body["programmeCollections"]) == {
            c for p in programmes for c in p.get("collections", []) if festival.visible("programmeCollections", c)}
        assert id_set(body["topperOptions"]["placeholders"]) == {
            p["id"] for p in published_placeholders(festival, {sid})}
        assert all(t["subFestId"] == sid for t in body["teams"])


def test_team_options_carry_their_public_parent(api, fests):
    festival = fests[BIG]
    rows = festival.by_id("teams")
    body = api.ok("/filters")
    for team in body["teams"]:
        parent = rows[team["id"]].get("parent")
        assert team["parentTeamId"] == parent
    assert any(t["parentTeamId"] for t in body["teams"])


def test_shape_options_leave_hidden_records_out(shape):
    client, names = shape
    body = client.ok("/filters")
    assert [s["id"] for s in body["subFests"]] == [names["main"]]
    assert {t["name"]: t["parentTeamId"] for t in body["teams"]} == {
        "District": None, "School": names["District"], "Orphan": None, "Empty": None}
    assert [c["name"] for c in body["categories"]] == ["Junior", "Senior"]
    assert [s["id"] for s in body["sections"]] == [names["Day"]]
    assert [v["id"] for v in body["venues"]] == [names["Hall"]]
    assert [c["id"] for c in body["programmeCollections"]] == [names["Stage"]]
    assert body["topperOptions"] == {
        "placeholders": [{
            "id": names["Published"], "subFestId": names["main"], "label": "Toppers", "scopeType": "category",
            "entityType": "team", "sectionKey": None, "collectionKey": None, "rankingBasis": "points",
            "displayTopN": 10, "displayOrder": 0}],
        "entityTypes": ["team"], "scopeTypes": ["category"]}
    assert "HIDDEN" not in str(body)
    assert client.get("/filters", subFestSlug="hidden-sub").status_code == 404


def test_unknown_hidden_and_foreign_slugs_are_one_identical_404(api, fests):
    big, small = fests[BIG], fests[SMALL]
    slugs = ["no-such-sub-fest", small.sub_fests[0]["slug"],
             *(s["slug"] for s in big.rows("subFests") if s["id"] not in big.sub_fest_ids)]
    assert len(slugs) >= 4
    assert "Sub-fest not found." in one_404(api, "/filters", "subFestSlug", slugs)


def test_an_empty_slug_means_the_whole_festival(api):
    assert api.ok("/filters", subFestSlug="") == api.ok("/filters")


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_nothing_hidden_or_private(api, fixture_data, fests, slug):
    secrets = private_values(fixture_data[slug])
    for params in [{}, *({"subFestSlug": s["slug"]} for s in fests[slug].sub_fests)]:
        text = api.get("/filters", key=slug, **params).get_data(as_text=True)
        assert "HIDDEN" not in text
        assert not [s for s in secrets if s in text]
        assert not [name for name in PRIVATE_FIELD_NAMES if f'"{name}"' in text]


@pytest.mark.parametrize("params", [{}, {"subFestSlug": "general"}])
def test_query_count_is_fixed(api, query_count, params):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/filters", **params)
    with query_count() as counter:
        api.ok("/filters", **params)
    # key, then the compiled document of the festival or of the sub-fest
    assert counter.count == 2


# --- The answer moves only when an option does --------------------------------------------------

PUBLISHED_AT = "2026-01-18T16:00:00Z"


def unpublished_results(data, zero_points):
    """``(programme, [result])`` of a visible completed programme whose results are not yet
    published: its results of no points (``zero_points``), or all of them."""
    visible = visible_programme_ids(data)
    for programme in data["subFestProgrammes"]:
        if programme["id"] not in visible or programme["status"] != "completed":
            continue
        results = [r for r in data["results"] if r["sub_fest_programme"] == programme["id"]]
        if not results or any(flag(r, "is_published") for r in results):
            continue
        chosen = [r for r in results if not r.get("points")] if zero_points else results
        if chosen and (zero_points or sum(r.get("points") or 0 for r in chosen)):
            return programme, chosen
    raise AssertionError("no such programme in the fixture")


def test_filters_etag_moves_only_when_an_option_does(fresh_app, keys, fixture_data, monkeypatch):
    """Publishing a result of no points, then a programme's results that move boards' points,
    leaves /filters (whole and of each sub-fest) with its ETag, a 304 to the one held, while
    the boards' times in /topper-placeholders move; renaming a category moves /filters and
    /filters of its sub-fest, and leaves the other sub-fests' as they were."""
    app, url = fresh_app
    client = app.test_client()
    data = fixture_data[BIG]
    sub_fests = {s["id"]: s["slug"] for s in visible_sub_fests(data)}
    key = {"X-API-Key": keys[BIG]}

    def get(path, params=(), etag=None):
        headers = {**key, "If-None-Match": etag} if etag else key
        response = client.get(f"{API}{path}", query_string=dict(params), headers=headers)
        assert response.status_code in (200, 304), (path, params, response.get_data(as_text=True)[:300])
        return response

    menus = [(), *((("subFestSlug", slug),) for slug in sub_fests.values())]
    assert len(menus) >= 3

    def held():
        return {m: get("/filters", m) for m in menus}

    def board_times():
        times = {}
        for slug in sub_fests.values():
            answer = get("/topper-placeholders", {"subFestSlug": slug, "limit": 500}).get_json()
            times.update({p["id"]: p["lastComputedAt"] for p in answer["data"]})
        return times

    def points():
        return {(board, entry["entityId"], entry["points"]) for board in board_times()
                for entry in get("/toppers", {"topperPlaceholderId": board, "limit": 500}).get_json()["data"]
                if entry["points"]}

    def unchanged_since(before, revision):
        for menu, answer in before.items():
            again = get("/filters", menu, etag=answer.headers["ETag"])
            assert again.status_code == 304, menu
            assert again.headers["X-Data-Revision"] == str(revision), menu
            assert get("/filters", menu).headers["ETag"] == answer.headers["ETag"], menu

    def revision():
        return int(get("/subfests").headers["X-Data-Revision"])

    # A result of no points published: the revision moves, no board's points do.
    programme, results = unpublished_results(data, zero_points=True)
    before, points_before, start = held(), points(), revision()
    with writable(url):
        update_fixture(publication(BIG, programme, results, PUBLISHED_AT))
    assert revision() == start + 1
    assert points() == points_before
    shown = get("/programme-result", {"subFestProgramId": programme["id"]}).get_json()["results"]
    assert {r["id"] for r in shown} == {r["id"] for r in results}
    unchanged_since(before, start + 1)

    # A programme's results that move points, an hour on: boards' times move, the menus do not.
    programme, results = unpublished_results(data, zero_points=False)
    times_before, points_before = board_times(), points()
    later = clock.utcnow() + datetime.timedelta(hours=1)
    with writable(url), monkeypatch.context() as patched:
        patched.setattr(clock, "utcnow", lambda: later)
        update_fixture(publication(BIG, programme, results, PUBLISHED_AT))
    assert points() != points_before
    assert [b for b, at in board_times().items() if at != times_before[b]]
    unchanged_since(before, start + 2)

    # An option renamed: the menus that show it move, the others keep their ETag.
    category = next(c for c in data["categories"] if c["sub_fest"] in sub_fests
                    and any(c["id"] == o["id"] for o in get("/filters").get_json()["categories"]))
    with writable(url):
        update_fixture({"formatVersion": 1, "festival": {"slug": BIG},
                        "categories": [{"id": category["id"], "name": category["name"] + " (renamed)"}]})
    own = ("subFestSlug", sub_fests[category["sub_fest"]])
    for menu, answer in before.items():
        again = get("/filters", menu, etag=answer.headers["ETag"])
        if menu in ((), (own,)):
            assert again.status_code == 200, menu
            assert again.headers["ETag"] != answer.headers["ETag"]
            names = {c["id"]: c["name"] for c in again.get_json()["categories"]}
            assert names[category["id"]] == category["name"] + " (renamed)"
        else:
            assert again.status_code == 304, menu
