"""A request's read snapshot, and its festival's revision read as seldom as the engine allows
(:class:`RevisionCache`): without the local copy, this is how :class:`db.serving.ServiceDatabase`
begins a request."""
import threading

from peewee import PostgresqlDatabase

from ..database import database, is_postgres
from ..source.revisions import ALL_REVISIONS, NO_REVISION, by_festival, current_revision, read_revisions


def begin_read_snapshot(db, then=None):
    """Start a read transaction in which every statement sees the same data.

    A request may read more than once (the revision, then its page); in one snapshot it
    sees an import whole or not at all. SQLite's WAL gives a deferred transaction a
    snapshot at its first read; PostgreSQL needs REPEATABLE READ for that.

    On SQLite the first read is ``PRAGMA data_version``, which also says whether another
    connection committed anything since this one last looked: it is returned, so that the
    revisions need to be read again only when it moved (:class:`RevisionCache`). On
    PostgreSQL, ``then`` (a query without parameters) runs in the same round trip as
    ``BEGIN`` and its rows are returned.
    """
    if isinstance(db, PostgresqlDatabase):
        cursor = db.cursor()
        cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" + (f"; {then}" if then else ""))
        return cursor.fetchall() if then else None
    # The raw connection: two statements of transaction control need none of Peewee's work.
    db.connection().execute("BEGIN")
    return sqlite_data_version(db)


def sqlite_data_version(db):
    """SQLite's ``PRAGMA data_version``, in a transaction or outside one: it moves when
    another connection commits, so equal values mean that nothing was written between the
    two reads."""
    return db.connection().execute("PRAGMA data_version").fetchone()[0]


def end_read_snapshot(db):
    """End the request's read transaction; the connection stays open for the next one."""
    if db.is_closed():
        return
    try:
        # On the raw connection, like BEGIN (psycopg2's own rollback() would do nothing in
        # autocommit mode, where the transaction is not its own).
        if isinstance(db, PostgresqlDatabase):
            db.cursor().execute("ROLLBACK")
        else:
            db.connection().execute("ROLLBACK")
    except Exception:  # a broken connection is replaced on the next request
        db.close()


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
    (a deployment holds a few festivals); with the local copy a ``RevisionWatch`` holds
    them, or, while it cannot, they are read alone (:meth:`read`).
    """

    def __init__(self):
        self._local = threading.local()

    def begin(self, db):
        """``revision_of(festival_id)`` -> ``(revision, changed_at)`` of ``db`` as of now,
        ``(0, None)`` before any data. On PostgreSQL this begins the read snapshot; on SQLite
        it does not (see :meth:`snapshot`)."""
        if is_postgres(db):
            found = by_festival(begin_read_snapshot(db, then=ALL_REVISIONS))
            return lambda festival_id: found.get(str(festival_id), NO_REVISION)
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
