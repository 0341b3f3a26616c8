"""Imports, updates and leaderboard recomputations write one at a time: one that finds another
writing says so and waits (up to ``IMPORT_WAIT_SECONDS``); a full disk is called a full disk."""
import contextlib
import json
import os
import sqlite3
import subprocess
import threading
import time

import psycopg2
import pytest
from click.testing import CliRunner

import app.cli as cli_module
from conftest import ON_POSTGRES, SMALL
import sys

import db.database  # noqa: F401  (the module, below)
from db.database import sqlite_path
from seed import bundled_fixtures
from seed.pipeline.write.locking import ADVISORY_LOCK
from test_multiprocess import festival_api

HOLD_LIMIT = 60
WAITED = 0.5
WAITING = "another import or update is writing to the database: waiting for it to finish"


def fixture_file(slug):
    return next(path for path in bundled_fixtures() if os.path.basename(path).startswith(slug))


@contextlib.contextmanager
def another_writer(hold):
    """Another writer holding the write lock until ``release()`` (or the block's end), then committing."""
    ready, released, failed = threading.Event(), threading.Event(), []

    def run():
        try:
            with hold() as commit:
                ready.set()
                released.wait(HOLD_LIMIT)
                commit()
        except Exception as error:  # shown by the test
            failed.append(error)
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield released.set
    finally:
        released.set()
        thread.join(10)
        assert not failed, failed


def run_until_waiting(url, *args, **settings):
    """Run `festival-api ARGS`; once it says that it waits, let it wait ``WAITED`` seconds and
    return ``(release time, the process)``; the caller releases the lock."""
    process = subprocess.Popen(festival_api() + list(args), env={**os.environ, "DATABASE_URL": url, **settings},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = []
    for line in process.stderr:  # ends when the process does
        said.append(line)
        if WAITING in line:
            time.sleep(WAITED)
            break
    return process, "".join(said)


def sqlite_lock(path):
    @contextlib.contextmanager
    def hold():
        connection = sqlite3.connect(path, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            # A commit while the update waits: a transaction that read before it could not write after.
            connection.execute("CREATE TABLE IF NOT EXISTS faults_marker (x)")
            connection.execute("INSERT INTO faults_marker VALUES (1)")
            yield lambda: connection.execute("COMMIT")
        finally:
            connection.close()
    return hold


def postgres_lock(url):
    @contextlib.contextmanager
    def hold():
        connection = psycopg2.connect(url.replace("postgresql+pool://", "postgresql://"))
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
            yield connection.commit
        finally:
            connection.close()
    return hold


def write_lock(url):
    """The ``hold`` of :func:`another_writer` for the database at ``url``."""
    return postgres_lock(url) if ON_POSTGRES else sqlite_lock(sqlite_path(url))


def run_behind_another_writer(url, hold, *args):
    """Run `festival-api ARGS` while another writer holds the lock, released once the command
    has waited: ``(the process, what it said until then, what it said after)``."""
    with another_writer(hold) as release:
        process, said = run_until_waiting(url, *args)
        release()
        _, rest = process.communicate(timeout=60)
    return process, said, rest


def test_an_update_waits_for_another_writer_says_so_and_gives_up_after_the_deadline(database):
    path = fixture_file(SMALL)
    hold = write_lock(database)
    process, said, rest = run_behind_another_writer(database, hold, "import", "--update", path)
    assert WAITING in said, said + rest
    assert process.returncode == 0, said + rest

    with another_writer(hold):
        refused = subprocess.run(festival_api() + ["import", path], capture_output=True, text=True, timeout=60,
                                 env={**os.environ, "DATABASE_URL": database, "IMPORT_WAIT_SECONDS": "1"})
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        "Error: another import or update was still writing after 1 s (IMPORT_WAIT_SECONDS): nothing was "
        "written; run the command again when it has finished")


def test_two_imports_at_once_on_postgresql_wait_for_each_other(postgres_database):
    """Without the lock, one of them failed at commit with "duplicate key ..."."""
    path = fixture_file(SMALL)
    both = [subprocess.Popen(festival_api() + ["import", path], env={**os.environ, "DATABASE_URL": postgres_database},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [process.communicate(timeout=120) for process in both]
    assert [process.returncode for process in both] == [0, 0], [stderr for _, stderr in results]


def test_a_full_disk_is_named_and_nothing_is_written(sqlite_database, monkeypatch, scaled_kalolsavam, tmp_path):
    path = sqlite_path(sqlite_database)
    new_festival = tmp_path / "scaled.json"  # a festival the database does not hold yet: it must grow
    new_festival.write_text(json.dumps(scaled_kalolsavam), encoding="utf-8")
    with contextlib.closing(sqlite3.connect(path)) as connection:
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        before = connection.execute("SELECT festival_id, revision FROM festival_revision ORDER BY 1").fetchall()
    # SQLite's own "database or disk is full" (SQLITE_FULL), as from a full file system.
    monkeypatch.setitem(sys.modules["db.database"].SQLITE_PRAGMAS, "max_page_count", pages)
    monkeypatch.setenv("DATABASE_URL", sqlite_database)
    result = CliRunner().invoke(cli_module.main, ["import", str(new_festival)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: the disk holding the database (or its size limit) is full: nothing was written. Free some space "
        "and run the command again")
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT festival_id, revision FROM festival_revision ORDER BY 1").fetchall() == before


def test_toppers_recompute_waits_for_another_writer_like_an_import(database):
    process, said, rest = run_behind_another_writer(database, write_lock(database), "toppers", "recompute", SMALL)
    assert WAITING in said, said + rest
    assert process.returncode == 0, said + rest
    assert f"of {SMALL}, revision" in said + rest
