"""Leaderboards as they stood (``/toppers?asOf=``, ``/page-toppers?asOf=``) and the points race
(``/topper-race``), on the bundled festival published in three steps with ``import --update``.

Every board of the past is compared with an independent sum over the fixture's JSON (the
rules of ``result_rules.py``), written here without the product's code.
"""
import copy
import datetime
from collections import defaultdict

import pytest

from conftest import BIG, ApiClient, run_init, writable
from db.source import models as m
from db.source.keys import create_key
from fixture_rules import parse_time
from result_rules import participants, visible_candidate_ids, visible_registrations, public_team_ids
from seed.pipeline.write.importer import import_fixture
from seed.pipeline.write.update import update_fixture

GENERAL = "87b5960c-0544-5e52-a92a-1d0b64012a2e"
CANDIDATES = "6a4c2eb1-d10e-5c58-b075-86f456c7d6d0"  # Overall individual champions (top 10)
TEAMS = "2574f6ab-739c-5035-b4b8-7e6871b02ed7"  # District championship (teams, level 1, top 14)
# The later publications: the first in the festival's local time (Asia/Kolkata), as an office writes it.
SECOND, SECOND_UTC = "2026-01-19T10:00:00", datetime.datetime(2026, 1, 19, 4, 30)
THIRD, THIRD_UTC = "2026-01-19T10:00:00Z", datetime.datetime(2026, 1, 19, 10, 0)


def later_programmes(data):
    """Two thirds of the programmes with published results, in two batches (by code)."""
    published = {r["sub_fest_programme"] for r in data["results"] if r["is_published"]}
    programmes = sorted((p for p in data["subFestProgrammes"] if p["id"] in published), key=lambda p: p["code"])
    third = len(programmes) // 3
    return [p["id"] for p in programmes[third:2 * third]], [p["id"] for p in programmes[2 * third:]]


def withheld(data, programme_ids):
    """The festival with these programmes' results not yet published."""
    data = copy.deepcopy(data)
    for programme in data["subFestProgrammes"]:
        if programme["id"] in programme_ids:
            programme.update(status="completed", published_at=None)
    for result in data["results"]:
        if result["sub_fest_programme"] in programme_ids:
            result.update(is_published=False, published_at=None)
    return data


def publication(data, programme_ids, at):
    """The update file publishing these programmes' results at ``at``."""
    return {"formatVersion": 1, "festival": {"slug": data["festival"]["slug"]},
            "subFestProgrammes": [{"id": p, "status": "result_published", "published_at": at}
                                  for p in programme_ids],
            "results": [{"id": r["id"], "is_published": True, "published_at": at}
                        for r in data["results"] if r["sub_fest_programme"] in programme_ids and r["is_published"]]}


@pytest.fixture(scope="module")
def stepped(seeded, tmp_path_factory, fixture_data):
    """``(api, the festival as published at the end, [publication moments])``: the bundled
    festival imported with two thirds of its results withheld, then published by two updates."""
    from conftest import TEST_SETTINGS, database_copy
    from app import create_app
    from db.database import database

    data = fixture_data[BIG]
    second, third = later_programmes(data)
    previous = database.obj
    with database_copy(seeded[0], tmp_path_factory.mktemp("stepped")) as url:
        with writable(url):
            import_fixture(withheld(data, set(second) | set(third)), allow_withdrawals=True)
            update_fixture(publication(data, second, SECOND))
            update_fixture(publication(data, third, THIRD))
        final = copy.deepcopy(data)
        for result in final["results"]:
            if result["is_published"] and result["sub_fest_programme"] in second:
                result["published_at"] = SECOND_UTC.isoformat() + "Z"
            elif result["is_published"] and result["sub_fest_programme"] in third:
                result["published_at"] = THIRD
        app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
        try:
            yield ApiClient(app.test_client(), seeded[1]), final
        finally:
            database.initialize(previous)


# --- the independent sum -------------------------------------------------------------------------


