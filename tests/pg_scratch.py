"""Scratch PostgreSQL databases for the test suite (``TEST_DATABASE_URL``).

The suite seeds the database named by ``TEST_DATABASE_URL`` once; tests that write get
their own copy made with ``CREATE DATABASE ... TEMPLATE`` (a file copy on the server,
much faster than importing again), dropped after the test.

A copy is dropped in the background (``drop_later``): PostgreSQL 15's DROP DATABASE waits
for a checkpoint, seconds on a busy server, which the next test need not wait for; drops
under way at once share one checkpoint. ``finish_drops`` waits for them at the run's end.
"""
import concurrent.futures
import contextlib
import itertools
import os
import threading
import time
from urllib.parse import urlparse, urlunparse

import psycopg2
import psycopg2.errors
from psycopg2 import sql

from db.database import POSTGRES_SCHEMES

# CREATE/DROP DATABASE cannot run inside the database they name: use the maintenance one.
ADMIN_DATABASE = "postgres"

_copies = itertools.count(1)
# Tries at copying a template that something keeps connecting to.
TEMPLATE_ATTEMPTS = 20
# Connections a process drops databases on at once (``drop_later``).
DROP_THREADS = 4

_drops_lock = threading.Lock()
_dropper = None
_pending_drops = []


def is_postgres_url(url):
    return bool(url) and urlparse(url).scheme in POSTGRES_SCHEMES


def database_name(url):
    return urlparse(url).path.lstrip("/")


def with_database(url, name):
    """``url`` pointing at database ``name`` on the same server."""
    return urlunparse(urlparse(url)._replace(path=f"/{name}"))


def _connect(url, name=None):
    """A psycopg2 connection (libpq knows only the plain ``postgresql`` scheme)."""
    parsed = urlparse(with_database(url, name) if name else url)
    return psycopg2.connect(urlunparse(parsed._replace(scheme="postgresql")))


@contextlib.contextmanager
def admin_connection(url):
    """An autocommit connection to the maintenance database of ``url``'s server."""
    conn = _connect(url, ADMIN_DATABASE)
    conn.autocommit = True
    try:
        yield conn.cursor()
    finally:
        conn.close()


def table_names(url):
    conn = _connect(url)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
            return [row[0] for row in cur.fetchall()]
    finally:
        conn.close()


def drop_tables(url, names, functions=()):
    conn = _connect(url)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            for name in names:
                cur.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(name)))
            for name in functions:
                cur.execute(sql.SQL("DROP FUNCTION IF EXISTS {}() CASCADE").format(sql.Identifier(name)))
    finally:
        conn.close()


def worker_database(url, worker):
    """The URL of a new, empty database for the xdist worker ``worker`` beside ``url``'s."""
    name = f"{database_name(url)}_{worker}"[-63:]
    drop_database(with_database(url, name))
    with admin_connection(url) as cur:
        cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return with_database(url, name)


def drop_database(url):
    with admin_connection(url) as cur:
        cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database_name(url))))


def drop_later(url):
    """Drop ``url``'s database on a background thread (``finish_drops`` waits for it)."""
    global _dropper
    with _drops_lock:
        if _dropper is None:
            _dropper = concurrent.futures.ThreadPoolExecutor(DROP_THREADS, thread_name_prefix="drop-database")
        _pending_drops.append(_dropper.submit(drop_database, url))


def finish_drops():
    """Wait for every drop ``drop_later`` was given; raise the first that failed."""
    global _dropper
    with _drops_lock:
        pending, dropper = list(_pending_drops), _dropper
        _pending_drops.clear()
        _dropper = None
    if dropper is not None:
        dropper.shutdown(wait=True)
    for future in pending:
        future.result()


def create_database(url):
    """Create ``url``'s database, empty (dropped first if it is there)."""
    drop_database(url)
    _create(url, database_name(url))


def copy_into(template_url, url):
    """Make ``url``'s database a new copy of ``template_url``'s (dropped first if it is there)."""
    drop_database(url)
    _create(template_url, database_name(url), template=database_name(template_url))


@contextlib.contextmanager
def database_copy(url):
    """Yield the URL of a new database copied from ``url``'s; drop it afterwards.

    Every other connection to the source is ended first: PostgreSQL copies a template
    only while nobody is connected to it.
    """
    with _scratch_database(url, "copy", template=database_name(url)) as copy_url:
        yield copy_url


@contextlib.contextmanager
def empty_database(url):
    """Yield the URL of a new, empty database on ``url``'s server; drop it afterwards."""
    with _scratch_database(url, "empty") as empty_url:
        yield empty_url


@contextlib.contextmanager
def _scratch_database(url, kind, template=None):
    name = f"{database_name(url)}_{kind}_{os.getpid()}_{next(_copies)}"[-63:]
    _create(url, name, template)
    try:
        yield with_database(url, name)
    finally:
        drop_later(with_database(url, name))


def _create(url, name, template=None):
    """CREATE DATABASE ``name`` on ``url``'s server, a copy of ``template`` when given (every
    other connection to it ended first: PostgreSQL copies a template only while nobody is
    connected to it)."""
    with admin_connection(url) as cur:
        create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            create = sql.SQL("{} TEMPLATE {}").format(create, sql.Identifier(template))
        for attempt in range(TEMPLATE_ATTEMPTS):
            if template:
                cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            " WHERE datname = %s AND pid <> pg_backend_pid()", (template,))
            try:
                cur.execute(create)
                break
            except psycopg2.errors.ObjectInUse:
                # A thread of an earlier test (a revision watch, a pool) connected again
                # between the two statements: end it once more.
                if attempt == TEMPLATE_ATTEMPTS - 1:
                    raise
                time.sleep(0.1)
