"""Odd parameter values never cause a 500: every endpoint answers 200, 400 or 404, and every
error has the one JSON shape (docs/api-conventions.md: "Query parameters", "Errors").

The endpoints and their query parameters come from the OpenAPI document; each parameter
of each endpoint is tried with every value of ``ODD_VALUES`` (sent raw, so percent-escapes
such as ``%ff`` and ``%00`` reach the parser as they would from a browser), as a plain, a
bracket and a repeated key, with the endpoint's required parameters set to valid values.
"""
import pytest

from conftest import API, BIG
from fixture_rules import visible_programme_ids, visible_sub_fests
from schemas.candidates import PRIVATE_PARAMETERS

# Tried on every parameter.
ODD_VALUES = [
    "", "%20", "%09", "-1", "1.5", "99999999999999999999", "9" * 400, "x" * 10_000,
    "%00", "a%00b", "%0d%0a", "%ff", "%c3%28", "%ed%a0%80", "%E2%80%AE", "%F0%9F%98%80",
    ",", "a,b", "*", "%25", "%5C", "%22", "true", "NaN", "2026-13-45", "{uuid}",
]
# Tried on the parameters of one type or format as well.
TYPED_VALUES = {
    "integer": ["1e3", "0x10", "5_0", "%D9%A5", "%EF%BC%91", "-99999999999999999999", "inf", "+5", "1,2"],
    "boolean": ["TRUE", "yes", "null", "2", "true,false", ",,", "%2C"],
    "enum": ["asc", "DESC", "name", "id", "email", "admissionNumber", "dateOfBirth", "phone", "__class__"],
    "uuid": ["{UUID}", "{uuid_hex}", "%7B{uuid}%7D", "urn:uuid:{uuid}", "{uuid},{uuid}", "%20{uuid}%20",
             "{uuid}x", "00000000-0000-0000-0000-000000000000"],
    "date-time": ["2026-02-30", "2026-01-01", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00z",
                  "2026-01-01T10:00:00+05:30", "2026-01-01T10:00:00%2B05:30", "2026-01-01T10:00:00",
                  "2026-01-01T25:00:00Z", "0001-01-01T00:00:00%2B05:00", "9999-12-31T23:59:59-05:00", "9999-12-31",
                  "0001-01-01", "10000-01-01", "2026-01-01T10:00:00%2B99:00", "1700000000"],
}
FORMS = ("{name}={value}", "{name}[]={value}", "{name}={value}&{name}={value}", "{name}[0]={value}")


@pytest.fixture(scope="module")
def operations(app):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    found = {}
    for path, methods in spec["paths"].items():
        if "get" not in methods:
            continue
        parameters = [p for p in methods["get"].get("parameters", []) if p.get("in") == "query"]
        found[path[len(API):]] = parameters
    return found


@pytest.fixture(scope="module")
def valid(fixture_data):
    """A valid value for every required or selector parameter, from the bundled festival."""
    data = fixture_data[BIG]
    sub_fest = visible_sub_fests(data)[0]
    programme = sorted(visible_programme_ids(data))[0]
    candidate = next(c for c in data["subFestCandidates"] if c["sub_fest"] == sub_fest["id"])
    placeholder = next(p for p in data["topperPlaceholders"] if p["sub_fest"] == sub_fest["id"])
    page = next(p for p in data["websitePages"])
    return {"subFestId": sub_fest["id"], "subFestProgramId": programme, "subFestCandidateId": candidate["id"],
            "topperPlaceholderId": placeholder["id"], "pageSlug": page["slug"], "sinceRevision": "0"}


def kinds(parameter):
    schema = parameter["schema"]
    item = schema.get("items", schema)
    for alternative in item.get("oneOf", [item]):  # a date or a date-time
        yield alternative.get("type")
        yield alternative.get("format")
    if "enum" in item:
        yield "enum"