def expected_board(data, placeholder_id, moment):
    """``{entity id: (rank, points)}`` of the displayed board at ``moment``, summed from the
    fixture: published public results of visible entries published by then."""
    placeholder = next(p for p in data["topperPlaceholders"] if p["id"] == placeholder_id)
    registrations = visible_registrations(data)
    visible = visible_candidate_ids(data)
    teams = {t["id"]: t for t in data["teams"] if t["id"] in public_team_ids(data)}
    candidates = {c["id"]: c for c in data["subFestCandidates"]}
    programmes = {p["id"]: p for p in data["subFestProgrammes"]}
    totals = defaultdict(float)
    for result in data["results"]:
        registration = registrations.get(result["registration"])
        if (registration is None or not result["is_published"] or not result.get("is_public", True)
                or programmes[result["sub_fest_programme"]]["sub_fest"] != placeholder["sub_fest"]
                or parse_time(result["published_at"]) > moment):
            continue
        people = participants(registration, visible)
        if placeholder["entity_type"] == "candidate":
            if registration["type"] == "individual" and people:
                totals[people[0]] += result["points"]
        else:  # a team board of level team_level (1 when null)
            team = teams.get(registration.get("team") or (candidates[people[0]]["team"] if people else None))
            level = placeholder["team_level"] or 1
            while team is not None and team["level"] > level:
                team = teams.get(team["parent"])
            if team is not None and team["level"] == level:
                totals[team["id"]] += result["points"]
    board = {}
    for entity_id, points in totals.items():
        place = 1 + sum(1 for other in totals.values() if round(other, 6) > round(points, 6))
        if place <= placeholder["display_top_n"]:
            board[entity_id] = (place, round(points, 6))
    return board


def served_board(entries):
    return {e["entityId"]: (e["rank"], e["points"]) for e in entries}


def iso(moment):
    return moment.isoformat() + "Z"


# --- the board as it stood -----------------------------------------------------------------------


def moments(data):
    """Every publication moment of the fixture's counted results, each a second before, and
    one before everything and one after."""
    published = sorted({parse_time(r["published_at"]) for r in data["results"] if r["is_published"]})
    second = datetime.timedelta(seconds=1)
    return [published[0] - datetime.timedelta(days=30), *published, *(p - second for p in published),
            published[-1] + datetime.timedelta(days=30)]


@pytest.mark.parametrize("placeholder_id", [CANDIDATES, TEAMS])
def test_every_board_of_the_past_is_the_sum_of_the_results_published_by_then(stepped, placeholder_id):
    api, data = stepped
    checked = 0
    for moment in moments(data):
        body = api.ok("/toppers", topperPlaceholderId=placeholder_id, asOf=iso(moment), limit=100)
        expected = expected_board(data, placeholder_id, moment)
        assert served_board(body["data"]) == expected, moment
        assert body["context"]["asOf"]["requested"] == iso(moment)
        checked += bool(expected)
    assert checked > 10  # the steps are many, and most boards are not empty


def test_the_last_board_of_the_past_is_the_current_board(stepped):
    api, data = stepped
    for placeholder_id in (CANDIDATES, TEAMS):
        now = api.ok("/toppers", topperPlaceholderId=placeholder_id, limit=100)
        then = api.ok("/toppers", topperPlaceholderId=placeholder_id, limit=100, asOf="2030-01-01T00:00:00Z")
        assert then["data"] == now["data"]
        assert now["context"]["asOf"] is None
        assert then["context"]["asOf"]["publishedAt"] == THIRD


def test_before_anything_was_published_the_board_is_empty(stepped):
    api, _ = stepped
    body = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf="2020-01-01T00:00:00Z")
    assert body["data"] == [] and body["meta"]["total"] == 0
    assert body["context"]["asOf"] == {"requested": "2020-01-01T00:00:00Z", "publishedAt": None}


def test_a_time_without_an_offset_is_the_festivals_local_time(stepped):
    api, data = stepped
    local = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=SECOND, limit=100)  # 04:30 UTC
    assert local["context"]["asOf"] == {"requested": iso(SECOND_UTC), "publishedAt": iso(SECOND_UTC)}
    assert served_board(local["data"]) == expected_board(data, TEAMS, SECOND_UTC)
    utc = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf="2026-01-19T10:00:00Z", limit=100)
    assert utc["context"]["asOf"]["publishedAt"] == THIRD
    assert served_board(utc["data"]) != served_board(local["data"])
    day = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf="2026-01-19", limit=100)  # its end, local
    assert day["context"]["asOf"]["requested"] == "2026-01-19T18:29:59Z"
    assert api.ok("/toppers", topperPlaceholderId=TEAMS, asOf="20260119", limit=100) == day  # the same day


