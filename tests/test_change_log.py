"""The change log says exactly what moved: leaderboards whose entries moved, results that went
with their entries, news that was deleted; and it keeps the last 1,000 revisions."""
import datetime

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import API, writable
from db.compiled.tables import HISTORY_MODELS, KEPT_REVISIONS, PublicChange, PublicRecompile
from db.compiler.changes import record
from db.source import models as m
from db.source.keys import create_key
from db.source.revisions import current_revision
from natural_festival import SLUG, junior_results, natural_festival, update
from seed.pipeline.write.importer import import_fixture
from seed.pipeline.write.update import update_fixture

@pytest.fixture
def festival(fresh_app):
    """``(client, url, ids, revision)``: the natural festival, with a leaderboard per sub-fest."""
    app, url = fresh_app
    data = natural_festival()
    data["topperPlaceholders"].append({"sub_fest_slug": "junior", "label": "Junior toppers",
                                       "entity_type": "candidate", "is_published": True})
    with writable(url):
        import_fixture(data)
        stored = m.Festival.get(m.Festival.slug == SLUG)
        key = create_key(stored, label="t")[1]
        boards = {p.label: str(p.id) for p in m.TopperPlaceholder.select().join(m.SubFest)
                  .where(m.SubFest.festival == stored.id)}
        revision = current_revision(stored.id)[0]
    client = app.test_client()

    def changes(since):
        response = client.get(f"{API}/changes", headers={"X-API-Key": key},
                              query_string={"sinceRevision": since, "limit": 100})
        assert response.status_code == 200
        return {(c["kind"], c["id"]): c["action"] for c in response.get_json()["data"]}

    return changes, url, boards, revision, (client, key)


def test_only_the_leaderboards_whose_entries_moved_are_listed(festival):
    changes, url, boards, revision, _ = festival
    with writable(url):
        update_fixture(junior_results())
    listed = {item for kind, item in changes(revision) if kind == "leaderboard"}
    assert listed == {boards["Junior toppers"]}, "a new computation time alone is no change"


def test_a_dry_run_lists_the_leaderboards_that_would_move_with_points_before_and_after(festival, monkeypatch,
                                                                                        tmp_path):
    _, url, _, _, _ = festival
    with writable(url):
        # the two scores were entered against each other's chest numbers: 91 (A) and 70 (B)
        summary = update_fixture(update(results=[
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 91, "position": 1},
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "score": 70, "position": 2}]),
            dry_run=True)
    assert [move.line() for move in summary.leaderboards] == ["leaderboard main 'Toppers': Bala 6 -> 10, Anu 10 -> 6"]
    monkeypatch.setenv("DATABASE_URL", url)
    folder = tmp_path / "junior"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"slug\n{SLUG}\n", encoding="utf-8")
    (folder / "results.csv").write_text("sub_fest_slug,sub_fest_programme_code,chest_no,position,points,is_published,"
                                        "published_at\njunior,P1,101,1,7,yes,2026-01-11T10:00:00Z\n", encoding="utf-8")
    output = CliRunner().invoke(cli, ["import", "--update", "--dry-run", str(folder)]).output
    assert "leaderboard junior 'Junior toppers': Farah - -> 7" in output


def test_when_an_entry_and_its_result_are_withdrawn_the_programme_and_leaderboard_are_listed(festival):
    changes, url, boards, revision, _ = festival
    with writable(url):
        programme = (m.SubFestProgramme.select().join(m.SubFest)
                     .where(m.SubFest.slug == "main", m.SubFestProgramme.code == "P1").get())
        update_fixture(update(
            registrations=[{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101",
                            "withdrawn": True}],
            results=[{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101",
                      "withdrawn": True}]))
    listed = changes(revision)
    assert listed[("programme", str(programme.id))] == "results"
    assert listed[("leaderboard", boards["Toppers"])] == "changed"


