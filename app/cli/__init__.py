"""``festival-api``: set up the database, load festivals, manage API keys, serve."""
import difflib
import os
import re
import sys
import uuid

import click

from db.compiled.tables import analyze_compiled_tables, create_tables
from db.source import models as m
from db.source.keys import create_key, list_keys, renew_key, revoke_key

from ..config import SettingError, load_config, parse_setting
from .setup import (CREATES_TABLES, Group, SetupError, check_database, database_url, given, open_database,
                    shown_url)

# The label of the keys `festival-api demo` makes, followed by the serving process's id: a run
# replaces the keys of runs that no longer serve, and only them.
DEMO_KEY_LABEL = "festival-api demo"
_DEMO_PROCESS = re.compile(re.escape(DEMO_KEY_LABEL) + r" \(process (\d+)\)$")
# The bundled festival the README's examples use: `demo` prints its key first, uses it in the
# `Try:` line, and the demo page opens on it.
EXAMPLE_FESTIVAL = "kalolsavam-2026"


class UnknownFestival(click.ClickException):
    """A festival slug the database does not hold: exit status 2, with the slugs it is near."""

    exit_code = 2


def _festival_or_fail(slug):
    festival = m.Festival.get_or_none(m.Festival.slug == slug)
    if festival is None:
        slugs = [row.slug for row in m.Festival.select(m.Festival.slug).order_by(m.Festival.slug)]
        near = difflib.get_close_matches(slug, slugs, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
        raise UnknownFestival(f"no festival with slug {slug!r}{hint}; `festival-api festivals` lists them")
    return festival


def _create_tables():
    """Create the tables (safe to repeat), and compile every festival again when compiled
    tables of an older form were made again (``create_tables`` says which): a database an
    older release made is upgraded in place."""
    remade = create_tables()
    if not remade:
        return
    from db.compiler import publish
    from seed.pipeline.write.locking import WriteError, write_transaction

    seconds = wait_seconds()
    festivals = list(m.Festival.select().order_by(m.Festival.slug))
    for festival in festivals:
        try:
            with write_transaction(seconds):  # one writer at a time, like imports and updates
                publish(festival, recompute=False)
        except WriteError as error:
            raise SetupError(str(error))
    click.echo(f"Upgraded {', '.join(remade)}: compiled {len(festivals)} festival(s) again.", err=True)


def wait_seconds():
    """``IMPORT_WAIT_SECONDS``: how long a write waits for another, passed down to the import's
    transaction (``seed.pipeline.write.locking.write_transaction``)."""
    from ..config import SETTINGS

    try:
        return parse_setting("IMPORT_WAIT_SECONDS", os.environ.get("IMPORT_WAIT_SECONDS",
                                                                   SETTINGS["IMPORT_WAIT_SECONDS"][0]))
    except SettingError as error:
        raise SetupError(str(error))


IMPORT_CAPS = ("IMPORT_MAX_MB", "IMPORT_MAX_RATIO", "IMPORT_MAX_ROWS", "IMPORT_MAX_PROBLEMS")


def check_import_caps():
    """The caps of ``seed.pipeline.read.limits`` (read from the environment there), checked."""
    from ..config import SETTINGS

    for name in IMPORT_CAPS:
        try:
            parse_setting(name, os.environ.get(name, SETTINGS[name][0]))
        except SettingError as error:
            raise SetupError(str(error))


def _progress(section, count):
    click.echo(f"  {section:<24} {count:>6} rows", err=True)


def _import(path, update=False, dry_run=False, allow_withdrawals=False, data=None):
    """Import (or update from) ``path``; ``data``: the file's fixture as it is to be imported."""
    from seed.pipeline.write.importer import FixtureError, import_file, import_fixture
    from seed.pipeline.write.locking import WriteError
    from seed.pipeline.write.update import update_file
    from seed.pipeline.guard.withdrawals import ALLOW_FLAG, WithdrawalRefused

    seconds = wait_seconds()
    check_import_caps()
    click.echo(f"{'Checking' if dry_run else 'Updating' if update else 'Importing'} {path}", err=True)
    try:
        if update:
            summary = update_file(path, dry_run=dry_run, allow_withdrawals=allow_withdrawals, wait_seconds=seconds)
        elif data is not None:
            summary = import_fixture(data, progress=_progress, wait_seconds=seconds)
        else:
            summary = import_file(path, progress=None if dry_run else _progress, dry_run=dry_run,
                                  allow_withdrawals=allow_withdrawals, wait_seconds=seconds)
    except FixtureError as exc:
        for line in exc.lines():
            click.echo(f"  {line}", err=True)
        raise click.ClickException(f"{path} is invalid ({exc.total} problem(s)); nothing was written")
    except WriteError as error:
        raise SetupError(str(error))
    except WithdrawalRefused as exc:
        click.echo(f"  {len(exc.withdrawals)} published record(s) would be taken away from the public:", err=True)
        for line in exc.lines():
            click.echo(f"    {line}", err=True)
        raise click.ClickException(
            f"{path} would withdraw published records; nothing was written. If that is what you mean, "
            f"run the same command with {ALLOW_FLAG}")
    if update or dry_run:
        for line in summary.row_diff.lines() or ["no changes"]:
            click.echo(f"  {line}", err=True)
    if dry_run:
        for move in summary.leaderboards:
            click.echo(f"  {move.line()}", err=True)
    if summary.withdrawals:
        click.echo(f"  {len(summary.withdrawals)} published record(s) "
                   f"{'would be' if dry_run else 'were'} taken away from the public:", err=True)
        for withdrawal in summary.withdrawals:
            click.echo(f"    {withdrawal.line()}", err=True)
        if dry_run and not allow_withdrawals:
            click.echo(f"  Without {ALLOW_FLAG}, this import will be refused.", err=True)
    if not (dry_run or update):
        analyze_compiled_tables()  # PostgreSQL's planner, on the tables the import filled
    if dry_run:
        click.echo(f"Dry run of {summary.festival.slug}: nothing was written", err=True)
    elif update:
        click.echo(f"Updated {summary.festival.slug}: revision {summary.revision}", err=True)
    else:
        click.echo(f"Imported {summary.festival.slug}: {summary.rows} rows, revision {summary.revision}", err=True)
    return summary


@click.group(cls=Group)
@click.version_option(package_name="festival-data-service", prog_name="festival-api")
def main():
    """Festival Data Service: a public read-only festival data API."""


@main.command()
def init():
    """Create the database tables (safe to run again)."""
    open_database(allowed=CREATES_TABLES)
    _create_tables()
    click.echo("Database ready.", err=True)


@main.command()
def seed():
    """Load the bundled demo festivals (safe to run again)."""
    from seed import bundled_fixtures

    open_database(allowed=CREATES_TABLES)
    _create_tables()
    for path in bundled_fixtures():
        _import(path)


@main.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=True))
@click.option("--update", is_flag=True,
              help="Apply only FILE's rows to the stored festival; nothing absent is removed.")
