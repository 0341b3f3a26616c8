"""Natural keys where a site routes: a leaderboard by its label (``/toppers``,
``/page-toppers``), a candidate's entries by chest number (``/candidate-registrations``),
and ``/schedules`` and ``/filters`` by ``subFestId`` as well as ``subFestSlug``. Each key
answers exactly what the id answers, under the rules of the other selectors: neither sent
is a 400 naming both, a key in several sub-fests needs the sub-fest (400), and ``subFestId``
and ``subFestSlug`` naming different sub-fests, an id and a key of different records, an
unknown key and a hidden record's key are the one 404."""
import copy

import pytest

from conftest import API, BIG
from fixture_rules import visible_sub_fests
from result_rules import visible_candidate_ids
from tiny_festival import tiny, tiny_api, tiny_festival  # noqa: F401 (tiny: fixture)


@pytest.fixture(scope="module")
def big(fixture_data):
    """Visible sub-fests (by id), published placeholders and visible candidates of the big festival."""
    data = fixture_data[BIG]
    sub_fests = {s["id"]: s for s in visible_sub_fests(data)}
    placeholders = [p for p in data["topperPlaceholders"] if p["is_published"] and p["sub_fest"] in sub_fests]
    candidates = [c for c in data["subFestCandidates"] if c["id"] in visible_candidate_ids(data)]
    return sub_fests, placeholders, candidates


@pytest.fixture(scope="module")
def shared(seeded, tmp_path_factory):
    """The tiny festival with the label "candidates" published in its second sub-fest too:
    ``(client, names)``."""
    data, names = tiny_festival()
    data = copy.deepcopy(data)
    first = next(p for p in data["topperPlaceholders"] if p["label"] == "candidates")
    second = next(s["id"] for s in data["subFests"] if s["slug"] == "second")
    data["topperPlaceholders"].append({**first, "id": "0c5a3a5e-5b0e-4b8a-9f51-6f1d2a7c0b01", "sub_fest": second})
    names["second-candidates"] = data["topperPlaceholders"][-1]["id"]
    with tiny_api(seeded[0], tmp_path_factory.mktemp("shared"), data) as (client, _):
        yield client, names


# --- a leaderboard by its label -----------------------------------------------------------


def test_a_label_answers_what_the_id_answers(api, big):
    sub_fests, placeholders, _ = big
    assert len(placeholders) > 10
    for p in placeholders:
        expected = api.ok("/toppers", topperPlaceholderId=p["id"])
        slug = sub_fests[p["sub_fest"]]["slug"]
        assert api.ok("/toppers", placeholderLabel=p["label"], subFestSlug=slug) == expected
        assert api.ok("/toppers", placeholderLabel=p["label"].upper(), subFestId=p["sub_fest"]) == expected
        assert api.ok("/toppers", placeholderLabel=p["label"]) == expected  # unique in the festival
        assert api.ok("/toppers", topperPlaceholderId=p["id"], placeholderLabel=p["label"]) == expected
        assert api.ok("/page-toppers", placeholderLabel=p["label"], subFestSlug=slug) == \
            api.ok("/page-toppers", placeholderId=p["id"])


def test_a_label_on_a_page_answers_what_the_id_on_the_page_answers(tiny):
    client, names = tiny
    expected = client.ok("/page-toppers", pageSlug="results", placeholderId=names["houses"])
    assert [t["id"] for t in expected["toppers"]] == [names["houses"]]
    assert client.ok("/page-toppers", pageSlug="results", placeholderLabel="Houses") == expected
    # a leaderboard that is not on the page is the one 404, by label as by id
    assert client.get("/page-toppers", pageSlug="results", placeholderLabel="junior").status_code == 404


def test_a_label_in_two_sub_fests_needs_the_sub_fest(shared):
    client, names = shared
    response = client.get("/toppers", placeholderLabel="candidates")
    assert response.status_code == 400
    assert response.get_json()["message"] == ("placeholderLabel matches topper placeholders in more than one "
                                              "place; add subFestSlug.")
    assert client.ok("/toppers", placeholderLabel="candidates", subFestSlug="main")["placeholder"]["id"] == \
        names["candidates"]
    assert client.ok("/toppers", placeholderLabel="CANDIDATES", subFestSlug="second")["placeholder"]["id"] == \
        names["second-candidates"]
    assert client.get("/page-toppers", placeholderLabel="candidates").status_code == 400


# --- a candidate's entries by chest number ---------------------------------------------------


