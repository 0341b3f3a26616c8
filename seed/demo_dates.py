"""The bundled festivals moved in time, for `festival-api demo`.

The bundled festivals are dated (January and February 2026) so that tests and the README's
examples name fixed days. A demo shown on any other day would have nothing "coming up" and
no next schedule anywhere; so ``festival-api demo`` moves every date of a festival by the
same whole number of days, putting the festival's middle day on today in its own time zone.
Whole days keep every wall-clock time (a 10:00 performance stays at 10:00 in the festival's
zone) and every order: what was published before something else still is, and what was
never meant to be seen (a news item dated 2099) stays as far ahead.

Only the festival's own dates move (fields named ``*_at`` and ``*_date``); a candidate's
date of birth is not the festival's and is kept.

The bundled festivals have every result published, also those of the days that are now
ahead; a result published "on Saturday" read on Thursday would look wrong, so a result's or
a programme's publication time that would lie ahead is put an hour before the import (what
is shown does not depend on it). Other times ahead stay ahead: a news item dated after now
appears when its time comes, as it would.
"""
import datetime
import re
from zoneinfo import ZoneInfo

# An ISO 8601 date, or a date and time with anything after the date (a time, an offset, "Z").
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ].*)?")
_KEPT = {"date_of_birth"}
# Sections whose publication time never lies ahead (see above).
_PUBLISHED = {"results", "subFestProgrammes"}
PUBLISHED_BEFORE_IMPORT = datetime.timedelta(hours=1)


def days_to_today(festival, now=None):
    """Days to add to ``festival``'s dates (its fixture row) so that its middle day is today
    in its time zone (``now``: an aware datetime, default the present)."""
    zone = ZoneInfo(festival.get("timezone") or "UTC")
    today = (now or datetime.datetime.now(datetime.timezone.utc)).astimezone(zone).date()
    start = datetime.date.fromisoformat(festival["start_date"])
    end = datetime.date.fromisoformat(festival.get("end_date") or festival["start_date"])
    middle = start + (end - start) // 2
    return (today - middle).days


def moved(data, days, now=None):
    """A copy of the fixture ``data`` with each of the festival's dates ``days`` later, and no
    result published after ``now`` (default: the present) less an hour."""
    shift = datetime.timedelta(days=days)
    latest = (now or datetime.datetime.now(datetime.timezone.utc)) - PUBLISHED_BEFORE_IMPORT

    def walk(value, key=None, section=None):
        if isinstance(value, dict):
            return {name: walk(item, name, section) for name, item in value.items()}
        if isinstance(value, list):
            return [walk(item, key, section) for item in value]
        if (isinstance(value, str) and isinstance(key, str) and key not in _KEPT
                and key.endswith(("_at", "_date")) and (found := _DATE.fullmatch(value))):
            day = datetime.date.fromisoformat(found[1]) + shift
            value = day.isoformat() + value[10:]
            if section in _PUBLISHED and key == "published_at" and _instant(value) > latest:
                return latest.strftime("%Y-%m-%dT%H:%M:%SZ")
        return value

    # A new structure throughout: ``data`` is left as it was.
    return {name: walk(item, name, name) for name, item in data.items()}


def moved_examples(document, days):
    """A copy of ``document`` (any JSON) with every string that is wholly a date or a date-time
    ``days`` later: the OpenAPI document's examples, which name the bundled Kalolsavam's days,
    on a demo whose Kalolsavam was moved by ``days`` (prose is left as it is)."""
    shift = datetime.timedelta(days=days)

    def walk(value):
        if isinstance(value, dict):
            return {name: walk(item) for name, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, str) and (found := _DATE.fullmatch(value)) and " " not in value:
            return (datetime.date.fromisoformat(found[1]) + shift).isoformat() + value[10:]
        return value

    return walk(document)


def _instant(text):
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)
