"""Times and dates of a festival file, read the way a festival office writes them.

A time without an offset (``2025-09-02 12:51``) is the festival's local time, in its
``timezone``; a time with an offset (``…+05:30``, ``…Z``) keeps it. Both are stored as UTC.
A festival must say its timezone: a missing one is never taken to be UTC.
"""
import datetime
import difflib
import re
import zoneinfo

from peewee import DateField, DateTimeField

from db.source import models as m

from seed.pipeline.read.fixture_format import SECTIONS, fixture_fields

TIME_FORM = "YYYY-MM-DD HH:MM (the festival's local time) or with an offset, e.g. 2026-11-16T10:30:00+05:30"
DATE_FORM = "YYYY-MM-DD"
ZONE_HINT = "an IANA time zone name such as Asia/Kolkata"
_DAY_FIRST = re.compile(r"^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T]+(\d{1,2}[:.]\d{2}(?:[:.]\d{2})?))?\s*$")


def _day_first_hint(text, with_time):
    """``; if that is 2 September 2025, write 2025-09-02`` for a ``dd/mm/yyyy`` value."""
    match = _DAY_FIRST.match(text)
    if not match:
        return ""
    day, month, year, clock = match.groups()
    try:
        date = datetime.date(int(year), int(month), int(day))
    except ValueError:
        return ""
    written = date.isoformat()
    if with_time and clock:
        written += " " + clock.replace(".", ":")
    return f"; if that is {date.day} {date:%B %Y}, write {written}"


def parse_date(text):
    """A date cell as a ``date``; ValueError says the expected form."""
    try:
        return datetime.date.fromisoformat(str(text).strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date: write {DATE_FORM}{_day_first_hint(str(text), False)}") from None


def parse_time(text, zone):
    """A time cell as a naive UTC ``datetime``: without an offset, it is ``zone``'s local time.

    ``zone`` None (the festival's timezone is unknown) leaves a time without an offset as it is.
    """
    try:
        moment = datetime.datetime.fromisoformat(str(text).strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date and time: write {TIME_FORM}"
                         f"{_day_first_hint(str(text), True)}") from None
    if moment.tzinfo is None:
        if zone is None:
            return moment
        moment = moment.replace(tzinfo=zone)
    return moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def parse_zone(name, problems, path="$.festival.timezone", required=True):
    """The ``ZoneInfo`` a festival's ``timezone`` names; else a problem and None.

    A value that is not text is left to the shape check."""
    if name is not None and not isinstance(name, str):
        return None
    if name is None or name.strip() == "":
        if required:
            problems.append((path, f"timezone is missing: give the festival's timezone, {ZONE_HINT} (times "
                                   "written without an offset are read in it; none is assumed)"))
        return None
    try:
        return zoneinfo.ZoneInfo(str(name).strip())
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        close = difflib.get_close_matches(str(name), sorted(zoneinfo.available_timezones()), n=3)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        problems.append((path, f"{name!r} is not a time zone: give {ZONE_HINT}{hint}"))
        return None


def _kinds(model, section=None):
    """``{field name: parse function}`` of the date and time fields of ``model``."""
    out = {}
    for f in fixture_fields(model, section):
        if isinstance(f, DateTimeField):
            out[f.name] = "time"
        elif isinstance(f, DateField):
            out[f.name] = "date"
    return out


_FIELDS = {"festival": _kinds(m.Festival), **{s.key: _kinds(s.model, s) for s in SECTIONS}}


def _localise_row(row, kinds, zone, path, problems):
    for name, kind in kinds.items():
        value = row.get(name)
        if not isinstance(value, str):
            continue
        try:
            if kind == "date":
                row[name] = parse_date(value).isoformat()
            else:
                # An explicit UTC offset, so no later step can read the time in another zone.
                row[name] = parse_time(value, zone).isoformat() + "+00:00"
        except ValueError as exc:
            problems.append((f"{path}.{name}", str(exc)))
            del row[name]


def localise_times(data, zone, problems):
    """``data`` with every time in UTC (``…+00:00``) and every date checked; a bad one is a
    problem (with the form expected) and is left out of the row."""
    out = dict(data)
    if isinstance(data.get("festival"), dict):
        out["festival"] = dict(data["festival"])
        _localise_row(out["festival"], _FIELDS["festival"], zone, "$.festival", problems)
    for section in SECTIONS:
        rows = data.get(section.key)
        if not isinstance(rows, list):
            continue
        out[section.key] = []
        for i, row in enumerate(rows):
            if isinstance(row, dict):
                row = dict(row)
                _localise_row(row, _FIELDS[section.key], zone, f"$.{section.key}[{i}]", problems)
            out[section.key].append(row)
    return out
