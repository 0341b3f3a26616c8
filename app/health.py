"""``GET /healthz`` for load balancers: 200 while the database answers, 503 (and why) when not.

The check runs in a thread of its own on a connection of its own, and the answer never
waits for it longer than ``ANSWER_SECONDS``: a database that hangs (a lock held by another
process, a server that does not answer) is itself the reason for a 503. At most one
check runs at a time; a request that comes while one runs waits for that one.
"""
import threading
from concurrent.futures import Future, TimeoutError as FutureTimeout

from flask import current_app

from db.compiled.tables import required_tables
from db.database import is_postgres
from db.health import UNREACHABLE, Problem, database_problem

from .smorest import error_body

ANSWER_SECONDS = 0.8
# How long the check's own connection waits for a lock (SQLite) or a statement (PostgreSQL).
LOCK_SECONDS = 0.3

TOO_SLOW = Problem(UNREACHABLE, "The database did not answer within a second.")


class HealthCheck:
    """``problem()``: None when the database at ``url`` is usable, else a ``Problem``."""

    def __init__(self, url):
        self._url = url
        self._lock = threading.Lock()
        self._running = None

    def problem(self):
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
                future.set_result(database_problem(self._url, required_tables(), timeout=LOCK_SECONDS))
            except Exception:  # anything unexpected still means "not usable"
                future.set_result(Problem(UNREACHABLE, "The database cannot be checked."))

        # A daemon thread: a check stuck in a network call never holds up shutting down.
        threading.Thread(target=run, name="healthz", daemon=True).start()
        return future


def healthz():
    """Is this process able to answer API requests?"""
    problem = current_app.extensions["festival_health"].problem()
    if problem is not None:
        body = {**error_body(503), "message": problem.reason}
        return body, 503, {"Cache-Control": "no-store"}
    engine = "postgresql" if is_postgres() else "sqlite"
    return {"status": "ok", "database": engine}, 200, {"Cache-Control": "no-store"}


def init_health(app):
    """Serve ``/healthz``: no key, not rate limited, outside ``/public-api/v1``."""
    app.extensions["festival_health"] = HealthCheck(app.config["DATABASE_URL"])
    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])
