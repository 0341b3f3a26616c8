"""Typos answered: a parameter name that is not the endpoint's but equal to one of its
parameters ignoring case, or a small edit distance from one, is a 400 naming the parameter
meant; other unknown names (cache-busters) are still ignored (docs/api-conventions.md).

The endpoints and their parameters come from the OpenAPI document."""
import marshmallow as ma
import pytest

import app.views.operations
from app.views.typos import meant
from conftest import API, BIG
from fixture_rules import visible_programme_ids, visible_sub_fests

CACHE_BUSTERS = "_=1712345&t=1712345&v=2&cb=x&ts=1&_t=9&r=0.51&rand=4&nocache=1&cachebust=3&callback=cb"


@pytest.fixture(scope="module")
def operations(app):
    """``{endpoint: [its query parameters, as the OpenAPI document gives them]}``."""
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    return {path[len(API):]: [p for p in methods["get"].get("parameters", []) if p.get("in") == "query"]
            for path, methods in spec["paths"].items() if "get" in methods}


@pytest.fixture(scope="module")
def selectors(fixture_data):
    """A value for each parameter an endpoint needs to answer 200, from the bundled festival."""
    data = fixture_data[BIG]
    sub_fest = visible_sub_fests(data)[0]
    visible = visible_programme_ids(data)
    programme = sorted(p["id"] for p in data["subFestProgrammes"]
                       if p["sub_fest"] == sub_fest["id"] and p["id"] in visible)[0]
    candidate = next(c for c in data["subFestCandidates"] if c["sub_fest"] == sub_fest["id"])
    placeholder = next(p for p in data["topperPlaceholders"] if p["sub_fest"] == sub_fest["id"])
    return {"subFestId": sub_fest["id"], "subFestSlug": sub_fest["slug"], "subFestProgramId": programme, "subFestCandidateId": candidate["id"],
            "topperPlaceholderId": placeholder["id"], "pageSlug": data["websitePages"][0]["slug"],
            "pageId": data["websitePages"][0]["id"],
            "sinceRevision": "0"}


def needed(endpoint, parameters, selectors):
    """The query an endpoint answers 200 to: its required parameters and its selectors."""
    names = {p["name"] for p in parameters}
    query = {p["name"]: selectors[p["name"]] for p in parameters if p.get("required")}
    for name in ("subFestId", "subFestProgramId", "subFestCandidateId", "topperPlaceholderId"):
        if name in names:
            query[name] = selectors[name]
    if endpoint == "/page-toppers":
        query["pageSlug"] = selectors["pageSlug"]
    return query


def typos(name):
    """Ways to get ``name`` wrong: its case, a letter dropped, doubled or swapped, a plural."""
    middle = len(name) // 2
    yield name.lower()
    yield name.upper()
    yield name[:middle] + name[middle + 1:]
    yield name[:middle] + name[middle] + name[middle:]
    yield name[:middle - 1] + name[middle] + name[middle - 1] + name[middle + 1:]
    yield name[:-1] if name.endswith("s") else name + "s"


ENDPOINTS = ["/subfests", "/news", "/gallery", "/downloads", "/programmes", "/programme-detail", "/candidates",
             "/candidate-detail", "/teams", "/categories", "/filters", "/schedules", "/programme-results",
             "/programme-result", "/candidate-result", "/candidate-registrations", "/topper-placeholders",
             "/toppers", "/topper-race", "/page-toppers", "/changes"]


def test_every_endpoint_is_covered(operations):
    assert sorted(ENDPOINTS) == sorted(operations)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_typo_of_any_parameter_is_a_400_naming_the_parameter(api, operations, selectors, endpoint):
    parameters = operations[endpoint]
    names = [p["name"] for p in parameters]
    query = needed(endpoint, parameters, selectors)
    tried = 0
    for name in names:
        for typo in set(typos(name)) - set(names):
            response = api.get(endpoint, **query, **{typo: "true"})
            body = response.get_json()
            assert response.status_code == 400, (endpoint, typo, body)
            assert body["code"] == 400 and body["status"] == "Bad Request" and body["message"], body
            [message] = body["errors"]["query"].pop(typo)
            assert body["errors"]["query"] == {}, (endpoint, typo, body)  # the typo alone
            assert message.startswith("Unknown parameter: did you mean ") and name in message, (typo, message)
            tried += 1
    assert tried >= len(names) * 3


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_cache_busters_are_still_ignored(api, operations, selectors, endpoint):
    query = needed(endpoint, operations[endpoint], selectors)
    plain = api.get(endpoint, **query)
    assert plain.status_code == 200, (endpoint, plain.get_json())
    busted = api.client.get(f"{API}{endpoint}", query_string=query | dict(
        pair.split("=") for pair in CACHE_BUSTERS.split("&")), headers={"X-API-Key": api.keys[BIG]})
    assert busted.status_code == 200 and busted.get_json() == plain.get_json()


