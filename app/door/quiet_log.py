"""One log line per cause per interval: an outage is not a line (or a traceback) per request.

While a dependency is down (PostgreSQL restarting, a server that hangs, a missing file),
every request fails for the same reason; a line with a traceback for each was megabytes a
second in the journal, and hid what else happened. :class:`QuietLog` writes the first
line of a cause at once, holds back its repeats for ``INTERVAL_SECONDS``, and then writes
one line again with the number held back. When the cause goes away, the count of the
last interval is written by :meth:`QuietLog.flush` (the front door calls it after every
data request: a cheap check while nothing is held).

A cause is a short text naming what failed (``"deadline: the database server did not answer
a moment ago"``): the same cause is one line per interval, two causes are two.
"""
import threading
import time

INTERVAL_SECONDS = 10.0
# Causes remembered at most; those whose interval passed are forgotten first.
MAX_CAUSES = 256


class QuietLog:
    """Errors written through ``logger`` at most once per cause and ``seconds``."""

    def __init__(self, logger, seconds=INTERVAL_SECONDS, clock=time.monotonic):
        self._logger = logger
        self._seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._causes = {}  # cause -> [time its interval ends, repeats held back in it]
        self.held = 0  # repeats held back and not yet written, over every cause

    def error(self, cause, message, *args, exc_info=None):
        """Log ``message % args`` (and ``exc_info``'s traceback) unless ``cause`` was logged
        less than the interval ago; then it is counted instead."""
        now = self._clock()
        with self._lock:
            state = self._causes.get(cause)
            if state is not None and now < state[0]:
                state[1] += 1
                self.held += 1
                return
            held = state[1] if state is not None else 0
            self.held -= held
            if state is None and len(self._causes) >= MAX_CAUSES:
                self._forget(now)
            self._causes[cause] = [now + self._seconds, 0]
        if held:
            message += " (%d more like it in the last %g s were not logged)"
            args = (*args, held, self._seconds)
        self._logger.error(message, *args, exc_info=exc_info)

    def flush(self):
        """Write the repeats held back of every cause whose interval ended, one line each."""
        if not self.held:
            return
        now = self._clock()
        with self._lock:
            due = [(cause, state[1]) for cause, state in self._causes.items() if state[1] and now >= state[0]]
            for cause, _ in due:
                del self._causes[cause]
            self.held -= sum(count for _, count in due)
        for cause, count in due:
            self._logger.error("%s: %d more like it in the last %g s were not logged", cause, count, self._seconds)

    def _forget(self, now):
        for cause in [cause for cause, state in self._causes.items() if now >= state[0] and not state[1]]:
            del self._causes[cause]
        if len(self._causes) >= MAX_CAUSES:  # all within their interval: the oldest goes
            oldest = min(self._causes, key=lambda cause: self._causes[cause][0])
            self.held -= self._causes.pop(oldest)[1]
