"""waitress's own errors, answered before the app sees the request, in the one JSON shape."""
import contextlib
import json
import math
import os
import platform
import resource
import socket
import subprocess
import sys
import threading
import time

import pytest
from conftest import BIG
from on_the_wire import exchange, serving

from app.server import create_server


def test_closing_the_server_ends_its_loop_at_once_not_when_its_wait_ends(app):
    # The loop waits on epoll up to asyncore_loop_timeout; a closed socket does not wake it.
    server = create_server(app, host="127.0.0.1", port=0, threads=1, asyncore_loop_timeout=30)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    code, _, _ = exchange(server.effective_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert code == 200
    server.close()
    thread.join(timeout=5)
    assert not thread.is_alive()


@pytest.mark.parametrize("raw, status", [
    (b"GET /public-api/v1/news\xff HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"G\xffT /public-api/v1/news HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"GET /public-api/v1/news?" + b"a" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 431),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 3000 + b"\r\n\r\n", 431),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413),
    (b"GET /public-api/v1/news HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
])
def test_waitress_errors_are_json(app, raw, status):
    with serving(app, threads=1, max_request_header_size=2048, max_request_body_size=1024) as port:
        code, headers, body = exchange(port, raw)
    assert code == status
    assert dict(headers)["Content-Type"] == "application/json"
    payload = json.loads(body)
    assert set(payload) == {"code", "status", "message"} and payload["code"] == status
    assert b"news" not in body and b"aaa" not in body  # nothing of the request is echoed


def test_requests_still_reach_the_app(app, keys):
    with serving(app, threads=1) as port:
        code, headers, body = exchange(port, b"GET /public-api/v1/news?limit=1 HTTP/1.1\r\nHost: x\r\n"
                                             b"X-API-Key: " + keys["kalolsavam-2026"].encode() + b"\r\n"
                                             b"Connection: close\r\n\r\n")
    assert code == 200 and len(json.loads(body)["data"]) == 1


def test_a_304_keeps_the_connection_open(app, keys):
    """Revalidations on one keep-alive connection: waitress alone closes it after each 304."""
    import http.client

    with serving(app, threads=1) as port:
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
    from app.server.wake_order import LastInFirstOut

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
    from app.server.wake_order import LastInFirstOut

    with not_running(app, threads=2) as (server, _):
        dispatcher = server.task_dispatcher
        assert isinstance(dispatcher.queue_cv, LastInFirstOut) and dispatcher.queue_cv._lock is dispatcher.lock


def test_the_connections_waiting_are_accepted_in_one_turn_of_the_loop(app):
    from app.server.waitress_compat import ACCEPT_AT_ONCE

    with not_running(app, threads=1, connection_limit=ACCEPT_AT_ONCE + 100) as (server, clients):
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


# An app made and warmed as `festival-api serve` makes it, then left out of the collector's passes:
# how many objects the collector held, how many were frozen, and the objects a full pass after
# a request walks (gc.get_objects() leaves the frozen ones out).
FROZEN_SCRIPT = """
import gc, json, sys
from app import create_app
from app.server import leave_startup_to_itself
app = create_app({"DATABASE_URL": sys.argv[1], "DATABASE_READONLY": True, "RATELIMIT_DEFAULT": ""})
app.extensions["front_door"].database.warm()
assert app.test_client().get("/public-api/v1/news", headers={"X-API-Key": sys.argv[2]}).status_code == 200
before = len(gc.get_objects())
frozen = leave_startup_to_itself()
app.test_client().get("/public-api/v1/news", headers={"X-API-Key": sys.argv[2]})
print(json.dumps({"before": before, "frozen": frozen, "walked": len(gc.get_objects())}))
"""


