"""One JSON line per request on stderr, and errors with their traceback (server side only).

An access line, written from the request's :class:`~app.door.observation.Observation`, holds the
time, method, path, the *names* of the query parameters (values can be personal, e.g. a
chest number), status, duration, festival slug, the API key's id (never the key), bytes
sent and whether the response cache answered.

Under ``festival-api serve`` a line may be *held* (:func:`hold_observation`): its request
takes its place among the held lines before its answer is sent, and its line is made and
written with the others in one ``write(2)`` once the server has no request waiting
(``app/server/__init__.py`` calls :func:`write_held`), or at ``MAX_HELD`` lines. Under load
one system call then writes many lines; an idle server writes each line as its request ends.
A request that a client sends once it has an answer is logged after that answer's request,
whichever connection it comes on (a browser's preflight, then its call).
"""
import atexit
import datetime
import logging
import os
import sys
import threading
import time

import orjson
from flask.logging import default_handler

from .observation import Observation

ACCESS_LOGGER = "festival_api.access"


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON; a traceback becomes a string field."""

    def format(self, record):
        line = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if fields is not None:
            line.update(fields)
        else:
            line["message"] = record.getMessage()
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class StderrHandler(logging.StreamHandler):
    """Writes to the current ``sys.stderr`` (test runners swap it)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(JsonFormatter())

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass

    def write_line(self, line, held=False):
        """Write ``line`` (a dict) as a JSON line without a log record: for the access line
        of every request, whose fields are already made, logging's record, caller lookup
        and formatting would cost as much as a cached answer. ``held``: the line may wait
        for :func:`write_held` (see the module doc).

        To the process's own stderr lines go in one ``write(2)`` a batch, from one thread at a
        time, which writes what others held meanwhile (:class:`_HeldLines`): lines leave in
        order, and worker threads never queue behind each other's system call for a lock,
        which at 64 connections cost two thirds of the throughput."""
        data = _encoded(line)
        if self.writes_own_stderr():
            if not held:
                _HELD.write(data)
            elif _HELD.hold(data) >= MAX_HELD:
                _HELD.write()
            return
        stream = self.stream
        with self.lock:
            stream.write(data.decode())
            stream.flush()

    def writes_own_stderr(self):
        """Whether the lines go to the process's own stderr, written to its descriptor (and
        held, :class:`_HeldLines`), not to a stream a test runner put in its place."""
        return _STDERR_FD is not None and self.stream is sys.__stderr__


# Lines held at most, and so written in one system call at most.
MAX_HELD = 64


def _encoded(line):
    return orjson.dumps(line, default=str) + b"\n"


class _HeldLines:
    """Access lines waiting to be written to the process's stderr, in the order their
    answers were made: each a line (bytes) or an observation whose line is made when written.

    One thread writes at a time, and writes what was held while it wrote before it lets go:
    lines leave in the order they were held. A thread that finds another writing leaves its
    lines to it, not waiting for its system call (``wait``: but for that one, in turn)."""

    def __init__(self):
        self._lines = []
        # Never held across a system call; reentrant: SIGTERM's handler writes the held lines
        # from the main thread, which the signal may have caught inside hold() or write().
        self._lock = threading.RLock()
        self._writing = threading.RLock()  # held by the thread writing

    def hold(self, data):
        """Keep ``data`` (a line, or an :class:`~app.door.observation.Observation`); return how
        many lines are held now."""
        with self._lock:
            self._lines.append(data)
            return len(self._lines)

    def write(self, data=b"", wait=False):
        """Write the held lines, then ``data``, each batch in one ``write(2)``."""
        if data:
            self.hold(data)
        while self._lines:
            if not self._writing.acquire(timeout=1 if wait else 0):
                return  # the thread writing takes them before it lets go
            try:
                with self._lock:
                    lines, self._lines = self._lines, []
                    data = b"".join(line if type(line) is bytes else _encoded(_line(line)) for line in lines)
                while data:  # only a signal or a full disk cuts a write short
                    data = data[os.write(_STDERR_FD, data):]
            finally:
                self._writing.release()


def _stderr_fd():
    try:
        return sys.__stderr__.fileno()
    except (AttributeError, OSError, ValueError):  # no stderr, or not a file (embedded)
        return None