def test_sorting_and_paging_apply_to_a_board_of_the_past(stepped):
    api, _ = stepped
    whole = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=SECOND, limit=100)["data"]
    pages = [api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=SECOND, limit=5, page=n) for n in (1, 2, 3)]
    assert [e for p in pages for e in p["data"]] == whole
    assert pages[0]["meta"]["total"] == len(whole) and pages[0]["meta"]["hasNextPage"]
    by_name = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=SECOND, limit=100, sortBy="name")["data"]
    assert [e["name"].casefold() for e in by_name] == sorted(e["name"].casefold() for e in whole)
    by_points = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=SECOND, limit=100, sortBy="points",
                       sortOrder="desc")["data"]
    assert [e["points"] for e in by_points] == sorted((e["points"] for e in whole), reverse=True)


@pytest.mark.parametrize("sort_by", ["rank", "points", "name", "programmeCount", "lastResultAt"])
@pytest.mark.parametrize("sort_order", ["asc", "desc"])
def test_the_last_board_of_the_past_sorts_and_pages_as_the_current_board(stepped, sort_by, sort_order):
    # the current board is sorted by the database (ties by name where the sort says, then
    # by entity id); a board of the past by the history's reader: the same order, tied
    # entries included, on every page
    api, _ = stepped
    tied = 0
    for placeholder_id in (CANDIDATES, TEAMS):
        for page, limit in ((1, 100), (1, 3), (2, 3), (3, 3)):
            args = dict(topperPlaceholderId=placeholder_id, sortBy=sort_by, sortOrder=sort_order, page=page,
                        limit=limit)
            now = api.ok("/toppers", **args)
            then = api.ok("/toppers", asOf="2030-01-01T00:00:00Z", **args)
            assert then["data"] == now["data"] and then["meta"] == now["meta"], (placeholder_id, page)
            tied += sum(e["tied"] for e in now["data"])
    assert tied  # ties are there to be ordered


def test_page_toppers_shows_every_board_as_it_stood(stepped):
    api, data = stepped
    body = api.ok("/page-toppers", pageSlug="results", asOf=SECOND)
    boards = {t["id"]: t for t in body["toppers"]}
    assert {CANDIDATES, TEAMS} <= set(boards)
    for placeholder_id in (CANDIDATES, TEAMS):
        alone = api.ok("/toppers", topperPlaceholderId=placeholder_id, asOf=SECOND, limit=100)
        assert boards[placeholder_id]["entries"] == alone["data"]
        assert {k: v for k, v in boards[placeholder_id].items() if k != "entries"} == alone["placeholder"]
    assert body["context"]["asOf"]["publishedAt"] == iso(SECOND_UTC)
    now = api.ok("/page-toppers", pageSlug="results")
    late = api.ok("/page-toppers", pageSlug="results", asOf="2030-01-01")
    assert late["toppers"] == now["toppers"]


# --- the race ----------------------------------------------------------------------------------


def whole_race(api, **params):
    steps, page = [], 1
    while True:
        body = api.ok("/topper-race", page=page, limit=7, **params)
        steps += body["data"]
        if not body["meta"]["hasNextPage"]:
            return body, steps
        page += 1


def test_the_race_follows_each_entry_after_every_publication(stepped):
    api, data = stepped
    body, steps = whole_race(api, topperPlaceholderId=TEAMS, top=5)
    entries = body["entries"]
    current = api.ok("/toppers", topperPlaceholderId=TEAMS, limit=100)["data"]
    assert entries == current[:5]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1)) and len(steps) > 10
    assert [s["at"] for s in steps] == sorted({s["at"] for s in steps})
    assert steps[-1]["at"] == THIRD and iso(SECOND_UTC) in [s["at"] for s in steps]
    ids = [e["entityId"] for e in entries]
    for step in steps:
        assert [s["entityId"] for s in step["standings"]] == ids
        moment = parse_time(step["at"])
        # every standing is the board's at that moment: the independent sum, on the whole board
        board = expected_board({**data, "topperPlaceholders": [
            {**p, "display_top_n": 10 ** 6} if p["id"] == TEAMS else p for p in data["topperPlaceholders"]]},
            TEAMS, moment)
        for standing in step["standings"]:
            rank, points = board.get(standing["entityId"], (None, 0.0))
            assert (standing["rank"], standing["points"]) == (rank, points)
    last = {s["entityId"]: (s["rank"], s["points"]) for s in steps[-1]["standings"]}
    assert last == {e["entityId"]: (e["rank"], e["points"]) for e in current[:5]}


