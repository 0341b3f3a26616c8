"""The result-day response cache: identical requests at the same data revision come from memory."""
import copy
import gzip
import threading
import time

import pytest

from app.door.response_cache import ResponseCache
from conftest import API, BIG, SMALL, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from db.source import models as m
from db.source.keys import create_key
from seed.pipeline.write.importer import import_fixture


@pytest.fixture
def news_queries(monkeypatch):
    """Counts how often the /news view asks the database for its page."""
    import app.views.news as news_view

    calls = []
    real = news_view.list_news

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(news_view, "list_news", counting)
    return calls


@pytest.fixture
def cached_client(app_with):
    app = app_with(RESPONSE_CACHE_SECONDS=60)
    return app, app.test_client()


def get(client, key, query="", headers=None):
    return client.get(f"{API}/news{query}", headers={"X-API-Key": key, **(headers or {})})


def test_a_repeated_request_is_answered_from_memory_identically(cached_client, keys, news_queries):
    _, client = cached_client
    first, second = get(client, keys[BIG]), get(client, keys[BIG])
    assert first.status_code == second.status_code == 200
    assert second.data == first.data
    assert second.headers["ETag"] == first.headers["ETag"]
    assert second.headers["Content-Type"] == first.headers["Content-Type"]
    assert len(news_queries) == 1


def test_the_order_of_parameters_does_not_matter_but_their_values_do(cached_client, keys, news_queries):
    _, client = cached_client
    a = get(client, keys[BIG], "?limit=3&page=2")
    b = get(client, keys[BIG], "?page=2&limit=3")
    assert a.data == b.data and len(news_queries) == 1
    assert get(client, keys[BIG], "?limit=4&page=2").data != a.data
    assert len(news_queries) == 2


def test_festivals_and_keys_never_share_entries(fresh_app, app_with, keys, news_queries):
    _, url = fresh_app
    with writable(url):
        _, second_big_key = create_key(m.Festival.get(m.Festival.slug == BIG), label="second site")
    client = app_with(database_url=url, RESPONSE_CACHE_SECONDS=60).test_client()
    big, small = get(client, keys[BIG]).get_json(), get(client, keys[SMALL]).get_json()
    assert big["context"]["festival"]["slug"] == BIG
    assert small["context"]["festival"]["slug"] == SMALL
    assert get(client, second_big_key).get_json() == big
    assert len(news_queries) == 3
    get(client, keys[BIG]), get(client, keys[SMALL]), get(client, second_big_key)
    assert len(news_queries) == 3


def test_an_import_is_visible_on_the_next_request(fresh_app, app_with, keys, fixture_data, news_queries):
    _, url = fresh_app
    client = app_with(database_url=url, RESPONSE_CACHE_SECONDS=60, DATABASE_READONLY=False).test_client()
    before = get(client, keys[SMALL], "?limit=500").get_json()
    assert get(client, keys[SMALL], "?limit=500").get_json() == before
    assert len(news_queries) == 1

    changed = copy.deepcopy(fixture_data[SMALL])
    target = next(n for n in changed["news"] if n["id"] == before["data"][0]["id"])
    target["title"] = "Results of the final day are out"
    with writable(url):
        import_fixture(changed)

    body = get(client, keys[SMALL], "?limit=500").get_json()
    assert len(news_queries) == 2
    assert body["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1
    assert {n["id"]: n["title"] for n in body["data"]}[target["id"]] == "Results of the final day are out"


@pytest.mark.parametrize("query", ["?limit=0", "?sortBy=nope", "?page=0"])
def test_errors_are_never_cached(cached_client, keys, query):
    app, client = cached_client
    assert get(client, keys[BIG], query).status_code == 400
    assert get(client, keys[BIG], query).status_code == 400
    assert client.get(f"{API}/news").status_code == 401
    assert len(app.extensions["front_door"].cache) == 0


def test_an_entry_lives_at_most_the_configured_seconds(cached_client, keys, news_queries):
    app, client = cached_client
    now = [1000.0]
    app.extensions["front_door"].cache = ResponseCache(5, 100, timer=lambda: now[0])
    get(client, keys[BIG])
    now[0] += 4.9
    get(client, keys[BIG])
    assert len(news_queries) == 1
    now[0] += 0.2
    get(client, keys[BIG])
    assert len(news_queries) == 2


def test_zero_seconds_disables_the_cache(api, news_queries):
    api.get("/news"), api.get("/news")
    assert len(news_queries) == 2


def test_cached_answers_are_compressed_and_revalidated_like_fresh_ones(cached_client, keys, news_queries):
    _, client = cached_client
    plain = get(client, keys[BIG], "?limit=50")
    packed = [get(client, keys[BIG], "?limit=50", {"Accept-Encoding": "gzip"}) for _ in range(2)]
    assert len(news_queries) == 1
    for response in packed:
        assert response.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.data) == plain.data
        assert response.headers["ETag"] == plain.headers["ETag"]
    assert "Content-Encoding" not in get(client, keys[BIG], "?limit=50").headers
    not_modified = get(client, keys[BIG], "?limit=50", {"If-None-Match": plain.headers["ETag"],
                                                         "Accept-Encoding": "gzip"})
    assert not_modified.status_code == 304 and not_modified.data == b""
    assert len(news_queries) == 1


