"""Teams from the compiled tables: ``/teams``.

``candidateCount`` counts the active public candidates of the team and of the public teams
below it (worked out by the compiler, see ``db/source/teams.py``).
"""
from ..compiled import kinds
from ..compiled.tables import PublicTeam as T
from ..compiled.tables import color_key
from .sql import Select, any_bool, contains_all, equals, one_of

TEAM_SORTS = {
    "displayOrder": T.display_order,
    "name": T.name_key,
    "publicName": T.public_name_key,
    "level": T.level,
}


TEAM_FILTERS = {
    "search": lambda terms: contains_all(T.search, terms),
    "color_code": lambda codes: one_of(T.color_code, [color_key(code) for code in codes]),
    "has_candidates": lambda values: any_bool(T.has_candidates, values),
}


def list_teams(festival_id, sub_fest_id, page, limit, sort_by, sort_order, **filters):
    """One page of a sub-fest's public teams: ``(body,)`` rows."""
    return (Select(T)
            .where(*equals(T.festival, festival_id))
            .where(*equals(T.sub_fest, sub_fest_id))
            .total_of(kinds.LIST_TEAMS, festival_id, sub_fest_id)
            .filter(TEAM_FILTERS, filters)
            .sort(TEAM_SORTS, sort_by, sort_order, T.id)
            .page(page, limit, T.body))
