"""waitress, with its own errors in the service's one JSON error shape, and keep-alive
connections kept after a ``304``.

waitress answers some requests before the app sees them: a request line or headers over
its limits (431), a body over its limit (413), a request it cannot parse, such as a raw
0xff byte in the request line (400), or a transfer coding it does not know (501). Its
answer is plain text; waitress has no setting for that, but each connection's channel
names the task that writes the error (``HTTPChannel.error_task_class``), so the channel
is swapped for one whose error task writes JSON. Nothing from the request is echoed.

Sized for result day (:func:`server_settings`): waitress's defaults accept only 100
connections at once (with 100 idle keep-alive sockets nobody else gets in) and wait on
``select()``, which cannot watch a descriptor above 1024; the service raises the limit
(``CONNECTION_LIMIT``), waits on ``poll()``, raises the process's open-file limit to fit,
accepts the connections waiting in one turn of the loop rather than one per turn, and
passes proxy headers to the app untouched: the app alone decides whether to trust
them (``TRUSTED_PROXIES``), and says so when they arrive untrusted.
"""
import ctypes
import functools
import json
import logging
import os
import platform
import resource
import signal
import socket
import sys
import threading
import time

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.server import create_server as waitress_create_server
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask

from .access_log import write_held

MESSAGES = {
    400: "The request could not be parsed.",
    413: "The request body is too large.",
    431: "The request line or headers are too large.",
    501: "The request uses a transfer coding this server does not implement.",
}


