"""Hostile clients of a server on a loopback port, each running in threads of its own until
``close()``: the attacks of bench/attacks.py, which tests/faults/test_fairness.py runs
shortened against a real ``festival-api serve``; and the CPUs that keep them off the
server's, as attackers on other machines would be."""
import os
import selectors
import socket
import threading
import time


class SlowReaders:
    """``count`` connections from ``source``, each pipelining ``depth`` requests for ``path``
    (a path with a query string) and then reading one byte a second. ``closed``: the
    connections the server has closed or reset."""

    def __init__(self, port, key, source, count, depth, path):
        self.sockets, self.closed = [], set()
        for i in range(count):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.bind((source, 0))
            sock.connect(("127.0.0.1", port))
            sock.setblocking(False)
            requests = b"".join(f"GET {path}&n={i}_{j} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n".encode()
                                for j in range(depth))
            try:
                sock.send(requests)  # as much as the socket takes
            except BlockingIOError:
                pass
            self.sockets.append(sock)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        while not self._stop.wait(1):
            for sock in self.sockets:
                if sock in self.closed:
                    continue
                try:
                    # A reset is seen at once (what is buffered would be read first).
                    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) or sock.recv(1) == b"":
                        self.closed.add(sock)
                except BlockingIOError:
                    pass
                except OSError:
                    self.closed.add(sock)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in self.sockets:
            sock.close()


class Crowd:
    """``addresses`` loopback addresses (127.0.0.10 on) keeping ``each`` connections open,
    reopened as the server closes them, that stay silent (``mode`` "silent"), drip one header
    byte of a request for ``path`` a second ("drip") or send its request line and one header
    ("partial"); none ever ends its request. ``opened``: the connections opened so far."""

    def __init__(self, port, key, mode, addresses, each, path):
        self.port, self.mode, self.each = port, mode, each
        self.payload = f"GET {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n".encode()
        self.opened = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._hold, args=(f"127.0.0.{10 + i}",), daemon=True)
                         for i in range(addresses)]
        for thread in self._threads:
            thread.start()

    def _open(self, source, selector, sent):
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((source, 0))
        try:
            sock.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            return
        selector.register(sock, selectors.EVENT_READ)
        sent[sock] = 0
        self.opened += 1
        if self.mode == "partial":
            try:
                sock.send(self.payload[:self.payload.index(b"\r\n") + 2] + b"Host: x\r\n")
            except OSError:
                pass

    def _hold(self, source):
        selector, sent = selectors.DefaultSelector(), {}
        for _ in range(self.each):
            self._open(source, selector, sent)
        dripped = time.monotonic()
        while not self._stop.is_set():
            for ready, _ in selector.select(timeout=0.2):
                sock = ready.fileobj
                selector.unregister(sock)
                sock.close()
                del sent[sock]
                self._open(source, selector, sent)
            if self.mode == "drip" and time.monotonic() - dripped >= 1:
                dripped = time.monotonic()
                for sock, count in list(sent.items()):
                    if count < len(self.payload) - 4:
                        try:
                            sock.send(self.payload[count:count + 1])
                            sent[sock] = count + 1
                        except OSError:
                            pass
        for sock in sent:
            sock.close()

    def close(self):
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)


def cpu_halves():
    """``(the server's CPUs, the attackers' CPUs)``: the CPUs this process may use, the lower
    half and the upper half, or None with fewer than 2 (or no ``sched_getaffinity``)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(allowed) < 2:
        return None
    return set(allowed[:len(allowed) // 2]), set(allowed[len(allowed) // 2:])


def pinned(cpus, target, *args):
    """``target(*args)`` on ``cpus`` (all this process's CPUs when None)."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    target(*args)


def pin_running(pid, cpus):
    """Every thread of the running process ``pid`` on ``cpus`` (Linux: a thread started
    later takes its starter's)."""
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            os.sched_setaffinity(int(thread), cpus)
        except ProcessLookupError:  # it ended meanwhile
            pass
