"""Shapes real festivals have, written without ids: a team's own entry, per-category codes
only, a person in two categories. Each is in the example folder and the guide."""
import pytest

from conftest import API, writable
from db.source import models as m
from db.source.keys import create_key
from natural_festival import SLUG, natural_festival
from seed.pipeline.write.importer import FixtureError, import_file, import_fixture, validate
from seed.pipeline.write.update import update_fixture
from seed.pipeline.guard.withdrawals import WithdrawalRefused
from test_csv_import import DOCS, EXAMPLE
from test_csv_import import SLUG as EXAMPLE_SLUG

GUIDE = (DOCS / "spreadsheets.md").read_text(encoding="utf-8")


@pytest.fixture
def example(fresh_app):
    """``(client, headers, url)`` with the example folder imported."""
    app, url = fresh_app
    with writable(url):
        festival = import_file(EXAMPLE).festival
        key = create_key(festival, label="t")[1]
    return app.test_client(), {"X-API-Key": key}, url


def team_entries(code):
    return (m.Registration.select(m.Registration, m.Team, m.Result).join(m.Team).switch(m.Registration)
            .join(m.Result).switch(m.Registration).join(m.SubFestProgramme).join(m.SubFest).join(m.Festival)
            .where(m.Festival.slug == EXAMPLE_SLUG, m.SubFestProgramme.code == code,
                   m.Registration.sub_fest_candidate.is_null()))


def test_a_result_of_a_team_without_a_candidate_is_given_by_team_name(example):
    _, _, url = example
    with writable(url):
        rows = sorted((r.team.name, r.result.position, r.result.grade, r.result.points) for r in team_entries("HS-GS"))
    # Group criteria: 1st 10, 2nd 6, 3rd 2; grades A (80+) 5, B (60+) 3
    assert rows == [("CMS HSS Thrissur", 2, "A", 11), ("Don Bosco HSS", 3, "B", 5), ("GHSS Chavakkad", 1, "A", 15)]
    assert "team_name" in GUIDE.split("## Results and points")[1]


