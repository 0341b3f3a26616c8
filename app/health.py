"""``GET /healthz`` for load balancers: 200 while the database answers, 503 (and why) when not.

The check runs in a thread of its own on a connection of its own, and the answer never
waits for it longer than ``ANSWER_SECONDS``: a database that hangs (a lock held by another
process, a server that does not answer) is itself the reason for a 503. At most one
check runs at a time; a request that comes while one runs waits for that one.
"""
import threading
from concurrent.futures import Future, TimeoutError as FutureTimeout

from db.compiled.tables import required_tables
from db.database import is_postgres
from db.health import UNREACHABLE, Problem, database_problem

from .errors import error_body

ANSWER_SECONDS = 0.8
# How long the check's own connection waits for a lock (SQLite) or a statement (PostgreSQL).
LOCK_SECONDS = 0.3

TOO_SLOW = Problem(UNREACHABLE, "The database did not answer within a second.")


class HealthCheck:
    """``problem()``: None when the database at ``url`` is usable, else a ``Problem``.

    A file that a request found damaged (``ServiceDatabase.damaged``) is a problem until it
    changes, even when a quick look at it finds nothing wrong.
    """

    def __init__(self, url, database):
        self._url = url
        self._database = database
        self._lock = threading.Lock()
        self._running = None

    def problem(self):
        return self._checked() or self._database.damaged

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
                future.set_result(database_problem(self._url, required_tables(), timeout=LOCK_SECONDS))
            except Exception:  # anything unexpected still means "not usable"
                future.set_result(Problem(UNREACHABLE, "The database cannot be checked."))

        # A daemon thread: a check stuck in a network call never holds up shutting down.
        threading.Thread(target=run, name="healthz", daemon=True).start()
        return future


def init_health(app, health):
    """Serve ``GET /healthz`` from ``health``: no key, not rate limited, outside ``/public-api/v1``."""

    @app.get("/healthz")
    def healthz():
        """Is this process able to answer API requests?"""
        problem = health.problem()
        if problem is not None:
            return {**error_body(503), "message": problem.reason}, 503, {"Cache-Control": "no-store"}
        engine = "postgresql" if is_postgres() else "sqlite"
        return {"status": "ok", "database": engine}, 200, {"Cache-Control": "no-store"}
