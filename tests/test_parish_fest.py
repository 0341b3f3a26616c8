"""The example parish festival (seed/examples/parish-fest-csv/) ranks exactly as its own
tables say, written here by hand from its files and the rules of docs/rankings.md.

The festival: one sub-fest, Junior and Senior items (1st 5, 2nd 3, 3rd 2 points) and two
group items given as the parishes' own entries (1st 10, 2nd 7, 3rd 5); positions written
as dense ranks (``position_style`` dense: 1, 1, 2); five parishes, four of them in two
classes (``sections.csv`` lists each class's parishes); Anna Joseph holds chest numbers 101
and 102, Dona Mathew 105 and 106; Celin George (104) was absent from the Junior quiz and
Femi Varghese (202) disqualified in the Senior quiz (her 82 would have been second).

Points by item (chest number: points), worked out on paper:

    J-SONG   101 5, 103 5 (tied first, 90), 104 3, 105 2
    J-QUIZ   102 5, 103 5 (tied first, 88), 106 3; 104 absent
    J-STORY  105 5, 104 3, 101 2
    S-SONG   201 5, 203 3, 202 3 (tied second, 88), 204 2
    S-QUIZ   203 5, 201 3, 204 2; 202 disqualified
    S-STORY  201 5, 203 5 (tied first, 93), 202 3, 204 2
    GSONG    St Mary 10, St Joseph 10 (tied first), St Thomas 7, St George 5
    TAB      St George 10, St Joseph 7, St Mary 7 (tied second), St Thomas 5, St Antony 5 (tied third)

People (firsts, seconds): Eldho 5+3+5 = 13 (2, 1); George 3+5+5 = 13 (2, 1); Anna
5+2 (101) + 5 (102) = 12 (2, 0); Ben 5+5 = 10 (2, 0); Dona 2+5 (105) + 3 (106) = 10 (1, 1);
Celin 3+3 = 6 (0, 2); Femi 3+3 = 6 (0, 2); Hana 2+2+2 = 6 (0, 0).

Parishes (their children's points + their own entries; firsts, seconds): St Mary
12+13+10+7 = 42 (5, 2); St Joseph 10+6+10+7 = 33 (3, 3); St Thomas 6+13+7+5 = 31 (2, 4);
St George 10+6+5+10 = 31 (2, 1); St Antony 5 (0, 0).
"""
from pathlib import Path

import pytest

from conftest import writable
from seed.pipeline.read.csv_folder import read_folder
from seed.pipeline.read.workbook import folder_as_workbook, read_workbook
from seed.pipeline.write.importer import FixtureError, import_file
from tiny_festival import tiny_api

ROOT = Path(__file__).resolve().parent.parent
FESTIVAL = ROOT / "seed" / "examples" / "parish-fest-csv"
CONTRADICTION = Path(__file__).resolve().parent / "festivals" / "parish-fest-contradiction"

# (rank, tied, name, points, programmes, metrics, chest numbers) — by hand, never computed.
TABLES = {
    "Individual champion": [
        (1, True, "Eldho Paul", 13, 3, {"firsts": 2, "seconds": 1}, ["201"]),
        (1, True, "George Kurian", 13, 3, {"firsts": 2, "seconds": 1}, ["203"]),
        (3, False, "Anna Joseph", 12, 3, {"firsts": 2, "seconds": 0}, ["101", "102"]),
        (4, False, "Ben Thomas", 10, 2, {"firsts": 2, "seconds": 0}, ["103"]),
        (5, False, "Dona Mathew", 10, 3, {"firsts": 1, "seconds": 1}, ["105", "106"]),
        (6, True, "Celin George", 6, 2, {"firsts": 0, "seconds": 2}, ["104"]),
        (6, True, "Femi Varghese", 6, 2, {"firsts": 0, "seconds": 2}, ["202"]),
        (8, False, "Hana Jose", 6, 3, {"firsts": 0, "seconds": 0}, ["204"]),
    ],
    "Class A": [
        (1, False, "St Mary", 42, 8, {"firsts": 5, "seconds": 2}, None),
        (2, False, "St Joseph", 33, 6, {"firsts": 3, "seconds": 3}, None),
    ],
    "Class B": [  # equal points and firsts: more seconds ranks higher
        (1, False, "St Thomas", 31, 7, {"firsts": 2, "seconds": 4}, None),
        (2, False, "St George", 31, 8, {"firsts": 2, "seconds": 1}, None),
    ],
    "Parish championship": [  # dense ranks: after two tied at 3 comes 4
        (1, False, "St Mary", 42, 8, {"firsts": 5}, None),
        (2, False, "St Joseph", 33, 6, {"firsts": 3}, None),
        (3, True, "St George", 31, 8, {"firsts": 2}, None),
        (3, True, "St Thomas", 31, 7, {"firsts": 2}, None),
        (4, False, "St Antony", 5, 1, {"firsts": 0}, None),
    ],
    "Chest numbers": [  # today's rule: each chest number on its own, ties by name
        (1, True, "Eldho Paul", 13, 3, {}, ["201"]),
        (1, True, "George Kurian", 13, 3, {}, ["203"]),
        (3, False, "Ben Thomas", 10, 2, {}, ["103"]),
        (4, True, "Anna Joseph", 7, 2, {}, ["101"]),
        (4, True, "Dona Mathew", 7, 2, {}, ["105"]),
        (6, True, "Celin George", 6, 2, {}, ["104"]),
        (6, True, "Femi Varghese", 6, 2, {}, ["202"]),
        (6, True, "Hana Jose", 6, 3, {}, ["204"]),
        (9, False, "Anna Joseph", 5, 1, {}, ["102"]),
        (10, False, "Dona Mathew", 3, 1, {}, ["106"]),
    ],
}


