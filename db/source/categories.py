"""Category queries: the public categories of a sub-fest with their public counts."""
from peewee import fn

from . import models as m
from . import visibility


def attach_counts(festival_id, categories):
    """``candidate_count`` and ``programme_count``: visible candidates and programmes only."""
    ids = [c.id for c in categories]
    candidates, programmes = {}, {}
    if ids:
        candidates = dict(visibility.public_candidates(festival_id, m.SubFestCandidate.category,
                                                   fn.COUNT(m.SubFestCandidate.id))
                          .where(m.SubFestCandidate.category.in_(ids))
                          .group_by(m.SubFestCandidate.category)
                          .tuples())
        programmes = dict(visibility.public_programmes(festival_id, m.SubFestProgramme.category,
                                                   fn.COUNT(m.SubFestProgramme.id))
                          .where(m.SubFestProgramme.category.in_(ids))
                          .group_by(m.SubFestProgramme.category)
                          .tuples())
    for category in categories:
        category.candidate_count = candidates.get(category.id, 0)
        category.programme_count = programmes.get(category.id, 0)
