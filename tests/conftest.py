"""Shared test fixtures: a database seeded with the bundled festivals, keys, an API client.

The database is built once per run from ``seed/fixtures/*.json`` (the xdist workers each
copy the first one's build); tests that write (imports, key revocation) use
``fresh_app``, which works on a copy.

The database is a temporary SQLite file, or, when ``TEST_DATABASE_URL`` names an empty
scratch PostgreSQL database (``postgresql://USER@HOST:PORT/NAME``), that database; the
whole suite runs the same on both.
"""
import contextlib
import fcntl
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import weakref

# Bytecode is written (into __pycache__/, which git ignores) even where PYTHONDONTWRITEBYTECODE
# is set, as it is in many container images: the suite's three workers and the dozens of
# festival-api processes it starts would otherwise each compile the project from source again
# (about a tenth of the suite's CPU; docs/performance.md, "The test suite").
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest  # noqa: E402  (after the bytecode switch, so that what follows is cached too)
from playhouse.test_utils import count_queries

from app import create_app
from app.config import SETTINGS
from app.door import FrontDoor
from db.compiled.tables import create_tables
from db.database import bind_database, database
from db.source import models as m
from db.source.keys import create_key, revoke_key
from db.source.revisions import REVISION_TRIGGER
from seed import bundled_fixtures
from seed.pipeline.write.importer import import_file, import_fixture

import pg_scratch
from natural_festival import natural_festival

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip() or None
ON_POSTGRES = pg_scratch.is_postgres_url(TEST_DATABASE_URL)
# On PostgreSQL under pytest-xdist the first worker seeds this database beside the one named
# (NAME_seeded) once a run, and every worker's database is a copy of it; the run's end drops it.
SEEDED_TEMPLATE_URL = (pg_scratch.with_database(TEST_DATABASE_URL,
                                                f"{pg_scratch.database_name(TEST_DATABASE_URL)}_seeded"[-63:])
                       if ON_POSTGRES else None)
ADM_FILTER_TEMPLATE_URL = (pg_scratch.with_database(TEST_DATABASE_URL,
                                                    f"{pg_scratch.database_name(TEST_DATABASE_URL)}_adm"[-63:])
                           if ON_POSTGRES else None)
# Under pytest-xdist each worker process has a database of its own beside the one named
# (NAME_gw0, NAME_gw1, ...), a copy of NAME_seeded, dropped at its end.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if ON_POSTGRES and XDIST_WORKER:
    TEST_DATABASE_URL = pg_scratch.worker_database(TEST_DATABASE_URL, XDIST_WORKER)
if TEST_DATABASE_URL and not ON_POSTGRES:
    raise pytest.UsageError("TEST_DATABASE_URL must be a postgresql:// URL of an empty scratch database")

API = "/public-api/v1"
BIG = "kalolsavam-2026"
SMALL = "college-fest-2026"


@pytest.fixture(scope="session")
def fixture_data():
    """The bundled fixture files as JSON, by festival slug: the source of expected values."""
    data = {}
    for path in bundled_fixtures():
        with open(path, encoding="utf-8") as fh:
            loaded = json.load(fh)
        data[loaded["festival"]["slug"]] = loaded
    return data


SCALED = "kalolsavam-2026-x2"


@pytest.fixture(scope="session")
def scaled_kalolsavam():
    """The Kalolsavam built at twice its size (``build_kalolsavam(scale=2)``), as JSON."""
    from seed.generator import build_kalolsavam
    return build_kalolsavam(scale=2)


def _build_database(url):
    db = bind_database(url)
    db.connect(reuse_if_open=True)
    create_tables()
    for path in bundled_fixtures():
        import_file(path)
    keys = {}
    for festival in m.Festival.select():
        keys[festival.slug] = create_key(festival, label="tests")[1]
    revoked_id, keys["revoked"] = create_key(m.Festival.get(m.Festival.slug == BIG), label="revoked")
    revoke_key(revoked_id.id)
    db.close()
    return keys


