"""Every problem of a file in one run, in the terms of the file: CSV file, line, column, value."""
import shutil
from pathlib import Path

import pytest

from conftest import writable
from natural_festival import natural_festival
from seed.pipeline.write.importer import FixtureError, import_file, validate

EXAMPLE = Path(__file__).resolve().parent.parent / "seed" / "examples" / "district-fest-csv"


@pytest.fixture
def folder(tmp_path):
    """A copy of the example folder to spoil."""
    copy = tmp_path / "fest"
    shutil.copytree(EXAMPLE, copy)
    return copy


def edit(folder, name, change):
    """Rewrite ``folder/name`` line by line: ``change(lines)`` returns the new lines."""
    path = folder / name
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    path.write_text("\n".join(change(lines)) + "\n", encoding="utf-8")


def next_line(folder, name):
    """The line number a row appended to ``folder/name`` will have."""
    return len((folder / name).read_text(encoding="utf-8-sig").splitlines()) + 1


def problems_of(url, folder):
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
    return caught.value


def test_three_mistakes_in_a_results_file_are_listed_in_one_run(fresh_app, folder):
    _, url = fresh_app

    def three_mistakes(lines):
        assert lines[1].startswith("general,UP-LM,1007,81,") and lines[2].startswith("general,UP-LM,1009,59,")
        out = [lines[0] + ",grade"]
        for number, line in enumerate(lines[1:], start=2):
            if number == 2:
                line = line.replace(",1007,", ",1070,")  # a mistyped chest number
            out.append(line + (",A" if number == 3 else ","))  # grade A needs 80; the score is 59
        return out + [lines[4] + ","]  # line 5 again, as the last line

    last = next_line(folder, "results.csv")
    edit(folder, "results.csv", three_mistakes)
    error = problems_of(url, folder)
    assert error.located() == [
        ("results.csv line 2, column chest_no",
         "no registration of chest_no '1070' in programme 'UP-LM': no candidate has chest_no '1070' in sub-fest "
         "'general' (did you mean '1007' or '1010' or '1009'?)"),
        ("results.csv line 3, column grade", "grade 'A' needs a score of at least 80; the score is 59"),
        (f"results.csv line {last}, column chest_no",
         "chest_no '1012' in programme 'UP-LM' is given twice (also line 5): keep one of the two rows"),
    ]


def test_a_duplicate_points_at_the_other_line_and_names_no_id(fresh_app, folder):
    _, url = fresh_app
    last = next_line(folder, "programmes.csv")
    edit(folder, "programmes.csv", lambda lines: lines + [lines[1]])
    [(where, message)] = problems_of(url, folder).located()
    assert (where, message) == (f"programmes.csv line {last}, column code",
                                "code 'LM' is given twice (also line 2): keep one of the two rows")


