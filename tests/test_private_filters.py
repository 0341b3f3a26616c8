"""A private value confirms nothing (docs/api-conventions.md, "Private values").

A visitor holds the festival's key (it is in every festival website's JavaScript) and
tries every admission number of the bundled festivals, and some that do not exist, through
every query parameter of every endpoint of the OpenAPI document: with the festival's
default settings every answer is the same whether the guess is right or wrong. Where a
festival turns ``admNoPattern`` on: one value a request, a budget of its own shared
through Redis, and answers no cache keeps.
"""
import json

import pytest

from app.door.access_log import ACCESS_LOGGER
from conftest import API, BIG, SMALL, ApiClient
from custom_apps import app_with  # noqa: F401  (fixture)
from schemas.candidates import ADM_NO_OFF_MESSAGE
from structure_rules import Festival
from test_access_log import capture_log  # noqa: F401  (fixture)
from test_rate_limit import REDIS_WAIT, redis_prefix  # noqa: F401  (redis_prefix: a fixture)
from wsgi_call import WsgiGetter

# Guesses of the same shape that no candidate has.
WRONG = {BIG: [f"ADM-2026-{n:04d}" for n in range(413, 440)] + ["ADM-2026-9999", "adm-2026-0000"],
         SMALL: [f"ADM-RC-2026-{n:04d}" for n in range(53, 70)] + ["ADM-RC-2026-9999"]}


def admission_numbers(data):
    return [c["admission_number"] for c in data["candidates"] if c.get("admission_number")]


def base_queries(festival):
    """A valid query of every endpoint that needs one: the guess replaces or joins it."""
    data = festival.data
    sub_fest = festival.main_sub_fest
    programme = festival.programmes(sub_fest["id"])[0]
    candidate = festival.candidates(sub_fest["id"])[0]
    placeholder = next(p for p in data["topperPlaceholders"]
                       if p.get("is_published") and p["sub_fest"] == sub_fest["id"])
    page = next(p for p in data["websitePages"] if p.get("is_published", True) and p.get("is_public", True))
    in_sub_fest = {"subFestSlug": sub_fest["slug"]}
    return {
        "/candidates": in_sub_fest, "/teams": in_sub_fest, "/categories": in_sub_fest,
        "/programmes": in_sub_fest, "/programme-results": in_sub_fest, "/topper-placeholders": in_sub_fest,
        "/programme-detail": {**in_sub_fest, "programCode": programme["code"]},
        "/programme-result": {**in_sub_fest, "programCode": programme["code"]},
        "/candidate-detail": {**in_sub_fest, "chestNo": candidate["chest_no"]},
        "/candidate-result": {**in_sub_fest, "chestNo": candidate["chest_no"]},
        "/candidate-registrations": {"subFestCandidateId": candidate["id"]},
        "/toppers": {"topperPlaceholderId": placeholder["id"]},
        "/page-toppers": {"pageSlug": page["slug"]},
        "/changes": {"sinceRevision": "0"},
    }


def data_operations(app):
    """``{path: [(query parameter name, takes free text)]}`` of every data endpoint the API
    describes."""
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    operations = {}
    for path, item in spec["paths"].items():
        if "get" in item and path.startswith(API) and path != f"{API}/openapi.json":
            operations[path[len(API):]] = [(p["name"], free_text(p["schema"]))
                                           for p in item["get"].get("parameters", []) if p.get("in") == "query"]
    return operations


def free_text(schema):
    """A text parameter without a format or a list of values: the ones a private value could
    be compared with. Ids, numbers, booleans, dates and enums refuse any admission number as
    they parse it, before anything is read."""
    schema = schema.get("items", schema)
    return schema.get("type") == "string" and "enum" not in schema and "format" not in schema


def answer(client, key, path, query, guess):
    """What a visitor learns from one request: the status and the body, with the guess
    itself (which some messages repeat) written as one placeholder."""
    status, body = client.get(f"{API}{path}", query, {"X-API-Key": key})
    return status, body.replace(guess, "<guess>")


@pytest.fixture(scope="module")
def operations(app):
    return data_operations(app)


def test_every_data_endpoint_is_enumerated(operations):
    """The enumeration below walks every endpoint the OpenAPI document lists (a new one
    needs a valid query in ``base_queries`` when it has required parameters)."""
    assert ("admNoPattern", True) in operations["/candidates"]
    assert len(operations) >= 20