def test_a_team_entry_can_be_corrected_by_an_update(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School"})
    data["results"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School",
                            "score": 65})
    with writable(url):
        import_fixture(data)
        summary = update_fixture({"formatVersion": 1, "festival": {"slug": SLUG}, "results": [
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School", "score": 85}]})
        assert summary.row_diff.changed == {"results": 1}
        [result] = (m.Result.select().join(m.Registration).join(m.SubFestProgramme).join(m.SubFest)
                    .join(m.Festival).where(m.Festival.slug == SLUG, m.Registration.sub_fest_candidate.is_null()))
        assert (result.registration.team.name, result.score, result.grade) == ("Red School", 85, "A")


def test_a_team_result_without_the_team_entry_says_what_to_add(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["results"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School"})
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    assert caught.value.problems == [(
        f"$.results[{len(data['results']) - 1}].team_name",
        "no registration of team 'Red School' without a candidate in programme 'P1': add its row to "
        "registrations.csv (team_name, no chest_no)")]


def test_per_category_codes_alone_make_the_master_programme_from_the_name(example):
    client, headers, _ = example
    body = client.get(f"{API}/programmes", headers=headers, query_string={"subFestSlug": "arabic"}).get_json()
    masters = {p["code"]: p["program"]["code"] for p in body["data"]}
    assert masters["A-UP-PR"] == masters["A-HS-PR"] == "Arabic Poem Recitation"
    assert masters["A-UP-AQ"] == "AQ", "rows with programme_code keep their master"
    assert "programme_name" in GUIDE


def test_a_programme_name_uses_the_programme_of_that_name(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["programmes"].append({"name": "Poem"})  # no code: the name is the code
    for row in data["subFestProgrammes"][:1]:
        row.pop("programme_code")
        row["programme_name"] = "Light Music"
    data["subFestProgrammes"].append({"sub_fest_slug": "main", "programme_name": "Poem", "code": "P9"})
    with writable(url):
        festival = import_fixture(data).festival
        programmes = {p.code: p.name for p in m.Programme.select().where(m.Programme.festival == festival)}
        p9 = m.SubFestProgramme.select().join(m.SubFest).where(m.SubFest.festival == festival,
                                                                m.SubFestProgramme.code == "P9").get()
    assert programmes == {"LM": "Light Music", "GS": "Group Song", "Poem": "Poem"}
    assert p9.programme.code == "Poem"


def test_a_person_in_two_categories_has_an_entry_in_each(example):
    client, headers, _ = example
    entries = {}
    for chest in ("1013", "1041"):
        body = client.get(f"{API}/candidate-result", headers=headers,
                          query_string={"chestNo": chest, "subFestSlug": "general"}).get_json()
        registrations = client.get(f"{API}/candidate-registrations", headers=headers,
                                   query_string={"subFestCandidateId": body["candidate"]["id"]}).get_json()
        entries[chest] = (body["candidate"]["name"], body["candidate"]["category"]["name"],
                          sorted(r["programme"]["code"] for r in registrations["data"]))
    assert entries["1013"][0] == entries["1041"][0]
    assert entries["1013"][1:] == ("HS", ["HS-EL", "HS-ES", "HS-LM", "HS-MO", "HS-PT"])
    assert entries["1041"][1:] == ("HSS", ["HSS-PT"])
    assert "two categories" in GUIDE


def test_a_teams_own_result_is_public_and_counts_for_its_school_and_zone(example):
    client, headers, _ = example

    def get(path, **params):
        response = client.get(f"{API}{path}", headers=headers, query_string={"subFestSlug": "general", **params})
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    results = get("/programme-result", programCode="HS-GS")["results"]
    assert [(r["participantType"], r["participantName"], r["team"]["name"], r["position"], r["points"],
             r["candidate"], r["members"]) for r in results] == [
        ("team", "GHSS Chavakkad", "GHSS Chavakkad", 1, 15, None, None),
        ("team", "CMS HSS Thrissur", "CMS HSS Thrissur", 2, 11, None, None),
        ("team", "Don Bosco HSS", "Don Bosco HSS", 3, 5, None, None)]
    # Every entry of the example names its school: a school's total is the points of the
    # results shown under its name, its own included; a zone's, those of its schools.
    shown = [r for item in get("/programme-results", limit=500)["data"] for r in item["results"]]
    teams = {t["name"]: t for t in get("/teams", limit=500)["data"]}
    placeholders = {p["label"]: p["id"] for p in get("/topper-placeholders", limit=500)["data"]}
    for label, team_of in (("General: school championship", lambda t: t["name"]),
                           ("General: zone championship", lambda t: (t["parentTeam"] or t)["name"])):
        board = get("/toppers", topperPlaceholderId=placeholders[label], limit=500)["data"]
        expected = {}
        for r in shown:
            name = team_of(teams[r["team"]["name"]])
            expected[name] = expected.get(name, 0) + r["points"]
        assert {e["name"]: e["points"] for e in board} == {
            name: points for name, points in expected.items() if name in {e["name"] for e in board}}
        assert board[0]["points"] == max(expected.values())


def test_an_update_of_a_teams_own_result_shows_at_once_and_hiding_the_team_is_a_withdrawal(fresh_app):
    app, url = fresh_app
    data = natural_festival()
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School"})
    data["results"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School",
                            "score": 65, "is_published": True, "published_at": "2026-01-10T10:00:00Z"})
    with writable(url):
        key = create_key(import_fixture(data).festival, label="t")[1]
    client = app.test_client()

    def team_results():
        response = client.get(f"{API}/programme-result", headers={"X-API-Key": key},
                              query_string={"programCode": "P1", "subFestSlug": "main"})
        assert response.status_code == 200
        return [(r["participantName"], r["score"], r["grade"]) for r in response.get_json()["results"]
                if r["participantType"] == "team"]

    assert team_results() == [("Red School", 65, "B")]
    team_result = {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red School"}
    with writable(url):
        update_fixture({"formatVersion": 1, "festival": {"slug": SLUG}, "results": [{**team_result, "score": 85}]})
    assert team_results() == [("Red School", 85, "A")]
    hidden = {"formatVersion": 1, "festival": {"slug": SLUG}, "teams": [
        {"sub_fest_slug": "main", "name": "Red School", "level": 2, "parent_name": "Red", "is_public": False}]}
    with writable(url), pytest.raises(WithdrawalRefused) as refused:
        update_fixture(hidden)
    assert any("Red School" in line for line in refused.value.lines()), refused.value.lines()
    assert team_results() == [("Red School", 85, "A")]  # refused: nothing written
    with writable(url):
        update_fixture(hidden, allow_withdrawals=True)
    assert team_results() == []


def test_the_guides_dry_run_of_hs_light_music_names_the_leaderboards_as_the_tool_does(example, tmp_path,
                                                                                    monkeypatch):
    """The leaderboard lines the guide shows, teams' own results included in the team totals."""
    from click.testing import CliRunner

    from app.cli import main as cli

    _, _, url = example
    section = GUIDE.split("to\npublish the results of HS Light Music", 1)[1]
    folder = tmp_path / "hs-lm"
    folder.mkdir()
    for name in ("festival.csv", "subFestProgrammes.csv", "results.csv"):
        block = section.split(f"`{name}`\n```text\n", 1)[1].split("```", 1)[0]
        (folder / name).write_text(block, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    output = CliRunner().invoke(cli, ["import", "--update", "--dry-run", str(folder)]).output
    lines = [line.strip() for line in output.splitlines() if line.strip().startswith("leaderboard ")]
    assert len(lines) == 3, output
    shown = section.split("```text\nChecking hs-lm/", 1)[1].split("```", 1)[0]
    assert lines == [line.strip() for line in shown.splitlines() if line.strip().startswith("leaderboard ")]


# --- grades given by hand: bands without minScore -------------------------------------------


def hand_graded():
    """P1 (main) graded by hand: bands with points and no minScore; results give grades."""
    data = natural_festival()
    data["gradeCriteria"].append({"name": "By hand", "bands": [{"grade": "A", "points": 5},
                                                               {"grade": "B", "points": 3},
                                                               {"grade": "C", "points": 1}]})
    data["subFestProgrammes"][0]["grade_criteria_name"] = "By hand"
    for result, grade in zip(data["results"][:2], ["B", "A"]):
        del result["score"]
        result["grade"] = grade
    return data


def test_a_hand_graded_programme_takes_grades_without_scores_and_their_points(fresh_app):
    app, url = fresh_app
    with writable(url):
        festival = import_fixture(hand_graded()).festival
        key = create_key(festival, label="t")[1]
    body = app.test_client().get(f"{API}/programme-result", headers={"X-API-Key": key},
                                 query_string={"programCode": "P1", "subFestSlug": "main"}).get_json()
    rows = sorted((r["candidate"]["chestNo"], r["score"], r["grade"], r["points"]) for r in body["results"])
    # 1st (5) + B (3); 2nd (3) + A (5)
    assert rows == [("101", None, "B", 8), ("102", None, "A", 8)]


@pytest.mark.parametrize("change, expected", [
    # a hand-given grade may come with a score: no score threshold applies
    (lambda r: r.update(score=12), None),
    # a score alone cannot give a hand-given grade
    (lambda r: (r.pop("grade"), r.update(score=91)),
     "'By hand' is graded by hand (its bands have no minScore): give the result's grade (A, B, C)"),
    (lambda r: r.update(grade="D"), "'D' is not a grade of 'By hand' (A, B, C)"),
])
def test_the_rules_of_a_hand_graded_result(fresh_app, change, expected):
    _, url = fresh_app
    data = hand_graded()
    change(data["results"][0])
    with writable(url):
        if expected is None:
            assert import_fixture(data).festival.slug == SLUG
            return
        with pytest.raises(FixtureError) as caught:
            validate(data)
    assert caught.value.problems == [("$.results[0].grade", expected)]


def test_an_update_of_a_hand_graded_score_keeps_the_stored_grade(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(hand_graded())
        update_fixture({"formatVersion": 1, "festival": {"slug": SLUG}, "results": [
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "score": 77}]})
        result = (m.Result.select().join(m.Registration).join(m.SubFestCandidate)
                  .where(m.SubFestCandidate.chest_no == "101", m.Result.position == 1).get())
        assert (result.score, result.grade, result.points) == (77, "B", 8)


# --- master programmes named from per-category codes -----------------------------------------


def test_programme_names_match_in_any_letter_case_and_spacing(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["subFestProgrammes"] += [
        {"sub_fest_slug": "main", "programme_name": "Poem  Recitation", "code": "HS-PR"},
        {"sub_fest_slug": "junior", "programme_name": "poem recitation", "code": "UP-PR"},
        {"sub_fest_slug": "junior", "programme_name": "light music", "code": "UP-LM"},
    ]
    with writable(url):
        festival = import_fixture(data).festival
        masters = {p.code: p.name for p in m.Programme.select().where(m.Programme.festival == festival)}
        instances = {sfp.code: sfp.programme.code for sfp in
                     m.SubFestProgramme.select().join(m.SubFest).where(m.SubFest.festival == festival)}
    assert masters == {"LM": "Light Music", "GS": "Group Song", "Poem Recitation": "Poem Recitation"}
    assert instances["HS-PR"] == instances["UP-PR"] == "Poem Recitation"
    assert instances["UP-LM"] == "LM", "a name finds the programmes row of that name, whatever its case"

