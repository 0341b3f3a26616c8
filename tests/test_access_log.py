"""One JSON access-log line per request, with the key's id but never the key or query values;
errors logged with their traceback on the server only."""
import io
import json
import logging
import os
import signal
import subprocess
import sys
import threading

import pytest

from app.door.access_log import ACCESS_LOGGER, MAX_HELD, JsonFormatter
from conftest import API, BIG
from custom_apps import app_with  # noqa: F401  (fixture)
from db.source.keys import find_active_key


@pytest.fixture
def capture_log():
    """``read = capture_log(name)``: ``read()`` gives the lines logger ``name`` wrote since, as JSON."""
    attached = []

    def capture(name):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(JsonFormatter())
        logging.getLogger(name).addHandler(handler)
        attached.append((name, handler))
        return lambda: [json.loads(line) for line in stream.getvalue().splitlines()]

    yield capture
    for name, handler in attached:
        logging.getLogger(name).removeHandler(handler)


def test_one_line_per_request_with_the_key_id_not_the_key(api, keys, capture_log):
    access_lines = capture_log(ACCESS_LOGGER)
    response = api.get("/news", limit=5, utm_source="C-1234-SECRET")  # a value never logged
    assert response.status_code == 200
    [line] = access_lines()
    key_id, _ = find_active_key(keys[BIG])
    assert line["method"] == "GET" and line["path"] == f"{API}/news" and line["status"] == 200
    assert line["festival"] == BIG
    assert line["key_id"] == str(key_id)
    assert line["query"] == ["limit", "utm_source"]
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["time"].endswith("Z")
    assert line["bytes"] == len(response.data)
    text = json.dumps(line)
    assert keys[BIG] not in text and keys[BIG][4:] not in text
    assert "C-1234-SECRET" not in text


def test_a_refused_key_is_logged_without_the_key(api, capture_log):
    access_lines = capture_log(ACCESS_LOGGER)
    api.get("/news", key="fds_a-wrong-key-that-must-not-be-logged")
    [line] = access_lines()
    assert line["status"] == 401 and line["key_id"] is None and line["festival"] is None
    assert "must-not-be-logged" not in json.dumps(line)


def test_an_unexpected_error_is_logged_with_traceback_but_answered_generically(app, api, monkeypatch, capture_log):
    import app.views.news as news_view

    def explode(*args, **kwargs):
        raise RuntimeError("boom in list_news")

    monkeypatch.setattr(news_view, "list_news", explode)
    error_lines, access_lines = capture_log(app.logger.name), capture_log(ACCESS_LOGGER)
    response = api.get("/news")
    assert response.status_code == 500
    assert response.get_json()["message"] == "Internal server error."
    assert "boom" not in response.get_data(as_text=True)
    [error] = error_lines()
    assert error["level"] == "ERROR" and f"{API}/news" in error["message"]
    assert "Traceback" in error["traceback"] and "RuntimeError: boom in list_news" in error["traceback"]
    [access] = access_lines()
    assert access["status"] == 500 and access["festival"] == BIG


def test_as_configured_the_access_line_is_written_to_stderr_with_the_fields_of_the_logged_one(api, capsys, capture_log):
    api.get("/news", limit=5)  # made once: the next two are answered alike, from the cache
    capsys.readouterr()
    api.get("/news", limit=5)
    [written] = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    access_lines = capture_log(ACCESS_LOGGER)
    api.get("/news", limit=5)
    [logged] = access_lines()
    assert written.keys() == logged.keys()
    assert {**written, "time": None, "duration_ms": None} == {**logged, "time": None, "duration_ms": None}
    assert written["logger"] == ACCESS_LOGGER and written["status"] == 200 and written["query"] == ["limit"]
    assert len(written["time"]) == len("2026-11-24T19:40:41.123Z") and written["time"].endswith("Z")


