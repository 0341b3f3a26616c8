"""Per-festival data revision: every write bumps it, caches and ETags key on it.

On PostgreSQL every write to the revisions' table notifies the ``REVISION_CHANNEL``
channel, from a trigger (``install_revision_notify``), whoever wrote: a service process
with the local copy keeps every festival's revision in memory from those notifications
(:class:`RevisionWatch`) instead of asking the server on every request.
"""
import logging
import select
import threading
import time

from .. import clock
from ..database import begin_read_snapshot, database, is_postgres, sqlite_data_version
from .models import FestivalRevision

# The channel on which PostgreSQL tells listeners that a festival's revision moved.
REVISION_CHANNEL = "festival_revision"
# The trigger (and its function) that notifies it after every statement that writes the table.
REVISION_TRIGGER = "festival_revision_notify"

# Revisions bumped by this process: a watch in the same process reads the server again at
# its next request, without waiting for the notification (an import and requests in one
# process, as in ``festival-api demo``).
_bumped_here = 0

# The revision of a festival before any data (no row in the revisions' table).
NO_REVISION = (0, None)


def bump_revision(festival):
    """Increase the festival's revision by one and return the new ``(revision, changed_at)``."""
    global _bumped_here
    _bumped_here += 1
    now = clock.utcnow()
    inserted = (FestivalRevision
                .insert(festival=festival.id, revision=1, changed_at=now)
                .on_conflict(conflict_target=[FestivalRevision.festival],
                             update={FestivalRevision.revision: FestivalRevision.revision + 1,
                                     FestivalRevision.changed_at: now})
                .execute())
    del inserted
    return current_revision(festival.id)


