"""Every way a file can take a published winner down is refused, or is a named withdrawal.

Four edits of the natural festival, each in a JSON file, a CSV folder and an .xlsx workbook,
each through a full import, ``import --update``, the dry runs of both (the update's through
the command, whose summary must say what changed) and one turn of ``follow``:

- the festival row switched off (``is_active = no``: every key would answer 401);
- a published winner's entry given to another candidate (its ``sub_fest_candidate``);
- a published result moved to another entry (its ``registration``);
- two published results swapping their entries (an update refuses it in the sheet's terms,
  never with the database's ``UNIQUE constraint failed``).

Nothing is written by any of them; ``--allow-withdrawals`` makes the first three a named withdrawal.
"""
import contextlib
import csv
import json

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import database_copy, writable, writable_app_on_copy
from db.source import models as m
from natural_festival import SLUG, natural_festival, update
from seed.pipeline.follow import FileSource, FolderSource, Follower
from seed.pipeline.write.importer import import_file, import_fixture
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.write.update import update_file, update_source
from seed.pipeline.guard.withdrawals import WithdrawalRefused
from seed.pipeline.read.workbook import folder_as_workbook
from test_withdrawals import stored

P1 = {"sub_fest_slug": "main", "sub_fest_programme_code": "P1"}
WINNER = "published result main P1 chest 101, position 1: "
SECOND = "published result main P1 chest 102, position 2: "
# edit -> the lines a refusal (or a dry run) must list; a swap in an update is a problem instead
EXPECTED = {
    "festival_off": [f"published festival {SLUG}: the festival row would set is_active = no: every API key would "
                     "answer 401"],
    "entry_to_another_candidate": [WINNER + "its entry (registrations) would set sub_fest_candidate: it would be "
                                            "chest 104's instead of chest 101's"],
    "result_to_another_entry": [WINNER + "its row would set registration = the entry of chest 103 (it is chest 101's)"],
    "swap": [WINNER + "its row would set registration = the entry of chest 102 (it is chest 101's)",
             SECOND + "its row would set registration = the entry of chest 101 (it is chest 102's)"],
}
SWAP_PROBLEM = "takes the entry that"
EDITS = list(EXPECTED)
FORMATS = ["json", "csv", "xlsx"]
MODES = ["full", "update", "full_dry_run", "update_dry_run", "follow"]


def base_festival():
    """The natural festival and one more main candidate, chest 104, with no entry yet."""
    data = natural_festival()
    data["candidates"].append({"admission_number": "ADM-5", "name": "Esha"})
    data["subFestCandidates"].append({"sub_fest_slug": "main", "chest_no": "104", "candidate_admission_number": "ADM-5",
                                      "team_name": "Red School"})
    return data


def _entry(chest):
    return (m.Registration.select().join(m.SubFestCandidate).switch(m.Registration).join(m.SubFestProgramme)
            .join(m.SubFest).where((m.SubFest.slug == "main") & (m.SubFestProgramme.code == "P1")
                                   & (m.SubFestCandidate.chest_no == chest)).get())


@pytest.fixture(scope="module")
def template(seeded, tmp_path_factory):
    """``(url, ids)``: a copy of the seeded database with the festival imported, made once."""
    with database_copy(seeded[0], tmp_path_factory.mktemp("paths")) as url:
        with writable(url):
            import_fixture(base_festival())
            ids = {"entry_101": str(_entry("101").id),
                   "result_101": str(m.Result.get(m.Result.registration == _entry("101")).id),
                   "result_102": str(m.Result.get(m.Result.registration == _entry("102")).id)}
        yield url, ids


@pytest.fixture
def festival(template, tmp_path):
    with writable_app_on_copy(template[0], tmp_path) as (_, url):
        yield url, template[1]


