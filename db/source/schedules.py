"""Schedules as the compile step loads them: when and where the visible programmes run."""
from peewee import JOIN

from . import models as m
from .programmes import attach_categories
from .visibility import public_schedules, visible_venue


def load_schedules(festival_id, programme_ids=None):
    """Every schedule of a visible programme (of ``programme_ids`` only, when given),
    earliest first, with ``venue_ref`` set only for a public venue and the programme's
    ``category_ref`` only for a public category."""
    query = (public_schedules(festival_id, m.Schedule, m.SubFestProgramme, m.Programme, m.SubFest, m.Venue)
             .join_from(m.Schedule, m.Venue, JOIN.LEFT_OUTER,
                        on=((m.Schedule.venue == m.Venue.id) & visible_venue()), attr="venue_ref")
             .order_by(m.Schedule.scheduled_at, m.Schedule.id))
    if programme_ids is not None:
        query = query.where(m.Schedule.sub_fest_programme.in_(list(programme_ids)))
    schedules = list(query)
    attach_categories([schedule.sub_fest_programme for schedule in schedules])
    return schedules