class JsonErrorTask(ErrorTask):
    """waitress's error answer, as ``{"code", "status", "message"}``."""

    def execute(self):
        error = self.request.error
        body = json.dumps({"code": error.code, "status": error.reason,
                           "message": MESSAGES.get(error.code, error.reason + ".")}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


# The WSGI environ key under which the server offers a list: callables the app appends to
# it run after the answer was handed to the socket (the access line), not while the
# client waits for it.
AFTER_ANSWER = "festival_api.after_answer"


class KeepAliveTask(WSGITask):
    """waitress's task, keeping an HTTP/1.1 connection open after an answer that has no
    body by definition (1xx, 204, 304), sending a whole answer with its head in one
    system call (:meth:`write`), and running the app's ``AFTER_ANSWER`` work once the
    answer is sent.

    waitress closes the connection after a bodiless answer because it carries no
    Content-Length, though it ends at its headers (RFC 9112 §6.3): every ``304`` cost the
    client a new connection, more than the answer itself."""

    def get_environment(self):
        environ = super().get_environment()
        environ.setdefault(AFTER_ANSWER, [])
        return environ

    def service(self):
        try:
            super().service()  # the answer is written to the socket as it is made
        finally:
            environ = self.environ
            for work in environ.get(AFTER_ANSWER, ()) if environ is not None else ():
                work()

    def write(self, data):
        """The first write of a whole answer (its Content-Length bytes at once, as the front
        door gives every answer) goes out with the head in one system call
        (:meth:`JsonErrorChannel.write_answer`); any other write as waitress writes it."""
        if (not self.wrote_header and data and self.complete and not self.chunked_response
                and self.content_length == len(data) and self.has_body):
            head = self.build_response_header()
            self.wrote_header = True
            self.content_bytes_written += len(data)
            self.channel.write_answer(head, data)
            return
        super().write(data)

    def set_close_on_finish(self):
        asked_to_close = (self.version != "1.1"
                          or self.request.headers.get("CONNECTION", "").lower() == "close")
        if self.has_body or asked_to_close:
            super().set_close_on_finish()


_SENDMSG = hasattr(socket.socket, "sendmsg")  # not on Windows


class JsonErrorChannel(HTTPChannel):
    """waitress's connection, with the service's tasks; once a request is served and no
    other waits for a worker, the access lines held meanwhile are written
    (:func:`app.access_log.write_held`): under load in one system call for many requests."""

    task_class = KeepAliveTask
    error_task_class = JsonErrorTask

    def write_answer(self, head, body):
        """Send an answer's ``head`` and ``body`` in one ``sendmsg(2)`` from the bytes as
        they are, when nothing waits to be sent before them; what the socket does not take
        now goes to waitress's :meth:`write_soon`, which queues it for the server's loop.

        waitress sends the head, then copies a body over 8 kB into a buffer and out of it
        again before sending it: for a 72 kB page of results, two system calls and two
        copies of the page per request (docs/performance.md)."""
        with self.outbuf_lock:
            if self.total_outbufs_len or not self.connected or not _SENDMSG:
                self.write_soon(head)  # in order, after what waits (the lock is re-entrant)
                self.write_soon(body)
                return
            try:
                sent = self.socket.sendmsg((head, body))
            except OSError:  # would block, or the client went: waitress's own write meets it
                sent = 0
            if sent:
                self.last_activity = time.time()
            if sent < len(head) + len(body):
                self.write_soon((head + body)[sent:])  # queued, and sent by the server's loop

    def service(self):
        try:
            super().service()
        finally:
            if not self.server.task_dispatcher.queue:
                write_held()


# Connections beyond CONNECTION_LIMIT wait in the kernel's queue (capped by net.core.somaxconn).
BACKLOG = 2048
# Descriptors a process needs besides its client connections: the listener, waitress's
# trigger pipe, database files, Redis, logs, and a spare buffer file per thread.
SPARE_DESCRIPTORS = 64

# waitress settings every server of the service uses.
DEFAULTS = {
    # Forwarded headers reach the app, which trusts them only behind TRUSTED_PROXIES
    # (waitress would drop them, so a trusted proxy's X-Forwarded-For never arrived).
    "clear_untrusted_proxy_headers": False,
    # select() cannot watch descriptors above 1024: poll() has no such limit.
    "asyncore_use_poll": True,
}


class OncePerInterval(logging.Filter):
    """Let one record through per ``seconds``: waitress warns "Task queue depth is N" on
    every request while the workers are busy, which under load is one more log line (and
    its formatting and write) for every request, exactly when there is no time to spare."""

    def __init__(self, seconds=10.0):
        super().__init__()
        self.seconds = seconds
        self._next = 0.0
        self._lock = threading.Lock()

    def filter(self, record):
        now = time.monotonic()
        with self._lock:
            if now < self._next:
                return False
            self._next = now + self.seconds
        return True


_QUEUE_LOG = logging.getLogger("waitress.queue")
if not any(isinstance(f, OncePerInterval) for f in _QUEUE_LOG.filters):
    _QUEUE_LOG.addFilter(OncePerInterval())


def fit_connection_limit(wanted, threads):
    """``wanted`` connections, or fewer if the open-file limit cannot be raised to fit them
    (then one line on stderr says so)."""
    needed = wanted + 2 * threads + SPARE_DESCRIPTORS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < needed:
        fitted = max(10, soft - 2 * threads - SPARE_DESCRIPTORS)
        print(f"festival-api: the open-file limit is {soft} (ulimit -n; LimitNOFILE= under systemd): "
              f"serving at most {fitted} connections instead of CONNECTION_LIMIT={wanted}", file=sys.stderr)
        return fitted
    return wanted


def server_settings(config):
    """waitress's settings for the service's ``config`` (app/config.py)."""
    return {
        "host": config["HOST"],
        "port": config["PORT"],
        "threads": config["THREADS"],
        "connection_limit": fit_connection_limit(config["CONNECTION_LIMIT"], config["THREADS"]),
        "channel_timeout": config["CHANNEL_TIMEOUT"],
        "backlog": BACKLOG,
    }


class LastInFirstOut(threading.Condition):
    """A condition whose ``notify`` wakes the thread that waited last, not first.

    waitress's idle workers wait on one condition and a new request wakes one of them;
    Python wakes the longest-waiting, so at low concurrency every request moved to the
    next of the eight threads, each with its own SQLite connection and all of them cold in
    the CPU's caches. Waking the one that just finished keeps a few threads hot: a request
    off the cache took 10–15 % less time in the server (docs/performance.md). Only the
    order of waking changes; ``wait`` is Python's own.
    """

    def notify(self, n=1):
        if not self._is_owned():
            raise RuntimeError("cannot notify on un-acquired lock")
        waiters = self._waiters
        while waiters and n > 0:
            waiter = waiters.pop()  # the last to wait
            try:
                waiter.release()
            except RuntimeError:  # it timed out meanwhile and no longer waits
                continue
            n -= 1


class HealthFirstDispatcher(ThreadedTaskDispatcher):
    """waitress's worker threads, woken last-in first-out (:class:`LastInFirstOut`), and one
    more thread of its own for ``/healthz``.

    A load balancer's health check must be answered within a second even while every
    worker is held by API requests waiting on a database that hangs (each up to the
    database deadline) or by a burst of traffic: it never queues behind them.
    """

    PATHS = frozenset({"/healthz"})

    def __init__(self):
        super().__init__()
        self.queue_cv = LastInFirstOut(self.lock)  # before any worker thread waits on it
        self.health = ThreadedTaskDispatcher()
        self.health.set_thread_count(1)

    def add_task(self, task):
        requests = getattr(task, "requests", None)
        if requests and getattr(requests[0], "path", None) in self.PATHS:
            self.health.add_task(task)
        else:
            super().add_task(task)

    def shutdown(self, cancel_pending=True, timeout=5):
        self.health.shutdown(cancel_pending, timeout)
        return super().shutdown(cancel_pending, timeout)


# glibc's malloc, as kept by `festival-api serve` (keep_freed_memory): free memory at the
# top of an arena is given back to the system past TRIM_THRESHOLD bytes; blocks from
# MMAP_THRESHOLD bytes up are mapped on their own.
TRIM_THRESHOLD = 64 * 2**20
MMAP_THRESHOLD = 16 * 2**20
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)


