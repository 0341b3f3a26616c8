"""Programme queries: the public programmes of a sub-fest, their filters, sorts and related data.

Source readers of the compile step (``db/compiler/``): ``public_programme_list`` is the
visible programmes of a sub-fest; their related data is loaded by the ``attach_*``
helpers, one query per relation whatever the number of programmes.

Registration windows: a window is open at ``now`` when ``opens_at <= now <= closes_at``.
A missing ``opens_at`` means "open since ever", a missing ``closes_at`` "open until
further notice"; a window with neither time is not configured, so it is closed.
"""
from peewee import JOIN, fn

from . import models as m
from . import scopes
from ..query import apply_filters, matches_pattern, search_terms


def _wanted(condition, wanted):
    return condition if wanted else ~condition


def _linked(link_field, target_field, ids, visible):
    """Sub-fest programmes linked (through ``link_field``) to one of ``ids`` that is visible."""
    link = link_field.model
    return m.SubFestProgramme.id.in_(
        link.select(link_field)
        .join(target_field.model)
        .where(target_field.in_(ids) & visible))


def _has(link_field, *conditions):
    """Sub-fest programmes with at least one row of ``link_field``'s table."""
    query = link_field.model.select(link_field)
    for condition in conditions:
        query = query.where(condition)
    return m.SubFestProgramme.id.in_(query)


def _scheduled_at(venue_ids):
    return m.SubFestProgramme.id.in_(
        m.Schedule.select(m.Schedule.sub_fest_programme)
        .join(m.Venue)
        .where(m.Venue.id.in_(venue_ids) & scopes.visible_venue()))


def _has_active_judge():
    return m.SubFestProgramme.id.in_(
        m.SubFestProgrammeJudge.select(m.SubFestProgrammeJudge.sub_fest_programme)
        .join(m.Judge)
        .where(scopes.visible_judge()))


# Filters that need neither the clock nor the festival: argument name -> condition.
PROGRAMME_FILTERS = {
    "search": lambda text: search_terms(
        (m.Programme.name, m.Programme.name_local, m.Programme.code, m.SubFestProgramme.code), [text]),
    "category_ids": lambda ids: m.SubFestProgramme.category.in_(
        m.Category.select(m.Category.id).where(m.Category.id.in_(ids) & scopes.visible_category())),
    "venues": _scheduled_at,
    "statuses": lambda values: m.SubFestProgramme.status.in_(values),
    "program_type": lambda value: m.Programme.program_type == value,
    "program_code_pattern": lambda pattern: (matches_pattern(m.SubFestProgramme.code, pattern)
                                             | matches_pattern(m.Programme.code, pattern)),
    "collection_ids": lambda ids: _linked(
        m.SubFestProgrammeCollection.sub_fest_programme, m.ProgrammeCollection.id, ids,
        scopes.visible_collection()),
    "judges": lambda ids: _linked(
        m.SubFestProgrammeJudge.sub_fest_programme, m.Judge.id, ids, scopes.visible_judge()),
    "position_criteria_id": lambda criteria_id: m.SubFestProgramme.position_criteria == criteria_id,
    "grade_criteria_id": lambda criteria_id: m.SubFestProgramme.grade_criteria == criteria_id,
    "requires_topic_registration": lambda wanted: m.SubFestProgramme.requires_topic_registration == wanted,
    "has_schedule": lambda wanted: _wanted(_has(m.Schedule.sub_fest_programme), wanted),
    "has_judges": lambda wanted: _wanted(_has_active_judge(), wanted),
}


def window_open(opens_at, closes_at, now):
    """SQL: the window between the two columns is open at ``now`` (see the module doc)."""
    return ((opens_at.is_null(False) | closes_at.is_null(False))
            & (opens_at.is_null() | (opens_at <= now))
            & (closes_at.is_null() | (closes_at >= now)))


def programme_filters(festival_id, now):
    """The whole filter table: ``PROGRAMME_FILTERS`` plus the filters that depend on the
    clock (registration windows) and on which entries and results are visible."""
    candidate_window = window_open(m.SubFestProgramme.candidate_registration_opens_at,
                                   m.SubFestProgramme.candidate_registration_closes_at, now)
    topic_window = window_open(m.SubFestProgramme.topic_registration_opens_at,
                               m.SubFestProgramme.topic_registration_closes_at, now)
    return {
        **PROGRAMME_FILTERS,
        "candidate_registration_open": lambda wanted: _wanted(candidate_window, wanted),
        "topic_registration_open": lambda wanted: _wanted(topic_window, wanted),
        "has_results": lambda wanted: _wanted(m.SubFestProgramme.id.in_(
            scopes.public_entry_results(festival_id, m.Result.sub_fest_programme)), wanted),
        "has_registrations": lambda wanted: _wanted(_has(
            m.Registration.sub_fest_programme, scopes.visible_entry(festival_id)), wanted),
    }


def public_programme_list(festival_id, sub_fest_id, now, **filters):
    """Visible programmes of one sub-fest, filtered; rows carry ``programme`` and ``sub_fest``.

    ``filters`` are the keys of :func:`programme_filters`; missing or empty ones add nothing.
    """
    query = (scopes.public_programmes(festival_id, m.SubFestProgramme, m.Programme, m.SubFest)
             .where(m.SubFestProgramme.sub_fest == sub_fest_id))
    return apply_filters(query, programme_filters(festival_id, now), filters)


