"""What the OpenAPI document states about combinations of parameters is what the service
checks. The one rule OpenAPI cannot state, "send at least one of these", is each operation's
``x-dependencies`` (``schemas/selectors.py``): each group left out is the 400 naming the
group, each of its parameters is enough, and an operation with no such group takes an empty
query. Every other combination of the parameters the document lists is taken, with its
meaning: ``subFestId`` and ``subFestSlug`` together name the sub-fest with that id and that
slug (naming different sub-fests, the 404 of an unknown one), and a ``/schedules`` window
whose start is after its end is an empty page. So a fuzzer or a client that reads the
document sends only what the service takes.
"""
import uuid

import pytest

from conftest import API, BIG
from fixture_rules import visible_sub_fests
from parameter_rules import keeps, parse, rules_of
from test_schemathesis import real_selectors

SUB_FEST = ("subFestId", "subFestSlug")


@pytest.fixture(scope="module")
def real(fixture_data):
    """A real value of every selector; ids and keys of one record name the same record."""
    data = fixture_data[BIG]
    values = real_selectors(data)
    placeholder = next(p for p in data["topperPlaceholders"] if p["id"] == values["topperPlaceholderId"])
    other = next(s for s in visible_sub_fests(data) if s["id"] != values["subFestId"])
    return {**values, "placeholderLabel": placeholder["label"], "otherSubFestSlug": other["slug"]}


def operations(app):
    document = app.test_client().get(f"{API}/openapi.json").get_json()
    return [(path.removeprefix(API), operation) for path, item in sorted(document["paths"].items())
            for method, operation in item.items() if method == "get"]


def stated(app):
    return [(path, operation) for path, operation in operations(app) if operation.get("x-dependencies")]


def query_names(operation):
    return {parameter["name"] for parameter in operation.get("parameters", ()) if parameter["in"] == "query"}


def needed(groups, real, choose=None):
    """The smallest query keeping ``groups``: of each its first parameter, or the one
    ``choose`` names (``{group index: name}``), with a real value."""
    query = {}
    for index, names in enumerate(groups):
        name = (choose or {}).get(index, names[0])
        query[name] = real[name]
    assert keeps(groups, query)
    return query


def test_the_rules_are_read(app):
    """Every rule in the document parses, and the groups are on the operations the contract
    names (a guard that the statement is there at all)."""
    found = {path: operation["x-dependencies"] for path, operation in stated(app)}
    for rules in found.values():
        for rule in rules:
            parse(rule)
    assert found["/teams"] == ["Or(subFestId, subFestSlug);"]
    assert "Or(subFestProgramId, programCode);" in found["/programme-detail"]
    assert "Or(subFestCandidateId, chestNo);" in found["/candidate-registrations"]
    assert "Or(pageSlug, pageId, placeholderId, placeholderLabel);" in found["/page-toppers"]
    # the sub-fest that narrows a key or a list is optional, and nothing relates it to the rest
    assert found["/programme-detail"] == ["Or(subFestProgramId, programCode);"]
    assert "/schedules" not in found and "/filters" not in found


def test_each_parameter_of_a_required_group_is_enough(app, api, real):
    checked = 0
    for path, operation in stated(app):
        groups = rules_of(operation)
        for index, names in enumerate(groups):
            for name in names:
                query = needed(groups, real, {index: name})
                response = api.get(path, **query)
                assert response.status_code == 200, (path, query, response.get_json())
                checked += 1
    assert checked >= 20


def test_a_required_group_left_out_is_a_400_naming_it(app, api, real):
    checked = 0
    for path, operation in stated(app):
        groups = rules_of(operation)
        for names in groups:
            query = {name: value for name, value in needed(groups, real).items() if name not in names}
            response = api.get(path, **query)
            assert response.status_code == 400, (path, query)
            assert set(response.get_json()["errors"]["query"]) == set(names), path
            checked += 1
    assert checked >= 14


def test_an_operation_without_a_required_group_takes_only_its_required_parameters(app, api):
    """The converse: every parameter one of which a request needs is stated (parameters
    needed on their own are ``required`` in the document, sent here with their example)."""
    free = [(path, operation) for path, operation in operations(app) if not rules_of(operation)]
    assert {"/schedules", "/filters", "/news", "/changes"} <= {path for path, _ in free}
    for path, operation in free:
        query = {parameter["name"]: parameter["example"] for parameter in operation.get("parameters", ())
                 if parameter["in"] == "query" and parameter.get("required")}
        response = api.get(path, **query)
        assert response.status_code != 400, (path, query, response.get_json())


def with_sub_fest(app, real):
    """``(path, query without a sub-fest)`` of every operation taking ``subFestId`` and
    ``subFestSlug``: its other required groups kept with real values."""
    found = []
    for path, operation in operations(app):
        if set(SUB_FEST) <= query_names(operation):
            groups = [names for names in rules_of(operation) if set(names) != set(SUB_FEST)]
            found.append((path, needed(groups, real)))
    assert len(found) >= 14
    return found


def test_both_sub_fest_selectors_naming_the_same_sub_fest_answer_as_either(app, api, real):
    for path, query in with_sub_fest(app, real):
        by_id = api.get(path, **query, subFestId=real["subFestId"])
        by_slug = api.get(path, **query, subFestSlug=real["subFestSlug"])
        both = api.get(path, **query, subFestId=real["subFestId"], subFestSlug=real["subFestSlug"])
        assert both.status_code == 200, (path, both.get_json())
        assert both.get_json() == by_id.get_json() == by_slug.get_json(), path


def test_both_sub_fest_selectors_naming_different_sub_fests_are_the_404_of_an_unknown_one(app, api, real):
    """No sub-fest has that id and that slug: the very 404 of an unknown sub-fest, so the
    answer tells nothing about either selector on its own."""
    for path, query in with_sub_fest(app, real):
        unknown = api.get(path, **query, subFestId=str(uuid.uuid4()))
        assert unknown.status_code == 404, path
        assert unknown.get_json()["message"] == "Sub-fest not found."
        for pair in ({"subFestId": real["subFestId"], "subFestSlug": real["otherSubFestSlug"]},
                     {"subFestId": real["subFestId"], "subFestSlug": "no-such-sub-fest"},
                     {"subFestId": str(uuid.uuid4()), "subFestSlug": real["subFestSlug"]}):
            response = api.get(path, **query, **pair)
            assert response.status_code == 404, (path, pair, response.get_json())
            assert response.get_json() == unknown.get_json(), (path, pair)


def test_a_schedule_window_whose_start_is_after_its_end_is_an_empty_page(api):
    for low, high in (("2026-01-02", "2026-01-01"), ("2026-01-01T10:00:01Z", "2026-01-01T10:00:00Z")):
        for extra in ({}, {"page": 3}):
            body = api.ok("/schedules", scheduledAtFrom=low, scheduledAtTo=high, **extra)
            assert body["data"] == []
            assert body["meta"]["total"] == 0 and body["meta"]["totalPages"] == 0
            assert not body["meta"]["hasNextPage"]
    # a window of one moment, start equal to end, is not empty for that reason
    anything = api.ok("/schedules", limit=1)["data"][0]["scheduledAt"]
    assert api.ok("/schedules", scheduledAtFrom=anything, scheduledAtTo=anything)["meta"]["total"] >= 1
