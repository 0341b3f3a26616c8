"""Faults of a SQLite database while the service runs: a quick JSON 503, ``/healthz`` says why
within a second, and the service recovers by itself when the fault goes.

Each test serves its own copy of the seeded database (a single file with a rollback
journal, as `festival-api backup` makes it, so another process can lock it whole).
"""
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import API, BIG, ON_POSTGRES
from custom_apps import app_with  # noqa: F401  (fixture)
from db.database import backup_sqlite, sqlite_path
from test_multiprocess import festival_api, fetch_url, free_port, wait_until_serving

pytestmark = pytest.mark.skipif(ON_POSTGRES, reason="faults of a SQLite file")


@pytest.fixture
def copy(seeded, tmp_path):
    """A copy of the seeded database: ``(its path, a copy of the copy to restore from)``."""
    path = tmp_path / "festival.db"
    backup_sqlite(sqlite_path(seeded[0]), str(path))
    spare = tmp_path / "spare.db"
    shutil.copyfile(path, spare)
    return path, spare


@pytest.fixture
def client(app_with, copy):
    return app_with(database_url=f"sqlite:///{copy[0]}").test_client()


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def assert_unavailable(response, reason=None):
    assert response.status_code == 503, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == 503 and body["status"] == "Service Unavailable"
    if reason:
        assert reason in body["message"]
    return body


def news(client, keys):
    return client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})


def test_a_file_overwritten_with_garbage_is_503_then_recovers(client, copy, keys):
    path, spare = copy
    assert news(client, keys).status_code == 200
    good = path.read_bytes()
    with open(path, "r+b") as fh:  # in place: the open connection sees the same file
        fh.write(os.urandom(len(good)))

    assert_unavailable(news(client, keys))
    body = assert_unavailable(client.get("/healthz"), "not a SQLite database")
    assert str(path) not in str(body)

    path.write_bytes(good)
    assert news(client, keys).status_code == 200
    assert client.get("/healthz").status_code == 200


def test_a_removed_file_is_503_then_recovers_when_it_is_back(client, copy, keys):
    path, spare = copy
    assert news(client, keys).status_code == 200
    path.unlink()

    response, seconds = timed(lambda: news(client, keys))
    assert_unavailable(response)
    assert seconds < 1
    assert_unavailable(client.get("/healthz"), "does not exist")
    assert client.get(f"{API}/openapi.json").status_code == 200  # the docs need no database

    shutil.copyfile(spare, path)  # a new file at the same path: the service opens it
    assert news(client, keys).status_code == 200
    assert client.get("/healthz").status_code == 200


def test_a_table_dropped_while_serving_is_503(client, copy, keys):
    path, _ = copy
    assert news(client, keys).status_code == 200
    with contextlib.closing(sqlite3.connect(path)) as other:
        other.execute("DROP TABLE public_news")  # the compiled table /news reads
        other.commit()
    assert_unavailable(news(client, keys))
    assert_unavailable(client.get("/healthz"), "lacks some of the service's tables")


