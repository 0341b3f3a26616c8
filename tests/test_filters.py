"""GET /filters: the public filter options, of the festival or of one sub-fest."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import PRIVATE_FIELD_NAMES, flag, private_values
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
            "displayTopN": 10, "displayOrder": 0, "lastComputedAt": body["topperOptions"]["placeholders"][0][
                "lastComputedAt"]}],
        "entityTypes": ["team"], "scopeTypes": ["category"]}
    assert "HIDDEN" not in str(body)
    assert client.get("/filters", subFestSlug="hidden-sub").status_code == 404


def test_unknown_hidden_and_foreign_slugs_are_one_identical_404(api, fests):
    big, small = fests[BIG], fests[SMALL]
    slugs = ["no-such-sub-fest", small.sub_fests[0]["slug"],
             *(s["slug"] for s in big.rows("subFests") if s["id"] not in big.sub_fest_ids)]
    assert len(slugs) >= 4
    bodies = set()
    for slug in slugs:
        response = api.get("/filters", subFestSlug=slug)
        assert response.status_code == 404, slug
        bodies.add(response.get_data(as_text=True))
    assert len(bodies) == 1 and "Sub-fest not found." in bodies.pop()


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
