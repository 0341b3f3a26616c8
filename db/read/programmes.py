"""Programmes from the compiled tables: ``/programmes``, ``/programme-detail``,
``/programme-results`` and ``/programme-result``.

Registration windows are stored as instants and decided at the request's ``now``: a window
is open when ``opens_at <= now <= closes_at``; a missing ``opens_at`` means "open since
ever", a missing ``closes_at`` "open until further notice", and a window with neither is
not configured, so it is closed. ``nextSchedule`` is the earliest schedule at or after now.
"""
import orjson

from ..compiled import kinds
from ..compiled.tables import PublicProgramme as P
from ..compiled.templates import render
from ..query import ascii_lower
from . import find_by_selectors
from .sql import Select, column, contains_all, equals, negate, one_of, pattern_any, tagged

PROGRAMME_SORTS = {
    "displayOrder": P.display_order,
    "code": P.code_key,
    "name": P.name_key,
    "status": P.status_key,
    "programType": P.program_type_key,
    "publishedAt": P.published_at,
}


def window_open(opens_at, closes_at, now):
    """SQL: the window between the two columns is open at ``now`` (see the module doc)."""
    opens, closes, moment = column(opens_at), column(closes_at), opens_at.db_value(now)
    return (f"({opens} IS NOT NULL OR {closes} IS NOT NULL) AND ({opens} IS NULL OR {opens} <= ?)"
            f" AND ({closes} IS NULL OR {closes} >= ?)", [moment, moment])


def window_is_open(opens_at, closes_at, now):
    """Python: the same rule as :func:`window_open`, for one stored programme."""
    if opens_at is None and closes_at is None:
        return False
    return (opens_at is None or opens_at <= now) and (closes_at is None or now <= closes_at)


def _wanted(fragment, value):
    return fragment if value else negate(fragment)


def programme_filters(festival_id, now):
    """The filter table of every programme list: argument name -> SQL fragment."""
    return {
        "search": lambda text: contains_all(P.search, [text]),
        "category_ids": lambda ids: one_of(P.category, ids),
        "venues": lambda ids: tagged(P, kinds.TAG_PROGRAMME_VENUE, festival_id, ids),
        "statuses": lambda values: one_of(P.status, values),
        "program_type": lambda value: equals(P.program_type, value),
        "program_code_pattern": lambda pattern: pattern_any((P.code, P.master_code), [pattern]),
        "collection_ids": lambda ids: tagged(P, kinds.TAG_PROGRAMME_COLLECTION, festival_id, ids),
        "judges": lambda ids: tagged(P, kinds.TAG_PROGRAMME_JUDGE, festival_id, ids),
        "position_criteria_id": lambda criteria_id: equals(P.position_criteria, criteria_id),
        "grade_criteria_id": lambda criteria_id: equals(P.grade_criteria, criteria_id),
        "requires_topic_registration": lambda value: equals(P.requires_topic_registration, value),
        "candidate_registration_open": lambda value: _wanted(window_open(
            P.candidate_registration_opens_at, P.candidate_registration_closes_at, now), value),
        "topic_registration_open": lambda value: _wanted(window_open(
            P.topic_registration_opens_at, P.topic_registration_closes_at, now), value),
        "has_schedule": lambda value: equals(P.has_schedule, value),
        "has_results": lambda value: equals(P.has_results, value),
        "has_judges": lambda value: equals(P.has_judges, value),
        "has_registrations": lambda value: equals(P.has_registrations, value),
    }


def next_schedule(schedules, now_iso):
    """The JSON of the earliest stored schedule at or after ``now_iso`` (the request's clock
    as ``datetime.isoformat()`` text, made once per request), or ``null``."""
    for instant, schedule in orjson.loads(schedules):
        if instant >= now_iso:
            return schedule
    return "null"


def _programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters):
    return (Select(P)
            .where(*equals(P.festival, festival_id))
            .where(*equals(P.sub_fest, sub_fest_id))
            .total_of(kinds.LIST_PROGRAMMES, festival_id, sub_fest_id)
            .filter(programme_filters(festival_id, now), filters)
            .sort(PROGRAMME_SORTS, sort_by, sort_order, P.id))


def list_programmes(festival_id, sub_fest_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of a sub-fest's programmes: ``(body, schedules)`` rows."""
    return (_programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters)
            .page(page, limit, P.body, P.schedules))


def list_programme_results(festival_id, sub_fest_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of a sub-fest's programmes with results: ``(body, schedules, results)`` rows."""
    return (_programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters)
            .page(page, limit, P.body, P.schedules, P.results))


DETAIL_COLUMNS = (P.sub_fest, P.detail, P.schedules, P.candidate_registration_opens_at,
                  P.candidate_registration_closes_at, P.topic_registration_opens_at,
                  P.topic_registration_closes_at)


def find_programmes(festival_id, programme_id=None, code=None, sub_fest_id=None,
                    columns=(P.sub_fest, P.body, P.schedules, P.results)):
    """``columns`` of the programmes matching every selector given (see
    :func:`find_by_selectors`); by default ``(sub_fest, body, schedules, results)``, and
    ``DETAIL_COLUMNS`` for a detail. Codes compare A-Z case-insensitively."""
    return find_by_selectors(P, columns, festival_id, (
        (P.id, programme_id), (P.code, None if code is None else ascii_lower(code)), (P.sub_fest, sub_fest_id)))


def render_item(body, schedules, now_iso):
    """A stored programme list item with its ``nextSchedule`` at ``now_iso`` (see
    :func:`next_schedule`)."""
    return render(body, {"nextSchedule": next_schedule(schedules, now_iso)})


def render_detail(row, context, now):
    """A stored programme detail (``DETAIL_COLUMNS``) with its context and its
    clock-dependent values at ``now``."""
    _, detail, schedules, candidate_opens, candidate_closes, topic_opens, topic_closes = row
    return render(detail, {
        "context": context,
        "nextSchedule": next_schedule(schedules, now.isoformat()),
        "candidateRegistrationOpen": _json_bool(window_is_open(candidate_opens, candidate_closes, now)),
        "topicRegistrationOpen": _json_bool(window_is_open(topic_opens, topic_closes, now)),
    })


def _json_bool(value):
    return "true" if value else "false"
