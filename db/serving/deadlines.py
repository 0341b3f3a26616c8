"""Deadlines for PostgreSQL calls of the HTTP service, enforced by the client.

PostgreSQL's ``statement_timeout`` cancels a slow statement, and libpq's ``connect_timeout``
bounds connecting; neither helps when the server (or the network, or a proxy in between)
stops answering altogether: the statement never arrives, the cancellation never comes
back, and the request waits for TCP to give up, minutes later. So the service's
connections wait for the server through :func:`wait_with_deadline` (psycopg2's wait
callback: libpq works asynchronously and Python waits on the socket), which gives up
after the connection's deadline and raises ``OperationalError``; psycopg2 then marks the
connection broken, so a pool never hands it out again.

A request has a deadline of its own besides (:func:`request_deadline`, the front door's
``DATABASE_REQUEST_DEADLINE_MS``): everything it waits for on PostgreSQL together,
connecting included, a second attempt on new connections included, ends by then. The
statements' own deadline (``statement_timeout`` and its grace) stays for the work no
request waits for (the local copy's updates, which copy whole tables); the connect
deadline of a request is whatever its deadline leaves, not libpq's whole seconds.

Neither TCP keepalives nor ``tcp_user_timeout`` can stand in for these: a server process
that hangs (or a proxy in between that stops reading) leaves its kernel acknowledging
every packet, so the connection looks alive to TCP; only a deadline on the answer finds it.

After a deadline passed, the server is taken as silent for ``SILENT_SECONDS``: the
requests' waits on the same database fail at once meanwhile, instead of each holding a
worker thread for the whole deadline (the threads of the local copy wait theirs). Then
the next request tries again.

The service's PostgreSQL databases are made here (:func:`service_database`): with these
deadlines, and connecting by the request's deadline (:class:`ConnectByDeadlineMixin`).
"""
import contextlib
import select
import threading
import time

import psycopg2
import psycopg2.errors
from psycopg2 import extensions

from ..database import POSTGRES_SCHEMES, PooledPostgresDatabase, PostgresDatabase, make_database

SILENT_SECONDS = 2.0
# The server's own statement_timeout should fire first while the server answers: its
# error is cleaner. The client gives up this much later.
GRACE_SECONDS = 0.5

# The request this thread answers: the monotonic time by which its waits on PostgreSQL end.
_request = threading.local()


@contextlib.contextmanager
def request_deadline(seconds):
    """Within the block, every wait of this thread on a deadline connection ends ``seconds``
    from now at the latest (None or 0: only the connections' own deadlines)."""
    _request.until = time.monotonic() + seconds if seconds else None
    try:
        yield
    finally:
        _request.until = None


class DeadlineConnection(extensions.connection):
    """A psycopg2 connection whose connect and statements have deadlines (seconds)."""

    connect_seconds = None
    statement_seconds = None
    silent_until = 0.0  # set on the class each database gets (see ``deadline_connection``)


def deadline_connection(connect_seconds, statement_seconds):
    """A connection class (``connection_factory``) for one database's deadlines; installs
    the wait callback."""
    extensions.set_wait_callback(wait_with_deadline)
    return type("DeadlineConnection", (DeadlineConnection,),
                {"connect_seconds": connect_seconds, "statement_seconds": statement_seconds})


class SilentServer(psycopg2.OperationalError):
    """The database server did not answer within the deadline."""


def take_turn(lock):
    """Acquire ``lock`` (one that others hold while they connect) by this thread's request
    deadline, if it has one; raise :class:`SilentServer` when the deadline passes first."""
    until = getattr(_request, "until", None)
    if until is None:
        lock.acquire()
    elif not lock.acquire(timeout=max(0.0, until - time.monotonic())):
        raise SilentServer("the database server did not connect within the request's deadline "
                           "(another connection to it was being made)")


class ConnectByDeadlineMixin:
    """Connect within the request's deadline, however long another thread's connecting takes.

    Peewee (written against 4.5; ``peewee<5`` in setup.cfg) holds one lock of the database,
    for every thread, while a thread connects: behind one connection to a server that does
    not answer, every other request's connect waited for that lock without a deadline, up to
    the other's whole connect timeout. Here the lock is reentrant, and a request takes it
    first by its own deadline (:func:`take_turn`), then Peewee takes it again.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lock = threading.RLock()  # Peewee's own is a Lock, taken again inside connect()

    def connect(self, reuse_if_open=False):
        take_turn(self._lock)
        try:
            return super().connect(reuse_if_open)
        finally:
            self._lock.release()


class ServicePostgresDatabase(ConnectByDeadlineMixin, PostgresDatabase):
    """The service's PostgreSQL, one connection per request."""


class ServicePooledPostgresDatabase(ConnectByDeadlineMixin, PooledPostgresDatabase):
    """The service's PostgreSQL with a connection pool (``postgresql+pool://``)."""


