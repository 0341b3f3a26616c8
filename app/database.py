"""The service's database, as an object the app owns: one read snapshot per API request.

The front door (``app/frontdoor.py``) opens a snapshot before it reads anything for a
request and ends it when the answer is made. Opening one:

- follows the SQLite file's path, so a replaced or deleted file is noticed by every request
  (a connection keeps reading the file it opened): a new file gets a new connection, no
  file is a 503;
- replaces a connection the server killed (PostgreSQL restart, failover,
  ``pg_terminate_backend``) and tries once more, before anything of the request was read;
- gives the festivals' revisions in the snapshot, read as seldom as the engine allows
  (``db.source.revisions.RevisionCache``: on SQLite only after a commit, on PostgreSQL in
  the round trip of ``BEGIN``);
- on PostgreSQL with the local copy (``LOCAL_COPY``, :mod:`db.compiled.local_copy`): reads
  the revisions alone, in one round trip and no transaction, and opens the snapshot on the
  copy when it holds the festival at that revision (after bringing it up to date if need
  be); the request's statements go to the copy (``database.route``). When the copy cannot
  serve (another thread is updating it, or its file failed) the snapshot is PostgreSQL's.

A database error in a request drops the thread's connection, so the next request opens a
new one and the service recovers by itself when the fault goes. Errors that say the file
is damaged mark it so: every request and ``/healthz`` answer 503 until the file changes
(restored from a backup, in place or by a new file).
"""
import os
import sqlite3
import threading

import psycopg2
from peewee import DatabaseError, InterfaceError, OperationalError

from db.compiled.local_copy import COPY_ERRORS, RETRY_SECONDS, LocalCopy
from db.database import bind_database, database, end_read_snapshot, is_postgres, sqlite_path
from db.deadlines import is_deadline_error
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
        self.copy = LocalCopy(self.db, local_copy_dir or None) if local_copy and is_postgres(self.db) else None
        self._logger = logger

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
        """Open this thread's read snapshot; return ``revision_of(festival_id)`` ->
        ``(revision, changed_at)`` in it.

        Raises ``Unavailable`` when there is no file, or the file is known to be damaged.
        """
        if self._path is not None:
            identity = file_identity(self._path)
            if identity is None:
                self.drop()
                raise Unavailable("the database file does not exist")
            if self._damaged is not None and self.damaged is not None:
                raise Unavailable("the database file is damaged")
            if identity != getattr(self._local, "identity", None):
                self.drop()
                self._local.identity = identity
        snapshot = self.copy is None
        self._local.snapshot = "server" if snapshot else None
        try:
            self.db.connect(reuse_if_open=True)
            revision_of = self.revisions.begin(self.db, snapshot=snapshot)
        except (OperationalError, InterfaceError, psycopg2.OperationalError, psycopg2.InterfaceError):
            if self._path is not None:
                raise
            # A server-side connection that was killed fails at its first statement; the
            # request has read nothing yet, so a new connection can take its place.
            self.drop()
            self.db.connect()
            revision_of = self.revisions.begin(self.db, snapshot=snapshot)
        if snapshot:
            return revision_of
        return lambda festival_id: self._snapshot_of(festival_id, revision_of(festival_id))

    def _snapshot_of(self, festival_id, revision):
        """Open the request's snapshot, on the copy when it can serve ``revision``, else on
        the server; return the festival's revision in it."""
        if revision[0] > 0:
            try:
                if self.copy.begin(festival_id, revision):
                    self._local.snapshot = "copy"
                    database.route(self.copy.db)
                    return revision
            except COPY_ERRORS as error:  # the copy's file: this request and the next ones read the server
                self.copy.failed()
                if self._logger is not None:
                    self._logger.error("the local copy failed; reading from PostgreSQL for %d s: %s",
                                       RETRY_SECONDS, error)
            except psycopg2.Error as error:  # the server, while it was being copied: the request fails
                if is_deadline_error(error):  # a copy too slow for the deadline must not fail every request
                    self.copy.failed()
                raise
        self._local.snapshot = "server"
        return self.revisions.begin(self.db)(festival_id)

    def end(self):
        """End this thread's snapshot; the connection stays open for its next request."""
        snapshot, self._local.snapshot = getattr(self._local, "snapshot", None), None
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

    def failed(self, error):
        """A request met ``error``: drop the connection; remember a damaged file."""
        if getattr(self._local, "snapshot", None) == "copy" and isinstance(error, sqlite3.Error):
            self.copy.failed()  # the copy's file failed: made again after a rest
        self.drop()
        if self._path is not None and any(sign in str(error).lower() for sign in DAMAGE_SIGNS):
            self._damaged = self._fingerprint()