@pytest.fixture(scope="session")
def seeded(tmp_path_factory):
    """``(database url, {slug: plain key, "revoked": revoked key})`` of the seeded database."""
    if ON_POSTGRES and XDIST_WORKER:
        yield from _seeded_postgres_copy(TEST_DATABASE_URL, tmp_path_factory)
        return
    if ON_POSTGRES:
        yield from _seeded_postgres(TEST_DATABASE_URL)
        return
    path = tmp_path_factory.mktemp("db") / "festival.sqlite3"
    url = f"sqlite:///{path}"
    if not XDIST_WORKER:
        yield url, _build_database(url)
        return

    def build(folder):
        keys = _build_database(f"sqlite:///{folder}/festival.sqlite3")
        (folder / "keys.json").write_text(json.dumps(keys), encoding="utf-8")

    template = _built_once_a_run(tmp_path_factory, "seeded", build)
    _copy_sqlite(template / "festival.sqlite3", path)
    bind_database(url).close()
    yield url, json.loads((template / "keys.json").read_text(encoding="utf-8"))


def _built_once_a_run(tmp_path_factory, name, build):
    """The folder ``name`` beside the xdist workers' own, filled by ``build(folder)`` once a run:
    the first worker to take its lock builds it, the others wait for it."""
    shared = tmp_path_factory.getbasetemp().parent
    folder, built = shared / name, shared / f"{name}.built"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not built.exists():
            folder.mkdir(exist_ok=True)
            build(folder)
            built.touch()
    return folder


def _seeded_postgres(url):
    """Seed the scratch database; leave it empty again afterwards so it can be reused."""
    found = pg_scratch.table_names(url)
    if found:
        pytest.exit(f"TEST_DATABASE_URL must name an empty scratch database; "
                    f"{pg_scratch.database_name(url)} has tables ({', '.join(found[:5])}, ...). "
                    f"Drop and create it again.", returncode=3)
    try:
        yield url, _build_database(url)
    finally:
        _close_bound_database()
        if XDIST_WORKER:
            pg_scratch.drop_database(url)
            return
        from db.compiled.postgres_search import TABLES
        from db.compiled.tables import HISTORY_MODELS, READ_MODELS, PublicSecret

        compiled = [model._meta.table_name for model in (*READ_MODELS, *HISTORY_MODELS, PublicSecret)]
        pg_scratch.drop_tables(url, [*(model._meta.table_name for model in m.ALL_MODELS), *compiled, *TABLES],
                               functions=[REVISION_TRIGGER])


def _seeded_postgres_copy(url, tmp_path_factory):
    """The worker's database as a copy of the run's seeded one (``SEEDED_TEMPLATE_URL``, seeded
    by the first worker to get here: a file copy on the server instead of a seeding per
    worker); dropped at the worker's end."""
    def build(folder):
        pg_scratch.create_database(SEEDED_TEMPLATE_URL)
        (folder / "keys.json").write_text(json.dumps(_build_database(SEEDED_TEMPLATE_URL)), encoding="utf-8")

    folder = _built_once_a_run(tmp_path_factory, "seeded_postgres", build)
    pg_scratch.copy_into(SEEDED_TEMPLATE_URL, url)
    bind_database(url).close()
    try:
        yield url, json.loads((folder / "keys.json").read_text(encoding="utf-8"))
    finally:
        _close_bound_database()
        pg_scratch.drop_later(url)


def pytest_sessionfinish(session):
    """The databases this process copied go with it (dropped in the background meanwhile);
    the run's shared PostgreSQL databases go with the run (its workers have finished)."""
    if not ON_POSTGRES:
        return
    pg_scratch.finish_drops()
    if not XDIST_WORKER:
        pg_scratch.drop_database(SEEDED_TEMPLATE_URL)
        pg_scratch.drop_database(ADM_FILTER_TEMPLATE_URL)


def _close_bound_database():
    if database.obj is not None and not database.obj.is_closed():
        database.obj.close()


@pytest.fixture(scope="session")
def keys(seeded):
    return seeded[1]


TEST_SETTINGS = {
    "RESPONSE_CACHE_SECONDS": 0,
    "API_KEY_CACHE_SECONDS": 0,
    "RATELIMIT_DEFAULT": "",
    # One app serves the whole session from one address: the wrong-key budget is tested on
    # an app of its own (tests/test_rate_limit.py, tests/faults/test_one_client.py).
    "RATELIMIT_WRONG_KEYS": "",
    # Every request may reach the admNoPattern decision; the budget has tests of its own
    # (tests/test_private_filters.py).
    "RATELIMIT_PRIVATE_FILTER": "100000 per minute",
    # On PostgreSQL an app a test makes for itself reads the server (LOCAL_COPY=false, a setting
    # of its own); the session's app keeps the default, the local copy, which most tests read
    # through (``app``), and tests/test_local_copy.py and the fault tests turn it on where they
    # are about it. A copy of the festival made for each of the run's hundreds of short-lived
    # apps, in the background, was half the CPU of a file such as tests/test_headers_on_the_wire.py.
    "LOCAL_COPY": False,
}