SERVICE_SCHEMES = {scheme: ServicePooledPostgresDatabase if issubclass(cls, PooledPostgresDatabase)
                   else ServicePostgresDatabase for scheme, cls in POSTGRES_SCHEMES.items()}


def service_database(url, readonly=True, connect_timeout=None, statement_timeout_ms=None):
    """Create (but do not open) the HTTP service's database for ``url`` (``db.database.make_database``).

    On PostgreSQL, with ``connect_timeout`` (seconds) or ``statement_timeout_ms``, connecting
    and every statement have a deadline: the server cancels a statement after
    ``statement_timeout_ms`` (``statement_timeout``), and the client gives up on a server that
    does not answer at all (this module's wait callback). The URL's own ``connect_timeout``
    wins over the argument.
    """
    if not (connect_timeout or statement_timeout_ms):
        return make_database(url, readonly=readonly, schemes=SERVICE_SCHEMES)

    def more_params(params):
        connect_seconds = int(params.get("connect_timeout") or connect_timeout or 0) or None
        statement_seconds = statement_timeout_ms / 1000 + GRACE_SECONDS if statement_timeout_ms else None
        return {"connection_factory": deadline_connection(connect_seconds, statement_seconds)}

    options = [f"-c statement_timeout={int(statement_timeout_ms)}"] if statement_timeout_ms else []
    return make_database(url, readonly=readonly, schemes=SERVICE_SCHEMES, options=options, more_params=more_params)


def check_deadlines(connect_seconds, answer_seconds):
    """The connection class of a check's connection (``db.health.database_problem``): in the
    service, whose connections wait through this module (libpq's ``connect_timeout`` does
    not apply then), deadlines of its own; None in commands, which keep libpq's."""
    if extensions.get_wait_callback() is None:
        return None
    return deadline_connection(connect_seconds, answer_seconds)


def _limit(conn):
    """Seconds this wait may take, or None; and whether the request's deadline sets it."""
    connecting = conn.status == extensions.STATUS_SETUP
    if isinstance(conn, DeadlineConnection):
        own = conn.connect_seconds if connecting else conn.statement_seconds
        until = getattr(_request, "until", None)
        if until is not None:
            left = max(0.0, until - time.monotonic())
            if own is None or left < own:
                return left, True
        return own, False
    if connecting:
        # Other connections keep libpq's connect_timeout, which async connecting ignores.
        timeout = extensions.parse_dsn(conn.dsn).get("connect_timeout")
        return (max(2, int(timeout)) if timeout and str(timeout).isdigit() and int(timeout) > 0 else None), False
    return None, False


def wait_with_deadline(conn):
    """psycopg2's wait callback: ``psycopg2.extras.wait_select`` with a deadline."""
    # Read before the first poll: psycopg2 says "connecting" (20) from then on, not "setup".
    connecting = conn.status == extensions.STATUS_SETUP
    limit, by_request = _limit(conn)
    in_request = getattr(_request, "until", None) is not None
    now = time.monotonic()
    cls = type(conn)
    # Only requests fail at once meanwhile: the work no request waits for (the local copy's
    # updates) waits its own deadline, and a copy failed for a moment would send every
    # request to the server for the copy's rest.
    if in_request and isinstance(conn, DeadlineConnection) and now < cls.silent_until:
        raise SilentServer("the database server did not answer a moment ago")
    deadline = None if limit is None else now + limit
    poller = select.poll()  # select() cannot watch descriptors above 1024
    registered = None
    while True:
        state = conn.poll()
        if state == extensions.POLL_OK:
            return
        events = select.POLLIN if state == extensions.POLL_READ else select.POLLOUT
        if state not in (extensions.POLL_READ, extensions.POLL_WRITE):
            raise psycopg2.OperationalError(f"bad state from poll: {state}")
        if registered != events:
            if registered is not None:
                poller.unregister(conn.fileno())
            poller.register(conn.fileno(), events)
            registered = events
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not poller.poll(None if remaining is None else remaining * 1000) and deadline is not None \
                and time.monotonic() >= deadline:
            if isinstance(conn, DeadlineConnection):
                cls.silent_until = time.monotonic() + SILENT_SECONDS
            what = "connect" if connecting else "answer"
            raise SilentServer(f"the database server did not {what} within "
                               + ("the request's deadline" if by_request else f"{limit:g} s"))


def is_deadline_error(error):
    """Did ``error`` (or the driver error it wraps) come from a deadline: the server's
    ``statement_timeout`` or this module's?"""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (SilentServer, psycopg2.errors.QueryCanceled)):
            return True
        wrapped = error.args[0] if error.args and isinstance(error.args[0], BaseException) else None
        error = wrapped or error.__cause__ or error.__context__
    return False
