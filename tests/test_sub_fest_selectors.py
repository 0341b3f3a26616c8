"""Every endpoint that lists from one sub-fest takes it by ``subFestId`` or ``subFestSlug``."""
import pytest

from conftest import API, BIG
from fixture_rules import visible_sub_fests

SUB_FEST_LISTS = ["/programmes", "/programme-results", "/candidates", "/teams", "/categories",
                  "/topper-placeholders"]


@pytest.fixture(scope="module")
def sub_fests(fixture_data):
    """Two visible sub-fests of the big festival."""
    first, second = visible_sub_fests(fixture_data[BIG])[:2]
    return first, second


def hidden_sub_fest(data):
    visible = {s["id"] for s in visible_sub_fests(data)}
    return next(s for s in data["subFests"] if s["id"] not in visible)


@pytest.mark.parametrize("endpoint", SUB_FEST_LISTS)
def test_the_slug_lists_what_the_id_lists(api, sub_fests, endpoint):
    for sub_fest in sub_fests:
        by_id = api.ok(endpoint, subFestId=sub_fest["id"], limit=500)
        by_slug = api.ok(endpoint, subFestSlug=sub_fest["slug"], limit=500)
        assert by_slug == by_id
        assert by_slug["context"]["subFest"]["id"] == sub_fest["id"]
        both = api.ok(endpoint, subFestId=sub_fest["id"], subFestSlug=sub_fest["slug"], limit=500)
        assert both == by_id


@pytest.mark.parametrize("endpoint", SUB_FEST_LISTS)
def test_neither_selector_is_a_400_naming_both(api, endpoint):
    response = api.get(endpoint)
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert errors == {"subFestId": ["Send subFestId or subFestSlug."],
                      "subFestSlug": ["Send subFestId or subFestSlug."]}


@pytest.mark.parametrize("endpoint", SUB_FEST_LISTS)
def test_selectors_naming_different_sub_fests_are_the_404_of_an_unknown_one(api, fixture_data, sub_fests, endpoint):
    """No sub-fest has that id and that slug; a hidden sub-fest named by both of its own is
    not there either."""
    first, second = sub_fests
    hidden = hidden_sub_fest(fixture_data[BIG])
    unknown = api.get(endpoint, subFestSlug="no-such-sub-fest").get_json()
    for pair in ((first["id"], second["slug"]), (second["id"], first["slug"]), (hidden["id"], hidden["slug"]),
                 (first["id"], hidden["slug"]), (hidden["id"], first["slug"])):
        response = api.get(endpoint, subFestId=pair[0], subFestSlug=pair[1])
        assert response.status_code == 404, response.get_data(as_text=True)
        assert response.get_json() == unknown


@pytest.mark.parametrize("endpoint", SUB_FEST_LISTS)
def test_an_unknown_or_hidden_slug_is_the_one_404(api, fixture_data, endpoint):
    hidden = hidden_sub_fest(fixture_data[BIG])
    for slug in ("no-such-sub-fest", hidden["slug"]):
        response = api.get(endpoint, subFestSlug=slug)
        assert response.status_code == 404
        assert response.get_json()["message"] == "Sub-fest not found."


@pytest.mark.parametrize("endpoint", SUB_FEST_LISTS)
def test_openapi_documents_both_selectors(app, endpoint):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}{endpoint}"]["get"]["parameters"]}
    assert "subFestSlug" in params["subFestId"]["description"]
    assert "subFestId" in params["subFestSlug"]["description"]
    assert params["subFestSlug"]["schema"]["type"] == "string"
