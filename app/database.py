"""The service's database, as an object the app owns: one read snapshot per API request.

The front door (``app/frontdoor.py``) opens a snapshot before it reads anything for a
request and ends it when the answer is made. Opening one:

- follows the SQLite file's path, so a replaced or deleted file is noticed by every request
  (a connection keeps reading the file it opened): a new file gets a new connection, no
  file is a 503;
- gives the festivals' revisions in the snapshot, read as seldom as the engine allows
  (``db.source.revisions.RevisionCache``: on SQLite only after a commit, on PostgreSQL in
  the round trip of ``BEGIN``);
- on PostgreSQL with the local copy (``LOCAL_COPY``, :mod:`db.compiled.local_copy`): sends
  the revisions' statement on the thread's own asynchronous connection and, while it
  travels, opens the snapshot on the copy at the revision the copy holds; the request's
  statements go to the copy (``database.route``), and its answer is made. Before the
  answer is sent the front door asks :meth:`ServiceDatabase.confirmed`: the server's
  revision has arrived by then (a round trip is shorter than a request), and when the copy
  was behind it the answer is made again at the server's revision (:meth:`again`), on the
  server, while the copy is brought up to date in the background. So an import is seen by
  the next request, and a request waits for the server only as long as its round trip
  outlasts the request's own work; never for the copy.

A connection the server killed (PostgreSQL restart, failover, ``pg_terminate_backend``)
fails the request's first statement on it: the front door answers the request once more on
new connections (:meth:`ServiceDatabase.killed`); a read changes nothing.

A database error in a request drops the thread's connection, so the next request opens a
new one and the service recovers by itself when the fault goes. Errors that say the file
is damaged mark it so: every request and ``/healthz`` answer 503 until the file changes
(restored from a backup, in place or by a new file).
"""
import os
import sqlite3
import threading

import psycopg2
from peewee import DatabaseError, InterfaceError