@pytest.fixture(scope="session")
def app(seeded):
    """The app on the seeded database, opened read-only as in production."""
    return create_app({"DATABASE_URL": seeded[0], **TEST_SETTINGS, "LOCAL_COPY": True})


@pytest.fixture(scope="session")
def keyed_app(seeded):
    """``app`` as the service runs by default in one more way: it keeps a key's lookup for
    ``API_KEY_CACHE_SECONDS``. For the tests that send thousands of requests about the answers,
    not the keys: ``app`` asks for the key each request (the query-count tests count it), which
    on PostgreSQL, where keys are not in the local copy, is a round trip to the server."""
    default, parse, _ = SETTINGS["API_KEY_CACHE_SECONDS"]
    previous = database.obj  # making an app binds the shared proxy: ``app`` keeps it
    made = create_app({"DATABASE_URL": seeded[0], **TEST_SETTINGS, "LOCAL_COPY": True,
                       "API_KEY_CACHE_SECONDS": parse(default)})
    database.initialize(previous)
    yield made
    made.extensions["front_door"].close()


class ApiClient:
    """``api.get("/news", key="big", limit=5)``: GET with a festival's key and query params."""

    def __init__(self, client, keys):
        self.client = client
        self.keys = keys

    def get(self, path, key=BIG, headers=None, **params):
        headers = dict(headers or {})
        if key is not None:
            headers["X-API-Key"] = self.keys.get(key, key)
        return self.client.get(API + path, query_string=params, headers=headers)

    def ok(self, path, key=BIG, **params):
        """GET and assert 200; return the JSON body."""
        response = self.get(path, key=key, **params)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    def ok_but_revision(self, path, key=BIG, **params):
        """``ok`` without the revision of the answer's context (an upgrade or import makes one)."""
        body = self.ok(path, key=key, **params)
        body["context"].pop("data")
        return body

    def all(self, path, key=BIG, **params):
        """Every item of a list endpoint, following pages of 500."""
        items, page = [], 1
        while True:
            body = self.ok(path, key=key, page=page, limit=500, **params)
            items.extend(body["data"])
            if not body["meta"]["hasNextPage"]:
                return items
            page += 1


@pytest.fixture(scope="session")
def api(app, keys):
    return ApiClient(app.test_client(), keys)


@pytest.fixture
def client(app):
    return app.test_client()


@contextlib.contextmanager
def database_copy(url, tmp_path):
    """Yield the URL of a private copy of the database at ``url``."""
    if pg_scratch.is_postgres_url(url):
        _close_bound_database()  # this thread's connection would block the copy
        with pg_scratch.database_copy(url) as copy_url:
            yield copy_url
        return
    target = tmp_path / "copy.sqlite3"
    _copy_sqlite(url[len("sqlite:///"):], target)
    yield f"sqlite:///{target}"


def _copy_sqlite(source, target):
    """Copy the SQLite database file ``source`` to ``target``: the file itself when all it holds
    is in it (no write-ahead log, or an empty one: the kernel copies it at less than half the CPU),
    else with SQLite's online backup."""
    wal = f"{source}-wal"
    if not os.path.exists(wal) or os.path.getsize(wal) == 0:
        shutil.copyfile(source, target)
        return
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


@contextlib.contextmanager
def writable_app_on_copy(url, tmp_path):
    """Yield ``(app, url)``: an app on a private writable copy of the database at ``url``;
    the shared proxy's binding is put back afterwards."""
    previous = database.obj
    with database_copy(url, tmp_path) as copy_url:
        app = create_app({"DATABASE_URL": copy_url, **TEST_SETTINGS, "DATABASE_READONLY": False})
        try:
            yield app, copy_url
        finally:
            _close_bound_database()
            database.initialize(previous)


@pytest.fixture
def fresh_app(seeded, tmp_path):
    """An app on a private writable copy of the seeded database, for tests that change data."""
    with writable_app_on_copy(seeded[0], tmp_path) as made:
        yield made


