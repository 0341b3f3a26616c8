"""Result day's connections: ``/healthz`` and a new request are answered within a second while
256 keep-alive connections are open (each served), and while 1,000 more sit idle."""
import contextlib
import json
import resource
import selectors
import socket
import struct
import time

from conftest import API, BIG

KEEP_ALIVE = 256
IDLE = 1000
SERVED_SECONDS = 15


@contextlib.contextmanager
def open_files(count):
    """Let this process hold ``count`` more sockets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def complete(data):
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def serve_on_each(port, key, count):
    """``count`` keep-alive connections, one request each, sent at once: the open sockets,
    and how many got their whole answer within ``SERVED_SECONDS``."""
    raw = (f"GET {API}/news?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\n\r\n").encode()
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    selector = selectors.DefaultSelector()
    received = {}
    for sock in sockets:
        sock.sendall(raw)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        received[sock] = b""
    deadline = time.monotonic() + SERVED_SECONDS
    done = set()
    while len(done) < count and time.monotonic() < deadline:
        for event, _ in selector.select(timeout=0.2):
            chunk = event.fileobj.recv(65536)
            received[event.fileobj] += chunk
            if not chunk or complete(received[event.fileobj]):
                selector.unregister(event.fileobj)
                done.add(event.fileobj)
    selector.close()
    served = sum(1 for sock in sockets if complete(received[sock]) and received[sock].startswith(b"HTTP/1.1 200"))
    return sockets, served


def test_health_and_new_requests_are_answered_at_256_open_and_1000_idle_connections(database, serve, keys):
    # Every connection comes from this one address: no cap per address here
    # (tests/faults/test_one_client.py holds the cap).
    server = serve(database, RESPONSE_CACHE_SECONDS=5, CONNECTIONS_PER_ADDRESS=0)
    with open_files(KEEP_ALIVE + IDLE), contextlib.ExitStack() as stack:
        busy, served = serve_on_each(server.port, keys[BIG], KEEP_ALIVE)
        for sock in busy:
            stack.callback(sock.close)
        print(f"served {served} of {KEEP_ALIVE} keep-alive connections")
        assert served == KEEP_ALIVE

        health, fresh = server.get("/healthz"), server.get("/subfests", keys[BIG])
        print(f"at {KEEP_ALIVE} open: /healthz {health.seconds:.3f} s, a new request {fresh.seconds:.3f} s")
        assert (health.status, fresh.status) == (200, 200)
        assert health.seconds < 1 and fresh.seconds < 1, (health.seconds, fresh.seconds)

        for _ in range(IDLE):  # connected, never a byte sent
            stack.callback(socket.create_connection(("127.0.0.1", server.port), timeout=5).close)
        health, fresh = server.get("/healthz"), server.get("/subfests", keys[BIG])
        print(f"and {IDLE} idle: /healthz {health.seconds:.3f} s, a new request {fresh.seconds:.3f} s")
        assert (health.status, fresh.status) == (200, 200)
        assert health.seconds < 1 and fresh.seconds < 1, (health.seconds, fresh.seconds)


def test_clients_that_go_away_mid_answer_leave_the_server_answering_the_others(database, serve, keys):
    """Large pages asked for by clients that reset the connection at once, or read a little
    and close: the server's first send meets a closed socket or leaves part of an answer
    for its loop; the others keep getting whole answers, and nothing is a 500."""
    server = serve(database)
    path = f"{API}/programme-results?subFestSlug=general&limit=100"
    raw = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {keys[BIG]}\r\n\r\n".encode()
    whole = server.get(path[len(API):], keys[BIG])
    assert whole.status == 200 and len(whole.body) > 200_000
    for round_ in range(3):
        gone = []
        for number in range(20):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(raw * 2)  # two requests: the second's answer waits behind the first's
            if number % 2:
                sock.recv(1000)  # a little of the answer, then gone
                sock.close()
            else:
                gone.append(sock)
        time.sleep(0.2)
        for sock in gone:  # reset (RST), while the server still has the answers to send
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        answer = server.get(path[len(API):], keys[BIG])
        assert answer.status == 200 and answer.body == whole.body, round_
    assert server.get("/healthz").status == 200
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    statuses = [line["status"] for line in lines if line.get("path") == f"{API}/programme-results"]
    print(f"{len(statuses)} answers made, statuses {sorted(set(statuses))}")
    assert statuses and set(statuses) == {200}  # every answer made was a 200; none failed
    assert not [line for line in lines if line.get("level") == "ERROR"]
