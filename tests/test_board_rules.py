"""A board's rule (docs/rankings.md, "A board's rule"): each part against boards ranked by
hand (tests/board_rules_festival.py), as stored, as served (`metrics`, `rule`, a person's
entry), as it stood (`asOf`, the race), and its import problems in the sheet's terms."""
import copy
import uuid

import pytest

from board_rules_festival import BOARDS, SLUG, rules_festival
from conftest import run_init, writable
from db.source.board_rule import rule_of
from db.source import models as m
from seed.pipeline.read.csv_folder import read_files
from seed.pipeline.write.importer import FixtureError, validate
from test_export import empty_database, frozen_clock, public_rows  # noqa: F401 (a fixture)
from tiny_festival import tiny_api

# label -> [(rank, tied, name, points, metrics)], best first (ties by name): ranked by hand
# from the results in tests/board_rules_festival.py.
CHESTS = [("Anu", 18), ("Bala", 18), ("Chitra", 18), ("Devi", 16), ("Anu", 8), ("Esha", 1)]
HAND_RANKED = {
    # today's rule: equal points share a rank, listed by name
    "chests": [(1, True, "Anu", 18, {}), (1, True, "Bala", 18, {}), (1, True, "Chitra", 18, {}),
               (4, False, "Devi", 16, {}), (5, False, "Anu", 8, {}), (6, False, "Esha", 1, {})],
    # firsts, then seconds, then thirds break the 18s: 2 firsts; 1 first; none
    "chests-firsts": [
        (1, False, "Anu", 18, {"firsts": 2, "seconds": 0, "thirds": 0}),
        (2, False, "Bala", 18, {"firsts": 1, "seconds": 1, "thirds": 0}),
        (3, False, "Chitra", 18, {"firsts": 0, "seconds": 2, "thirds": 1}),
        (4, False, "Devi", 16, {"firsts": 1, "seconds": 1, "thirds": 0}),
        (5, False, "Anu", 8, {"firsts": 0, "seconds": 1, "thirds": 1}),
        (6, False, "Esha", 1, {"firsts": 0, "seconds": 0, "thirds": 0})],
    # the last tie is shared: Anu and Bala have no third place each
    "chests-thirds": [(1, False, "Chitra", 18, {"thirds": 1}), (2, True, "Anu", 18, {"thirds": 0}),
                      (2, True, "Bala", 18, {"thirds": 0}), (4, False, "Devi", 16, {"thirds": 0}),
                      (5, False, "Anu", 8, {"thirds": 1}), (6, False, "Esha", 1, {"thirds": 0})],
    "chests-fewest": [(1, True, "Anu", 18, {"fewest_entries": 2}), (1, True, "Bala", 18, {"fewest_entries": 2}),
                      (3, False, "Chitra", 18, {"fewest_entries": 3}), (4, False, "Devi", 16, {"fewest_entries": 2}),
                      (5, False, "Anu", 8, {"fewest_entries": 2}), (6, False, "Esha", 1, {"fewest_entries": 1})],
    "chests-grade-a": [(1, False, "Bala", 18, {"grade:a": 2}), (2, True, "Anu", 18, {"grade:a": 1}),
                       (2, True, "Chitra", 18, {"grade:a": 1}), (4, False, "Devi", 16, {"grade:a": 1}),
                       (5, False, "Anu", 8, {"grade:a": 0}), (6, False, "Esha", 1, {"grade:a": 0})],
    "chests-best": [(1, True, "Anu", 18, {"best_result": 10}), (1, True, "Bala", 18, {"best_result": 10}),
                    (3, False, "Chitra", 18, {"best_result": 8}), (4, False, "Devi", 16, {"best_result": 10}),
                    (5, False, "Anu", 8, {"best_result": 6}), (6, False, "Esha", 1, {"best_result": 1})],
    "chests-position-points": [
        (1, False, "Anu", 18, {"position_points": 10}), (2, False, "Bala", 18, {"position_points": 8}),
        (3, False, "Chitra", 18, {"position_points": 7}), (4, False, "Devi", 16, {"position_points": 8}),
        (5, False, "Anu", 8, {"position_points": 4}), (6, False, "Esha", 1, {"position_points": 0})],
    "chests-grade-points": [
        (1, False, "Chitra", 18, {"grade_points": 11}), (2, False, "Bala", 18, {"grade_points": 10}),
        (3, False, "Anu", 18, {"grade_points": 8}), (4, False, "Devi", 16, {"grade_points": 8}),
        (5, False, "Anu", 8, {"grade_points": 4}), (6, False, "Esha", 1, {"grade_points": 1})],
    # dense ranks: 1, 1, 1, 2, 3, 4; a top 2 keeps rank 2 (Devi), a standard top 2 stops at rank 1
    "chests-dense": [(1, True, "Anu", 18, {}), (1, True, "Bala", 18, {}), (1, True, "Chitra", 18, {}),
                     (2, False, "Devi", 16, {}), (3, False, "Anu", 8, {}), (4, False, "Esha", 1, {})],
    "chests-dense-top2": [(1, True, "Anu", 18, {}), (1, True, "Bala", 18, {}), (1, True, "Chitra", 18, {}),
                          (2, False, "Devi", 16, {})],
    "chests-standard-top2": [(1, True, "Anu", 18, {}), (1, True, "Bala", 18, {}), (1, True, "Chitra", 18, {})],
    # position points only (5/3/1), grade points only (5/3/1)
    "chests-by-position": [(1, False, "Anu", 10, {}), (2, True, "Bala", 8, {}), (2, True, "Devi", 8, {}),
                           (4, False, "Chitra", 7, {}), (5, False, "Anu", 4, {}), (6, False, "Esha", 0, {})],
    "chests-by-grade": [(1, False, "Chitra", 11, {}), (2, False, "Bala", 10, {}), (3, True, "Anu", 8, {}),
                        (3, True, "Devi", 8, {}), (5, False, "Anu", 4, {}), (6, False, "Esha", 1, {})],
    # a person: Anu's two chest numbers add up (18 + 8)
    "people": [(1, False, "Anu", 26, {}), (2, True, "Bala", 18, {}), (2, True, "Chitra", 18, {}),
               (4, False, "Devi", 16, {}), (5, False, "Esha", 1, {})],
    "people-firsts": [(1, False, "Anu", 26, {"firsts": 2, "seconds": 1}),
                      (2, False, "Bala", 18, {"firsts": 1, "seconds": 1}),
                      (3, False, "Chitra", 18, {"firsts": 0, "seconds": 2}),
                      (4, False, "Devi", 16, {"firsts": 1, "seconds": 1}),
                      (5, False, "Esha", 1, {"firsts": 0, "seconds": 0})],
    # a first in a solo dance item and one in a non-dance item: only Anu (Devi's non-dance is 2nd)
    "people-champion": [(1, False, "Anu", 26, {})],
    # a solo dance item's first or second place: not Esha (4th)
    "people-dancers": [(1, False, "Anu", 26, {}), (2, True, "Bala", 18, {}), (2, True, "Chitra", 18, {}),
                       (4, False, "Devi", 16, {})],
    # S1: 4 + 6 + 8 + 10 + 6 + its group's 8 + its own 3; N1: 10 + 6 + 1 + 2 + 8 + its group's 10;
    # N2: 8 + 10 + its own 5
    "parishes": [(1, False, "S1", 45, {}), (2, False, "N1", 37, {}), (3, False, "N2", 23, {})],
    # only a parish's best entry in each item: D2 counts Devi's 10 for S1 (not Chitra's 6), Anu's 6 for N1
    "parishes-best": [(1, False, "S1", 39, {}), (2, False, "N1", 36, {}), (3, False, "N2", 23, {})],
    "parishes-own": [(1, False, "N2", 5, {}), (2, False, "S1", 3, {})],
    "parishes-groups": [(1, False, "N1", 10, {}), (2, False, "S1", 8, {})],
    # class boards: the section lists its parishes; their group items and own entries count
    "class-a": [(1, False, "S1", 11, {}), (2, False, "N1", 10, {})],
    "class-b": [(1, False, "N2", 5, {})],
    "class-a-regions": [(1, False, "South", 11, {}), (2, False, "North", 10, {})],
    "class-a-section": [(1, False, "Class A", 21, {})],
    "class-a-groups": [(1, False, "N1 group", 10, {}), (2, False, "S1 group", 8, {})],
    # a section without teams counts its candidates' results, as it always did: Anu's 101 and Chitra
    "day-parishes": [(1, False, "N1", 28, {}), (2, False, "S1", 18, {})],
}


