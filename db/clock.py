"""The one clock: what time the data is read and written at.

Every stored timestamp is naive UTC, and every reader of "now" asks here at call time
(``clock.utcnow()``, never a copy of the function taken at import): the privacy rules whose
answer moves with time (news by ``publishedAt``, registration windows), the views that pass
``now`` to them, leaderboards' ``lastComputedAt``, revisions, row defaults and keys. A test
that sets the time sets it here, once: ``monkeypatch.setattr(db.clock, "utcnow", ...)``.
"""
import datetime


def utcnow():
    """Naive UTC now: every stored timestamp is naive UTC."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
