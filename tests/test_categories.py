"""GET /categories: visibility, public counts, search, sorting."""
import pytest

from conftest import API, BIG, SMALL, array_query
from fixture_rules import flag
from structure_rules import expected_order, ids, one_404, unseen_sub_fests
from structure_rules import big, fests, sub_fest  # noqa: F401 (fixtures)
from structure_tiny import shape  # noqa: F401 (fixture)


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_visible_categories_with_public_counts(api, fests, slug):
    festival = fests[slug]
    rows = festival.by_id("categories")
    for sub_fest in festival.sub_fests:
        body = api.ok("/categories", key=slug, subFestId=sub_fest["id"], limit=500)
        assert ids(body["data"]) == sorted(c["id"] for c in festival.categories(sub_fest["id"]))
        assert body["meta"]["total"] == len(festival.categories(sub_fest["id"]))
        for item in body["data"]:
            row = rows[item["id"]]
            assert item == {
                "id": row["id"], "name": row["name"], "nameLocal": row.get("name_local"),
                "description": row.get("description"), "displayOrder": row.get("display_order", 0),
                "candidateCount": festival.category_counts(row["id"])[0],
                "programmeCount": festival.category_counts(row["id"])[1],
            }
    assert any(not (flag(c, "is_active") and flag(c, "is_public")) for c in festival.rows("categories"))


def test_counts_would_change_if_hidden_records_counted(api, big, sub_fest):
    items = {i["id"]: i for i in api.ok("/categories", subFestId=sub_fest, limit=500)["data"]}
    hidden_candidates = [c for c in big.hidden_candidates(sub_fest) if c.get("category") in items]
    hidden_programmes = [p for p in big.rows("subFestProgrammes")
                         if p["sub_fest"] == sub_fest and p["id"] not in big.programme_ids and p.get("category") in items]
    assert hidden_candidates and hidden_programmes
    for category, item in items.items():
        all_candidates = sum(1 for c in big.rows("subFestCandidates") if c.get("category") == category)
        all_programmes = sum(1 for p in big.rows("subFestProgrammes") if p.get("category") == category)
        assert item["candidateCount"] <= all_candidates and item["programmeCount"] <= all_programmes
    assert any(items[c["category"]]["candidateCount"] < sum(
        1 for x in big.rows("subFestCandidates") if x.get("category") == c["category"]) for c in hidden_candidates)
    assert any(items[p["category"]]["programmeCount"] < sum(
        1 for x in big.rows("subFestProgrammes") if x.get("category") == p["category"]) for p in hidden_programmes)


def test_shape_counts_by_hand(shape):
    client, names = shape
    items = {i["name"]: (i["candidateCount"], i["programmeCount"])
             for i in client.all("/categories", subFestId=names["main"])}
    assert items == {"Junior": (2, 2), "Senior": (2, 0)}


def test_search(api, big, sub_fest):
    categories = big.categories(sub_fest)
    word = categories[0]["name"].split()[0]
    expected = sorted(c["id"] for c in categories
                      if word.lower() in c["name"].lower() or word.lower() in (c.get("name_local") or "").lower())
    assert 0 < len(expected) < len(categories)
    assert ids(api.ok("/categories", subFestId=sub_fest, search=word.upper())["data"]) == expected
    assert api.ok("/categories", subFestId=sub_fest, search="HIDDEN")["data"] == []


@pytest.mark.parametrize("encoding, expect_match", [("repeated", True), ("bracket", True), ("comma", False)])
def test_search_terms_in_three_encodings(app, keys, big, sub_fest, encoding, expect_match):
    """Several terms must all match; commas never split free text, so "a,b" is one term."""
    category = big.categories(sub_fest)[0]
    words = category["name"].split()[:2]
    assert len(words) == 2
    query = array_query("search", words, encoding)
    response = app.test_client().get(f"{API}/categories?subFestId={sub_fest}&{query}",
                                      headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200
    found = ids(response.get_json()["data"])
    assert (category["id"] in found) is expect_match
    if expect_match:
        assert found == sorted(c["id"] for c in big.categories(sub_fest)
                               if all(w.lower() in c["name"].lower() for w in words))


@pytest.mark.parametrize("sort_by, column", [("displayOrder", "display_order"), ("name", "name")])
@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_sorting(api, fests, slug, sort_by, column, order):
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        items = api.ok("/categories", key=slug, subFestId=sub_fest["id"], sortBy=sort_by, sortOrder=order)["data"]
        assert [i["id"] for i in items] == expected_order(
            festival.categories(sub_fest["id"]), lambda c: c.get(column), order == "desc")


def test_not_found_and_bad_parameters(api, fests, sub_fest):
    one_404(api, "/categories", "subFestId", unseen_sub_fests(fests))
    for params, field in (({}, "subFestId"), ({"subFestId": "x"}, "subFestId"),
                          ({"subFestId": sub_fest, "sortBy": "candidateCount"}, "sortBy"),
                          ({"subFestId": sub_fest, "limit": 0}, "limit")):
        response = api.get("/categories", **params)
        assert response.status_code == 400 and field in response.get_json()["errors"]["query"]


def test_query_count_does_not_grow_with_the_page(api, sub_fest, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/categories", subFestId=sub_fest, limit=1)
    counts = []
    for limit in (1, 4):
        with query_count() as counter:
            body = api.ok("/categories", subFestId=sub_fest, limit=limit)
        assert len(body["data"]) == limit
        counts.append(counter.count)
    # key, then the compiled categories' page with its total
    assert counts == [2] * 2


def test_openapi_documents_every_parameter_and_sort_field(app):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}/categories"]["get"]["parameters"] if p["in"] == "query"}
    assert set(params) == {"subFestId", "subFestSlug", "page", "limit", "sortBy", "sortOrder", "search"}
    assert params["sortBy"]["schema"]["enum"] == ["displayOrder", "name"]
    assert set(p["name"] for p in spec["paths"][f"{API}/filters"]["get"]["parameters"]) == {"subFestSlug", "subFestId"}
