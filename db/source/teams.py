"""Team queries: the public teams of a sub-fest, the team tree and candidate counts.

Teams form a tree (a district and its schools). A team's candidates are the active
public candidates of the team itself and of every public team below it, reached through
public teams only: a school's candidates count for its district, and the candidates of a
hidden school count for nobody.
"""
import uuid

from peewee import fn

from . import models as m
from . import visibility


def team_tree(*roots):
    """Recursive CTE ``team_tree(ancestor, member)``: each visible team matching all of
    ``roots`` paired with itself and with every visible team below it."""
    base = m.Team.select(m.Team.id.alias("ancestor"), m.Team.id.alias("member")).where(visibility.visible_team())
    for condition in roots:
        base = base.where(condition)
    tree = base.cte("team_tree", recursive=True, columns=("ancestor", "member"))
    child = m.Team.alias("child_team")
    below = (child
             .select(tree.c.ancestor, child.id)
             .join(tree, on=(child.parent == tree.c.member))
             .where(visibility.visible_team(child)))
    # UNION, not UNION ALL: a parent cycle in bad data ends instead of recursing forever.
    return tree.union(below)


def _candidates_by_team(festival_id, sub_fest_id, tree):
    """Query of ``(ancestor, candidate count)`` over ``tree``: active public candidates."""
    return (visibility.public_candidates(festival_id, tree.c.ancestor, fn.COUNT(m.SubFestCandidate.id))
            .switch(m.SubFestCandidate)
            .join(tree, on=(m.SubFestCandidate.team == tree.c.member))
            .where(m.SubFestCandidate.sub_fest == sub_fest_id)
            .group_by(tree.c.ancestor)
            .with_cte(tree))


def attach_parents(teams):
    """``team.parent_team``: the parent when it is public, else None."""
    parent_ids = list({t.parent_id for t in teams if t.parent_id is not None})
    parents = {}
    if parent_ids:
        parents = {p.id: p for p in m.Team.select().where(m.Team.id.in_(parent_ids) & visibility.visible_team())}
    for team in teams:
        team.parent_team = parents.get(team.parent_id)


def attach_candidate_counts(festival_id, sub_fest_id, teams):
    """``team.candidate_count``: active public candidates of the team and the teams below it."""
    counts = {}
    if teams:
        tree = team_tree(m.Team.id.in_([t.id for t in teams]))
        counts = {uuid.UUID(str(team_id)): count
                  for team_id, count in _candidates_by_team(festival_id, sub_fest_id, tree).tuples()}
    for team in teams:
        team.candidate_count = counts.get(team.id, 0)