# The enumerations below are split into this many parts (every part-th parameter), so that
# the suite's workers share them.
PARTS = 6


def part_of(operations, part):
    """``[(path, parameter name, takes free text)]``: the ``part``-th of every endpoint's
    parameters (every PARTS-th from the ``part``-th), or all of them for ``None``."""
    every = sorted((path, name, text) for path, parameters in operations.items() for name, text in parameters)
    return every if part is None else every[part::PARTS]


def test_the_parts_walk_every_parameter_once(operations):
    every = part_of(operations, None)
    parts = [entry for part in range(PARTS) for entry in part_of(operations, part)]
    assert sorted(parts) == every and len(set(every)) == len(every)


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_enumerating_admission_numbers_through_every_parameter_learns_nothing(keyed_app, keys, fixture_data,
                                                                           operations, slug, part):
    festival = Festival(fixture_data[slug])
    bases = base_queries(festival)
    right = admission_numbers(fixture_data[slug])
    assert len(right) > 40
    client = WsgiGetter(keyed_app)
    learned = {}
    for path, name, text in part_of(operations, part):
        base = bases.get(path, {})
        answers = {}
        # every number through a text parameter; through a typed one, which refuses any
        # of them as it parses it, every 20th
        for guess in (right if text else right[::20]) + WRONG[slug]:
            got = answer(client, keys[slug], path, {**base, name: guess}, guess)
            answers.setdefault(got, []).append(guess)
        if len(answers) != 1:
            learned[f"{path}?{name}"] = [sorted(g)[:3] for g in answers.values()]
    assert learned == {}


def twin(value):
    """A value of the same length and shape that nobody has: each letter and digit moved one on."""
    def moved(c):
        if c.isdigit():
            return str((int(c) + 1) % 10)
        if "a" <= c.lower() <= "z":
            return chr((ord(c.lower()) - 97 + 1) % 26 + 97)
        return c
    return "".join(moved(c) for c in value)