_STDERR_FD = _stderr_fd()
_HELD = _HeldLines()
_HANDLER = StderrHandler()


def write_held(wait=False):
    """Write the access lines held so far (the server calls this when no request waits);
    ``wait``: for a thread writing now, as the process ends."""
    _HELD.write(wait=wait)


atexit.register(write_held, wait=True)
_SERVICE = logging.getLogger("festival_api")
_ACCESS = logging.getLogger(ACCESS_LOGGER)


def _iso(timestamp):
    moment = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Clock:
    """``_iso`` of the access lines, the date and time text made once per second (kept as one
    ``(second, text)`` pair, so threads never see a second with another second's text)."""

    __slots__ = ("made",)

    def __init__(self):
        self.made = (None, "")

    def iso(self, timestamp):
        second = int(timestamp)
        micro = round((timestamp - second) * 1_000_000)  # as datetime rounds a timestamp
        if micro == 1_000_000:
            second, micro = second + 1, 0
        made_second, text = self.made
        if second != made_second:
            text = _iso(second)[:-5]  # "2026-11-24T19:40:41"
            self.made = (second, text)
        return f"{text}.{micro // 1000:03d}Z"


_CLOCK = _Clock()


def _line(seen):
    """The access line (a dict) of ``seen``, of which the query's names alone are logged."""
    started, festival = seen.started, seen.festival
    return {
        "time": _CLOCK.iso(seen.started_at or time.time()),
        "level": "INFO",
        "logger": ACCESS_LOGGER,
        "method": seen.method,
        "path": seen.path,
        "query": sorted({name for name, _ in seen.query}),
        "status": seen.status,
        "duration_ms": round(((seen.ended or time.perf_counter()) - started) * 1000, 2) if started else None,
        "festival": festival.slug if festival is not None else None,
        "key_id": seen.key_id,  # text: the key cache keeps it so
        "bytes": seen.size,
        "cache": seen.cache,
    }


def _as_configured():
    """Whether the access lines go to the service's own handler alone (no other handler wants a record)."""
    return not _ACCESS.handlers and _SERVICE.handlers == [_HANDLER]


def log_observation(seen, held=False):
    """Write the access line of ``seen`` (an :class:`~app.door.observation.Observation`: the front
    door, ``app/door/__init__.py``, writes one per request), of which the query's names alone are
    logged; ``held``: the line may wait for :func:`write_held`, which the server calls."""
    if not _ACCESS.isEnabledFor(logging.INFO):
        return
    line = _line(seen)
    if _as_configured():
        _HANDLER.write_line(line, held)
    else:
        del line["level"], line["logger"]
        _ACCESS.info("request", extra={"fields": line})


def hold_observation(seen):
    """Give the access line of ``seen``, whose answer is made but not sent, its place among the
    held lines; its line is made when they are written (:func:`write_held`). True when
    ``MAX_HELD`` lines are held: the caller writes them once the answer is sent. Where the
    lines do not go to the process's stderr alone, the line is written now."""
    if not _ACCESS.isEnabledFor(logging.INFO):
        return False
    if _as_configured() and _HANDLER.writes_own_stderr():
        return _HELD.hold(seen) >= MAX_HELD
    log_observation(seen)
    return False


def log_request(method, path, query, status, started, festival, key_id, size, cache, started_at=None, ended=None,
                held=False):
    """Write one access line from its fields (:func:`log_observation` of an observation that
    holds them); ``started`` and ``ended`` (default: now) are ``time.perf_counter()``
    readings."""
    seen = Observation()
    seen.method, seen.path, seen.query, seen.status, seen.size = method, path, query, status, size
    seen.started, seen.started_at, seen.ended = started, started_at, ended
    seen.festival, seen.key_id, seen.cache = festival, key_id, cache
    log_observation(seen, held)


def _use_json_lines(logger, level):
    logger.setLevel(level)
    if _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)
    # waitress configures the root logger; our lines must not be printed twice.
    logger.propagate = False


def init_access_log(app):
    """Write ``app``'s access lines and its errors (with tracebacks) as JSON lines on stderr."""
    level = app.config["LOG_LEVEL"].upper()
    _use_json_lines(logging.getLogger("festival_api"), level)
    # Flask logs unhandled exceptions (with traceback) on app.logger.
    app.logger.removeHandler(default_handler)
    _use_json_lines(app.logger, level)