@click.option("--dry-run", is_flag=True, help="Check FILE and report what would change; write nothing.")
@click.option("--allow-withdrawals", is_flag=True,
              help="Let FILE take published results, programmes or news away from the public "
                   "(without it, such an import is refused and lists them).")
def import_(file, update, dry_run, allow_withdrawals):
    """Validate FILE (JSON, a folder of CSV files, a .zip of them or an .xlsx workbook), then load it.

    Without --update, FILE replaces that festival's data. An import that would withdraw or
    delete a published result, programme or news item is refused, listing them, unless
    --allow-withdrawals is given; a row that says withdrawn or deleted itself is enough for
    its own record.
    """
    open_database(allowed=CREATES_TABLES)
    _create_tables()
    _import(file, update=update, dry_run=dry_run, allow_withdrawals=allow_withdrawals)


@main.command()
@click.argument("slug")
@click.argument("folder", type=click.Path())
def export(slug, folder):
    """Write festival SLUG to FOLDER as the CSV folder of docs/spreadsheets.md (to a workbook when FOLDER ends in .xlsx).

    The files name rows by their natural keys (no ids), in the festival's local time, so an
    office can take the current state back into its spreadsheets and import it again. They
    hold the private columns too (email, phone, ...). FOLDER must be new or empty; a
    workbook must not exist yet.
    """
    from seed.pipeline.export import ExportError, export_festival

    open_database()
    try:
        written = export_festival(_festival_or_fail(slug), folder)
    except ExportError as exc:
        raise click.ClickException(str(exc))
    for path in written:
        click.echo(f"  {path.name}", err=True)
    click.echo(f"Exported {slug} to {folder}" + ("" if folder.lower().endswith(".xlsx") else f" ({len(written)} files)"),
               err=True)


