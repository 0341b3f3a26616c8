"""A festival as one .xlsx workbook: the example workbook, problems named by sheet, row and
column, a half-saved file, `--update` and `--dry-run`, and `export` to a workbook."""
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import Workbook, load_workbook

from app.cli import main as cli
from conftest import writable
from db.source import models as m
from seed.pipeline.read.csv_folder import read_folder
from seed.pipeline.export import export_festival
from seed.pipeline.write.importer import FixtureError, import_file
from seed.pipeline.read.workbook import read_workbook
from test_export import empty_database, frozen_clock, public_rows  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_FOLDER = ROOT / "seed" / "examples" / "district-fest-csv"
EXAMPLE_WORKBOOK = ROOT / "seed" / "examples" / "district-fest.xlsx"
SLUG = "district-fest-2026"


def workbook(path, sheets):
    """Write ``sheets`` (``{title: [row, ...]}``, the first row the header) as an .xlsx file."""
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def test_the_example_workbook_reads_as_the_example_folder():
    assert read_workbook(EXAMPLE_WORKBOOK).data == read_folder(EXAMPLE_FOLDER).data


def test_the_example_workbook_and_folder_import_to_identical_public_rows(tmp_path, frozen_clock):  # noqa: F811
    from db.compiled.tables import PublicSecret

    with empty_database(tmp_path, "folder"):
        festival = import_file(EXAMPLE_FOLDER).festival
        from_folder = public_rows(festival.id)
        secret = PublicSecret.get(PublicSecret.festival == festival.id).hash_key
    with empty_database(tmp_path, "workbook"):
        # The keyed hash of admission numbers (never shown) uses a random key per database.
        PublicSecret.create(festival=festival.id, hash_key=secret)
        assert import_file(EXAMPLE_WORKBOOK).festival.id == festival.id
        from_workbook = public_rows(festival.id)
    assert stamped_now(from_workbook) == stamped_now(from_folder)
    assert sum(len(rows) for rows in from_folder.values()) > 100


def stamped_now(rows):
    """``rows`` without the moments the database stamps a row with when it is written
    (created, updated, registered): the two imports ran seconds apart."""
    def plain(row):
        row = re.sub(r'"(createdAt|updatedAt|registeredAt)":"[^"]*"', "", row)
        return re.sub(r"datetime\.datetime\([^)]*\)", "moment", row)

    return {table: sorted(map(plain, table_rows)) for table, table_rows in rows.items()}


def test_typed_cells_read_as_the_csv_text(tmp_path):
    import datetime

    path = workbook(tmp_path / "typed.xlsx", {
        "festival": [["slug", "name", "timezone", "start_date"],
                     ["typed-fest", "Typed", "Asia/Kolkata", datetime.datetime(2026, 11, 16)]],
        "Results": [["sub_fest_slug", "sub_fest_programme_code", "chest_no", "score", "is_published", "published_at"],
                    ["main", "LM", 1001, 87.5, True, datetime.datetime(2026, 11, 17, 12, 0)],
                    [None, None, None, None, None, None]],
        "_notes": [["anything", "goes"]],
    })
    source = read_workbook(path)
    assert source.problems == []
    assert source.data["festival"]["start_date"] == "2026-11-16"
    assert source.data["results"] == [{"sub_fest_slug": "main", "sub_fest_programme_code": "LM", "chest_no": "1001",
                                       "score": 87.5, "is_published": True, "published_at": "2026-11-17 12:00"}]


def test_problems_name_the_sheet_row_column_letter_header_and_value(fresh_app, tmp_path):
    _, url = fresh_app
    book = load_workbook(EXAMPLE_WORKBOOK)
    results = book["results"]
    header = [cell.value for cell in results[1]]
    score = header.index("score") + 1
    results.cell(row=2, column=score, value="abc")
    results.cell(row=3, column=header.index("chest_no") + 1, value="9999")
    book.create_sheet("Notes")
    book.save(tmp_path / "bad.xlsx")
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(tmp_path / "bad.xlsx")
        assert not m.Festival.select().where(m.Festival.slug == SLUG).exists()
    located = dict(caught.value.located())
    letter = "ABCDEFGHIJ"[score - 1]
    assert located[f"sheet results row 2, column {letter} (score)"] == "'abc' is not a number"
    chest = [where for where in located if where.startswith("sheet results row 3, column ")]
    assert chest and chest[0].endswith("(chest_no)"), located
    notes = [message for where, message in caught.value.located() if "'Notes'" in message]
    assert notes and "start its name with '_'" in notes[0]


