"""Crawl every endpoint of the OpenAPI document for both festivals and look for leaks.

Nothing private (candidate contact and admission fields, by name or by value) and nothing
hidden (records marked "HIDDEN" in the fixtures, and the ids of hidden records) may
appear in any response body.
"""
import itertools

import pytest

from conftest import API, BIG, SMALL
from fixture_rules import (
    PRIVATE_FIELD_NAMES,
    flag,
    private_values,
    visible_news,
    visible_programme_ids,
    visible_sub_fests,
)
from board_rules_festival import rules_festival
from structure_rules import Festival
from structure_tiny import shape, shape_festival  # noqa: F401 (fixture)
from substrings import any_of
from tiny_festival import tiny_api


def hidden_ids(data):
    """Ids of records the fixture hides, by the visibility rules."""
    hidden = set()
    plain_rules = {
        "subFests": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "categories": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "teams": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "sections": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "venues": lambda r: not flag(r, "is_public"),
        "programmes": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "subFestProgrammes": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "candidates": lambda r: True,  # a person's master id is never shown at all
        "subFestCandidates": lambda r: not (flag(r, "is_active") and flag(r, "is_public")),
        "results": lambda r: not (flag(r, "is_published", False) and flag(r, "is_public")),
        "topperPlaceholders": lambda r: not flag(r, "is_published", False),
        "websitePages": lambda r: not (flag(r, "is_published") and flag(r, "is_public")),
        "downloads": lambda r: not flag(r, "is_public"),
        "galleryAlbums": lambda r: not flag(r, "is_public"),
        "galleryImages": lambda r: not flag(r, "is_public"),
    }
    for section, is_hidden in plain_rules.items():
        hidden.update(r["id"] for r in data.get(section, []) if is_hidden(r))
    visible = {n["id"] for n in visible_news(data)}
    hidden.update(n["id"] for n in data.get("news", []) if n["id"] not in visible)
    hidden.update(hidden_entry_ids(data))
    return hidden


def hidden_entry_ids(data):
    """Ids of the entries the public must not see (inactive, in a hidden programme, without
    a visible participant, a team's own entry of a hidden team), and of their results."""
    shown = {r["id"] for r in Festival(data).visible_entries}
    hidden = {r["id"] for r in data.get("registrations", []) if r["id"] not in shown}
    return hidden | {x["id"] for x in data.get("results", []) if x["registration"] in hidden}


def samples(data):
    """Values for every id/selector parameter the endpoints take, from the fixture."""
    sub_fests = visible_sub_fests(data)
    programmes = visible_programme_ids(data)
    sub_fest_ids = {s["id"] for s in sub_fests}
    with_results = {r["sub_fest_programme"] for r in data.get("results", [])
                    if flag(r, "is_published", False) and flag(r, "is_public")}
    programme_rows = [p for p in data.get("subFestProgrammes", []) if p["id"] in programmes]
    programme_rows.sort(key=lambda p: (p["id"] not in with_results, p["id"]))
    candidates = [c for c in data.get("subFestCandidates", [])
                  if flag(c, "is_active") and flag(c, "is_public") and c["sub_fest"] in sub_fest_ids]
    registered = {r.get("sub_fest_candidate") for r in data.get("registrations", [])}
    candidates.sort(key=lambda c: (c["id"] not in registered, c["id"]))
    placeholders = [p for p in data.get("topperPlaceholders", []) if flag(p, "is_published", False)]
    pages = [p for p in data.get("websitePages", []) if flag(p, "is_published") and flag(p, "is_public")]
    return {
        "subFestId": [s["id"] for s in sub_fests],
        "subFestSlug": [s["slug"] for s in sub_fests],
        "subFestProgramId": [p["id"] for p in programme_rows[:6]],
        "programCode": [p["code"] for p in programme_rows[:3]],
        "subFestCandidateId": [c["id"] for c in candidates[:6]],
        "chestNo": [c["chest_no"] for c in candidates[:3]],
        "topperPlaceholderId": [p["id"] for p in placeholders],
        "placeholderId": [p["id"] for p in placeholders[:3]],
        "pageSlug": [p["slug"] for p in pages],
        "pageId": [p["id"] for p in pages],
        "sinceRevision": ["0"],
        # boards of the past: before the first publication, in the middle, after the last
        "asOf": as_of_samples(data),
        "top": ["50"],
    }