def chest_numbers(entry):
    if entry.get("person"):
        return entry["person"]["chestNos"]
    if entry.get("candidate"):
        return [entry["candidate"]["chestNo"]]
    return None


def row(entry):
    return (entry["rank"], entry["tied"], entry["name"], entry["points"], entry["programmeCount"],
            entry["metrics"], chest_numbers(entry))


@pytest.fixture(scope="module")
def parish(seeded, tmp_path_factory):
    source = read_folder(FESTIVAL)
    assert source.problems == []
    with tiny_api(seeded[0], tmp_path_factory.mktemp("parish"), source.data) as (client, _):
        yield client


@pytest.mark.parametrize("label", list(TABLES))
def test_each_board_is_the_festivals_own_table(parish, label):
    assert [row(e) for e in parish.all("/toppers", placeholderLabel=label)] == TABLES[label]


def test_an_absent_or_disqualified_entry_is_in_no_result_list(parish):
    def chests(code):
        results = parish.ok("/programme-result", programCode=code, subFestSlug="bible-arts")["results"]
        return [r["candidate"]["chestNo"] for r in results]

    assert sorted(chests("J-QUIZ")) == ["102", "103", "106"]  # 104 was absent
    assert chests("S-QUIZ") == ["203", "201", "204"]  # 202 was disqualified


def parish_folder(folder):
    """``folder``, made, holding a copy of the festival's CSV files."""
    folder.mkdir()
    for path in FESTIVAL.glob("*.csv"):
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def test_a_contradictory_second_first_place_is_refused_naming_its_line(fresh_app, tmp_path):
    _, url = fresh_app
    folder = parish_folder(tmp_path / "parish")
    (folder / "results.csv").write_bytes((CONTRADICTION / "results.csv").read_bytes())  # the second copy
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
    assert caught.value.located() == [
        ("results.csv line 11, column position",
         "position 1 with score 86 contradicts line 10 (position 1 with score 92): equal positions need equal scores")]


def test_the_same_positions_under_the_standard_style_are_refused(fresh_app, tmp_path):
    _, url = fresh_app
    folder = parish_folder(tmp_path / "parish")
    festival = folder / "festival.csv"
    festival.write_text(festival.read_text(encoding="utf-8").replace(",dense\n", ",standard\n"), encoding="utf-8")
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
    located = caught.value.located()
    # a 3 was due after each tie at 1 (J-SONG, J-QUIZ, S-STORY, GSONG), a 4 after each at 2 (S-SONG, TAB)
    assert [where for where, _ in located] == [f"results.csv line {line}, column position"
                                               for line in (4, 8, 16, 23, 27, 32)]
    assert located[0][1] == ("position 2 follows 2 results at position 1 in programme 'J-SONG' in sub-fest "
                             "'bible-arts': with standard positions (ties share 1, 1, 3) the next is 3; if the "
                             "festival ranks that way, set the festival's position_style to dense")


def test_as_a_workbook_it_reads_the_same_and_its_contradiction_names_the_sheets_cell(fresh_app, tmp_path):
    _, url = fresh_app
    folder_as_workbook(FESTIVAL, tmp_path / "parish.xlsx")
    assert read_workbook(tmp_path / "parish.xlsx").data == read_folder(FESTIVAL).data
    folder = parish_folder(tmp_path / "contradiction")
    (folder / "results.csv").write_bytes((CONTRADICTION / "results.csv").read_bytes())
    folder_as_workbook(folder, tmp_path / "contradiction.xlsx")
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(tmp_path / "contradiction.xlsx")
    assert caught.value.located() == [
        ("sheet results row 11, column F (position), value '1'",
         "position 1 with score 86 contradicts row 10 (position 1 with score 92): equal positions need equal scores")]
