"""Programmes as the compile step loads them: the public programmes of a sub-fest and
their related data.

``public_programme_list`` is the visible programmes of a sub-fest; their related data is
loaded by the ``attach_*`` helpers, one query per relation whatever the number of
programmes.
"""
from peewee import JOIN, fn

from . import models as m
from . import visibility
from .related import attach_linked, attach_lists


def public_programme_list(festival_id, sub_fest_id):
    """Visible programmes of one sub-fest; rows carry ``programme`` and ``sub_fest``."""
    return (visibility.public_programmes(festival_id, m.SubFestProgramme, m.Programme, m.SubFest)
            .where(m.SubFestProgramme.sub_fest == sub_fest_id))


# --- related data: one query per relation ------------------------------------------------


def attach_programme_fields(festival_id, items):
    """Everything a programme list item stores besides its own row (``nextSchedule`` is
    decided per request, from the stored schedules)."""
    attach_categories(items)
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
                                         .where(m.Category.id.in_(ids) & visibility.visible_category()))}
    for item in items:
        item.category_ref = categories.get(item.category_id)


def _schedules(condition):
    """Schedule rows as dicts for ``ScheduleRefSchema``; the venue only when it is public."""
    rows = (m.Schedule
            .select(m.Schedule.id, m.Schedule.sub_fest_programme, m.Schedule.scheduled_at,
                    m.Schedule.duration_minutes, m.Venue.id.alias("venue_id"),
                    m.Venue.name.alias("venue_name"), m.Venue.name_local.alias("venue_name_local"),
                    m.Venue.location.alias("venue_location"))
            .join(m.Venue, JOIN.LEFT_OUTER, on=((m.Schedule.venue == m.Venue.id) & visibility.visible_venue()))
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


def attach_schedules(items):
    """``item.schedule_list``: every schedule of the programme, earliest first."""
    attach_lists(items, "schedule_list", lambda ids: _schedules(m.Schedule.sub_fest_programme.in_(ids)))


def attach_collections(items):
    """``item.collection_list``: the public collections the programme belongs to."""
    attach_linked(items, "collection_list", m.SubFestProgrammeCollection.sub_fest_programme, m.ProgrammeCollection,
                  ("id", "key", "name"), visibility.visible_collection())


def _counts(query):
    return dict(query.tuples())


def attach_result_counts(festival_id, items):
    """``item.result_count``: published public results of visible entries."""
    ids = _ids(items)
    counts = {}
    if ids:
        counts = _counts(visibility.public_entry_results(festival_id, m.Result.sub_fest_programme,
                                                     fn.COUNT(m.Result.id))
                         .where(m.Result.sub_fest_programme.in_(ids))
                         .group_by(m.Result.sub_fest_programme))
    for item in items:
        item.result_count = counts.get(item.id, 0)


def attach_registration_counts(festival_id, items):
    """``item.registration_count``: visible entries (:func:`db.source.visibility.visible_entry`)."""
    ids = _ids(items)
    counts = {}
    if ids:
        counts = _counts(m.Registration
                         .select(m.Registration.sub_fest_programme, fn.COUNT(m.Registration.id))
                         .where(m.Registration.sub_fest_programme.in_(ids)
                                & visibility.visible_entry(festival_id))
                         .group_by(m.Registration.sub_fest_programme))
    for item in items:
        item.registration_count = counts.get(item.id, 0)