def board(entries):
    return [(e["rank"], e["tied"], e["name"], e["points"], e["metrics"]) for e in entries]


@pytest.fixture(scope="module")
def rules(seeded, tmp_path_factory):
    """``(client, ids, url)``: the festival served from a copy of the test database."""
    data, ids = rules_festival()
    with tiny_api(seeded[0], tmp_path_factory.mktemp("rules"), data) as (client, url):
        yield client, ids, url


def test_every_board_is_ranked_as_by_hand(rules):
    client, _, _ = rules
    assert set(HAND_RANKED) == set(BOARDS)
    served = {label: board(client.ok("/toppers", placeholderLabel=label, limit=100)["data"]) for label in BOARDS}
    assert served == HAND_RANKED


def test_the_stored_entries_carry_the_metrics_in_the_boards_order(rules):
    _, ids, url = rules
    with writable(url):
        entries = (m.TopperEntry.select().where(m.TopperEntry.placeholder == ids["board-chests-firsts"])
                   .order_by(m.TopperEntry.rank))
        assert [e.metrics for e in entries][0] == [["firsts", 2], ["seconds", 0], ["thirds", 0]]
        plain = m.TopperEntry.select().where(m.TopperEntry.placeholder == ids["board-chests"])
        assert {e.metrics for e in plain} == {None}