@pytest.fixture(scope="module")
def _spare_copies(template, tmp_path_factory):
    """``(take, give back)``: copies of ``template`` for the tests that must write nothing. A
    test gives its copy back when it is still as ``template`` (its rows and revision), for the
    next such test; a copy a test changed (the test fails on its own check) is not used again."""
    with writable(template[0]):
        as_made = stored()
    spare = []

    def give_back(url):
        with writable(url):
            if stored() == as_made:
                spare.append(url)

    with contextlib.ExitStack() as made:
        def take():
            if spare:
                return spare.pop()
            return made.enter_context(database_copy(template[0], tmp_path_factory.mktemp("unwritten")))
        yield take, give_back


@pytest.fixture
def unwritten_festival(_spare_copies, template):
    """``(url, ids)`` like ``festival``, for a test that writes nothing: copies are shared while
    they are as ``template`` made them (on PostgreSQL a copy is a CREATE DATABASE)."""
    take, give_back = _spare_copies
    url = take()
    yield url, template[1]
    give_back(url)


def edited_rows(edit, ids):
    """``{section: rows}`` of the edit, each row naming its stored row by id."""
    if edit == "festival_off":
        return {}
    if edit == "entry_to_another_candidate":
        return {"registrations": [{**P1, "id": ids["entry_101"], "chest_no": "104"}],
                "results": [{**P1, "id": ids["result_101"], "chest_no": "104"}]}
    if edit == "result_to_another_entry":
        return {"results": [{**P1, "id": ids["result_101"], "chest_no": "103"}]}
    return {"results": [{**P1, "id": ids["result_101"], "chest_no": "102"},
                        {**P1, "id": ids["result_102"], "chest_no": "101"}]}


def full_document(edit, ids):
    data = base_festival()
    if edit == "festival_off":
        data["festival"]["is_active"] = False
    for section, rows in edited_rows(edit, ids).items():
        for row in rows:
            old_chest = {ids["entry_101"]: "101", ids["result_101"]: "101", ids["result_102"]: "102"}[row["id"]]
            match = [r for r in data[section] if r.get("sub_fest_slug") == "main"
                     and r.get("sub_fest_programme_code") == "P1" and r.get("chest_no") == old_chest and "id" not in r]
            match[0].update(row)
    return data