def test_what_a_served_process_starts_with_is_left_out_of_the_collectors_passes(seeded, keys):
    done = subprocess.run([sys.executable, "-c", FROZEN_SCRIPT, seeded[0], keys[BIG]], capture_output=True,
                          text=True, check=True, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    counts = json.loads(done.stdout)
    assert counts["frozen"] > 20_000 and counts["frozen"] >= 0.9 * counts["before"], counts
    assert counts["walked"] < 0.1 * counts["before"], counts


class CountingSocket(socket.socket):
    """A socket that keeps ``(call, bytes given)`` of each system call that sends, and
    ``taken``, the bytes each took."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sends, self.taken = [], []

    def send(self, data, *args):
        self.sends.append(("send", len(data)))
        self.taken.append(super().send(data, *args))
        return self.taken[-1]

    def sendmsg(self, buffers, *args):
        self.sends.append(("sendmsg", sum(len(b) for b in buffers)))
        self.taken.append(super().sendmsg(buffers, *args))
        return self.taken[-1]


class LoopStandIn:
    """What a channel needs of its server: the trigger that wakes the server's loop."""

    def __init__(self):
        self.triggers = 0
        self.active_channels = {}

    def pull_trigger(self):
        self.triggers += 1


@contextlib.contextmanager
def channel_on_a_socket_pair(send_buffer=None):
    from waitress.adjustments import Adjustments

    from app.server.waitress_compat import JsonErrorChannel

    ours, theirs = socket.socketpair()
    if send_buffer:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    sock = CountingSocket(fileno=ours.detach())
    sock.setblocking(False)
    loop = LoopStandIn()
    channel = JsonErrorChannel(loop, sock, ("127.0.0.1", 1), Adjustments(), map={})
    try:
        yield channel, sock, loop, theirs
    finally:
        channel.close()
        theirs.close()


def received(sock, size, channel=None):
    """``size`` bytes read from ``sock``; with ``channel``, the server loop's part played
    before each read: the channel sends what it holds as far as the socket takes it."""
    data = b""
    sock.settimeout(5)
    while len(data) < size:
        if channel is not None:
            channel.handle_write()
        data += sock.recv(1 << 20)
    return data


def test_an_answer_goes_out_with_its_head_in_one_system_call():
    head, body = b"HTTP/1.1 200 OK\r\nContent-Length: 73000\r\n\r\n", bytes(range(256)) * 285 + b"x" * 40
    with channel_on_a_socket_pair() as (channel, sock, loop, client):
        channel.write_answer(head, body)
        assert sock.sends == [("sendmsg", len(head) + len(body))]
        assert channel.total_outbufs_len == 0 and loop.triggers == 0  # nothing left for the loop
        assert received(client, len(head) + len(body)) == head + body


def test_what_the_socket_does_not_take_at_once_is_sent_by_the_servers_loop_in_order():
    head, body = b"HTTP/1.1 200 OK\r\n\r\n", os.urandom(2_000_000)
    with channel_on_a_socket_pair(send_buffer=4096) as (channel, sock, loop, client):
        channel.write_answer(head, body)
        # One sendmsg of the whole answer; waitress's write of the rest may try once more.
        assert sock.sends[0] == ("sendmsg", len(head) + len(body))
        assert [kind for kind, _ in sock.sends[1:]] in ([], ["send"])
        assert channel.total_outbufs_len == len(head) + len(body) - sum(sock.taken) > 0
        assert loop.triggers == 1  # the loop was woken to send the rest
        assert received(client, len(head) + len(body), channel) == head + body
        assert channel.total_outbufs_len == 0


def test_an_answer_waits_behind_what_the_connection_has_not_sent_yet():
    head, body = b"HTTP/1.1 200 OK\r\n\r\n", b"second"
    with channel_on_a_socket_pair(send_buffer=4096) as (channel, sock, loop, client):
        first = os.urandom(1_000_000)
        channel.write_soon(first)  # waitress's own write, not all of it taken
        assert channel.total_outbufs_len > 0
        channel.write_answer(head, body)
        assert "sendmsg" not in {kind for kind, _ in sock.sends}
        assert received(client, len(first) + len(head) + len(body), channel) == first + head + body


def test_large_answers_arrive_whole_through_the_server_to_a_reader_that_waits(app, keys):
    """A client that reads late, on a small receive window: the server's first send takes
    part of the answer and its loop sends the rest; every answer arrives whole, in order."""
    import http.client
    import time

    path = "/public-api/v1/programme-results?subFestSlug=general&limit=100"
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)  # its connections' too
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = create_server(app, sockets=[listener], threads=1)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", listener.getsockname()[1], timeout=10)
        connection.connect()
        connection.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        bodies = []
        for _ in range(3):  # one keep-alive connection: each answer follows the one before
            connection.request("GET", path, headers={"X-API-Key": keys["kalolsavam-2026"]})
            time.sleep(0.2)  # the answer waits, more of it than the socket holds
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200 and len(body) == int(response.getheader("Content-Length"))
            bodies.append(body)
        connection.close()
    finally:
        server.close()
        thread.join(timeout=5)
    assert len(json.loads(bodies[0])["data"]) > 20 and len(bodies[0]) > 200_000
    assert bodies[1] == bodies[0] and bodies[2] == bodies[0]


