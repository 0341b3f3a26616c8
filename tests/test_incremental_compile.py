"""An update compiles again only what it touched, and that gives the very rows a full
compile gives: the compiled view never depends on how it was reached."""
import uuid

import pytest

from conftest import writable
from db.compiled.tables import READ_MODELS
from db.compiler import Recompile, compile_festival
from db import clock
from db.source import models as m
from db.compiler.leaderboards import recompute_toppers
from natural_festival import SLUG, natural_festival
from seed.pipeline.write.importer import import_fixture
from seed.pipeline.write.update import update_fixture
from test_update import junior_results, update


def comparable(value):
    return bytes(value) if isinstance(value, memoryview) else value  # PostgreSQL's bytea


def compiled_rows(festival_id):
    """Every compiled row of the festival, as comparable tuples, per table."""
    return {model.__name__: sorted(repr(tuple(map(comparable, row)))
                                   for row in model.select().where(model.festival == festival_id).tuples())
            for model in READ_MODELS}


def topper_rows(festival_id):
    """The stored leaderboard entries and counts of the festival (not when they were computed)."""
    placeholders = (m.TopperPlaceholder.select(m.TopperPlaceholder.id, m.TopperPlaceholder.programmes_counted,
                                               m.TopperPlaceholder.programmes_in_scope)
                    .join(m.SubFest).where(m.SubFest.festival == festival_id).tuples())
    entries = (m.TopperEntry.select().join(m.TopperPlaceholder).join(m.SubFest)
               .where(m.SubFest.festival == festival_id).dicts())
    return sorted(map(repr, placeholders)), sorted(repr(sorted((k, v) for k, v in e.items() if k != "id"))
                                                   for e in entries)


@pytest.fixture
def natural_id(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        yield m.Festival.get(m.Festival.slug == SLUG).id


UPDATES = {
    "a programme's results published": junior_results,
    "a withdrawn entry": lambda: update(registrations=[
        {"sub_fest_slug": "junior", "sub_fest_programme_code": "P1", "chest_no": "101", "withdrawn": True}]),
    "a renamed candidate": lambda: update(candidates=[{"admission_number": "ADM-1", "name": "Renamed Person"}]),
    "a corrected score of a candidate who has other entries": lambda: update(results=[
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 85}]),
    "a candidate moved to another team": lambda: update(subFestCandidates=[
        {"sub_fest_slug": "main", "chest_no": "102", "team_name": "Red"}]),
    "a schedule's duration": lambda: update(schedules=[
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "scheduled_at": "2026-01-10T09:00:00+05:30",
         "duration_minutes": 45}]),
    "a renamed programme": lambda: update(programmes=[{"code": "LM", "name": "Light Music (solo)"}]),
}


@pytest.mark.parametrize("name", UPDATES)
def test_an_update_compiles_the_same_rows_as_a_full_compile(natural_id, name):
    festival_id = natural_id
    summary = update_fixture(UPDATES[name]())
    assert summary.row_diff.touched["subFestProgrammes"] or summary.row_diff.touched["subFestCandidates"]
    after_update = compiled_rows(festival_id)
    compile_festival(festival_id)
    assert compiled_rows(festival_id) == after_update


def test_a_recompile_compiles_only_its_records(natural_id):
    festival_id = natural_id
    from db.compiled.tables import PublicCandidate, PublicProgramme

    programmes = PublicProgramme.select().where(PublicProgramme.festival == festival_id).count()
    candidates = PublicCandidate.select().where(PublicCandidate.festival == festival_id).count()
    one = PublicProgramme.select(PublicProgramme.id).where(PublicProgramme.festival == festival_id).first().id
    compile_festival(festival_id, Recompile(programme_ids={one}))
    assert PublicProgramme.select().where(PublicProgramme.festival == festival_id).count() == programmes
    assert PublicCandidate.select().where(PublicCandidate.festival == festival_id).count() == candidates


def test_publishing_a_programme_of_the_bundled_festival_compiles_the_same_rows_as_a_full_compile(fresh_app,
                                                                                                  monkeypatch):
    """On a festival whose candidates have many entries: only the programme and its own
    entrants are compiled again, and the leaderboards of its sub-fest recomputed; that is
    all that changes."""
    import datetime
    import json

    # The update and the full recomputation compute at the same moment (lastComputedAt).
    monkeypatch.setattr(clock, "utcnow", lambda: datetime.datetime(2026, 1, 18, 12, 0))

    from seed import bundled_fixtures

    _, url = fresh_app
    path = next(p for p in bundled_fixtures() if p.name == "kalolsavam-2026.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    with_results = {r["sub_fest_programme"] for r in data["results"]}
    chests = {c["id"]: c["chest_no"] for c in data["subFestCandidates"]}
    sub_fests = {s["id"]: s["slug"] for s in data["subFests"]}
    entries = {}
    for r in data["registrations"]:
        if r["sub_fest_programme"] not in with_results and r["is_active"] and r["type"] == "individual":
            entries.setdefault(r["sub_fest_programme"], []).append(chests[r["sub_fest_candidate"]])
    programme = max((p for p in data["subFestProgrammes"] if p["id"] in entries and p["is_public"]
                     and sub_fests[p["sub_fest"]] == "general"), key=lambda p: (len(entries[p["id"]]), p["code"]))
    slug = sub_fests[programme["sub_fest"]]
    with writable(url):
        festival_id = m.Festival.get(m.Festival.slug == data["festival"]["slug"]).id
        recompute_toppers(m.Festival.get_by_id(festival_id))  # every leaderboard at the frozen time
        compile_festival(festival_id)
        summary = update_fixture({"formatVersion": 1, "festival": {"slug": data["festival"]["slug"]},
                                  "subFestProgrammes": [{"sub_fest_slug": slug, "code": programme["code"],
                                                         "status": "result_published"}],
                                  "results": [{"sub_fest_slug": slug, "sub_fest_programme_code": programme["code"],
                                               "chest_no": chest, "position": n + 1, "is_published": True,
                                               "published_at": "2026-01-18T12:00:00Z"}
                                              for n, chest in enumerate(entries[programme["id"]][:3])]})
        recompile = Recompile.of(summary.row_diff)
        assert recompile.programme_ids == {uuid.UUID(programme["id"])}
        after_update = compiled_rows(festival_id), topper_rows(festival_id)
        recompute_toppers(m.Festival.get_by_id(festival_id))
        compile_festival(festival_id)
        assert (compiled_rows(festival_id), topper_rows(festival_id)) == after_update