def test_each_placeholder_shows_its_effective_rule(rules):
    client, _, _ = rules
    shown = {p["label"]: p["rule"] for p in client.all("/topper-placeholders", subFestSlug="main")}
    assert shown["chests"] == {"counts": ["individual"], "bestPerProgramme": False, "pointsFrom": "points",
                               "eligibleIf": [], "tieBreak": [], "rankStyle": "standard"}
    assert shown["parishes"]["counts"] == ["individual", "group", "team_entry"]
    assert shown["parishes-best"]["bestPerProgramme"] is True
    assert shown["class-a-section"]["counts"] == ["individual", "group", "team_entry"]
    assert shown["chests-by-grade"]["pointsFrom"] == "grade"
    assert shown["chests-dense"]["rankStyle"] == "dense"
    assert shown["people-champion"]["eligibleIf"] == [{"collection": "solo-dance", "bestPosition": 1},
                                                      {"collection": "non-dance", "bestPosition": 1}]
    assert shown["chests-firsts"]["tieBreak"] == ["firsts", "seconds", "thirds"]
    with_entries = client.ok("/page-toppers", pageSlug="boards")["toppers"]
    assert {p["label"]: p["rule"] for p in with_entries} == shown


def test_a_persons_entry_shows_the_person_and_their_chest_numbers_only(rules):
    client, ids, _ = rules
    entries = client.ok("/toppers", placeholderLabel="people")["data"]
    anu = entries[0]
    assert anu["entityType"] == "person" and anu["candidate"] is None and anu["group"] is None
    assert anu["person"] == {"name": "Anu", "nameLocal": None, "gender": None, "chestNos": ["101", "102"]}
    assert anu["team"]["name"] == "N1" and anu["category"]["name"] == "Junior"
    # the entry id is the person's on this board: neither a chest number's id nor the person's own row's
    known = {str(uuid.UUID(i)) for i in ids.values()}
    assert anu["entityId"] not in known
    assert len({e["entityId"] for e in entries}) == len(entries)
    again = client.ok("/toppers", placeholderLabel="people-firsts")["data"]
    assert {e["name"]: e["entityId"] for e in again} == {e["name"]: e["entityId"] for e in entries}
    # every other board names the person null
    chests = client.ok("/toppers", placeholderLabel="chests")["data"]
    assert {e["person"] is None for e in chests} == {True}
    assert chests[0]["candidate"]["chestNo"] == "101"


