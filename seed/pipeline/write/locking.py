"""One writer at a time: an import or update waits for another, says so, and gives up after
a deadline; a full disk is named as such.

SQLite lets one connection write at a time: the transaction starts with ``BEGIN IMMEDIATE``
(taking the write lock first, so a transaction that has read never fails to write later
with "database is locked"), retried while another writer holds the lock. PostgreSQL would
let two imports run together and fail one at commit ("duplicate key ..."): a transaction
advisory lock makes the second wait instead. Readers (the HTTP service) never wait.
"""
import contextlib
import errno
import sqlite3
import sys
import time

import psycopg2
import psycopg2.errors
from peewee import OperationalError

from db.database import database, is_postgres

# Imports and updates of every festival take the same lock: they also write shared tables.
ADVISORY_LOCK = 0x66657374  # "fest"
DEFAULT_WAIT_SECONDS = 600.0
POLL_SECONDS = 0.2


class WriteError(Exception):
    """A write that could not be done for a reason outside the file; ``str()`` is one line."""


class WaitedTooLong(WriteError):
    pass


class DiskFull(WriteError):
    pass


def _say(line):
    print(line, file=sys.stderr, flush=True)


def is_disk_full(error):
    """Did ``error``, or an error it wraps, say that the disk (or the database) is full?"""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno == errno.ENOSPC:
            return True
        if isinstance(error, psycopg2.errors.DiskFull):
            return True
        if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(error):
            return True
        wrapped = error.args[0] if error.args and isinstance(error.args[0], BaseException) else None
        error = wrapped or error.__cause__ or error.__context__
    return False


def _is_locked(error):
    return "database is locked" in str(error) or "database is busy" in str(error)


def _full(error):
    where = "the PostgreSQL server's disk" if is_postgres() else "the disk holding the database (or its size limit)"
    return DiskFull(f"{where} is full: nothing was written. Free some space and run the command again")


def _waiting(seconds):
    return (f"another import or update is writing to the database: waiting for it to finish "
            f"(at most {seconds:g} s, IMPORT_WAIT_SECONDS)")


def _too_long(seconds):
    return WaitedTooLong(f"another import or update was still writing after {seconds:g} s "
                         f"(IMPORT_WAIT_SECONDS): nothing was written; run the command again when it has finished")


def _begin(db, seconds, say):
    """Start the write transaction (an entered Peewee ``atomic``), waiting for other writers."""
    deadline = time.monotonic() + seconds
    said = False
    postgres = is_postgres(db)
    if not postgres:
        db.execute_sql(f"PRAGMA busy_timeout = {int(POLL_SECONDS * 1000)}")
    try:
        while True:
            transaction = db.atomic() if postgres else db.atomic(lock_type="IMMEDIATE")
            try:
                transaction.__enter__()
            except OperationalError as error:
                if not _is_locked(error):
                    raise
            else:
                if not postgres:
                    return transaction
                if db.execute_sql("SELECT pg_try_advisory_xact_lock(%s)", (ADVISORY_LOCK,)).fetchone()[0]:
                    return transaction
                transaction.__exit__(None, None, None)
            if not said:
                say(_waiting(seconds))
                said = True
            if time.monotonic() >= deadline:
                raise _too_long(seconds)
            time.sleep(POLL_SECONDS)
    finally:
        if not postgres:
            from db.database import SQLITE_PRAGMAS

            db.execute_sql(f"PRAGMA busy_timeout = {SQLITE_PRAGMAS['busy_timeout']}")


@contextlib.contextmanager
def write_transaction(seconds=DEFAULT_WAIT_SECONDS, say=_say):
    """The transaction of one import or update: the database's only writer while it lasts;
    ``seconds`` is how long it waits for another writer (``IMPORT_WAIT_SECONDS``, which the
    command line reads and passes down)."""
    db = database.obj
    try:
        transaction = _begin(db, seconds, say)
    except (OperationalError, sqlite3.Error, psycopg2.Error) as error:
        if is_disk_full(error):
            raise _full(error) from error
        raise
    try:
        yield
    except BaseException as error:
        try:
            transaction.__exit__(type(error), error, error.__traceback__)
        except Exception:
            # SQLite has already rolled back after "database or disk is full": rolling back
            # again fails ("no transaction is active") and would hide the cause.
            if not is_disk_full(error):
                raise
        if is_disk_full(error):
            raise _full(error) from error
        raise
    else:
        try:
            transaction.__exit__(None, None, None)
        except Exception as error:
            if is_disk_full(error):
                raise _full(error) from error
            raise
