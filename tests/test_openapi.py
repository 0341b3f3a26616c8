"""The OpenAPI document and the interactive docs: no key, no internet."""
import json
import os
import re
from pathlib import Path

import pytest
from openapi_schema_validator import OAS31Validator, oas31_format_checker

from app.views import BLUEPRINTS
from conftest import API, BIG
from schemas import enums
from schemas import examples as ex
from schemas.candidates import PRIVATE_PARAMETERS


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
        "/page-toppers": "getPageToppers", "/topper-race": "getTopperRace", "/changes": "listChanges"},
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
    may be null has ``null`` among its types; an object or an enum that may be null is ``anyOf`` its named
    schema or null, which validators and client generators read alike."""
    for name, schema in spec["components"]["schemas"].items():
        if "properties" not in schema:
            continue
        optional = set(schema["properties"]) - set(schema.get("required", []))
        assert optional == ({"errors"} if name == "Error" else set()), name
        for prop, field in schema["properties"].items():
            if isinstance(field.get("type"), list):
                kind, null = field["type"]
                assert kind in ("string", "integer", "number", "boolean", "array") and null == "null", (name, prop)
                assert "enum" not in field, (name, prop)
            if "anyOf" in field:
                value, null = field["anyOf"]
                assert "$ref" in value and null == {"type": "null"}, (name, prop)


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


# --- What every generator needs: examples, descriptions, the 304, the headers, enums, nulls --------

EXAMPLES_FILE = Path(__file__).resolve().parent.parent / "app" / "views" / "openapi_examples.json"

# The request whose answer is each operation's example ("blueprint.view": path, parameters):
# the bundled Kalolsavam (schemas/examples.py), short pages, nested lists cut to two items.
EXAMPLE_REQUESTS = {
    "subfests.subfests": ("/subfests", {"limit": 2}),
    "news.news": ("/news", {"limit": 1}),
    "gallery.gallery": ("/gallery", {"limit": 1}),
    "downloads.downloads": ("/downloads", {"limit": 1}),
    "programmes.programmes": ("/programmes", {"subFestSlug": ex.SUB_FEST_SLUG, "hasResults": "true", "limit": 1}),
    "programmes.programme_detail": ("/programme-detail", {"programCode": ex.PROGRAMME_CODE,
                                                          "subFestSlug": ex.SUB_FEST_SLUG}),
    "candidates.candidates": ("/candidates", {"subFestSlug": ex.SUB_FEST_SLUG, "limit": 1}),
    "candidates.candidate_detail": ("/candidate-detail", {"chestNo": ex.CHEST_NO, "subFestSlug": ex.SUB_FEST_SLUG}),
    "teams.teams": ("/teams", {"subFestSlug": ex.SUB_FEST_SLUG, "limit": 2}),
    "categories.categories": ("/categories", {"subFestSlug": ex.SUB_FEST_SLUG, "limit": 2}),
    "filters.filters": ("/filters", {"subFestSlug": ex.SUB_FEST_SLUG}),
    "schedules.schedules": ("/schedules", {"subFestSlug": ex.SUB_FEST_SLUG, "limit": 1}),
    "results.programme_results_list": ("/programme-results", {
        "subFestSlug": ex.SUB_FEST_SLUG, "hasResults": "true", "sortBy": "publishedAt", "sortOrder": "desc",
        "limit": 1}),
    "results.programme_result": ("/programme-result", {"programCode": ex.PROGRAMME_CODE,
                                                       "subFestSlug": ex.SUB_FEST_SLUG}),
    "results.candidate_result": ("/candidate-result", {"chestNo": ex.CHEST_NO, "subFestSlug": ex.SUB_FEST_SLUG}),
    "registrations.candidate_registrations": ("/candidate-registrations", {"subFestCandidateId": ex.CANDIDATE_ID,
                                                                           "limit": 2}),
    "toppers.topper_placeholders": ("/topper-placeholders", {"subFestSlug": ex.SUB_FEST_SLUG, "limit": 1}),
    "toppers.toppers": ("/toppers", {"topperPlaceholderId": ex.TOPPER_PLACEHOLDER_ID, "limit": 3}),
    "toppers.page_toppers": ("/page-toppers", {"pageSlug": ex.PAGE_SLUG}),
    "toppers.topper_race": ("/topper-race", {"topperPlaceholderId": ex.TOPPER_PLACEHOLDER_ID, "top": 3, "limit": 2}),
    "changes.changes": ("/changes", {"sinceRevision": 0, "limit": 2}),
}


# Fields that hold the moment the test database was imported, not a moment of the festival:
# the examples show one result-day moment instead, so that writing them anew changes nothing.
IMPORT_MOMENTS = {"changedAt", "lastComputedAt"}
RESULT_DAY_MOMENT = "2026-01-17T12:30:00Z"


def shortened(value):
    """``value`` with every list cut to its first two items (and import moments fixed)."""
    if isinstance(value, list):
        return [shortened(item) for item in value[:2]]
    if isinstance(value, dict):
        return {key: RESULT_DAY_MOMENT if key in IMPORT_MOMENTS and item else shortened(item)
                for key, item in value.items()}
    return value


def test_the_answer_examples_are_answers_of_the_bundled_festival(client, keys, app):
    """Each operation's example is the answer to its request in EXAMPLE_REQUESTS.
    ``UPDATE_OPENAPI_EXAMPLES=1 pytest tests/test_openapi.py -k answer_examples`` writes them
    anew (after a change of an answer's shape)."""
    endpoints = {rule.rule[len(API):]: rule.endpoint for rule in app.url_map.iter_rules()
                 if rule.rule.startswith(API) and rule.endpoint.split(".")[0] in {blp.name for blp in BLUEPRINTS}}
    assert set(EXAMPLE_REQUESTS) == set(endpoints.values())
    answers = {}
    for endpoint, (path, params) in EXAMPLE_REQUESTS.items():
        assert endpoints[path] == endpoint
        response = client.get(f"{API}{path}", query_string=params, headers={"X-API-Key": keys[BIG]})
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
        answers[endpoint] = shortened(response.get_json())
    if os.environ.get("UPDATE_OPENAPI_EXAMPLES"):
        EXAMPLES_FILE.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    stored = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    assert set(stored) == set(answers)


def resolved(spec, item):
    """``item``, or the component its ``$ref`` names."""
    while "$ref" in item:
        kind, name = item["$ref"].split("/")[-2:]
        item = spec["components"][kind][name]
    return item


def schema_validator(spec, schema):
    return OAS31Validator({**schema, "components": spec["components"]}, format_checker=oas31_format_checker)


def every_parameter(spec):
    """The parameters of every operation, its path's own (``If-None-Match``) too."""
    for path, item in spec["paths"].items():
        for parameter in [*item.get("parameters", ()), *item["get"]["parameters"]]:
            yield path[len(API):], resolved(spec, parameter)


def test_every_parameter_has_an_example_valid_for_it(spec):
    missing = [(path, p["name"]) for path, p in every_parameter(spec) if "example" not in p]
    assert missing == []
    invalid = [(path, p["name"], error.message) for path, p in every_parameter(spec)
               for error in schema_validator(spec, p["schema"]).iter_errors(p["example"])]
    assert invalid == []


def test_every_operation_answers_its_parameters_examples_sent_together(client, keys, spec):
    """The examples name records of the bundled Kalolsavam that exist together (but a filter
    on a private value, a 400 unless the festival turns it on: tests/test_private_filters.py)."""
    for path, op in operations(spec).items():
        params = {p["name"]: p["example"] for p in op["parameters"]
                  if p["in"] == "query" and p["name"] not in PRIVATE_PARAMETERS}
        response = client.get(f"{API}{path}", query_string=params, headers={"X-API-Key": keys[BIG]})
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])