# --- related data of a page: one query per relation ---------------------------------------


def attach_programme_fields(festival_id, items, now):
    """Everything a programme list item shows besides its own row."""
    attach_categories(items)
    attach_next_schedules(items, now)
    attach_result_counts(festival_id, items)
    attach_registration_counts(festival_id, items)


def _ids(items, attribute="id"):
    return list({getattr(item, attribute) for item in items if getattr(item, attribute) is not None})


def attach_categories(items):
    """``item.category_ref``: the programme's category when it is public, else None."""
    categories = {}
    ids = _ids(items, "category_id")
    if ids:
        categories = {c.id: c for c in (m.Category
                                         .select(m.Category.id, m.Category.name, m.Category.name_local)
                                         .where(m.Category.id.in_(ids) & scopes.visible_category()))}
    for item in items:
        item.category_ref = categories.get(item.category_id)


def _schedules(condition):
    """Schedule rows as dicts for ``ScheduleRefSchema``; the venue only when it is public."""
    rows = (m.Schedule
            .select(m.Schedule.id, m.Schedule.sub_fest_programme, m.Schedule.scheduled_at,
                    m.Schedule.duration_minutes, m.Venue.id.alias("venue_id"),
                    m.Venue.name.alias("venue_name"), m.Venue.name_local.alias("venue_name_local"),
                    m.Venue.location.alias("venue_location"))
            .join(m.Venue, JOIN.LEFT_OUTER, on=((m.Schedule.venue == m.Venue.id) & scopes.visible_venue()))
            .where(condition)
            .order_by(m.Schedule.scheduled_at, m.Schedule.id)
            .dicts())
    for row in rows:
        venue = None
        if row["venue_id"] is not None:
            venue = {"id": row["venue_id"], "name": row["venue_name"],
                     "name_local": row["venue_name_local"], "location": row["venue_location"]}
        yield row["sub_fest_programme"], {
            "id": row["id"], "scheduled_at": row["scheduled_at"],
            "duration_minutes": row["duration_minutes"], "venue": venue,
        }


def attach_next_schedules(items, now):
    """``item.next_schedule``: the earliest schedule at or after ``now``, or None."""
    for item in items:
        item.next_schedule = None
    if not items:
        return
    by_id = {item.id: item for item in items}
    condition = m.Schedule.sub_fest_programme.in_(list(by_id)) & (m.Schedule.scheduled_at >= now)
    for programme_id, schedule in _schedules(condition):
        item = by_id[programme_id]
        if item.next_schedule is None:
            item.next_schedule = schedule


def attach_schedules(items):
    """``item.schedule_list``: every schedule of the programme, earliest first."""
    by_id = {item.id: item for item in items}
    for item in items:
        item.schedule_list = []
    if by_id:
        for programme_id, schedule in _schedules(m.Schedule.sub_fest_programme.in_(list(by_id))):
            by_id[programme_id].schedule_list.append(schedule)


def attach_collections(items):
    """``item.collection_list``: the public collections the programme belongs to."""
    by_id = {item.id: item for item in items}
    for item in items:
        item.collection_list = []
    if not by_id:
        return
    rows = (m.SubFestProgrammeCollection
            .select(m.SubFestProgrammeCollection.sub_fest_programme, m.ProgrammeCollection.id,
                    m.ProgrammeCollection.key, m.ProgrammeCollection.name)
            .join(m.ProgrammeCollection)
            .where(m.SubFestProgrammeCollection.sub_fest_programme.in_(list(by_id))
                   & scopes.visible_collection())
            .order_by(m.ProgrammeCollection.display_order, m.ProgrammeCollection.key, m.ProgrammeCollection.id)
            .dicts())
    for row in rows:
        by_id[row["sub_fest_programme"]].collection_list.append(
            {"id": row["id"], "key": row["key"], "name": row["name"]})


def _counts(query):
    return dict(query.tuples())


def attach_result_counts(festival_id, items):
    """``item.result_count``: published public results of visible entries."""
    ids = _ids(items)
    counts = {}
    if ids:
        counts = _counts(scopes.public_entry_results(festival_id, m.Result.sub_fest_programme,
                                                     fn.COUNT(m.Result.id))
                         .where(m.Result.sub_fest_programme.in_(ids))
                         .group_by(m.Result.sub_fest_programme))
    for item in items:
        item.result_count = counts.get(item.id, 0)


def attach_registration_counts(festival_id, items):
    """``item.registration_count``: visible entries (active, with a visible participant)."""
    ids = _ids(items)
    counts = {}
    if ids:
        counts = _counts(m.Registration
                         .select(m.Registration.sub_fest_programme, fn.COUNT(m.Registration.id))
                         .where(m.Registration.sub_fest_programme.in_(ids)
                                & scopes.visible_entry(festival_id))
                         .group_by(m.Registration.sub_fest_programme))
    for item in items:
        item.registration_count = counts.get(item.id, 0)
