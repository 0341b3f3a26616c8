"""``festival-api export``: the festival back out as the CSV folder; imported again into a fresh
database, it gives the very same public answers."""
import contextlib
import csv
import datetime
import re

import pytest
from click.testing import CliRunner

import pg_scratch
from app.cli import main as cli
from conftest import ON_POSTGRES, TEST_DATABASE_URL, writable
from db import clock
from db.compiled.tables import READ_MODELS, PublicSecret, create_tables
from seed import bundled_fixtures
from seed.export import export_festival
from seed.importer import import_file

EXAMPLE = "seed/examples/district-fest-csv"
SOURCES = [EXAMPLE, *map(str, bundled_fixtures())]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
NOW = datetime.datetime(2026, 1, 18, 12, 0)


@contextlib.contextmanager
def empty_database(tmp_path, name):
    """A writable, empty database with the tables, bound for the block."""
    if ON_POSTGRES:
        with pg_scratch.empty_database(TEST_DATABASE_URL) as url, writable(url) as db:
            create_tables()
            yield db
        return
    with writable(f"sqlite:///{tmp_path / name}.sqlite3") as db:
        create_tables()
        yield db


def comparable(value):
    return bytes(value) if isinstance(value, memoryview) else value  # PostgreSQL's bytea


def public_rows(festival_id):
    """Every compiled row of the festival (what every endpoint answers from), per table."""
    return {model.__name__: sorted(repr(tuple(map(comparable, row)))
                                   for row in model.select().where(model.festival == festival_id).tuples())
            for model in READ_MODELS}


@pytest.fixture
def frozen_clock(monkeypatch):
    """Both imports compute their leaderboards at the same moment (lastComputedAt)."""
    monkeypatch.setattr(clock, "utcnow", lambda: NOW)


@pytest.mark.parametrize("source", SOURCES)
def test_importing_the_export_into_a_fresh_database_gives_the_same_public_rows(source, tmp_path, frozen_clock):
    folder = tmp_path / "export"
    with empty_database(tmp_path, "first"):
        festival = import_file(source).festival
        before = public_rows(festival.id)
        secret = PublicSecret.get(PublicSecret.festival == festival.id).hash_key
        export_festival(festival, folder)
    with empty_database(tmp_path, "second"):
        # The keyed hash of admission numbers (never shown) uses a random key per database.
        PublicSecret.create(festival=festival.id, hash_key=secret)
        again = import_file(folder).festival
        assert again.id == festival.id
        assert public_rows(festival.id) == before
    assert sum(len(rows) for rows in before.values()) > 100


def test_the_export_of_a_festival_with_natural_keys_has_no_ids(tmp_path):
    folder = tmp_path / "export"
    with empty_database(tmp_path, "first"):
        export_festival(import_file(EXAMPLE).festival, folder)
    files = {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.csv")}
    assert {"festival.csv", "results.csv", "registrations.csv", "websitePages.csv"} <= files.keys()
    assert [name for name, text in files.items() if UUID.search(text)] == []
    with open(folder / "results.csv", newline="", encoding="utf-8") as fh:
        first = next(csv.DictReader(fh))
    assert {"sub_fest_slug", "sub_fest_programme_code", "chest_no", "position"} <= first.keys()
    assert first["published_at"].endswith("+05:30"), "times in the festival's local time, with the offset"


def test_the_cli_exports_to_a_new_folder_and_refuses_one_that_holds_csv_files(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    with writable(url):
        create_tables()
        import_file(EXAMPLE)
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    done = runner.invoke(cli, ["export", "district-fest-2026", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "out" / "results.csv").is_file()
    again = runner.invoke(cli, ["export", "district-fest-2026", str(tmp_path / "out")])
    assert again.exit_code == 1 and "already holds CSV files" in again.output
    missing = runner.invoke(cli, ["export", "no-such-fest", str(tmp_path / "other")])
    assert missing.exit_code == 2 and "no festival with slug 'no-such-fest'" in missing.output
