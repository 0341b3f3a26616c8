"""A fixture's shape: jsonschema-rs's verdict and Python jsonschema's errors agree.

An import asks jsonschema-rs whether a file is valid and walks it with Python's jsonschema
only when it is not (``seed/pipeline/check/validation.py``): a file one of them takes and the
other refuses would import unchecked, or fail with no problem listed. Here both judge the
bundled festivals, cut to a few rows a section, and many of their mutations, each
mutation one change at one place: a value of every JSON type (and ones that are not JSON),
a key removed, a key added. The full schema of an import and the partial one of an update.
"""
import copy
import datetime
import json
import random

import jsonschema
import jsonschema_rs
import pytest

from seed import bundled_fixtures
from seed.pipeline.check.validation import ShapeValidator, check_shape
from seed.pipeline.read.fixture_format import json_schema
from seed.pipeline.read.problems import FixtureError

ROWS_A_SECTION = 2
MUTATIONS = 300
REPLACEMENTS = (None, "", "x", "2026-01-05", "2026-01-05T10:00:00+05:30", 0, -1, 7, 2.5, 1.0, 2 ** 70, True, False,
                [], ["x"], {}, {"unknown": 1}, datetime.date(2026, 1, 5), float("nan"))


def _small(document):
    """The document with its first rows of each section only."""
    return {key: value[:ROWS_A_SECTION] if isinstance(value, list) else value for key, value in document.items()}


def _places(value, path=()):
    """Every path into ``value`` (the document itself too)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))


def _mutated(document, places, rng):
    doc = copy.deepcopy(document)
    path = rng.choice(places)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = rng.random()
    if action < 0.2 and isinstance(parent, dict):
        del parent[last]
    elif action < 0.3 and isinstance(parent, dict):
        parent[f"{last}Extra"] = rng.choice(REPLACEMENTS)
    else:
        parent[last] = rng.choice(REPLACEMENTS)
    return doc


@pytest.fixture(scope="module")
def documents():
    found = []
    for path in bundled_fixtures():
        with open(path, encoding="utf-8") as fh:
            found.append(_small(json.load(fh)))
    return found


@pytest.mark.parametrize("partial", [False, True], ids=["import", "update"])
def test_jsonschema_rs_and_jsonschema_give_the_same_verdict(documents, partial):
    schema = json_schema(partial=partial)
    verdict = jsonschema_rs.validator_for(schema, validate_formats=False)
    reporter = jsonschema.Draft202012Validator(schema)
    shape = ShapeValidator(schema)
    rng = random.Random(20261128)
    invalid = 0
    for document in documents:
        assert verdict.is_valid(document) and not list(shape.iter_errors(document))
        places = list(_places(document))[1:]
        for _ in range(MUTATIONS // len(documents)):
            doc = _mutated(document, places, rng)
            errors = [error.message for error in reporter.iter_errors(doc)]
            invalid += bool(errors)
            try:
                fast = verdict.is_valid(doc)
            except (ValueError, TypeError, OverflowError):
                fast = None  # not JSON to jsonschema-rs: the validator asks jsonschema
            assert fast is None or fast == (not errors), (doc, errors)
            assert [error.message for error in shape.iter_errors(doc)] == errors
    assert invalid > MUTATIONS // 4  # the mutations reach the checks, not only harmless places


def test_an_invalid_file_still_lists_every_problem_in_jsonschemas_words(documents):
    doc = copy.deepcopy(documents[0])
    doc["festival"]["slug"] = 5
    doc["formatVersion"] = 99
    problems = []
    with pytest.raises(FixtureError):
        check_shape(doc, ShapeValidator(json_schema()), problems)
    assert [where for where, _ in problems] == ["$.festival.slug", "$.formatVersion"]
    assert ("$.festival.slug", "5 is not of type 'string'") in problems
