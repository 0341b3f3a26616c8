"""A local copy of the compiled tables, for a service whose database is PostgreSQL.

A request must read its festival at the revision PostgreSQL holds now (an import is seen
by the next request; the process learns each revision from the server's notifications,
:class:`db.serving.revision_watch.RevisionWatch`), but its page it can read from a copy of the
compiled tables in a local SQLite file, with the same readers and the same SQL as a SQLite
deployment: no round trip to the server, which does almost no work.

The copy holds each festival exactly at a revision the server had. A request reads its
page from the copy only when the copy holds the festival at the server's revision
(:meth:`LocalCopy.begin`); otherwise it reads from the server, as if there were no
copy, and the copy is brought up to date in the background by a thread of its own, which
runs while there is something to copy (no request waits for the copy). An
update copies a festival's compiled rows whole, from one snapshot of the server, in one
SQLite transaction: readers of the copy see the previous revision or the next, never
half. What is copied is what the compiles since the copy's revision wrote again
(``PublicRecompile``): a result's programme and its participants, and the festival's small
lists; the whole festival when a compile was whole, when the history in between is not
kept, or when the copy's revision is not in the server's history (a restored backup).
An update that fails (the copy's file, the server, a statement past its deadline) is
logged, and requests read from the server for ``RETRY_SECONDS`` before the copy is made
again. ``serve`` asks for every festival as it starts (:meth:`LocalCopy.want`).
Only the compiled tables are copied: they hold nothing a request may not show, except the
key of the keyed hashes (``PublicSecret``), which requests need. The file is
made in a private directory (mode 0700) and removed with the copy.

The directory is removed on every exit the process sees: the copy's ``close``, the end of
the interpreter (``atexit``), and ``serve``'s handlers of SIGTERM and SIGINT
(:func:`remove_copies`). What no process can see (SIGKILL, a crash, the power) leaves it:
its name says whose it was, ``festival-api-copy-<boot>-<pid namespace>-<pid>-<start>-<random>``,
and ``serve`` removes, as it starts, the directories of processes that no longer run
(:func:`remove_stale_copies`): of an earlier boot, or of this boot and pid namespace when
that pid now runs a process started at another moment (a pid used again). Directories of
another user, of another pid namespace (a container beside this one), or named otherwise,
are left alone.
"""
import atexit
import datetime
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import uuid
import weakref

from peewee import BlobField, CompositeKey, DateField, DateTimeField, SchemaManager, SqliteDatabase, UUIDField

from ..compiled.tables import (
    KEPT_REVISIONS,
    PER_RECORD_MODELS,
    PER_RECORD_ROWS,
    PER_RECORD_TAGS,
    READ_MODELS,
    PublicChange,
    PublicRevision,
    PublicRecompile,
    PublicSecret,
    PublicTag,
)
from ..compiled.text_index import create_text_index, refresh_text_index
from ..database import READ_CACHE_KIB, SQLITE_PRAGMAS
from ..source.models import FestivalRevision

# What requests read: the compiled lists, the change log and the key of the keyed hashes.
COPIED_MODELS = (*READ_MODELS, PublicChange, PublicRevision, PublicSecret)
# Rows of each revision: those after the copy's revision are copied; the changes of
# revisions the server no longer keeps are pruned as the server prunes them.
HISTORY = (PublicChange, PublicRevision)
# The ids of one statement's ``IN (...)``.
CHUNK = 500
# After the copy's file failed, requests read from the server this long before the copy is
# made again (a full disk does not cost every request a failed copy).
RETRY_SECONDS = 30

# The revision of each festival the copy holds: (revision, changed_at as ISO text).
HELD_TABLE = "local_copy_revision"

# The copy's WAL is cut back to this size whenever it is emptied (after each update).
WAL_LIMIT_BYTES = 16 * 2**20

# Errors of the copy itself (its file, its disk): the request reads from the server instead.
COPY_ERRORS = (sqlite3.Error, OSError)


