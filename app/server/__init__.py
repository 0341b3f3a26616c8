"""``festival-api serve``'s server: waitress, sized and guarded for result day.

What the service changes inside waitress is in ``app/server/waitress_compat.py`` (its one module
for waitress's internals); here are the settings it is run with and the process around it.

Sized for result day (:func:`server_settings`): waitress's defaults accept only 100
connections at once (with 100 idle keep-alive sockets nobody else gets in) and wait on
``select()``, which cannot watch a descriptor above 1024; the service raises the limit
(``CONNECTION_LIMIT``), waits on ``poll()``, raises the process's open-file limit to fit,
and passes proxy headers to the app untouched: the app alone decides whether to trust
them (``TRUSTED_PROXIES``), and says so when they arrive untrusted. No client takes every
connection: one address holds at most ``CONNECTIONS_PER_ADDRESS`` of them, and a connection
that does not send its headers within ``HEADER_TIMEOUT`` seconds is closed; at
``CONNECTION_LIMIT`` the address holding the most gives up an idle one for a newcomer from
an address holding far fewer. No address delays the others: it holds at most
``THREADS_PER_ADDRESS`` worker threads, a connection at most ``PIPELINE_DEPTH`` requests,
and a slow reader's answers wait in its buffers (``SEND_TIMEOUT``), never in a thread. ``/healthz``
may also be served on a port of its own (``HEALTH_PORT``), by a listener with its own
loop and thread (:func:`start_health_listener`), which nothing on the data port can fill.
"""
import ctypes
import gc
import logging
import os
import platform
import resource
import signal
import sys
import threading
import time

from ..door.access_log import write_held
from .waitress_compat import HOLD_AT_ONCE, LINGER_AT_ONCE, ROOM_AT_ONCE
from .waitress_compat import create_server as _guarded_server

# Connections beyond CONNECTION_LIMIT wait in the kernel's queue (capped by net.core.somaxconn).
BACKLOG = 2048
# Descriptors a process needs besides its client connections: the listener, waitress's
# trigger pipe, database files, Redis, logs, and a spare buffer file per thread; the refused
# connections kept a moment or held back for their answer, and the connections past the
# limit while those closed to make room for them are closing.
SPARE_DESCRIPTORS = 64 + LINGER_AT_ONCE + HOLD_AT_ONCE + ROOM_AT_ONCE

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
        "connections_per_address": config["CONNECTIONS_PER_ADDRESS"],
        "trusted_proxies": config["TRUSTED_PROXIES"],
        "header_timeout": config["HEADER_TIMEOUT"],
        "threads_per_address": config["THREADS_PER_ADDRESS"],
        "pipeline_depth": config["PIPELINE_DEPTH"],
        "send_timeout": config["SEND_TIMEOUT"],
    }


def leave_startup_to_itself():
    """Leave the objects made so far (the modules, the app, its schemas: about 70,000 once
    warmed) out of the garbage collector's passes; return how many. They live as long as
    the process, and a full pass over them held every request for 30 ms or more (gen 2's
    passes come more rarely once they are out of it, and cost what was made since)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


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


def write_held_lines_on_sigterm(before_exit=None):
    """On SIGTERM or SIGINT, write the access lines held (:func:`app.door.access_log.write_held`)
    and call ``before_exit()`` (what the process leaves on disk: its local copy), then end
    as the signal ends a process: the requests answered last are in the log. From the main
    thread, before serving."""

    def terminate(signum, frame):
        write_held(wait=True)
        try:
            if before_exit is not None:
                before_exit()
        finally:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)




def create_server(app, **settings):
    """The service's waitress server for ``app`` (app/server/waitress_compat.py), with ``DEFAULTS``;
    waitress's own errors carry the CORS headers of the app's answers (its front door's)."""
    door = getattr(app, "extensions", {}).get("front_door")
    if door is not None:
        settings.setdefault("cors", door.headers.cors_of)
    return _guarded_server(app, **{**DEFAULTS, **settings})


# The health listener's own limits: a supervisor or load balancer probes with a few
# connections at most.
HEALTH_CONNECTIONS = 32
HEALTH_HEADER_SECONDS = 2


def start_health_listener(health_app, sock):
    """Serve ``health_app`` (``/healthz`` alone) on the listening socket ``sock``, in a
    thread of its own with its own loop and worker: a data port full of connections, or a
    loop busy with them, does not delay it. Return the server."""
    server = create_server(health_app, sockets=[sock], threads=1, connection_limit=HEALTH_CONNECTIONS,
                           channel_timeout=10, header_timeout=HEALTH_HEADER_SECONDS, ident="festival-api")
    threading.Thread(target=server.run, name="health-listener", daemon=True).start()
    return server