@main.command()
@click.argument("source")
@click.option("--interval", default=30.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds between looks at an address; a local SOURCE is also read whole this often.")
@click.option("--sheet", help="The section a CSV address holds (results, ...); default: its file name.")
@click.option("--festival", "festival_slug", metavar="SLUG", help="The festival a CSV address belongs to.")
@click.option("--poll", is_flag=True, help="Look at a local SOURCE's size and time every second instead of watching "
                                           "its folder (a network share whose changes this machine is not told of).")
def follow(source, interval, sheet, festival_slug, poll):
    """Apply SOURCE as import --update does each time it changes (a folder, a workbook or an http(s) address).

    A folder or a workbook on this machine is applied as soon as it is saved (its folder is
    watched; on a network file system, or with --poll, its size and time are looked at
    every second instead) and read again every --interval seconds; an address is asked
    every --interval seconds, with a conditional request. When its content changed it is
    applied with the checks of `import --update`, in one transaction, and one line says
    what changed and the new revision. A source that does not answer, is caught mid-save,
    has a broken row or would take a published record away is not applied: the festival
    stays as it was, the reason is said once, and again only when it changes or is over.
    SIGTERM or Ctrl-C stops it between two looks (exit status 0).
    """
    import functools
    import signal
    import threading

    from seed.pipeline.follow import POLL, Follower, open_source
    from seed.pipeline.write.update import update_source

    apply = functools.partial(update_source, wait_seconds=wait_seconds())
    check_import_caps()
    open_database()
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())

    def say(message):
        click.echo(message, err=True)

    follower = Follower(open_source(source, sheet, festival_slug, interval), say, apply)
    why_not = follower.start_watching(poll)
    if not getattr(follower.source, "local", False):
        how = f"every {interval:g} s"
    elif why_not is None:
        how = f"as it is saved, and every {interval:g} s"
    else:
        how = f"when its size or time changes (looked at every {POLL:g} s: {why_not}), and every {interval:g} s"
    say(f"Following {source} {how} (SIGTERM or Ctrl-C stops)")
    follower.run(interval, stop)
    say(f"Stopped following {source}")


@main.command()
def festivals():
    """List festivals, one per line: slug, name, revision."""
    from db.source.revisions import current_revision

    open_database()
    for festival in m.Festival.select().order_by(m.Festival.slug):
        revision, _ = current_revision(festival.id)
        click.echo(f"{festival.slug}\t{festival.name}\trevision {revision}")