def test_a_published_result_marked_absent_changes_its_programme_and_leaderboard_as_an_unpublished_one(festival):
    changes, url, boards, revision, _ = festival
    with writable(url):
        programme = (m.SubFestProgramme.select().join(m.SubFest)
                     .where(m.SubFest.slug == "main", m.SubFestProgramme.code == "P1").get())
        # the winner did not take part after all: the line says so (not refused as a withdrawal)
        update_fixture(update(results=[{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101",
                                        "status": "absent"}]))
    listed = changes(revision)
    assert listed[("programme", str(programme.id))] == "results"
    assert listed[("leaderboard", boards["Toppers"])] == "changed"


def test_a_deleted_news_item_is_a_removal(festival):
    changes, url, _, revision, (client, key) = festival
    with writable(url):
        news_id = str(m.News.get(m.News.title == "Welcome").id)
        update_fixture(update(news=[{"title": "Welcome", "deleted": True}]))
    assert changes(revision) == {("news", news_id): "removed"}
    assert client.get(f"{API}/news/{news_id}", headers={"X-API-Key": key}).status_code == 404


def test_the_changes_of_the_last_thousand_revisions_are_kept(festival):
    _, url, _, _, _ = festival
    now = datetime.datetime(2026, 1, 11)
    festival_id = "00000000-0000-0000-0000-000000000001"
    last = KEPT_REVISIONS + 5
    with writable(url) as db:
        with db.atomic():
            for revision in range(1, last + 1):
                record(festival_id, (revision, now), [("news", f"00000000-0000-0000-0000-{revision:012d}", "changed",
                                                       None, now, '{"title":"News"}')], now)
        kept = {model: sorted(r for (r,) in model.select(model.revision).where(model.festival == festival_id).tuples())
                for model in (PublicChange, PublicRecompile)}
    assert KEPT_REVISIONS >= 1000
    assert kept == {model: list(range(last - KEPT_REVISIONS + 1, last + 1)) for model in (PublicChange, PublicRecompile)}



def test_the_kept_tables_keep_the_names_they_were_created_with():
    """Their rows are history a database keeps across upgrades: a class renamed in the code
    (``PublicRecompile``, once ``PublicScope``) names the same table."""
    assert [model._meta.table_name for model in HISTORY_MODELS] == ["public_change", "public_revision", "public_scope"]

def test_a_programme_an_update_hides_is_a_removal_and_no_other_programme_is_listed(festival):
    changes, url, _, revision, _ = festival
    with writable(url):
        programme = (m.SubFestProgramme.select().join(m.SubFest)
                     .where(m.SubFest.slug == "main", m.SubFestProgramme.code == "G1").get())
        update_fixture(update(subFestProgrammes=[{"sub_fest_slug": "main", "code": "G1", "is_public": False}]),
                       allow_withdrawals=True)
    listed = changes(revision)
    assert {(kind, item): action for (kind, item), action in listed.items() if kind == "programme"} == {
        ("programme", str(programme.id)): "removed"}


def test_a_since_revision_whose_changes_were_pruned_is_a_409_and_zero_lists_what_is_kept(festival, monkeypatch):
    import db.read.changes

    changes, url, _, revision, (client, key) = festival
    with writable(url):
        update_fixture(junior_results())  # revision + 1
    monkeypatch.setattr(db.read.changes, "KEPT_REVISIONS", 1)  # only the newest revision's changes are kept

    def get(since):
        return client.get(f"{API}/changes", headers={"X-API-Key": key}, query_string={"sinceRevision": since})

    behind = get(revision)
    assert behind.status_code == 409
    assert behind.headers["Cache-Control"] == "no-store"
    message = behind.get_json()["message"]
    assert f"too far behind the festival's data revision {revision + 1}" in message
    assert f"sinceRevision={revision + 1}" in message
    assert get(revision + 1).status_code == 200
    assert get(0).status_code == 200  # everything kept: a client starting over
