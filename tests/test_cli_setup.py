"""`festival-api` before its database is ready: one line, exit status 2, the fixing command.

`serve` refuses to start against a database it cannot serve; the other commands say which
command comes first; `--version`, and every `--help` names the database it would use.
The `serve` cases run the real console script, as an operator would.
"""
import contextlib
import os
import socket
import sqlite3
import subprocess

import pytest
from click.testing import CliRunner

import app.cli as cli_module
import pg_scratch
from conftest import ON_POSTGRES, TEST_DATABASE_URL
from test_multiprocess import festival_api

LOAD_HINT = "`festival-api seed` (the demo festivals) or `festival-api import FILE`"


def garbage(path):
    path.write_bytes(os.urandom(8192))
    return path


def tables_missing(path):
    sqlite3.connect(path).execute("CREATE TABLE unrelated (x)").connection.close()
    return path


def made_by_an_older_version(path):
    """A database ``festival-api init`` made, without the tables a later version added (the
    candidates' text index)."""
    from db.compiled.text_index import SQLITE_TABLES

    assert run_process(["init"], cwd=path.parent, url=f"sqlite:///{path}").returncode == 0
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for name in SQLITE_TABLES:
            conn.execute(f'DROP TABLE "{name}"')
        conn.commit()
    return path


def one_line_error(result_text):
    lines = [line for line in result_text.splitlines() if line.strip()]
    assert len(lines) == 1, result_text
    assert "Traceback" not in result_text
    return lines[0]