def test_a_chest_number_lists_the_entries_the_id_lists(api, big):
    sub_fests, _, candidates = big
    assert len(candidates) > 20
    for c in candidates[:60]:
        expected = api.ok("/candidate-registrations", subFestCandidateId=c["id"], limit=500)
        slug = sub_fests[c["sub_fest"]]["slug"]
        assert api.ok("/candidate-registrations", chestNo=c["chest_no"], subFestSlug=slug, limit=500) == expected
        assert api.ok("/candidate-registrations", chestNo=c["chest_no"].lower(), subFestId=c["sub_fest"],
                      limit=500) == expected
        assert api.ok("/candidate-registrations", subFestCandidateId=c["id"], chestNo=c["chest_no"],
                      limit=500) == expected


def test_a_chest_number_in_two_sub_fests_needs_the_sub_fest(tiny):
    client, names = tiny
    response = client.get("/candidate-registrations", chestNo="101")
    assert response.status_code == 400
    assert "subFestSlug" in response.get_json()["message"]
    for slug, name in (("main", "Anu"), ("second", "Farah")):
        assert client.ok("/candidate-registrations", chestNo="101", subFestSlug=slug) == \
            client.ok("/candidate-registrations", subFestCandidateId=names[name])


# --- the 400 and 404 rules, every selector -----------------------------------------------------

# path, id parameter, natural-key parameter, a key of the tiny festival, an id of another record of it
SELECTORS = [
    ("/toppers", "topperPlaceholderId", "placeholderLabel", "houses", "junior"),
    ("/candidate-registrations", "subFestCandidateId", "chestNo", "102", "Anu"),
]


@pytest.mark.parametrize("path, by_id, by_key, key, other", SELECTORS)
@pytest.mark.parametrize("params", [{}, {"subFestSlug": "main"}, {"blank key": " "}, {"blank key": ""}])
def test_neither_selector_is_a_400_naming_both(tiny, path, by_id, by_key, key, other, params):
    client, _ = tiny
    params = {by_key if name == "blank key" else name: value for name, value in params.items()}
    response = client.get(path, **params)
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert errors == {by_id: [f"Send {by_id} or {by_key}."], by_key: [f"Send {by_id} or {by_key}."]}


@pytest.mark.parametrize("path, by_id, by_key, key, other", SELECTORS)
def test_sub_fest_id_and_slug_naming_different_sub_fests_are_the_404_of_an_unknown_one(tiny, path, by_id, by_key,
                                                                                        key, other):
    client, names = tiny
    response = client.get(path, **{by_key: key, "subFestId": names["main"], "subFestSlug": "second"})
    assert response.status_code == 404
    assert response.get_json() == client.get(path, **{by_key: key, "subFestSlug": "no-such-sub-fest"}).get_json()
    assert response.get_json()["message"] == "Sub-fest not found."


@pytest.mark.parametrize("path, by_id, by_key, key, other", SELECTORS)
@pytest.mark.parametrize("case", ["id and key of different records", "unknown key", "key of another sub-fest",
                                  "unknown sub-fest", "hidden sub-fest"])
def test_the_one_404(tiny, path, by_id, by_key, key, other, case):
    client, names = tiny
    params = {
        "id and key of different records": {by_id: names[other], by_key: key},
        "unknown key": {by_key: "no-such-key"},
        "key of another sub-fest": {by_key: key, "subFestSlug": "second"},
        "unknown sub-fest": {by_key: key, "subFestSlug": "no-such-sub-fest"},
        "hidden sub-fest": {by_key: key, "subFestId": names["hidden-sub"]},
    }[case]
    response = client.get(path, **params)
    assert response.status_code == 404
    assert response.get_json()["message"].endswith("not found.")


def test_an_unpublished_leaderboards_label_is_the_one_404(tiny):
    client, _ = tiny
    hidden = client.get("/toppers", placeholderLabel="draft").get_json()
    unknown = client.get("/toppers", placeholderLabel="no-such-label").get_json()
    assert hidden == unknown == {"code": 404, "status": "Not Found", "message": "Topper placeholder not found."}
    assert client.get("/page-toppers", placeholderLabel="draft").get_json() == hidden


