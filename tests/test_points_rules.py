"""Result points follow the programme's position and grade criteria; overrides are explicit."""
import copy
import uuid

import pytest

from conftest import BIG, SMALL, writable
from db.compiled.tables import create_tables
from db.source import models as m
from natural_festival import SLUG, natural_festival
from seed.pipeline.write.importer import FixtureError, import_fixture, validate


def result_of(chest, code="P1"):
    return (m.Result.select().join(m.Registration).join(m.SubFestCandidate).join(m.SubFest).join(m.Festival)
            .where(m.Festival.slug == SLUG, m.SubFest.slug == "main", m.SubFestCandidate.chest_no == chest)
            .switch(m.Result).join(m.SubFestProgramme).where(m.SubFestProgramme.code == code).get())


def problems_of(data):
    with pytest.raises(FixtureError) as caught:
        validate(data)
    return caught.value.problems


def test_points_and_grades_left_out_are_worked_out_from_the_criteria(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        first, second = result_of("101"), result_of("102")
        group = result_of("101", "G1")
    assert (first.grade, first.position_points, first.grade_points, first.points) == ("A", 5, 5, 10)
    assert (second.grade, second.position_points, second.grade_points, second.points) == ("B", 3, 3, 6)
    assert not first.points_override
    # G1 has no criteria: its points are taken as given
    assert (group.points, group.position_points, group.grade_points) == (4, 0, 0)


@pytest.mark.parametrize("change, path, expected", [
    ({"points": 12}, "$.results[0].points", "expected 10"),
    ({"position_points": 3}, "$.results[0].position_points", "expected 5"),
    ({"grade": "B", "grade_points": 5}, "$.results[0].grade_points", "expected 3"),
])
def test_points_that_disagree_with_the_criteria_are_refused(fresh_app, change, path, expected):
    _, url = fresh_app
    data = natural_festival()
    data["results"][0].update(change)
    with writable(url):
        problems = problems_of(data)
    assert [p for p, _ in problems] == [path]
    assert expected in problems[0][1] and "points_override" in problems[0][1]


def test_points_override_keeps_the_points_and_is_stored(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["results"][0].update(points=12, points_override=True)
    with writable(url):
        import_fixture(data)
        first = result_of("101")
    assert (first.points, first.points_override) == (12, True)


@pytest.mark.parametrize("change, words", [
    ({"score": 70, "grade": "A"}, ["'A'", "at least 80", "70"]),
    ({"grade": "Z"}, ["'Z'", "A, B"]),
])
def test_a_grade_must_be_a_band_the_score_reaches(fresh_app, change, words):
    _, url = fresh_app
    data = natural_festival()
    data["results"][1].update(change)
    with writable(url):
        problems = problems_of(data)
    assert [p for p, _ in problems] == ["$.results[1].grade"]
    assert all(word in problems[0][1] for word in words), problems


def test_a_result_of_another_programme_than_its_registration_is_refused(fresh_app, fixture_data):
    _, url = fresh_app
    data = copy.deepcopy(fixture_data[SMALL])
    result = data["results"][0]
    other = next(p["id"] for p in data["subFestProgrammes"] if p["id"] != result["sub_fest_programme"])
    result["sub_fest_programme"] = other
    with writable(url):
        problems = problems_of(data)
    assert [p for p, _ in problems] == ["$.results[0].sub_fest_programme"]
    assert "registration" in problems[0][1]


def test_a_candidate_cannot_have_two_results_in_one_programme(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    # 102 is a member of the group that won G1; a second, solo G1 entry for 102 with a result
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "102"})
    data["results"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "102",
                            "points": 1})
    with writable(url):
        problems = problems_of(data)
    assert [p for p, _ in problems] == ["$.results[3].registration"]
    assert "already has a result in this programme" in problems[0][1]


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_the_bundled_festivals_points_already_follow_their_criteria(fresh_app, fixture_data, slug):
    _, url = fresh_app
    with writable(url):
        state = validate(copy.deepcopy(fixture_data[slug]))
    stored = state.rows["results"]
    for row in fixture_data[slug]["results"]:
        got = stored[uuid.UUID(row["id"])]
        assert [got[k] for k in ("grade", "position_points", "grade_points", "points")] == \
               [row[k] for k in ("grade", "position_points", "grade_points", "points")]
        assert not got.get("points_override")


def test_an_older_database_gets_the_points_override_column(tmp_path):
    from db.database import bind_database, database

    previous = database.obj
    url = f"sqlite:///{tmp_path / 'old.db'}"
    db = bind_database(url)
    try:
        db.connect()
        create_tables()
        db.execute_sql("ALTER TABLE result DROP COLUMN points_override")
        create_tables()
        assert "points_override" in {c.name for c in db.get_columns("result")}
    finally:
        db.close()
        database.initialize(previous)