@main.command()
@click.argument("dest", type=click.Path(file_okay=True, dir_okay=True))
def backup(dest):
    """Copy the SQLite database to DEST while the service runs (DEST may be a directory).

    Uses SQLite's online backup API; prints the backup's path. For PostgreSQL use pg_dump.
    """
    import datetime

    from db.database import backup_sqlite, sqlite_path

    url = database_url()
    source = sqlite_path(url)
    if source is None:
        raise click.ClickException(
            f"DATABASE_URL={shown_url(url)} is a PostgreSQL database: back it up with pg_dump "
            "(e.g. pg_dump -Fc -f festival.dump DBNAME; see docs/deployment.md)")
    if source == ":memory:" or not os.path.isfile(source):
        raise click.ClickException(f"no SQLite database file at {source!r} {given()}")
    if not os.path.isdir(os.path.dirname(os.path.abspath(dest))):
        raise click.ClickException(f"no directory to write {dest!r} into")
    if os.path.isdir(dest):
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        dest = os.path.join(dest, f"{os.path.splitext(os.path.basename(source))[0]}-{stamp}.db")
    backup_sqlite(source, dest)
    click.echo(f"Backed up {source} to {dest} ({os.path.getsize(dest)} bytes).", err=True)
    click.echo(dest)


@main.group()
def keys():
    """Create, list and revoke API keys."""


@keys.command("create")
@click.argument("slug")
@click.option("--label", help="A note saying who the key is for.")
def keys_create(slug, label):
    """Create a key for festival SLUG; the key is printed once, alone on the last line."""
    open_database()
    key, plain = create_key(_festival_or_fail(slug), label=label)
    click.echo(f"Created key {key.id} ({key.prefix}…) for {slug}. Store it now: it is not shown again.", err=True)
    click.echo(plain)


@keys.command("list")
@click.argument("slug", required=False)
def keys_list(slug):
    """List keys (id, festival, prefix, state, label), of one festival when SLUG is given."""
    open_database()
    festival = _festival_or_fail(slug) if slug else None
    for key in list_keys(festival):
        state = "revoked" if key.revoked_at else "active"
        click.echo(f"{key.id}\t{key.festival.slug}\t{key.prefix}…\t{state}\t{key.label or ''}")


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id):
    """Revoke the key with id KEY_ID."""
    try:
        key_uuid = uuid.UUID(key_id)
    except ValueError:
        raise click.ClickException(f"{key_id!r} is not a key id (see `festival-api keys list`)")
    open_database()
    if not revoke_key(key_uuid):
        raise click.ClickException(f"no key with id {key_id}")
    click.echo(f"Revoked {key_id}.", err=True)


@main.group()
def toppers():
    """Recompute the stored leaderboards."""


@toppers.command("recompute")
@click.argument("slug", required=False)
def toppers_recompute(slug):
    """Recompute every topper placeholder of festival SLUG (of every festival without SLUG)."""
    from db.compiler import publish
    from seed.pipeline.write.locking import WriteError, write_transaction

    seconds = wait_seconds()
    open_database()
    festivals = [_festival_or_fail(slug)] if slug else list(m.Festival.select().order_by(m.Festival.slug))
    for festival in festivals:
        try:
            with write_transaction(seconds):  # one writer at a time, like imports and updates
                published = publish(festival)
        except WriteError as error:
            raise SetupError(str(error))
        count = m.TopperPlaceholder.select().join(m.SubFest).where(m.SubFest.festival == festival.id).count()
        click.echo(f"Recomputed {count} topper placeholder(s) of {festival.slug}, revision {published.revision} "
                   f"({len(published.changes)} public change(s))", err=True)


def _server_settings(host, port, threads, workers=None):
    """The settings `serve` listens with, every setting checked first: SetupError (one line,
    exit status 2) for the first that cannot be used. Options win over the environment."""
    try:
        settings = load_config()
        for name, given in (("HOST", host), ("PORT", port), ("THREADS", threads), ("WORKERS", workers)):
            if given is not None:
                settings[name] = parse_setting(name, given, shown=f"--{name.lower()}")
    except SettingError as error:
        raise SetupError(str(error))
    return settings


