"""``GET /healthz`` for load balancers: 200 while the database answers, 503 (and why) when not.

The check runs in a thread of its own on a connection of its own, and the answer never
waits for it longer than ``ANSWER_SECONDS``: a database that hangs (a lock held by another
process, a server that does not answer) is itself the reason for a 503. At most one
check runs at a time; a request that comes while one runs waits for that one.

On SQLite, damage inside the compiled tables (what requests read) is also looked for by
:class:`IntegrityProbe`: ``PRAGMA quick_check`` of those tables, in the background, at
most every few seconds while the file changes and at least once a minute, never per
request, so damage that no request has met yet still makes ``/healthz`` a 503.
"""
import os
import threading
import time
from concurrent.futures import Future, TimeoutError as FutureTimeout

import orjson
from werkzeug.http import HTTP_STATUS_CODES

from db.compiled.tables import HISTORY_MODELS, READ_MODELS, required_tables
from db.database import is_postgres, sqlite_path
from db.health import UNREACHABLE, Problem, database_problem, integrity_problem
from db.serving.deadlines import check_deadlines

from .errors import error_body

ANSWER_SECONDS = 0.8
# How long the check's own connection waits for a lock (SQLite) or a statement (PostgreSQL).
LOCK_SECONDS = 0.3

TOO_SLOW = Problem(UNREACHABLE, "The database did not answer within a second.")


def file_stamp(path):
    """What changes when the file or its WAL is written: ``(mtime, size)`` of both."""
    stamp = []
    for name in (path, f"{path}-wal"):
        try:
            stat = os.stat(name)
            stamp.append((stat.st_mtime_ns, stat.st_size))
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def compiled_tables():
    """The tables requests read: the compiled read model and its history."""
    return [model._meta.table_name for model in (*READ_MODELS, *HISTORY_MODELS)]


class IntegrityProbe:
    """The last result of ``PRAGMA quick_check`` of the compiled tables of a SQLite file.

    ``problem()`` never waits for a check: it returns the last result and starts a new
    check in the background when one is due: ``CHANGED_SECONDS`` after the last if the
    file was written since, ``STEADY_SECONDS`` after it otherwise. What the check found is
    logged for the operator; ``/healthz`` says only that the file is damaged.
    """

    CHANGED_SECONDS = 2.0
    STEADY_SECONDS = 60.0

    def __init__(self, path, logger=None):
        self._path = path
        self._logger = logger
        self._lock = threading.Lock()
        self._problem = None
        self._checked_at = float("-inf")
        self._stamp = None
        self._running = False

    def problem(self):
        now = time.monotonic()
        with self._lock:
            due = (not self._running and (
                now - self._checked_at >= self.STEADY_SECONDS
                or (now - self._checked_at >= self.CHANGED_SECONDS and file_stamp(self._path) != self._stamp)))
            if due:
                self._running = True
                threading.Thread(target=self._check, name="integrity-probe", daemon=True).start()
            return self._problem

    def _check(self):
        stamp = file_stamp(self._path)
        try:
            found = integrity_problem(self._path, compiled_tables(), timeout=LOCK_SECONDS)
        except Exception:  # anything unexpected: keep the last result
            found = (self._problem, "") if self._problem else None
        if found and found[1] and self._logger:
            self._logger.error("the database file is damaged: PRAGMA quick_check of the compiled tables found: %s. "
                               "Restore the latest backup (docs/deployment.md, Restore)", found[1])
        with self._lock:
            self._problem = found[0] if found else None
            self._checked_at = time.monotonic()
            self._stamp = stamp
            self._running = False


class HealthCheck:
    """``problem()``: None when the database at ``url`` is usable, else a ``Problem``.

    A file that a request found damaged (``ServiceDatabase.damaged``) is a problem until it
    changes, even when a quick look at it finds nothing wrong.
    """

    def __init__(self, url, database, logger=None):
        self._url = url
        self._database = database
        self._lock = threading.Lock()
        self._running = None
        path = sqlite_path(url)
        self.integrity = IntegrityProbe(path, logger) if path not in (None, ":memory:") else None

    def problem(self):
        return (self._checked() or self._database.damaged
                or (self.integrity.problem() if self.integrity is not None else None))

    def _checked(self):
        with self._lock:
            if self._running is None or self._running.done():
                self._running = self._start()
            running = self._running
        try:
            return running.result(timeout=ANSWER_SECONDS)
        except FutureTimeout:
            return TOO_SLOW

    def _start(self):
        future = Future()

        def run():
            try:
                future.set_result(database_problem(self._url, required_tables(self._url), timeout=LOCK_SECONDS,
                                                   deadlines=check_deadlines))
            except Exception:  # anything unexpected still means "not usable"
                future.set_result(Problem(UNREACHABLE, "The database cannot be checked."))

        # A daemon thread: a check stuck in a network call never holds up shutting down.
        threading.Thread(target=run, name="healthz", daemon=True).start()
        return future


def health_answer(health):
    """``(status, body)`` of ``GET /healthz``: 200 while the database answers, else 503 and why."""
    problem = health.problem()
    if problem is not None:
        return 503, {**error_body(503), "message": problem.reason}
    return 200, {"status": "ok", "database": "postgresql" if is_postgres() else "sqlite"}


def init_health(app, health):
    """Serve ``GET /healthz`` from ``health``: no key, not rate limited, outside ``/public-api/v1``."""

    @app.get("/healthz")
    def healthz():
        """Is this process able to answer API requests?"""
        status, body = health_answer(health)
        return body, status, {"Cache-Control": "no-store"}


class HealthApp:
    """A WSGI app that answers ``GET /healthz`` (and ``HEAD``) from ``health`` and nothing
    else: what the health listener (``HEALTH_PORT``) serves, so that port exposes no data."""

    def __init__(self, health):
        self.health = health

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD")
        if environ.get("PATH_INFO") != "/healthz":
            status, body = 404, error_body(404)
        elif method not in ("GET", "HEAD"):
            status, body = 405, error_body(405)
        else:
            status, body = health_answer(self.health)
        data = orjson.dumps(body) + b"\n"
        headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                   ("Content-Length", str(len(data)))]
        if status == 405:
            headers.append(("Allow", "GET, HEAD"))
        start_response(f"{status} {HTTP_STATUS_CODES[status]}", headers)
        return [b"" if method == "HEAD" else data]
