"""A result whose entry did not take part (``status`` absent, disqualified or withdrawn)
counts for nobody and is shown nowhere, published or not: one rule,
``db.source.visibility.visible_result``.

The tiny festival (tests/tiny_festival.py) with four such results, all published and
public, each worth more than anyone's best:

- P1: Esha disqualified (9 points); P2: Bala withdrawn (6); P3: Anu absent (7);
- G1: a Green group (Esha, Devi; team Blue) absent (8);
- a new programme P8 (junior, published) whose only entry, Esha's, is absent (9).

So every board is the tiny festival's own, hand-computed there: candidates Anu 10,
Chitra 8, Devi 8, Esha 5, Bala 3 -> 1, 2=, 2=, 4, 5; groups Red 4, Blue 2; houses Red 22,
Blue 18. The entries themselves stay: they were registered.
"""
import pytest

from conftest import writable
from db.source import models as m
from db.source import visibility
from tiny_festival import Builder, day, tiny_api, tiny_festival

NOT_PRESENT = {"P1-Esha": "disqualified", "P2-Bala": "withdrawn", "P3-Anu": "absent",
               "G1-Green": "absent", "P8-Esha": "absent"}


def status_festival():
    data, ids = tiny_festival()
    b = Builder()
    b.data, b.ids = data, ids
    sub, junior = ids["main"], ids["category-junior"]
    master = b.add("programmes", "master-P8", code="P8", name="Programme P8", program_type="individual")
    b.add("subFestProgrammes", "P8", sub_fest=sub, programme=master["id"], category=junior, code="P8",
          status="result_published", published_at=day(18))
    published = {code: p["published_at"] for code, p in
                 ((p["code"], p) for p in data["subFestProgrammes"]) if p.get("published_at")}

    def entry(code, who, points, team, members=None):
        key = f"{code}-{who}"
        reg = b.add("registrations", f"reg-{key}", sub_fest_programme=ids[code],
                    type="group" if members else "individual", sub_fest_candidate=ids[members[0] if members else who],
                    team=ids[team], group_name=f"{who} group" if members else None,
                    members=[ids[p] for p in members or ()])
        b.add("results", f"result-{key}", registration=reg["id"], sub_fest_programme=ids[code], score=50 + points,
              position_points=points, grade_points=0, points=points, status=NOT_PRESENT[key],
              is_published=True, published_at=published[code])

    entry("P1", "Esha", 9, "R1")
    entry("P2", "Bala", 6, "R2")
    entry("P3", "Anu", 7, "R1")
    entry("G1", "Green", 8, "Blue", members=["Esha", "Devi"])
    entry("P8", "Esha", 9, "R1")
    return data, ids


@pytest.fixture(scope="module")
def statuses(seeded, tmp_path_factory):
    data, ids = status_festival()
    with tiny_api(seeded[0], tmp_path_factory.mktemp("statuses"), data) as (client, _):
        yield client, ids


def names(results):
    return [r["participantName"] for r in results]


def test_programme_results_show_no_result_of_an_entry_that_did_not_take_part(statuses):
    client, ids = statuses
    assert names(client.ok("/programme-result", subFestProgramId=ids["P1"])["results"]) == ["Anu", "Bala"]
    assert names(client.ok("/programme-result", subFestProgramId=ids["G1"])["results"]) == ["Red group",
                                                                                            "Blue group"]
    assert client.ok("/programme-result", subFestProgramId=ids["P8"])["results"] == []
    listed = {item["programme"]["code"]: names(item["results"])
              for item in client.all("/programme-results", subFestId=ids["main"])}
    assert listed["P1"] == ["Anu", "Bala"] and listed["P3"] == ["Chitra", "Devi"]
    assert sorted(listed["P2"]) == ["Anu", "Esha"]  # equal points and scores: in the order of their ids
    assert listed.get("P8", []) == []


def test_programme_counts_leave_them_out_but_keep_the_entries(statuses):
    client, ids = statuses
    items = {item["code"]: item for item in client.all("/programmes", subFestId=ids["main"])}
    assert {code: (items[code]["registrationCount"], items[code]["resultCount"]) for code in ("P1", "G1", "P8")} \
        == {"P1": (3, 2), "G1": (3, 2), "P8": (1, 0)}
    without = {item["code"] for item in client.all("/programmes", subFestId=ids["main"], hasResults="false")}
    assert "P8" in without


def test_a_candidates_results_and_points_leave_them_out(statuses):
    client, ids = statuses
    esha = client.ok("/candidate-result", subFestCandidateId=ids["Esha"])["results"]
    assert [r["programme"]["code"] for r in esha] == ["P2"]
    anu = client.ok("/candidate-result", subFestCandidateId=ids["Anu"])["results"]
    assert "P3" not in [r["programme"]["code"] for r in anu]
    people = {item["candidate"]["name"]: item["pointsSummary"]["totalPoints"]
              for item in client.all("/candidates", subFestId=ids["main"])}
    # total points count groups too: the Red group (4) for Anu and Bala, the Green group for no one
    assert (people["Anu"], people["Bala"], people["Esha"], people["Devi"]) == (14, 7, 5, 8)


def rows(items):
    return [(i["rank"], i["tied"], i["name"], i["points"]) for i in items]


@pytest.mark.parametrize("key, expected", [
    ("candidates", [(1, False, "Anu", 10), (2, True, "Chitra", 8), (2, True, "Devi", 8), (4, False, "Esha", 5),
                    (5, False, "Bala", 3)]),
    ("groups", [(1, False, "Red group", 4), (2, False, "Blue group", 2)]),
    ("houses", [(1, False, "Red", 22), (2, False, "Blue", 18)]),
])
def test_toppers_count_them_for_nobody(statuses, key, expected):
    client, ids = statuses
    assert rows(client.all("/toppers", topperPlaceholderId=ids[key])) == expected


def test_a_programme_whose_only_result_did_not_take_part_is_not_counted(statuses):
    client, ids = statuses
    placeholder = client.ok("/toppers", topperPlaceholderId=ids["candidates"])["placeholder"]
    # P1-P5, G1 and P8 are in scope; P5 is unpublished and P8's only entry was absent.
    assert (placeholder["programmesCounted"], placeholder["programmesInScope"]) == (5, 7)


def test_an_older_database_gets_the_columns_with_every_row_kept_and_every_result_present(fresh_app):
    from db.compiled.tables import create_tables

    _, url = fresh_app
    with writable(url) as db:
        stored = m.Result.select().count()
        entries = m.TopperEntry.select().count()
        db.execute_sql('ALTER TABLE "result" DROP COLUMN "status"')
        db.execute_sql('ALTER TABLE "festival" DROP COLUMN "position_style"')
        db.execute_sql('ALTER TABLE "topper_placeholder" DROP COLUMN "best_per_programme"')
        create_tables()  # what `festival-api init` does on an upgrade
        assert "status" in {c.name for c in db.get_columns("result")}
        assert {r.status for r in m.Result.select(m.Result.status)} == {"present"}
        assert {f.position_style for f in m.Festival.select(m.Festival.position_style)} == {"standard"}
        # every row kept: rebuilding the festival table would delete them all (ON DELETE CASCADE)
        assert m.Result.select().count() == stored > 0
        assert m.TopperEntry.select().count() == entries > 0  # a board's rows point at its placeholder
        assert m.Result.select().where(visibility.visible_result()).count() > 0
