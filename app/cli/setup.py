"""The command-line tool's side of the database: which one, is it ready, one-line errors.

Every problem the tool can meet before doing its work (no database yet, a file that is
not a database, a folder that does not exist, an unknown ``DATABASE_URL``, a port in use)
is one line on stderr and exit status 2, never a traceback, and says which command fixes it.
"""
import os
import sqlite3

import click
import psycopg2
from peewee import PeeweeException

from db import health
from db.compiled.tables import required_tables
from db.database import DEFAULT_DATABASE_URL, bind_database, shown_url, sqlite_path
from db.serving.deadlines import check_deadlines

LOAD = "then load festivals with `festival-api seed` (the demo festivals) or `festival-api import FILE`"


class SetupError(click.ClickException):
    """A problem with the database or the machine, not with the command line: exit status 2."""

    exit_code = 2


def database_url():
    return os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL


def where(url):
    path = sqlite_path(url)
    return os.path.abspath(path) if path not in (None, ":memory:") else shown_url(url)


def describe_database():
    """For every ``--help``: which database the command uses (paragraphs, paths unwrapped)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        text = f"DATABASE_URL={shown_url(url)}"
    else:
        text = f"DATABASE_URL is not set: the default is {DEFAULT_DATABASE_URL}, a file in the current folder"
    path = sqlite_path(url or DEFAULT_DATABASE_URL)
    if path not in (None, ":memory:"):
        text += f":\n\n\b\n{os.path.abspath(path)}"  # \b: click keeps the line whole
    return text


def given():
    """``DATABASE_URL`` as given, for a message: ``(DATABASE_URL=...)``, or that it is not set."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return f"(DATABASE_URL={shown_url(url)})"
    return f"(DATABASE_URL is not set: the default is {DEFAULT_DATABASE_URL})"


def fix_for(problem, url):
    """The one line that says what is wrong with the database at ``url`` and what fixes it,
    ending with the ``DATABASE_URL`` given."""
    return f"{_fix(problem, url)} {given()}"


def _fix(problem, url):
    place = where(url)
    return {
        health.MISSING_FOLDER: f"the folder of {place} does not exist: create it, or set DATABASE_URL "
                               "to a file in a folder that exists",
        health.MISSING_FILE: f"no database at {place}: create it with `festival-api init`, {LOAD}",
        health.NOT_A_DATABASE: f"{place} is not a SQLite database, or it is damaged: restore a backup, or move "
                               f"the file away and run `festival-api init`, {LOAD}",
        health.NO_TABLES: f"the database at {place} has no festival tables: run `festival-api init`, {LOAD}",
        health.OLDER_TABLES: f"the database at {place} lacks some of the tables this version reads (a file of "
                             "an older version?): run `festival-api init` to add them",
        health.LOCKED: f"the database at {place} is locked by another process: try again when it has finished",
        health.UNREACHABLE: f"cannot use the database at {place}: {problem.reason} Check DATABASE_URL",
        health.DAMAGED: f"the database at {place} is damaged (PRAGMA quick_check: {problem.reason}): restore "
                        "the latest backup (docs/deployment.md, Restore), or import every festival into a new file",
    }[problem.kind]


# What a command that creates the tables (init, seed, import, demo) can start from.
CREATES_TABLES = {health.MISSING_FILE, health.NO_TABLES, health.OLDER_TABLES}


def check_database(allowed=frozenset(), integrity=False):
    """The URL of the database of ``DATABASE_URL``; SetupError if it cannot be used.

    ``allowed``: problems the command itself fixes (see ``CREATES_TABLES``). ``integrity``:
    a SQLite file must also pass ``PRAGMA quick_check`` (`serve` never starts on a damaged file).
    """
    url = database_url()
    try:
        problem = health.database_problem(url, required_tables(url), timeout=5, deadlines=check_deadlines)
    except ValueError as error:
        raise SetupError(str(error))
    if problem is None and integrity:
        path = sqlite_path(url)
        damage = path not in (None, ":memory:") and health.integrity_problem(path, timeout=5)
        if damage:
            problem = damage[0]._replace(reason=damage[1][:120])
    if problem is not None and problem.kind not in allowed:
        raise SetupError(fix_for(problem, url))
    return url


def open_database(allowed=frozenset()):
    """Check the database of ``DATABASE_URL`` (see ``check_database``), bind it and connect."""
    db = bind_database(check_database(allowed))
    db.connect(reuse_if_open=True)
    return db


class _NamesTheDatabase:
    """Every ``--help`` ends with the database the command would use."""

    def format_epilog(self, ctx, formatter):
        super().format_epilog(ctx, formatter)
        with formatter.section("Database"):
            formatter.write_text(describe_database())


class _WholeSummary:
    """A command's line in its group's ``--help`` is the first line of its description, whole
    (click cuts it off at 45 characters with "..." unless ``short_help`` is given)."""

    def get_short_help_str(self, limit=45):
        if self.short_help or not self.help:
            return super().get_short_help_str(limit)
        return self.help.split("\n\n", 1)[0].replace("\n", " ").strip()


class Command(_WholeSummary, _NamesTheDatabase, click.Command):
    pass


class Group(_WholeSummary, _NamesTheDatabase, click.Group):
    """The tool's groups: database errors a command did not foresee are still one line."""

    command_class = Command
    group_class = type  # subgroups are Groups too

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (PeeweeException, sqlite3.Error, psycopg2.Error) as error:
            message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise SetupError(f"database error at {where(database_url())}: {message} {given()}") from None