def test_a_cached_answer_has_the_headers_of_the_answer_it_keeps(cached_client, keys, monkeypatch):
    import app.views.news as news_view

    real, calls = news_view.list_news, []

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(news_view, "list_news", counted)
    _, client = cached_client
    first, second = get(client, keys[BIG]), get(client, keys[BIG])
    assert len(calls) == 1
    made = sorted((name, value) for name, value in first.headers.items() if name != "Date")
    kept = sorted((name, value) for name, value in second.headers.items() if name != "Date")
    assert made == kept and second.get_data() == first.get_data()
    assert second.headers["Content-Type"] == "application/json"
    assert len(second.headers.getlist("Access-Control-Allow-Origin")) == 1


class GatedView:
    """Replaces the /news query: the first call waits for ``open_gate()``; may fail once."""

    def __init__(self, real, fail_first=False):
        self.real, self.fail_first = real, fail_first
        self.calls, self.entered, self.gate = 0, threading.Event(), threading.Event()

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            assert self.gate.wait(30)
            if self.fail_first:
                raise RuntimeError("the first maker fails")
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("fail_first", [False, True], ids=["maker-succeeds", "maker-fails"])
def test_identical_misses_wait_for_the_one_making_the_answer(cached_client, keys, monkeypatch, fail_first):
    import app.views.news as news_view

    app, _ = cached_client
    view = GatedView(news_view.list_news, fail_first)
    monkeypatch.setattr(news_view, "list_news", view)
    cache = app.extensions["front_door"].cache
    arrived, real_make_or_wait = [], cache.make_or_wait

    def make_or_wait(key):
        arrived.append(key)
        return real_make_or_wait(key)

    monkeypatch.setattr(cache, "make_or_wait", make_or_wait)
    statuses = {}

    def request(name):
        statuses[name] = get(app.test_client(), keys[BIG]).status_code

    first = threading.Thread(target=request, args=("first",))
    first.start()
    assert view.entered.wait(30)
    others = [threading.Thread(target=request, args=(name,)) for name in ("second", "third")]
    for thread in others:
        thread.start()
    deadline = time.monotonic() + 30
    while len(arrived) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(arrived) == 3, "the later requests are waiting for the first"
    view.gate.set()
    for thread in [first, *others]:
        thread.join(30)

    if fail_first:
        # The failure is not cached; one waiter makes the answer, the other reuses it.
        assert statuses == {"first": 500, "second": 200, "third": 200} and view.calls == 2
    else:
        assert statuses == {"first": 200, "second": 200, "third": 200} and view.calls == 1


def test_identical_requests_for_an_error_of_the_request_do_not_queue(cached_client, keys, monkeypatch):
    app, client = cached_client
    cache = app.extensions["front_door"].cache
    made, real_made = [], cache.made

    def spy(key, maker, kept=True):
        made.append(kept)
        return real_made(key, maker, kept)

    monkeypatch.setattr(cache, "made", spy)
    missing = f"{API}/candidate-result?chestNo=no-such-chest&subFestSlug=general"
    headers = {"X-API-Key": keys[BIG]}
    assert client.get(missing, headers=headers).status_code == 404
    assert made == [False]  # the maker said: not kept
    key = next(iter(cache._not_kept))
    assert cache.make_or_wait(key) is None  # no lock, no wait: made side by side
    assert client.get(missing, headers=headers).status_code == 404
    assert made == [False]  # the second request had no maker to release


