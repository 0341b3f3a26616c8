"""The compiled read model holds public data only: no private column, value or hidden record.

The HTTP service reads these tables; if a private value is not in them, no request can
return it, whatever a reader does. These tests read the tables of the seeded database
directly, every column of every row.
"""
import datetime

import pytest

from conftest import BIG, SMALL, writable
from db.compiled.tables import HISTORY_MODELS, READ_MODELS
from fixture_rules import PRIVATE_FIELD_NAMES, flag, private_values
from substrings import any_of
from test_privacy import hidden_ids

COMPILED = [*READ_MODELS, *HISTORY_MODELS]
PRIVATE_COLUMNS = {"email", "phone", "date_of_birth", "admission_number", "admission_details"}


def as_text(value):
    if isinstance(value, memoryview):
        value = bytes(value)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def compiled_text(url):
    """``{table: [text of every value of every row]}`` of the compiled tables."""
    with writable(url):
        return {model._meta.table_name: [as_text(value) for row in model.select().tuples()
                                         for value in row if value is not None]
                for model in COMPILED}


@pytest.fixture(scope="module")
def compiled(seeded):
    return compiled_text(seeded[0])


def test_no_compiled_table_has_a_private_column():
    for model in COMPILED:
        columns = set(model._meta.fields)
        assert not columns & PRIVATE_COLUMNS, model
        assert not {c for c in columns if any(p in c for p in ("email", "phone", "birth", "admission"))}, model


def test_every_compiled_table_is_filled(compiled):
    empty = [table for table, values in compiled.items() if not values]
    assert not empty


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_private_value_in_any_compiled_row(compiled, fixture_data, slug):
    secrets = private_values(fixture_data[slug])
    assert secrets
    found = any_of(secrets)
    for table, values in compiled.items():
        text = "\n".join(values)
        assert not found.search(text), (table, [s for s in secrets if s in text][:3])
        assert not [f'"{name}"' for name in PRIVATE_FIELD_NAMES if f'"{name}"' in text], table


def scheduled_news(data):
    """News that is published and public but for a later moment: compiled, shown when due."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return {n["id"] for n in data.get("news", [])
            if n.get("status") == "published" and flag(n, "is_public") and not flag(n, "is_deleted", False)
            and n.get("published_at") and datetime.datetime.fromisoformat(n["published_at"].replace("Z", "+00:00")) > now}


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_hidden_record_in_any_compiled_row(compiled, fixture_data, slug):
    data = fixture_data[slug]
    hidden = hidden_ids(data) - scheduled_news(data)
    found, found_hex = any_of(hidden), any_of({i.replace("-", "") for i in hidden})
    for table, values in compiled.items():
        text = "\n".join(values)
        hex_text = text.replace("-", "")
        leaked = found.search(text) or found_hex.search(hex_text)
        assert not leaked, (table, [i for i in hidden if i in text or i.replace("-", "") in hex_text][:3])