def run_process(args, cwd, url=None):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    if url:
        env["DATABASE_URL"] = url
    return subprocess.run(festival_api() + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("make, expected", [
    (None, "no database at {path}: create it with `festival-api init`, then load festivals with " + LOAD_HINT),
    (garbage, "{path} is not a SQLite database, or it is damaged"),
    (tables_missing, "the database at {path} has no festival tables: run `festival-api init`"),
    (lambda p: p.write_bytes(b"") or p, "the database at {path} has no festival tables: run `festival-api init`"),
    (made_by_an_older_version, "the database at {path} lacks some of the tables this version reads (a file of an "
                               "older version?): run `festival-api init` to add them"),
], ids=["missing-file", "not-a-database", "without-the-tables", "empty-file", "older-version"])
def test_serve_refuses_a_database_it_cannot_serve(tmp_path, make, expected):
    path = tmp_path / "festival.db"
    if make:
        make(path)
    before = path.read_bytes() if path.exists() else None
    result = run_process(["serve", "--port", "1"], cwd=tmp_path)  # the default DATABASE_URL
    assert result.returncode == 2
    assert result.stdout == ""
    line = one_line_error(result.stderr)
    assert line.startswith("Error: " + expected.format(path=path)), line
    assert "Serving on" not in result.stderr
    assert (path.read_bytes() if path.exists() else None) == before  # nothing created or changed


def test_init_brings_a_database_of_an_older_version_up_to_date(tmp_path):
    """What `serve` refuses for an older version's file, `init` adds: then it is served."""
    from db import health
    from db.compiled.tables import required_tables

    path = made_by_an_older_version(tmp_path / "festival.db")
    url = f"sqlite:///{path}"
    assert health.database_problem(url, required_tables(url)).kind == health.OLDER_TABLES
    assert run_process(["init"], cwd=tmp_path, url=url).returncode == 0
    assert health.database_problem(url, required_tables(url)) is None


def test_serve_refuses_a_port_in_use(tmp_path, seeded):
    url = seeded[0]
    if not url.startswith("sqlite"):
        url = f"sqlite:///{tmp_path}/festival.db"
        assert run_process(["init"], cwd=tmp_path, url=url).returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_process(["serve", "--port", str(port)], cwd=tmp_path, url=url)
    assert result.returncode == 2
    assert one_line_error(result.stderr) == (
        f"Error: port {port} on 127.0.0.1 is already in use: stop what uses it, "
        "or choose another port with --port (or PORT)")


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """``cli(url, *args)``: the command's result, run in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)

    def invoke(url, *args):
        if url is None:
            monkeypatch.delenv("DATABASE_URL", raising=False)
        else:
            monkeypatch.setenv("DATABASE_URL", url.format(tmp=tmp_path))
        return CliRunner().invoke(cli_module.main, [str(a) for a in args])

    return invoke


@pytest.mark.parametrize("url, args, expected", [
    ("mysql://festival@127.0.0.1/festival", ["init"],
     "DATABASE_URL='mysql://festival@127.0.0.1/festival' does not name a database: it must start with "
     "sqlite:/// or postgresql:// (a SQLite file: sqlite:///festival.db; a server: "
     "postgresql://USER@HOST:5432/DB)"),
    ("sqlite:///{tmp}/no/such/folder/festival.db", ["init"],
     "the folder of {tmp}/no/such/folder/festival.db does not exist"),
    ("sqlite:///{tmp}/no/such/folder/festival.db", ["import", "README.md"],
     "the folder of {tmp}/no/such/folder/festival.db does not exist"),
    ("sqlite:///{tmp}/garbage.db", ["init"], "{tmp}/garbage.db is not a SQLite database, or it is damaged"),
    ("sqlite:///{tmp}/garbage.db", ["festivals"], "{tmp}/garbage.db is not a SQLite database, or it is damaged"),
    ("sqlite:///{tmp}/garbage.db", ["backup", "{tmp}/copy.db"], "database error at {tmp}/garbage.db"),
    (None, ["festivals"], "no database at {tmp}/festival.db: create it with `festival-api init`"),
    (None, ["keys", "list"], "no database at {tmp}/festival.db: create it with `festival-api init`"),
    (None, ["keys", "create", "some-fest"], "no database at {tmp}/festival.db: create it with `festival-api init`"),
    (None, ["toppers", "recompute"], "no database at {tmp}/festival.db: create it with `festival-api init`"),
    ("sqlite:///{tmp}/empty.db", ["festivals"], "the database at {tmp}/empty.db has no festival tables: "
                                                "run `festival-api init`"),
    ("sqlite:///{tmp}/empty.db", ["keys", "list"], "the database at {tmp}/empty.db has no festival tables: "
                                                   "run `festival-api init`"),
])
def test_setup_problems_are_one_line_with_exit_status_2(cli, tmp_path, url, args, expected):
    garbage(tmp_path / "garbage.db")
    (tmp_path / "empty.db").write_bytes(b"")
    (tmp_path / "README.md").write_text("{}")
    result = cli(url, *[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert one_line_error(result.stderr).startswith("Error: " + expected.format(tmp=tmp_path))
    assert result.stdout == ""
    assert not (tmp_path / "festival.db").exists() and not (tmp_path / "no").exists()
    assert (tmp_path / "empty.db").read_bytes() == b""


def test_version(cli):
    result = cli(None, "--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == "festival-api, version 0.1.0"


def commands(group, prefix=()):
    for name, command in group.commands.items():
        yield prefix + (name,)
        if hasattr(command, "commands"):
            yield from commands(command, prefix + (name,))


@pytest.mark.parametrize("args", [()] + [c for c in commands(cli_module.main)], ids=" ".join)
def test_every_help_names_the_database(cli, tmp_path, args):
    default = cli(None, *args, "--help")
    assert default.exit_code == 0
    text = " ".join(default.stdout.split())
    assert ("Database: DATABASE_URL is not set: the default is sqlite:///festival.db, a file in the "
            "current folder:") in text
    assert f"\n  {tmp_path}/festival.db\n" in default.stdout  # whole, on a line of its own

    chosen = cli("postgresql://reader:s3cret@db.internal:5432/festival", *args, "--help")
    text = " ".join(chosen.stdout.split())
    assert "Database: DATABASE_URL=postgresql://reader:***@db.internal:5432/festival" in text
    assert "s3cret" not in chosen.stdout


@pytest.fixture
def empty_database(tmp_path):
    """``(url, where the error names it)`` of an empty database on the suite's engine."""
    if ON_POSTGRES:
        with pg_scratch.empty_database(TEST_DATABASE_URL) as url:
            yield url, url
    else:
        (tmp_path / "empty.db").write_bytes(b"")
        yield f"sqlite:///{tmp_path}/empty.db", f"{tmp_path}/empty.db"


@pytest.mark.parametrize("args", [["festivals"], ["keys", "list"], ["serve", "--port", "1"]], ids=" ".join)
def test_an_empty_database_on_the_suites_engine_asks_for_init(cli, empty_database, args):
    url, place = empty_database
    result = cli(url, *args)
    assert result.exit_code == 2, result.output
    assert one_line_error(result.stderr) == (
        f"Error: the database at {place} has no festival tables: run `festival-api init`, then load "
        f"festivals with {LOAD_HINT} (DATABASE_URL={url})")


@pytest.mark.parametrize("url, args, expected", [
    # a bare path: what was given, and the URL of that file
    ("/tmp/f.db", ["festivals"], "DATABASE_URL='/tmp/f.db' does not name a database: it must start with sqlite:/// "
                                 "or postgresql:// (a SQLite file: sqlite:////tmp/f.db; a server: "
                                 "postgresql://USER@HOST:5432/DB)"),
    ("festival.sqlite", ["init"], "DATABASE_URL='festival.sqlite' does not name a database: it must start with "
                                  "sqlite:/// or postgresql:// (a SQLite file: sqlite:///festival.sqlite;"),
    ("postgres://u:secret@127.0.0.1:1/x", ["festivals"], "(DATABASE_URL=postgres://u:***@127.0.0.1:1/x)"),
    ("sqlite:///{tmp}/no/such/folder/festival.db", ["init"],
     "(DATABASE_URL=sqlite:///{tmp}/no/such/folder/festival.db)"),
    ("sqlite:///{tmp}/garbage.db", ["festivals"], "(DATABASE_URL=sqlite:///{tmp}/garbage.db)"),
    ("sqlite:///{tmp}/garbage.db", ["backup", "{tmp}/copy.db"], "(DATABASE_URL=sqlite:///{tmp}/garbage.db)"),
    ("sqlite:///{tmp}/empty.db", ["keys", "list"], "(DATABASE_URL=sqlite:///{tmp}/empty.db)"),
    (None, ["festivals"], "(DATABASE_URL is not set: the default is sqlite:///festival.db)"),
], ids=["bare-path", "bare-name", "unreachable-password-hidden", "missing-folder", "not-a-database",
        "database-error", "no-tables", "not-set"])
def test_every_database_url_message_echoes_the_value_given(cli, tmp_path, url, args, expected):
    garbage(tmp_path / "garbage.db")
    (tmp_path / "empty.db").write_bytes(b"")
    result = cli(url, *[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    line = one_line_error(result.stderr)
    assert expected.format(tmp=tmp_path) in line, line
    assert "secret" not in line