def test_problems_of_different_kinds_and_files_come_in_one_run_in_file_order(fresh_app, folder):
    _, url = fresh_app
    edit(folder, "subFests.csv", lambda lines: lines + ["extra,Extra,,maybe"])
    edit(folder, "news.csv", lambda lines: [lines[0], lines[1].replace("2026-11-15T18:00:00+05:30", "15/11/2026")]
         + lines[2:])
    edit(folder, "results.csv", lambda lines: [lines[0], lines[1].replace(",81,", ",eighty,")]
         + [line.replace("UP-MO", "UP-MQ") if number == 10 else line
            for number, line in enumerate(lines[2:], start=3)])
    header = (folder / "subFests.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    error = problems_of(url, folder)
    assert [where for where, _ in error.located()] == [
        "news.csv line 2, column published_at",
        "results.csv line 2, column score",
        "results.csv line 10, column sub_fest_programme_code",
        f"subFests.csv line 4, column {header[3]}",
    ]
    messages = dict(error.located())
    assert messages["news.csv line 2, column published_at"] == (
        "'15/11/2026' is not a date and time: write YYYY-MM-DD HH:MM (the festival's local time) or with an "
        "offset, e.g. 2026-11-16T10:30:00+05:30; if that is 15 November 2026, write 2026-11-15")
    assert "did you mean 'UP-MO'" in messages["results.csv line 10, column sub_fest_programme_code"]


def test_a_chest_number_of_another_sub_fest_says_where_it_is(fresh_app, folder):
    _, url = fresh_app
    registration, result = next_line(folder, "registrations.csv"), next_line(folder, "results.csv")
    edit(folder, "registrations.csv", lambda lines: lines + ["general,UP-LM,5001,individual,GHSS Chavakkad,,,yes"])
    edit(folder, "results.csv", lambda lines: lines + ["general,UP-MO,5002,60,,yes,2026-11-17T10:30:00+05:30"])
    located = problems_of(url, folder).located()
    assert located == [
        (f"registrations.csv line {registration}, column chest_no",
         "no sub_fest_candidate with chest_no '5001' in sub-fest 'general' (an entry of 'UP-LM'); it is in "
         "sub-fest 'arabic'"),
        (f"results.csv line {result}, column chest_no",
         "no registration of chest_no '5002' in programme 'UP-MO': chest_no '5002' is in sub-fest 'arabic', "
         "not 'general'"),
    ]


def test_a_candidate_not_registered_for_the_programme_is_told_apart(fresh_app, folder):
    _, url = fresh_app
    last = next_line(folder, "results.csv")
    edit(folder, "results.csv", lambda lines: lines + ["general,UP-LM,1002,60,,yes,2026-11-16T10:30:00+05:30"])
    [(where, message)] = problems_of(url, folder).located()
    assert where == f"results.csv line {last}, column chest_no"
    assert message.startswith("no registration of chest_no '1002' in programme 'UP-LM': chest_no '1002' is a "
                              "candidate of sub-fest 'general' but is not registered for 'UP-LM'"), message


def test_cells_that_do_not_parse_come_with_the_other_problems(fresh_app, folder):
    _, url = fresh_app
    edit(folder, "results.csv", lambda lines: [lines[0], lines[1].replace(",81,", ",abc,"),
                                               lines[2].replace(",1009,", ",9999,")] + lines[3:])
    located = problems_of(url, folder).located()
    assert [where for where, _ in located] == ["results.csv line 2, column score", "results.csv line 3, column chest_no"]


def test_json_problems_are_named_by_their_path_all_at_once(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["results"][0]["chest_no"] = "999"
    data["results"].append(dict(data["results"][1]))
    data["news"][0]["published_at"] = "01/01/2026"
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    paths = [path for path, _ in caught.value.problems]
    assert paths == ["$.results[0].chest_no", f"$.results[{len(data['results']) - 1}].chest_no",
                     "$.news[0].published_at"]
    assert f"(also $.results[1])" in caught.value.problems[1][1]


def test_a_message_names_only_columns_the_sheet_has(fresh_app, folder):
    """A result given by chest number whose programme is not the registration's: the sheet's
    column is ``sub_fest_programme_code``, not the file format's ``sub_fest_programme``."""
    from seed.pipeline.read.sources import Source

    source = Source("fest", {}, rows={"$.results[0]": ("results.csv", 2)},
                    headers={"results": ["sub_fest_slug", "sub_fest_programme_code", "chest_no", "score"]})
    assert source.locate("$.results[0].sub_fest_programme") == "results.csv line 2, column sub_fest_programme_code"
    assert source.locate("$.results[0].registration") == "results.csv line 2, column chest_no"
    assert source.locate("$.results[0].points") == "results.csv line 2"
    assert source.locate("$.results[0].id") == "results.csv line 2"


def test_the_guide_shows_what_the_importer_says(fresh_app, folder):
    """docs/spreadsheets.md's "When something is wrong" is the output for these mistakes."""
    _, url = fresh_app
    edit(folder, "news.csv", lambda lines: lines[:2] + [lines[2].replace("2026-11-16T20:00:00+05:30",
                                                                         "15/11/2026 18:00")] + lines[3:])

    def results(lines):
        out = [lines[0] + ",grade"]
        for number, line in enumerate(lines[1:], start=2):
            line = line.replace(",1007,", ",1070,") if number == 2 else line
            line = line.replace("UP-MO", "UP-MQ") if number == 10 else line
            out.append(line + (",A" if number == 3 else ","))
        return out + [lines[4] + ","]

    edit(folder, "results.csv", results)
    edit(folder, "subFestCandidates.csv", lambda lines: lines[:13] + [lines[13].replace(
        "GHSS Chavakkad", "GHSS Chavakad")] + lines[14:])
    guide = (EXAMPLE.parent.parent.parent / "docs" / "spreadsheets.md").read_text(encoding="utf-8")
    block = guide.split("## When something is wrong", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    shown = [line.strip() for line in block.splitlines() if line.startswith("  ")]
    assert problems_of(url, folder).lines() == shown


def test_criteria_of_the_wrong_shape_are_a_problem_not_a_crash(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["positionCriteria"][0]["points"] = [5, 3, 1]
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    assert caught.value.problems == [("$.positionCriteria[0].points",
                                      'points must map each position to its points, e.g. {"1": 5, "2": 3, "3": 1}')]


def test_a_column_a_sheet_cannot_have_is_reported_and_not_acted_on(fresh_app):
    """``deleted`` on a sub-fest is no column of subFests: reported with the rest, it deletes nothing."""
    _, url = fresh_app
    data = natural_festival()
    data["subFests"][1]["deleted"] = True
    data["results"][0]["chest_no"] = "999"
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    paths = [path for path, _ in caught.value.problems]
    assert paths == ["$.subFests[1]", "$.results[0].chest_no"], caught.value.problems
    assert "'deleted' was unexpected" in caught.value.problems[0][1]


def test_an_update_lists_every_problem_in_one_run_too(fresh_app):
    from natural_festival import SLUG
    from seed.pipeline.write.importer import import_fixture
    from seed.pipeline.write.update import update_fixture

    _, url = fresh_app
    results = [{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "999", "score": 50},
               {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 70,
                "grade": "A"},
               {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 71}]
    with writable(url):
        import_fixture(natural_festival())
        with pytest.raises(FixtureError) as caught:
            update_fixture({"formatVersion": 1, "festival": {"slug": SLUG}, "results": results})
    assert [path for path, _ in caught.value.problems] == [
        "$.results[0].chest_no", "$.results[1].grade", "$.results[2].chest_no"], caught.value.problems


# --- programme codes: unique within a sub-fest, in any letter case ---------------------------


@pytest.mark.parametrize("sub_fest, code, expected", [
    ("arabic", "HS-LM", None),  # another sub-fest: another programme
    ("general", "hs-lm", "programme code 'hs-lm' in sub-fest 'general' is already used by line 8 (as 'HS-LM'): "
                         "codes are unique within a sub-fest, in any letter case"),
    ("general", "UP-LM", "UP-LM"),  # the same row's natural key twice
])
def test_a_programme_code_is_unique_within_its_sub_fest_in_any_letter_case(fresh_app, folder, sub_fest, code,
                                                                           expected):
    _, url = fresh_app
    line = next_line(folder, "subFestProgrammes.csv")
    edit(folder, "subFestProgrammes.csv", lambda lines: lines + [f"{sub_fest},LM,,{code},scheduled,,,,,,99,"])
    if expected is None:
        with writable(url):
            import_file(folder)
        return
    located = dict(problems_of(url, folder).located())
    message = located[f"subFestProgrammes.csv line {line}, column code"]
    assert expected in message, located


def test_an_update_cannot_add_a_code_that_differs_from_a_stored_one_only_in_case(fresh_app, tmp_path):
    from seed.pipeline.write.update import update_file

    _, url = fresh_app
    update = tmp_path / "update"
    update.mkdir()
    (update / "festival.csv").write_text("slug\ndistrict-fest-2026\n", encoding="utf-8")
    (update / "subFestProgrammes.csv").write_text(
        "sub_fest_slug,programme_code,code\ngeneral,LM,Hs-Lm\n", encoding="utf-8")
    with writable(url):
        import_file(EXAMPLE)
        with pytest.raises(FixtureError) as caught:
            update_file(update)
    assert caught.value.located() == [
        ("subFestProgrammes.csv line 2, column code",
         "programme code 'Hs-Lm' in sub-fest 'general' is already used by the stored programme 'HS-LM': "
         "codes are unique within a sub-fest, in any letter case")]


@pytest.mark.parametrize("column, bad", [("date_of_birth", "SECRET-2010-13-45"), ("date_of_birth", "31/02/2010"),
                                         ("date_of_birth", "14/11/2013")])
def test_a_problem_of_a_private_column_names_where_it_is_never_the_value(fresh_app, folder, column, bad):
    # ``follow`` writes its problems to the journal: a private value must not reach it.
    edit(folder, "candidates.csv", lambda lines: [lines[0] + f",{column}", lines[1] + f",{bad}", *lines[2:]])
    lines = problems_of(fresh_app[1], folder).lines()
    found = [line for line in lines if f"column {column}" in line]
    assert found == [f"candidates.csv line 2, column {column}: (a private value) is not a date: write YYYY-MM-DD"]
    assert not any(bad in line or "2013" in line for line in lines)


def test_private_values_stay_out_of_a_workbooks_and_a_json_files_problems(fresh_app, folder, tmp_path):
    """The same date of birth in a workbook and in JSON, with an admission number of the wrong
    type: each is named by its row and column; neither value, nor the date read back, is shown."""
    import json

    from seed.pipeline.read.workbook import folder_as_workbook

    edit(folder, "candidates.csv", lambda lines: [lines[0] + ",date_of_birth", lines[1] + ",14/11/2013", *lines[2:]])
    book = tmp_path / "fest.xlsx"
    folder_as_workbook(folder, book)
    lines = problems_of(fresh_app[1], book).lines()
    assert [line for line in lines if "date_of_birth" in line] == [
        f"{book} sheet candidates row 2, column "
        f"{chr(ord('A') + (folder / 'candidates.csv').read_text().splitlines()[0].split(',').index('date_of_birth'))}"
        " (date_of_birth): (a private value) is not a date: write YYYY-MM-DD".replace(f"{book} ", "")]
    data = natural_festival()
    data["candidates"][0].update(date_of_birth="14/11/2013", admission_number=98765, email=["x@example.org"])
    path = tmp_path / "fest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    lines = problems_of(fresh_app[1], path).lines()
    assert sorted(line for line in lines if "$.candidates[0]" in line) == [
        f"{path} $.candidates[0].admission_number: (a private value) is not of type (a private value), "
        "(a private value)",
        f"{path} $.candidates[0].date_of_birth: (a private value) is not a date: write YYYY-MM-DD",
        f"{path} $.candidates[0].email: (a private value) is not of type (a private value), (a private value)",
    ]
    assert not any(secret in line for line in lines for secret in ("2013", "98765", "x@example"))