def _uuid_hex(value):
    return value.hex if isinstance(value, uuid.UUID) else uuid.UUID(str(value)).hex


def _iso(value):
    # As SQLite's own adapters (and so Peewee on SQLite) store them.
    return value.isoformat(" ") if isinstance(value, datetime.datetime) else value.isoformat()


def _converter(field):
    """How a value PostgreSQL gives for ``field`` is stored in SQLite (None: as it is)."""
    if isinstance(field, UUIDField):
        return _uuid_hex
    if isinstance(field, BlobField):
        return bytes
    if isinstance(field, (DateTimeField, DateField)):
        return _iso
    return None


class _Table:
    """One compiled table: the SQL to read a festival's rows from the server and to write
    them into the copy, and the columns to convert on the way."""

    def __init__(self, model):
        fields = model._meta.sorted_fields
        columns = ", ".join(f'"{f.column_name}"' for f in fields)
        table = model._meta.table_name
        festival = model._meta.fields["festival"].column_name
        self.select = f'SELECT {columns} FROM "{table}" WHERE "{festival}" = %s'
        self.delete = f'DELETE FROM "{table}" WHERE "{festival}" = ?'
        self.insert = f'INSERT INTO "{table}" ({columns}) VALUES ({", ".join("?" * len(fields))})'
        self.conversions = [(i, convert) for i, convert in enumerate(map(_converter, fields)) if convert]

    def replace(self, server, copy, festival_id, where="", server_params=(), copy_params=(), by_record=False):
        """Replace the copy's rows of the festival (those ``where`` names, with ``?`` for
        parameters) with the server's. ``by_record``: ``where`` names records by their ids,
        which the copy finds by their own index, not the festival's."""
        extra = f" AND {where}" if where else ""
        delete = self.delete.replace(' WHERE "', ' WHERE +"', 1) if by_record else self.delete
        copy.execute(delete + extra, (_uuid_hex(festival_id), *copy_params))
        server.execute(self.select + extra.replace("?", "%s"), (str(festival_id), *server_params))
        copy.executemany(self.insert, self.rows(server))

    def rows(self, cursor):
        conversions = self.conversions
        for row in cursor:
            row = list(row)
            for i, convert in conversions:
                if row[i] is not None:
                    row[i] = convert(row[i])
            yield row