def odd_values(parameter, uuid):
    values = ODD_VALUES + [v for kind in kinds(parameter) for v in TYPED_VALUES.get(kind, [])]
    for value in values:
        yield value.format(uuid=uuid, UUID=uuid.upper(), uuid_hex=uuid.replace("-", ""))


def assert_answer(response, url):
    text = response.get_data(as_text=True)
    # /changes answers 409 to a sinceRevision above the festival's revision (docs/api-conventions.md).
    allowed = (200, 400, 404, 409) if "/changes?" in url else (200, 400, 404)
    assert response.status_code in allowed, (url[:300], response.status_code, text[:300])
    body = response.get_json(silent=True)
    assert isinstance(body, dict), (url[:300], text[:300])
    if response.status_code != 200:
        assert body["code"] == response.status_code, (url[:300], body)
        assert isinstance(body["status"], str) and isinstance(body["message"], str), (url[:300], body)
        if response.status_code == 400:
            assert isinstance(body.get("errors", {}), dict), (url[:300], body)


ENDPOINTS = ["/subfests", "/news", "/gallery", "/downloads", "/programmes", "/programme-detail", "/candidates",
             "/candidate-detail", "/teams", "/categories", "/filters", "/schedules", "/programme-results",
             "/programme-result", "/candidate-result", "/candidate-registrations", "/topper-placeholders",
             "/toppers", "/page-toppers", "/topper-race", "/changes"]


def test_every_endpoint_is_covered(operations):
    assert sorted(ENDPOINTS) == sorted(operations)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_odd_values_of_every_parameter_never_fail(keyed_app, keys, operations, valid, endpoint):
    client = keyed_app.test_client()
    headers = {"X-API-Key": keys[BIG]}
    parameters = operations[endpoint]
    # subFestId stands for the "subFestId or subFestSlug" selector pair
    required = {p["name"]: valid[p["name"]] for p in parameters if p.get("required") or p["name"] == "subFestId"}
    if endpoint == "/page-toppers":
        required["pageSlug"] = valid["pageSlug"]
    if any(p["name"] == "page" for p in parameters):
        # the last page allowed: the filters still run (for the total), the listing is empty
        required.update(page=1_000_000, limit=1)
    for parameter in parameters:
        name = parameter["name"]
        fixed = "&".join(f"{k}={v}" for k, v in required.items() if k != name)
        for value in odd_values(parameter, valid["subFestId"]):
            for form in FORMS if value in ("", "a,b", "%ff") else FORMS[:1]:
                url = f"{API}{endpoint}?{fixed}&{form.format(name=name, value=value)}"
                assert_answer(client.get(url, headers=headers), url)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_odd_parameter_names_are_ignored_or_rejected_cleanly(app, keys, valid, endpoint):
    client = app.test_client()
    headers = {"X-API-Key": keys[BIG]}
    fixed = f"subFestId={valid['subFestId']}&topperPlaceholderId={valid['topperPlaceholderId']}"
    for query in ("%ff=1", "=1", "&&&", "a%00=1", "page[]=1&page=2", "limit[x][y]=1", "search[a]=b", "x" * 5000 + "=1"):
        url = f"{API}{endpoint}?{fixed}&{query}"
        assert_answer(client.get(url, headers=headers), url)


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00%2B05:00", "9999-12-31T23:59:59-05:00",
                                   "2026-01-01T10:00:00", "2026-13-45"])
