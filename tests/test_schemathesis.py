"""schemathesis, in-process, with all its checks: what the OpenAPI document declares is what
the service accepts, rejects and answers (0 failures).

Two runs. In the first, every id and selector parameter is fixed to a real record of the big
festival, so the generated requests reach the detail endpoints and the full answers; the other
parameters are generated, and every request is sent as generated from the document: no hook
touches a query, so every combination of parameters the document allows is tried (the
schedule window's ends in either order among them) and taken. In the second, nothing is
fixed: every parameter, selectors too, is generated from the document (unknown ids are the
one 404; ``subFestId`` and ``subFestSlug`` naming different sub-fests, the same 404). Only
the one rule OpenAPI cannot state is added there, from each operation's ``x-dependencies``
(``schemas/selectors.py``): a request sends at least one parameter of each ``Or`` group
(:func:`map_query` gives a group left out its first parameter's example; the service's 400
for it is ``tests/test_parameter_dependencies.py``'s). Deterministic and bounded: a few
examples per operation in the fuzzing phase.
"""
import collections

import pytest
import schemathesis
from marshmallow import ValidationError
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events, from_schema
from schemathesis.transport.wsgi import WSGI_TRANSPORT

from conftest import API, BIG
from fixture_rules import flag, visible_programme_ids, visible_sub_fests
from parameter_rules import rules_of, within

MAX_EXAMPLES = 5


def real_selectors(data):
    """One real record for every selector; selector pairs name the same record."""
    sub_fest = visible_sub_fests(data)[0]
    visible = visible_programme_ids(data)
    with_results = {r["sub_fest_programme"] for r in data["results"]
                    if flag(r, "is_published", False) and flag(r, "is_public")}
    programme = next(p for p in data["subFestProgrammes"] if p["id"] in visible & with_results
                     and p["sub_fest"] == sub_fest["id"])
    registered = {r.get("sub_fest_candidate") for r in data["registrations"]}
    candidate = next(c for c in data["subFestCandidates"] if c["id"] in registered
                     and c["sub_fest"] == sub_fest["id"] and flag(c, "is_active") and flag(c, "is_public"))
    page = next(p for p in data["websitePages"] if flag(p, "is_published") and flag(p, "is_public")
                and p.get("placeholders"))
    return {
        "subFestId": sub_fest["id"], "subFestSlug": sub_fest["slug"],
        "subFestProgramId": programme["id"], "programCode": programme["code"],
        "subFestCandidateId": candidate["id"], "chestNo": candidate["chest_no"],
        "topperPlaceholderId": page["placeholders"][0], "placeholderId": page["placeholders"][0],
        "pageId": page["id"], "pageSlug": page["slug"],
    }


def map_query(context, query):
    """The generated query with at least one parameter of each group the operation's
    ``x-dependencies`` names (``Or(subFestId, subFestSlug);``, ...), as a fuzzer reading the
    document's rules sends it (``parameter_rules.within``): a group left out gets its first
    parameter's example; what was generated is kept as it is."""
    operation = context.operation.definition.raw
    groups = rules_of(operation)
    if not groups:
        return query
    examples = {parameter["name"]: parameter.get("example") for parameter in operation.get("parameters", ())}
    return within(groups, query, examples)


def without_private_filter(document):
    """``document`` without ``admNoPattern``, the one parameter the document describes in
    words only: a 400 unless the festival turned the filter on,
    which the bundled festivals do not (tests/test_private_filters.py tests both)."""
    for path in document["paths"].values():
        for operation in path.values():
            if isinstance(operation, dict) and "parameters" in operation:
                operation["parameters"] = [p for p in operation["parameters"] if p.get("name") != "admNoPattern"]
    return document


def run_schemathesis(schema):
    """Run every phase with every check; ``{(check, operation): [(title, reproduction)]}``."""
    failures = collections.defaultdict(list)
    for event in from_schema(schema).execute():
        if isinstance(event, events.NonFatalError):
            failures[("error", event.label)].append((str(event.value), ""))
        if isinstance(event, events.FatalError):
            raise event.exception
        if not isinstance(event, events.ScenarioFinished):
            continue
        for checks in event.recorder.checks.values():
            for check in checks:
                if check.failure_info is not None:
                    failures[(check.name, event.label)].append(
                        (check.failure_info.failure.title, check.failure_info.code_sample))
    return failures


@pytest.fixture
def in_process_probes(monkeypatch):
    """schemathesis' authentication probes hand the in-process client the socket settings
    (``max_redirects`` and the like) that only a network session takes; drop them."""
    send = WSGI_TRANSPORT.send

    def send_in_process(case, *, session=None, **kwargs):
        if session is None:
            for name in ("max_redirects", "verify", "cert", "proxies"):
                kwargs.pop(name, None)
        return send(case, session=session, **kwargs)

    monkeypatch.setattr(WSGI_TRANSPORT, "send", send_in_process)


def run_on_document(app, keys, parameters, hook=None):
    """The failures of a run with ``parameters`` (``{name: value}``) fixed, and ``hook`` (a
    ``map_query``) applied to each generated query when one is given, as a report."""
    config = SchemathesisConfig.from_dict({
        # The in-process client does not decode gzip or brotli.
        "headers": {"X-API-Key": keys[BIG], "Accept-Encoding": "identity"},
        "parameters": {f"query.{name}": value for name, value in parameters.items()},
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
        "checks": {"enabled": True},
        # The coverage phase's negative cases (each parameter's invalid forms, undeclared
        # methods) are cheap 4xx answers; its positive boundary cases would double the run
        # time, and the fuzzing phase tries valid requests. There are no links to follow.
        "phases": {"coverage": {"generation": {"mode": "negative"}}, "stateful": {"enabled": False}},
    })
    document = without_private_filter(app.test_client().get(f"{API}/openapi.json").get_json())
    schema = schemathesis.openapi.from_dict(document, config=config)
    schema.app = app  # in process, as from_wsgi does
    if hook is not None:
        schema.hook(hook)
    failures = run_schemathesis(schema)
    return [f"{check} {operation}: {title}: {sample}" for (check, operation), found in sorted(failures.items())
            for title, sample in found[:1]]


def test_schemathesis_finds_nothing_in_requests_sent_as_generated(keyed_app, keys, fixture_data, in_process_probes):
    report = run_on_document(keyed_app, keys, real_selectors(fixture_data[BIG]))
    assert not report, "\n".join(report)


def test_schemathesis_finds_nothing_with_generated_selectors(keyed_app, keys, in_process_probes):
    report = run_on_document(keyed_app, keys, {}, hook=map_query)
    assert not report, "\n".join(report)
