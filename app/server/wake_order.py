"""Idle worker threads woken last-in first-out.

Reaches into ``threading.Condition``'s internals (``_is_owned``, ``_waiters``), written
against the CPython versions in ``PYTHONS``: ``tests/test_server.py`` holds the order of
waking, and ``tests/test_library_bounds.py`` fails on any other Python until this module is
read against its ``threading.py`` and the version added.
"""
import threading

PYTHONS = ((3, 11), (3, 12), (3, 13))


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