def value_for(parameter, selectors):
    """A well-formed value of ``parameter``: its example, else one of its type."""
    schema = parameter["schema"]
    item = schema.get("items", schema)
    if "example" in parameter or "example" in schema:
        value = parameter.get("example", schema.get("example"))
        return ",".join(map(str, value)) if isinstance(value, list) else str(value).lower() \
            if isinstance(value, bool) else str(value)
    if parameter["name"] in selectors:
        return selectors[parameter["name"]]
    if "enum" in item:
        return item["enum"][0]
    kind = next((alternative.get("format") or alternative.get("type")
                 for alternative in item.get("oneOf", [item])), None)
    return {"boolean": "true", "integer": str(max(item.get("minimum", 1), 1)), "uuid": selectors["subFestId"],
            "date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01"}.get(kind, "a")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_real_parameter_is_taken_not_mistaken_for_a_typo(api, operations, selectors, endpoint):
    parameters = operations[endpoint]
    query = needed(endpoint, parameters, selectors)
    statuses = []
    for parameter in parameters:
        response = api.get(endpoint, **{**query, parameter["name"]: value_for(parameter, selectors)})
        assert "Unknown parameter" not in response.get_data(as_text=True), (endpoint, parameter["name"])
        assert response.status_code in (200, 400, 404), (endpoint, parameter["name"], response.get_json())
        statuses.append(response.status_code)
    assert statuses.count(200) >= len(parameters) / 2, (endpoint, statuses)


@pytest.mark.parametrize("name, parameters, found", [
    ("hasresults", ["hasResults", "hasJudges"], ["hasResults"]),
    ("HASRESULTS", ["hasResults"], ["hasResults"]),
    ("hasResutls", ["hasResults"], ["hasResults"]),  # two neighbours swapped: one edit
    ("hasResult", ["hasResults"], ["hasResults"]),
    ("hsResult", ["hasResults"], ["hasResults"]),  # two edits from a long name
    ("hsReslt", ["hasResults"], []),  # three
    ("limt", ["limit", "page"], ["limit"]),
    ("pag", ["limit", "page"], ["page"]),
    ("pa", ["page"], []),  # two edits from a short name
    ("page", ["pageId"], []),  # another word, not a typo
    ("sort", ["sortBy"], []),
    ("categoryId", ["categoryIds", "category"], ["categoryIds"]),
    ("statu", ["status", "statuses"], ["status"]),
    ("tems", ["tags", "teams"], ["teams"]),
    ("tas", ["tags", "taps"], ["tags", "taps"]),  # equally near: both named
    *[(buster, ["page", "limit", "sortBy", "sortOrder", "search", "tags", "subFestId"], [])
      for buster in ("_", "t", "v", "cb", "ts", "_t", "r", "rand", "nocache", "cachebust", "callback", "time",
                     "timestamp", "nonce", "q", "id", "fbclid", "utm_source")],
])
def test_which_names_are_typos(name, parameters, found):
    assert meant(name, parameters) == found


def test_an_unknown_name_is_looked_at_once_per_endpoint(monkeypatch):
    from schemas.downloads import DownloadQueryArgsSchema

    asked = []
    monkeypatch.setattr(app.views.operations, "meant", lambda name, parameters: asked.append(name) or meant(name, parameters))
    plan = app.views.operations.ArgumentPlan(DownloadQueryArgsSchema())
    for turn in range(5):
        assert plan.load([("_", str(turn)), ("limit", "5")])["limit"] == 5
        with pytest.raises(ma.ValidationError) as error:
            plan.load([("LIMIT", "5"), ("_", str(turn))])
        assert error.value.messages == {"LIMIT": ["Unknown parameter: did you mean limit?"]}
    assert sorted(asked) == ["LIMIT", "_"]
    assert plan.load([("limit", "5")])["limit"] == 5 and len(asked) == 2  # known names are never asked about


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_parameter_of_another_endpoint_is_a_400_naming_the_endpoints_that_take_it(
        api, operations, selectors, endpoint):
    own = {p["name"] for p in operations[endpoint]}
    others = {}
    for other, parameters in operations.items():
        for parameter in parameters:
            if parameter["name"] not in own:
                others.setdefault(parameter["name"], []).append(other)
    assert others, endpoint
    query = needed(endpoint, operations[endpoint], selectors)
    for name, endpoints in sorted(others.items()):
        response = api.get(endpoint, **{**query, name: "x"})
        assert response.status_code == 400, (endpoint, name, response.get_json())
        message = response.get_json()["errors"]["query"][name][0]
        if message.startswith("Unknown parameter: did you mean"):
            continue  # near one of the endpoint's own names: the typo answer wins
        named = ", ".join(sorted(endpoints)[:3]) + (f" and {len(endpoints) - 3} more" if len(endpoints) > 3 else "")
        assert message == f"Not a parameter of {endpoint}: it is one of {named}.", message
