"""Withdrawn entries (registrations with ``is_active: false``) count nowhere.

The tiny festival (tests/tiny_festival.py) with three entries withdrawn:

- Chitra's P3 entry (5 points, published): Chitra's total drops from 8 to 3;
  P3 keeps only Devi's entry and result.
- the Blue group's G1 entry (2 points, published): G1 keeps only the Red group.
- a new programme P7 (junior, published) whose only entry, Gita's, is withdrawn with a
  published 7-point result: P7 has no entries and no results; Gita (a new junior
  candidate of the day section, team R2) has taken part in nothing.

Hand-computed from the tiny festival's tables with those entries taken out:

- candidates: Anu 10, Devi 8, Esha 5, Bala 3, Chitra 3 -> 1, 2, 3, 4=, 4=.
- groups: only the Red group (4).
- houses: Red 22 (unchanged: Gita's 7 does not count), Blue 18 - 5 - 2 = 11.
"""
import pytest

from tiny_festival import Builder, day, tiny_api, tiny_festival

WITHDRAWN = ("reg-P3-Chitra", "reg-G1-Blue", "reg-P7-Gita")


def withdrawn_festival():
    data, ids = tiny_festival()
    b = Builder()
    b.data, b.ids = data, ids
    sub, junior = ids["main"], ids["category-junior"]
    person = b.add("candidates", "person-Gita", name="Gita", email="gita@private.example",
                   admission_number="ADM-107")
    b.add("subFestCandidates", "Gita", sub_fest=sub, candidate=person["id"], chest_no="107",
          team=ids["R2"], category=junior, sections=[ids["section-day"]])
    master = b.add("programmes", "master-P7", code="P7", name="Programme P7", program_type="individual")
    b.add("subFestProgrammes", "P7", sub_fest=sub, programme=master["id"], category=junior, code="P7",
          status="result_published", published_at=day(18))
    b.add("registrations", "reg-P7-Gita", sub_fest_programme=ids["P7"], type="individual",
          sub_fest_candidate=ids["Gita"], team=ids["R2"])
    b.add("results", "result-P7-Gita", registration=ids["reg-P7-Gita"], sub_fest_programme=ids["P7"],
          score=57, grade="A", position_points=6, grade_points=1, points=7, is_published=True,
          published_at=day(18))
    for registration in data["registrations"]:
        if registration["id"] in {ids[key] for key in WITHDRAWN}:
            registration["is_active"] = False
    return data, ids


@pytest.fixture(scope="module")
def withdrawn(seeded, tmp_path_factory):
    data, ids = withdrawn_festival()
    with tiny_api(seeded[0], tmp_path_factory.mktemp("withdrawn"), data) as (client, _):
        yield client, ids


def by_code(items):
    return {item["code"]: item for item in items}


def test_programme_counts_and_filters_leave_withdrawn_entries_out(withdrawn):
    client, ids = withdrawn
    items = by_code(client.all("/programmes", subFestId=ids["main"]))
    counts = {code: (items[code]["registrationCount"], items[code]["resultCount"]) for code in ("P3", "G1", "P7")}
    assert counts == {"P3": (1, 1), "G1": (1, 1), "P7": (0, 0)}
    entered = {item["code"] for item in client.all("/programmes", subFestId=ids["main"], hasRegistrations="true")}
    with_results = {item["code"] for item in client.all("/programmes", subFestId=ids["main"], hasResults="true")}
    assert "P7" not in entered and {"P3", "G1"} <= entered
    assert "P7" not in with_results
    without = {item["code"] for item in client.all("/programmes", subFestId=ids["main"], hasRegistrations="false")}
    assert "P7" in without
    detail = client.ok("/programme-detail", subFestProgramId=ids["P7"])
    assert (detail["registrationCount"], detail["resultCount"]) == (0, 0)


def test_programme_results_leave_withdrawn_entries_out(withdrawn):
    client, ids = withdrawn
    p3 = client.ok("/programme-result", subFestProgramId=ids["P3"])
    assert [r["participantName"] for r in p3["results"]] == ["Devi"]
    g1 = client.ok("/programme-result", subFestProgramId=ids["G1"])
    assert [r["participantName"] for r in g1["results"]] == ["Red group"]
    p7 = client.ok("/programme-result", subFestProgramId=ids["P7"])
    assert p7["results"] == []
    listed = {item["programme"]["code"]: item["results"] for item in
              client.all("/programme-results", subFestId=ids["main"])}
    assert [r["participantName"] for r in listed["P3"]] == ["Devi"]
    assert listed.get("P7", []) == []


def test_candidates_count_no_withdrawn_entry(withdrawn):
    client, ids = withdrawn
    people = {item["candidate"]["name"]: item for item in client.all("/candidates", subFestId=ids["main"])}
    assert people["Gita"]["registrationCount"] == 0
    assert people["Gita"]["pointsSummary"]["totalPoints"] == 0
    # Chitra keeps P4 (3 points); P3 (5) and the Blue group (2) are withdrawn.
    assert people["Chitra"]["registrationCount"] == 1
    assert people["Chitra"]["pointsSummary"]["totalPoints"] == 3
    assert people["Chitra"]["pointsSummary"]["groupPoints"] == 0
    entered = {i["candidate"]["name"] for i in client.all("/candidates", subFestId=ids["main"], hasRegistration="true")}
    idle = {i["candidate"]["name"] for i in client.all("/candidates", subFestId=ids["main"], hasRegistration="false")}
    assert "Gita" in idle and "Gita" not in entered and "Chitra" in entered
    detail = client.ok("/candidate-detail", subFestCandidateId=ids["Gita"])
    assert detail["registrationCount"] == 0 and detail["pointsSummary"]["totalPoints"] == 0


def test_candidate_registrations_and_results_leave_withdrawn_entries_out(withdrawn):
    client, ids = withdrawn
    assert client.all("/candidate-registrations", subFestCandidateId=ids["Gita"]) == []
    chitra = client.all("/candidate-registrations", subFestCandidateId=ids["Chitra"])
    assert [item["programme"]["code"] for item in chitra] == ["P4"]
    gita = client.ok("/candidate-result", subFestCandidateId=ids["Gita"])
    assert gita["results"] == []
    codes = [r["programme"]["code"] for r in client.ok("/candidate-result", subFestCandidateId=ids["Chitra"])["results"]]
    assert codes == ["P4"]


def rows(items):
    return [(i["rank"], i["tied"], i["name"], i["points"]) for i in items]


@pytest.mark.parametrize("key, expected", [
    ("candidates", [(1, False, "Anu", 10), (2, False, "Devi", 8), (3, False, "Esha", 5),
                    (4, True, "Bala", 3), (4, True, "Chitra", 3)]),
    ("groups", [(1, False, "Red group", 4)]),
    ("houses", [(1, False, "Red", 22), (2, False, "Blue", 11)]),
])
def test_toppers_leave_withdrawn_entries_out(withdrawn, key, expected):
    client, ids = withdrawn
    assert rows(client.all("/toppers", topperPlaceholderId=ids[key])) == expected


def test_completeness_does_not_count_a_programme_whose_only_result_is_withdrawn(withdrawn):
    client, ids = withdrawn
    placeholder = client.ok("/toppers", topperPlaceholderId=ids["candidates"])["placeholder"]
    # P1-P5, G1 and P7 are in scope; P5 is unpublished and P7's only result is withdrawn.
    assert (placeholder["programmesCounted"], placeholder["programmesInScope"]) == (5, 7)
