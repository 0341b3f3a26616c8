"""Per-festival data revision: every write bumps it, caches and ETags key on it."""
import threading

from ..database import database
from .models import FestivalRevision, utcnow


def bump_revision(festival):
    """Increase the festival's revision by one and return the new number."""
    now = utcnow()
    inserted = (FestivalRevision
                .insert(festival=festival.id, revision=1, changed_at=now)
                .on_conflict(conflict_target=[FestivalRevision.festival],
                             update={FestivalRevision.revision: FestivalRevision.revision + 1,
                                     FestivalRevision.changed_at: now})
                .execute())
    del inserted
    return current_revision(festival.id)[0]


def current_revision(festival_id):
    """Return ``(revision, changed_at)`` of a festival; ``(0, None)`` before any data."""
    row = (FestivalRevision
           .select(FestivalRevision.revision, FestivalRevision.changed_at)
           .where(FestivalRevision.festival == festival_id)
           .tuples()
           .first())
    return row if row else (0, None)


class RevisionCache:
    """The revisions a connection has read, kept until anything is committed to the database.

    SQLite's ``PRAGMA data_version`` (read at the start of every request's snapshot, see
    :func:`db.database.begin_read_snapshot`) changes when another connection commits; until
    then the revisions this connection read are still the database's. So a request reads
    the ``festival_revision`` row only after a commit, not every time. On PostgreSQL
    (``data_version`` None) every request reads it: one indexed row.
    """

    def __init__(self):
        self._local = threading.local()

    def revision(self, festival_id, data_version):
        if data_version is None:
            return current_revision(festival_id)
        local = self._local
        connection = database.obj.connection()
        if getattr(local, "data_version", None) != data_version or getattr(local, "connection", None) is not connection:
            local.data_version, local.connection, local.revisions = data_version, connection, {}
        found = local.revisions.get(festival_id)
        if found is None:
            found = local.revisions[festival_id] = current_revision(festival_id)
        return found
