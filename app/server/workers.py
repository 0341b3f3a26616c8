"""One waitress process per core on one port (``festival-api serve --workers N``).

A Python process runs Python on one core at a time, so on a box of N cores the service
answers up to N times more requests with N processes. Each worker opens its own listening
socket on the same address with ``SO_REUSEPORT``, and the kernel spreads new connections
over them; each has its own app (database connections, key cache, response cache, and
in-memory rate-limit counters: use Redis, ``RATELIMIT_STORAGE_URI``, for one budget across
workers). The parent only starts the workers, starts a worker again when one dies, and
stops them all on SIGTERM or SIGINT.
"""
import os
import signal
import socket
import sys
import time

from ..door.access_log import write_held

# A worker that dies sooner than this after its start is not started again at once.
RESTART_PAUSE_SECONDS = 1.0


def listening_socket(host, port, backlog):
    """A socket listening on ``host:port`` that other processes may listen on too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


def run_workers(count, serve_one, host, port, backlog, ready=None, after_death=None):
    """Run ``serve_one(sock, index)`` in ``count`` child processes (``index`` 0 to count-1,
    kept by a worker started again), each on a socket of its own bound to ``host:port``;
    return when they are stopped. Binding is tried here first, so a port in use is an
    ``OSError`` in the caller, not in every child; then ``ready()``. ``after_death()`` is
    called when a worker died, before another starts (it removes what the dead one left)."""
    listening_socket(host, port, backlog).close()
    if ready is not None:
        ready()
    children = {}  # pid -> (index, time started)
    stopping = []

    def start(index):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                serve_one(listening_socket(host, port, backlog), index)
            except BaseException:  # noqa: B036 - a worker never returns into the parent's code
                code = 1
            finally:
                write_held()
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        children[pid] = (index, time.monotonic())

    def stop(signum, frame):
        stopping.append(signum)
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for index in range(count):
        start(index)
    while children:
        try:
            pid, _ = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        child = children.pop(pid, None)
        if child is not None and not stopping:
            index, started = child
            print(f"festival-api: worker {pid} stopped; starting another", file=sys.stderr)
            if after_death is not None:
                after_death()
            time.sleep(max(0.0, RESTART_PAUSE_SECONDS - (time.monotonic() - started)))
            start(index)
