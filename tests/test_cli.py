"""`festival-api`: every command, on the engine the suite runs on (SQLite or TEST_DATABASE_URL)."""
import copy
import json
import os
import re
import sqlite3
import uuid

import pytest
from click.testing import CliRunner

import app.cli as cli_module
import pg_scratch
from app import create_app
from conftest import API, BIG, ON_POSTGRES, SMALL, TEST_DATABASE_URL, TEST_SETTINGS, writable
from db.database import database
from db.source import models as m
from db.source.keys import find_active_key
from seed import FIXTURE_DIR

KEY_LINE = re.compile(r"^fds_[A-Za-z0-9_-]{20,}$")


@pytest.fixture
def run(monkeypatch):
    """``run(url, *args)``: `festival-api ARGS` with ``DATABASE_URL=url``; the result."""
    previous = database.obj

    def invoke(url, *args):
        monkeypatch.setenv("DATABASE_URL", url)
        result = CliRunner().invoke(cli_module.main, [str(a) for a in args])
        if database.obj is not previous and not database.obj.is_closed():
            database.obj.close()  # the command's own connection
        return result

    yield invoke
    database.initialize(previous)


@pytest.fixture
def empty_url(tmp_path):
    """An empty database on the suite's engine."""
    if ON_POSTGRES:
        with pg_scratch.empty_database(TEST_DATABASE_URL) as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path}/empty.db"


def row_counts(url):
    with writable(url):
        return {model.__name__: model.select().count() for model in m.ALL_MODELS}


def revisions(url):
    with writable(url):
        return {f.slug: r.revision for f, r in
                ((f, m.FestivalRevision.get_or_none(m.FestivalRevision.festival == f.id))
                 for f in m.Festival.select()) if r}


# --- init, seed, festivals, demo -------------------------------------------------------


def test_init_creates_every_table_and_is_safe_to_repeat(run, empty_url):
    for _ in range(2):
        result = run(empty_url, "init")
        assert result.exit_code == 0, result.output
        assert "Database ready." in result.stderr
    with writable(empty_url) as db:
        assert {model._meta.table_name for model in m.ALL_MODELS} <= set(db.get_tables())


def test_seed_then_festivals_lists_each_bundled_festival(run, empty_url, fixture_data):
    assert run(empty_url, "seed").exit_code == 0
    result = run(empty_url, "festivals")
    assert result.exit_code == 0, result.output
    expected = [f"{slug}\t{fixture_data[slug]['festival']['name']}\trevision 1" for slug in sorted(fixture_data)]
    assert result.stdout.splitlines() == expected


def test_demo_loads_the_festivals_and_prints_a_working_key_each(run, empty_url, monkeypatch):
    served = {}
    monkeypatch.setattr(cli_module, "_serve", lambda host, port, threads, config=None: served.update(port=port))
    result = run(empty_url, "demo", "--port", 8124)
    assert result.exit_code == 0, result.output
    assert served == {"port": 8124}
    printed = dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", result.stdout, re.M))
    assert set(printed) == {BIG, SMALL}
    with writable(empty_url):
        assert {slug: find_active_key(plain)[1].slug for slug, plain in printed.items()} == {BIG: BIG, SMALL: SMALL}


# --- keys ----------------------------------------------------------------------------------


def test_keys_create_list_and_revoke(run, fresh_app):
    app, url = fresh_app
    client = app.test_client()

    created = run(url, "keys", "create", SMALL, "--label", "main website")
    assert created.exit_code == 0, created.output
    plain = created.stdout.splitlines()[-1]
    assert KEY_LINE.match(plain) and "not shown again" in created.stderr
    assert plain not in created.stderr
    assert client.get(f"{API}/news", headers={"X-API-Key": plain}).status_code == 200

    listed = run(url, "keys", "list", SMALL)
    assert listed.exit_code == 0
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert {row[1] for row in rows} == {SMALL}
    mine = [row for row in rows if row[4] == "main website"]
    assert len(mine) == 1
    key_id, _, prefix, state, _ = mine[0]
    assert state == "active" and prefix == plain[:10] + "…"
    assert plain not in listed.stdout  # only the prefix is ever shown

    everyone = run(url, "keys", "list").stdout
    assert {line.split("\t")[1] for line in everyone.splitlines()} == {BIG, SMALL}

    revoked = run(url, "keys", "revoke", key_id)
    assert revoked.exit_code == 0, revoked.output
    assert f"{key_id}\t{SMALL}\t{prefix}\trevoked\tmain website" in run(url, "keys", "list", SMALL).stdout
    assert client.get(f"{API}/news", headers={"X-API-Key": plain}).status_code == 401
    assert run(url, "keys", "revoke", key_id).exit_code == 0  # revoking again changes nothing


