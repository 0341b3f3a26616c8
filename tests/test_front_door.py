"""The front door: one WSGI layer in front of Flask that every request passes.

A GET of a data endpoint is answered by the door calling the endpoint's view, never by
Flask, whose routes describe the API. A repeated GET is answered from the response cache,
with the same status, body and headers as the first answer (but ``Date`` and the rate-limit counts, which are per
request), counted against the same rate limits, and never stale after an import or after
the database file is replaced. The key is hashed once, the revision read once and the cache
key built once per request; keys, preflights and errors never reach Flask's views.
"""
import copy
import os
import shutil

import pytest
from flask import request_started

from app import create_app
from conftest import API, BIG, ON_POSTGRES, TEST_SETTINGS, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from seed.pipeline.write.importer import import_fixture

PER_REQUEST = {"date", "x-ratelimit-remaining", "x-ratelimit-reset"}


@pytest.fixture
def flask_requests():
    """Counts the requests Flask itself handles (the front door's own answers send no
    ``request_started``)."""
    seen = []

    def started(sender, **extra):
        seen.append(sender)

    request_started.connect(started)
    yield seen
    request_started.disconnect(started)


@pytest.fixture
def cached(app_with):
    return app_with(RESPONSE_CACHE_SECONDS=60, RATELIMIT_DEFAULT="100 per minute",
                    API_KEY_CACHE_SECONDS=60).test_client()


def headers_of(response):
    return sorted((name.lower(), value) for name, value in response.headers if name.lower() not in PER_REQUEST)


REQUESTS = [
    ("/news", {}),
    ("/news", {"Accept-Encoding": "gzip"}),
    ("/news", {"Accept-Encoding": "br", "Origin": "https://school.example"}),
    ("/subfests?limit=2", {"Origin": "https://school.example"}),
]


@pytest.mark.parametrize("path, extra", REQUESTS)
def test_a_repeated_request_is_answered_outside_flask_exactly_as_flask_answers(cached, keys, flask_requests,
                                                                              path, extra):
    headers = {"X-API-Key": keys[BIG], **extra}
    first = cached.get(f"{API}{path}", headers=headers)  # made by the view, cached
    handled = len(flask_requests)
    second = cached.get(f"{API}{path}", headers=headers)  # from the cache
    third = cached.get(f"{API}{path}", headers=headers)
    assert len(flask_requests) == handled, "a repeated request reached Flask"
    assert first.status_code == second.status_code == third.status_code == 200
    assert third.data == second.data == first.data
    assert headers_of(third) == headers_of(second) == headers_of(first)
    assert int(third.headers["X-RateLimit-Remaining"]) == int(second.headers["X-RateLimit-Remaining"]) - 1


def test_a_304_is_answered_outside_flask_exactly_as_flask_answers(cached, keys, flask_requests):
    plain = {"X-API-Key": keys[BIG]}
    etag = cached.get(f"{API}/news", headers=plain).headers["ETag"]
    conditional = {**plain, "If-None-Match": etag}
    handled = len(flask_requests)
    first, second = (cached.get(f"{API}/news", headers=conditional) for _ in range(2))
    assert len(flask_requests) == handled
    assert first.status_code == second.status_code == 304
    assert second.data == b"" and "Content-Type" not in second.headers
    assert headers_of(second) == headers_of(first)
    # A stale ETag gets the whole answer again.
    stale = cached.get(f"{API}/news", headers={**plain, "If-None-Match": 'W/"old"'})
    assert stale.status_code == 200 and stale.headers["ETag"] == etag