@pytest.mark.parametrize("name", ["scheduledAtFrom", "scheduledAtTo"])
def test_instants_outside_the_calendar_or_without_offset_are_400(api, name, value):
    response = api.client.get(f"{API}/schedules?{name}={value}", headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 400
    assert name in response.get_json()["errors"]["query"]


@pytest.mark.parametrize("value", ["2026-01-01T10:00:00z", "2026-01-01T10:00:00+00:00", "2026-01-01T15:30:00+05:30"])
def test_an_unencoded_plus_and_a_lower_case_z_are_understood(api, value):
    expected = api.ok("/schedules", scheduledAtFrom="2026-01-01T10:00:00Z")["meta"]["total"]
    response = api.client.get(f"{API}/schedules?scheduledAtFrom={value}", headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["meta"]["total"] == expected


@pytest.mark.parametrize("value", ["5_0", "%D9%A5", "%EF%BC%95", "1.0", "1e1", "0x5", "5a"])
@pytest.mark.parametrize("name", ["page", "limit"])
def test_page_and_limit_take_ascii_digits_only(api, name, value):
    response = api.client.get(f"{API}/news?{name}={value}", headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert name in response.get_json()["errors"]["query"]


@pytest.mark.parametrize("value, expected", [("7", 7), ("%207%20", 7), ("007", 7)])
def test_page_and_limit_in_plain_digits_work(api, value, expected):
    response = api.client.get(f"{API}/news?limit={value}", headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 200
    assert response.get_json()["meta"]["limit"] == expected


@pytest.mark.parametrize("endpoint, name", [
    ("/subfests", "search"), ("/news", "search"), ("/news", "tags"), ("/downloads", "search"),
    ("/downloads", "category"), ("/programmes", "search"), ("/programmes", "programCodePattern"),
    ("/candidates", "search"), ("/candidates", "chestNoPattern"), ("/candidates", "admNoPattern"),
    ("/teams", "search"), ("/categories", "search"), ("/filters", "subFestSlug"), ("/schedules", "subFestSlug"),
    ("/programme-result", "programCode"), ("/candidate-result", "chestNo"), ("/page-toppers", "pageSlug"),
])
def test_a_nul_character_in_text_is_400_on_every_engine(api, valid, endpoint, name):
    """PostgreSQL refuses NUL in a query argument; no stored value holds one anyway."""
    fixed = f"subFestId={valid['subFestId']}"
    response = api.client.get(f"{API}{endpoint}?{fixed}&{name}=a%00b", headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert name in response.get_json()["errors"]["query"]


def most_values(parameter, valid):
    """``maxItems`` distinct values of an array parameter, of the kind it takes."""
    schema = parameter["schema"]
    item = schema["items"]
    count = schema["maxItems"]
    if "enum" in item:
        return (item["enum"] * count)[:count]
    if item.get("type") == "boolean":
        return (["true", "false"] * count)[:count]
    if item.get("format") == "uuid":
        return [f"{n:08x}-0000-4000-8000-000000000000" for n in range(count)]
    return [f"a*b{n}" for n in range(count)]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_the_most_values_of_every_array_parameter_are_answered(api, operations, valid, endpoint):
    """As many values as ``maxItems`` allows (e.g. 100 search terms) make one flat SQL
    condition, not a hundred nested parentheses (SQLite's parser stops at about 100)."""
    parameters = operations[endpoint]
    # A filter on a private value is a 400 unless the festival turns it on
    # (tests/test_private_filters.py); on, it takes one value.
    arrays = [p for p in parameters if p["schema"].get("type") == "array" and p["name"] not in PRIVATE_PARAMETERS]
    for parameter in arrays:
        query = "&".join(f"{parameter['name']}={value}" for value in most_values(parameter, valid))
        own = {p["name"] for p in parameters}
        needed = "".join(f"{name}={value}&" for name, value in (("subFestId", valid["subFestId"]), ("sinceRevision", 0))
                         if name in own)
        response = api.client.get(f"{API}{endpoint}?{needed}{query}", headers={"X-API-Key": api.keys[BIG]})
        assert response.status_code == 200, (parameter["name"], response.get_data(as_text=True)[:300])


def uuid_parameters(operations):
    """``(endpoint, name)`` of every parameter that takes ids, scalar or array."""
    for endpoint, parameters in sorted(operations.items()):
        for parameter in parameters:
            schema = parameter["schema"]
            if schema.get("items", schema).get("format") == "uuid":
                yield endpoint, parameter["name"]


@pytest.mark.parametrize("form", ["{{{uuid}}}", "{uuid_hex}", "urn:uuid:{uuid}", "{uuid_hex_upper}"])
def test_only_the_canonical_uuid_form_is_accepted(api, operations, valid, form):
    """8-4-4-4-12 hex digits, nothing else: ``{...}``, ``urn:uuid:`` and dash-less ids are a 400."""
    uuid = valid["subFestId"]
    value = form.format(uuid=uuid, uuid_hex=uuid.replace("-", ""), uuid_hex_upper=uuid.replace("-", "").upper())
    checked = 0
    for endpoint, name in uuid_parameters(operations):
        fixed = "" if name == "subFestId" else sub_fest_query(operations, endpoint, uuid)
        response = api.client.get(f"{API}{endpoint}?{fixed}{name}={value}", headers={"X-API-Key": api.keys[BIG]})
        assert response.status_code == 400, (endpoint, name, response.status_code)
        assert name in response.get_json()["errors"]["query"], (endpoint, name)
        checked += 1
    assert checked > 25


def test_an_upper_case_canonical_uuid_is_accepted(api, valid):
    uuid = valid["subFestId"]
    assert api.ok("/teams", subFestId=uuid.upper()) == api.ok("/teams", subFestId=uuid)


def sub_fest_query(operations, endpoint, sub_fest_id):
    """``subFestId=...&`` where ``endpoint`` takes it (another endpoint's parameter is a 400)."""
    return f"subFestId={sub_fest_id}&" if any(p["name"] == "subFestId" for p in operations[endpoint]) else ""


def array_parameters(operations):
    for endpoint, parameters in sorted(operations.items()):
        for parameter in parameters:
            if parameter["schema"].get("type") == "array":
                yield endpoint, parameter["name"]


@pytest.mark.parametrize("query", ["{name}=", "{name}=%20", "{name}[]=", "{name}=&{name}=&{name}=",
                                   "&".join(["{name}="] * 101)])
def test_an_empty_value_of_an_array_parameter_is_400(api, operations, valid, query):
    """An empty value is an invalid value, not an absent one (it would slip past maxItems)."""
    checked = 0
    for endpoint, name in array_parameters(operations):
        url = f"{API}{endpoint}?{sub_fest_query(operations, endpoint, valid['subFestId'])}{query.format(name=name)}"
        response = api.client.get(url, headers={"X-API-Key": api.keys[BIG]})
        assert response.status_code == 400, (endpoint, name, response.status_code)
        assert name in response.get_json()["errors"]["query"], (endpoint, name)
        checked += 1
    assert checked >= 32


@pytest.mark.parametrize("endpoint, query", [
    ("/news", "status=published,"), ("/news", "tags=a,,b"), ("/news", "tags=,"), ("/programmes", "statuses=%20,draft"),
])
def test_an_empty_item_in_a_comma_list_is_400(api, operations, valid, endpoint, query):
    url = f"{API}{endpoint}?{sub_fest_query(operations, endpoint, valid['subFestId'])}{query}"
    response = api.client.get(url, headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 400
    assert query.split("=")[0] in response.get_json()["errors"]["query"]


def test_errors_query_is_a_list_of_strings_for_a_value_and_for_an_array_s_items(api, valid):
    response = api.get("/programmes", subFestId=valid["subFestId"], limit="0",
                       categoryIds=f"{valid['subFestId']},not-an-id")
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert errors["limit"] == ["Must be greater than or equal to 1 and less than or equal to 500."]
    assert errors["categoryIds"] == ["Item 2: Not a valid UUID."]


@pytest.mark.parametrize("sent, meant", [("DESC", "desc"), ("Desc", "desc"), ("PUBLISHEDAT", "publishedAt")])
def test_enum_values_are_taken_in_any_letter_case(api, sent, meant):
    query = {"sortBy": "publishedAt", "sortOrder": "desc"}
    expected = api.ok("/news", **query)
    assert api.ok("/news", **{**query, ("sortOrder" if meant == "desc" else "sortBy"): sent}) == expected
