"""Rate limits per API key and client address: memory storage, and Redis shared by two apps."""
import logging
import socket
import time
import uuid

import pytest

from conftest import API, BIG, SMALL, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from db.source import models as m
from db.source.keys import create_key, find_active_key

REDIS = ("127.0.0.1", 6379)


def get(client, key, path="/news"):
    headers = {"X-API-Key": key} if key else {}
    return client.get(f"{API}{path}", headers=headers)


def assert_limited(response, budget):
    assert response.status_code == 429
    body = response.get_json()
    assert body["code"] == 429 and body["status"] == "Too Many Requests" and body["message"]
    assert 0 < int(response.headers["Retry-After"]) <= 60
    assert response.headers["X-RateLimit-Limit"] == str(budget)
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert int(response.headers["X-RateLimit-Reset"]) >= int(time.time())
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"] == "no-store"


def test_a_key_over_its_budget_gets_429_while_other_keys_are_served(fresh_app, app_with, keys):
    _, url = fresh_app
    with writable(url):
        _, second_big_key = create_key(m.Festival.get(m.Festival.slug == BIG), label="second site")
    client = app_with(database_url=url, RATELIMIT_DEFAULT="3 per minute").test_client()

    remaining = []
    for _ in range(3):
        response = get(client, keys[BIG])
        assert response.status_code == 200
        assert "Retry-After" not in response.headers
        remaining.append(response.headers["X-RateLimit-Remaining"])
    assert remaining == ["2", "1", "0"]
    assert_limited(get(client, keys[BIG]), 3)
    assert_limited(get(client, keys[BIG], "/subfests"), 3)  # one budget for the whole API

    for other in (keys[SMALL], second_big_key):
        response = get(client, other)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "2"


def from_address(client, key, address, forwarded_for=None):
    headers = {"X-API-Key": key}
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    return client.get(f"{API}/news", headers=headers, environ_base={"REMOTE_ADDR": address})


def test_each_client_address_has_its_own_budget_on_one_key(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="2 per minute").test_client()
    for _ in range(2):
        assert from_address(client, keys[BIG], "198.51.100.1").status_code == 200
    assert_limited(from_address(client, keys[BIG], "198.51.100.1"), 2)
    second = from_address(client, keys[BIG], "198.51.100.2")  # another visitor of the same site
    assert second.status_code == 200 and second.headers["X-RateLimit-Remaining"] == "1"


def test_x_forwarded_for_is_ignored_unless_proxies_are_trusted(app_with, keys, monkeypatch):
    app = app_with(RATELIMIT_DEFAULT="2 per minute")
    # What the app's logger is handed (it writes its own JSON lines, and other tests may
    # leave it propagating or not): each record once.
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    monkeypatch.setattr(app.logger, "handlers", [*app.logger.handlers, handler])
    client = app.test_client()
    statuses = [from_address(client, keys[BIG], "10.0.0.1", forwarded_for=f"203.0.113.{i}").status_code
                for i in range(3)]
    assert statuses == [200, 200, 429]  # a client cannot choose its address
    warnings = [r.getMessage() for r in records if "TRUSTED_PROXIES" in r.getMessage()]
    assert len(warnings) == 1  # said once, not on every request


def test_behind_trusted_proxies_the_forwarded_address_is_the_client(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="2 per minute", TRUSTED_PROXIES=1).test_client()
    for visitor in ("203.0.113.7", "203.0.113.8"):
        # The last address is the one the trusted proxy appended; earlier ones the client wrote.
        statuses = [from_address(client, keys[BIG], "10.0.0.1", forwarded_for=f"192.0.2.{i}, {visitor}").status_code
                    for i in range(3)]
        assert statuses == [200, 200, 429], visitor


