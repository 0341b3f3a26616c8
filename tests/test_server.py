"""waitress's own errors, answered before the app sees the request, in the one JSON shape."""
import contextlib
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import threading

import pytest

from app.server import create_server


@contextlib.contextmanager
def running(app, **settings):
    server = create_server(app, host="127.0.0.1", port=0, threads=1, **settings)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        server.close()
        thread.join(timeout=5)


def exchange(port, raw):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(raw)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize("raw, status", [
    (b"GET /public-api/v1/news\xff HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"G\xffT /public-api/v1/news HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /public-api/v1/news?" + b"a" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 431),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 3000 + b"\r\n\r\n", 431),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
])
def test_waitress_errors_are_json(app, raw, status):
    with running(app, max_request_header_size=2048, max_request_body_size=1024) as port:
        code, headers, body = exchange(port, raw)
    assert code == status
    assert headers["Content-Type"] == "application/json"
    payload = json.loads(body)
    assert set(payload) == {"code", "status", "message"} and payload["code"] == status
    assert b"news" not in body and b"aaa" not in body  # nothing of the request is echoed


def test_requests_still_reach_the_app(app, keys):
    with running(app) as port:
        code, headers, body = exchange(port, b"GET /public-api/v1/news?limit=1 HTTP/1.1\r\nHost: x\r\n"
                                             b"X-API-Key: " + keys["kalolsavam-2026"].encode() + b"\r\n"
                                             b"Connection: close\r\n\r\n")
    assert code == 200 and len(json.loads(body)["data"]) == 1


def test_a_304_keeps_the_connection_open(app, keys):
    """Revalidations on one keep-alive connection: waitress alone closes it after each 304."""
    import http.client

    with running(app) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        headers = {"X-API-Key": keys["kalolsavam-2026"]}
        connection.request("GET", "/public-api/v1/news?limit=1", headers=headers)
        first = connection.getresponse()
        first.read()
        etag = first.getheader("ETag")
        statuses = []
        for _ in range(3):
            connection.request("GET", "/public-api/v1/news?limit=1", headers={**headers, "If-None-Match": etag})
            response = connection.getresponse()
            response.read()
            statuses.append((response.status, response.getheader("Connection")))
        sock = connection.sock
        connection.request("GET", "/public-api/v1/news?limit=1", headers=headers)
        assert connection.sock is sock, "the 304s closed the connection"
        assert connection.getresponse().status == 200
        connection.close()
    assert statuses == [(304, None)] * 3


def test_idle_workers_are_woken_last_in_first_out():
    from app.server import LastInFirstOut

    condition, woken = LastInFirstOut(), []

    def worker(name):
        with condition:
            condition.wait()
            woken.append(name)

    threads = []
    for name in ("first", "second", "third"):
        thread = threading.Thread(target=worker, args=(name,))
        thread.start()
        threads.append(thread)
        while True:  # each waits before the next starts
            with condition:
                if len(condition._waiters) == len(threads):
                    break
    for expected in (["third"], ["third", "second"], ["third", "second", "first"]):
        with condition:
            condition.notify()
        threads[3 - len(expected)].join(timeout=5)
        assert woken == expected


@contextlib.contextmanager
def not_running(app, **settings):
    """The server, listening but its loop not turning (a test turns it), and closed after."""
    server = create_server(app, host="127.0.0.1", port=0, **settings)
    clients = []
    try:
        yield server, clients
    finally:
        for client in clients:
            client.close()
        server.close()
        server.task_dispatcher.shutdown()


def connect(server, clients, count):
    clients += [socket.create_connection(("127.0.0.1", server.effective_port), timeout=5) for _ in range(count)]


def test_the_servers_workers_wait_on_the_last_in_first_out_condition(app):
    from app.server import LastInFirstOut

    with not_running(app, threads=2) as (server, _):
        dispatcher = server.task_dispatcher
        assert isinstance(dispatcher.queue_cv, LastInFirstOut) and dispatcher.queue_cv._lock is dispatcher.lock


def test_the_connections_waiting_are_accepted_in_one_turn_of_the_loop(app):
    from app.server import ACCEPT_AT_ONCE

    with not_running(app, threads=1, connection_limit=100) as (server, clients):
        opened = len(server._map)
        connect(server, clients, ACCEPT_AT_ONCE + 10)
        server.handle_accept()  # one turn: waitress alone accepts one
        assert len(server._map) - opened == ACCEPT_AT_ONCE
        server.handle_accept()
        assert len(server._map) - opened == ACCEPT_AT_ONCE + 10
        server.handle_accept()  # none waits: nothing happens
        assert len(server._map) - opened == ACCEPT_AT_ONCE + 10


def test_no_more_connections_are_accepted_in_a_turn_than_the_limit_allows(app):
    with not_running(app, threads=1, connection_limit=10) as (server, clients):
        connect(server, clients, 20)
        server.handle_accept()
        assert len(server._map) == 10


# In a thread of its own (as a worker), a 4 MB block freed and made again ten times: the
# page faults its thread took for the ten.
MALLOC_SCRIPT = """
import resource, sys, threading
from app.server import keep_freed_memory
kept = keep_freed_memory() if sys.argv[1] == "keep" else None
faults = []
def work():
    block = bytearray(4 * 2**20)
    del block
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    for _ in range(10):
        block = bytearray(4 * 2**20)
        del block
    faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
thread = threading.Thread(target=work)
thread.start()
thread.join()
print(kept, faults[0])
"""


def malloc_run(mode, **env):
    done = subprocess.run([sys.executable, "-c", MALLOC_SCRIPT, mode], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          env={**os.environ, **env})
    kept, faults = done.stdout.split()
    return kept, int(faults)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc" or not hasattr(resource, "RUSAGE_THREAD"),
                    reason="glibc's malloc and per-thread page faults (Linux)")
def test_served_processes_keep_freed_memory_for_the_next_request_unless_glibc_tunables_say_otherwise():
    kept, faults = malloc_run("keep", GLIBC_TUNABLES="")
    assert kept == "True" and faults < 100, faults
    # By default glibc maps a block this large on its own and unmaps it when freed: each new
    # one faults its pages in again.
    assert malloc_run("default", GLIBC_TUNABLES="")[1] > 500
    # The operator's own malloc settings win.
    kept, faults = malloc_run("keep", GLIBC_TUNABLES="glibc.malloc.perturb=0")
    assert kept == "False" and faults > 500