@contextlib.contextmanager
def exclusive_lock(path):
    """Another connection holding SQLite's exclusive lock on ``path``."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def health_names_the_lock(get):
    """``/healthz`` (``get() -> (status, body)``) under a lock: each answer a 503 within a
    second, and soon one naming the lock. The check runs beside the answers, which wait for it
    ANSWER_SECONDS: on a loaded machine the first ones may say only that it did not answer."""
    deadline = time.monotonic() + 5
    while True:
        (status, body), seconds = timed(get)
        assert status == 503 and seconds < 1, (status, seconds)
        message = json.loads(body)["message"]
        if "locked by another process" in message:
            return
        assert message == "The database did not answer within a second." and time.monotonic() < deadline, message


def test_an_exclusive_lock_is_a_quick_503_and_health_answers_within_a_second(client, copy, keys):
    path, _ = copy
    assert news(client, keys).status_code == 200

    def health():
        response = client.get("/healthz")
        return response.status_code, response.get_data()

    with exclusive_lock(path):
        health_names_the_lock(health)
        response, seconds = timed(lambda: news(client, keys))
        assert_unavailable(response)
        assert seconds < 2.5
    assert news(client, keys).status_code == 200
    assert client.get("/healthz").status_code == 200


def test_a_running_server_answers_health_within_a_second_under_a_lock(copy, keys, tmp_path):
    path, _ = copy
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}", "LOG_LEVEL": "CRITICAL"}
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(festival_api() + ["serve", "--port", str(port), "--threads", "4"],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, port, keys[BIG], log)
        base = f"http://127.0.0.1:{port}"
        with exclusive_lock(path):
            health_names_the_lock(lambda: fetch_url(f"{base}/healthz")[::2])  # (status, body)
            (status, _, _), seconds = timed(lambda: fetch_url(f"{base}{API}/news", keys[BIG]))
            assert status == 503 and seconds < 2.5
        assert fetch_url(f"{base}/healthz")[0] == 200
        assert fetch_url(f"{base}{API}/news", keys[BIG])[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


# Lists that read every compiled table, whole (with the boards of the past: ``boards_of_the_past``):
# damage in the middle of the file meets one of them.
WHOLE_LISTS = ["/candidates", "/programme-results", "/programmes", "/teams", "/schedules", "/news",
               "/gallery", "/downloads", "/categories", "/topper-placeholders", "/changes"]


def boards_of_the_past(client, headers):
    """The statuses of each leaderboard's race and of its board after each step, up to the
    first 503: between them, every row of the compiled histories (a third of the file)."""
    statuses = []
    for sub_fest in ("general", "hss"):
        response = client.get(f"{API}/topper-placeholders", headers=headers,
                              query_string={"limit": 500, "subFestSlug": sub_fest})
        statuses.append(response.status_code)
        if response.status_code != 200:
            return statuses
        for placeholder in response.get_json()["data"]:
            race = client.get(f"{API}/topper-race", headers=headers,
                              query_string={"topperPlaceholderId": placeholder["id"], "top": 50, "limit": 500})
            statuses.append(race.status_code)
            if race.status_code != 200:
                return statuses
            for step in race.get_json()["data"]:
                statuses.append(client.get(f"{API}/toppers", headers=headers, query_string={
                    "topperPlaceholderId": placeholder["id"], "asOf": step["at"], "limit": 500}).status_code)
                if statuses[-1] != 200:
                    return statuses
    return statuses


def test_damage_inside_the_file_is_a_503_that_every_request_and_health_see_until_the_file_changes(
        app_with, copy, keys):
    path, _ = copy
    client = app_with(database_url=f"sqlite:///{path}", RESPONSE_CACHE_SECONDS=60).test_client()
    headers = {"X-API-Key": keys[BIG]}
    assert client.get(f"{API}/subfests", headers=headers).status_code == 200  # now in the response cache
    good = path.read_bytes()
    with open(path, "r+b") as fh:  # 512 KB of garbage in the middle, page 1 intact
        fh.seek(len(good) // 2)
        fh.write(os.urandom(512 * 1024))

    statuses = []
    for list_path in WHOLE_LISTS:
        for sub_fest in ("general", "hss"):
            query = {"limit": 500, "subFestSlug": sub_fest, "sinceRevision": 0}
            statuses.append(client.get(f"{API}{list_path}", headers=headers, query_string=query).status_code)
            if statuses[-1] == 503:
                break
        if statuses[-1] == 503:
            break
    if statuses[-1] != 503:  # the boards of the past: each board's race and its board after each step
        statuses += boards_of_the_past(client, headers)
    assert 500 not in statuses
    assert statuses[-1] == 503, statuses
    assert_unavailable(client.get("/healthz"), "damaged")
    assert_unavailable(client.get(f"{API}/subfests", headers=headers))  # a cache hit is refused too

    path.write_bytes(good)  # restored from a backup
    assert client.get("/healthz").status_code == 200
    assert client.get(f"{API}/subfests", headers=headers).status_code == 200