def test_a_closed_connection_is_freed_at_once_not_left_to_the_garbage_collector(app, keys):
    """Connections that were answered (a right key, a wrong one, ``/healthz``, a request
    waitress refuses), kept alive or closed, or that sent nothing: each is freed by reference
    counting once closed. In a reference cycle, a flood of connections waits for the
    collector's full pass, which holds the interpreter, every thread's requests, for as long
    as it walks the heap (bench/attacks.py's key guesser)."""
    import gc

    from app.server.waitress_compat import JsonErrorChannel

    def live():
        return sum(isinstance(thing, JsonErrorChannel) for thing in gc.get_objects())

    key = keys[BIG].encode()
    asked = [b"GET /public-api/v1/news?limit=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: " + key + b"\r\n",
             b"GET /public-api/v1/news?limit=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: fds_wrong\r\n",
             b"GET /healthz HTTP/1.1\r\nHost: x\r\n",
             b"GET /public-api/v1/news\xff HTTP/1.1\r\nHost: x\r\n"]
    gc.collect()
    gc.disable()  # what a cycle holds stays until the pass below
    try:
        # Short deadlines: the loop's heap lets go of a closed connection at its deadline.
        with serving(app, threads=2, header_timeout=1, channel_timeout=1, send_timeout=1) as port:
            before = live()
            for head in asked * 5:
                exchange(port, head + b"Connection: close\r\n\r\n")
                with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:  # kept alive
                    conn.sendall(head + b"\r\n")
                    conn.recv(65536)
            for _ in range(5):
                socket.create_connection(("127.0.0.1", port), timeout=10).close()  # silent
            # The last connection each thread served (2 workers, /healthz's, the loop) may be
            # held by its variables until the next.
            deadline = time.monotonic() + 6
            while live() > before + 4 and time.monotonic() < deadline:
                time.sleep(0.1)
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                in_cycles = sum(isinstance(thing, JsonErrorChannel) for thing in gc.garbage)
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
    finally:
        gc.enable()
    assert in_cycles == 0, f"{in_cycles} of 45 closed connections freed only by the garbage collector"


def test_requests_are_taken_in_turn_by_address_each_address_within_its_share_of_threads():
    from app.server.waitress_compat import FairQueue

    queue = FairQueue(share=2)
    for n in range(4):
        queue.append(f"a{n}", "A")  # one address queues four requests, then two others one each
    queue.append("b0", "B")
    queue.append("c0", "C")
    # A's first, then the others before A's second: an address whose request was taken waits
    # behind every other.
    assert [queue.take() for _ in range(4)] == [("a0", "A"), ("b0", "B"), ("c0", "C"), ("a1", "A")]
    # A holds its share (2 of the threads): its next waits, though threads may be idle.
    assert len(queue) == 2 and not queue.ready()
    with pytest.raises(IndexError):
        queue.take()
    queue.done("A")
    assert queue.ready() and queue.take() == ("a2", "A")


class Served:
    """A request standing in for a connection's: which thread served it, and what it queues."""

    def __init__(self, dispatcher, served, then=None):
        self.dispatcher, self.served, self.then = dispatcher, served, then
        self.done = threading.Event()

    def service(self):
        self.served.append(threading.get_ident())
        if self.then is not None:
            self.dispatcher.add_task(self.then)  # its connection's next request, read meanwhile
        self.done.set()


def test_a_worker_takes_its_connections_next_request_itself_when_none_other_waits():
    from app.server.waitress_compat import HealthFirstDispatcher

    dispatcher = HealthFirstDispatcher(threads=2)
    woken = []
    notify = dispatcher.queue_cv.notify
    dispatcher.queue_cv.notify = lambda n=1: (woken.append(n), notify(n))
    try:
        dispatcher.set_thread_count(2)
        served = []
        second = Served(dispatcher, served)
        dispatcher.add_task(Served(dispatcher, served, then=second))
        assert second.done.wait(5)
        assert served[0] == served[1] and woken == [1]  # one thread, woken once (for the first)
    finally:
        dispatcher.shutdown()


class DispatchStandIn(LoopStandIn):
    """What a channel needs of its server, keeping the connections given to the workers."""

    def __init__(self):
        super().__init__()
        self.given = []

    def add_task(self, channel):
        self.given.append(channel)