@pytest.mark.parametrize("args, message", [
    (["keys", "create", "no-such-festival"], "no festival with slug 'no-such-festival'"),
    (["keys", "list", "no-such-festival"], "no festival with slug 'no-such-festival'"),
    (["keys", "revoke", "not-a-uuid"], "'not-a-uuid' is not a key id"),
    (["keys", "revoke", "00000000-0000-4000-8000-000000000000"], "no key with id 00000000-0000-4000-8000-000000000000"),
])
def test_keys_errors_exit_non_zero_with_a_message(run, fresh_app, args, message):
    _, url = fresh_app
    before = row_counts(url)
    result = run(url, *args)
    assert result.exit_code != 0
    assert message in result.stderr
    assert row_counts(url) == before


# --- import ----------------------------------------------------------------------------------


@pytest.fixture
def small(fixture_data):
    return copy.deepcopy(fixture_data[SMALL])


def test_import_of_an_invalid_file_exits_non_zero_and_writes_nothing(run, fresh_app, small, fixture_data, tmp_path):
    _, url = fresh_app
    small["festival"]["name"] = "A new name that must not be stored"
    small["schedules"][0]["venue"] = str(uuid.uuid4())  # valid JSON Schema, dangling reference
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(small), encoding="utf-8")
    before, before_revisions = row_counts(url), revisions(url)

    result = run(url, "import", path)
    assert result.exit_code != 0
    assert "$.schedules[0].venue" in result.stderr and "nothing was written" in result.stderr
    assert row_counts(url) == before and revisions(url) == before_revisions
    with writable(url):
        assert m.Festival.get(m.Festival.slug == SMALL).name == fixture_data[SMALL]["festival"]["name"]


def test_import_of_a_changed_file_replaces_the_data_and_bumps_the_revision(run, fresh_app, small, tmp_path):
    app, url = fresh_app
    small["festival"]["name"] = "Riverside Arts Fest (updated)"
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(small), encoding="utf-8")
    before = revisions(url)[SMALL]

    result = run(url, "import", path)
    assert result.exit_code == 0, result.output
    assert f"revision {before + 1}" in result.stderr
    assert f"{SMALL}\tRiverside Arts Fest (updated)\trevision {before + 1}" in run(url, "festivals").stdout


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's planner statistics")
def test_an_import_brings_the_planners_statistics_of_the_compiled_tables_up_to_date(run, fresh_app, small, tmp_path):
    """Without them, right after an import that multiplies a table's rows, the planner
    estimates one row a list and reads every entry's row (docs/performance.md)."""
    _, url = fresh_app
    path = tmp_path / "same.json"
    path.write_text(json.dumps(small), encoding="utf-8")

    def analyzed():
        connection = pg_scratch._connect(url)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT relname, analyze_count FROM pg_stat_user_tables WHERE relname IN "
                               "('public_candidate', 'public_programme')")
                return dict(cursor.fetchall())
        finally:
            connection.close()

    before = analyzed()
    assert run(url, "import", path).exit_code == 0
    after = analyzed()
    assert set(after) == {"public_candidate", "public_programme"}
    assert all(after[table] > before.get(table, 0) for table in after), (before, after)


# --- backup ----------------------------------------------------------------------------------


@pytest.fixture
def sqlite_festival(run, tmp_path):
    """A SQLite database holding the small festival and one key (backups are for SQLite)."""
    url = f"sqlite:///{tmp_path}/live.db"
    assert run(url, "import", FIXTURE_DIR / f"{SMALL}.json").exit_code == 0
    key = run(url, "keys", "create", SMALL).stdout.splitlines()[-1]
    return url, key


