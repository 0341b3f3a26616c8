"""Query-parameter fields shared by every endpoint (the rules of docs/api-conventions.md,
"Query parameters")."""
import datetime
import re

import marshmallow as ma
from marshmallow import fields, validate


class Bool(fields.Boolean):
    """``true/false/1/0``, case-insensitive; nothing else."""

    truthy = {"true", "1"}
    falsy = {"false", "0"}

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            value = value.strip().lower()
            if value in self.truthy:
                return True
            if value in self.falsy:
                return False
        raise self.make_error("invalid", input=value)


Bool.default_error_messages = {"invalid": "Not a valid boolean: use true, false, 1 or 0."}


class WholeNumber(fields.Integer):
    """An integer written in ASCII digits (an optional leading minus); surrounding spaces
    are ignored. Python's ``int`` would also take ``5_0``, ``+5`` and non-ASCII digits."""

    PATTERN = re.compile(r"-?[0-9]+", re.ASCII)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            value = value.strip()
            if not self.PATTERN.fullmatch(value):
                raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class CanonicalUUID(fields.UUID):
    """A UUID written the one way ids are shown: 8-4-4-4-12 hex digits (either case).
    Python's ``uuid.UUID`` would also take braces, ``urn:uuid:`` and dash-less hex."""

    PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII | re.IGNORECASE)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and not self.PATTERN.fullmatch(value):
            raise self.make_error("invalid_uuid")
        return super()._deserialize(value, attr, data, **kwargs)


class Array(fields.List):
    """A parameter taking several values.

    Accepts repeated keys (``a=1&a=2``), bracket keys (``a[]=1``, merged by the parser)
    and comma-separated values (``a=1,2``). ``split=False`` keeps commas, for free text.
    An empty value (``a=``, ``a=1,,2``) is invalid, not absent: ignoring it would let a
    request slip past the item limit.
    """

    default_error_messages = {"empty": "Empty values are not allowed."}

    def __init__(self, inner, *, split=True, max_items=100, **kwargs):
        self.split = split
        super().__init__(inner, validate=validate.Length(max=max_items), **kwargs)
        if isinstance(self.inner, Text):
            # Tell clients what an item may be: not blank, and no comma where commas split.
            self.inner.metadata["pattern"] = Text.pattern(non_blank=True, comma=not split)

    def _deserialize(self, value, attr, data, **kwargs):
        if not ma.utils.is_collection(value):
            value = [value]
        raw = []
        for item in value:
            parts = item.split(",") if self.split and isinstance(item, str) else [item]
            for part in parts:
                if isinstance(part, str):
                    if not part.strip():
                        raise self.make_error("empty")
                    if self.split:
                        part = part.strip()
                raw.append(part)
        return super()._deserialize(raw, attr, data, **kwargs)


class Enum(fields.String):
    """A string limited to ``choices``, in any letter case (as booleans and natural keys are:
    ``sortOrder=DESC`` is ``desc``); the error names the allowed values."""

    def __init__(self, choices, **kwargs):
        self.choices = tuple(choices)
        self.folded = {choice.casefold(): choice for choice in self.choices}
        metadata = {**kwargs.pop("metadata", {}), "enum": list(self.choices)}
        super().__init__(
            validate=validate.OneOf(self.choices, error="Must be one of: {choices}."),
            metadata=metadata, **kwargs,
        )

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        return self.folded.get(text.casefold(), text)


class Text(fields.String):
    """Free text: trimmed, bounded length, empty means absent. A NUL character is refused:
    no stored value holds one, and PostgreSQL cannot even take it as a query argument (the
    argument parser refuses every control character before a field sees it)."""

    default_error_messages = {"nul": "Must not contain a NUL character."}

    # What ``str.strip`` removes, as a regular-expression class the OpenAPI document can carry.
    BLANKS = "\\t\\n\\u000b\\u000c\\r\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"

    def __init__(self, max_length=200, **kwargs):
        metadata = {"pattern": self.pattern(), **kwargs.pop("metadata", {})}
        super().__init__(validate=validate.Length(max=max_length), metadata=metadata, **kwargs)

    @classmethod
    def pattern(cls, non_blank=False, comma=True):
        """The OpenAPI ``pattern`` of the text: no control character (the argument parser
        refuses them in every value); optionally no comma, and not blank."""
        allowed = "[^\\u0000-\\u001f\\u007f" + ("" if comma else ",") + "]"
        if not non_blank:
            return f"^{allowed}*$"
        return f"^{allowed}*{allowed[:-1]}{cls.BLANKS}]{allowed}*$"

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if "\x00" in text:
            raise self.make_error("nul")
        return text.strip()


class LocalMoment(datetime.datetime):
    """A moment on the festival's own clock (naive): a bare date's first or last moment.
    Only the festival knows its time zone, so the reader makes it an instant
    (``db.read.schedules.utc_moment``); it compares with naive UTC as if the festival
    kept UTC."""


class Instant(fields.Field):
    """A date (``2026-02-01``) or a date-time with an offset.

    A date-time is returned as naive UTC. A bare date is a day of the festival, in the
    festival's own time zone: what a website means by "the schedule of 15 January"; it is
    returned as a :class:`LocalMoment`, its first moment (its last with ``end_of_day``, for
    inclusive upper bounds), for the reader to place in the festival's zone.
    """

    default_error_messages = {
        "invalid": "Not a valid date or date-time: use YYYY-MM-DD or an ISO 8601 date-time with an offset.",
    }

    local_times = False

    def __init__(self, end_of_day=False, **kwargs):
        self.end_of_day = end_of_day
        metadata = {**kwargs.pop("metadata", {}), "oneOf": [
            {"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str):
            raise self.make_error("invalid")
        value = value.strip()
        try:
            if len(value) == 10 or (len(value) == 8 and value.isdigit()):  # 2026-11-27 or 20261127
                day = datetime.date.fromisoformat(value)
                return LocalMoment.combine(day, datetime.time.max if self.end_of_day else datetime.time.min)
            # An unencoded "+" arrives as a space; RFC 3339 allows a lower-case "z".
            value = value.replace(" ", "+")
            if value.endswith("z"):
                value = value[:-1] + "Z"
            moment = datetime.datetime.fromisoformat(value)
        except ValueError as exc:
            raise self.make_error("invalid") from exc
        if moment.tzinfo is None:
            if not self.local_times:
                raise self.make_error("invalid")
            return LocalMoment.combine(moment.date(), moment.time())
        try:
            return moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        except OverflowError as exc:  # e.g. 0001-01-01T00:00:00+05:00 is before year 1 in UTC
            raise self.make_error("invalid") from exc


class Moment(Instant):
    """A date-time, with an offset or without one (then on the festival's clock, a
    :class:`LocalMoment`, as the festival's own files write times), or a date (its last
    moment on the festival's clock: "after that day")."""

    local_times = True
    default_error_messages = {
        "invalid": "Not a valid date-time: use an ISO 8601 date-time (without an offset, the festival's "
                   "local time) or a date YYYY-MM-DD (its end).",
    }

    def __init__(self, **kwargs):
        super().__init__(end_of_day=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        # "2026-01-15 18:00", as a festival office writes it: the space is the date and time's
        # separator, not an unencoded "+" (which can only follow the time).
        if isinstance(value, str):
            value = value.strip()
            if len(value) > 10 and value[10] == " ":
                value = value[:10] + "T" + value[11:]
        return super()._deserialize(value, attr, data, **kwargs)