def test_a_connection_has_at_most_its_pipeline_depth_of_requests_read_the_rest_waits_unread():
    from waitress.adjustments import Adjustments

    from app.server.waitress_compat import DEFAULT_PIPELINE_DEPTH, JsonErrorChannel

    ours, theirs = socket.socketpair()
    server = DispatchStandIn()
    channel = JsonErrorChannel(server, ours, ("127.0.0.1", 1), Adjustments(), map={})
    try:
        sent = b"".join(b"GET /n%d HTTP/1.1\r\nHost: x\r\n\r\n" % n for n in range(20))
        channel.received(sent)
        assert [r.path for r in channel.requests] == [f"/n{n}" for n in range(DEFAULT_PIPELINE_DEPTH)]
        assert channel.held.startswith(b"GET /n%d " % DEFAULT_PIPELINE_DEPTH)
        assert not channel.readable()  # the socket is not read while some of it waits
        assert server.given == [channel]
        channel.requests = []  # all answered: what waited is read (as the last answer's worker does)
        channel.received(b"")
        assert [r.path for r in channel.requests] == [f"/n{n}" for n in range(8, 16)]
    finally:
        channel.close()
        theirs.close()


def test_a_quick_clients_next_request_is_read_by_the_worker_that_answered_and_the_loop_watches_it_again_after():
    """A client that sends its next request while the answer's worker finishes (its
    ``AFTER_ANSWER`` work) has it read ahead, and then its next ones read by that worker:
    its socket unwatched by the loop meanwhile, and watched again once none came."""
    import select

    from app.door.request import AFTER_ANSWER

    sent = {path: threading.Event() for path in ("/a", "/b", "/c", "/d")}
    served = []

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        channel = environ["waitress.client_disconnected"].__self__
        watched = loop.registered.get(channel._fileno, 0) & select.POLLIN
        served.append((path, threading.get_ident(), bool(watched)))
        environ[AFTER_ANSWER].append(lambda: sent[path].wait(5) and time.sleep(0.2))  # till the next is sent
        start_response("304 Not Modified", [("ETag", '"x"')])
        return []

    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    loop = server.event_loop
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=5) as client:
            for path, following in (("/a", "/b"), ("/b", "/c"), ("/c", None), ("/d", None)):
                if path == "/a":
                    client.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                assert client.recv(4096).startswith(b"HTTP/1.1 304 ")
                if following:
                    client.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % following.encode())
                sent[path].set()
                if path == "/c":  # a pause: the worker finds nothing, the loop reads /d
                    time.sleep(0.6)
                    client.sendall(b"GET /d HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        server.close()
        thread.join(timeout=5)
    assert [path for path, _, _ in served] == ["/a", "/b", "/c", "/d"]
    assert len({ident for _, ident, _ in served[:3]}) == 1  # /b and /c taken by /a's worker itself
    # /a read by the loop, /b read ahead (the client is quick), /c read by the worker, /d by the loop
    assert [watched for _, _, watched in served] == [True, False, False, True]


def test_a_pipelined_request_waits_for_the_answer_before_it_to_leave_the_buffers_not_in_a_worker():
    with channel_on_a_socket_pair(send_buffer=4096) as (channel, _, _, client):
        server = DispatchStandIn()
        channel.server = server
        channel.write_soon(os.urandom(1_000_000))  # an answer the reader has not taken yet
        channel.requests = ["the next request"]
        assert channel.park() and channel.parked  # not given to a worker, which would wait on the reader
        assert server.given == []
        assert len(received(client, 1_000_000, channel)) == 1_000_000
        channel.handle_write()
        assert server.given == [channel] and not channel.parked  # the reader took it: now it is served
        channel.requests = []


def test_at_the_limit_the_biggest_holder_gives_up_an_idle_connection_to_an_address_holding_far_fewer(app):
    with not_running(app, threads=1, connection_limit=8) as (server, clients):
        crowd = [socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                          source_address=("127.0.0.5", 0)) for _ in range(8)]
        clients += crowd
        server.handle_accept()
        assert len(server.channels_of["127.0.0.5"]) == len(server._map) - 2 == 6  # and the loop's own two
        assert len(server.held_back) == 2  # at the limit, from the biggest holder: answered a second later
        oldest = min(server.channels_of["127.0.0.5"], key=lambda channel: channel.creation_time)
        newcomer = socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                            source_address=("127.0.0.6", 0))
        clients.append(newcomer)
        server.handle_accept()
        # The oldest of the biggest holder's closed at once: the server stays at its limit.
        assert oldest not in server.active_channels.values() and oldest._fileno is None  # closed (3.0.2 drops its socket)
        assert len(server._map) == 8
        assert len(server.channels_of["127.0.0.5"]) == 5 and len(server.channels_of["127.0.0.6"]) == 1
        again = socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                         source_address=("127.0.0.5", 0))
        clients.append(again)
        server.handle_accept()
        assert len(server.held_back) == 3  # the biggest holder gets no more


