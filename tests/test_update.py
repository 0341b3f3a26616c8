"""``import --update``: only the file's rows change, checked against the stored festival."""
import json

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import API, writable
from db.source import models as m
from db.source.keys import create_key
from db.source.revisions import current_revision
from natural_festival import PUBLISHED, SLUG, junior_results, natural_festival, update
from seed.pipeline.write.importer import FixtureError, import_fixture
from seed.pipeline.write.update import update_fixture

def row_counts():
    return {model.__name__: model.select().count() for model in m.ALL_MODELS}


def find(model, **where):
    return model.get(*[getattr(model, k) == v for k, v in where.items()])


def sub_fest(slug):
    return m.SubFest.select().join(m.Festival).where(m.Festival.slug == SLUG, m.SubFest.slug == slug).get()


def entry(chest, slug="main"):
    return find(m.SubFestCandidate, sub_fest=sub_fest(slug), chest_no=chest)


def programme(code, slug="main"):
    return find(m.SubFestProgramme, sub_fest=sub_fest(slug), code=code)


def result_of(chest, code="P1", slug="main"):
    registration = find(m.Registration, sub_fest_programme=programme(code, slug), sub_fest_candidate=entry(chest, slug))
    return find(m.Result, registration=registration)


def test_an_update_applies_its_rows_and_is_served_on_the_next_request(natural):
    app, url = natural
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        key = create_key(festival, label="t")[1]
        before = row_counts()
        revision = current_revision(festival.id)[0]
        summary = update_fixture(junior_results())
        after = row_counts()
        assert programme("P1", "junior").status == "result_published"
        assert result_of("101", slug="junior").points == 7
        touched = summary.row_diff.touched
        assert touched["subFestProgrammes"] == {programme("P1", "junior").id}
        assert touched["subFestCandidates"] == {entry("101", "junior").id}
        assert touched["teams"] == {entry("101", "junior").team_id}
        assert touched["subFests"] == {sub_fest("junior").id}
        assert touched["news"] == set()
    assert summary.revision == revision + 1 == current_revision(festival.id)[0]
    assert (summary.row_diff.added["results"], summary.row_diff.changed["subFestProgrammes"]) == (1, 1)
    assert {k: after[k] - before[k] for k in before if after[k] != before[k]} == {"Result": 1}
    body = app.test_client().get(f"{API}/candidate-result", headers={"X-API-Key": key},
                                 query_string={"chestNo": "101", "subFestSlug": "junior"}).get_json()
    assert [r["points"] for r in body["results"]] == [7]


def test_a_corrected_score_changes_only_that_result_and_its_points_follow(natural):
    _, url = natural
    with writable(url):
        untouched = result_of("101").points
        summary = update_fixture(update(results=[
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 85}]))
        corrected = result_of("102")
        assert (corrected.score, corrected.grade, corrected.points) == (85, "A", 8)
        assert corrected.is_published, "fields the row leaves out keep their stored values"
        assert result_of("101").points == untouched
    assert summary.row_diff.changed == {"results": 1}


def test_withdrawing_and_deleting_are_explicit(natural):
    _, url = natural
    with writable(url):
        before = row_counts()
        summary = update_fixture(update(
            registrations=[{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "103",
                            "withdrawn": True}],
            results=[{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "withdrawn": True}],
            news=[{"title": "Welcome", "deleted": True}]))
        assert not find(m.Registration, sub_fest_programme=programme("P1"), sub_fest_candidate=entry("103")).is_active
        assert not result_of("102").is_published
        news_id = summary.row_diff.touched["news"].pop()
        assert not m.News.select().where(m.News.id == news_id).exists()
        after = row_counts()
    assert summary.row_diff.withdrawn == {"registrations": 1, "results": 1, "news": 1}
    # nothing else is removed (leaderboards are recomputed from the remaining results)
    assert {k: after[k] - before[k] for k in before
            if after[k] != before[k] and k != "TopperEntry"} == {"News": -1, "NewsTag": -1}


