"""The one database handle every model uses, bound at start-up from ``DATABASE_URL``."""
import os
from urllib.parse import urlparse

from peewee import DatabaseProxy, PostgresqlDatabase, SqliteDatabase
from playhouse.db_url import connect as connect_url

DEFAULT_DATABASE_URL = "sqlite:///festival.db"

database = DatabaseProxy()

# WAL lets the importer write while the service keeps reading the previous revision.
SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "cache_size": -32 * 1024,
    "busy_timeout": 5000,
}


def sqlite_path(url):
    """Return the file path of an ``sqlite:///`` URL, or None for other engines."""
    parsed = urlparse(url)
    if parsed.scheme != "sqlite":
        return None
    path = parsed.path[1:] if parsed.path.startswith("/") else parsed.path
    return path or ":memory:"


def make_database(url=None, readonly=False):
    """Create (but do not open) a Peewee database for ``url``.

    ``readonly`` opens SQLite files with ``mode=ro``: the HTTP service never writes.
    """
    url = url or os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    path = sqlite_path(url)
    if path is not None:
        if readonly and path != ":memory:":
            pragmas = {k: v for k, v in SQLITE_PRAGMAS.items() if k != "journal_mode"}
            return SqliteDatabase(
                f"file:{os.path.abspath(path)}?mode=ro", uri=True, pragmas=pragmas,
                check_same_thread=False,
            )
        return SqliteDatabase(path, pragmas=SQLITE_PRAGMAS, check_same_thread=False)
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    return connect_url(url)


def bind_database(url=None, readonly=False):
    """Point the shared proxy at the database named by ``url`` and return it."""
    db = make_database(url, readonly=readonly)
    database.initialize(db)
    return db


def is_postgres(db=None):
    db = db or database.obj
    return isinstance(db, PostgresqlDatabase)


def database_answers(db=None):
    """True when a fresh connection can run ``SELECT 1``."""
    db = db or database.obj
    try:
        if not db.is_closed():
            db.close()
        db.connect()
        db.execute_sql("SELECT 1").fetchone()
        return True
    except Exception:  # any failure means "not reachable" to a health check
        return False