def test_the_rooms_made_in_a_turn_never_keep_out_the_next_newcomer(app):
    """At the limit, ROOM_AT_ONCE newcomers from addresses holding none each get one of the
    biggest holder's idle connections, closed at once: the next newcomer gets room too and
    the server stays at its limit. Closed by a later turn of the loop, they counted against
    the limit meanwhile, and the next newcomer, whatever it held, was refused a second later
    (a crowd's header deadline: a health check among its newcomers answered 429)."""
    from app.server.waitress_compat import ROOM_AT_ONCE

    limit = 2 * ROOM_AT_ONCE + 10
    with not_running(app, threads=1, connection_limit=limit) as (server, clients):
        clients += [socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                             source_address=("127.0.0.5", 0)) for _ in range(limit - 2)]
        while len(server._map) < limit:  # and the loop's own two
            server.handle_accept()
        clients += [socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                             source_address=(f"127.0.1.{number}", 0))
                    for number in range(1, ROOM_AT_ONCE + 1)]
        server.handle_accept()
        clients.append(socket.create_connection(("127.0.0.1", server.effective_port), timeout=5,
                                                source_address=("127.0.2.1", 0)))
        server.handle_accept()
        assert not server.held_back and len(server.channels_of["127.0.2.1"]) == 1
        assert len(server._map) == limit and len(server.channels_of["127.0.0.5"]) == limit - 2 - ROOM_AT_ONCE - 1


@pytest.mark.parametrize("version", ["1.0", "1.1"])
@pytest.mark.parametrize("connection", ["", "close", "keep-alive"])
@pytest.mark.parametrize("status, headers, content_length", [
    ("304 Not Modified", [("ETag", 'W/"x"'), ("x-data-revision", "3"), ("Vary", "A"), ("cache-control", "x"),
                          ("vary", "b")], None),
    ("200 OK", [("Content-Type", "application/json"), ("Content-Length", "5"),
                ("access-control-allow-origin", "*")], 5),
    ("200 OK", [("Content-Type", "application/json"), ("Date", "x"), ("Server", "s")], None),
    ("204 No Content", [("Content-Length", "0")], 0),
], ids=["304", "200", "200-own-date-server", "204"])
def test_an_answers_head_is_waitresss_own(version, connection, status, headers, content_length):
    """The head KeepAliveTask builds (names spelled once, Date once a second) is byte for byte
    waitress's, and leaves the task as waitress's leaves it."""
    from unittest import mock

    from waitress.task import WSGITask

    from app.server.waitress_compat import KeepAliveTask

    made = []
    for build in (WSGITask.build_response_header, KeepAliveTask.build_response_header):
        task = object.__new__(KeepAliveTask)
        task.version, task.status, task.response_headers = version, status, list(headers)
        task.request = mock.Mock(headers={"CONNECTION": connection} if connection else {})
        task.content_length, task.close_on_finish, task.chunked_response = content_length, False, False
        task.start_time = 1_700_000_000.5
        task.channel = mock.Mock()
        task.channel.server.adj.ident = "festival-api"
        made.append((build(task), task.close_on_finish, task.chunked_response, task.response_headers))
    assert made[0] == made[1]
    assert made[1][0].startswith(f"HTTP/{version} {status}\r\n".encode())


def test_a_connection_at_its_header_deadline_is_either_closed_or_due_later_never_due_still():
    """The loop looks at a connection when its deadline has come: it is closed, or its next
    deadline is after now. A sum rounded one way and a difference the other (the deadline
    within a float's rounding of now) left it due and not closed, looked at again forever."""
    from app.server.waitress_compat import _overdue

    class Owing:
        requests, will_close = [], False

        def __init__(self, started):
            self.started = self.last_activity = started

        def header_started(self):
            return self.started

        def owed_for(self, monotonic):
            return 0

    for now in (1764300000.123456, 1764300000.9, 1764312345.000001):
        started = now - 5
        for _ in range(40):
            started = math.nextafter(started, 0)
        for step in range(80):  # every float from 40 below now - 5 to 40 above
            channel = Owing(started)
            verdict = _overdue(channel, now, 0.0, header_timeout=5, send_timeout=30, channel_timeout=60)
            assert verdict is True and channel.will_close or verdict > now, (now, started, verdict)
            started = math.nextafter(started, math.inf)
