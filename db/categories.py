"""Category queries: the public categories of a sub-fest with their public counts."""
from peewee import fn

from . import models as m
from . import scopes
from .query import apply_filters, apply_sorting, paginate, search_terms

CATEGORY_SORTS = {
    "displayOrder": m.Category.display_order,
    "name": m.Category.name,
}

CATEGORY_FILTERS = {
    "search": lambda terms: search_terms((m.Category.name, m.Category.name_local), terms),
}


def list_categories(festival_id, sub_fest_id, page, limit, sort_by, sort_order, **filters):
    """One page of the sub-fest's public categories with candidate and programme counts."""
    query = apply_filters(scopes.public_categories(sub_fest_id), CATEGORY_FILTERS, filters)
    query = apply_sorting(query, sort_by, sort_order, CATEGORY_SORTS, m.Category.id)
    result = paginate(query, page, limit)
    attach_counts(festival_id, result.items)
    return result


def attach_counts(festival_id, categories):
    """``candidate_count`` and ``programme_count``: visible candidates and programmes only."""
    ids = [c.id for c in categories]
    candidates, programmes = {}, {}
    if ids:
        candidates = dict(scopes.public_candidates(festival_id, m.SubFestCandidate.category,
                                                   fn.COUNT(m.SubFestCandidate.id))
                          .where(m.SubFestCandidate.category.in_(ids))
                          .group_by(m.SubFestCandidate.category)
                          .tuples())
        programmes = dict(scopes.public_programmes(festival_id, m.SubFestProgramme.category,
                                                   fn.COUNT(m.SubFestProgramme.id))
                          .where(m.SubFestProgramme.category.in_(ids))
                          .group_by(m.SubFestProgramme.category)
                          .tuples())
    for category in categories:
        category.candidate_count = candidates.get(category.id, 0)
        category.programme_count = programmes.get(category.id, 0)
