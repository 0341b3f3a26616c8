"""Fixture import: validated completely first, applied in one transaction, ids kept."""
import copy
import json
import uuid

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import API, SMALL, writable
from db.source import models as m
from db.source.revisions import current_revision
from seed.pipeline.write.importer import FixtureError, import_fixture, validate


def row_counts():
    return {model.__name__: model.select().count() for model in m.ALL_MODELS}


@pytest.fixture
def small(fixture_data):
    return copy.deepcopy(fixture_data[SMALL])


def first_with(rows, field):
    return next(i for i, row in enumerate(rows) if field in row)


def problems_of(url, data):
    """The problems ``validate`` finds in ``data`` (``(path, message)``), against the database at ``url``."""
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    return caught.value.problems


@pytest.mark.parametrize("mutate, path", [
    (lambda d: d["news"][0].update(status="bogus"), "$.news[0].status"),
    (lambda d: d["news"][0].update(published_at="yesterday"), "$.news[0].published_at"),
    (lambda d: d["subFests"][0].update(id="not-a-uuid"), "$.subFests[0].id"),
    (lambda d: d["subFests"][0].update(unexpected=1), "$.subFests[0]"),
    (lambda d: d["subFests"][0].pop("name"), "$.subFests[0]"),
    (lambda d: d["categories"][0].update(sub_fest=str(uuid.uuid4())), "$.categories[0].sub_fest"),
    (lambda d: d["downloads"][0].update(is_public="yes"), "$.downloads[0].is_public"),
    (lambda d: d.update(formatVersion=99), "$.formatVersion"),
])
def test_invalid_value_is_named_by_its_json_path(fresh_app, small, mutate, path):
    _, url = fresh_app
    mutate(small)
    problems = problems_of(url, small)
    assert path in [p for p, _ in problems], problems


def test_every_bad_value_is_reported_at_once(fresh_app, small):
    _, url = fresh_app
    small["news"][0]["status"] = "bogus"
    small["downloads"][0]["is_public"] = "yes"
    paths = {p for p, _ in problems_of(url, small)}
    assert {"$.news[0].status", "$.downloads[0].is_public"} <= paths


def test_duplicate_ids_are_rejected(fresh_app, small):
    _, url = fresh_app
    small["news"][1]["id"] = small["news"][0]["id"]
    assert "$.news[1].id" in {p for p, _ in problems_of(url, small)}


def test_failed_import_leaves_the_database_unchanged(fresh_app, small):
    app, url = fresh_app
    client = app.test_client()
    with writable(url):
        before = row_counts()
        festival = m.Festival.get(m.Festival.slug == SMALL)
        revision_before = current_revision(festival.id)
        small["news"][-1]["status"] = "bogus"
        small["news"][0]["title"] = "Changed title that must not land"
        with pytest.raises(FixtureError):
            import_fixture(small)
        assert row_counts() == before
        assert current_revision(festival.id) == revision_before
        assert not m.News.select().where(m.News.title == "Changed title that must not land").exists()
    del client


def test_failure_inside_the_transaction_rolls_everything_back(fresh_app, small, monkeypatch):
    _, url = fresh_app
    import seed.pipeline.write.importer as importer

    calls = {"n": 0}
    real_insert = importer.insert_rows

    def failing_insert(model, rows, chunk=200):
        calls["n"] += 1
        if model is m.News:
            raise RuntimeError("disk full")
        return real_insert(model, rows, chunk)

    monkeypatch.setattr(importer, "insert_rows", failing_insert)
    with writable(url):
        before = row_counts()
        with pytest.raises(RuntimeError):
            import_fixture(small)
        assert row_counts() == before
    assert calls["n"] > 1


def test_reimport_keeps_ids_and_keys_and_bumps_revision(fresh_app, small, keys):
    app, url = fresh_app
    client = app.test_client()
    headers = {"X-API-Key": keys[SMALL]}
    before = client.get(f"{API}/news?limit=500", headers=headers).get_json()
    visible = before["data"][0]
    target = next(n for n in small["news"] if n["id"] == visible["id"])
    target["title"] = "Re-imported title"
    with writable(url):
        ids_before = {n.id for n in m.News.select()}
        summary = import_fixture(small)
        assert {n.id for n in m.News.select()} == ids_before
    after = client.get(f"{API}/news?limit=500", headers=headers).get_json()
    assert after["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1
    assert summary.revision == after["context"]["data"]["revision"]
    titles = {n["id"]: n["title"] for n in after["data"]}
    assert titles[visible["id"]] == "Re-imported title"


def test_cli_import_of_invalid_file_fails_and_writes_nothing(fresh_app, small, tmp_path, monkeypatch):
    _, url = fresh_app
    small["news"][0]["status"] = "bogus"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(small), encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    with writable(url):
        before = row_counts()
    result = CliRunner().invoke(cli, ["import", str(path)])
    assert result.exit_code != 0
    assert "$.news[0].status" in result.output
    assert "nothing was written" in result.output
    with writable(url):
        assert row_counts() == before


def test_cli_import_of_broken_json_fails_cleanly(fresh_app, tmp_path, monkeypatch):
    _, url = fresh_app
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["import", str(path)])
    assert result.exit_code != 0
    assert "not valid JSON" in result.output


def test_slug_of_another_festival_is_rejected(fresh_app, small, fixture_data):
    _, url = fresh_app
    small["festival"]["id"] = str(uuid.uuid4())
    assert "$.festival.slug" in {p for p, _ in problems_of(url, small)}


def test_a_read_snapshot_sees_an_import_whole_or_not_at_all(fresh_app, small):
    """What each request runs in: an import landing mid-request is not seen half-done."""
    from db.database import make_database
    from db.serving.snapshot import begin_read_snapshot, end_read_snapshot

    _, url = fresh_app
    reader = make_database(url, readonly=True)
    reader.connect()
    read = "SELECT COUNT(*) FROM news WHERE title = 'Imported meanwhile'"
    try:
        begin_read_snapshot(reader)
        assert reader.execute_sql(read).fetchone()[0] == 0
        small["news"][0]["title"] = "Imported meanwhile"
        with writable(url):
            import_fixture(small)
        assert reader.execute_sql(read).fetchone()[0] == 0, "the open snapshot keeps the old data"
        end_read_snapshot(reader)
        begin_read_snapshot(reader)
        assert reader.execute_sql(read).fetchone()[0] == 1, "the next request sees the import"
        end_read_snapshot(reader)
    finally:
        reader.close()