@contextlib.contextmanager
def changed_copy(url, folder, change):
    """A copy of the database at ``url`` (in ``folder`` for SQLite) after ``change(its URL)``,
    for a fixture that tests then copy; the shared proxy bound as it was for the block."""
    previous = database.obj
    with database_copy(url, folder) as copy_url:
        change(copy_url)
        database.initialize(previous)
        yield copy_url
        _close_bound_database()


@pytest.fixture(scope="session")
def adm_filter_template(seeded, tmp_path_factory):
    """The URL of a copy of the seeded database where the large festival has turned
    ``admNoPattern`` on, made once a session (an update of the festival compiles it again);
    tests work on copies of it (``adm_filter_app``). The xdist workers share one (on
    PostgreSQL ``ADM_FILTER_TEMPLATE_URL``, made from the run's seeded database)."""
    from seed.pipeline.write.update import update_fixture

    def turn_on(url):
        with writable(url):
            update_fixture({"formatVersion": 1, "festival": {"slug": BIG, "admission_number_filter": True}})

    def build(folder):
        _copy_sqlite(seeded[0][len("sqlite:///"):], folder / "copy.sqlite3")
        turn_on(f"sqlite:///{folder}/copy.sqlite3")

    if XDIST_WORKER and not ON_POSTGRES:
        yield f"sqlite:///{_built_once_a_run(tmp_path_factory, 'adm_filter', build)}/copy.sqlite3"
        return
    if XDIST_WORKER:
        def build_on_postgres(folder):
            pg_scratch.copy_into(SEEDED_TEMPLATE_URL, ADM_FILTER_TEMPLATE_URL)
            turn_on(ADM_FILTER_TEMPLATE_URL)

        _built_once_a_run(tmp_path_factory, "adm_filter_postgres", build_on_postgres)
        yield ADM_FILTER_TEMPLATE_URL
        return
    with changed_copy(seeded[0], tmp_path_factory.mktemp("adm_filter"), turn_on) as url:
        yield url


@pytest.fixture
def adm_filter_app(adm_filter_template, tmp_path):
    """``(app, url)`` as ``fresh_app``, on a private copy where the large festival has turned
    ``admNoPattern`` on."""
    with writable_app_on_copy(adm_filter_template, tmp_path) as made:
        yield made


# Every front door (one an app) made, for ``_close_apps_made_by_the_test``.
_doors = weakref.WeakSet()
_door_init = FrontDoor.__init__


def _tracked_door_init(self, *args, **kwargs):
    _door_init(self, *args, **kwargs)
    _doors.add(self)


FrontDoor.__init__ = _tracked_door_init


@pytest.fixture(autouse=True)
def _close_apps_made_by_the_test():
    """Close each app a test (or its function-scoped fixtures) made, at its end: its database
    connections, revision watch and local copy go then, not whenever the garbage collector
    finds the app (on PostgreSQL, apps left open filled the server's connection slots).
    Fixtures of a wider scope are set up before this one, so their apps are kept."""
    before = set(_doors)
    yield
    for door in list(_doors):
        if door not in before:
            door.close()


@pytest.fixture(autouse=True)
def _keep_database_binding():
    """Put the shared proxy's binding back after each test: CLI commands run in-process
    (``festival-api seed``, ``toppers recompute``) bind it to their own database for good."""
    previous = database.obj
    yield
    if database.obj is not previous:
        _close_bound_database()
        database.initialize(previous)


@contextlib.contextmanager
def writable(url):
    """Bind the models to a writable connection of ``url`` for the block, then restore."""
    previous = database.obj
    db = bind_database(url)
    db.connect(reuse_if_open=True)
    try:
        yield db
    finally:
        db.close()
        database.initialize(previous)


# The three ways a query string may carry an array parameter (docs/api-conventions.md).
ENCODINGS = ("repeated", "bracket", "comma")


def array_query(name, values, encoding):
    """``values`` of the array parameter ``name`` as a query string, in one of ``ENCODINGS``:
    ``name=a&name=b``, ``name[]=a&name[]=b`` or ``name=a,b``."""
    if encoding == "comma":
        return f"{name}=" + ",".join(values)
    key = f"{name}[]" if encoding == "bracket" else name
    return "&".join(f"{key}={value}" for value in values)


