"""``/changes``: what became different in a festival's public data after a revision."""
from ..compiled.tables import KEPT_REVISIONS
from ..compiled.tables import PublicChange as C
from ..compiled.tables import PublicRevision as R
from .sql import Select, column, equals, one_of

COLUMNS = (C.revision, C.visible_at, C.kind, C.item, C.action, C.sub_fest, C.natural_keys)


def unknown_revision(since_revision, revision):
    """The message when the changes after ``since_revision`` cannot be listed whole, else
    None: it is above the festival's current ``revision`` (a restore from an older backup
    takes the revision back), or so far behind that changes after it were pruned (only the
    last ``KEPT_REVISIONS`` revisions' are kept). An empty or partial list would make a
    polling client miss changes without knowing. ``0`` asks for every change kept."""
    if since_revision > revision:
        return (f"sinceRevision {since_revision} is ahead of the festival's data revision {revision}: "
                f"the data was restored from an older copy. Drop what you kept, read the lists again, "
                f"and poll from sinceRevision={revision}.")
    if 0 < since_revision <= revision - KEPT_REVISIONS:
        return (f"sinceRevision {since_revision} is too far behind the festival's data revision {revision}: "
                f"only the changes of the last {KEPT_REVISIONS} revisions are kept. Read the lists again, "
                f"and poll from sinceRevision={revision}.")
    return None


def list_changes(festival_id, since_revision, page, limit, now, kinds=None):
    """One page of the changes after ``since_revision`` that can be seen at ``now``, newest
    first: rows of ``COLUMNS``. A change made at a later revision counts, and so does one of
    an earlier revision that became visible after ``since_revision`` was made (news
    published for a later moment)."""
    select = (Select(C)
              .where(*equals(C.festival, festival_id))
              .where(f"{column(C.visible_at)} <= ?", [C.visible_at.db_value(now)])
              .where(f'{column(C.revision)} > ? OR {column(C.visible_at)} > '
                     f'(SELECT "changed_at" FROM "{R._meta.table_name}" WHERE "festival" = ? AND "revision" = ?)',
                     [since_revision, R.festival.db_value(festival_id), since_revision]))
    if kinds:
        select.where(*one_of(C.kind, kinds))
    select.order = (f"{column(C.visible_at)} DESC, {column(C.revision)} DESC, {column(C.kind)} ASC, "
                    f"{column(C.item)} ASC")
    found = select.page(page, limit, *COLUMNS)
    found.items = [tuple(f.python_value(v) for f, v in zip(COLUMNS, row)) for row in found.items]
    return found