def every_response(spec):
    for path, op in operations(spec).items():
        for status, response in op["responses"].items():
            yield path, status, resolved(spec, response)


def test_every_answer_has_an_example_valid_for_its_schema(spec):
    checked = 0
    for path, status, response in every_response(spec):
        for media in response.get("content", {}).values():
            assert "example" in media, (path, status)
            errors = list(schema_validator(spec, media["schema"]).iter_errors(media["example"]))
            assert errors == [], (path, status, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                                                 for e in errors[:5]],
                                  "UPDATE_OPENAPI_EXAMPLES=1 pytest tests/test_openapi.py -k answer_examples")
            checked += 1
    assert checked >= 20 * 6


def test_every_operation_has_a_description(spec):
    assert [path for path, op in operations(spec).items() if not op.get("description", "").strip()] == []
    assert all(op["summary"] not in op["description"] for op in operations(spec).values())


ANSWER_HEADERS = {"ETag", "X-Data-Revision", "Cache-Control", "X-RateLimit-Limit", "X-RateLimit-Remaining",
                  "X-RateLimit-Reset", "Server-Timing"}
# an error of a known key: what a 200 has but its validator (tests/test_error_headers_documented.py sends them)
KNOWN_KEY_ERROR_HEADERS = ANSWER_HEADERS - {"ETag"}


@pytest.mark.parametrize("status, headers", [
    ("200", ANSWER_HEADERS),
    ("304", ANSWER_HEADERS),
    ("429", KNOWN_KEY_ERROR_HEADERS | {"Retry-After"}),
    ("400", KNOWN_KEY_ERROR_HEADERS),
    ("401", {"Cache-Control", "Server-Timing"}),
    ("404", KNOWN_KEY_ERROR_HEADERS),
    ("503", {"Cache-Control", "Server-Timing"}),
])
def test_every_get_declares_its_headers(spec, status, headers):
    for path, op in operations(spec).items():
        response = resolved(spec, op["responses"][status])
        assert set(response.get("headers", {})) == headers, (path, status)
        for name, header in response["headers"].items():
            header = resolved(spec, header)
            assert header["description"] and "example" in header, (name, header)
            assert not list(schema_validator(spec, header["schema"]).iter_errors(header["example"])), name