def test_a_key_not_kept_is_made_with_a_maker_again_after_the_cache_seconds():
    now = [0.0]
    cache = ResponseCache(5, 100, timer=lambda: now[0])
    maker = cache.make_or_wait("k")
    cache.made("k", maker, kept=False)
    assert cache.make_or_wait("k") is None
    now[0] += 5.1
    again = cache.make_or_wait("k")
    assert again is not None
    cache.made("k", again)


def test_the_cache_keeps_within_its_byte_budget_and_skips_what_cannot_fit():
    from app.door.response_cache import CachedResponse

    cache = ResponseCache(60, 100, max_bytes=14_000)
    for n in range(4):
        cache.put(("page", n), CachedResponse(b"x" * 2_000, [], f'W/"{n}"'))  # counts 4,000 + 2,048 bytes each
    assert cache.get(("page", 0)) is None and cache.get(("page", 1)) is None  # made room
    assert cache.get(("page", 2)) is not None and cache.get(("page", 3)) is not None
    assert cache.size == 12_096
    cache.put(("huge",), CachedResponse(b"x" * 6_000, [], 'W/"huge"'))  # 14,048: more than the budget
    assert cache.get(("huge",)) is None and len(cache) == 2


def test_the_cache_keeps_at_most_its_entries():
    from app.door.response_cache import CachedResponse

    cache = ResponseCache(60, 3)
    for n in range(5):
        cache.put(("page", n), CachedResponse(b"{}", [], f'W/"{n}"'))
    assert len(cache) == 3 and cache.get(("page", 4)) is not None and cache.get(("page", 0)) is None


def _json_like(size, n):
    row = b'{"id":"%08d","name":"Candidate %d","team":"Team %d","points":%d},' % (n, n, n % 97, n % 13)
    return (b'{"data":[' + row * (size // len(row) + 1))[:size]


@pytest.mark.parametrize("sizes", [(200, 1_500, 12_000, 90_000, 300_000), (120, 300), (1_500,)],
                         ids=["mixed", "small answers", "one size"])
def test_what_the_cache_holds_measured_in_bytes_stays_within_its_budget(sizes):
    """Answers of every size, with their keys, headers and a compressed copy each, past the
    budget many times over: the memory they hold (allocations traced by Python) never
    passes the budget."""
    import gzip
    import hashlib
    import random
    import tracemalloc

    from app.door.response_cache import CachedResponse

    budget = 2**20
    cache = ResponseCache(60, 100_000, max_bytes=budget)
    rng = random.Random(5)

    def held_here():
        # What is held by allocations made under this test's own frames: threads other tests
        # left running (a local copy, a revision watch) allocate in the process too.
        here = tracemalloc.Filter(True, __file__, all_frames=True)
        return sum(trace.size for trace in tracemalloc.take_snapshot().filter_traces([here]).traces)

    tracemalloc.start(32)
    try:
        before = tracemalloc.get_traced_memory()[0]
        highest = 0
        for n in range(1_500):
            body = _json_like(rng.choice(sizes), n)
            key = (hashlib.sha256(b"%d" % (n % 7)).hexdigest(), (n, f"2026-11-26 10:{n % 60:02d}:00"),
                   "/public-api/v1/candidates", (("limit", "20"), ("page", str(n)), ("subFestId", f"{n:032x}")))
            entry = CachedResponse(body, [("Content-Type", "application/json"), ("X-Data-Revision", str(n))],
                                   f'W/"{n:032x}"')
            cache.put(key, entry)
            if len(body) > 1024:  # as COMPRESS_MIN_SIZE: smaller answers are sent as they are
                entry.remember_encoding("gzip", gzip.compress(body, 1))
            del body, key, entry
            held = tracemalloc.get_traced_memory()[0] - before
            if held > budget:  # the whole process's count is over: count this test's alone
                held = held_here()
            highest = max(highest, held)
    finally:
        tracemalloc.stop()
    assert len(cache) >= 2 and cache.size <= budget
    assert highest <= budget, f"{highest:,} bytes held for a budget of {budget:,}"