def _serve(host, port, threads, config=None, workers=None):
    """Serve the app on ``host:port`` (and ``/healthz`` alone on ``HEALTH_PORT``); refuse, in
    one line, when a setting, the database or a port is unusable."""
    from .. import create_app
    from ..server import (BACKLOG, create_server, keep_freed_memory, leave_startup_to_itself, pin_to_cpu,
                          server_settings, start_health_listener, write_held_lines_on_sigterm)
    from ..server.workers import listening_socket, run_workers

    from db.serving.local_copy import remove_copies, remove_stale_copies

    settings = _server_settings(host, port, threads, workers)
    host, port, health_port = settings["HOST"], settings["PORT"], settings["HEALTH_PORT"]
    if health_port and health_port == port:
        raise SetupError(f"HEALTH_PORT={health_port} is not valid: expected a port other than PORT, or 0 for none")
    check_database(integrity=True)
    for path in remove_stale_copies(settings["LOCAL_COPY_DIR"] or None):
        click.echo(f"removed {path}: the local copy of a process that no longer runs", err=True)
    keep_freed_memory()  # before any worker thread or process starts: they inherit it
    if health_port:
        _check_port(host, health_port, HEALTH_PORT_HINT)
    try:
        if settings["WORKERS"] > 1:
            waitress = {name: value for name, value in server_settings(settings).items()
                        if name not in ("host", "port")}

            def serve_one(sock, index):
                write_held_lines_on_sigterm(before_exit=remove_copies)
                if settings["PIN_CPU"]:
                    pin_to_cpu(index)
                try:
                    app = _warmed(create_app(config))
                    if health_port:
                        start_health_listener(_health_app(app), listening_socket(host, health_port, BACKLOG))
                    server = create_server(app, sockets=[sock], ident="festival-api", **waitress)
                    leave_startup_to_itself()
                    server.run()
                finally:  # a worker ends with os._exit: no atexit
                    remove_copies()

            def after_death():
                remove_stale_copies(settings["LOCAL_COPY_DIR"] or None)

            run_workers(settings["WORKERS"], serve_one, host, port, BACKLOG, after_death=after_death,
                        ready=lambda: click.echo(
                            f"Serving on http://{host}:{port}/public-api/v1 (docs: /public-api/v1/docs) "
                            f"with {settings['WORKERS']} processes"
                            + (", each kept on one CPU" if settings["PIN_CPU"] else "")
                            + (f"; /healthz also on port {health_port}" if health_port else ""), err=True))
            return
        write_held_lines_on_sigterm(before_exit=remove_copies)
        cpu = pin_to_cpu() if settings["PIN_CPU"] else None
        app = _warmed(create_app(config))
        server = create_server(app, **server_settings(settings), ident="festival-api")
    except OSError as error:
        raise _listen_error(host, port, error)
    if health_port:
        try:
            start_health_listener(_health_app(app), _listening(host, health_port, BACKLOG))
        except OSError as error:
            raise _listen_error(host, health_port, error, HEALTH_PORT_HINT)
    click.echo(f"Serving on http://{host}:{port}/public-api/v1 (docs: /public-api/v1/docs)"
               + ("" if cpu is None else f" on CPU {cpu}")
               + (f"; /healthz also on port {health_port}" if health_port else ""), err=True)
    leave_startup_to_itself()
    server.run()


PORT_HINT = "or choose another port with --port (or PORT)"
HEALTH_PORT_HINT = "or choose another HEALTH_PORT"


def _listening(host, port, backlog):
    """A socket listening on ``host:port`` (with SO_REUSEADDR, as waitress listens)."""
    import socket

    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(backlog)
    return sock


def _health_app(app):
    """The WSGI app of the health listener: ``/healthz`` alone, from ``app``'s health check."""
    from ..door.healthz import HealthApp

    return HealthApp(app.extensions["front_door"].health)


def _listen_error(host, port, error, hint=PORT_HINT):
    """The SetupError of a failed attempt to listen on ``host:port``."""
    import errno
    import socket

    if isinstance(error, socket.gaierror):
        return SetupError(f"cannot listen on {host}:{port}: {error.strerror or error} (check --host or HOST)")
    if error.errno == errno.EADDRINUSE:
        return SetupError(f"port {port} on {host} is already in use: stop what uses it, {hint}")
    return SetupError(f"cannot listen on {host}:{port}: {error.strerror or error}")