def test_the_race_by_label_and_its_default_and_largest_top(stepped):
    api, _ = stepped
    by_id = api.ok("/topper-race", topperPlaceholderId=CANDIDATES)
    by_label = api.ok("/topper-race", placeholderLabel="Overall individual champions", subFestSlug="general")
    assert by_id == by_label and len(by_id["entries"]) == 10
    widest = api.ok("/topper-race", topperPlaceholderId=CANDIDATES, top=50, limit=500)
    assert 10 < len(widest["entries"]) <= 50
    assert widest["entries"][:10] == by_id["entries"]
    assert all(len(s["standings"]) == len(widest["entries"]) for s in widest["data"])


def test_the_race_as_of_a_moment_is_its_steps_published_by_then(stepped):
    api, data = stepped
    whole, steps = whole_race(api, topperPlaceholderId=TEAMS, top=5)
    assert whole["context"]["asOf"] is None
    for moment in moments(data):
        body, shown = whole_race(api, topperPlaceholderId=TEAMS, top=5, asOf=iso(moment))
        by_then = [s for s in steps if parse_time(s["at"]) <= moment]
        assert shown == by_then and body["meta"]["total"] == len(by_then), moment
        assert body["entries"] == whole["entries"]  # the same lines at every moment
        assert body["context"]["asOf"] == {"requested": iso(moment),
                                           "publishedAt": by_then[-1]["at"] if by_then else None}
        if by_then:  # its last step is the board as it stood then, on the whole board
            board = api.ok("/toppers", topperPlaceholderId=TEAMS, asOf=iso(moment), limit=100)["data"]
            shown_then = {e["entityId"]: (e["rank"], e["points"]) for e in board}
            for standing in by_then[-1]["standings"]:
                if standing["entityId"] in shown_then:
                    assert (standing["rank"], standing["points"]) == shown_then[standing["entityId"]]
    local = api.ok("/topper-race", topperPlaceholderId=TEAMS, asOf=SECOND, limit=500)  # 04:30 UTC
    assert local["data"][-1]["at"] == iso(SECOND_UTC)
    past_the_end = api.ok("/topper-race", topperPlaceholderId=TEAMS, asOf=SECOND, page=100, limit=5)
    assert past_the_end["data"] == [] and past_the_end["meta"]["total"] == len(local["data"])
    assert past_the_end["context"]["asOf"]["publishedAt"] == iso(SECOND_UTC)


@pytest.mark.parametrize("path, params, field", [
    ("/toppers", {"topperPlaceholderId": TEAMS, "asOf": "yesterday"}, "asOf"),
    ("/toppers", {"topperPlaceholderId": TEAMS, "asOf": "2026-02-30T10:00:00"}, "asOf"),
    ("/toppers", {"topperPlaceholderId": TEAMS, "asOf": "2026-01-19T25:00"}, "asOf"),
    ("/page-toppers", {"pageSlug": "results", "asOf": "19/01/2026"}, "asOf"),
    ("/topper-race", {"topperPlaceholderId": TEAMS, "top": "0"}, "top"),
    ("/topper-race", {"topperPlaceholderId": TEAMS, "top": "51"}, "top"),
    ("/topper-race", {"topperPlaceholderId": TEAMS, "top": "ten"}, "top"),
    ("/topper-race", {"topperPlaceholderId": TEAMS, "limit": "0"}, "limit"),
    ("/topper-race", {}, "topperPlaceholderId"),
    ("/topper-race", {"topperPlaceholderId": "not-a-uuid"}, "topperPlaceholderId"),
    ("/topper-race", {"topperPlaceholderId": TEAMS, "asOf": "yesterday"}, "asOf"),
])
def test_bad_moments_tops_and_selectors_are_400(stepped, path, params, field):
    api, _ = stepped
    response = api.get(path, **params)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert field in str(response.get_json()["errors"])