class LocalCopy:
    """The compiled tables of ``source`` (a PostgreSQL database) in a local SQLite file.

    ``directory``: where to make the file's private directory (default: the system's
    temporary directory).
    """

    def __init__(self, source, directory=None, clock=time.monotonic, logger=None):
        self.source = source
        self.clock = clock
        self._logger = logger
        self._resume_at = None  # while the copy rests after a failure
        self._closed = False
        self.directory = tempfile.mkdtemp(prefix=f"{PREFIX}{_owner_mark(os.getpid())}-", dir=directory)
        self.path = os.path.join(self.directory, "compiled.sqlite3")
        # Read by every worker thread, each with its own connection and page cache.
        self.db = SqliteDatabase(self.path, pragmas={**SQLITE_PRAGMAS, "cache_size": -READ_CACHE_KIB,
                                                     "journal_size_limit": WAL_LIMIT_BYTES},
                                 check_same_thread=False)
        self._cleanup = weakref.finalize(self, _remove, self.db, self.directory)
        _open_copies.add(self)
        self._tables = {model: _Table(model) for model in COPIED_MODELS}
        self._held = {}  # festival id (str) -> (revision, changed_at) as the server gave it, committed
        # Festival ids (str) to bring up to date, None for every festival, and the thread doing
        # so while it runs; both under the condition.
        self._wanted = set()
        self._updater = None
        self._changed = threading.Condition()
        with self.db.connection_context():
            for model in COPIED_MODELS:
                SchemaManager(model, database=self.db).create_all(safe=True)
            self.db.execute_sql(f'CREATE TABLE IF NOT EXISTS "{HELD_TABLE}" (festival TEXT PRIMARY KEY, '
                                'revision INTEGER NOT NULL, changed_at TEXT)')
            for sql in _record_indexes():
                self.db.execute_sql(sql)
            create_text_index(self.db)  # kept by refresh_text_index once a festival's rows are in

    def close(self):
        """Close the copy's connections and remove its file; an update under way stops at its
        next step, unlogged, and nothing is read from the copy or copied into it again."""
        with self._changed:
            self._closed = True
            self._wanted.clear()
        self._cleanup()

    def held(self, festival_id):
        """``(revision, changed_at)`` at which the copy holds the festival, as the server gave
        it; None when it does not hold it (or rests after a failure)."""
        if self._resting():
            return None
        return self._held.get(str(festival_id))

    def begin(self, festival_id, revision):
        """Begin this thread's read snapshot of the copy when it holds ``festival_id`` at
        ``revision`` (``(revision, changed_at)``, as the server gave it) and return True.
        Otherwise return False, the request reads from the server, and the copy is brought up
        to date in the background."""
        if self._resting():
            return False
        if self.open_at(festival_id, revision):
            return True
        self.want(festival_id)
        return False

    def want(self, festival_id=None):
        """Bring ``festival_id`` (None: every festival the server has) to the server's
        revision, in the background; return at once."""
        with self._changed:
            self._wanted.add(None if festival_id is None else str(festival_id))
            if self._updater is None:
                self._updater = threading.Thread(target=self._update_wanted, name="festival-api-local-copy",
                                                 daemon=True)
                self._updater.start()

    def settled(self, timeout=None):
        """Wait until nothing is being copied; return whether that happened within ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._updater is None, timeout)

    def _update_wanted(self):
        """The background thread: update what is wanted, then end (a later want starts another)."""
        try:
            while True:
                with self._changed:
                    if not self._wanted or self._resting():
                        self._wanted.clear()
                        self._updater = None
                        self._changed.notify_all()
                        return
                    wanted = self._wanted.pop()
                try:
                    for key in (self._festivals() if wanted is None else (wanted,)):
                        self._update(key)
                except Exception as error:  # noqa: BLE001 -- whatever failed, requests read the server meanwhile
                    self.failed(error)
        finally:
            for db in (self.source, self.db):  # this thread's connections
                try:
                    db.close()
                except Exception:  # noqa: BLE001 -- a broken connection is gone either way
                    pass

    def _festivals(self):
        cursor = self.source.execute_sql(f'SELECT festival_id::text FROM "{FestivalRevision._meta.table_name}"')
        return [row[0] for row in cursor.fetchall()]

    def open_at(self, festival_id, revision):
        """Begin this thread's read snapshot of the copy if it holds the festival at
        ``revision``, without updating it; return whether it did."""
        key = str(festival_id)
        if self._held.get(key) != revision:
            return False
        connection = self.db.connection()
        connection.execute("BEGIN")
        # Another thread may have committed a later revision since: the snapshot says.
        row = connection.execute(f'SELECT revision, changed_at FROM "{HELD_TABLE}" WHERE festival = ?',
                                 (key,)).fetchone()
        if row != _held_form(revision):
            connection.execute("ROLLBACK")
            return False
        return True

    def _resting(self):
        if self._closed:
            return True
        if self._resume_at is None:
            return False
        if self.clock() < self._resume_at:
            return True
        self._resume_at = None
        return False

    def end(self):
        """End this thread's read snapshot of the copy."""
        self.db.connection().execute("ROLLBACK")

    def failed(self, error):
        """The copy failed with ``error`` (its file, or an update): log it, forget what the
        copy holds, and let requests read from the server for ``RETRY_SECONDS`` before it is
        made again."""
        self._held.clear()
        self._resume_at = self.clock() + RETRY_SECONDS
        if self._logger is not None and not self._closed:
            self._logger.error("the local copy failed; reading from PostgreSQL for %d s: %s", RETRY_SECONDS, error)

    def _update(self, key):
        """Bring the festival (``key``, its id as text) in the copy to the server's revision,
        from one snapshot of it; return whether anything was copied (not when the copy holds
        that revision already)."""
        started = time.monotonic()
        server = self.source.cursor()
        server.execute(f'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT revision, changed_at '
                       f'FROM "{FestivalRevision._meta.table_name}" WHERE festival_id = %s', (key,))
        try:
            found, held = server.fetchone(), self._held.get(key)
            if found is None or held == tuple(found):
                return False
            target = _held_form(found)
            held = None if held is None else _held_form(held)
            recompiled = None if held is None else _recompiled_between(server, key, held, target)
            copy = self.db.connection()
            copy.execute("BEGIN IMMEDIATE")
            try:
                if recompiled is None:
                    for table in self._tables.values():
                        table.replace(server, copy, key)
                else:
                    self._replace_recompiled(server, copy, key, recompiled, since=held[0], until=target[0])
                refresh_text_index(copy, _uuid_hex(key))
                copy.execute(f'INSERT OR REPLACE INTO "{HELD_TABLE}" VALUES (?, ?, ?)', (key, *target))
                copy.execute("COMMIT")
            except BaseException:
                copy.execute("ROLLBACK")
                raise
            # A whole festival's rows went through the WAL (hundreds of MB at scale): put them in
            # the file and empty it, once the readers of the revision before have moved on (the
            # readers' transactions are short; busy_timeout bounds the wait; a busy checkpoint is
            # done by the next update, and journal_size_limit truncates the WAL then).
            copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._held[key] = tuple(found)
            if self._logger is not None:
                self._logger.info("the local copy holds festival %s at revision %d (%s, %.2f s)", key, found[0],
                                  "whole" if recompiled is None else "what its compiles wrote", time.monotonic() - started)
            return True
        finally:
            server.execute("ROLLBACK")

    def _replace_recompiled(self, server, copy, festival_id, recompiled, since, until):
        """Replace what the compiles after revision ``since`` wrote again (``recompiled``: ids by
        the names of ``PER_RECORD_ROWS``); copy the history from ``since`` on."""
        tables = self._tables
        for model, table in tables.items():
            if model in HISTORY:
                table.replace(server, copy, festival_id, '"revision" > ?', [since], [since])
                if model is PublicChange:
                    copy.execute(table.delete + ' AND "revision" <= ?', (_uuid_hex(festival_id), until - KEPT_REVISIONS))
            elif model not in PER_RECORD_MODELS:
                table.replace(server, copy, festival_id)
        marks = ", ".join("?" * len(PER_RECORD_TAGS))
        tables[PublicTag].replace(server, copy, festival_id, f'"kind" NOT IN ({marks})', PER_RECORD_TAGS,
                                  PER_RECORD_TAGS)
        for name, rows in PER_RECORD_ROWS.items():
            ids = sorted(recompiled[name])
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start:start + CHUNK]
                for model, column, *tags in rows:
                    where = f'"{column.column_name}" IN ({", ".join("?" * len(chunk))})'
                    server_params, copy_params = list(chunk), [_uuid_hex(i) for i in chunk]
                    if tags:
                        where += f' AND "kind" IN ({", ".join("?" * len(tags[0]))})'
                        server_params += tags[0]
                        copy_params += tags[0]
                    tables[model].replace(server, copy, festival_id, where, server_params, copy_params,
                                          by_record=True)


