"""Per-festival data revision: every write bumps it, caches and ETags key on it."""
import threading

from ..database import begin_read_snapshot, database, is_postgres
from .models import FestivalRevision, utcnow


def bump_revision(festival):
    """Increase the festival's revision by one and return the new ``(revision, changed_at)``."""
    now = utcnow()
    inserted = (FestivalRevision
                .insert(festival=festival.id, revision=1, changed_at=now)
                .on_conflict(conflict_target=[FestivalRevision.festival],
                             update={FestivalRevision.revision: FestivalRevision.revision + 1,
                                     FestivalRevision.changed_at: now})
                .execute())
    del inserted
    return current_revision(festival.id)


def current_revision(festival_id):
    """Return ``(revision, changed_at)`` of a festival; ``(0, None)`` before any data."""
    row = (FestivalRevision
           .select(FestivalRevision.revision, FestivalRevision.changed_at)
           .where(FestivalRevision.festival == festival_id)
           .tuples()
           .first())
    return row if row else (0, None)


class RevisionCache:
    """A request's read snapshot, and the revisions of the festivals in it, read as seldom as
    the engine allows.

    SQLite's ``PRAGMA data_version`` (the snapshot's first read, see
    :func:`db.database.begin_read_snapshot`) changes when another connection commits; until
    then the revisions this connection read are still the database's. So a request reads
    the ``festival_revision`` row only after a commit, not every time. On PostgreSQL the
    snapshot begins with every festival's revision, in the same round trip as ``BEGIN``
    (a deployment holds a few festivals); with the local copy the revisions travel alone,
    on a connection of their own, while the request reads the copy (:meth:`send`).
    """

    def __init__(self):
        self._local = threading.local()

    # Every festival's revision, the id as text (no UUID made per row and request).
    POSTGRES_SELECT = f"SELECT festival_id::text, revision, changed_at FROM {FestivalRevision._meta.table_name}"

    def begin(self, db):
        """Begin ``db``'s read snapshot; return ``revision_of(festival_id)`` -> ``(revision,
        changed_at)`` in it, ``(0, None)`` before any data."""
        if is_postgres(db):
            return _revision_of(begin_read_snapshot(db, then=self.POSTGRES_SELECT))
        data_version = begin_read_snapshot(db)
        return lambda festival_id: self._sqlite_revision(festival_id, data_version)

    def send(self, connection):
        """Send the revisions' statement on an asynchronous psycopg2 ``connection`` (no
        transaction: a statement sees one snapshot of its own); return its cursor, for
        :meth:`received`. The request goes on meanwhile (:mod:`app.database`)."""
        cursor = connection.cursor()
        cursor.execute(self.POSTGRES_SELECT)
        return cursor

    def received(self, cursor, wait):
        """``revision_of`` from the answer to :meth:`send`, once ``wait(connection)`` has it."""
        wait(cursor.connection)
        return _revision_of(cursor.fetchall())

    def _sqlite_revision(self, festival_id, data_version):
        local = self._local
        connection = database.obj.connection()
        if getattr(local, "data_version", None) != data_version or getattr(local, "connection", None) is not connection:
            local.data_version, local.connection, local.revisions = data_version, connection, {}
        found = local.revisions.get(festival_id)
        if found is None:
            found = local.revisions[festival_id] = current_revision(festival_id)
        return found


def _revision_of(rows):
    found = {festival_id: (revision, changed_at) for festival_id, revision, changed_at in rows}
    return lambda festival_id: found.get(str(festival_id), (0, None))
