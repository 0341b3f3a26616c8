"""The OpenAPI document and the interactive docs: no key, no internet."""
import re

import pytest

from conftest import API


@pytest.fixture(scope="module")
def spec(app):
    response = app.test_client().get(f"{API}/openapi.json")
    assert response.status_code == 200
    return response.get_json()


def query_params(spec, path):
    return {p["name"]: p for p in spec["paths"][f"{API}{path}"]["get"]["parameters"]
            if p["in"] == "query"}


def test_a_result_is_of_an_individual_a_group_or_a_team(spec):
    fields = spec["components"]["schemas"]["EntryResult"]["properties"]
    assert fields["participantType"]["enum"] == ["individual", "group", "team"]
    assert "team" in fields["candidate"]["description"] and "team" in fields["members"]["description"]


@pytest.mark.parametrize("path, names", [
    ("/news", {"page", "limit", "sortBy", "sortOrder", "search", "status", "isPublic", "tags",
               "hasThumbnail", "hasFeatureImage"}),
    ("/downloads", {"page", "limit", "sortBy", "sortOrder", "search", "category", "isPublic"}),
    ("/gallery", {"page", "limit", "sortBy", "sortOrder", "albumId", "subFestProgramId", "categoryId"}),
    ("/subfests", {"page", "limit", "sortBy", "sortOrder", "search"}),
])
def test_every_parameter_is_documented(spec, path, names):
    assert set(query_params(spec, path)) == names


def test_sort_fields_and_enums_are_listed(spec):
    params = query_params(spec, "/news")
    assert set(params["sortBy"]["schema"]["enum"]) == {"publishedAt", "createdAt", "updatedAt", "title"}
    assert params["sortOrder"]["schema"]["enum"] == ["asc", "desc"]
    assert set(params["status"]["schema"]["items"]["enum"]) == {"draft", "published", "archived"}
    assert params["limit"]["schema"]["maximum"] == 500


def test_every_endpoint_documents_its_errors_and_needs_the_key(spec):
    assert spec["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    assert spec["security"] == [{"ApiKey": []}]
    for path, item in spec["paths"].items():
        responses = item["get"]["responses"]
        assert {"200", "400", "401", "404", "429"} <= set(responses), path
        assert "422" not in responses, path


def test_docs_page_uses_local_assets_only(client):
    response = client.get(f"{API}/docs")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    external = re.findall(r'(?:src|href)="(https?://[^"]+)"', html)
    assert external == []
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html)
    assert assets
    for asset in assets:
        assert client.get(asset).status_code == 200, asset


@pytest.mark.parametrize("name", ["scheduledAtFrom", "scheduledAtTo"])
def test_instants_are_declared_as_a_date_or_a_date_time(app, name):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}/schedules"]["get"]["parameters"]}
    assert params[name]["schema"] == {"oneOf": [{"type": "string", "format": "date"},
                                                {"type": "string", "format": "date-time"}]}


# The contract's endpoint groups, and the name each operation has in a generated client.
GROUPS = {
    "Public content": {"/news": "listNews", "/gallery": "listGallery", "/downloads": "listDownloads"},
    "Festival structure": {
        "/subfests": "listSubFests", "/programmes": "listProgrammes", "/candidates": "listCandidates",
        "/teams": "listTeams", "/categories": "listCategories", "/filters": "getFilterOptions"},
    "Schedules and results": {
        "/schedules": "listSchedules", "/programme-detail": "getProgrammeDetail",
        "/programme-result": "getProgrammeResult", "/programme-results": "listProgrammeResults",
        "/candidate-detail": "getCandidateDetail", "/candidate-result": "getCandidateResult",
        "/candidate-registrations": "listCandidateRegistrations",
        "/topper-placeholders": "listTopperPlaceholders", "/toppers": "listToppers",
        "/page-toppers": "getPageToppers", "/changes": "listChanges"},
}


def operations(spec):
    return {path[len(API):]: item["get"] for path, item in spec["paths"].items()}


def test_every_operation_has_a_readable_id_and_its_endpoint_group_as_tag(spec):
    expected = {path: (group, name) for group, names in GROUPS.items() for path, name in names.items()}
    assert {path: (op["tags"][0], op.get("operationId")) for path, op in operations(spec).items()} == expected
    assert all(len(op["tags"]) == 1 for op in operations(spec).values())
    assert [tag["name"] for tag in spec["tags"]] == list(GROUPS)
    assert all(tag["description"] for tag in spec["tags"])


def test_every_operation_declares_the_key_itself(spec):
    scheme = spec["components"]["securitySchemes"]["ApiKey"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "X-API-Key")
    assert "401" in scheme["description"]
    for path, op in operations(spec).items():
        assert op["security"] == [{"ApiKey": []}], path


def test_every_parameter_has_a_description(spec):
    missing = [(path, p["name"]) for path, op in operations(spec).items() for p in op["parameters"]
               if not p.get("description", "").strip()]
    assert missing == []


def test_the_envelope_paging_and_errors_are_described(spec):
    schemas = spec["components"]["schemas"]
    for name in ("Meta", "Context", "Freshness", "Error", "ProgrammeList"):
        assert schemas[name].get("description"), name
        undescribed = [prop for prop, schema in schemas[name]["properties"].items() if not schema.get("description")]
        assert undescribed == [], name
    info = spec["info"]["description"]
    for words in ("X-API-Key", '"data"', '"meta"', '"context"', '"message"', "401", "404", "If-None-Match",
                  "/changes?sinceRevision="):
        assert words in info, words


def test_every_answer_field_is_required_and_only_nullable_ones_may_be_null(spec):
    """Answers always carry every field (null where allowed), so each is required. A scalar or a list that
    may be null is ``nullable``; an object or an enum that may be null is ``anyOf`` its named
    schema or null, which validators and client generators read alike."""
    for name, schema in spec["components"]["schemas"].items():
        if "properties" not in schema:
            continue
        optional = set(schema["properties"]) - set(schema.get("required", []))
        assert optional == ({"errors"} if name == "Error" else set()), name
        for prop, field in schema["properties"].items():
            if field.get("nullable"):
                assert field["type"] in ("string", "integer", "number", "boolean", "array") and "enum" not in field, (name, prop)
            if "anyOf" in field:
                value, null = field["anyOf"]
                assert "$ref" in value and null["nullable"] and null["enum"] == [None], (name, prop)


@pytest.mark.parametrize("schema, prop, nullable", [
    ("EntryResult", "participantName", False),  # every result shown has a visible participant
    ("Programme", "category", True),  # set only when the category is public
    ("Registration", "topicStatus", True),
    ("Context", "subFest", True),
    ("Freshness", "revision", False),
])
def test_null_is_declared_where_it_can_come(spec, schema, prop, nullable):
    assert ("anyOf" in spec["components"]["schemas"][schema]["properties"][prop]) == nullable


def test_docs_page_has_an_icon_and_a_description(client):
    html = client.get(f"{API}/docs").get_data(as_text=True)
    icons = re.findall(r'<link rel="icon"[^>]* href="([^"]+)"', html)
    assert icons
    for icon in icons:
        answer = client.get(icon)
        assert answer.status_code == 200 and answer.mimetype == "image/png", icon
    description = re.search(r'<meta name="description" content="([^"]+)"', html)[1]
    assert "X-API-Key" in description and "error" in description
