"""Real-server fault tests: `festival-api serve` (waitress) on a loopback port, on a copy of
the seeded database, with real PostgreSQL and Redis where a test needs them and ``socat``
proxies that are paused (SIGSTOP) to make a dependency hang.

A test skips when what it needs is absent (PostgreSQL tests run in the suite's PostgreSQL
run, ``TEST_DATABASE_URL``; Redis on 127.0.0.1:6379; ``socat``; ``nginx``); CI has them all
and names the tests that must not skip (``.ci/run``). Every wait is bounded.
"""
import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from conftest import API, ON_POSTGRES, database_copy, stop_processes
from test_multiprocess import festival_api, free_port

START_SECONDS = 30
REDIS = ("127.0.0.1", 6379)


@dataclass
class Answer:
    status: int
    headers: dict  # by lower-case name
    body: bytes
    seconds: float

    def json(self):
        import json

        return json.loads(self.body)


def request(port, path, key=None, headers=None, timeout=5.0, source=None, method="GET", host="127.0.0.1"):
    """One request on a new connection: an :class:`Answer` (``seconds`` from connect to body)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=timeout,
                                            source_address=(source, 0) if source else None)
    try:
        sent = dict(headers or {})
        if key:
            sent["X-API-Key"] = key
        connection.request(method, path, headers=sent)
        response = connection.getresponse()
        body = response.read()
        return Answer(response.status, {name.lower(): value for name, value in response.getheaders()}, body,
                      time.monotonic() - started)
    finally:
        connection.close()


@dataclass
class Server:
    """A running `festival-api serve`."""

    port: int
    process: subprocess.Popen
    log_path: Path
    env: dict = field(default_factory=dict)

    def get(self, path, key=None, **kwargs):
        return request(self.port, path if path.startswith("/healthz") else API + path, key, **kwargs)

    def log(self):
        return self.log_path.read_text(errors="replace")


def start_server(url, log_path, threads=4, **settings):
    """`festival-api serve` on ``url`` with these settings (besides the tests' defaults), its
    output in ``log_path``: a :class:`Server` answering ``/healthz``, or the test fails (the
    process is stopped)."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "RESPONSE_CACHE_SECONDS": "0", "API_KEY_CACHE_SECONDS": "0",
           "RATELIMIT_DEFAULT": "", **{name: str(value) for name, value in settings.items()}}
    with open(log_path, "wb") as out:
        process = subprocess.Popen(
            festival_api() + ["serve", "--host", "127.0.0.1", "--port", str(port), "--threads", str(threads)],
            env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(port, process, log_path, env)
    deadline = time.monotonic() + START_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"serve exited with {process.returncode}:\n{server.log()[-3000:]}")
        with contextlib.suppress(OSError):
            if request(port, "/healthz", timeout=2).status == 200:
                return server
        if time.monotonic() > deadline:
            stop_processes(process)
            pytest.fail(f"serve did not answer within {START_SECONDS}s:\n{server.log()[-3000:]}")
        time.sleep(0.1)


@pytest.fixture
def serve(tmp_path):
    """``serve(database_url, **environment) -> Server``: started, answering ``/healthz``;
    stopped after the test."""
    started = []

    def start(url, threads=4, **settings):
        server = start_server(url, tmp_path / f"serve-{len(started)}.log", threads, **settings)
        started.append(server)
        return server

    yield start
    for server in started:
        stop_processes(server.process)


@pytest.fixture
def database(seeded, tmp_path):
    """The URL of a private copy of the seeded database (the suite's engine)."""
    with database_copy(seeded[0], tmp_path) as url:
        yield url


@pytest.fixture
def sqlite_database(database):
    if ON_POSTGRES:
        pytest.skip("a fault of a SQLite file")
    return database


@pytest.fixture
def postgres_database(database):
    if not ON_POSTGRES:
        pytest.skip("PostgreSQL faults run in the suite's PostgreSQL run (TEST_DATABASE_URL, see .ci/run)")
    return database


class Proxy:
    """A ``socat`` TCP proxy on a loopback port; ``pause()`` makes whatever is behind it hang."""

    def __init__(self, target_host, target_port):
        self.port = free_port()
        # Its own process group: socat forks a child per connection, and every one must stop.
        self.process = subprocess.Popen(
            ["socat", f"TCP-LISTEN:{self.port},bind=127.0.0.1,reuseaddr,fork",
             f"TCP:{target_host}:{target_port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("socat did not start")
            time.sleep(0.05)

    def _signal(self, sig):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def pause(self):
        self._signal(signal.SIGSTOP)

    def resume(self):
        self._signal(signal.SIGCONT)

    def close(self):
        self.resume()
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.process.wait(timeout=5)


@pytest.fixture
def proxy():
    """``proxy(host, port) -> Proxy``, closed after the test."""
    if shutil.which("socat") is None:
        pytest.skip("socat is needed to make a dependency hang")
    proxies = []

    def start(host, port):
        proxies.append(Proxy(host, port))
        return proxies[-1]

    yield start
    for item in proxies:
        item.close()


def through(url, proxy_port):
    """``url`` (a database or Redis URL) pointing at ``127.0.0.1:proxy_port`` instead."""
    parsed = urlparse(url)
    credentials = parsed.netloc.rpartition("@")[0]
    netloc = f"{credentials}@127.0.0.1:{proxy_port}" if credentials else f"127.0.0.1:{proxy_port}"
    return urlunparse(parsed._replace(netloc=netloc))


def target(url):
    parsed = urlparse(url)
    return parsed.hostname or "127.0.0.1", parsed.port or 5432


@pytest.fixture
def redis_server():
    """``(host, port)`` of the local Redis; skips without one."""
    try:
        with socket.create_connection(REDIS, timeout=0.5):
            return REDIS
    except OSError:
        pytest.skip("no Redis on 127.0.0.1:6379")
