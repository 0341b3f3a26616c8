"""The one database handle every model uses, bound at start-up from ``DATABASE_URL``."""
import contextlib
import os
import sqlite3
import threading
from urllib.parse import urlparse

from peewee import DatabaseProxy, PostgresqlDatabase, SqliteDatabase
from playhouse.db_url import parse as parse_url
from playhouse.pool import PooledPostgresqlDatabase


DEFAULT_DATABASE_URL = "sqlite:///festival.db"


class RoutedDatabaseProxy(DatabaseProxy):
    """The models' database: the one bound at start-up or, for one thread while it answers a
    request, another one holding the same tables (the local copy of the compiled tables,
    :mod:`db.serving.local_copy`).

    Peewee's ``ThreadSafeDatabaseMetadata`` swaps the database per thread and model; here one
    thread-local covers every model and every raw statement (``database.obj``), so a
    request switches with one assignment.
    """

    __slots__ = ("_bound", "_local")

    def __init__(self):
        object.__setattr__(self, "_local", threading.local())
        object.__setattr__(self, "_bound", None)
        super().__init__()

    @property
    def obj(self):
        return getattr(self._local, "db", None) or self._bound

    @obj.setter
    def obj(self, db):
        object.__setattr__(self, "_bound", db)

    def __setattr__(self, attr, value):
        if attr not in ("obj", "_callbacks", "_Model"):
            raise AttributeError("Cannot set attribute on proxy.")
        object.__setattr__(self, attr, value)

    def route(self, db):
        """Send this thread's statements to ``db`` (None: back to the bound database)."""
        self._local.db = db


database = RoutedDatabaseProxy()

# WAL lets the importer write while the service keeps reading the previous revision.
SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "cache_size": -32 * 1024,
    "busy_timeout": 5000,
}

# SQLite's page cache of each connection of the HTTP service (KiB): each worker thread has
# its own connection, so a process holds up to THREADS times this. The pages are in the
# system's file cache too; a reader needs the indexes' upper pages, a few MB.
READ_CACHE_KIB = 8 * 1024

# A reader of a WAL database waits for a lock only when something is wrong (another
# process holds an exclusive lock on a rollback-journal file): the HTTP service answers
# 503 after this long rather than holding the request.
READ_BUSY_TIMEOUT_MS = 1000


class ByteOrderTextMixin:
    """Tell queries which collation compares text byte by byte, as SQLite always does.

    ``db.query.text_key`` reads ``byte_order_collation`` from the SQL context, so one
    query renders ``LOWER(col)`` on SQLite and ``LOWER(col COLLATE "C")`` on PostgreSQL
    and both engines order and match text the same way, whatever the database's locale.
    """

    def get_context_options(self):
        return {**super().get_context_options(), "byte_order_collation": '"C"'}


class PostgresDatabase(ByteOrderTextMixin, PostgresqlDatabase):
    """PostgreSQL, one connection per request."""


class PooledPostgresDatabase(ByteOrderTextMixin, PooledPostgresqlDatabase):
    """PostgreSQL with a connection pool (``postgresql+pool://``); closing returns to the pool."""


POSTGRES_SCHEMES = {
    "postgres": PostgresDatabase,
    "postgresql": PostgresDatabase,
    "postgres+pool": PooledPostgresDatabase,
    "postgresql+pool": PooledPostgresDatabase,
}

# Every transaction of a read-only session is read-only: the server refuses any write.
READ_ONLY_OPTION = "-c default_transaction_read_only=on"


def shown_url(url):
    """``url`` with any password replaced by ``***``."""
    parsed = urlparse(url)
    if parsed.password is None:
        return url
    netloc = parsed.netloc.replace(f":{parsed.password}@", ":***@", 1)
    return parsed._replace(netloc=netloc).geturl()


def unknown_url(url):
    """The message for a ``DATABASE_URL`` that names no engine: the value given, and what is
    expected (for a bare file path, the URL of that file)."""
    example = f"sqlite:///{url}" if url and not urlparse(url).scheme else "sqlite:///festival.db"
    return (f"DATABASE_URL={shown_url(url)!r} does not name a database: it must start with sqlite:/// or "
            f"postgresql:// (a SQLite file: {example}; a server: postgresql://USER@HOST:5432/DB)")