# --- as it stood: each step is the board these rules make of the results published by then -----------

DAY_11 = "2026-01-11T12:00:00Z"
AS_OF = {
    # after D1 and D2: Anu's 101 and Devi have 10 and one first each: they share rank 1
    "chests-firsts": [
        (1, True, "Anu", 10, {"firsts": 1, "seconds": 0, "thirds": 0}),
        (1, True, "Devi", 10, {"firsts": 1, "seconds": 0, "thirds": 0}),
        (3, False, "Chitra", 10, {"firsts": 0, "seconds": 1, "thirds": 1}),
        (4, False, "Bala", 8, {"firsts": 0, "seconds": 1, "thirds": 0}),
        (5, False, "Anu", 6, {"firsts": 0, "seconds": 1, "thirds": 0}),
        (6, False, "Esha", 1, {"firsts": 0, "seconds": 0, "thirds": 0})],
    "chests-dense": [(1, True, "Anu", 10, {}), (1, True, "Chitra", 10, {}), (1, True, "Devi", 10, {}),
                     (2, False, "Bala", 8, {}), (3, False, "Anu", 6, {}), (4, False, "Esha", 1, {})],
    "chests-dense-top2": [(1, True, "Anu", 10, {}), (1, True, "Chitra", 10, {}), (1, True, "Devi", 10, {}),
                          (2, False, "Bala", 8, {})],
    # N1: 10 + its best in D2 (6); S1: 4 + its best in D2 (10); N2: 8
    "parishes-best": [(1, False, "N1", 16, {}), (2, False, "S1", 14, {}), (3, False, "N2", 8, {})],
    # nobody has a non-dance first yet
    "people-champion": [],
    "people": [(1, False, "Anu", 16, {}), (2, True, "Chitra", 10, {}), (2, True, "Devi", 10, {}),
               (4, False, "Bala", 8, {}), (5, False, "Esha", 1, {})],
}


@pytest.mark.parametrize("label", sorted(AS_OF))
def test_a_board_as_it_stood_follows_the_same_rule(rules, label):
    client, _, _ = rules
    body = client.ok("/toppers", placeholderLabel=label, asOf=DAY_11, limit=100)
    assert board(body["data"]) == AS_OF[label]


@pytest.mark.parametrize("label", sorted(BOARDS))
def test_the_last_step_of_every_board_is_its_current_board(rules, label):
    client, _, _ = rules
    then = client.ok("/toppers", placeholderLabel=label, asOf="2030-01-01T00:00:00Z", limit=100)["data"]
    now = client.ok("/toppers", placeholderLabel=label, limit=100)["data"]
    assert then == now


def test_the_race_of_an_eligibility_board_starts_when_the_entity_may_win(rules):
    client, _, _ = rules
    race = client.ok("/topper-race", placeholderLabel="people-champion", limit=100)
    assert [e["name"] for e in race["entries"]] == ["Anu"]
    assert race["entries"][0]["metrics"] == {}
    # steps: D1, D2, N1 (Anu not yet eligible), N2 (a non-dance first: 26 points); G1 and T1 are
    # group items and teams' own entries, which a person board does not count
    standings = [(step["at"][:10], step["standings"][0]["rank"], step["standings"][0]["points"])
                 for step in race["data"]]
    assert standings == [("2026-01-10", None, 0), ("2026-01-11", None, 0), ("2026-01-12", None, 0),
                         ("2026-01-13", 1, 26)]


