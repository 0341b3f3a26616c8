"""Is the database at a URL usable? One check for `festival-api serve` and ``/healthz``.

The check opens its own short-lived connection (never a request's), waits at most
``timeout`` seconds for a lock, and says what is wrong in words that name no path or host,
so the answer can be shown to anyone.
"""
import os
import sqlite3
from typing import NamedTuple
from urllib.parse import urlparse

import psycopg2
from playhouse.db_url import parse as parse_url

from .database import POSTGRES_SCHEMES, sqlite_path, unknown_url

# Settings of the connection pool in a postgresql+pool:// URL; libpq does not know them.
POOL_OPTIONS = ("max_connections", "stale_timeout", "timeout")


class Problem(NamedTuple):
    """``kind`` is one of the constants below; ``reason`` is one public sentence."""

    kind: str
    reason: str


MISSING_FOLDER = "missing-folder"
MISSING_FILE = "missing-file"
NOT_A_DATABASE = "not-a-database"
NO_TABLES = "no-tables"
OLDER_TABLES = "older-tables"
LOCKED = "locked"
UNREACHABLE = "unreachable"
DAMAGED = "damaged"

# Said to anyone asking /healthz (no path, no detail of the damage).
DAMAGED_REASON = "The database file is damaged; restore it from a backup."


def integrity_problem(path, tables=None, timeout=1.0):
    """None when SQLite's ``PRAGMA quick_check`` of the file at ``path`` finds nothing; else
    ``(Problem(DAMAGED, ...), first line of what it found)``.

    With ``tables``, only those tables and their indexes are checked (SQLite 3.33+): the
    part requests read, at a fraction of the cost of the whole file. quick_check reads
    every page of what it checks and verifies the b-trees, without comparing indexes to
    their tables (that is ``integrity_check``, much slower).
    """
    try:
        connection = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True, timeout=timeout)
    except sqlite3.Error as error:
        return Problem(DAMAGED, DAMAGED_REASON), str(error)
    try:
        for table in tables or [None]:
            pragma = "PRAGMA quick_check" if table is None else f'PRAGMA quick_check("{table}")'
            found = [row[0] for row in connection.execute(pragma).fetchmany(3)]
            if found != ["ok"]:
                lines = [line for row in found for line in str(row).splitlines() if not line.startswith("***")]
                return Problem(DAMAGED, DAMAGED_REASON), "; ".join(lines[:2])
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            return None  # a lock is not damage; the lock check reports it
        return Problem(DAMAGED, DAMAGED_REASON), str(error)
    except sqlite3.DatabaseError as error:
        return Problem(DAMAGED, DAMAGED_REASON), str(error)
    finally:
        connection.close()
    return None


def database_problem(url, tables, timeout=1.0, deadlines=None):
    """None when the database at ``url`` opens and holds every table named in ``tables``
    (``db.compiled.tables.required_tables(url)``); else a ``Problem``.

    ``deadlines(connect_seconds, answer_seconds)``: the connection class of PostgreSQL's
    check, or None for libpq's (``db.serving.deadlines.check_deadlines``).

    Raises ``ValueError`` for a URL of an unknown scheme.
    """
    path = sqlite_path(url)
    if path is None:
        return _postgres_problem(url, tables, timeout, deadlines)
    if path == ":memory:":
        return None
    return _sqlite_problem(path, tables, timeout)


def file_identity(path):
    """``(device, inode)`` of the file at ``path``, None when there is none.

    A connection keeps reading the file it opened even after that file is deleted or
    replaced; comparing identities tells when to open the new one.
    """
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _sqlite_problem(path, tables, timeout):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return Problem(MISSING_FOLDER, "The database file's folder does not exist.")
    if not os.path.isfile(path):
        return Problem(MISSING_FILE, "The database file does not exist.")
    try:
        connection = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True, timeout=timeout)
    except sqlite3.Error:
        return Problem(UNREACHABLE, "The database file cannot be opened.")
    try:
        found = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            return Problem(LOCKED, "The database is locked by another process.")
        return Problem(UNREACHABLE, "The database file cannot be read.")
    except sqlite3.DatabaseError:
        return Problem(NOT_A_DATABASE, "The database file is not a SQLite database, or it is damaged.")
    finally:
        connection.close()
    return _tables_problem(tables, found)


def _tables_problem(tables, found):
    tables = set(tables)
    missing = tables - set(found)
    if not missing:
        return None
    if missing == tables:
        return Problem(NO_TABLES, "The database does not hold the service's tables.")
    return Problem(OLDER_TABLES, "The database lacks some of the service's tables.")


def _postgres_problem(url, tables, timeout, deadlines):
    scheme = urlparse(url).scheme
    if scheme not in POSTGRES_SCHEMES:
        raise ValueError(unknown_url(url))
    params = parse_url(url, unquote_password=True, unquote_user=True)
    for option in POOL_OPTIONS:
        params.pop(option, None)
    params["dbname"] = params.pop("database")
    # libpq waits at least 2 seconds to connect; callers that need less wait in a thread.
    params["connect_timeout"] = max(2, round(timeout))
    params["options"] = f"{params.get('options') or ''} -c statement_timeout={int(timeout * 1000)}".strip()
    factory = deadlines and deadlines(params["connect_timeout"], timeout + 0.2)
    if factory is not None:
        params["connection_factory"] = factory
    try:
        connection = psycopg2.connect(**params)
    except psycopg2.Error:
        return Problem(UNREACHABLE, "The database server does not answer.")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM unnest(%s) AS name WHERE to_regclass(quote_ident(name)) IS NOT NULL",
                           (sorted(tables),))
            found = {name for (name,) in cursor.fetchall()}
    except psycopg2.Error:
        return Problem(UNREACHABLE, "The database server does not answer.")
    finally:
        connection.close()
    return _tables_problem(tables, found)
