"""Per-festival data revision: every write bumps it, caches and ETags key on it.

On PostgreSQL every write to the revisions' table notifies the ``REVISION_CHANNEL``
channel, from a trigger (``install_revision_notify``), whoever wrote: a service process
with the local copy keeps every festival's revision in memory from those notifications
(``db.serving.revision_watch.RevisionWatch``) instead of asking the server on every request.
How a request reads its revision is the serving path's (:mod:`db.serving`).
"""
from .. import clock
from ..database import database, is_postgres
from .models import FestivalRevision

# The channel on which PostgreSQL tells listeners that a festival's revision moved.
REVISION_CHANNEL = "festival_revision"
# The trigger (and its function) that notifies it after every statement that writes the table.
REVISION_TRIGGER = "festival_revision_notify"

# Revisions bumped by this process: a watch in the same process reads the server again at
# its next request, without waiting for the notification (an import and requests in one
# process, as in ``festival-api demo``). Read it as ``revisions.bumped_here`` (it moves).
bumped_here = 0

# The revision of a festival before any data (no row in the revisions' table).
NO_REVISION = (0, None)


def bump_revision(festival):
    """Increase the festival's revision by one and return the new ``(revision, changed_at)``."""
    global bumped_here
    bumped_here += 1
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


# Every festival's revision, the id as text (no UUID made per row and request).
ALL_REVISIONS = f"SELECT festival_id::text, revision, changed_at FROM {FestivalRevision._meta.table_name}"


def read_revisions(cursor):
    """Every festival's ``{id as text: (revision, changed_at)}``, read with a psycopg2 ``cursor``."""
    cursor.execute(ALL_REVISIONS)
    return by_festival(cursor.fetchall())


def by_festival(rows):
    """``{id as text: (revision, changed_at)}`` of the rows of :data:`ALL_REVISIONS`."""
    return {festival_id: (revision, changed_at) for festival_id, revision, changed_at in rows}