def test_every_get_declares_the_revalidation_and_the_festival_url(spec):
    for path, op in operations(spec).items():
        not_modified = resolved(spec, op["responses"]["304"])
        assert "content" not in not_modified and "If-None-Match" in not_modified["description"], path
    for path, item in spec["paths"].items():
        assert [(p["in"], p["name"]) for p in item["parameters"]] == [("query", "festival"),
                                                                      ("header", "If-None-Match")], path
        assert not item["parameters"][0]["required"], path
        assert all(p["in"] == "query" for p in item["get"]["parameters"]), path


@pytest.mark.parametrize("status", ["400", "401", "403", "404", "429", "503"])
def test_every_error_answer_is_declared_with_the_error_schema(spec, status):
    for path, op in operations(spec).items():
        media = resolved(spec, op["responses"][status])["content"]["application/json"]
        assert media["schema"] == {"$ref": "#/components/schemas/Error"}, (path, status)
        assert media["example"]["code"] == int(status)


def test_the_server_is_the_host_the_paths_name_the_prefix(spec):
    assert [server["url"] for server in spec["servers"]] == ["/"]
    assert all(path.startswith(f"{API}/") for path in spec["paths"])


# Every field whose values are a closed set, and the set (schemas/enums.py).
CLOSED_SETS = [
    ("ProgrammeSummary", "status", enums.SUB_FEST_PROGRAMME_STATUSES),
    ("ProgramRef", "programType", enums.PROGRAM_TYPES),
    ("CandidateIdentity", "gender", enums.GENDERS),
    ("ResultCandidate", "gender", enums.GENDERS),
    ("TopperPlaceholderOption", "scopeType", enums.TOPPER_SCOPE_TYPES),
    ("TopperPlaceholderOption", "entityType", enums.TOPPER_ENTITY_TYPES),
    ("TopperPlaceholderOption", "rankingBasis", enums.RANKING_BASES),
    ("TopperOptions", "entityTypes", enums.TOPPER_ENTITY_TYPES),
    ("TopperOptions", "scopeTypes", enums.TOPPER_SCOPE_TYPES),
    ("Registration", "type", enums.REGISTRATION_TYPES),
    ("Registration", "topicStatus", enums.TOPIC_STATUSES),
    ("Change", "kind", enums.CHANGE_KINDS),
    ("Change", "action", enums.CHANGE_ACTIONS),
    ("TopperPlaceholder", "scopeType", enums.TOPPER_SCOPE_TYPES),
    ("TopperPlaceholder", "entityType", enums.TOPPER_ENTITY_TYPES),
]


def enum_of(spec, schema):
    """The values a property may take (of its items, for a list), null left out."""
    schema = resolved(spec, schema)
    if "anyOf" in schema:
        return [value for option in schema["anyOf"] for value in enum_of(spec, option) or ()]
    if schema.get("type") == "array":
        return enum_of(spec, schema["items"])
    return schema.get("enum")


@pytest.mark.parametrize("schema, prop, values", CLOSED_SETS)
def test_every_closed_set_is_an_enum(spec, schema, prop, values):
    assert enum_of(spec, spec["components"]["schemas"][schema]["properties"][prop]) == list(values)


def test_a_nullable_reference_is_any_of_the_reference_or_null(spec):
    """The one form openapi-typescript, orval, @hey-api/openapi-ts and openapi-python-client all
    read as ``X | null`` (tests/test_typescript_client.py compiles what the first and the third
    make of it)."""
    found = 0
    for name, schema in spec["components"]["schemas"].items():
        for prop, field in schema.get("properties", {}).items():
            if "anyOf" in field:
                assert len(field["anyOf"]) == 2 and "$ref" in field["anyOf"][0], (name, prop)
                assert field["anyOf"][1] == {"type": "null"}, (name, prop)
                found += 1
            assert "nullable" not in field, (name, prop)
    assert found >= 34


def test_the_document_is_made_on_first_use_and_whole_for_every_first_reader(seeded):
    """An app documents its operations when the document is first asked for, not when it is
    made; readers asking at once each get the whole document, the same one."""
    from concurrent.futures import ThreadPoolExecutor

    from app import create_app

    made = create_app({"DATABASE_URL": seeded[0]})
    api = made.extensions["festival_api"]
    assert api._undocumented and not api._spec._paths  # nothing documented yet
    client_of = lambda _: made.test_client().get(f"{API}/openapi.json")  # noqa: E731
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(client_of, range(8)))
    assert {answer.status_code for answer in answers} == {200}
    assert len({answer.data for answer in answers}) == 1
    document = answers[0].get_json()
    assert len(document["paths"]) == len({path for blp in BLUEPRINTS for path in _routes_of(made, blp)})
    assert not api._undocumented


def _routes_of(made, blp):
    return [rule.rule for rule in made.url_map.iter_rules() if rule.endpoint.startswith(f"{blp.name}.")]