@pytest.mark.parametrize("path, params, field", [
    ("/toppers", {"placeholderLabel": "x" * 256}, "placeholderLabel"),
    ("/toppers", {"placeholderLabel": "houses", "subFestId": "not-a-uuid"}, "subFestId"),
    ("/candidate-registrations", {"chestNo": "1" * 21}, "chestNo"),
    ("/candidate-registrations", {"chestNo": "101", "subFestId": "not-a-uuid"}, "subFestId"),
    ("/schedules", {"subFestId": "not-a-uuid"}, "subFestId"),
    ("/filters", {"subFestId": "not-a-uuid"}, "subFestId"),
])
def test_malformed_values_are_a_400_naming_the_parameter(tiny, path, params, field):
    client, _ = tiny
    response = client.get(path, **params)
    assert response.status_code == 400
    assert field in response.get_json()["errors"]["query"]


# --- /schedules and /filters by subFestId ---------------------------------------------------------

OPTIONAL_SUB_FEST = ["/schedules", "/filters"]


@pytest.mark.parametrize("path", OPTIONAL_SUB_FEST)
def test_the_id_answers_what_the_slug_answers(api, big, path):
    sub_fests, _, _ = big
    whole = {"limit": 500} if path == "/schedules" else {}  # /filters has no pages
    for sub_fest in sub_fests.values():
        by_slug = api.ok(path, subFestSlug=sub_fest["slug"], **whole)
        assert api.ok(path, subFestId=sub_fest["id"], **whole) == by_slug
        assert api.ok(path, subFestId=sub_fest["id"], subFestSlug=sub_fest["slug"], **whole) == by_slug
        assert by_slug["context"]["subFest"]["id"] == sub_fest["id"]
    assert api.ok(path, **whole) != by_slug  # without either: the whole festival


@pytest.mark.parametrize("path", OPTIONAL_SUB_FEST)
def test_different_sub_fests_are_the_404_of_an_unknown_one(api, big, path):
    first, second = list(big[0].values())[:2]
    response = api.get(path, subFestId=first["id"], subFestSlug=second["slug"])
    assert response.status_code == 404
    assert response.get_json() == api.get(path, subFestSlug="no-such-sub-fest").get_json()


@pytest.mark.parametrize("path", OPTIONAL_SUB_FEST)
def test_an_unknown_hidden_or_foreign_sub_fest_id_is_the_one_404(api, fixture_data, big, path):
    sub_fests = big[0]
    hidden = next(s for s in fixture_data[BIG]["subFests"] if s["id"] not in sub_fests)
    foreign = visible_sub_fests(fixture_data["college-fest-2026"])[0]
    for sub_fest_id in (hidden["id"], foreign["id"], "00000000-0000-4000-8000-000000000000"):
        response = api.get(path, subFestId=sub_fest_id)
        assert response.status_code == 404
        assert response.get_json()["message"] == "Sub-fest not found."


# --- the OpenAPI document --------------------------------------------------------------------------

NEW_PARAMETERS = {
    "/toppers": ("topperPlaceholderId", "placeholderLabel", "subFestId", "subFestSlug"),
    "/page-toppers": ("placeholderLabel", "subFestId", "subFestSlug"),
    "/candidate-registrations": ("subFestCandidateId", "chestNo", "subFestId", "subFestSlug"),
    "/schedules": ("subFestId", "subFestSlug"),
    "/filters": ("subFestId", "subFestSlug"),
}


@pytest.mark.parametrize("path", NEW_PARAMETERS)
def test_openapi_documents_each_selector_with_a_description_and_an_example(app, path):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}{path}"]["get"]["parameters"]}
    for name in NEW_PARAMETERS[path]:
        assert not params[name]["required"], name
        assert params[name]["description"], name
        assert "example" in params[name] or "example" in params[name]["schema"], name


@pytest.mark.parametrize("params, status", [
    ({"placeholderLabel": "houses", "subFestId": "main", "subFestSlug": "second"}, 404),
    ({"placeholderLabel": "houses", "subFestSlug": "second"}, 404),
    ({"placeholderLabel": "no-such-label"}, 404),
    ({"placeholderLabel": "houses", "placeholderId": "junior"}, 404),
    ({"pageSlug": "results", "placeholderLabel": "houses", "subFestSlug": "no-such-sub-fest"}, 404),
    ({"pageSlug": "results", "placeholderLabel": "houses", "subFestSlug": "main"}, 200),
])
def test_page_toppers_by_label_follows_the_same_rules(tiny, params, status):
    client, names = tiny
    # ids by their names in the tiny festival
    params = {name: names[value] if name in ("subFestId", "placeholderId") else value for name, value in params.items()}
    response = client.get("/page-toppers", **params)
    assert response.status_code == status, response.get_data(as_text=True)