def _check_port(host, port, hint=PORT_HINT):
    """SetupError unless ``host:port`` can be listened on now (as waitress will, with SO_REUSEADDR)."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:
        raise _listen_error(host, port, error, hint) from None


def _serving_demo_key(key):
    """True for the key of a `demo` whose process still runs (another than this one)."""
    match = _DEMO_PROCESS.match(key.label or "")
    if match is None or int(match[1]) == os.getpid():
        return False
    try:
        os.kill(int(match[1]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _warmed(app):
    """``app``, its local copy (PostgreSQL) being made in the background as it starts serving."""
    app.extensions["front_door"].database.warm()
    return app


# The defaults are read when the command runs, not here: a bad PORT must not break --help.
host_option = click.option("--host", help="Address to listen on.  [default: HOST, else 127.0.0.1]")
port_option = click.option("--port", help="Port to listen on.  [default: PORT, else 8080]")
threads_option = click.option("--threads", help="Worker threads.  [default: THREADS, else 8]")


workers_option = click.option("--workers", help="Processes on the port, one per core at most.  "
                                                "[default: WORKERS, else 1]")


@main.command()
@host_option
@port_option
@threads_option
@workers_option
def serve(host, port, threads, workers):
    """Serve the API with waitress (the database must hold the tables: see init, seed, import)."""
    _serve(host, port, threads, workers=workers)


def _import_around_today(path):
    """Import the bundled festival at ``path`` with its dates moved so that it runs around
    today (``seed/demo_dates.py``): the festival, and a line saying where its dates went."""
    import json

    from seed.demo_dates import days_to_today, moved

    data = json.loads(path.read_text(encoding="utf-8"))
    days = days_to_today(data["festival"])
    festival = _import(path, data=moved(data, days)).festival
    was = data["festival"]
    return festival, days, (f"  {festival.slug:<24} {festival.start_date} to {festival.end_date} "
                            f"(bundled: {was['start_date']} to {was['end_date']})")


@main.command()
@host_option
@port_option
@threads_option
def demo(host, port, threads):
    """Create the local database, load the demo festivals, print a key for each, serve."""
    from seed import bundled_fixtures

    settings = _server_settings(host, port, threads)  # before anything is written
    host, port, threads = settings["HOST"], settings["PORT"], settings["THREADS"]
    _check_port(host, port)  # a demo already serving there keeps its data and its keys
    open_database(allowed=CREATES_TABLES)
    _create_tables()
    imported = sorted((_import_around_today(path) for path in bundled_fixtures()),
                      key=lambda pair: (pair[0].slug != EXAMPLE_FESTIVAL, pair[0].slug))
    loaded = [festival for festival, _, _ in imported]
    # Only the festivals just loaded get a key; the key of an earlier run is revoked unless
    # that run still serves (on another port).
    label = f"{DEMO_KEY_LABEL} (process {os.getpid()})"
    lines = [(festival.slug, renew_key(festival, label, keep=_serving_demo_key)[1]) for festival in loaded]
    base = f"http://{host}:{port}/public-api/v1"
    click.echo("\nDemo API keys (one per festival; the README's examples use the first):")
    for slug, plain in lines:
        click.echo(f"  {slug:<24} {plain}")
    click.echo("\nThe festivals' dates, moved so that each runs around today (something is always coming up):")
    for _, _, line in imported:
        click.echo(line)
    click.echo("\nTry:")
    click.echo(f'  curl -H "X-API-Key: {lines[0][1]}" "{base}/news"\n')
    click.echo(f"Demo results page (calls the API from the browser): http://{host}:{port}/\n")
    sys.stdout.flush()
    # The OpenAPI document's examples name the example festival's bundled days: moved with it.
    example_days = next(days for festival, days, _ in imported if festival.slug == EXAMPLE_FESTIVAL)
    _serve(host, port, threads, {"DEMO_PAGE": True, "DEMO_API_KEYS": lines, "DEMO_EXAMPLE_DAYS": example_days})