def test_deleting_a_row_another_row_needs_is_refused(natural):
    _, url = natural
    with writable(url):
        before = row_counts()
        with pytest.raises(FixtureError) as caught:
            update_fixture(update(galleryAlbums=[{"title": "Day 1", "deleted": True}]))
        assert row_counts() == before
    [(path, message)] = caught.value.problems
    assert path == "$.galleryAlbums[0].deleted"
    assert "still used by" in message and "album" in message


@pytest.mark.parametrize("sections, path, words", [
    # a candidate twice in one result: 102 already sings in the winning G1 group
    ({"registrations": [{"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "102"}],
      "results": [{"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "102", "points": 1}]},
     "$.results[0].registration", ["already has a result"]),
    ({"results": [{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "999", "score": 50}]},
     "$.results[0].chest_no", ["'999'"]),
    ({"results": [{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "points": 99}]},
     "$.results[0].points", ["expected 10"]),
    ({"subFestCandidates": [{"sub_fest_slug": "main", "chest_no": "101", "team": "00000000-0000-4000-8000-000000000001"}]},
     "$.subFestCandidates[0].team", ["no team"]),
    ({"downloads": [{"title": "New circular"}]}, "$.downloads[0]", ["'file_url'", "required"]),
    ({"downloads": [{"title": "Not there", "deleted": True}]}, "$.downloads[0].deleted", ["no such row"]),
])
def test_a_bad_update_is_refused_whole(natural, sections, path, words):
    _, url = natural
    data = update(**sections)
    data.setdefault("news", []).append({"title": "Must not land", "status": "published"})
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        before, revision = row_counts(), current_revision(festival.id)
        with pytest.raises(FixtureError) as caught:
            update_fixture(data)
        assert row_counts() == before and current_revision(festival.id) == revision
    messages = [message for where, message in caught.value.problems if where == path]
    assert messages and all(word in messages[0] for word in words), caught.value.problems


def test_an_update_of_a_festival_not_in_the_database_is_refused(natural):
    _, url = natural
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            update_fixture({"formatVersion": 1, "festival": {"slug": "nowhere"}})
    assert caught.value.problems[0][0] == "$.festival"


def test_a_dry_run_reports_and_writes_nothing(natural):
    _, url = natural
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        before, revision = row_counts(), current_revision(festival.id)
        summary = update_fixture(junior_results(), dry_run=True)
        assert row_counts() == before and current_revision(festival.id) == revision
        assert programme("P1", "junior").status != "result_published"
    assert summary.dry_run
    assert summary.row_diff.lines() == ["subFestProgrammes: 0 added, 1 changed, 0 withdrawn",
                                       "results: 1 added, 0 changed, 0 withdrawn"]


def test_an_unchanged_row_changes_nothing(natural):
    _, url = natural
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        revision = current_revision(festival.id)[0]
        summary = update_fixture(update(venues=[{"name": "Hall"}]))
    assert summary.row_diff.empty and summary.revision == revision


def csv_update(tmp_path, monkeypatch, url, **files):
    """A folder holding festival.csv (with a byte order mark) and ``files`` (name without .csv)."""
    folder = tmp_path / "update"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"\ufeffslug\n{SLUG}\n", encoding="utf-8")
    for name, text in files.items():
        (folder / f"{name}.csv").write_text(text, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    return folder


def test_the_cli_updates_from_a_csv_folder(natural, tmp_path, monkeypatch):
    _, url = natural
    folder = csv_update(
        tmp_path, monkeypatch, url,
        subFestProgrammes=f"sub_fest_slug,code,status,published_at\njunior,P1,result_published,{PUBLISHED}\n",
        results="sub_fest_slug,sub_fest_programme_code,chest_no,position,points,is_published\n"
                "junior,P1,101,1,7,yes\n")
    dry = CliRunner().invoke(cli, ["import", "--update", "--dry-run", str(folder)])
    assert dry.exit_code == 0, dry.output
    assert "results: 1 added, 0 changed, 0 withdrawn" in dry.output and "nothing was written" in dry.output
    done = CliRunner().invoke(cli, ["import", "--update", str(folder)])
    assert done.exit_code == 0, done.output
    assert f"Updated {SLUG}: revision" in done.output
    with writable(url):
        assert result_of("101", slug="junior").points == 7


def test_the_cli_names_the_csv_line_of_a_bad_update(natural, tmp_path, monkeypatch):
    _, url = natural
    folder = csv_update(tmp_path, monkeypatch, url,
                        results="sub_fest_slug,sub_fest_programme_code,chest_no,score,grade\nmain,P1,102,70,A\n")
    result = CliRunner().invoke(cli, ["import", "--update", str(folder)])
    assert result.exit_code == 1
    assert "results.csv line 2, column grade: grade 'A' needs a score of at least 80" in result.output


def test_a_full_dry_run_writes_nothing(natural, tmp_path, monkeypatch):
    _, url = natural
    data = natural_festival()
    data["venues"].append({"name": "Annexe"})
    path = tmp_path / "fest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    with writable(url):
        before = row_counts()
    result = CliRunner().invoke(cli, ["import", "--dry-run", str(path)])
    assert result.exit_code == 0, result.output
    assert "venues: 1 added, 0 changed, 0 withdrawn" in result.output
    with writable(url):
        assert row_counts() == before


def test_touched_records_follow_a_change_to_the_rows_they_depend_on(natural):
    _, url = natural
    with writable(url):
        summary = update_fixture(update(
            programmes=[{"code": "LM", "name": "Light Music (solo)"}],
            candidates=[{"admission_number": "ADM-2", "name": "Bala K."}],
            downloads=[{"title": "Rules", "file_url": "https://example.org/rules-2.pdf"}]))
        touched = summary.row_diff.touched
        assert touched["subFestProgrammes"] == {programme("P1").id, programme("P1", "junior").id}
        assert touched["subFestCandidates"] == {entry("102").id}
        # Bala's school and the team above it
        assert touched["teams"] == {entry("102").team_id, entry("102").team.parent_id}
        assert touched["subFests"] == {sub_fest("main").id, sub_fest("junior").id}
        assert len(touched["downloads"]) == 1 and touched["news"] == set()
    assert summary.row_diff.rows.keys() == {"programmes", "candidates", "downloads"}


def test_a_row_changed_by_id_looks_its_keys_up_in_its_own_sub_fest(natural):
    _, url = natural
    with writable(url):
        farah = entry("101", "junior")
        # "Senior" is a category of both sub-fests: Farah's row is in "junior"
        update_fixture(update(subFestCandidates=[{"id": str(farah.id), "category_name": "Senior"}]))
        assert entry("101", "junior").category.sub_fest == sub_fest("junior")


def test_an_update_that_waited_for_another_writer_is_planned_again_and_keeps_both_changes(natural, monkeypatch):
    import seed.pipeline.write.update as update_module

    _, url = natural
    real_plan, plans = update_module.plan_update, []

    def plan_then_another_writer(data, problems=()):
        plan = real_plan(data, problems)
        plans.append(plan.revision)
        if len(plans) == 1:  # another update commits after this plan was made, before its lock
            update_module.apply_update(real_plan(junior_results()))
        return plan

    monkeypatch.setattr(update_module, "plan_update", plan_then_another_writer)
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        before = current_revision(festival.id)[0]
        update_fixture(update(festival={"slug": SLUG, "name": "A festival renamed while another update ran"}))
        assert plans == [before, before + 1]  # the second plan saw the other writer's revision
        assert current_revision(festival.id)[0] == before + 2
        assert m.Festival.get_by_id(festival.id).name == "A festival renamed while another update ran"
        assert programme("P1", "junior").status == "result_published"  # the other writer's change stays


def test_a_stale_plan_is_refused_and_writes_nothing(natural):
    from seed.pipeline.write.update import StalePlan, apply_update, plan_update

    _, url = natural
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        stale = plan_update(update(festival={"slug": SLUG, "name": "Never written"}))
        update_fixture(junior_results())  # another writer, after the plan was made
        revision, counts = current_revision(festival.id)[0], row_counts()
        with pytest.raises(StalePlan):
            apply_update(stale)
        assert current_revision(festival.id)[0] == revision and row_counts() == counts
        assert m.Festival.get_by_id(festival.id).name != "Never written"


def test_an_update_of_an_unknown_festival_names_the_festivals_it_is_near(fresh_app):
    from seed.pipeline.write.importer import FixtureError
    from seed.pipeline.write.update import update_fixture

    _, url = fresh_app
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            update_fixture({"formatVersion": 1, "festival": {"slug": "kalolsavam-2062"}})
    assert caught.value.problems == [("$.festival", "no festival 'kalolsavam-2062' in the database (did you mean "
                                                    "'kalolsavam-2026'?): import the whole festival first")]


def test_a_festival_row_with_its_own_updated_at_is_stamped_with_the_write(natural):
    _, url = natural
    with writable(url):
        summary = update_fixture({"formatVersion": 1, "festival": {
            "slug": SLUG, "location": "Town Hall", "updated_at": "2020-01-01T00:00:00Z"}})
        festival = m.Festival.get(m.Festival.slug == SLUG)
    assert festival.location == "Town Hall"
    assert festival.updated_at.year >= 2026 and summary.revision > 1


PRIVATE_ONLY = {"email": "anu@example.org", "phone": "+91 98470 00001", "date_of_birth": "2013-11-14",
                "admission_details": "hostel B"}


def served_revision(app, key):
    return app.test_client().get(f"{API}/news", headers={"X-API-Key": key}).headers["X-Data-Revision"]


def test_a_private_only_edit_is_written_without_a_new_revision_and_the_public_view_stays_whole(natural):
    """The columns no answer shows (email, phone, date of birth, admission details) are written,
    by an update and by a full import, and move no X-Data-Revision; the compiled rows left are
    exactly a whole compile's."""
    from db.compiler import compile_festival
    from test_export import public_rows

    app, url = natural
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SLUG)
        key = create_key(festival, label="t")[1]
        revision = current_revision(festival.id)[0]
        served = served_revision(app, key)
        rows = public_rows(festival.id)
        summary = update_fixture(update(candidates=[{"admission_number": "ADM-1", **PRIVATE_ONLY}]))
        assert summary.row_diff.lines() == ["candidates: 0 added, 1 changed, 0 withdrawn"]
        assert summary.revision == revision == current_revision(festival.id)[0]
        assert find(m.Candidate, admission_number="ADM-1").email == PRIVATE_ONLY["email"]
        data = natural_festival()
        data["candidates"][0].update(PRIVATE_ONLY)
        data["candidates"][1].update(phone="+91 98470 00002", admission_details="day scholar")
        full = import_fixture(data)
        assert full.row_diff.lines() == ["candidates: 0 added, 1 changed, 0 withdrawn"]
        assert full.revision == revision == current_revision(festival.id)[0]
        assert find(m.Candidate, admission_number="ADM-2").phone == "+91 98470 00002"
        compile_festival(festival.id)
        assert public_rows(festival.id) == rows, "a whole compile gives the very rows kept"
        assert served_revision(app, key) == served
        # A name is public, and the admission number is compiled (the keyed hash admNoPattern
        # matches): each moves the revision.
        assert update_fixture(update(candidates=[{"admission_number": "ADM-1", "name": "Anu K"}])).revision \
            == revision + 1
        person = find(m.Candidate, admission_number="ADM-3")
        assert update_fixture(update(candidates=[{"id": str(person.id), "admission_number": "ADM-33"}])).revision \
            == revision + 2