def test_an_unknown_or_unpublished_leaderboard_has_no_race(stepped):
    api, data = stepped
    hidden = [p["id"] for p in data["topperPlaceholders"] if not p["is_published"]]
    for placeholder_id in ("00000000-0000-4000-8000-000000000000", *hidden):
        assert api.get("/topper-race", topperPlaceholderId=placeholder_id).status_code == 404
    assert api.get("/topper-race", placeholderLabel="no such board", subFestSlug="general").status_code == 404


# --- kept current: only the boards that moved ------------------------------------------------------


def history_rows(festival_id):
    from db.compiled.tables import PublicTopperHistory, PublicTopperPastEntry, PublicTopperStep
    def text(row):  # PostgreSQL's bytea comes as a memoryview, whose repr is its address
        return repr(tuple(bytes(v) if isinstance(v, memoryview) else v for v in row))

    return {model.__name__: sorted(map(text, model.select().where(model.festival == festival_id).tuples()))
            for model in (PublicTopperHistory, PublicTopperStep, PublicTopperPastEntry)}


def test_an_update_rewrites_only_the_histories_it_moved(fresh_app, fixture_data, monkeypatch):
    from db.compiler import compile_festival
    from db.compiler import toppers as compile_step

    _, url = fresh_app
    data = fixture_data[BIG]
    arabic = next(s["id"] for s in data["subFests"] if s["slug"] == "arabic")
    programmes = {p["id"]: p for p in data["subFestProgrammes"]}
    registrations = visible_registrations(data)
    result = next(r for r in data["results"] if not r["is_published"] and r["registration"] in registrations
                  and programmes[r["sub_fest_programme"]]["sub_fest"] == arabic and r["points"])
    rewritten = []
    real = compile_step._compile_history
    monkeypatch.setattr(compile_step, "_compile_history",
                        lambda writer, placeholder, *rest: (rewritten.append(str(placeholder.id)),
                                                            real(writer, placeholder, *rest)))
    with writable(url):
        festival_id = m.Festival.get(m.Festival.slug == BIG).id
        before = api_race_steps(festival_id)
        update_fixture({"formatVersion": 1, "festival": {"slug": BIG},
                        "results": [{"id": result["id"], "is_published": True,
                                     "published_at": "2026-01-18T12:00:00Z"}]})
        arabic_boards = {p["id"] for p in data["topperPlaceholders"] if p["sub_fest"] == arabic}
        assert rewritten and set(rewritten) <= arabic_boards
        after = api_race_steps(festival_id)
        assert {k: v for k, v in after.items() if k not in rewritten} == \
            {k: v for k, v in before.items() if k not in rewritten}
        assert any(after[k] != before.get(k) for k in rewritten)
        updated = history_rows(festival_id)
        compile_festival(festival_id)  # a whole compile writes the very same rows
        assert history_rows(festival_id) == updated


def api_race_steps(festival_id):
    from db.compiled.tables import PublicTopperHistory
    return {str(p): (digest, steps) for p, digest, steps in PublicTopperHistory
            .select(PublicTopperHistory.placeholder, PublicTopperHistory.digest, PublicTopperHistory.steps)
            .where(PublicTopperHistory.festival == festival_id).tuples()}