def test_the_race_ranks_by_the_rule_dense(rules):
    client, _, _ = rules
    race = client.ok("/topper-race", placeholderLabel="chests-dense", top=6, limit=100)
    last = race["data"][-1]["standings"]
    assert [s["rank"] for s in last] == [1, 1, 1, 2, 3, 4]
    # after D1: Anu 10 (1), Bala 8 (2), Chitra 4 (3); the others have no result yet
    first = {s["entityId"]: s["rank"] for s in race["data"][0]["standings"]}
    by_name = {(e["name"], e["points"]): e["entityId"] for e in race["entries"]}
    assert [first[by_name[("Anu", 18)]], first[by_name[("Bala", 18)]], first[by_name[("Chitra", 18)]]] == [1, 2, 3]
    assert first[by_name[("Devi", 16)]] is None


# --- the rule's defaults are today's rule -------------------------------------------------------------


@pytest.mark.parametrize("entity, counts", [
    ("candidate", ["individual"]), ("person", ["individual"]), ("group", ["group"]),
    ("section", ["individual", "group"]), ("team", ["individual", "group", "team_entry"]),
])
def test_a_board_without_a_rule_counts_what_its_entity_always_counted(entity, counts):
    placeholder = m.TopperPlaceholder(entity_type=entity)
    assert rule_of(placeholder).as_json() == {
        "counts": counts, "best_per_programme": False, "points_from": "points", "eligible_if": [],
        "tie_break": [], "rank_style": "standard"}


def test_the_bundled_festivals_boards_show_the_default_rule(api):
    placeholders = api.all("/topper-placeholders", subFestSlug="general")
    assert placeholders
    for placeholder in placeholders:
        rule = placeholder["rule"]
        assert (rule["bestPerProgramme"], rule["pointsFrom"], rule["eligibleIf"], rule["tieBreak"],
                rule["rankStyle"]) == (False, "points", [], [], "standard")
    entries = api.ok("/toppers", topperPlaceholderId=placeholders[0]["id"])["data"]
    assert entries and {str(e["metrics"]) for e in entries} == {"{}"}
    assert {e["person"] is None for e in entries} == {True}


# --- import problems, in the sheet's terms ------------------------------------------------------------


def with_board(**fields):
    data, _ = rules_festival()
    data = copy.deepcopy(data)
    data["topperPlaceholders"][0].update(fields)
    return data


@pytest.mark.parametrize("fields, path, message", [
    ({"tie_break": ["firsts", "most_wins"]}, "$.topperPlaceholders[0].tie_break[1]", "unknown metric 'most_wins'"),
    ({"tie_break": ["grade:"]}, "$.topperPlaceholders[0].tie_break[0]", "unknown metric 'grade:'"),
    ({"tie_break": ["firsts", "firsts"]}, "$.topperPlaceholders[0].tie_break[1]", "named twice"),
    ({"eligible_if": [{"collection": "solo-dnace", "best_position": 1}]}, "$.topperPlaceholders[0].eligible_if[0]",
     "no programme collection with key 'solo-dnace'"),
    ({"eligible_if": [{"collection": "solo-dance"}]}, "$.topperPlaceholders[0].eligible_if[0]",
     "'best_position' is a required property"),
    ({"entity_type": "person", "counts": ["individual", "group"]}, "$.topperPlaceholders[0].counts",
     "a person board cannot count group"),
    ({"entity_type": "candidate", "counts": ["team_entry"]}, "$.topperPlaceholders[0].counts",
     "a candidate board cannot count team_entry"),
    ({"entity_type": "group", "counts": ["individual"]}, "$.topperPlaceholders[0].counts",
     "a group board cannot count individual"),
    ({"counts": ["everything"]}, "$.topperPlaceholders[0].counts[0]", "'everything' is not one of"),
    ({"counts": []}, "$.topperPlaceholders[0].counts", "should be non-empty"),
    ({"rank_style": "olympic"}, "$.topperPlaceholders[0].rank_style", "'olympic' is not one of"),
    ({"points_from": "score"}, "$.topperPlaceholders[0].points_from", "'score' is not one of"),
    ({"entity_type": "child"}, "$.topperPlaceholders[0].entity_type", "'child' is not one of"),
])
def test_a_bad_rule_is_a_problem_of_its_cell(seeded, fields, path, message):
    with writable(seeded[0]), pytest.raises(FixtureError) as caught:
        validate(with_board(**fields))
    found = [(where, text) for where, text in caught.value.all if where == path]
    assert found and message in found[0][1], caught.value.all