def _recompiled_between(server, festival_id, held, target):
    """The ids the compiles after ``held`` up to ``target`` (both ``_held_form``) wrote again,
    by the names of ``PER_RECORD_ROWS``; None when the festival must be copied whole: a
    compile was whole, a revision in between is not kept, or ``held`` is not the server's."""
    since, until = held[0], target[0]
    if until <= since:
        return None
    server.execute(f'SELECT revision, changed_at, whole, programme_ids, candidate_ids '
                   f'FROM "{PublicRecompile._meta.table_name}" WHERE festival = %s AND revision BETWEEN %s AND %s '
                   f'ORDER BY revision', (str(festival_id), since, until))
    rows = server.fetchall()
    if [row[0] for row in rows] != list(range(since, until + 1)):
        return None
    if _held_form(rows[0][:2]) != held or _held_form(rows[-1][:2]) != target:
        return None
    recompiled = {name: set() for name in PER_RECORD_ROWS}
    for _, _, whole, programme_ids, candidate_ids in rows[1:]:
        if whole:
            return None
        recompiled["programme_ids"].update(json.loads(programme_ids))
        recompiled["candidate_ids"].update(json.loads(candidate_ids))
    return recompiled


def _record_indexes():
    """``CREATE INDEX`` of each per-record column no index of the table leads with: the copy
    finds a compile's records by them (the server's compile finds them by the festival)."""
    for rows in PER_RECORD_ROWS.values():
        for model, column, *_ in rows:
            key = model._meta.primary_key
            leading = key.field_names[0] if isinstance(key, CompositeKey) else key.name
            if column.name != leading:
                table = model._meta.table_name
                yield (f'CREATE INDEX IF NOT EXISTS "local_copy_{table}_{column.column_name}" '
                       f'ON "{table}" ("{column.column_name}")')