def sqlite_path(url):
    """Return the file path of an ``sqlite:///`` URL, or None for other engines."""
    parsed = urlparse(url)
    if parsed.scheme != "sqlite":
        return None
    path = parsed.path[1:] if parsed.path.startswith("/") else parsed.path
    return path or ":memory:"


def make_database(url=None, readonly=False, **postgres):
    """Create (but do not open) a Peewee database for ``url``.

    ``readonly`` opens SQLite files with ``mode=ro`` and makes every PostgreSQL
    transaction read-only: the HTTP service never writes. ``postgres``: see
    :func:`make_postgres_database` (the HTTP service's deadlines, :mod:`db.serving.deadlines`;
    commands that write give none: an import's statements may take long).
    """
    url = url or os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    path = sqlite_path(url)
    if path is not None:
        if readonly and path != ":memory:":
            # The wait starts at connecting: the pragmas below already read the file.
            pragmas = {k: v for k, v in SQLITE_PRAGMAS.items() if k not in ("journal_mode", "busy_timeout")}
            pragmas["cache_size"] = -READ_CACHE_KIB
            return SqliteDatabase(
                f"file:{os.path.abspath(path)}?mode=ro", uri=True, pragmas=pragmas,
                timeout=READ_BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
            )
        return SqliteDatabase(path, pragmas=SQLITE_PRAGMAS, check_same_thread=False)
    return make_postgres_database(url, readonly=readonly, **postgres)


def make_postgres_database(url, readonly=False, schemes=POSTGRES_SCHEMES, options=(), more_params=None):
    """A PostgreSQL database for a ``postgresql://`` URL; query parameters go to libpq.

    ``schemes``: the database class of each URL scheme; ``options``: server settings
    (``-c name=value``) after the URL's own; ``more_params(params)``: more connection
    parameters, given the URL's (the HTTP service's deadlines, :mod:`db.serving.deadlines`).
    """
    scheme = urlparse(url).scheme
    if scheme not in schemes:
        raise ValueError(unknown_url(url))
    params = parse_url(url, unquote_password=True, unquote_user=True)
    name = params.pop("database")
    settings = [params.get("options") or ""]
    if readonly:
        settings.append(READ_ONLY_OPTION)
    settings.extend(options)
    if more_params is not None:
        params.update(more_params(params))
    if " ".join(settings).strip():
        params["options"] = " ".join(o for o in settings if o).strip()
    return schemes[scheme](name, **params)


def bind_database(url=None, readonly=False, **postgres):
    """Point the shared proxy at the database named by ``url`` and return it
    (``postgres``: see ``make_database``)."""
    db = make_database(url, readonly=readonly, **postgres)
    database.initialize(db)
    return db


def is_postgres(db=None):
    db = db or database.obj
    return isinstance(db, PostgresqlDatabase)


def backup_sqlite(source_path, dest_path, pages=1024):
    """Copy a live SQLite database to ``dest_path`` with SQLite's online backup API.

    The service and the importer keep working meanwhile: the copy is one consistent
    snapshot, taken ``pages`` pages at a time. It is written beside ``dest_path`` and
    renamed when complete and checked, so ``dest_path`` never holds half a backup. The
    copy is a single self-contained file (rollback journal, no ``-wal`` beside it).
    """
    if not os.path.isfile(source_path):
        raise FileNotFoundError(f"no database file at {source_path}")
    partial = f"{dest_path}.partial"
    try:
        source = f"file:{os.path.abspath(source_path)}?mode=ro"
        with contextlib.closing(sqlite3.connect(source, uri=True)) as src, \
                contextlib.closing(sqlite3.connect(partial)) as dst:
            src.backup(dst, pages=pages)
            dst.execute("PRAGMA journal_mode=delete")
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy failed its integrity check: {check}")
        os.replace(partial, dest_path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return dest_path
