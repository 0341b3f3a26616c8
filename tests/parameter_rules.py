"""The rules an OpenAPI operation's ``x-dependencies`` states about its query parameters, in the
Inter-parameter Dependency Language (IDL4OAS), read and checked against a query.

Only the forms the document uses are understood (``schemas/selectors.py``): ``Or(a, b, ...);``,
``OnlyOne(a, b, ...);``, ``ZeroOrOne(a, b, ...);`` and ``a <= b;``. Any other form is an error,
so a new kind of rule cannot be skipped without notice.
"""
import re

GROUP = re.compile(r"^(Or|OnlyOne|ZeroOrOne)\(\s*([A-Za-z]\w*(?:\s*,\s*[A-Za-z]\w*)+)\s*\);$")
RELATION = re.compile(r"^([A-Za-z]\w*)\s*<=\s*([A-Za-z]\w*);$")
SENT_COUNTS = {"Or": lambda n: n >= 1, "OnlyOne": lambda n: n == 1, "ZeroOrOne": lambda n: n <= 1}


def parse(rule):
    """``(kind, names)``: kind ``Or``, ``OnlyOne``, ``ZeroOrOne`` or ``<=``."""
    group = GROUP.match(rule)
    if group:
        return group[1], [name.strip() for name in group[2].split(",")]
    relation = RELATION.match(rule)
    if relation:
        return "<=", [relation[1], relation[2]]
    raise ValueError(f"not a rule this test reads: {rule!r}")


def rules_of(operation):
    """The parsed rules of an operation (its definition in the document)."""
    return [parse(rule) for rule in operation.get("x-dependencies", ())]


def keeps(rules, query, value=lambda name, text: text):
    """Whether ``query`` (``{name: value}``, a missing or empty value unsent) keeps every rule;
    ``value(name, text)`` gives a value ``<=`` compares (None: not comparable, no constraint)."""
    sent = {name for name, text in (query or {}).items() if text not in (None, "", [])}
    for kind, names in rules:
        if kind == "<=":
            if set(names) <= sent:
                low, high = (value(name, query[name]) for name in names)
                if low is not None and high is not None and not low <= high:
                    return False
        elif not SENT_COUNTS[kind](len(sent.intersection(names))):
            return False
    return True


def within(rules, query, examples, value=lambda name, text: text):
    """``query`` brought within ``rules``, as a fuzzer that reads them generates: of a group
    sent more often than it allows, the first sent is kept; a group that needs one and has
    none gets its first parameter's example (``examples``, by name); of ``a <= b`` broken,
    ``b`` is dropped. A query that keeps the rules is returned as it is."""
    query = dict(query or {})
    for kind, names in rules:
        sent = [name for name in names if query.get(name) not in (None, "", [])]
        if kind == "<=":
            if not keeps([(kind, names)], query, value):
                del query[names[1]]
        elif kind in ("OnlyOne", "ZeroOrOne") and len(sent) > 1:
            for name in sent[1:]:
                del query[name]
        elif kind in ("Or", "OnlyOne") and not sent:
            query[names[0]] = examples[names[0]]
    assert keeps(rules, query, value), (rules, query)
    return query