def keep_freed_memory():
    """Have glibc's malloc keep the memory requests free for the next requests instead of
    giving it back to the system each time; return whether it was set.

    Each worker thread allocates from an arena of its own, and by default glibc gives an
    arena's free memory back once more than about 128 kB of it lie at the top: at 64
    connections, requests whose answers are tens of kilobytes (``/programme-results``
    sends 72 kB for 20 items) made a worker's arena shrink and grow again all the time,
    5 page faults a request, against none at one connection (docs/performance.md). Kept,
    an arena holds at most what its busiest request used. Left alone on other C libraries
    and when ``GLIBC_TUNABLES`` sets glibc's malloc itself.
    """
    if platform.libc_ver()[0] != "glibc" or "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    # Either setting alone stops glibc moving both with the largest block freed so far.
    return bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def pin_to_cpu(index=0):
    """Keep this process (every thread it has and will start) on one CPU: the ``index``-th,
    counted from the last and wrapping round, of the CPUs it may use. Return that CPU, or
    None where there is one CPU or the platform cannot pin.

    A Python process runs Python on one CPU at a time; spread over several, its threads
    hand the GIL to each other across CPUs, and each handover wakes a thread on another
    CPU. On a 2-CPU virtual machine at 64 connections that was most of the process's time:
    70-90 context switches and 1-6 ms of CPU per request against 2 and 0.35 ms at one
    connection (docs/performance.md). On one CPU the handover is a switch on that CPU.
    The last CPU first: the first is where much of the system's own work runs.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    cpu = cpus[-1 - index % len(cpus)]
    try:
        os.sched_setaffinity(0, {cpu})  # this thread; threads started later inherit its CPUs
    except OSError:  # not allowed here (a sandbox, say): left as it was
        return None
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = []
    for thread in threads:  # any started before
        try:
            os.sched_setaffinity(thread, {cpu})
        except OSError:  # a thread that ended meanwhile
            pass
    return cpu


def write_held_lines_on_sigterm():
    """On SIGTERM, write the access lines held (:func:`app.access_log.write_held`), then end
    as SIGTERM ends a process: the requests answered last are in the log. From the main
    thread, before serving."""

    def terminate(signum, frame):
        write_held()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminate)


# Connections accepted at most in one turn of waitress's loop.
ACCEPT_AT_ONCE = 64


def _accept_waiting(listener, accept_one):
    """Accept the connections waiting on ``listener``, up to ``ACCEPT_AT_ONCE`` (or the
    connection limit), with waitress's own ``accept_one``.

    waitress accepts one connection per turn of its loop, and each turn polls every open
    socket: a thousand clients connecting at once took it about a second to accept, and a
    health check that came behind them waited as long."""
    for _ in range(ACCEPT_AT_ONCE):
        opened = len(listener._map)
        accept_one()
        if len(listener._map) == opened or len(listener._map) >= listener.adj.connection_limit:
            return  # none was waiting (or it failed), or no more may open


def create_server(app, **settings):
    """``waitress.server.create_server`` whose listeners answer waitress's errors in JSON,
    keep connections open after a ``304``, run the app's work after the answer
    (``AFTER_ANSWER``), accept the connections waiting at once, and pass forwarded headers
    to the app."""
    dispatcher = HealthFirstDispatcher()
    dispatcher.set_thread_count(settings.get("threads", 4))
    server = waitress_create_server(app, _dispatcher=dispatcher, **{**DEFAULTS, **settings})
    sockets = getattr(server, "map", None) or server._map
    for listener in list(sockets.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = JsonErrorChannel
            listener.handle_accept = functools.partial(_accept_waiting, listener, listener.handle_accept)
    return server