def test_the_access_line_is_the_same_with_server_timing_on(app_with, keys, capture_log):
    """``SERVER_TIMING`` adds a header; the access line, made from the same observation, keeps
    its fields."""
    access_lines = capture_log(ACCESS_LOGGER)
    for timed in (False, True):
        client = app_with(SERVER_TIMING=timed).test_client()
        for _ in range(2):
            assert client.get(f"{API}/news?limit=5", headers={"X-API-Key": keys[BIG]}).status_code == 200
        assert client.get(f"{API}/news", headers={"X-API-Key": "fds_wrong"}).status_code == 401
    lines = access_lines()
    assert len(lines) == 6
    assert all(list(line) == ["time", "level", "logger", "method", "path", "query", "status", "duration_ms", "festival", "key_id",
                              "bytes", "cache"] for line in lines)
    same = [{**line, "time": None, "duration_ms": None} for line in lines]
    assert same[:3] == same[3:]


def test_the_access_lines_clock_writes_the_time_datetime_writes():
    import random

    from app.door.access_log import _CLOCK, _iso

    edges = [1700000000.0, 1700000000.123, 1700000000.9995, 1700000000.9999996, 1700000001.5]
    rng = random.Random(14)
    moments = edges + [rng.uniform(1.6e9, 1.9e9) for _ in range(20_000)]
    assert [_CLOCK.iso(t) for t in moments] == [_iso(t) for t in moments]


HELD_LINES_SCRIPT = r"""
import os, signal, sys, time
from flask import Flask
from app.door.access_log import MAX_HELD, hold_observation, init_access_log, log_request, write_held
from app.door.observation import Observation
from app.server import write_held_lines_on_sigterm

app = Flask("held")
app.config["LOG_LEVEL"] = "INFO"
init_access_log(app)

def line(number, held=True):
    log_request(method="GET", path=f"/{number}", query=[], status=200, started=None, festival=None,
                key_id=None, size=0, cache=None, held=held)

def mark(text):
    os.write(2, text.encode() + b"\n")

line(1); line(2)
mark("after two held")
write_held()                      # the server has no request waiting
mark("after write_held")
for number in range(3, 3 + MAX_HELD):
    line(number)                  # the MAX_HELD-th goes out with the others
mark("after MAX_HELD")
line(100); line(101, held=False)  # a line not held goes out after the held ones
mark("after one not held")
seen = Observation()              # an answer made, not yet sent: its place is kept,
seen.method, seen.path, seen.query, seen.status, seen.size = "GET", "/103", [("chestNo", "1")], 200, 5
hold_observation(seen)
line(104, held=False)             # so a request sent once it was answered is logged after it
mark("after a held observation")
line(102)
write_held_lines_on_sigterm()
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(5)
mark("SIGTERM did not end the process")
"""


def test_held_access_lines_go_out_in_order_when_the_server_idles_when_many_wait_and_on_sigterm():
    done = subprocess.run([sys.executable, "-c", HELD_LINES_SCRIPT], capture_output=True, text=True, timeout=60,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == -signal.SIGTERM, done.stderr
    out = [line if not line.startswith("{") else json.loads(line)["path"] for line in done.stderr.splitlines()]
    held = [f"/{number}" for number in range(3, 3 + MAX_HELD)]
    assert out == ["after two held", "/1", "/2", "after write_held", *held, "after MAX_HELD",
                   "/100", "/101", "after one not held", "/103", "/104", "after a held observation", "/102"]


def test_the_held_lines_can_be_written_from_a_signal_caught_while_they_are_held():
    # SIGTERM's handler runs in the main thread between two bytecodes: maybe while the main
    # thread holds the lines' lock. A plain lock would hang the process there.
    from app.door import access_log

    held = access_log._HeldLines()
    done = threading.Event()

    def handler():
        with held._lock:  # the signal arrived inside hold() or write()
            held.hold(b"")
            done.set()

    thread = threading.Thread(target=handler, daemon=True)
    thread.start()
    thread.join(timeout=2)
    assert done.is_set()
