"""Leaderboard computation (db/compiler/leaderboards.py) against hand-computed tables, and its CLI command."""
import copy
import datetime
import uuid

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import BIG, SMALL, writable
from db import clock
from db.source import models as m
from db.source.revisions import current_revision
from db.compiler.leaderboards import Total, rank, recompute_toppers
from seed.pipeline.write.importer import import_fixture
from tiny_festival import day, tiny_copy, tiny_festival


def parse(value):
    return datetime.datetime.fromisoformat(value.replace("Z", ""))


@pytest.fixture
def tiny(seeded, tmp_path):
    """``(fixture data, ids, url)``: the tiny festival imported into a private copy."""
    data, ids = tiny_festival()
    with tiny_copy(seeded[0], tmp_path, data) as (url, _):
        yield data, ids, url


@pytest.fixture(scope="module")
def tiny_read(seeded, tmp_path_factory):
    """The same, shared by the tests that only read."""
    data, ids = tiny_festival()
    with tiny_copy(seeded[0], tmp_path_factory.mktemp("tiny"), data) as (url, _):
        yield data, ids, url


def table(url, ids, key):
    """``[(rank, tied, name, points, programme count)]`` of a placeholder, in stored order."""
    with writable(url):
        entries = (m.TopperEntry
                   .select()
                   .where(m.TopperEntry.placeholder == ids[key])
                   .order_by(m.TopperEntry.rank, m.TopperEntry.name))
        return [(e.rank, e.tied, e.name, e.points, e.programme_count) for e in entries]


def placeholder(url, ids, key):
    with writable(url):
        return m.TopperPlaceholder.get_by_id(ids[key])


# --- the ranking rule on its own ---------------------------------------------------------------------


def totals(*pairs):
    return [Total(entity_id=uuid.UUID(int=i), name=name, details={}, points=points)
            for i, (name, points) in enumerate(pairs, 1)]


@pytest.mark.parametrize("pairs, top_n, expected", [
    # ties in the middle: 1, 2, 2, 4
    ([("a", 9), ("b", 7), ("c", 7), ("d", 5)], None, [(1, False, "a"), (2, True, "b"), (2, True, "c"), (4, False, "d")]),
    # a tie at the top-N cut-off keeps everyone tied
    ([("a", 9), ("b", 7), ("c", 7), ("d", 5)], 2, [(1, False, "a"), (2, True, "b"), (2, True, "c")]),
    ([("a", 9), ("b", 7), ("c", 7), ("d", 5)], 3, [(1, False, "a"), (2, True, "b"), (2, True, "c")]),
    ([("a", 9), ("b", 7), ("c", 7), ("d", 5)], 4, [(1, False, "a"), (2, True, "b"), (2, True, "c"), (4, False, "d")]),
    # a shared first place; equal points are ordered by name, case-insensitively
    ([("beta", 3), ("Alpha", 3), ("gamma", 1)], 1, [(1, True, "Alpha"), (1, True, "beta")]),
    # fractional points that sum to the same value are a tie
    ([("a", 0.1 + 0.2), ("b", 0.3)], None, [(1, True, "a"), (1, True, "b")]),
    # a top 0 keeps everyone
    ([("a", 9), ("b", 7), ("c", 7), ("d", 5)], 0, [(1, False, "a"), (2, True, "b"), (2, True, "c"), (4, False, "d")]),
    ([], 5, []),
])
def test_standard_competition_ranking(pairs, top_n, expected):
    ranked = rank(totals(*pairs), top_n)
    assert [(r, tied, t.name) for r, tied, t in ranked] == expected


def test_equal_points_and_names_are_ordered_by_id():
    ranked = rank(list(reversed(totals(("same", 1), ("same", 1)))))
    assert [t.entity_id.int for _, _, t in ranked] == [1, 2]


# --- hand-computed tables of the tiny festival (see tests/tiny_festival.py) -----------------------------


HAND_COMPUTED = {
    # Xavier (inactive, 10 in P1), Bala's unpublished P5 (10), Esha's private P4 result and
    # Anu's hidden programme never count; group results do not count for candidates.
    "candidates": [(1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2),
                   (4, False, "Esha", 5, 1), (5, False, "Bala", 3, 1)],
    "candidates-top2": [(1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2)],
    "junior": [(1, False, "Anu", 10, 2), (2, False, "Esha", 5, 1), (3, False, "Bala", 3, 1)],
    "senior": [(1, True, "Chitra", 8, 2), (1, True, "Devi", 8, 2)],
    "hostel": [(1, False, "Devi", 8, 2), (2, False, "Bala", 3, 1)],
    # a group result counts once for each section one of its visible members is in
    "sections": [(1, False, "Day", 29, 5), (2, False, "Hostel", 15, 4)],
    # level 1 rolls up level-2 teams and adds group entries of the house itself
    "houses": [(1, False, "Red", 22, 3), (2, False, "Blue", 18, 3)],
    "departments": [(1, False, "B1", 16, 2), (2, False, "R1", 15, 2), (3, False, "R2", 3, 1)],
    "stage-houses": [(1, False, "Red", 12, 2), (2, False, "Blue", 10, 2)],
    "groups": [(1, False, "Red group", 4, 1), (2, False, "Blue group", 2, 1)],
    # unpublished placeholders are computed too
    "draft": [(1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2),
              (4, False, "Esha", 5, 1), (5, False, "Bala", 3, 1)],
}


