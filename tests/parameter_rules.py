"""The rules an OpenAPI operation's ``x-dependencies`` states about its query parameters, in the
Inter-parameter Dependency Language (IDL4OAS), read and checked against a query.

Only the form the document uses is understood (``schemas/selectors.py``): ``Or(a, b, ...);``,
send at least one of them. Any other form is an error, so a new kind of rule cannot be
skipped without notice.
"""
import re

GROUP = re.compile(r"^Or\(\s*([A-Za-z]\w*(?:\s*,\s*[A-Za-z]\w*)+)\s*\);$")


def parse(rule):
    """The names of an ``Or`` group."""
    group = GROUP.match(rule)
    if not group:
        raise ValueError(f"not a rule this test reads: {rule!r}")
    return [name.strip() for name in group[1].split(",")]


def rules_of(operation):
    """The parsed rules of an operation (its definition in the document): a list of groups."""
    return [parse(rule) for rule in operation.get("x-dependencies", ())]


def sent(query, names):
    """The names of ``names`` that ``query`` sends (a missing or empty value is unsent)."""
    return [name for name in names if (query or {}).get(name) not in (None, "", [])]


def keeps(groups, query):
    """Whether ``query`` (``{name: value}``) sends at least one parameter of every group."""
    return all(sent(query, names) for names in groups)


def within(groups, query, examples):
    """``query`` with each group it leaves out given its first parameter's example
    (``examples``, by name), as a fuzzer that reads the rules generates; the parameters sent
    are kept as they are."""
    query = dict(query or {})
    for names in groups:
        if not sent(query, names):
            query[names[0]] = examples[names[0]]
    assert keeps(groups, query), (groups, query)
    return query