def stop_processes(*processes, timeout=10):
    """End child processes: SIGTERM to those still running, then SIGKILL to any not ended
    within ``timeout`` seconds."""
    running = [process for process in processes if process.poll() is None]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)


def run_init(url, monkeypatch):
    """``festival-api init`` in this process on the database at ``url``; the click result. The
    command's own connection is closed after, and the shared proxy bound as it was."""
    from click.testing import CliRunner

    from app import cli

    monkeypatch.setenv("DATABASE_URL", url)
    previous = database.obj
    result = CliRunner().invoke(cli.main, ["init"])
    if database.obj is not previous:
        database.obj.close()
        database.initialize(previous)
    return result


def after_writing(made, write, document):
    """``made`` (``(app, url)``) once ``write(document)`` (an import or an update) has run on its database."""
    _, url = made
    with writable(url):
        write(document)
    return made


@pytest.fixture
def natural(fresh_app):
    """``(app, url)`` of :func:`fresh_app` with the natural festival (tests/natural_festival.py) imported."""
    return after_writing(fresh_app, import_fixture, natural_festival())


class count_statements(count_queries):
    """Count SQL statements, leaving out the request's BEGIN/ROLLBACK: they are not queries."""

    TRANSACTION_CONTROL = ("BEGIN", "ROLLBACK", "COMMIT")

    def __exit__(self, exc_type, exc_val, exc_tb):
        super().__exit__(exc_type, exc_val, exc_tb)
        if not self.only_select:
            self.count = sum(1 for q in self.get_queries()
                             if not q.msg[0].startswith(self.TRANSACTION_CONTROL))


@pytest.fixture
def query_count():
    """``with query_count() as counter: ...; counter.count`` counts SQL statements."""
    return count_statements


# A test module that names one of these may reach the suite's engine without ``seeded``
# (an empty database of its own on it, say).
_REACHES_THE_ENGINE = re.compile(r"\b(ON_POSTGRES|TEST_DATABASE_URL|pg_scratch|empty_database)\b")
_ONE_RUN = pytest.mark.skip(reason="it never opens the suite's database, so this run would repeat what the "
                                   "SQLite run did; it runs there")


def pytest_collection_modifyitems(config, items):
    """On PostgreSQL, skip the tests that never open the suite's database: every database
    of the suite's engine comes from ``seeded`` (its copies, the fault tests' ``database``),
    so a test that does not use it, in a module that names none of ``_REACHES_THE_ENGINE``,
    works on SQLite files of its own and a second run would repeat the first exactly."""
    if not ON_POSTGRES:
        return
    reaches = {}
    for item in items:
        path = str(item.fspath)
        if path not in reaches:
            with open(path, encoding="utf-8") as fh:
                reaches[path] = bool(_REACHES_THE_ENGINE.search(fh.read()))
        if not reaches[path] and "seeded" not in getattr(item, "fixturenames", ()) \
                and item.get_closest_marker("postgres") is None:
            item.add_marker(_ONE_RUN)


# What a skipped test needs, found by a word of its skip reason; the run's closing lines
# name it. The first word that matches wins.
NEEDS = [
    ("SQLite", "the SQLite run (it is about SQLite alone)"),
    ("benchmark", "the SQLite run (a benchmark makes its own SQLite databases)"),
    ("soak", "the SQLite run (a benchmark makes its own SQLite databases)"),
    ("PostgreSQL", "a PostgreSQL scratch database: TEST_DATABASE_URL=postgresql://USER@HOST/EMPTY_DB"),
    ("chromium", "Chromium: apt-get install chromium"),
    ("npm", "Node.js and npm: apt-get install nodejs npm"),
    ("nginx", "nginx and openssl: apt-get install nginx-light openssl"),
    ("socat", "socat: apt-get install socat"),
    ("wrk", "wrk: apt-get install wrk"),
    ("Redis", "Redis on 127.0.0.1:6379: apt-get install redis-server"),
]


def pytest_terminal_summary(terminalreporter):
    """One line: how many tests were skipped for want of what, and how to get it."""
    counts = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        need = next((hint for word, hint in NEEDS if word.lower() in reason.lower()), reason)
        counts[need] = counts.get(need, 0) + 1
    if counts:
        terminalreporter.write_line("skipped, and what runs them: " + "; ".join(
            f"{count} need {need}" for need, count in sorted(counts.items(), key=lambda item: -item[1])))
