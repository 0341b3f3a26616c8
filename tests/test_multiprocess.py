"""Several `festival-api serve` processes on one database (docs/deployment.md, docs/nginx.conf.example).

Two real server processes on loopback ports share one database (the SQLite file, or the
PostgreSQL database when TEST_DATABASE_URL is set). They answer identically, and after
`festival-api import` of a changed festival file both serve the new data, with the new
revision in `context`, on the very next request — with the response cache switched ON
(a long RESPONSE_CACHE_SECONDS), because the cache keys on the data revision.
"""
import contextlib
import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import API, SMALL
from fixture_rules import visible_news

START_TIMEOUT = 30
REQUEST_TIMEOUT = 10
PATHS = ["/subfests", "/news", "/downloads", "/gallery", "/news?limit=2&page=2", "/downloads?search=rules"]
NEW_TITLE = "Results of day one are out"


def festival_api():
    """The `festival-api` console script of this environment (or the module behind it)."""
    script = Path(sys.executable).with_name("festival-api")
    found = str(script) if script.exists() else shutil.which("festival-api")
    return [found] if found else [sys.executable, "-m", "app.cli"]


def free_port():
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_env(url):
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": url,
        "DATABASE_READONLY": "true",
        # The caches stay on, and long: an import must still show on the next request.
        "RESPONSE_CACHE_SECONDS": "60",
        "API_KEY_CACHE_SECONDS": "60",
    })
    return env


def fetch(port, path, key):
    """``(status, ETag, body bytes)`` of one GET."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{API}{path}", headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return response.status, response.headers.get("ETag"), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("ETag"), error.read()


def wait_until_serving(process, port, key, log):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server on port {port} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if fetch(port, "/subfests", key)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    pytest.fail(f"server on port {port} did not answer within {START_TIMEOUT}s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def servers(url, key, tmp_path, count=2):
    """Start ``count`` `festival-api serve` processes on ``url``; yield their ports; stop them."""
    processes = []
    try:
        for i in range(count):
            port = free_port()
            log = tmp_path / f"serve-{i}.log"
            with open(log, "wb") as out:
                process = subprocess.Popen(
                    festival_api() + ["serve", "--host", "127.0.0.1", "--port", str(port), "--threads", "4"],
                    env=process_env(url), stdout=out, stderr=subprocess.STDOUT)
            processes.append((process, port, log))
        for process, port, log in processes:
            wait_until_serving(process, port, key, log)
        yield [port for _, port, _ in processes]
    finally:
        for process, _, _ in processes:
            process.terminate()
        for process, _, _ in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def answers(ports, key):
    """Every port's answer to every path, with the JSON bodies parsed."""
    result = {}
    for port in ports:
        for path in PATHS:
            status, etag, body = fetch(port, path, key)
            result[port, path] = (status, etag, json.loads(body))
    return result


def test_two_processes_answer_alike_and_both_see_an_import(fresh_app, keys, fixture_data, tmp_path):
    _, url = fresh_app
    key = keys[SMALL]
    changed = copy.deepcopy(fixture_data[SMALL])
    visible_news(changed)[0]["title"] = NEW_TITLE  # visible by the servers' real clock

    with servers(url, key, tmp_path) as ports:
        before = answers(ports, key)
        again = answers(ports, key)  # the second round comes from the response cache
        assert before == again
        for path in PATHS:
            first, second = (before[port, path] for port in ports)
            assert first[0] == 200, first
            assert first == second, path  # same status, ETag and body from both processes
        revision = before[ports[0], "/news"][2]["context"]["data"]["revision"]
        assert all(b[2]["context"]["data"]["revision"] == revision for b in before.values())
        assert NEW_TITLE not in {n["title"] for n in before[ports[0], "/news"][2]["data"]}

        path = tmp_path / "changed.json"
        path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
        imported = subprocess.run(festival_api() + ["import", str(path)], env=process_env(url),
                                  capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr

        after = answers(ports, key)
        for port in ports:
            body = after[port, "/news"][2]
            assert body["context"]["data"]["revision"] == revision + 1
            assert NEW_TITLE in {n["title"] for n in body["data"]}
            assert all(a[2]["context"]["data"]["revision"] == revision + 1
                       for (p, _), a in after.items() if p == port)
        for path in PATHS:
            assert after[ports[0], path] == after[ports[1], path], path