def _held_form(revision):
    number, changed_at = revision
    return number, (_iso(changed_at) if changed_at is not None else None)


# The copies this process made and has not closed: removed on every exit it sees.
_open_copies = weakref.WeakSet()

PREFIX = "festival-api-copy-"


def remove_copies():
    """Remove the directory of every copy this process holds (at exit, on SIGTERM or SIGINT).

    Only the directory: a signal handler may run while its thread holds the copy's
    database lock (Peewee's is not reentrant), and the process ends next anyway."""
    for copy in list(_open_copies):
        shutil.rmtree(copy.directory, ignore_errors=True)


atexit.register(remove_copies)


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            return fh.read().strip().replace("-", "")[:12]
    except OSError:
        return None


def _pid_namespace():
    try:
        return os.readlink("/proc/self/ns/pid").strip("pid:[]")
    except OSError:
        return None


def _started(pid):
    """When process ``pid`` started (clock ticks after boot, /proc/PID/stat), or None when
    no such process runs."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            stat = fh.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) may hold spaces and parentheses: count after its last ")".
    return stat.rsplit(")", 1)[1].split()[19]


def _owner_mark(pid):
    """``<boot>-<pid namespace>-<pid>-<start>`` of process ``pid`` (``x`` where unknown)."""
    return "-".join(str(part) if part else "x" for part in (_boot_id(), _pid_namespace(), pid, _started(pid)))


def _is_stale(name, boot, namespace):
    """Whether the copy directory ``name`` belongs to a process that no longer runs; False
    whenever that cannot be told for sure."""
    parts = name[len(PREFIX):].split("-")
    if len(parts) != 5 or "x" in parts[:4] or not parts[2].isdigit():
        return False
    their_boot, their_namespace, pid, started, _ = parts
    if boot is None:
        return False
    if their_boot != boot:
        return True  # every process of an earlier boot has ended
    if their_namespace != namespace or int(pid) == os.getpid():
        return False
    now = _started(int(pid))
    return now is None or now != started


def remove_stale_copies(directory=None):
    """Remove the copy directories in ``directory`` (default: the system's temporary one)
    of processes that no longer run; return their paths. ``serve`` calls this as it starts."""
    directory = directory or tempfile.gettempdir()
    boot, namespace, uid = _boot_id(), _pid_namespace(), os.geteuid()
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        try:
            if not (entry.name.startswith(PREFIX) and entry.is_dir(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_uid == uid):
                continue
        except OSError:
            continue
        if _is_stale(entry.name, boot, namespace):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def _remove(db, directory):
    try:
        db.close()  # this thread's connection; others' files are gone once they close
    finally:
        shutil.rmtree(directory, ignore_errors=True)
