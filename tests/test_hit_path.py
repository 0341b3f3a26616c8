"""The hit path: repeated GETs answered from the response cache outside Flask, alike.

An answer the hit path sends must be the one the Flask path would send: the same status,
body and headers (but ``Date`` and the rate-limit counts, which are per request), counted
against the same rate limits, logged the same way, and never stale after an import.
"""
import copy

import pytest
from flask import request_started

from app import create_app
from conftest import API, BIG, TEST_SETTINGS, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from seed.importer import import_fixture

PER_REQUEST = {"date", "x-ratelimit-remaining", "x-ratelimit-reset"}


@pytest.fixture
def flask_requests():
    """Counts the requests Flask itself handles (the hit path sends no ``request_started``)."""
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
    first = cached.get(f"{API}{path}", headers=headers)  # made by Flask, cached
    second = cached.get(f"{API}{path}", headers=headers)  # from the cache, by Flask: teaches the hit path
    handled = len(flask_requests)
    third = cached.get(f"{API}{path}", headers=headers)  # the hit path
    assert len(flask_requests) == handled, "the third request reached Flask"
    assert first.status_code == second.status_code == third.status_code == 200
    assert third.data == second.data == first.data
    assert headers_of(third) == headers_of(second)
    assert int(third.headers["X-RateLimit-Remaining"]) == int(second.headers["X-RateLimit-Remaining"]) - 1


def test_a_304_is_answered_outside_flask_exactly_as_flask_answers(cached, keys, flask_requests):
    plain = {"X-API-Key": keys[BIG]}
    etag = cached.get(f"{API}/news", headers=plain).headers["ETag"]
    conditional = {**plain, "If-None-Match": etag}
    by_flask = cached.get(f"{API}/news", headers=conditional)
    handled = len(flask_requests)
    by_hit_path = cached.get(f"{API}/news", headers=conditional)
    assert len(flask_requests) == handled
    assert by_flask.status_code == by_hit_path.status_code == 304
    assert by_hit_path.data == b""
    assert headers_of(by_hit_path) == headers_of(by_flask)
    # A stale ETag gets the whole answer again.
    stale = cached.get(f"{API}/news", headers={**plain, "If-None-Match": 'W/"old"'})
    assert stale.status_code == 200 and stale.headers["ETag"] == etag


def test_the_hit_path_counts_against_the_rate_limit(app_with, keys, flask_requests):
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


def test_other_methods_and_unknown_keys_go_to_flask(cached, keys, flask_requests):
    for _ in range(3):
        cached.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    handled = len(flask_requests)
    assert cached.head(f"{API}/news", headers={"X-API-Key": keys[BIG]}).status_code == 200
    assert cached.get(f"{API}/news", headers={"X-API-Key": "fds_unknown"}).status_code == 401
    assert cached.options(f"{API}/news", headers={"Origin": "https://x.example",
                                                  "Access-Control-Request-Method": "GET"}).status_code == 200
    assert len(flask_requests) == handled + 3