def test_a_result_withdrawn_later_is_gone_from_the_past_as_well(fresh_app, fixture_data):
    """Withdrawing a result (and its entry) recomputes history from today's public results:
    no board of the past counts it, and its publication moment is a step no more when
    nothing else of the board was published then."""
    app, url = fresh_app
    data = fixture_data[BIG]
    api = ApiClient(app.test_client(), {})
    registrations = visible_registrations(data)
    programmes = {p["id"]: p for p in data["subFestProgrammes"]}
    moments_of = defaultdict(set)  # moment -> the board's counted results then
    for r in data["results"]:
        if r["is_published"] and r["registration"] in registrations \
                and programmes[r["sub_fest_programme"]]["sub_fest"] == GENERAL \
                and registrations[r["registration"]]["type"] == "individual":
            moments_of[r["published_at"]].add(r["id"])

    def without(data, result):
        gone = copy.deepcopy(data)
        gone["registrations"] = [r for r in gone["registrations"] if r["id"] != result["registration"]]
        gone["results"] = [r for r in gone["results"] if r["id"] != result["id"]]
        return gone

    # the first result whose withdrawal moves the board as it stood when it was published
    counted = sorted((r for ids in moments_of.values() for r in data["results"] if r["id"] in ids and r["points"]),
                     key=lambda r: (r["published_at"], r["id"]))
    result = next(r for r in counted if expected_board(without(data, r), CANDIDATES, parse_time(r["published_at"]))
                  != expected_board(data, CANDIDATES, parse_time(r["published_at"])))
    chosen = moments_of[result["published_at"]]
    registration = registrations[result["registration"]]
    moment = parse_time(result["published_at"])
    with writable(url):
        key = create_key(m.Festival.get(m.Festival.slug == BIG), label="history")[1]
        api.keys = {BIG: key}
        before = api.ok("/toppers", topperPlaceholderId=CANDIDATES, asOf=iso(moment), limit=100)
        assert served_board(before["data"]) == expected_board(data, CANDIDATES, moment)
        update_fixture({"formatVersion": 1, "festival": {"slug": BIG},
                        "registrations": [{"id": registration["id"], "withdrawn": True}],
                        "results": [{"id": result["id"], "withdrawn": True}]}, allow_withdrawals=True)
    gone = without(data, result)
    for at in (moment, moment + datetime.timedelta(days=30)):
        after = api.ok("/toppers", topperPlaceholderId=CANDIDATES, asOf=iso(at), limit=100)
        assert served_board(after["data"]) == expected_board(gone, CANDIDATES, at)
    race = api.ok("/topper-race", topperPlaceholderId=CANDIDATES, top=50, limit=500)
    steps = [s["at"] for s in race["data"]]
    assert (iso(moment) in steps) == (len(chosen) > 1)


# --- an older database: `festival-api init` compiles the histories again -----------------------


def test_init_upgrades_the_compiled_histories_of_an_older_database(fresh_app, keys, monkeypatch):
    """The compiled history tables of an older release (a step's board as entity numbers,
    the entities apart) are made again by ``init``, every festival compiled again: the
    answers are those of a database made by this release."""
    from peewee import CompositeKey, DateTimeField, IntegerField, Model, TextField, UUIDField

    from db.compiled.tables import PublicTopperHistory, PublicTopperPastEntry, PublicTopperStep

    app, url = fresh_app
    api = ApiClient(app.test_client(), keys)
    asked = [("/topper-race", dict(topperPlaceholderId=TEAMS, top=5, limit=500)),
             ("/toppers", dict(topperPlaceholderId=CANDIDATES, asOf="2026-01-16", sortBy="name", limit=7)),
             ("/page-toppers", dict(pageSlug="results", asOf="2026-01-15"))]

    def answers():
        return [api.ok_but_revision(path, **params) for path, params in asked]

    before = answers()

    class Old(Model):
        festival = UUIDField(index=True)
        placeholder = UUIDField()

    class OldHistory(Old):
        placeholder = UUIDField(primary_key=True)
        digest, race, steps, final = TextField(), IntegerField(), IntegerField(), TextField()

        class Meta:
            table_name = "public_topper_history"

    class OldEntity(Old):
        number, body = IntegerField(), TextField()

        class Meta:
            table_name = "public_topper_entity"
            primary_key = CompositeKey("placeholder", "number")

    class OldStep(Old):
        step, at, board, race = IntegerField(), DateTimeField(), TextField(), TextField()

        class Meta:
            table_name = "public_topper_step"
            primary_key = CompositeKey("placeholder", "step")

    with writable(url) as db:
        db.drop_tables([PublicTopperHistory, PublicTopperStep, PublicTopperPastEntry])
        db.bind([OldHistory, OldEntity, OldStep])
        db.create_tables([OldHistory, OldEntity, OldStep])
    outputs = []
    for _ in range(2):
        result = run_init(url, monkeypatch)
        assert result.exit_code == 0, result.output
        outputs.append(result.stderr)
    assert "Upgraded public_topper_history, public_topper_step" in outputs[0]
    assert "Upgraded" not in outputs[1]  # once
    with writable(url) as db:
        assert "public_topper_entity" not in db.get_tables()
        assert "standing_ends" in {c.name for c in db.get_columns("public_topper_step")}
    assert answers() == before