def update_document(edit, ids):
    festival = {"slug": SLUG, "is_active": False} if edit == "festival_off" else {"slug": SLUG}
    return {**update(**edited_rows(edit, ids)), "festival": festival}


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ";".join(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def write_csv_folder(data, folder):
    folder.mkdir()
    tables = {"festival": [data["festival"]], **{k: v for k, v in data.items() if isinstance(v, list) and v}}
    for name, rows in tables.items():
        columns = list(dict.fromkeys(column for row in rows for column in row))
        with open(folder / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=columns)
            writer.writeheader()
            writer.writerows({column: _cell(row.get(column)) for column in columns} for row in rows)
    return folder


def write_source(data, fmt, tmp_path, name):
    """``data`` as a file of format ``fmt``; returns its path."""
    if fmt == "json":
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path
    folder = write_csv_folder(data, tmp_path / name)
    if fmt == "csv":
        return folder
    book = tmp_path / f"{name}.xlsx"
    folder_as_workbook(folder, book)
    return book


def listed(expected, lines):
    return all(any(line.startswith(want) for line in lines) for want in expected)


def run(mode, edit, fmt, ids, tmp_path, url, monkeypatch):
    """Apply the edit through ``mode``; returns ``(kind, lines)``: refused, problems or dry."""
    full = mode.startswith("full")
    path = write_source(full_document(edit, ids) if full else update_document(edit, ids), fmt, tmp_path, "edit")
    if mode == "update_dry_run":  # through the command: its summary is what the office reads
        monkeypatch.setenv("DATABASE_URL", url)
        done = CliRunner().invoke(cli, ["import", "--update", "--dry-run", str(path)])
        assert "Traceback" not in done.output and "constraint" not in done.output.lower()
        assert "no changes" not in done.output, done.output
        lines = [line.strip() for line in done.output.splitlines()]
        return ("dry" if done.exit_code == 0 else "problems"), lines
    if mode == "follow":
        said = []
        source = FolderSource(path) if path.is_dir() else FileSource(path)
        Follower(source, said.append, update_source).turn()
        lines = [line.strip() for message in said for line in message.splitlines()]
        assert len(said) == 1, said
        if "published record(s) away" in said[0]:
            return "refused", lines
        return ("problems" if "problem(s)" in said[0] else "applied"), lines
    try:
        if full:
            summary = import_file(path, dry_run=mode == "full_dry_run")
        else:
            summary = update_file(path, dry_run=False)
    except WithdrawalRefused as exc:
        return "refused", exc.lines()
    except FixtureError as exc:
        return "problems", exc.lines()
    assert mode == "full_dry_run", f"{mode} was applied"
    assert summary.row_diff.lines(), "a dry run that finds a change says what it is"
    return "dry", [w.line() for w in summary.withdrawals]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("edit", EDITS)
def test_no_path_takes_a_published_winner_down_unasked(unwritten_festival, edit, fmt, mode, tmp_path, monkeypatch):
    url, ids = unwritten_festival
    with writable(url):
        before = stored()
        kind, lines = run(mode, edit, fmt, ids, tmp_path, url, monkeypatch)
        assert stored() == before, "nothing is written"
    assert not any("constraint" in line.lower() or "Traceback" in line for line in lines), lines
    if edit == "swap" and mode in ("update", "update_dry_run", "follow"):
        assert kind == "problems"
        swap_lines = [line for line in lines if SWAP_PROBLEM in line]
        assert len(swap_lines) == 2, lines
        if fmt != "json":  # in the sheet's terms: the file, its line or row, the column
            assert all(("results.csv line" in line or "sheet results row" in line) and "chest_no" in line
                       for line in swap_lines), swap_lines
        return
    expected_kind = "dry" if mode.endswith("dry_run") else "refused"
    assert kind == expected_kind, (kind, lines)
    assert listed(EXPECTED[edit], lines), lines


@pytest.mark.parametrize("edit", [e for e in EDITS if e != "swap"])
def test_the_flag_makes_it_a_named_withdrawal(festival, edit, tmp_path):
    url, ids = festival
    with writable(url):
        summary = update_source_of(update_document(edit, ids), tmp_path, allow_withdrawals=True)
        assert listed(EXPECTED[edit], [w.line() for w in summary.withdrawals])
        assert summary.row_diff.lines()
        if edit == "festival_off":
            assert not m.Festival.get(m.Festival.slug == SLUG).is_active


def update_source_of(data, tmp_path, **options):
    return update_file(write_source(data, "json", tmp_path, "allowed"), **options)


def test_a_swap_is_refused_in_the_sheets_terms_even_with_the_flag_and_a_full_import_makes_it(festival, tmp_path):
    url, ids = festival
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            update_file(write_source(update_document("swap", ids), "csv", tmp_path, "swap"), allow_withdrawals=True)
        assert [line.split(": ", 1)[0] for line in caught.value.lines()] == [
            f"{tmp_path / 'swap'} results.csv line 2, column chest_no".replace(f"{tmp_path / 'swap'} ", ""),
            "results.csv line 3, column chest_no"]
        summary = import_file(write_source(full_document("swap", ids), "csv", tmp_path, "full"),
                              allow_withdrawals=True)
        assert listed(EXPECTED["swap"], [w.line() for w in summary.withdrawals])
        assert {str(r.id): r.registration.sub_fest_candidate.chest_no for r in m.Result.select()
                if str(r.id) in (ids["result_101"], ids["result_102"])} == {ids["result_101"]: "102",
                                                                         ids["result_102"]: "101"}


def test_a_dry_run_of_a_festival_switched_off_says_so(unwritten_festival, tmp_path, monkeypatch):
    url, ids = unwritten_festival
    monkeypatch.setenv("DATABASE_URL", url)
    path = write_source(update_document("festival_off", ids), "csv", tmp_path, "off")
    done = CliRunner().invoke(cli, ["import", "--update", "--dry-run", str(path)])
    assert done.exit_code == 0, done.output
    assert "festival: changed is_active" in done.output
    assert "Without --allow-withdrawals, this import will be refused." in done.output
