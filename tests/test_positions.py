"""Positions checked as the festival states them (``festival.position_style``) and against
their scores, and results whose entry did not take part: problems in the sheet's terms,
with every other problem of the file, for an import, an update, a dry run and ``follow``."""
import shutil

import pytest

from conftest import writable
from db.source import models as m
from natural_festival import natural_festival, update
from seed.pipeline.follow import Follower, open_source
from seed.pipeline.write.importer import FixtureError, import_file, import_fixture, validate
from seed.pipeline.write.update import update_fixture, update_source
from test_import_problems import EXAMPLE, edit

P1 = {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "is_published": True,
      "published_at": "2026-01-10T10:00:00Z"}


def with_p1(*rows, style=None):
    """The natural festival whose P1 results are ``rows``: ``(chest_no, score, position, extra)``."""
    data = natural_festival()
    data["results"] = [r for r in data["results"] if r["sub_fest_programme_code"] != "P1"]
    data["results"][:0] = [{**P1, "chest_no": chest, "score": score, "position": position, **extra}
                           for chest, score, position, extra in ((*row, {})[:4] for row in rows)]
    if style:
        data["festival"]["position_style"] = style
    return data


def problems(url, data):
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    return caught.value.problems


def test_dense_positions_are_refused_under_the_standard_style_and_kept_under_dense(fresh_app):
    _, url = fresh_app
    rows = (("101", 91, 1), ("102", 91, 1), ("103", 70, 2))
    assert problems(url, with_p1(*rows)) == [
        ("$.results[2].position", "position 2 follows 2 results at position 1 in programme 'P1' in sub-fest 'main': "
                                  "with standard positions (ties share 1, 1, 3) the next is 3; if the festival ranks "
                                  "that way, set the festival's position_style to dense")]
    with writable(url):
        assert validate(with_p1(*rows, style="dense")).festival["position_style"] == "dense"
        validate(with_p1(("101", 91, 1), ("102", 91, 1), ("103", 70, 3)))  # standard: 1, 1, 3


@pytest.mark.parametrize("rows, style, where, message", [
    ((("101", 91, 1), ("102", 91, 1), ("103", 70, 3)), "dense", "$.results[2].position",
     "position 3 follows 2 results at position 1 in programme 'P1' in sub-fest 'main': with dense positions (ties "
     "share 1, 1, 2) the next is 2; if the festival ranks that way, set the festival's position_style to standard"),
    ((("101", 91, 1), ("102", 70, 3)), None, "$.results[1].position",
     "position 3 follows position 1 in programme 'P1' in sub-fest 'main': with standard positions (ties share "
     "1, 1, 3) the next is 2"),
    ((("101", 91, 2), ("102", 70, 3)), None, "$.results[0].position",
     "position 2 is the best of programme 'P1' in sub-fest 'main': positions start at 1"),
])
def test_a_gap_or_a_skip_the_style_forbids_is_one_problem_per_programme(fresh_app, rows, style, where, message):
    _, url = fresh_app
    assert problems(url, with_p1(*rows, style=style)) == [(where, message)]


def test_two_results_at_one_position_with_different_scores_are_refused(fresh_app):
    _, url = fresh_app
    # a second first with a lower score: one problem (no gap said for the 2 after it)
    assert problems(url, with_p1(("101", 279, 1), ("102", 272, 1), ("103", 250, 2), style="dense")) == [
        ("$.results[1].position", "position 1 with score 272 contradicts $.results[0] (position 1 with score 279): "
                                  "equal positions need equal scores")]


def test_a_better_position_with_a_lower_score_is_refused(fresh_app):
    _, url = fresh_app
    assert problems(url, with_p1(("101", 70, 1), ("102", 91, 2))) == [
        ("$.results[1].position", "position 2 with score 91 contradicts $.results[0] (position 1 with score 70): "
                                  "a better position needs a higher score")]


