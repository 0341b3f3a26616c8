"""One of each header on every answer, read as the raw header list a real server sends.

A browser refuses a CORS answer whose ``Access-Control-Allow-Origin`` comes twice ("contains
multiple values '*, *'"), and a mapping of headers shows only one of two: so each answer
here is read off a socket from waitress on a port, for every kind of answer (preflight,
200, HEAD, 304, compressed or not, every error, waitress's own errors), with any origin
allowed and with an allow-list (an origin on it and one not on it).
"""
import re
import socket
import threading
import time

import on_the_wire
import pytest
from conftest import API, BIG
from custom_apps import app_with  # noqa: F401  (fixture)
from on_the_wire import exchange

ORIGIN = "https://festival-site.example"
STRANGER = "https://elsewhere.example"
EXPOSED = {"etag", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"}

# (name, CORS_ORIGINS, the request's Origin, the Access-Control-Allow-Origin expected or None)
SETTINGS = [
    ("allow-all", ["*"], ORIGIN, "*"),
    ("allow-list, origin on it", [ORIGIN, "https://other.example"], ORIGIN, ORIGIN),
    ("allow-list, origin not on it", [ORIGIN, "https://other.example"], STRANGER, None),
]

PREFLIGHT = {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key"}

# name: (app kind, method, path, headers (KEY: the festival's key), expected status)
ANSWERS = {
    "preflight": ("plain", "OPTIONS", "/news", PREFLIGHT, 200),
    "preflight of the document": ("plain", "OPTIONS", "/openapi.json", PREFLIGHT, 200),
    "200": ("plain", "GET", "/news", {"X-API-Key": "KEY"}, 200),
    "200 compressed": ("plain", "GET", "/programmes?subFestSlug=general&limit=50", {"X-API-Key": "KEY", "Accept-Encoding": "br, gzip"}, 200),
    "HEAD": ("plain", "HEAD", "/programmes?subFestSlug=general&limit=50", {"X-API-Key": "KEY", "Accept-Encoding": "gzip"}, 200),
    "304": ("plain", "GET", "/news", {"X-API-Key": "KEY", "If-None-Match": "ETAG"}, 304),
    "304 compressed": ("plain", "GET", "/programmes?subFestSlug=general&limit=50",
                       {"X-API-Key": "KEY", "If-None-Match": "ETAG", "Accept-Encoding": "gzip"}, 304),
    "200 of a URL naming its festival": ("plain", "GET", f"/programmes?festival={BIG}&subFestSlug=general&limit=50",
                                         {"X-API-Key": "KEY", "Accept-Encoding": "br, gzip"}, 200),
    "304 of a URL naming its festival": ("plain", "GET", f"/news?festival={BIG}",
                                         {"X-API-Key": "KEY", "If-None-Match": "ETAG"}, 304),
    "403 of a URL naming another festival": ("plain", "GET", "/news?festival=college-fest-2026",
                                             {"X-API-Key": "KEY"}, 403),
    "the document": ("plain", "GET", "/openapi.json", {"Accept-Encoding": "gzip"}, 200),
    "400": ("plain", "GET", "/news?limit=0", {"X-API-Key": "KEY"}, 400),
    "401": ("plain", "GET", "/news", {}, 401),
    "404 of a path": ("plain", "GET", "/no-such-endpoint", {"X-API-Key": "KEY"}, 404),
    "404 of a view": ("plain", "GET", "/programme-detail?programCode=NO-SUCH", {"X-API-Key": "KEY"}, 404),
    "405": ("plain", "DELETE", "/news", {"X-API-Key": "KEY"}, 405),
    "429": ("limited", "GET", "/news", {"X-API-Key": "KEY"}, 429),
    "500": ("crashing", "GET", "/news", {"X-API-Key": "KEY"}, 500),
    "503": ("broken", "GET", "/news", {"X-API-Key": "KEY"}, 503),
}

# waitress answers these before the app sees them (app/server/waitress_compat.py): one of each, and
# the CORS headers of the request's Origin where it was read (the 400's request line is bad).
WAITRESS = {
    "waitress 400": b"GET /public-api/v1/news\xff HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\n\r\n",
    "waitress 431": b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nX-Big: " + b"b" * 3000 + b"\r\n\r\n",
    "waitress 431, cut short": b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nX-Big: " + b"b" * 3000,
    "waitress 413": b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nContent-Length: 5000\r\n\r\n",
    "waitress 413, small body": b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nContent-Length: 5\r\n\r\nhello",
    "waitress 413, chunked": (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n"),
    "waitress 417": b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nOrigin: %s\r\nExpect: 100-continue\r\n\r\n",
}


def serving(app, **settings):
    return on_the_wire.serving(app, threads=2, max_request_header_size=2048, max_request_body_size=1024, **settings)


def request(port, method, path, headers):
    lines = [f"{method} {API}{path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
             *(f"{name}: {value}" for name, value in headers.items())]
    return exchange(port, ("\r\n".join(lines) + "\r\n\r\n").encode())


def values(headers, name):
    return [value for found, value in headers if found.lower() == name.lower()]


def assert_one_of_each(headers):
    names = [name.lower() for name, _ in headers]
    assert sorted(name for name in set(names) if names.count(name) > 1) == [], headers
    for name, value in headers:
        if name.lower() == "vary":
            tokens = [token.strip().lower() for token in value.split(",")]
            assert len(tokens) == len(set(tokens)), value


def crash(*args, **kwargs):
    raise RuntimeError("internal detail")


def make_app(app_with, kind, cors_origins, tmp_path, monkeypatch):
    settings = {"CORS_ORIGINS": cors_origins}
    if kind == "crashing":
        import app.views.news as news_view

        monkeypatch.setattr(news_view, "list_news", crash)
    if kind == "limited":
        settings["RATELIMIT_DEFAULT"] = "2 per minute"
    if kind == "broken":
        settings["DATABASE_URL"] = f"sqlite:///{tmp_path}/missing/dir/x.db"
    return app_with(**settings)


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
@pytest.mark.parametrize("answer", ANSWERS)
def test_every_answer_carries_each_header_once(app_with, keys, tmp_path, monkeypatch, setting, answer):
    _, cors_origins, origin, allowed = setting
    kind, method, path, wanted, status = ANSWERS[answer]
    wanted = {name: keys[BIG] if value == "KEY" else value for name, value in wanted.items()}
    app = make_app(app_with, kind, cors_origins, tmp_path, monkeypatch)
    max_age = app.config["CACHE_MAX_AGE"]
    with serving(app) as port:
        if "If-None-Match" in wanted:
            _, first, _ = request(port, "GET", path, {**wanted, "If-None-Match": "-"})
            wanted["If-None-Match"] = values(first, "ETag")[0]
        if kind == "limited":
            for _ in range(2):
                request(port, method, path, wanted)
        code, headers, body = request(port, method, path, {**wanted, "Origin": origin})
    assert code == status, (body, headers)
    assert_one_of_each(headers)

    assert values(headers, "Access-Control-Allow-Origin") == ([allowed] if allowed else [])
    if allowed:
        assert {v.strip().lower() for v in values(headers, "Access-Control-Expose-Headers")[0].split(",")} >= EXPOSED
    if method == "OPTIONS" and allowed:
        assert values(headers, "Access-Control-Allow-Headers") == ["x-api-key"]
        assert "GET" in values(headers, "Access-Control-Allow-Methods")[0]
        assert values(headers, "Access-Control-Max-Age") == ["86400"]
    vary = {token.strip().lower() for token in values(headers, "Vary")[0].split(",")}
    named = "festival=" in path  # the same answer for every key of the festival: shared
    assert "accept-encoding" in vary and ("x-api-key" in vary) != named
    assert ("origin" in vary) == (cors_origins != ["*"])
    kept = status in (200, 304) and method in ("GET", "HEAD")
    cacheable = (f"public, max-age={max_age}, s-maxage={app.config['CACHE_SHARED_MAX_AGE']}, "
                 f"stale-while-revalidate={app.config['CACHE_STALE_WHILE_REVALIDATE']}, "
                 f"stale-if-error={app.config['CACHE_STALE_IF_ERROR']}") if named else f"public, max-age={max_age}"
    assert values(headers, "Cache-Control") == [cacheable if kept else "no-store"]
    if ("compressed" in answer or answer.startswith("200 of a URL")) and status == 200:
        assert values(headers, "Content-Encoding") == ["br"]


def assert_cors_of(headers, allowed):
    """``headers`` carry the CORS headers of an app's answer that allows ``allowed`` (None: none)."""
    assert values(headers, "Access-Control-Allow-Origin") == ([allowed] if allowed else [])
    if allowed:
        [exposed] = values(headers, "Access-Control-Expose-Headers")
        assert {v.strip().lower() for v in exposed.split(",")} >= EXPOSED
    else:
        assert [name for name, _ in headers if name.lower().startswith("access-control-")] == []


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
@pytest.mark.parametrize("answer", WAITRESS)
def test_waitress_errors_carry_each_header_once_and_the_cors_of_their_origin(app_with, tmp_path, monkeypatch,
                                                                           setting, answer):
    _, cors_origins, origin, allowed = setting
    with serving(make_app(app_with, "plain", cors_origins, tmp_path, monkeypatch)) as port:
        code, headers, body = exchange(port, WAITRESS[answer] % origin.encode())
    assert code == int(answer.split(",")[0].split()[-1])
    assert_one_of_each(headers)
    assert values(headers, "Content-Type") == ["application/json"]
    assert values(headers, "Cache-Control") == ["no-store"]
    assert_cors_of(headers, allowed)


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
def test_a_request_over_its_address_cap_behind_proxies_carries_the_cors_of_its_origin(app_with, keys, tmp_path,
                                                                                    monkeypatch, setting):
    """Behind a trusted proxy the cap counts each forwarded address's requests in progress: the
    429 comes once the headers are in, so its Origin is known."""
    _, cors_origins, origin, allowed = setting
    app = make_app(app_with, "plain", cors_origins, tmp_path, monkeypatch)
    entered, gate = threading.Event(), threading.Event()
    import app.views.news as news_view

    listed = news_view.list_news

    def held(*args, **kwargs):
        entered.set()
        gate.wait(10)
        return listed(*args, **kwargs)

    monkeypatch.setattr(news_view, "list_news", held)
    raw = (f"GET {API}/news HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\nOrigin: {origin}\r\n"
           "Connection: close\r\n\r\n").encode()
    with serving(app, connections_per_address=1, trusted_proxies=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as first:
            first.sendall(raw.replace(b"Connection: close\r\n", f"X-API-Key: {keys[BIG]}\r\nConnection: close\r\n".encode()))
            try:
                assert entered.wait(10)
                code, headers, _ = exchange(port, raw)
            finally:
                gate.set()
    assert code == 429
    assert_one_of_each(headers)
    assert values(headers, "Retry-After") == ["1"]
    assert_cors_of(headers, allowed)


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
def test_a_connection_over_its_address_cap_is_refused_with_the_cors_of_no_origin(app_with, tmp_path, monkeypatch,
                                                                                setting):
    """The 429 of a connection over CONNECTIONS_PER_ADDRESS is sent as it is accepted, before
    any of its bytes are read: it carries what an answer to no Origin carries, with any
    origin allowed "*" (a page can read it), with an allow-list none."""
    _, cors_origins, origin, _ = setting
    with serving(make_app(app_with, "plain", cors_origins, tmp_path, monkeypatch), connections_per_address=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            code, headers, body = exchange(port, f"GET {API}/news HTTP/1.1\r\nHost: x\r\nOrigin: {origin}\r\n\r\n"
                                           .encode())
    assert code == 429
    assert_one_of_each(headers)
    assert values(headers, "Retry-After") == ["1"] and values(headers, "Connection") == ["close"]
    assert_cors_of(headers, "*" if cors_origins == ["*"] else None)
    assert int(values(headers, "Content-Length")[0]) == len(body)


def test_a_refused_connection_whose_request_comes_after_the_answer_still_reads_the_answer(app_with, tmp_path,
                                                                                           monkeypatch):
    """The refusal goes out as the connection is accepted, often before the client's request
    arrives: a request that comes after it is read and dropped, not met with a reset that
    would overtake the 429 on the client's side; the client's close ends the connection."""
    with serving(make_app(app_with, "plain", ["*"], tmp_path, monkeypatch), connections_per_address=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            for _ in range(3):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                    chunks = []
                    while chunk := conn.recv(65536):  # the whole answer and its end, unasked
                        chunks.append(chunk)
                    assert b"".join(chunks).startswith(b"HTTP/1.1 429 ")
                    # a request sent now is read and dropped: neither its send nor a read
                    # after it meets a reset
                    conn.sendall(f"GET {API}/news HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                    time.sleep(0.2)
                    conn.sendall(b"more")
                    time.sleep(0.2)
                    assert conn.recv(65536) == b""
            code, _, _ = exchange(port, f"GET {API}/news HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert code == 429  # the first connection still holds the address's one place
        # once it is closed, nothing of the refused connections holds that place
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                code, _, _ = exchange(port, f"GET {API}/news HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                      .encode())
            except OSError:
                code = None
            if code == 401:  # the app's answer to no key: the connection was taken
                break
            time.sleep(0.05)
        assert code == 401


def test_a_refused_connection_left_open_is_closed_after_its_time(app_with, tmp_path, monkeypatch):
    """A refused client that never closes is closed by the server LINGER_SECONDS later: a send
    after that meets the reset of a closed connection."""
    from app.server import waitress_compat
    monkeypatch.setattr(waitress_compat, "LINGER_SECONDS", 0.3)
    with serving(make_app(app_with, "plain", ["*"], tmp_path, monkeypatch), connections_per_address=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                assert conn.recv(65536).startswith(b"HTTP/1.1 429 ")
                time.sleep(1.5)  # past the deadline and a turn of the loop
                with pytest.raises((BrokenPipeError, ConnectionResetError)):
                    for _ in range(20):
                        conn.sendall(b"x")
                        time.sleep(0.05)


def test_a_refused_connection_that_sends_without_pause_holds_neither_the_loop_nor_its_place(app_with, tmp_path,
                                                                                             monkeypatch):
    """A refused client that floods its connection: a connection already open is answered
    meanwhile as quickly as ever, and the flood's connection is closed after LINGER_SECONDS."""
    from app.server import waitress_compat
    monkeypatch.setattr(waitress_compat, "LINGER_SECONDS", 0.5)
    with serving(make_app(app_with, "plain", ["*"], tmp_path, monkeypatch), connections_per_address=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as kept:
            flood = socket.create_connection(("127.0.0.1", port), timeout=10)
            assert flood.recv(65536).startswith(b"HTTP/1.1 429 ")
            ended = threading.Event()

            def send_without_pause():
                try:
                    while True:
                        flood.sendall(b"x" * 65536)
                except OSError:
                    ended.set()

            threading.Thread(target=send_without_pause, daemon=True).start()
            time.sleep(0.2)
            started = time.monotonic()
            kept.sendall(f"GET {API}/news HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := kept.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 401 ") and time.monotonic() - started < 1
            assert ended.wait(5), "the flood's connection is still open"
            flood.close()


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
def test_headers_an_answer_already_has_are_made_once(app_with, setting):
    """An answer made elsewhere (Flask's, a view's) that brings its own Vary, Cache-Control or
    CORS header still leaves with one of each: its Vary names join the service's."""
    from app.door.headers import ApiHeaders

    _, cors_origins, origin, allowed = setting
    config = app_with(CORS_ORIGINS=cors_origins).config
    headers = ApiHeaders(config)
    own = [("Content-Type", "application/json"), ("vary", "Cookie, accept-encoding"),
           ("Cache-Control", "max-age=5"), ("Access-Control-Allow-Origin", "https://x.example"), ("Vary", "Cookie")]
    made = headers.finish({"REQUEST_METHOD": "GET", "HTTP_ORIGIN": origin}, 200, own, cacheable=True)
    assert_one_of_each(made)
    assert values(made, "Access-Control-Allow-Origin") == ([allowed] if allowed else [])
    vary = [token.strip() for token in values(made, "Vary")[0].split(",")]
    assert vary == ["X-API-Key", "Accept-Encoding"] + ([] if cors_origins == ["*"] else ["Origin"]) + ["Cookie"]
    assert values(made, "Cache-Control") == [f"public, max-age={config['CACHE_MAX_AGE']}"]


# --- Server-Timing (SERVER_TIMING; app/door/observation.py) ----------------------------------------

TIMING = re.compile(r"^(key|limit|cache|query|render);dur=\d+\.\d{3}(, (key|limit|cache|query|render);dur=\d+\.\d{3})*$")

# name: (method, path, headers, expected status, the steps named at least, in their order)
TIMED = {
    "200": ("GET", "/news", {"X-API-Key": "KEY"}, 200, ["key", "limit", "cache", "query", "render"]),
    "200 compressed": ("GET", "/programmes?subFestSlug=general&limit=50", {"X-API-Key": "KEY", "Accept-Encoding": "br"},
                       200, ["key", "limit", "cache", "query", "render"]),
    "cache hit": ("GET", "/news?limit=3", {"X-API-Key": "KEY"}, 200, ["key", "limit", "cache", "render"]),
    "304": ("GET", "/news", {"X-API-Key": "KEY", "If-None-Match": "ETAG"}, 304, ["key", "limit", "cache", "render"]),
    "HEAD": ("HEAD", "/news", {"X-API-Key": "KEY"}, 200, ["key", "cache", "render"]),
    "400": ("GET", "/news?limit=0", {"X-API-Key": "KEY"}, 400, ["key", "limit", "cache", "query"]),
    "401": ("GET", "/news", {}, 401, ["key", "render"]),
    "404 of a view": ("GET", "/programme-detail?programCode=NO-SUCH", {"X-API-Key": "KEY"}, 404,
                      ["key", "cache", "query"]),
    "404 of a path": ("GET", "/no-such-endpoint", {"X-API-Key": "KEY"}, 404, ["render"]),
    "429": ("GET", "/news?limit=4", {"X-API-Key": "KEY"}, 429, ["key", "limit", "render"]),
    "preflight": ("OPTIONS", "/news", PREFLIGHT, 200, ["render"]),
}


def steps_of(value):
    return [part.split(";")[0] for part in value.split(", ")]


@pytest.mark.parametrize("timed", [True, False], ids=["on", "off"])
@pytest.mark.parametrize("answer", TIMED)
def test_server_timing_is_sent_once_when_on_and_never_when_off(app_with, keys, timed, answer):
    method, path, wanted, status, steps = TIMED[answer]
    wanted = {name: keys[BIG] if value == "KEY" else value for name, value in wanted.items()}
    app = app_with(CORS_ORIGINS=[ORIGIN], SERVER_TIMING=timed, RESPONSE_CACHE_SECONDS=60,
                   RATELIMIT_DEFAULT="3 per minute" if answer == "429" else "1000 per minute")
    with serving(app) as port:
        if "If-None-Match" in wanted:
            _, first, _ = request(port, "GET", path, {**wanted, "If-None-Match": "-"})
            wanted["If-None-Match"] = values(first, "ETag")[0]
        if answer in ("cache hit", "429"):
            for _ in range(1 if answer == "cache hit" else 3):
                request(port, method, path, wanted)
        code, headers, body = request(port, method, path, {**wanted, "Origin": ORIGIN})
    assert code == status, (body, headers)
    assert_one_of_each(headers)
    found = values(headers, "Server-Timing")
    if not timed:
        assert found == [] and values(headers, "Timing-Allow-Origin") == []
        return
    [value] = found
    assert TIMING.match(value), value
    named = steps_of(value)
    assert named == [step for step in ("key", "limit", "cache", "query", "render") if step in named], value
    assert set(steps) <= set(named), value
    if method != "OPTIONS":
        assert values(headers, "Timing-Allow-Origin") == [ORIGIN]


def test_a_cache_hit_times_no_view_and_a_miss_does(app_with, keys):
    """On a miss the view's reads count to ``query``; on a hit only the revision's read does."""
    app = app_with(SERVER_TIMING=True, RESPONSE_CACHE_SECONDS=60)
    headers = {"X-API-Key": keys[BIG]}
    path = "/programmes?subFestSlug=general&limit=100"
    with serving(app) as port:
        timings = []
        for _ in range(5):
            _, miss, _ = request(port, "GET", path + f"&page={len(timings) + 1}", headers)
            _, hit, _ = request(port, "GET", path + f"&page={len(timings) + 1}", headers)
            timings.append([dict(part.split(";dur=") for part in values(h, "Server-Timing")[0].split(", "))
                            for h in (miss, hit)])
    assert all(m.keys() == h.keys() >= {"key", "cache", "query", "render"} for m, h in timings), timings
    median = sorted(float(m["query"]) - float(h["query"]) for m, h in timings)[2]
    assert median > 0, timings


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
def test_server_timing_is_exposed_to_the_origins_that_may_read_the_answer(app_with, keys, setting):
    _, cors_origins, origin, allowed = setting
    for timed in (True, False):
        with serving(app_with(CORS_ORIGINS=cors_origins, SERVER_TIMING=timed)) as port:
            _, headers, _ = request(port, "GET", "/news", {"X-API-Key": keys[BIG], "Origin": origin})
            _, preflight, _ = request(port, "OPTIONS", "/news", {**PREFLIGHT, "Origin": origin})
        assert_one_of_each(headers)
        assert_cors_of(headers, allowed)
        exposed = {v.strip().lower() for v in ",".join(values(headers, "Access-Control-Expose-Headers")).split(",")}
        assert ("server-timing" in exposed) == (timed and allowed is not None)
        assert values(headers, "Timing-Allow-Origin") == ([allowed] if timed and allowed else [])
        assert values(preflight, "Timing-Allow-Origin") == []
        assert (len(values(preflight, "Server-Timing")) == 1) == timed