def test_backup_is_a_complete_self_contained_copy_that_serves_the_same_answers(run, sqlite_festival, tmp_path):
    url, key = sqlite_festival
    dest = tmp_path / "backup.db"
    result = run(url, "backup", dest)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(dest)
    assert not os.path.exists(f"{dest}-wal") and not os.path.exists(f"{dest}.partial")
    with sqlite3.connect(dest) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    backup_url = f"sqlite:///{dest}"
    assert row_counts(backup_url) == row_counts(url)

    previous = database.obj
    try:
        bodies = []
        for served in (url, backup_url):
            client = create_app({"DATABASE_URL": served, **TEST_SETTINGS}).test_client()
            response = client.get(f"{API}/news", headers={"X-API-Key": key})
            assert response.status_code == 200
            bodies.append(response.get_json())
    finally:
        database.initialize(previous)
    assert bodies[0] == bodies[1] and bodies[0]["data"]


def test_backup_into_a_directory_names_the_file_by_time(run, sqlite_festival, tmp_path):
    url, _ = sqlite_festival
    folder = tmp_path / "backups"
    folder.mkdir()
    result = run(url, "backup", folder)
    assert result.exit_code == 0, result.output
    made = list(folder.iterdir())
    assert [p.name for p in made] == [os.path.basename(result.stdout.strip())]
    assert re.fullmatch(r"live-\d{8}T\d{6}Z\.db", made[0].name)
    assert row_counts(f"sqlite:///{made[0]}") == row_counts(url)


@pytest.mark.parametrize("url, message", [
    ("postgresql://nobody@127.0.0.1:1/festival", "pg_dump"),
    ("sqlite:///{tmp}/missing.db", "no SQLite database file"),
])
def test_backup_refuses_what_it_cannot_copy(run, tmp_path, url, message):
    result = run(url.format(tmp=tmp_path), "backup", tmp_path / "out.db")
    assert result.exit_code != 0 and message in result.stderr
    assert not (tmp_path / "out.db").exists() and not (tmp_path / "missing.db").exists()


def test_backup_into_a_missing_directory_fails_cleanly(run, sqlite_festival, tmp_path):
    url, _ = sqlite_festival
    result = run(url, "backup", tmp_path / "nowhere" / "out.db")
    assert result.exit_code != 0 and "no directory" in result.stderr


# --- the first minutes ----------------------------------------------------------------------


def leaf_commands(group=cli_module.main, prefix=()):
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from leaf_commands(command, prefix + (name,))
        else:
            yield prefix + (name,)


def test_the_readmes_command_table_names_every_command_and_no_other():
    readme = (FIXTURE_DIR.parent.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `festival-api ([^`]*)` \|", readme, re.M)
    named = {tuple(word for word in re.split(r"\s+", row) if re.fullmatch(r"[a-z]+", word))[:2] for row in rows}
    named = {path[:2] if path[0] in ("keys", "toppers") else path[:1] for path in named if path}
    assert named == set(leaf_commands())
    assert "--version" in " ".join(rows)


def test_help_shows_each_commands_first_line_whole():
    for path in [(), ("keys",), ("toppers",)]:
        group = cli_module.main
        for name in path:
            group = group.commands[name]
        result = CliRunner().invoke(cli_module.main, [*path, "--help"])
        assert result.exit_code == 0, result.output
        listing = " ".join(result.output.split("Commands:")[1].split("Database:")[0].split())
        assert "..." not in listing
        for name, command in group.commands.items():
            first = " ".join(command.help.split("\n\n")[0].split())
            assert f"{name} {first}" in listing, (name, listing)


@pytest.mark.parametrize("args, near", [
    (["keys", "create", "kalolsavam-2062"], f"did you mean '{BIG}'?"),
    (["keys", "list", "college-fest"], f"did you mean '{SMALL}'?"),
    (["toppers", "recompute", "kalolsavam"], f"did you mean '{BIG}'?"),
    (["export", "colege-fest-2026", "out"], f"did you mean '{SMALL}'?"),
    (["keys", "create", "zzz"], "; `festival-api festivals` lists them"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_an_unknown_festival_slug_exits_2_with_the_slugs_it_is_near(run, fresh_app, tmp_path, args, near):
    _, url = fresh_app
    before = row_counts(url)
    result = run(url, *[str(tmp_path / a) if a == "out" else a for a in args])
    assert result.exit_code == 2, result.output
    slug = args[1] if args[0] == "export" else args[2]
    assert f"Error: no festival with slug {slug!r}" in result.stderr and near in result.stderr
    assert row_counts(url) == before
    assert not (tmp_path / "out").exists()