@pytest.mark.parametrize("key", sorted(HAND_COMPUTED))
def test_leaderboard_matches_the_hand_computed_table(tiny_read, key):
    _, ids, url = tiny_read
    assert table(url, ids, key) == HAND_COMPUTED[key]


@pytest.mark.parametrize("key, counted, in_scope", [
    ("candidates", 5, 6),  # P1-P5 and G1 are in scope (PH is private); P5 is unpublished
    ("junior", 3, 3),
    ("senior", 2, 3),
    ("hostel", 5, 6),
    ("stage-houses", 3, 3),
])
def test_completeness_counts_programmes_with_published_results(tiny_read, key, counted, in_scope):
    _, ids, url = tiny_read
    row = placeholder(url, ids, key)
    assert (row.programmes_counted, row.programmes_in_scope) == (counted, in_scope)
    assert row.last_computed_at is not None


def test_entries_carry_the_last_counted_result_date_and_public_details(tiny_read):
    _, ids, url = tiny_read
    with writable(url):
        entries = {e.name: e for e in m.TopperEntry.select().where(m.TopperEntry.placeholder == ids["candidates"])}
        anu = entries["Anu"]
        assert anu.last_result_at == parse(day(11))  # P1 (day 10) and P2 (day 11)
        assert anu.entity_type == "candidate" and str(anu.entity_id) == ids["Anu"]
        assert anu.details["candidate"] == {
            "id": ids["Anu"], "chest_no": "101", "name": "Anu", "name_local": None, "gender": None,
            "avatar_url": None}
        assert anu.details["team"]["name"] == "R1"
        assert anu.details["category"]["name"] == "Junior"
        group = m.TopperEntry.get((m.TopperEntry.placeholder == ids["groups"]) & (m.TopperEntry.name == "Blue group"))
        # Xavier is inactive: the group still counts through Chitra, but only Chitra is shown
        assert [member["name"] for member in group.details["group"]["members"]] == ["Chitra"]
        assert group.details["group"]["programme"]["code"] == "G1"
        text = str([e.details for e in m.TopperEntry.select()])
    assert "Xavier" not in text and "private.example" not in text and "ADM-" not in text


def test_publishing_a_result_and_reimporting_changes_the_leaderboard(tiny, monkeypatch):
    data, ids, url = tiny
    before = placeholder(url, ids, "candidates").last_computed_at
    later = before + datetime.timedelta(hours=2)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    changed = copy.deepcopy(data)
    next(r for r in changed["results"] if r["id"] == ids["result-P5-Bala"]).update(
        is_published=True, published_at=day(16))
    with writable(url):
        import_fixture(changed)
    # Bala: 3 + 10 = 13 takes the lead; the others move down one place
    assert table(url, ids, "candidates") == [
        (1, False, "Bala", 13, 2), (2, False, "Anu", 10, 2), (3, True, "Chitra", 8, 2),
        (3, True, "Devi", 8, 2), (5, False, "Esha", 5, 1)]
    row = placeholder(url, ids, "candidates")
    assert row.last_computed_at == later
    assert row.programmes_counted == 6


def test_an_inactive_candidates_points_would_change_the_order(tiny):
    """Re-activating Xavier adds his 10 points: proof the table above excluded real points."""
    data, ids, url = tiny
    changed = copy.deepcopy(data)
    next(c for c in changed["candidates"] if c["id"] == ids["person-Xavier"])["is_active"] = True
    with writable(url):
        import_fixture(changed)
    assert table(url, ids, "houses") == [(1, False, "Blue", 28, 4), (2, False, "Red", 22, 3)]
    assert table(url, ids, "candidates")[:2] == [(1, True, "Anu", 10, 2), (1, True, "Xavier", 10, 1)]


def add_team_entry(data, ids, key, programme, team, points, kind="individual", published=True):
    """A team's own entry (a team, no candidate, no members) with its result."""
    registration, result = (str(uuid.uuid5(uuid.NAMESPACE_URL, f"tiny-fest/{name}-{key}"))
                            for name in ("reg", "result"))
    published_at = next(p["published_at"] for p in data["subFestProgrammes"] if p["id"] == ids[programme])
    data["registrations"].append({"id": registration, "sub_fest_programme": ids[programme], "type": kind,
                                  "team": ids[team]})
    data["results"].append({"id": result, "registration": registration, "sub_fest_programme": ids[programme],
                            "score": 50 + points, "grade": "A", "position_points": points - 1, "grade_points": 1,
                            "points": points, "is_published": published,
                            "published_at": published_at if published else None})


