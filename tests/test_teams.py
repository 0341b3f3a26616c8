"""GET /teams: visibility, the team tree's candidate counts, every parameter, sorting."""
import pytest

from conftest import API, BIG, ENCODINGS, SMALL, array_query
from fixture_rules import PRIVATE_FIELD_NAMES, flag, private_values
from structure_rules import expected_order, ids, one_404, unseen_sub_fests
from structure_rules import big, fests, sub_fest  # noqa: F401 (fixtures)
from structure_tiny import shape  # noqa: F401 (fixture)

ITEM_FIELDS = {"id", "name", "displayName", "publicName", "motto", "logoUrl", "colorCode", "displayOrder",
               "level", "parentTeam", "candidateCount"}


def listed(api, key=BIG, **params):
    return api.all("/teams", key=key, **params)


def expect(big, sub_fest, predicate):
    return sorted(t["id"] for t in big.teams(sub_fest) if predicate(t))


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_visible_teams_of_each_sub_fest(api, fests, slug):
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        body = api.ok("/teams", key=slug, subFestId=sub_fest["id"], limit=500)
        assert ids(body["data"]) == sorted(t["id"] for t in festival.teams(sub_fest["id"]))
        assert body["meta"]["total"] == len(festival.teams(sub_fest["id"]))
    hidden = [t for t in festival.rows("teams") if not (flag(t, "is_active") and flag(t, "is_public"))]
    assert hidden, "the fixture must hold hidden teams"


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_fields_and_candidate_counts(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    rows = festival.by_id("teams")
    items = listed(api, key=slug, subFestId=sub_fest)
    for item in items:
        row = rows[item["id"]]
        assert set(item) == ITEM_FIELDS
        assert (item["name"], item["displayName"], item["publicName"], item["motto"], item["logoUrl"],
                item["colorCode"], item["displayOrder"], item["level"]) == (
            row["name"], row.get("display_name"), row.get("public_name"), row.get("motto"), row.get("logo_url"),
            row.get("color_code"), row.get("display_order", 0), row.get("level", 1))
        parent = rows.get(row.get("parent"))
        if parent and flag(parent, "is_active") and flag(parent, "is_public"):
            assert item["parentTeam"]["id"] == parent["id"] and item["parentTeam"]["name"] == parent["name"]
        else:
            assert item["parentTeam"] is None
        assert item["candidateCount"] == festival.team_candidate_count(item["id"]), item["name"]
    # a top-level team counts the candidates of the teams below it
    assert any(i["level"] == 1 and i["candidateCount"] > 0 for i in items)
    assert all(c.get("team") is None or rows[c["team"]].get("level") != 1 for c in festival.candidates(sub_fest))


def test_counts_leave_out_hidden_candidates(api, big, sub_fest):
    hidden = big.hidden_candidates(sub_fest)
    teams = {c["team"] for c in hidden if c.get("team")}
    assert teams, "the fixture must put hidden candidates in visible teams"
    items = {i["id"]: i for i in listed(api, subFestId=sub_fest)}
    for team in teams:
        with_hidden = big.team_candidate_count(team) + sum(1 for c in hidden if c["team"] == team)
        assert items[team]["candidateCount"] == big.team_candidate_count(team) < with_hidden


def test_shape_tree_counts_by_hand(shape):
    client, names = shape
    items = {i["name"]: i for i in client.all("/teams", subFestId=names["main"])}
    assert sorted(items) == ["District", "Empty", "Orphan", "School"]
    assert {n: i["candidateCount"] for n, i in items.items()} == {
        "District": 2, "School": 2, "Orphan": 1, "Empty": 0}
    assert items["School"]["parentTeam"]["id"] == names["District"]
    assert items["Orphan"]["parentTeam"] is None  # its parent is hidden
    assert "HIDDEN" not in str(items)


def test_search(api, big, sub_fest):
    team = next(t for t in big.teams(sub_fest) if t.get("parent"))
    word = team["name"].split()[-1]

    def matches(t, term):
        return any(term.lower() in (t.get(f) or "").lower() for f in ("name", "display_name", "public_name"))

    expected = expect(big, sub_fest, lambda t: matches(t, word))
    assert team["id"] in expected and len(expected) < len(big.teams(sub_fest))
    assert ids(listed(api, subFestId=sub_fest, search=word.lower())) == expected
    words = team["name"].split()[:2]
    assert ids(listed(api, subFestId=sub_fest, search=words)) == expect(
        big, sub_fest, lambda t: all(matches(t, w) for w in words))
    assert listed(api, subFestId=sub_fest, search="HIDDEN") == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_color_code_any_of_in_three_encodings(app, keys, big, sub_fest, encoding):
    colors = sorted({t["color_code"] for t in big.teams(sub_fest) if t.get("color_code")})[:2]
    assert len(colors) == 2
    encoded = [c.replace("#", "%23").upper() for c in colors]
    query = array_query("colorCode", encoded, encoding)
    response = app.test_client().get(f"{API}/teams?subFestId={sub_fest}&limit=500&{query}",
                                      headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200
    expected = expect(big, sub_fest, lambda t: (t.get("color_code") or "").lower() in {c.lower() for c in colors})
    assert expected and ids(response.get_json()["data"]) == expected


@pytest.mark.parametrize("value, names", [
    ("true", ["District", "Orphan", "School"]), ("FALSE", ["Empty"]),
    ("true,false", ["District", "Empty", "Orphan", "School"]),
])
def test_shape_has_candidates(shape, value, names):
    client, ids_ = shape
    assert sorted(i["name"] for i in client.all("/teams", subFestId=ids_["main"], hasCandidates=value)) == names


@pytest.mark.parametrize("slug", [BIG, SMALL])
@pytest.mark.parametrize("value", ["true", "false"])
def test_has_candidates(api, fests, slug, value):
    """Every team of the bundled festivals has candidates; the shape festival has one without."""
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        expected = sorted(t["id"] for t in festival.teams(sub_fest["id"])
                          if (festival.team_candidate_count(t["id"]) > 0) == (value == "true"))
        assert ids(listed(api, key=slug, subFestId=sub_fest["id"], hasCandidates=value)) == expected


def test_filters_combine_with_and(api, big, sub_fest):
    color = big.teams(sub_fest)[0]["color_code"]
    expected = expect(big, sub_fest, lambda t: t.get("color_code") == color and big.team_candidate_count(t["id"]) > 0
                      and "a" in (t["name"] + (t.get("display_name") or "") + (t.get("public_name") or "")).lower())
    assert expected
    assert ids(listed(api, subFestId=sub_fest, colorCode=color, hasCandidates="true", search="a")) == expected


@pytest.mark.parametrize("sort_by, column", [("displayOrder", "display_order"), ("name", "name"),
                                             ("publicName", "public_name"), ("level", "level")])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, big, sub_fest, sort_by, column, order):
    items = api.ok("/teams", subFestId=sub_fest, sortBy=sort_by, sortOrder=order, limit=500)["data"]
    assert [i["id"] for i in items] == expected_order(big.teams(sub_fest), lambda t: t.get(column), order == "desc")


def test_not_found_and_bad_parameters(api, fests, sub_fest):
    one_404(api, "/teams", "subFestId", unseen_sub_fests(fests))
    for params, field in (({}, "subFestId"), ({"subFestId": "x"}, "subFestId"),
                          ({"subFestId": sub_fest, "hasCandidates": "y"}, "hasCandidates"),
                          ({"subFestId": sub_fest, "sortBy": "candidateCount"}, "sortBy")):
        response = api.get("/teams", **params)
        assert response.status_code == 400 and field in response.get_json()["errors"]["query"]


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_nothing_hidden_or_private_in_any_response(api, fixture_data, fests, slug):
    secrets = private_values(fixture_data[slug])
    hidden_ids = {t["id"] for t in fests[slug].rows("teams") if not (flag(t, "is_active") and flag(t, "is_public"))}
    for sub_fest in fests[slug].sub_fests:
        for path in ("/teams", "/categories"):
            text = api.get(path, key=slug, subFestId=sub_fest["id"], limit=500).get_data(as_text=True)
            assert "HIDDEN" not in text
            assert not [s for s in secrets if s in text]
            assert not [name for name in PRIVATE_FIELD_NAMES if f'"{name}"' in text]
            assert not [t for t in hidden_ids if t in text]


def test_query_count_does_not_grow_with_the_page(api, sub_fest, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/teams", subFestId=sub_fest, limit=1)
    counts = []
    for limit in (1, 40):
        with query_count() as counter:
            body = api.ok("/teams", subFestId=sub_fest, limit=limit, sortBy="level", sortOrder="desc")
        assert len(body["data"]) == limit
        assert body["data"][0]["parentTeam"] is not None
        counts.append(counter.count)
    # key, then the compiled teams' page with its total
    assert counts == [2] * 2


def test_openapi_documents_every_parameter_and_sort_field(app):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}/teams"]["get"]["parameters"] if p["in"] == "query"}
    assert set(params) == {"subFestId", "subFestSlug", "page", "limit", "sortBy", "sortOrder", "search", "colorCode",
                           "hasCandidates"}
    assert params["sortBy"]["schema"]["enum"] == ["displayOrder", "name", "publicName", "level"]