def test_a_section_lists_teams_of_its_own_sub_fest_only(seeded):
    data, ids = rules_festival()
    data["subFests"].append({"id": str(uuid.uuid4()), "slug": "other", "name": "Other"})
    data["teams"].append({"id": str(uuid.uuid4()), "sub_fest": data["subFests"][-1]["id"], "name": "Elsewhere",
                          "level": 1})
    data["sections"][1]["teams"].append(data["teams"][-1]["id"])
    with writable(seeded[0]), pytest.raises(FixtureError) as caught:
        validate(data)
    assert caught.value.all == [("$.sections[1].teams[1]",
                                 "team 'Elsewhere' is of another sub-fest than section 'class-b'")]


def csv_rules(header, *rows):
    """The ``topperPlaceholders`` rows and problems of a CSV folder holding one such file."""
    files = [("festival.csv", f"slug,name,timezone\n{SLUG},Rules Fest,UTC\n".encode()),
             ("topperPlaceholders.csv", "\n".join([header, *rows]).encode())]
    source = read_files("rules", files)
    return source.data["topperPlaceholders"], source.problems


def test_the_rule_in_csv_cells_is_written_as_the_sheet_says():
    rows, problems = csv_rules(
        "label,entity_type,counts,best_per_programme,points_from,eligible_if,tie_break,rank_style",
        'Champion,person,individual,no,grade,solo-dance:1; non-dance : 2,"firsts, seconds, grade:A",dense',
        'Class,team,"individual; group; team_entry",yes,position,,,standard',
        'Json,team,"[""group""]",true,points,"[{""collection"": ""x"", ""best_position"": 3}]","[""thirds""]",')
    assert problems == []
    assert rows[0] == {"label": "Champion", "entity_type": "person", "counts": ["individual"],
                       "best_per_programme": False, "points_from": "grade",
                       "eligible_if": [{"collection": "solo-dance", "best_position": 1},
                                       {"collection": "non-dance", "best_position": 2}],
                       "tie_break": ["firsts", "seconds", "grade:A"], "rank_style": "dense"}
    assert rows[1]["counts"] == ["individual", "group", "team_entry"] and rows[1]["best_per_programme"] is True
    assert rows[2]["counts"] == ["group"] and rows[2]["eligible_if"] == [{"collection": "x", "best_position": 3}]
    assert rows[2]["tie_break"] == ["thirds"]


def test_a_requirement_that_is_not_key_colon_position_is_a_problem_of_its_cell():
    _, problems = csv_rules("label,eligible_if", "Champion,solo-dance first")
    assert problems == [("$.topperPlaceholders[0].eligible_if",
                         "'solo-dance first' is not COLLECTION:POSITION (e.g. solo-dance:1)")]


def test_a_sections_teams_are_named_in_a_csv_cell(seeded, tmp_path):
    data, ids = rules_festival()
    files = [("festival.csv", f"slug,name,timezone\n{SLUG},Rules Fest,UTC\n".encode()),
             ("sections.csv", b"sub_fest_slug,key,name,team_names\nmain,class-a,Class A,N1; S1\n")]
    source = read_files("rules", files)
    assert source.problems == []
    assert source.data["sections"] == [{"sub_fest_slug": "main", "key": "class-a", "name": "Class A",
                                        "team_names": ["N1", "S1"]}]


# --- an older database: `festival-api init` adds the rule's columns and compiles again -----------------

RULE_COLUMNS = {"topper_placeholder": ("counts", "best_per_programme", "points_from", "eligible_if", "tie_break",
                                       "rank_style"), "topper_entry": ("metrics",)}