def test_an_optional_ceiling_caps_all_addresses_of_a_key_together(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="10 per minute", RATELIMIT_PER_KEY="3 per minute").test_client()
    statuses = [from_address(client, keys[BIG], f"198.51.100.{i}").status_code for i in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert_limited(from_address(client, keys[BIG], "198.51.100.9"), 3)
    assert from_address(client, keys[SMALL], "198.51.100.1").status_code == 200  # per key


def test_requests_without_a_valid_key_are_401_and_use_no_budget(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="2 per minute").test_client()
    for key in [None, "fds_unknown", keys["revoked"]] * 2:
        assert get(client, key).status_code == 401
    assert [get(client, keys[BIG]).status_code for _ in range(3)] == [200, 200, 429]


def test_preflight_health_and_docs_are_not_limited(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="1 per minute").test_client()
    for _ in range(3):
        assert client.options(f"{API}/news", headers={
            "Origin": "https://x.example", "Access-Control-Request-Method": "GET"}).status_code == 200
        assert client.get("/healthz").status_code == 200
        assert client.get(f"{API}/openapi.json").status_code == 200
    first = get(client, keys[BIG])
    assert first.status_code == 200 and first.headers["X-RateLimit-Remaining"] == "0"


def test_answers_from_the_response_cache_count_too(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="2 per minute", RESPONSE_CACHE_SECONDS=60).test_client()
    first, second, third = (get(client, keys[BIG]) for _ in range(3))
    assert first.status_code == second.status_code == 200 and second.data == first.data
    assert_limited(third, 2)


def conditional(client, key, etag, path="/news"):
    return client.get(f"{API}{path}", headers={"X-API-Key": key, "If-None-Match": etag})


def budget(response):
    return [response.headers.getlist(name) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining",
                                                         "X-RateLimit-Reset")]


@pytest.mark.parametrize("cache_seconds", [0, 60], ids=["cache off", "cache on"])
def test_a_304_spends_no_budget_and_says_the_budget_as_it_is(app_with, keys, cache_seconds):
    client = app_with(RATELIMIT_DEFAULT="3 per minute", RESPONSE_CACHE_SECONDS=cache_seconds).test_client()
    first = get(client, keys[BIG])
    assert first.status_code == 200 and first.headers["X-RateLimit-Remaining"] == "2"
    for _ in range(20):
        not_modified = conditional(client, keys[BIG], first.headers["ETag"])
        assert not_modified.status_code == 304
        assert budget(not_modified) == budget(first)  # one of each, nothing spent
        assert "Retry-After" not in not_modified.headers
    assert get(client, keys[BIG], "/subfests").headers["X-RateLimit-Remaining"] == "1"
    # A conditional request answered in full spends like any other.
    stale = conditional(client, keys[BIG], 'W/"an-older-answer"')
    assert stale.status_code == 200 and stale.headers["X-RateLimit-Remaining"] == "0"
    assert conditional(client, keys[BIG], first.headers["ETag"]).headers["X-RateLimit-Remaining"] == "0"
    # Spent: every request waits for the window, a would-be 304 too (that is known only once
    # its answer is made, which the budget is there to spare).
    assert_limited(conditional(client, keys[BIG], first.headers["ETag"]), 3)
    assert_limited(get(client, keys[BIG]), 3)


def test_a_conditional_request_answered_with_an_error_spends_budget(app_with, keys):
    client = app_with(RATELIMIT_DEFAULT="2 per minute").test_client()
    etag = get(client, keys[BIG]).headers["ETag"]
    bad = conditional(client, keys[BIG], etag, "/news?limit=0")
    assert bad.status_code == 400 and bad.headers["X-RateLimit-Remaining"] == "0"
    assert_limited(conditional(client, keys[BIG], etag), 2)


def test_the_counter_is_keyed_by_key_id_never_by_the_key(app_with, keys):
    app = app_with(RATELIMIT_DEFAULT="5 per minute")
    get(app.test_client(), keys[BIG])
    stored = list(app.extensions["front_door"].limits.storage.storage)
    key_id, _ = find_active_key(keys[BIG])
    assert len(stored) == 1 and str(key_id) in stored[0]
    assert keys[BIG] not in stored[0] and keys[BIG][4:] not in stored[0]


def test_an_empty_setting_disables_limits(api):
    response = api.get("/news")
    assert response.status_code == 200 and "X-RateLimit-Limit" not in response.headers


