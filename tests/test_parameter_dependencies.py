"""What the OpenAPI document states about combinations of parameters (each operation's
``x-dependencies``, ``schemas/selectors.py``) is what the service checks: a query that keeps
the rules is never a 400 for its combination, each ``Or`` / ``OnlyOne`` group left out is the
400 naming the group, a ``<=`` broken is a 400, and an operation with no such group takes an
empty query. So a fuzzer or a client that reads the rules sends only what the service takes.
"""
import pytest

from conftest import API
from parameter_rules import keeps, parse, rules_of
from test_schemathesis import real_selectors

REQUIRED = ("Or", "OnlyOne")


@pytest.fixture(scope="module")
def document(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


@pytest.fixture(scope="module")
def real(fixture_data):
    """A real value of every selector; ids and keys of one record name the same record."""
    from conftest import BIG

    data = fixture_data[BIG]
    values = real_selectors(data)
    placeholder = next(p for p in data["topperPlaceholders"] if p["id"] == values["topperPlaceholderId"])
    return {**values, "placeholderLabel": placeholder["label"]}


def operations(app):
    document = app.test_client().get(f"{API}/openapi.json").get_json()
    return [(path.removeprefix(API), operation) for path, item in sorted(document["paths"].items())
            for method, operation in item.items() if method == "get"]


def stated(app):
    return [(path, operation) for path, operation in operations(app) if operation.get("x-dependencies")]


def needed(rules, real, choose=None):
    """The smallest query keeping ``rules``: of each required group its first parameter, or
    the one ``choose`` names (``{group index: name}``), with a real value."""
    query = {}
    for index, (kind, names) in enumerate(rules):
        if kind in REQUIRED:
            name = (choose or {}).get(index, names[0])
            query[name] = real[name]
    assert keeps(rules, query)
    return query


def test_the_rules_are_read(app):
    """Every rule in the document parses, and the groups are on the operations the contract
    names (a guard that the statement is there at all)."""
    found = {path: operation["x-dependencies"] for path, operation in stated(app)}
    for rules in found.values():
        for rule in rules:
            parse(rule)
    assert found["/teams"] == ["OnlyOne(subFestId, subFestSlug);"]
    assert "Or(subFestProgramId, programCode);" in found["/programme-detail"]
    assert "Or(subFestCandidateId, chestNo);" in found["/candidate-registrations"]
    assert "Or(pageSlug, pageId, placeholderId, placeholderLabel);" in found["/page-toppers"]
    assert "scheduledAtFrom <= scheduledAtTo;" in found["/schedules"]
    assert "ZeroOrOne(subFestId, subFestSlug);" in found["/filters"]


def test_each_parameter_of_a_required_group_is_enough(app, api, real):
    checked = 0
    for path, operation in stated(app):
        rules = rules_of(operation)
        for index, (kind, names) in enumerate(rules):
            if kind not in REQUIRED:
                continue
            for name in names:
                query = needed(rules, real, {index: name})
                response = api.get(path, **query)
                assert response.status_code == 200, (path, query, response.get_json())
                checked += 1
    assert checked >= 20


def test_a_required_group_left_out_is_a_400_naming_it(app, api, real):
    checked = 0
    for path, operation in stated(app):
        rules = rules_of(operation)
        for index, (kind, names) in enumerate(rules):
            if kind not in REQUIRED:
                continue
            query = {name: value for name, value in needed(rules, real).items() if name not in names}
            response = api.get(path, **query)
            assert response.status_code == 400, (path, query)
            assert set(response.get_json()["errors"]["query"]) == set(names), path
            checked += 1
    assert checked >= 14


def test_a_group_of_at_most_one_takes_each_alone(app, api, real):
    for path, operation in stated(app):
        rules = rules_of(operation)
        for kind, names in rules:
            if kind not in ("OnlyOne", "ZeroOrOne"):
                continue
            for name in names:
                query = {key: value for key, value in needed(rules, real).items() if key not in names}
                query[name] = real[name]
                assert keeps(rules, query)
                response = api.get(path, **query)
                assert response.status_code == 200, (path, query, response.get_json())


def test_an_operation_without_a_required_group_takes_only_its_required_parameters(app, api):
    """The converse: every parameter one of which a request needs is stated (parameters
    needed on their own are ``required`` in the document, sent here with their example)."""
    free = [(path, operation) for path, operation in operations(app)
            if not any(kind in REQUIRED for kind, _ in rules_of(operation))]
    assert {"/schedules", "/news", "/changes"} <= {path for path, _ in free}
    for path, operation in free:
        query = {parameter["name"]: parameter["example"] for parameter in operation.get("parameters", ())
                 if parameter["in"] == "query" and parameter.get("required")}
        response = api.get(path, **query)
        assert response.status_code != 400, (path, query, response.get_json())


def test_a_relation_broken_is_a_400(app, api):
    for path, operation in stated(app):
        for kind, names in rules_of(operation):
            if kind != "<=":
                continue
            low, high = names
            assert api.get(path, **{low: "2026-01-02", high: "2026-01-01"}).status_code == 400
            assert api.get(path, **{low: "2026-01-01", high: "2026-01-01"}).status_code == 200
