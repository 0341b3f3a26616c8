"""The serving path's database: how a request of the HTTP service reads its festival.

One object per app, :class:`ServiceDatabase`, owns a request's revision -> snapshot ->
routing; beside it, ``snapshot.py`` is in charge of a request's read snapshot and its
festival's revision read as seldom as the engine allows, ``revision_watch.py`` of every
festival's revision on PostgreSQL kept in memory from the server's notifications,
``local_copy.py`` of a PostgreSQL service's local SQLite copy of the compiled tables, and
``deadlines.py`` of the deadlines of every PostgreSQL call of a request. The states of the
path, and the test that holds each transition: ``STATES.md`` beside this file.

The front door (``app/door/__init__.py``) begins a request's reads before it reads anything
(:meth:`ServiceDatabase.begin`), begins its read snapshot before a view reads pages
(:meth:`ServiceDatabase.snapshot`) and ends both when the answer is made. Beginning:

- follows the SQLite file's path, so a replaced or deleted file is noticed by every request
  (a connection keeps reading the file it opened): a new file gets a new connection, no
  file is a 503;
- gives the festival's revision, read as seldom as the engine allows
  (:class:`~db.serving.snapshot.RevisionCache`: on SQLite only after a commit, on PostgreSQL in
  the round trip of ``BEGIN``), and begins the snapshot only for a request that reads
  pages (:meth:`ServiceDatabase.snapshot`): an answer from the response cache reads
  nothing else, on SQLite one ``PRAGMA``;
- on PostgreSQL with the local copy (``LOCAL_COPY``, :mod:`db.serving.local_copy`): takes
  every festival's revision from a :class:`~db.serving.revision_watch.RevisionWatch`, which keeps
  them in memory from the server's notifications (a trigger sends one when an import
  commits), so a request makes no round trip to the server; opens the snapshot on the copy
  when the copy holds the festival at that revision, and routes the request's statements
  there (``database.route``); otherwise reads on the server, while the copy is brought up
  to date in the background. An import is seen by every request that comes after its
  notification reached the process (a fraction of a millisecond after its commit; at
  once when this process made it). Until the watch is live (starting, reconnecting after
  a failure, a database whose trigger ``festival-api init`` has not made yet) each request
  reads the revisions from the server, in one statement.

A connection the server killed (PostgreSQL restart, failover, ``pg_terminate_backend``)
fails the request's first statement on it: the front door answers the request once more on
new connections (:meth:`ServiceDatabase.killed`); a read changes nothing.

A database error in a request drops the thread's connection, so the next request opens a
new one and the service recovers by itself when the fault goes. Errors that say the file
is damaged mark it so: every request and ``/healthz`` answer 503 until the file changes
(restored from a backup, in place or by a new file).
"""
import contextlib
import os
import sqlite3
import threading
import weakref

import psycopg2
from peewee import DatabaseError, InterfaceError
from playhouse.pool import PooledDatabase

from ..database import database, is_postgres, sqlite_path
from ..health import NOT_A_DATABASE, Problem, file_identity
from ..source.revisions import NO_REVISION
from .deadlines import is_deadline_error, request_deadline, service_database
from .local_copy import COPY_ERRORS, LocalCopy
from .revision_watch import RevisionWatch, watch_connector
from .snapshot import RevisionCache, end_read_snapshot

# Peewee's exceptions, and the drivers' own from reads on the raw connection.
DATABASE_ERRORS = (DatabaseError, InterfaceError, sqlite3.Error, psycopg2.Error)

# What SQLite says when pages of the file are not what it wrote. Every text column holds
# UTF-8 the importer wrote, so text that does not decode was damaged in the file (a page
# read in index order can meet garbage in a row's overflow before SQLite calls it malformed).
DAMAGE_SIGNS = ("malformed", "not a database", "file is encrypted", "could not decode to utf-8")

DAMAGED = Problem(NOT_A_DATABASE, "The database file is damaged; restore it from a backup.")


class Unavailable(Exception):
    """The database cannot serve this request (the reason is logged, never shown)."""