def redis_reachable():
    try:
        with socket.create_connection(REDIS, timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def redis_prefix():
    if not redis_reachable():
        pytest.skip("no Redis on 127.0.0.1:6379")
    import redis

    prefix = f"festival-api-test-{uuid.uuid4().hex}"
    connection = redis.Redis(*REDIS)
    yield prefix, connection
    for name in connection.scan_iter(match=f"*{prefix}*"):
        connection.delete(name)
    connection.close()


# Redis's answers are waited for up to 2 s here, not the default 50 ms (after which the budget
# is counted in memory for a while; tests/faults/test_redis_hang.py): on a loaded machine a
# slow answer would otherwise count a request in memory instead of in the shared budget.
REDIS_WAIT = {"RATELIMIT_STORAGE_TIMEOUT_MS": 2000}


def test_two_apps_sharing_redis_share_one_budget(app_with, keys, redis_prefix):
    prefix, connection = redis_prefix
    settings = {"RATELIMIT_DEFAULT": "4 per minute", "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
                "RATELIMIT_KEY_PREFIX": prefix, **REDIS_WAIT}
    first, second = app_with(**settings).test_client(), app_with(**settings).test_client()
    remaining = [get(client, keys[BIG]).headers["X-RateLimit-Remaining"]
                 for client in (first, second, first, second)]
    assert remaining == ["3", "2", "1", "0"]
    assert_limited(get(second, keys[BIG]), 4)
    assert_limited(get(first, keys[BIG]), 4)
    assert get(first, keys[SMALL]).status_code == 200

    stored = [name.decode() for name in connection.scan_iter(match=f"*{prefix}*")]
    key_id, _ = find_active_key(keys[BIG])
    assert any(str(key_id) in name for name in stored)
    assert not any(keys[BIG][4:] in name for name in stored)


def test_a_304_spends_nothing_of_a_budget_shared_in_redis(app_with, keys, redis_prefix):
    prefix, _ = redis_prefix
    client = app_with(RATELIMIT_DEFAULT="2 per minute", RATELIMIT_STORAGE_URI="redis://127.0.0.1:6379",
                      RATELIMIT_KEY_PREFIX=prefix, **REDIS_WAIT).test_client()
    first = get(client, keys[BIG])
    statuses = [conditional(client, keys[BIG], first.headers["ETag"]).status_code for _ in range(5)]
    assert statuses == [304] * 5
    last = get(client, keys[BIG])
    assert last.status_code == 200 and last.headers["X-RateLimit-Remaining"] == "0"


def test_wrong_keys_have_a_budget_per_address_that_bars_its_wrong_keys_until_its_window_ends(app_with, keys):
    client = app_with(RATELIMIT_WRONG_KEYS="3 per minute").test_client()
    wrong = [from_address(client, "fk_wrong", "198.51.100.1").status_code for _ in range(4)]
    assert wrong == [401, 401, 401, 429]
    # A right key from the barred address (the same school's NAT) is answered as ever ...
    for _ in range(3):
        right = from_address(client, keys[BIG], "198.51.100.1")
        assert right.status_code == 200 and right.get_json()["data"] is not None
    # ... while its wrong keys, new or seen before, are still refused until the window ends.
    for wrong_key in ("fk_wrong", "fk_another_wrong_one"):
        barred = from_address(client, wrong_key, "198.51.100.1")
        assert_limited(barred, 3)
        assert "wrong API key" in barred.get_json()["message"]
    assert from_address(client, keys[BIG], "198.51.100.2").status_code == 200
    assert from_address(client, "fk_wrong", "198.51.100.2").status_code == 401
    # Requests without a key are 401s that cost nothing and are not counted.
    missing = [client.get(f"{API}/news", environ_base={"REMOTE_ADDR": "198.51.100.3"}).status_code
               for _ in range(5)]
    assert missing == [401] * 5


def test_the_wrong_key_budget_is_counted_without_a_request_budget(app_with, keys):
    """RATELIMIT_DEFAULT empty (no budget for right keys): wrong keys still have theirs, and
    right keys carry no rate-limit headers."""
    client = app_with(RATELIMIT_DEFAULT="", RATELIMIT_WRONG_KEYS="1 per minute").test_client()
    right = from_address(client, keys[BIG], "198.51.100.4")
    assert right.status_code == 200 and "X-RateLimit-Limit" not in right.headers
    assert [from_address(client, "fk_wrong", "198.51.100.4").status_code for _ in range(2)] == [401, 429]