# What moves when teams enter on their own: their points go to their team and the teams
# above it, on team leaderboards only; candidates, groups and sections earn nothing.
WITH_TEAM_ENTRIES = {
    **HAND_COMPUTED,
    "houses": [(1, False, "Red", 28, 3), (2, False, "Blue", 21, 3)],  # R1's 6 (G1), Blue's own 3 (P4)
    "departments": [(1, False, "R1", 21, 3), (2, False, "B1", 16, 2), (3, False, "R2", 3, 1)],
    "stage-houses": [(1, False, "Red", 18, 2), (2, False, "Blue", 10, 2)],  # P4 is not on stage
    # a section scope counts its candidates' results: Bala 3 + the Red group 4; Devi 3 + 5
    "hostel-houses": [(1, False, "Blue", 8, 2), (2, False, "Red", 7, 2)],
}


def test_a_teams_own_result_counts_for_its_team_and_the_teams_above_it_only(tiny):
    data, ids, url = tiny
    changed = copy.deepcopy(data)
    add_team_entry(changed, ids, "R1-G1", "G1", "R1", 6, kind="group")
    add_team_entry(changed, ids, "Blue-P4", "P4", "Blue", 3)
    add_team_entry(changed, ids, "Hidden-P3", "P3", "HiddenTeam", 50)  # a hidden team: nowhere
    add_team_entry(changed, ids, "R2-P2", "P2", "R2", 7, published=False)
    ids["hostel-houses"] = str(uuid.uuid5(uuid.NAMESPACE_URL, "tiny-fest/hostel-houses"))
    changed["topperPlaceholders"].append({
        "id": ids["hostel-houses"], "sub_fest": ids["main"], "label": "hostel-houses", "scope_type": "section",
        "section_key": "hostel", "entity_type": "team", "team_level": 1, "is_published": True})
    with writable(url):
        import_fixture(changed)
    assert {key: table(url, ids, key) for key in WITH_TEAM_ENTRIES} == WITH_TEAM_ENTRIES
    row = placeholder(url, ids, "candidates")
    assert (row.programmes_counted, row.programmes_in_scope) == (5, 6)


def test_hidden_sub_fest_placeholders_stay_empty(fresh_app, fixture_data):
    _, url = fresh_app
    hidden_sub_fests = {s["id"] for s in fixture_data[SMALL]["subFests"] if not (s["is_active"] and s["is_public"])}
    with writable(url):
        rows = (m.TopperPlaceholder.select()
                .where(m.TopperPlaceholder.sub_fest.in_([uuid.UUID(s) for s in hidden_sub_fests])))
        assert rows.count() > 0
        for row in rows:
            assert row.entries.count() == 0 and row.programmes_in_scope == 0


def test_recompute_uses_a_fixed_number_of_queries(fresh_app, query_count):
    _, url = fresh_app
    with writable(url) as db:
        festival = m.Festival.get(m.Festival.slug == BIG)
        placeholders = (m.TopperPlaceholder.select().join(m.SubFest)
                        .where(m.SubFest.festival == festival.id).count())
        with db.atomic(), query_count() as counter:
            recompute_toppers(festival)
    # loading is a fixed set of queries; writing is one delete, one update per
    # placeholder and one insert per 200 entries
    assert counter.count <= 12 + placeholders + 5


# --- CLI --------------------------------------------------------------------------------------------


def test_cli_recompute_restores_the_leaderboard_and_bumps_the_revision(tiny, monkeypatch):
    _, ids, url = tiny
    expected = table(url, ids, "candidates")
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == "tiny-fest")
        m.TopperEntry.delete().where(m.TopperEntry.placeholder.in_(list(ids.values()))).execute()
        revision = current_revision(festival.id)[0]
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["toppers", "recompute", "tiny-fest"])
    assert result.exit_code == 0, result.output
    assert "Recomputed 11 topper placeholder(s) of tiny-fest" in result.output
    assert table(url, ids, "candidates") == expected
    with writable(url):
        assert current_revision(festival.id)[0] == revision + 1


def test_cli_recompute_without_slug_covers_every_festival(fresh_app, monkeypatch):
    _, url = fresh_app
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["toppers", "recompute"])
    assert result.exit_code == 0, result.output
    assert f"of {BIG}" in result.output and f"of {SMALL}" in result.output


def test_cli_recompute_of_an_unknown_festival_fails(fresh_app, monkeypatch):
    _, url = fresh_app
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["toppers", "recompute", "no-such-fest"])
    assert result.exit_code != 0
    assert "no festival with slug 'no-such-fest'" in result.output
