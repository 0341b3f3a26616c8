"""Programmes from the compiled tables: ``/programmes``, ``/programme-detail``,
``/programme-results`` and ``/programme-result``.

Registration windows are stored as instants and decided at the request's ``now``: a window
is open when ``opens_at <= now <= closes_at``; a missing ``opens_at`` means "open since
ever", a missing ``closes_at`` "open until further notice", and a window with neither is
not configured, so it is closed. ``nextSchedule`` is the earliest schedule at or after now.
"""
import orjson

from ..query import apply_filters, apply_sorting, folded_pattern, page_of_rows, search_folded
from ..read_model import PublicProgramme as P
from ..templates import render
from . import tagged, wanted

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
    return ((opens_at.is_null(False) | closes_at.is_null(False))
            & (opens_at.is_null() | (opens_at <= now))
            & (closes_at.is_null() | (closes_at >= now)))


def window_is_open(opens_at, closes_at, now):
    """Python: the same rule as :func:`window_open`, for one stored programme."""
    if opens_at is None and closes_at is None:
        return False
    return (opens_at is None or opens_at <= now) and (closes_at is None or now <= closes_at)


def programme_filters(festival_id, now):
    """The filter table of every programme list: argument name -> condition."""
    return {
        "search": lambda text: search_folded(P.search, [text]),
        "category_ids": lambda ids: P.category.in_(ids),
        "venues": lambda ids: tagged(P, "programme-venue", festival_id, ids),
        "statuses": lambda values: P.status.in_(values),
        "program_type": lambda value: P.program_type == value,
        "program_code_pattern": lambda pattern: (folded_pattern(P.code, pattern)
                                                 | folded_pattern(P.master_code, pattern)),
        "collection_ids": lambda ids: tagged(P, "programme-collection", festival_id, ids),
        "judges": lambda ids: tagged(P, "programme-judge", festival_id, ids),
        "position_criteria_id": lambda criteria_id: P.position_criteria == criteria_id,
        "grade_criteria_id": lambda criteria_id: P.grade_criteria == criteria_id,
        "requires_topic_registration": lambda value: P.requires_topic_registration == value,
        "candidate_registration_open": lambda value: wanted(window_open(
            P.candidate_registration_opens_at, P.candidate_registration_closes_at, now), value),
        "topic_registration_open": lambda value: wanted(window_open(
            P.topic_registration_opens_at, P.topic_registration_closes_at, now), value),
        "has_schedule": lambda value: P.has_schedule == value,
        "has_results": lambda value: P.has_results == value,
        "has_judges": lambda value: P.has_judges == value,
        "has_registrations": lambda value: P.has_registrations == value,
    }


def next_schedule(schedules, now):
    """The JSON of the earliest stored schedule at or after ``now``, or ``null``."""
    moment = now.isoformat()
    for instant, schedule in orjson.loads(schedules):
        if instant >= moment:
            return schedule
    return "null"


def _programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters):
    query = P.select().where((P.festival == festival_id) & (P.sub_fest == sub_fest_id))
    query = apply_filters(query, programme_filters(festival_id, now), filters)
    return apply_sorting(query, sort_by, sort_order, PROGRAMME_SORTS, P.id)


def list_programmes(festival_id, sub_fest_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of a sub-fest's programmes: ``(body, schedules)`` rows."""
    query = _programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters)
    return page_of_rows(query, (P.body, P.schedules), page, limit)


def list_programme_results(festival_id, sub_fest_id, page, limit, sort_by, sort_order, now, **filters):
    """One page of a sub-fest's programmes with results: ``(body, schedules, results)`` rows."""
    query = _programmes(festival_id, sub_fest_id, now, sort_by, sort_order, filters)
    return page_of_rows(query, (P.body, P.schedules, P.results), page, limit)


def get_programme_detail(festival_id, sub_fest_programme_id):
    """The stored detail of one programme (a named tuple), or None."""
    return (P.select(P.sub_fest, P.detail, P.schedules,
                     P.candidate_registration_opens_at, P.candidate_registration_closes_at,
                     P.topic_registration_opens_at, P.topic_registration_closes_at)
            .where((P.festival == festival_id) & (P.id == sub_fest_programme_id))
            .namedtuples()
            .first())


def find_programmes(festival_id, programme_id=None, code=None, sub_fest_id=None):
    """``(sub_fest, body, schedules, results)`` of the programmes matching every selector
    given (at most two: enough to tell "none", "one" and "ambiguous" apart). Codes compare
    A-Z case-insensitively."""
    query = P.select(P.sub_fest, P.body, P.schedules, P.results).where(P.festival == festival_id)
    if programme_id is not None:
        query = query.where(P.id == programme_id)
    if code is not None:
        from ..query import ascii_lower
        query = query.where(P.code == ascii_lower(code))
    if sub_fest_id is not None:
        query = query.where(P.sub_fest == sub_fest_id)
    return list(query.order_by(P.id).limit(2).tuples())


def render_item(body, schedules, now):
    """A stored programme list item with its ``nextSchedule`` at ``now``."""
    return render(body, {"nextSchedule": next_schedule(schedules, now)})


def render_detail(row, context, now):
    """A stored programme detail with its context and its clock-dependent values at ``now``."""
    return render(row.detail, {
        "context": context,
        "nextSchedule": next_schedule(row.schedules, now),
        "candidateRegistrationOpen": _json_bool(window_is_open(
            row.candidate_registration_opens_at, row.candidate_registration_closes_at, now)),
        "topicRegistrationOpen": _json_bool(window_is_open(
            row.topic_registration_opens_at, row.topic_registration_closes_at, now)),
    })


def _json_bool(value):
    return "true" if value else "false"