def as_of_samples(data):
    """Moments for ``asOf``: each board of the past is scanned as the current one is."""
    published = sorted(r["published_at"] for r in data.get("results", []) if r.get("published_at"))
    middle = published[len(published) // 2] if published else "2026-01-15T12:00:00Z"
    return ["2000-01-01T00:00:00Z", middle, "2100-01-01"]


def endpoint_requests(spec, data):
    """``(path, params)`` pairs: each endpoint with each sample of each selector it takes."""
    values = samples(data)
    for path, item in sorted(spec["paths"].items()):
        operation = item.get("get")
        if operation is None or path.endswith(("openapi.json", "/docs")):
            continue
        params = {p["name"]: p for p in operation.get("parameters", []) if p.get("in") == "query"}
        # subFestId stands for the "subFestId or subFestSlug" selector pair
        required = [name for name, p in params.items() if p.get("required") or name == "subFestId"]
        optional = [name for name in params if name in values and name not in required]
        base_choices = [values.get(name, []) for name in required]
        for combo in itertools.product(*base_choices):
            base = dict(zip(required, combo))
            if "limit" in params:  # an endpoint without paging refuses it (400)
                base["limit"] = 500
            yield path, base
            for name in optional:
                for value in values[name][:3]:
                    yield path, {**base, name: value}


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_private_or_hidden_data_in_any_response(client, keys, fixture_data, spec, slug):
    data = fixture_data[slug]
    secrets = private_values(data)
    assert secrets, "the fixture must fill private candidate fields"
    hidden = hidden_ids(data)
    assert hidden
    found_secret, found_hidden = any_of(secrets), any_of(hidden)
    seen_ok = {}
    for path, params in endpoint_requests(spec, data):
        route = path[len(API):] if path.startswith(API) else path
        response = client.get(f"{API}{route}", query_string=params, headers={"X-API-Key": keys[slug]})
        assert response.status_code in (200, 400, 404), (route, params, response.status_code)
        text = response.get_data(as_text=True)
        assert "HIDDEN" not in text, (route, params)
        assert not found_secret.search(text), (route, params, [s for s in secrets if s in text][:3])
        body = response.get_json()
        keys_in_body = set(_keys(body))
        assert not keys_in_body & set(PRIVATE_FIELD_NAMES), (route, params)
        assert not found_hidden.search(text), (route, params, [i for i in hidden if i in text][:3])
        if response.status_code == 200:
            seen_ok[route] = seen_ok.get(route, 0) + 1
    endpoints = {p[len(API):] for p in spec["paths"] if "get" in spec["paths"][p]}
    assert set(seen_ok) == endpoints, f"endpoints never answered 200: {endpoints - set(seen_ok)}"


def test_no_hidden_team_entry_in_any_answer_of_the_shape_festival(shape, spec):
    """The hand-built festival holds team entries of a hidden school, of an inactive
    district, an inactive one, a group of hidden members only and one in a hidden sub-fest:
    every answer to every selector is scanned for them."""
    client, names = shape
    data, _ = shape_festival()
    hidden = hidden_ids(data)
    for key in ("G-HiddenSchool", "G-HiddenDistrict", "G-District", "B-Xavier", "H-School"):
        assert {names[f"reg-{key}"], names[f"result-{key}"]} <= hidden, key
    secrets = private_values(data)
    found_secret, found_hidden = any_of(secrets), any_of(hidden)
    answered, shown = 0, set()
    for path, params in endpoint_requests(spec, data):
        response = client.get(path[len(API):], **params)
        assert response.status_code in (200, 400, 404), (path, params, response.status_code)
        text = response.get_data(as_text=True)
        shown.update(key for key in ("G-School", "G-Orphan") if names[f"result-{key}"] in text)
        assert "HIDDEN" not in text, (path, params)
        assert not found_secret.search(text), (path, params, [s for s in secrets if s in text][:3])
        assert not found_hidden.search(text), (path, params, [i for i in hidden if i in text][:3])
        answered += response.status_code == 200
    assert answered > 50
    assert shown == {"G-School", "G-Orphan"}, "the public teams' own results are shown"


def test_no_private_data_in_any_answer_of_a_festival_with_person_boards(seeded, tmp_path, spec):
    """A person board sums a person's chest numbers: every answer of a festival with such
    boards (their history and race too) is scanned for the people's private fields, their
    own rows' ids and the names of private fields."""
    data, names = rules_festival()
    secrets = private_values(data)
    people = {row["id"] for row in data["candidates"]}
    assert secrets and len(people) == 5
    found_secret, found_person = any_of(secrets), any_of(people)
    seen_people = 0
    with tiny_api(seeded[0], tmp_path, data) as (client, _):
        for path, params in endpoint_requests(spec, data):
            response = client.get(path[len(API):], **params)
            assert response.status_code in (200, 400, 404), (path, params, response.status_code)
            text = response.get_data(as_text=True)
            assert not found_secret.search(text), (path, params, [s for s in secrets if s in text][:3])
            assert not found_person.search(text), (path, params)
            assert not set(_keys(response.get_json())) & set(PRIVATE_FIELD_NAMES), (path, params)
            seen_people += text.count('"chestNos":[')
        for label in ("people", "people-firsts", "people-champion"):
            for params in ({}, {"asOf": "2026-01-12T00:00:00Z"}):
                text = client.get("/toppers", placeholderLabel=label, **params).get_data(as_text=True)
                assert not found_secret.search(text) and not found_person.search(text), (label, params)
                seen_people += text.count('"chestNos":[')
            text = client.get("/topper-race", placeholderLabel=label).get_data(as_text=True)
            assert not found_secret.search(text) and not found_person.search(text), label
        for params in ({}, {"asOf": "2026-01-12T00:00:00Z"}):
            response = client.get("/page-toppers", pageSlug="boards", **params)
            text = response.get_data(as_text=True)
            assert response.status_code == 200 and '"chestNos":[' in text, params
            assert not found_secret.search(text) and not found_person.search(text), params
            assert not set(_keys(response.get_json())) & set(PRIVATE_FIELD_NAMES), params
    assert seen_people > 20, "the person boards and their pasts were answered"


def _keys(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


def test_crawl_covers_many_requests(fixture_data, spec):
    assert sum(1 for _ in endpoint_requests(spec, fixture_data[BIG])) >= 4