def test_cached_answers_count_against_the_rate_limit(app_with, keys, flask_requests):
    client = app_with(RESPONSE_CACHE_SECONDS=60, RATELIMIT_DEFAULT="3 per minute",
                      API_KEY_CACHE_SECONDS=60).test_client()
    statuses = [client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]}).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_an_import_is_seen_on_the_next_request(fresh_app, fixture_data, keys, flask_requests):
    _, url = fresh_app
    client = create_app({"DATABASE_URL": url, **TEST_SETTINGS, "RESPONSE_CACHE_SECONDS": 60,
                         "API_KEY_CACHE_SECONDS": 60}).test_client()
    headers = {"X-API-Key": keys[BIG]}
    for _ in range(3):
        before = client.get(f"{API}/news", headers=headers).get_json()
    changed = copy.deepcopy(fixture_data[BIG])
    changed["news"][0]["title"] = "A title changed by a new import"
    with writable(url):
        import_fixture(changed)
    after = client.get(f"{API}/news", headers=headers).get_json()
    assert after["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1
    assert before != after


def test_keys_preflights_and_other_methods_never_reach_a_view(cached, keys, flask_requests, monkeypatch):
    import app.views.news as news_view

    def refuse(*args, **kwargs):
        raise AssertionError("the view ran")

    cached.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    monkeypatch.setattr(news_view, "list_news", refuse)
    handled = len(flask_requests)
    assert cached.head(f"{API}/news", headers={"X-API-Key": keys[BIG]}).status_code == 200  # cached
    assert cached.get(f"{API}/news", headers={"X-API-Key": "fds_unknown"}).status_code == 401
    assert cached.get(f"{API}/news").status_code == 401
    preflight = cached.options(f"{API}/news", headers={"Origin": "https://x.example",
                                                       "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200 and preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert len(flask_requests) == handled
    assert cached.post(f"{API}/news", headers={"X-API-Key": keys[BIG]}).status_code == 405  # Flask routes it


def test_options_without_origin_says_which_methods_and_has_no_body(cached):
    response = cached.options(f"{API}/news")
    assert response.status_code == 200 and response.data == b""
    assert "Content-Type" not in response.headers
    assert sorted(m.strip() for m in response.headers["Allow"].split(",")) == ["GET", "HEAD", "OPTIONS"]
    assert "Access-Control-Allow-Methods" not in response.headers


@pytest.mark.parametrize("cache_seconds", [0, 60], ids=["cache-off", "cache-on"])
def test_the_key_is_hashed_the_revision_read_and_the_cache_key_built_once_per_request(
        app_with, keys, monkeypatch, cache_seconds):
    import app.door.auth as auth
    import app.door as frontdoor

    client = app_with(RESPONSE_CACHE_SECONDS=cache_seconds, API_KEY_CACHE_SECONDS=60).test_client()
    door = client.application.extensions["front_door"]
    if door.database.copy is not None:  # PostgreSQL: as served, the local copy made and the
        door.database.warm()            # revisions watched (a request meanwhile asks the server)
        assert door.database.copy.settled(60) and door.database.watch.wait_live(60)
    calls = {"hash": 0, "revision": 0, "cache key": 0}

    def counted(name, real):
        def call(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(auth, "hash_key", counted("hash", auth.hash_key))
    real_begin = door.database.revisions.begin

    def begin(db, **options):
        return counted("revision", real_begin(db, **options))

    monkeypatch.setattr(door.database.revisions, "begin", begin)
    if door.database.watch is not None:  # the revisions the watch holds, taken once
        monkeypatch.setattr(door.database.watch, "current", counted("revision", door.database.watch.current))
    monkeypatch.setattr(frontdoor, "_query_key", counted("cache key", frontdoor._query_key))
    for request in range(1, 4):  # a miss, then hits (or misses, with the cache off)
        assert client.get(f"{API}/news?limit=3", headers={"X-API-Key": keys[BIG]}).status_code == 200
        assert calls == {"hash": request, "revision": request, "cache key": request if cache_seconds else 0}


@pytest.mark.skipif(ON_POSTGRES, reason="a SQLite file")
@pytest.mark.parametrize("cache_seconds", [0, 60], ids=["cache-off", "cache-on"])
def test_a_replaced_database_file_is_seen_by_the_next_request_hit_or_miss(
        fresh_app, fixture_data, keys, tmp_path, cache_seconds):
    _, url = fresh_app
    path = url[len("sqlite:///"):]
    client = create_app({"DATABASE_URL": url, **TEST_SETTINGS, "RESPONSE_CACHE_SECONDS": cache_seconds,
                         "API_KEY_CACHE_SECONDS": 60}).test_client()
    headers = {"X-API-Key": keys[BIG]}
    spare = tmp_path / "next.sqlite3"
    shutil.copyfile(path, spare)
    changed = copy.deepcopy(fixture_data[BIG])
    changed["news"][0]["title"] = "A title of the file that replaces the served one"
    with writable(f"sqlite:///{spare}"):
        import_fixture(changed)
    before = [client.get(f"{API}/news", headers=headers).get_json() for _ in range(2)]
    assert before[0] == before[1]
    os.replace(spare, path)  # a restore from backup: a new file at the same path
    after = client.get(f"{API}/news", headers=headers).get_json()
    assert after["context"]["data"]["revision"] == before[0]["context"]["data"]["revision"] + 1
    assert "A title of the file that replaces the served one" in {item["title"] for item in after["data"]}


def test_data_endpoints_are_answered_by_their_views_without_entering_flask(app_with, keys, flask_requests):
    client = app_with(RESPONSE_CACHE_SECONDS=0).test_client()
    door = client.application.extensions["front_door"]
    headers = {"X-API-Key": keys[BIG]}
    statuses = {client.get(path, headers=headers).status_code for path in door.operations}
    assert statuses <= {200, 400} and 200 in statuses and 400 in statuses  # some need a selector
    assert client.get(f"{API}/news?limit=0", headers=headers).status_code == 400
    assert client.get(f"{API}/categories?subFestSlug=no-such-sub-fest", headers=headers).status_code == 404
    assert flask_requests == []
    assert client.get("/healthz").status_code == 200 and len(flask_requests) == 1


def test_each_data_route_loads_the_parameters_its_openapi_operation_documents(app):
    door = app.extensions["front_door"]
    document = app.test_client().get(f"{API}/openapi.json").get_json()
    assert set(door.operations) == {path for path in document["paths"]}
    for path, operation in door.operations.items():
        documented = {parameter["name"] for parameter in document["paths"][path]["get"]["parameters"]
                      if parameter["in"] == "query"}
        assert documented == set(operation.plan.attribute), path


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's statements (on PostgreSQL the snapshot comes with the revisions)")
def test_on_sqlite_an_answer_from_the_response_cache_begins_no_snapshot(app_with, keys):
    client = app_with(RESPONSE_CACHE_SECONDS=60, API_KEY_CACHE_SECONDS=60).test_client()
    headers = {"X-API-Key": keys[BIG]}
    first = client.get(f"{API}/news?limit=3", headers=headers)
    assert first.status_code == 200
    connection = client.application.extensions["front_door"].database.db.connection()
    statements = []
    connection.set_trace_callback(statements.append)
    try:
        assert client.get(f"{API}/news?limit=4", headers=headers).status_code == 200  # a miss
        made, statements[:] = list(statements), []
        assert client.get(f"{API}/news?limit=3", headers=headers).status_code == 200  # hits
        assert client.get(f"{API}/news?limit=3", headers={**headers, "If-None-Match": first.headers["ETag"]}
                          ).status_code == 304
    finally:
        connection.set_trace_callback(None)
    assert made[:3] == ["PRAGMA data_version", "BEGIN", "PRAGMA data_version"] and made[-1] == "ROLLBACK"
    assert any(statement.startswith("SELECT") for statement in made)
    assert statements == ["PRAGMA data_version"] * 2


@pytest.mark.parametrize("cache_seconds", [0, 60], ids=["cache-off", "cache-on"])
def test_an_import_between_the_revision_and_the_snapshot_is_never_answered_or_kept_half(
        fresh_app, fixture_data, keys, cache_seconds):
    _, url = fresh_app
    # On PostgreSQL with the local copy, the default: without it the import this test makes
    # inside the request runs under the request's statement deadline on the server (a 503).
    client = create_app({"DATABASE_URL": url, **TEST_SETTINGS, "RESPONSE_CACHE_SECONDS": cache_seconds,
                         "API_KEY_CACHE_SECONDS": 60, "LOCAL_COPY": True}).test_client()
    database = client.application.extensions["front_door"].database
    headers = {"X-API-Key": keys[BIG]}
    before = client.get(f"{API}/news", headers=headers).get_json()["context"]["data"]["revision"]
    title = "A title imported while a request was on its way"
    changed = copy.deepcopy(fixture_data[BIG])
    changed["news"][0]["title"] = title
    real_snapshot = database.snapshot

    def racing(festival_id, revision):  # the import commits after the revision was read
        del database.snapshot
        with writable(url):
            import_fixture(changed)
        return real_snapshot(festival_id, revision)

    database.snapshot = racing
    raced = client.get(f"{API}/news?limit=50", headers=headers).get_json()
    assert "snapshot" not in vars(database), "the request read no pages"
    # Its data and its revision are of one view: the old one or the new one, never mixed.
    titles = {item["title"] for item in raced["data"]}
    assert (raced["context"]["data"]["revision"], title in titles) in {(before, False), (before + 1, True)}
    cache = client.application.extensions["front_door"].cache
    if cache.enabled:  # kept, if at all, under the revision it was made at
        kept = [key[1] for key in list(cache._entries) if key[2] == f"{API}/news" and key[3] == (("limit", "50"),)]
        assert set(kept) <= {raced["context"]["data"]["revision"]}
    # The next identical request is answered at the new revision, not from an answer kept under the old.
    again = client.get(f"{API}/news?limit=50", headers=headers).get_json()
    assert again["context"]["data"]["revision"] == before + 1
    assert title in {item["title"] for item in again["data"]}


def test_the_steps_of_a_data_request_are_the_ones_the_door_documents_in_its_order():
    """The module's doc lists the steps of a data request, numbered, as ``STEPS`` holds them,
    and each is a method of the door, written in the same order."""
    import inspect
    import re

    import app.door as door

    listed = re.findall(r"^(\d+)\. ``(\w+)``", door.__doc__, flags=re.M)
    assert [name for _, name in listed] == list(door.STEPS)
    assert [int(number) for number, _ in listed] == list(range(1, len(door.STEPS) + 1))
    lines = [inspect.getsourcelines(getattr(door.FrontDoor, f"_{step}"))[1] for step in door.STEPS]
    assert lines == sorted(lines)
