"""Every festival's revision on a PostgreSQL server, kept in memory from its notifications
(:class:`RevisionWatch`), so that a request with the local copy makes no round trip to learn
its festival's revision. The trigger that notifies is made with the tables
(``db.source.revisions.install_revision_notify``)."""
import logging
import select
import threading
import time

import psycopg2

from ..source import revisions as source_revisions
from ..source.revisions import REVISION_CHANNEL, REVISION_TRIGGER, read_revisions
from .deadlines import GRACE_SECONDS, deadline_connection


def watch_connector(db, deadline_seconds):
    """``connect()`` for the revision watch: a connection like ``db``'s, whose statements
    have a deadline of ``deadline_seconds`` (the server's ``statement_timeout`` and the
    client's own), however long the requests' may be."""
    params = dict(db.connect_params)
    factory = params.get("connection_factory")
    connect_seconds = getattr(factory, "connect_seconds", None)
    params["connection_factory"] = deadline_connection(connect_seconds, deadline_seconds + GRACE_SECONDS)
    params["options"] = f"{params.get('options') or ''} -c statement_timeout={int(deadline_seconds * 1000)}".strip()
    return lambda: psycopg2.connect(dbname=db.database, **params)


class RevisionWatch:
    """Every festival's revision on a PostgreSQL server, kept in memory from its notifications.

    A thread of its own holds a connection that listens on ``REVISION_CHANNEL``; after
    ``LISTEN`` it reads every revision, and again after each notification (a trigger sends
    one when a statement that writes the revisions commits, ``install_revision_notify``)
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
        self._bumps_read = None  # ``source_revisions.bumped_here`` when the revisions were last read
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
        if (self._catching_up or self._bumps_read != source_revisions.bumped_here or _readable(connection)
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
            if connection.notifies or self._bumps_read != source_revisions.bumped_here:
                self._read()
        finally:
            self._catching_up = False

    def _read(self):
        """Read every revision (again while notifications arrive meanwhile) and publish them."""
        connection = self._connection
        while True:
            connection.notifies.clear()
            bumps = source_revisions.bumped_here
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