@pytest.mark.parametrize("part", range(PARTS // 2))
@pytest.mark.parametrize("field", ["email", "phone", "date_of_birth"])
def test_the_other_private_values_through_every_text_parameter_learn_nothing(keyed_app, keys, fixture_data,
                                                                             operations, field, part):
    """Every candidate's email, phone or date of birth in the small festival, each beside a
    value of the same shape that nobody has, through every parameter that takes free text:
    the two answers are the same."""
    values = [str(person[field]) for person in fixture_data[SMALL]["candidates"] if person.get(field)]
    assert len(values) > 40
    bases = base_queries(Festival(fixture_data[SMALL]))
    client = WsgiGetter(keyed_app)
    learned = []
    texts = [(path, name) for path, name, text in part_of(operations, None) if text]
    for path, name in texts[part::PARTS // 2]:
        for value in values:
            wrong = twin(value)
            assert wrong not in values
            query = {**bases.get(path, {})}
            right_answer = answer(client, keys[SMALL], path, {**query, name: value}, value)
            wrong_answer = answer(client, keys[SMALL], path, {**query, name: wrong}, wrong)
            if right_answer != wrong_answer:
                learned.append((path, name, value))
    assert learned == []


def test_adm_no_pattern_is_off_by_default_and_says_so(api, sub_fest_slug):
    response = api.get("/candidates", subFestSlug=sub_fest_slug, admNoPattern="ADM-2026-0001")
    assert response.status_code == 400
    body = response.get_json()
    assert body["message"] == ADM_NO_OFF_MESSAGE
    assert body["errors"] == {"query": {"admNoPattern": [ADM_NO_OFF_MESSAGE]}}
    assert response.headers.getlist("Cache-Control") == ["private, no-store"]
    assert "ETag" not in response.headers


@pytest.fixture
def sub_fest_slug(fixture_data):
    return Festival(fixture_data[BIG]).main_sub_fest["slug"]


@pytest.fixture
def turned_on(adm_filter_app):
    """The URL of a copy where the large festival has turned ``admNoPattern`` on."""
    _, url = adm_filter_app
    return url


def the_one_found(fixture_data):
    festival = Festival(fixture_data[BIG])
    sub_fest = festival.main_sub_fest
    candidate = festival.candidates(sub_fest["id"])[0]
    person = festival.by_id("candidates")[candidate["candidate"]]
    return sub_fest["slug"], candidate["id"], person["admission_number"]


def test_turned_on_it_answers_privately_and_keeps_nothing(turned_on, app_with, keys, fixture_data):
    app = app_with(database_url=turned_on, RESPONSE_CACHE_SECONDS=60, CACHE_MAX_AGE=10)
    api = ApiClient(app.test_client(), keys)
    slug, candidate_id, number = the_one_found(fixture_data)
    for _ in range(2):
        response = api.get("/candidates", subFestSlug=slug, admNoPattern=number,
                           headers={"If-None-Match": "*"})
        assert response.status_code == 200
        assert [item["id"] for item in response.get_json()["data"]] == [candidate_id]
        assert response.headers.getlist("Cache-Control") == ["private, no-store"]
        assert "ETag" not in response.headers
    assert len(app.extensions["front_door"].cache) == 0
    # the same list without the private filter is cached and shared as before
    plain = api.get("/candidates", subFestSlug=slug)
    assert plain.headers.getlist("Cache-Control") == ["public, max-age=10"] and plain.headers["ETag"]
    assert len(app.extensions["front_door"].cache) == 1


@pytest.mark.parametrize("name", ["admNoPattern", "admNoPattern[]"])
def test_its_budget_is_small_and_its_own(turned_on, app_with, keys, fixture_data, name):
    app = app_with(database_url=turned_on, RATELIMIT_DEFAULT="100 per minute",
                   RATELIMIT_PRIVATE_FILTER="3 per minute")
    client = app.test_client()
    slug, _, number = the_one_found(fixture_data)
    headers = {"X-API-Key": keys[BIG]}

    def guess(value):
        return client.get(f"{API}/candidates", query_string={"subFestSlug": slug, name: value}, headers=headers)

    allowed = [guess(f"ADM-2026-{n:04d}") for n in range(3)]
    assert [r.status_code for r in allowed] == [200] * 3
    assert [r.headers["X-RateLimit-Remaining"] for r in allowed] == ["2", "1", "0"]
    refused = guess(number)
    assert refused.status_code == 429 and refused.headers["X-RateLimit-Limit"] == "3"
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.headers.getlist("Cache-Control") == ["private, no-store"]
    # the visitor's other requests keep their own budget
    other = client.get(f"{API}/candidates", query_string={"subFestSlug": slug}, headers=headers)
    assert other.status_code == 200 and other.headers["X-RateLimit-Limit"] == "100"


def test_its_budget_is_shared_by_processes_through_redis(turned_on, app_with, keys, fixture_data, redis_prefix):
    prefix, connection = redis_prefix
    settings = {"RATELIMIT_PRIVATE_FILTER": "2 per minute", "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
                "RATELIMIT_KEY_PREFIX": prefix, **REDIS_WAIT}
    first = app_with(database_url=turned_on, **settings).test_client()
    second = app_with(database_url=turned_on, **settings).test_client()
    slug, _, number = the_one_found(fixture_data)
    headers = {"X-API-Key": keys[BIG]}
    statuses = [client.get(f"{API}/candidates", query_string={"subFestSlug": slug, "admNoPattern": number},
                           headers=headers).status_code for client in (first, second, first)]
    assert statuses == [200, 200, 429]
    stored = [name.decode() for name in connection.scan_iter(match=f"*{prefix}*")]
    assert stored and all(f"{prefix}:private-filter" in name for name in stored)



def test_the_service_logs_no_admission_number(turned_on, app_with, keys, fixture_data, capture_log):
    """The access line names the query's parameters, never their values (app/door/access_log.py)."""
    access_lines, other_lines = capture_log(ACCESS_LOGGER), capture_log("")
    api = ApiClient(app_with(database_url=turned_on).test_client(), keys)
    slug, candidate_id, number = the_one_found(fixture_data)
    found = api.get("/candidates", subFestSlug=slug, admNoPattern=number)
    assert [item["id"] for item in found.get_json()["data"]] == [candidate_id]
    assert api.get("/candidates", subFestSlug=slug, admNoPattern=f"{number},{number}").status_code == 400
    lines = access_lines()
    assert [line["query"] for line in lines] == [["admNoPattern", "subFestSlug"]] * 2
    assert number not in json.dumps(lines + other_lines())