def test_a_worse_position_given_before_with_a_higher_score_is_named(fresh_app):
    _, url = fresh_app
    assert problems(url, with_p1(("101", 90, 1), ("102", 70, 3), ("103", 60, 2))) == [
        ("$.results[2].position", "position 2 with score 60 contradicts $.results[1] (position 3 with score 70): "
                                  "a better position needs a higher score")]


def test_results_without_a_score_or_a_position_are_not_compared(fresh_app):
    _, url = fresh_app
    with writable(url):
        validate(with_p1(("101", None, 1), ("102", 95, 2), ("103", 99, None)))


@pytest.mark.parametrize("status", ["absent", "disqualified", "withdrawn"])
def test_a_result_that_did_not_take_part_takes_no_position_and_is_not_compared(fresh_app, status):
    _, url = fresh_app
    # 103 scored best but was disqualified (or absent, or withdrew): the others' places stand
    with writable(url):
        validate(with_p1(("101", 91, 1), ("102", 70, 2), ("103", 99, None, {"status": status})))
    assert problems(url, with_p1(("101", 91, 1), ("102", 70, 2), ("103", None, 3, {"status": status}))) == [
        ("$.results[2].position", f"position 3 is given to a result with status {status!r}, which takes no place: "
                                  "leave position empty (or set status present)")]


def test_an_unknown_status_names_the_allowed_ones(fresh_app):
    _, url = fresh_app
    [(where, message)] = problems(url, with_p1(("101", 91, 1), ("102", 70, None, {"status": "ill"})))
    assert where == "$.results[1].status"
    assert message == "'ill' is not one of ['present', 'absent', 'disqualified', 'withdrawn']"


@pytest.fixture
def folder(tmp_path):
    copy = tmp_path / "fest"
    shutil.copytree(EXAMPLE, copy)
    return copy


def test_a_csv_sheet_names_the_file_line_and_column_with_the_other_problems(fresh_app, folder):
    _, url = fresh_app

    def mistakes(lines):
        assert lines[31] == "general,HS-LM,1017,77,,no,," and lines[1].startswith("general,UP-LM,1007,81,")
        lines[31] = "general,HS-LM,1017,77,1,no,,"  # a second first place, 77 against 95 (line 31)
        lines[1] = lines[1].replace(",81,", ",eighty,")
        return lines

    edit(folder, "results.csv", mistakes)
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
    assert caught.value.located() == [
        ("results.csv line 2, column score", "'eighty' is not a number"),
        ("results.csv line 32, column position",
         "position 1 with score 77 contradicts line 31 (position 1 with score 95): equal positions need equal scores"),
    ]


def test_a_dry_run_refuses_it_too(fresh_app, folder):
    _, url = fresh_app
    edit(folder, "results.csv", lambda lines: [line.replace("general,HS-LM,1017,77,,", "general,HS-LM,1017,77,1,")
                                               for line in lines])
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder, dry_run=True)
    assert [where for where, _ in caught.value.located()] == ["results.csv line 32, column position"]


# --- an update: the file's rows against the stored ones ----------------------------------------


@pytest.fixture
def stored(fresh_app):
    """The natural festival stored with P1: 101 first (91), 102 second (70)."""
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
    return url


def test_an_updates_row_is_checked_against_the_stored_results(stored):
    late = update(results=[{**P1, "chest_no": "103", "score": 80, "position": 1}])
    for dry_run in (False, True):
        with writable(stored):
            with pytest.raises(FixtureError) as caught:
                update_fixture(late, dry_run=dry_run)
        assert caught.value.problems == [
            ("$.results[0].position", "position 1 with score 80 contradicts the stored result of chest_no '101' "
                                      "(position 1 with score 91): equal positions need equal scores")]
    with writable(stored):
        update_fixture(update(results=[{**P1, "chest_no": "103", "score": 60, "position": 3}]))
        positions = sorted((r.registration.sub_fest_candidate.chest_no, r.position) for r in
                           m.Result.select().join(m.SubFestProgramme).join(m.SubFest).join(m.Festival)
                           .where((m.SubFestProgramme.code == "P1") & (m.SubFest.slug == "main")
                                  & (m.Festival.slug == "natural-fest")))
    assert positions == [("101", 1), ("102", 2), ("103", 3)]


