"""The one clock: what time the data is read and written at.

Every stored timestamp is naive UTC, and every reader of "now" asks here at call time
(``clock.utcnow()``, never a copy of the function taken at import): the privacy rules whose
answer moves with time (news by ``publishedAt``, registration windows), the views that pass
``now`` to them, leaderboards' ``lastComputedAt``, revisions, row defaults and keys. A test
that sets the time sets it here, once: ``monkeypatch.setattr(db.clock, "utcnow", ...)``.
A stored festival's clock is :func:`festival_zone`'s.
"""
import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def utcnow():
    """Naive UTC now: every stored timestamp is naive UTC."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def festival_zone(name):
    """A stored festival's time zone (UTC when it has none or it is unknown). An import checks
    the name it is given (``seed.pipeline.read.local_times.parse_zone``)."""
    try:
        return ZoneInfo(name) if name else datetime.timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        return datetime.timezone.utc