def test_the_value_is_named_when_the_message_does_not_quote_it(tmp_path):
    path = workbook(tmp_path / "v.xlsx", {"festival": [["slug", "name"], ["v-fest", "V"]],
                                          "subFests": [["slug", "name", "display_order"], ["main", "Main", "first"]]})
    source = read_workbook(path)
    assert source.locate("$.subFests[0].display_order", "'first' is not a whole number") == \
        "sheet subFests row 2, column C (display_order)"
    assert source.locate("$.subFests[0].name", "is too long") == "sheet subFests row 2, column B (name), value 'Main'"


def test_a_private_cell_is_located_but_its_value_never_quoted(tmp_path):
    path = workbook(tmp_path / "p.xlsx", {"festival": [["slug", "name"], ["p-fest", "P"]],
                                          "candidates": [["admission_number", "name", "phone"],
                                                         ["ADM-1", "Anu", "+91 90000 12345"]]})
    source = read_workbook(path)
    assert source.locate("$.candidates[0].phone", "is too long") == "sheet candidates row 2, column C (phone)"
    assert source.locate("$.candidates[0].name", "is too long") == \
        "sheet candidates row 2, column B (name), value 'Anu'"


@pytest.mark.parametrize("damage", ["truncated", "empty", "not a zip"])
def test_a_half_saved_workbook_is_one_clear_problem(tmp_path, damage):
    whole = EXAMPLE_WORKBOOK.read_bytes()
    content = {"truncated": whole[: len(whole) // 2], "empty": b"", "not a zip": b"PK\x03\x04garbage"}[damage]
    path = tmp_path / "saving.xlsx"
    path.write_bytes(content)
    with pytest.raises(FixtureError) as caught:
        read_workbook(path)
    [(where, message)] = caught.value.problems
    assert "is not a readable .xlsx workbook" in message and "if it is being saved, wait" in message


def test_update_and_dry_run_read_a_workbook(fresh_app, tmp_path, monkeypatch):
    _, url = fresh_app
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(cli, ["import", str(EXAMPLE_WORKBOOK)]).exit_code == 0
    update = workbook(tmp_path / "hs-lm.xlsx", {
        "festival": [["slug"], [SLUG]],
        "results": [["sub_fest_slug", "sub_fest_programme_code", "chest_no", "score", "position", "is_published",
                     "published_at"],
                    ["general", "HS-LM", 1013, 95, 1, "yes", "2026-11-17 12:00"]],
    })
    dry = runner.invoke(cli, ["import", "--update", "--dry-run", str(update)])
    assert dry.exit_code == 0, dry.output
    assert "results: 0 added, 1 changed, 0 withdrawn" in dry.output and "nothing was written" in dry.output
    done = runner.invoke(cli, ["import", "--update", str(update)])
    assert done.exit_code == 0, done.output
    with writable(url):
        result = (m.Result.select().join(m.Registration).join(m.SubFestProgramme)
                  .where(m.SubFestProgramme.code == "HS-LM", m.Result.position == 1).get())
        assert (result.score, result.is_published) == (95, True)


def test_an_exported_workbook_imports_to_the_same_public_rows(tmp_path, frozen_clock):  # noqa: F811
    from db.compiled.tables import PublicSecret

    path = tmp_path / "current.xlsx"
    with empty_database(tmp_path, "first"):
        festival = import_file(EXAMPLE_FOLDER).festival
        before = public_rows(festival.id)
        secret = PublicSecret.get(PublicSecret.festival == festival.id).hash_key
        assert export_festival(festival, path) == [path]
    sheets = load_workbook(path, read_only=True).sheetnames
    assert sheets[0] == "festival" and {"results", "registrations"} <= set(sheets)
    with empty_database(tmp_path, "second"):
        PublicSecret.create(festival=festival.id, hash_key=secret)
        assert import_file(path).festival.id == festival.id
        assert public_rows(festival.id) == before


def test_the_cli_exports_a_workbook_and_never_overwrites_one(tmp_path, monkeypatch):
    from db.compiled.tables import create_tables

    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    with writable(url):
        create_tables()
        import_file(EXAMPLE_FOLDER)
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    done = runner.invoke(cli, ["export", SLUG, str(tmp_path / "current.xlsx")])
    assert done.exit_code == 0, done.output
    assert read_workbook(tmp_path / "current.xlsx").data["festival"]["slug"] == SLUG
    again = runner.invoke(cli, ["export", SLUG, str(tmp_path / "current.xlsx")])
    assert again.exit_code == 1 and "already exists" in again.output
    shutil.rmtree(tmp_path / "nowhere", ignore_errors=True)
    nowhere = runner.invoke(cli, ["export", SLUG, str(tmp_path / "nowhere" / "x.xlsx")])
    assert nowhere.exit_code == 1 and "no folder" in nowhere.output