class ServiceDatabase:
    """The bound Peewee database with per-thread read snapshots (see the module doc)."""

    def __init__(self, url, readonly=True, local_copy=False, local_copy_dir=None, logger=None,
                 request_deadline_ms=None, **deadlines):
        self.url = url
        # deadlines: connect_timeout and statement_timeout_ms of PostgreSQL (deadlines.py)
        self.db = service_database(url, readonly=readonly, **deadlines)
        database.initialize(self.db)
        path = sqlite_path(url)
        self._path = path if path not in (None, ":memory:") else None
        self._postgres = is_postgres(self.db)
        self._request_seconds = request_deadline_ms / 1000 if self._postgres and request_deadline_ms else None
        # Per thread: the file identity its connection reads, and where its snapshot is.
        self._local = threading.local()
        self.revisions = RevisionCache()
        self._damaged = None  # the file's fingerprint when a request found it damaged
        self.copy = self.watch = None
        if local_copy and is_postgres(self.db):
            self.copy = copy = LocalCopy(self.db, local_copy_dir or None, logger=logger)
            # Neither holds this object: when the app goes, its finalizer stops the watch.
            self.watch = RevisionWatch(watch_connector(self.db, RevisionWatch.DEADLINE_SECONDS),
                                       changed=lambda moved: [copy.want(key) for key in moved], logger=logger)
            weakref.finalize(self, self.watch.stop)

    def _fingerprint(self):
        try:
            stat = os.stat(self._path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size

    @property
    def damaged(self):
        """A ``Problem`` while the file is known to be damaged (until it changes), else None."""
        if self._damaged is None:
            return None
        if self._fingerprint() == self._damaged:
            return DAMAGED
        self._damaged = None
        return None

    @property
    def has_request_deadline(self):
        """Whether requests have a deadline (:meth:`deadline` is more than a null context)."""
        return self._request_seconds is not None

    def deadline(self):
        """A context for one request: all its waits on PostgreSQL, connecting included, end
        within ``DATABASE_REQUEST_DEADLINE_MS`` (:func:`db.serving.deadlines.request_deadline`)."""
        if self._request_seconds is None:
            return contextlib.nullcontext()
        return request_deadline(self._request_seconds)

    def begin(self):
        """Begin the request's reads; return ``revision_of(festival_id)`` -> ``(revision,
        changed_at)``: the festival's revision as of now, without a read snapshot where the
        engine allows (SQLite, and PostgreSQL with the local copy), so that an answer from
        the response cache costs none; :meth:`snapshot` begins one for a request that reads
        pages. Raises ``Unavailable`` when there is no file, or the file is known to be
        damaged."""
        local = self._local
        local.snapshot = None
        if self._path is not None:
            identity = file_identity(self._path)
            if identity is None:
                self.drop()
                raise Unavailable("the database file does not exist")
            if self._damaged is not None and self.damaged is not None:
                raise Unavailable("the database file is damaged")
            if identity != getattr(local, "identity", None):
                self.drop()
                local.identity = identity
        if self.copy is None:
            self.db.connect(reuse_if_open=True)
            if self._postgres:  # the snapshot begins with the revisions, in one round trip
                local.snapshot = "server"
            return self.revisions.begin(self.db)
        revisions = self.watch.current()
        if revisions is None:  # the watch is not live (yet): the server is asked
            self.watch.start()
            self.db.connect(reuse_if_open=True)
            revisions = self.revisions.read(self.db)
        return lambda festival_id: revisions.get(str(festival_id), NO_REVISION)

    def snapshot(self, festival_id, revision):
        """Begin the request's read snapshot, unless :meth:`begin` did, for ``festival_id``,
        whose ``(revision, changed_at)`` ``begin`` gave as ``revision``; return the revision
        in the snapshot, the one the answer is made at (it moved if an import committed
        between the two): on the local copy when it holds that revision."""
        local = self._local
        if local.snapshot is not None:  # PostgreSQL: begun with the revisions
            return revision
        if self.copy is not None:
            return self._snapshot_at(festival_id, revision)
        local.snapshot = "server"
        return self.revisions.snapshot(self.db, festival_id)

    def warm(self):
        """Start watching the server's revisions and bringing the local copy (if any) to
        every festival's, in the background: the first requests find both ready (``serve``
        calls this as it starts)."""
        if self.copy is not None:
            self.watch.start()
            self.copy.want()

    def _snapshot_at(self, festival_id, revision):
        """Open the request's snapshot at the server's ``revision``: on the copy when it holds
        it, else on the server (and the copy is brought up to date in the background)."""
        if revision[0] > 0 and self._on_copy(festival_id, revision):
            return revision
        self._local.snapshot = "server"
        self.db.connect(reuse_if_open=True)
        return self.revisions.begin(self.db)(festival_id)

    def _on_copy(self, festival_id, revision):
        """Route the thread to the copy if it opened its snapshot there at ``revision``; a
        failure of the copy's file sends this request and the next ones to the server for a
        while."""
        try:
            if not self.copy.begin(festival_id, revision):
                return False
        except COPY_ERRORS as error:
            self.copy.failed(error)
            return False
        self._local.snapshot = "copy"
        database.route(self.copy.db)
        return True

    # -- the end ---------------------------------------------------------------------------

    def end(self):
        """End this thread's snapshot; the connections stay open for its next request."""
        snapshot, self._local.snapshot = self._local.snapshot, None
        if snapshot == "copy":
            database.route(None)
            try:
                self.copy.end()
            except COPY_ERRORS:
                self.copy.db.close()
        elif snapshot == "server":
            end_read_snapshot(self.db)

    def drop(self):
        """Close this thread's connection (it is broken, or reads an old file)."""
        if not self.db.is_closed():
            try:
                self.db.close()
            except Exception:  # closing a broken connection may fail too; it is gone either way
                pass

    def close(self):
        """Stop using the database: stop the revision watch, remove the local copy, close this
        thread's connection and a pool's idle ones (other threads' close as the threads end)."""
        if self.watch is not None:
            self.watch.stop()
        if self.copy is not None:
            self.copy.close()
        if isinstance(self.db, PooledDatabase):
            self.db.close_idle()
        self.drop()

    def killed(self, error):
        """Whether ``error`` says the server closed a connection (a restart, a failover,
        ``pg_terminate_backend``) rather than failed a statement or missed its deadline: the
        request may be answered once more on new connections."""
        if not is_postgres(self.db) or is_deadline_error(error):
            return False
        while error is not None:  # Peewee's error wraps the driver's (``orig``)
            if isinstance(error, (psycopg2.OperationalError, psycopg2.InterfaceError)):
                return True
            error = getattr(error, "orig", None) or error.__cause__ or error.__context__
        return False

    def failed(self, error):
        """A request met ``error``: drop the connections; remember a damaged file."""
        if getattr(self._local, "snapshot", None) == "copy" and isinstance(error, sqlite3.Error):
            self.copy.failed(error)  # the copy's file failed: made again after a rest
        self.drop()
        if self._path is not None and any(sign in str(error).lower() for sign in DAMAGE_SIGNS):
            self._damaged = self._fingerprint()