def install_revision_notify(db=None):
    """On PostgreSQL, make the trigger by which every statement that writes the revisions'
    table notifies ``REVISION_CHANNEL`` when it commits, unless it is there (safe to repeat,
    and to run from two processes at once: they take turns)."""
    db = getattr(db, "obj", None) or db or database.obj  # the proxy's bound database
    if not is_postgres(db):
        return
    table = FestivalRevision._meta.table_name
    with db.atomic():
        db.execute_sql("SELECT pg_advisory_xact_lock(hashtext(%s))", (REVISION_TRIGGER,))
        if db.execute_sql("SELECT 1 FROM pg_proc WHERE proname = %s", (REVISION_TRIGGER,)).fetchone() is None:
            db.execute_sql(f"""CREATE FUNCTION "{REVISION_TRIGGER}"() RETURNS trigger LANGUAGE plpgsql AS $$
                               BEGIN PERFORM pg_notify('{REVISION_CHANNEL}', ''); RETURN NULL; END $$""")
        found = db.execute_sql("SELECT 1 FROM pg_trigger WHERE tgname = %s AND tgrelid = %s::regclass",
                               (REVISION_TRIGGER, table)).fetchone()
        if found is None:
            db.execute_sql(f'CREATE TRIGGER "{REVISION_TRIGGER}" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE '
                           f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION "{REVISION_TRIGGER}"()')


def current_revision(festival_id):
    """Return ``(revision, changed_at)`` of a festival; ``(0, None)`` before any data."""
    row = (FestivalRevision
           .select(FestivalRevision.revision, FestivalRevision.changed_at)
           .where(FestivalRevision.festival == festival_id)
           .tuples()
           .first())
    return row if row else NO_REVISION


class RevisionCache:
    """The festivals' revisions, read as seldom as the engine allows, and a request's read
    snapshot, begun only when the request reads more than its festival's revision.

    SQLite's ``PRAGMA data_version`` changes when another connection commits; until then the
    revisions this connection read are still the database's. So :meth:`begin` asks SQLite for
    ``data_version`` alone, outside a transaction, and reads the ``festival_revision`` row only
    after a commit: a request the response cache answers begins no snapshot. A request that
    reads pages begins one (:meth:`snapshot`), whose first read is ``data_version`` again: a
    commit between the two gives the request the revision its snapshot sees. On PostgreSQL
    the snapshot begins with every festival's revision, in the same round trip as ``BEGIN``
    (a deployment holds a few festivals); with the local copy a :class:`RevisionWatch` holds
    them, or, while it cannot, they are read alone (:meth:`read`).
    """

    def __init__(self):
        self._local = threading.local()

    # Every festival's revision, the id as text (no UUID made per row and request).
    POSTGRES_SELECT = f"SELECT festival_id::text, revision, changed_at FROM {FestivalRevision._meta.table_name}"

    def begin(self, db):
        """``revision_of(festival_id)`` -> ``(revision, changed_at)`` of ``db`` as of now,
        ``(0, None)`` before any data. On PostgreSQL this begins the read snapshot; on SQLite
        it does not (see :meth:`snapshot`)."""
        if is_postgres(db):
            return _revision_of(begin_read_snapshot(db, then=self.POSTGRES_SELECT))
        data_version = sqlite_data_version(db)
        return lambda festival_id: self._sqlite_revision(festival_id, data_version)

    def snapshot(self, db, festival_id):
        """SQLite: begin ``db``'s read snapshot and return ``festival_id``'s revision in it
        (read again only if another connection committed since :meth:`begin`)."""
        return self._sqlite_revision(festival_id, begin_read_snapshot(db))

    def read(self, db):
        """Every festival's ``{id as text: (revision, changed_at)}`` on PostgreSQL, in one
        statement outside any transaction (it sees one snapshot of its own)."""
        return read_revisions(db.cursor())

    def _sqlite_revision(self, festival_id, data_version):
        local = self._local
        connection = database.obj.connection()
        if getattr(local, "data_version", None) != data_version or getattr(local, "connection", None) is not connection:
            local.data_version, local.connection, local.revisions = data_version, connection, {}
        found = local.revisions.get(festival_id)
        if found is None:
            found = local.revisions[festival_id] = current_revision(festival_id)
        return found


def read_revisions(cursor):
    """Every festival's ``{id as text: (revision, changed_at)}``, read with a psycopg2 ``cursor``."""
    cursor.execute(RevisionCache.POSTGRES_SELECT)
    return _by_festival(cursor.fetchall())


def _by_festival(rows):
    return {festival_id: (revision, changed_at) for festival_id, revision, changed_at in rows}


def _revision_of(rows):
    found = _by_festival(rows)
    return lambda festival_id: found.get(str(festival_id), NO_REVISION)


class RevisionWatch:
    """Every festival's revision on a PostgreSQL server, kept in memory from its notifications.

    A thread of its own holds a connection that listens on ``REVISION_CHANNEL``; after
    ``LISTEN`` it reads every revision, and again after each notification (a trigger sends
    one when a statement that writes the revisions commits, :func:`install_revision_notify`)
    and every ``HEARTBEAT_SECONDS``, which also finds a server that stopped answering or a
    connection that died quietly: the watch's statements have a deadline of their own
    (``connect`` gives it), so while the server is silent, revisions are taken from memory
    for at most a heartbeat and that deadline.

    :meth:`current` gives the revisions without a round trip while the watch is live. It
    first looks whether a notification waits on the connection's socket, and whether this
    process bumped a revision since the last read; either way it reads them again before
    answering, so a request that comes after a notification reached the process never gets
    the revisions from before it. Until the watch is live (starting, after its connection
    failed, or when the server has no trigger: a database made by an older version until
    ``festival-api init``) it gives None, and the caller asks the server.

    ``connect()`` makes a psycopg2 connection; ``changed(festival_ids)`` is told which
    festivals moved (the local copy starts copying them).
    """

    HEARTBEAT_SECONDS = 1.0
    # The deadline of the watch's statements (``connect`` makes connections with it).
    DEADLINE_SECONDS = 1.0
    # After a failure, the next connection is tried after this long (doubled up to the last).
    RETRY_SECONDS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
    # How often a server without the trigger is asked again.
    NO_TRIGGER_SECONDS = 60.0

    def __init__(self, connect, changed=None, logger=None):
        self._connect = connect
        self._changed = changed
        self._logger = logger or logging.getLogger(__name__)
        self._lock = threading.Lock()  # held while the connection is used
        self._connection = None
        self._revisions = None  # {festival id as text: (revision, changed_at)} while live
        self._catching_up = False  # a notification was taken in; the revisions are being read
        self._bumps_read = None  # _bumped_here when the revisions were last read
        self._stopped = threading.Event()
        self._thread = None
        self._warned = False
        self.notifications = 0  # taken in so far

    @property
    def live(self):
        return self._revisions is not None

    def start(self):
        """Start the watch's thread (once; every request calls this while the watch is not
        live, so the lock, which a round trip may hold, is taken only the first time)."""
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None and not self._stopped.is_set():
                self._thread = threading.Thread(target=self._run, name="festival-api-revision-watch", daemon=True)
                self._thread.start()

    def stop(self):
        """Stop the thread and close its connection (within a second)."""
        self._stopped.set()

    def current(self):
        """Every festival's ``{id as text: (revision, changed_at)}`` while the watch is live,
        up to date with every notification that reached this process; else None."""
        if self._revisions is None:
            return None
        connection = self._connection
        if (self._catching_up or self._bumps_read != _bumped_here or _readable(connection)
                or (connection is not None and connection.notifies)):  # taken in by a heartbeat's read
            with self._lock:
                try:
                    self._catch_up()
                except Exception as error:  # noqa: BLE001 -- the watch's thread connects again
                    self._lost(error)
        # Read after the looks, never before: the thread may have taken in a notification and
        # published what it announced between the call and the looks, which then find nothing.
        return self._revisions

    def wait_live(self, timeout):
        """Wait until the watch is live; return whether it is."""
        deadline = time.monotonic() + timeout
        while not self.live and time.monotonic() < deadline and not self._stopped.is_set():
            time.sleep(0.01)
        return self.live

    # -- the thread ----------------------------------------------------------------------

    def _run(self):
        failures = 0
        while not self._stopped.is_set():
            try:
                if self._listen():
                    failures = 0
                    self._follow()
                elif self._stopped.wait(self.NO_TRIGGER_SECONDS):
                    break
            except Exception as error:  # noqa: BLE001 -- whatever failed, the caller asks the server
                with self._lock:
                    self._lost(error, log=failures == 0)
                if self._stopped.wait(self.RETRY_SECONDS[min(failures, len(self.RETRY_SECONDS) - 1)]):
                    break
                failures += 1
        with self._lock:
            self._lost(None)

    def _listen(self):
        """Connect, listen and read every revision; return whether the watch is live (False:
        the server has no trigger to notify it)."""
        connection = self._connect()
        try:
            connection.autocommit = True
            cursor = connection.cursor()
            cursor.execute("SELECT 1 FROM pg_trigger WHERE tgname = %s AND NOT tgisinternal", (REVISION_TRIGGER,))
            if cursor.fetchone() is None:
                self._warned, warned = True, self._warned
                if not warned:
                    self._logger.warning("the database has no %s trigger (made by an older version): each request "
                                         "asks PostgreSQL for its festival's revision; `festival-api init` adds "
                                         "it", REVISION_TRIGGER)
                connection.close()
                return False
            cursor.execute(f'LISTEN "{REVISION_CHANNEL}"')
        except Exception:
            connection.close()
            raise
        with self._lock:
            self._connection = connection
            self._read()  # after LISTEN: a write that commits from now on is notified
        self._logger.info("watching PostgreSQL for new revisions: requests take them from memory")
        return True

    def _follow(self):
        """Wait for notifications; read the revisions after each, and every heartbeat."""
        beat = time.monotonic() + self.HEARTBEAT_SECONDS
        while not self._stopped.is_set():
            connection = self._connection
            if connection is None:
                raise ConnectionError("the watch's connection was lost")
            ready = select.select([connection], [], [], 1.0)[0]
            with self._lock:
                if self._connection is not connection:
                    continue  # lost meanwhile (by a request): the loop finds out
                if ready:
                    self._catch_up()
                if time.monotonic() >= beat:
                    self._read()
                    beat = time.monotonic() + self.HEARTBEAT_SECONDS

    # -- with the lock held ----------------------------------------------------------------

    def _catch_up(self):
        connection = self._connection
        if connection is None:
            return
        # Marked before the poll: it empties the socket before it hands over the notifications,
        # and a request that looks in between must wait for what they announce.
        self._catching_up = True
        try:
            connection.poll()  # takes in what arrived: notifications (or the news that it closed)
            self.notifications += len(connection.notifies)
            if connection.notifies or self._bumps_read != _bumped_here:
                self._read()
        finally:
            self._catching_up = False

    def _read(self):
        """Read every revision (again while notifications arrive meanwhile) and publish them."""
        connection = self._connection
        while True:
            connection.notifies.clear()
            bumps = _bumped_here
            revisions = read_revisions(connection.cursor())
            if not connection.notifies:
                break
            self.notifications += len(connection.notifies)
        before, self._revisions, self._bumps_read = self._revisions, revisions, bumps
        if self._changed is not None and before is not None:
            moved = [key for key, revision in revisions.items() if before.get(key) != revision]
            if moved:
                self._changed(moved)

    def _lost(self, error, log=True):
        """The connection failed (or the watch stops): the caller asks the server until the
        thread has connected again."""
        connection, self._connection, self._revisions = self._connection, None, None
        self._catching_up = False
        if connection is not None:
            try:
                connection.close()
            except Exception:  # noqa: BLE001 -- a broken connection is gone either way
                pass
        if error is not None and log:
            self._logger.warning("watching PostgreSQL for new revisions failed (each request asks it meanwhile): %s",
                                 error)


def _readable(connection):
    """Whether something waits on ``connection``'s socket (a notification, or its end)."""
    try:
        return bool(select.select((connection,), (), (), 0)[0])
    except Exception:  # noqa: BLE001 -- closed meanwhile: :meth:`RevisionWatch._catch_up` finds out
        return True