from db.compiled.local_copy import COPY_ERRORS, LocalCopy
from db.database import bind_database, database, end_read_snapshot, is_postgres, sqlite_path
from db.deadlines import is_deadline_error, wait_with_deadline
from db.health import NOT_A_DATABASE, Problem, file_identity
from db.source.revisions import RevisionCache

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

    def __init__(self, url, readonly=True, local_copy=False, local_copy_dir=None, logger=None, **deadlines):
        self.url = url
        # deadlines: connect_timeout and statement_timeout_ms of PostgreSQL (db/deadlines.py)
        self.db = bind_database(url, readonly=readonly, **deadlines)
        path = sqlite_path(url)
        self._path = path if path not in (None, ":memory:") else None
        # Per thread: the file identity its connection reads, and where its snapshot is.
        self._local = threading.local()
        self.revisions = RevisionCache()
        self._damaged = None  # the file's fingerprint when a request found it damaged
        self.copy = (LocalCopy(self.db, local_copy_dir or None, logger=logger)
                     if local_copy and is_postgres(self.db) else None)

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

    def begin(self):
        """Begin the request's reads; return ``revision_of(festival_id)`` -> ``(revision,
        changed_at)``, which opens the snapshot the request reads in.

        With the local copy the revision it gives is the copy's, while the server's is on its
        way: :meth:`confirmed` says whether they agree, and :meth:`again` opens a snapshot at
        the server's when they do not. Raises ``Unavailable`` when there is no file, or the
        file is known to be damaged.
        """
        local = self._local
        local.snapshot = local.guess = None
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
            local.snapshot = "server"
            self.db.connect(reuse_if_open=True)
            return self.revisions.begin(self.db)
        self._send_revisions()
        return self._provisional

    def _provisional(self, festival_id):
        """The copy's revision of the festival with its snapshot open, while the server's is
        on its way; when the copy does not hold the festival, the server's (waited for)."""
        local = self._local
        guess = self.copy.held(festival_id)
        if guess is not None and self._on_copy(lambda: self.copy.open_at(festival_id, guess)):
            local.guess = (festival_id, guess)
            return guess
        return self._snapshot_at(festival_id, self._server_revisions()(festival_id))

    def confirmed(self):
        """Whether the request read at the server's revision (waiting for the server's answer
        if need be). Always true without the copy, or when the copy was not read."""
        guess = self._local.guess
        return guess is None or self._server_revisions()(guess[0]) == guess[1]

    def again(self):
        """The copy was behind the server: end the request's snapshot and return
        ``revision_of``, which opens one at the server's revision."""
        self._end_snapshot()
        return lambda festival_id: self._snapshot_at(festival_id, self._server_revisions()(festival_id))

    def warm(self):
        """Start bringing the local copy (if any) to every festival's revision, in the
        background: the first requests find it made (``serve`` calls this as it starts)."""
        if self.copy is not None:
            self.copy.want()

    def _snapshot_at(self, festival_id, revision):
        """Open the request's snapshot at the server's ``revision``: on the copy when it holds
        it, else on the server (and the copy is brought up to date in the background)."""
        if revision[0] > 0 and self._on_copy(lambda: self.copy.begin(festival_id, revision)):
            return revision
        self._local.snapshot = "server"
        self.db.connect(reuse_if_open=True)
        return self.revisions.begin(self.db)(festival_id)

    def _on_copy(self, opened):
        """Route the thread to the copy if ``opened()`` opened its snapshot there; a failure of
        the copy's file sends this request and the next ones to the server for a while."""
        try:
            if not opened():
                return False
        except COPY_ERRORS as error:
            self.copy.failed(error)
            return False
        self._local.snapshot = "copy"
        database.route(self.copy.db)
        return True

    # -- the revisions, on a connection of their own --------------------------------------

    def _send_revisions(self):
        """Send the revisions' statement on this thread's own asynchronous connection; the
        request goes on while it travels."""
        local = self._local
        local.received = None
        line = getattr(local, "line", None)
        if line is None or line.closed:
            line = local.line = self._connect_line()
        try:
            local.pending = self.revisions.send(line)
        except (psycopg2.OperationalError, psycopg2.InterfaceError):  # closed by the server
            local.pending = self._sent_on_a_new_line()

    def _server_revisions(self):
        """``revision_of`` from the server's answer, waited for the first time."""
        local = self._local
        if local.received is None:
            try:
                local.received = self.revisions.received(local.pending, wait_with_deadline)
            except (psycopg2.OperationalError, psycopg2.InterfaceError) as error:
                if is_deadline_error(error):
                    raise
                # The server closed the line (a restart, a failover): asked again on a new
                # one, so that an answer already made need not be made again.
                local.received = self.revisions.received(self._sent_on_a_new_line(), wait_with_deadline)
            local.pending = None
        return local.received

    def _sent_on_a_new_line(self):
        """Replace this thread's line (the server closed it) and send the statement on the new one."""
        self._drop_line()
        self._local.line = self._connect_line()
        return self.revisions.send(self._local.line)

    def _connect_line(self):
        line = psycopg2.connect(dbname=self.db.database, async_=True, **self.db.connect_params)
        wait_with_deadline(line)
        return line

    def _drop_line(self):
        line, self._local.line, self._local.pending = getattr(self._local, "line", None), None, None
        if line is not None:
            try:
                line.close()
            except Exception:  # a broken connection may fail to close; it is gone either way
                pass

    # -- the end ---------------------------------------------------------------------------

    def end(self):
        """End this thread's snapshot; the connections stay open for its next request."""
        self._end_snapshot()
        local = self._local
        local.guess = None
        if getattr(local, "pending", None) is not None:  # sent and never needed (a 401, say)
            try:
                self._server_revisions()
            except Exception:  # noqa: BLE001 -- the next request opens a new connection
                self._drop_line()

    def _end_snapshot(self):
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
        self._drop_line()
        if self._path is not None and any(sign in str(error).lower() for sign in DAMAGE_SIGNS):
            self._damaged = self._fingerprint()
