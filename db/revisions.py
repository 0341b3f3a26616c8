"""Per-festival data revision: every write bumps it, caches and ETags key on it."""
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
