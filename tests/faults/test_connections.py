"""Result day's connections: ``/healthz`` and a new request are answered within a second while
256 keep-alive connections are open (each served), and while 1,000 more sit idle."""
import contextlib
import resource
import selectors
import socket
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
    server = serve(database, RESPONSE_CACHE_SECONDS=5)
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
