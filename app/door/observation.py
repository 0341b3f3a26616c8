"""What the front door saw of one request: one record, filled as the request passes the
door's steps, from which its access-log line is written (``app/door/access_log.py``) and, with
``SERVER_TIMING`` on, its ``Server-Timing`` header made.

The steps, as ``Server-Timing`` names them (milliseconds, in this order):

- ``key``: the API key, hashed and found in the key cache or the database;
- ``limit``: the rate limits counted (the key's and address's budgets, the wrong-key and
  private-filter budgets);
- ``cache``: the response cache asked, and a wait for an identical request being made;
- ``query``: the database: the festival's revision, the request's read snapshot and the
  view, which reads the stored JSON of the answer and joins it as it reads;
- ``render``: the answer made ready to send: its validator, an error's JSON, compression
  and headers; for an answer Flask makes (the documentation, an unknown path), Flask's work.

A step the request did not pass is left out (a preflight has ``render`` alone). Time
between two steps counts to the later one. With ``SERVER_TIMING`` off nothing is timed:
``steps`` is None and the door does not call :meth:`Observation.lap` (a test of one
attribute a step instead of a call: ``docs/performance.md``, "Server-Timing").
"""
import time

KEY, LIMIT, CACHE, QUERY, RENDER = range(5)
STEPS = ("key", "limit", "cache", "query", "render")

SERVER_TIMING = "Server-Timing"


class Observation:
    """One request as the front door saw it: when it started and ended, what it asked, who
    asked, how it was answered and, when timed, how long each step took."""

    __slots__ = ("started", "started_at", "ended", "method", "path", "query", "status", "size",
                 "festival", "key_id", "cache", "steps", "_mark")

    def __init__(self, timed=False):
        self.started = self._mark = time.perf_counter()
        self.started_at = time.time()
        self.ended = None
        self.method = self.path = None
        self.query = ()  # the request's (name, value) pairs; the log keeps the names alone
        self.status = self.size = None
        self.festival = self.key_id = None
        self.cache = None  # "hit" or "miss" when the response cache was asked
        self.steps = [None] * len(STEPS) if timed else None  # seconds per step, when timed

    def lap(self, step):
        """Count the time since the last lap (or the start) to ``step`` (one of ``KEY`` ...
        ``RENDER``), when the request is timed."""
        steps = self.steps
        if steps is not None:
            now = time.perf_counter()
            spent, self._mark = now - self._mark, now
            before = steps[step]
            steps[step] = spent if before is None else before + spent

    def server_timing(self):
        """The ``Server-Timing`` header's value: ``key;dur=0.012, limit;dur=0.004, ...`` (ms)."""
        return ", ".join(f"{name};dur={spent * 1000:.3f}" for name, spent in zip(STEPS, self.steps)
                         if spent is not None)