def test_init_adds_the_rules_columns_and_compiles_every_answer_again(fresh_app, keys, monkeypatch):
    """A database made before boards had rules lacks their columns, and its compiled answers
    lack `rule`, `metrics` and `person`: ``init`` adds the columns and compiles the
    placeholders, their entries and their histories again."""
    from conftest import ApiClient

    app, url = fresh_app
    api = ApiClient(app.test_client(), keys)
    placeholder = api.all("/topper-placeholders", subFestSlug="general")[0]["id"]
    asked = [("/toppers", dict(topperPlaceholderId=placeholder)),
             ("/toppers", dict(topperPlaceholderId=placeholder, asOf="2026-01-16")),
             ("/topper-race", dict(topperPlaceholderId=placeholder, top=5)),
             ("/page-toppers", dict(pageSlug="results", asOf="2026-01-15"))]

    def answers():
        return [api.ok_but_revision(path, **params) for path, params in asked]

    before = answers()
    assert before[1]["data"][0]["metrics"] == {} and before[1]["data"][0]["person"] is None
    with writable(url) as db:
        for table, columns in RULE_COLUMNS.items():
            for column in columns:
                db.execute_sql(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
        # what an older release compiled: no rule, no metrics, no person
        for table, columns in (("public_placeholder", ("body", "with_entries")),
                               ("public_topper_entry", ("body",)), ("public_topper_past_entry", ("body",))):
            for column in columns:
                db.execute_sql(f'UPDATE "{table}" SET "{column}" = \'{{}}\'')
    result = run_init(url, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "Upgraded public_topper_history, public_topper_step, public_topper_past_entry" in result.stderr
    with writable(url) as db:
        for table, columns in RULE_COLUMNS.items():
            assert set(columns) <= {c.name for c in db.get_columns(table)}
    assert answers() == before


def test_the_export_of_boards_with_rules_imports_to_the_same_answers(tmp_path, frozen_clock):  # noqa: F811
    """``festival-api export`` writes the rules and a section's teams as CSV cells that read
    back the same: imported again, every compiled answer is the same."""
    from db.compiled.tables import PublicSecret
    from seed.pipeline.export import export_festival
    from seed.pipeline.write.importer import import_file, import_fixture

    folder = tmp_path / "export"
    with empty_database(tmp_path, "first"):
        festival = import_fixture(rules_festival()[0]).festival
        before = public_rows(festival.id)
        secret = PublicSecret.get(PublicSecret.festival == festival.id).hash_key
        export_festival(festival, folder)
    header, *rows = (folder / "topperPlaceholders.csv").read_text(encoding="utf-8-sig").splitlines()
    assert {"counts", "tie_break", "eligible_if", "rank_style", "best_per_programme"} <= set(header.split(","))
    assert "team_names" in (folder / "sections.csv").read_text(encoding="utf-8-sig").splitlines()[0]
    with empty_database(tmp_path, "second"):
        PublicSecret.create(festival=festival.id, hash_key=secret)
        assert import_file(folder).festival.id == festival.id
        assert public_rows(festival.id) == before


def test_the_rule_in_a_workbooks_cells_reads_as_in_csv(tmp_path):
    """A sheet's cells (a boolean cell, a number) read as the CSV text of the same rule."""
    from seed.pipeline.read.workbook import read_workbook
    from test_workbook_import import workbook

    path = workbook(tmp_path / "rules.xlsx", {
        "festival": [["slug", "name", "timezone"], [SLUG, "Rules Fest", "UTC"]],
        "topperPlaceholders": [
            ["label", "entity_type", "counts", "best_per_programme", "eligible_if", "tie_break", "rank_style"],
            ["Champion", "person", "individual", True, "solo-dance:1; non-dance:2", "firsts, grade:A", "dense"]],
        "sections": [["sub_fest_slug", "key", "name", "team_names"], ["main", "class-a", "Class A", "N1; S1"]]})
    source = read_workbook(path)
    assert source.problems == []
    assert source.data["topperPlaceholders"] == [{
        "label": "Champion", "entity_type": "person", "counts": ["individual"], "best_per_programme": True,
        "eligible_if": [{"collection": "solo-dance", "best_position": 1},
                        {"collection": "non-dance", "best_position": 2}],
        "tie_break": ["firsts", "grade:A"], "rank_style": "dense"}]
    assert source.data["sections"][0]["team_names"] == ["N1", "S1"]