def test_an_update_that_marks_an_entry_absent_clears_its_stored_place(stored):
    with writable(stored):
        with pytest.raises(FixtureError) as caught:
            update_fixture(update(results=[{**P1, "chest_no": "102", "status": "absent", "position": 2}]))
        assert [where for where, _ in caught.value.problems] == ["$.results[0].position"]
        update_fixture(update(results=[{**P1, "chest_no": "102", "status": "absent"}]))
        result = (m.Result.select().join(m.Registration).join(m.SubFestCandidate).join(m.SubFest).join(m.Festival)
                  .where((m.SubFestCandidate.chest_no == "102") & (m.Festival.slug == "natural-fest")).get())
    assert (result.status, result.position, result.position_points) == ("absent", None, 0)


def test_an_update_that_changes_the_style_checks_every_stored_programme(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(with_p1(("101", 91, 1), ("102", 91, 1), ("103", 70, 3)))
        with pytest.raises(FixtureError) as caught:
            update_fixture({"formatVersion": 1, "festival": {"slug": "natural-fest", "position_style": "dense"}})
    assert caught.value.problems == [
        ("$.festival.position_style",
         "position 3 follows 2 results at position 1 in programme 'P1' in sub-fest 'main': with dense positions "
         "(ties share 1, 1, 2) the next is 2; if the festival ranks that way, set the festival's position_style to "
         "standard (the stored result of chest_no '103')")]


def test_follow_says_the_problem_in_the_sheets_terms_and_applies_nothing(stored, tmp_path):
    sheets = tmp_path / "results"
    sheets.mkdir()
    (sheets / "festival.csv").write_text("slug\nnatural-fest\n", encoding="utf-8")
    (sheets / "results.csv").write_text(
        "sub_fest_slug,sub_fest_programme_code,chest_no,score,position\nmain,P1,103,80,1\n", encoding="utf-8")
    said = []
    with writable(stored):
        Follower(open_source(str(sheets)), said.append, update_source).turn()
        unchanged = (m.Result.select().join(m.Registration).join(m.SubFestCandidate).join(m.SubFest).join(m.Festival)
                     .where((m.SubFestCandidate.chest_no == "103") & (m.Festival.slug == "natural-fest")).count())
    assert said == [f"waiting: {sheets} has 1 problem(s); nothing was applied, the festival stays as it was:\n"
                    "  results.csv line 2, column position: position 1 with score 80 contradicts the stored result "
                    "of chest_no '101' (position 1 with score 91): equal positions need equal scores"]
    assert unchanged == 0


def test_members_are_given_only_to_a_group_entry(fresh_app):
    """Members of an entry that is not a group would be shown nowhere (without a candidate,
    neither would the entry): refused, naming the sheet's column."""
    _, url = fresh_app
    data = natural_festival()
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "team_name": "Red",
                                  "member_chest_nos": ["103"]})
    assert problems(url, data) == [
        (f"$.registrations[{len(data['registrations']) - 1}].members",
         "an entry with members is a group: set type to group (it is 'individual'), or leave the members out")]


def test_one_person_under_two_chest_numbers_has_one_result_in_a_programme(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["subFestCandidates"].append({"sub_fest_slug": "main", "chest_no": "104", "candidate_admission_number": "ADM-1",
                                      "team_name": "Red School"})  # Anu, who is 101 too
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "104"})
    data["results"].append({**P1, "chest_no": "104", "score": 60, "position": 3})
    last = len(data["results"]) - 1
    assert problems(url, data) == [
        (f"$.results[{last}].registration", "chest_no '104' and chest_no '101' are one person, who already has a "
                                            "result in this programme ($.results[0])")]
    del data["results"][0]  # 101's result: one result of the person is fine, under either number
    data["results"][-1].update(score=95, position=1)
    with writable(url):
        validate(data)
