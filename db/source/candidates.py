"""Candidate queries: the public candidates of a sub-fest and their related data.

Source readers of the compile step (``db/compiler/``). A person's private fields (email,
phone, date of birth, admission number and details) are never selected here; the compiler
reads the admission number once, only to store its keyed hash for ``admNoPattern``.

Who took part in an entry: the candidate of an individual entry, the members of a group
entry. ``pointsSummary`` counts every published public result of the visible entries a
candidate took part in, in public programmes; a group result counts in full for each of
its members (each member earned it), and the summary keeps individual and group points
apart so that a site can show either.
"""
import uuid
from collections import Counter


from . import models as m
from . import visibility
from .related import attach_linked

# The only columns of a person any query reads: never a private one.
PUBLIC_PERSON_COLUMNS = (m.Candidate.name, m.Candidate.name_local, m.Candidate.gender)


def _per_participant(select, candidate_ids=None):
    """``select(participant)`` once for individual entries (the participant is the entry's
    candidate) and once for group entries (each member), as one UNION ALL query.

    ``select`` returns a query whose join context is Registration.
    """
    individual = (select(m.Registration.sub_fest_candidate.alias("participant"))
                  .where((m.Registration.type != "group") & m.Registration.sub_fest_candidate.is_null(False)))
    group = (select(m.RegistrationMember.sub_fest_candidate.alias("participant"))
             .join(m.RegistrationMember, on=(m.RegistrationMember.registration == m.Registration.id))
             .where(m.Registration.type == "group"))
    if candidate_ids is not None:
        individual = individual.where(m.Registration.sub_fest_candidate.in_(candidate_ids))
        group = group.where(m.RegistrationMember.sub_fest_candidate.in_(candidate_ids))
    return individual + group  # the two halves never overlap


# Every participant these queries are asked about is a visible candidate, so an active
# entry they take part in is a visible entry (visibility.visible_entry) without checking again.


def participations(festival_id, candidate_ids=None):
    """``(participant,)`` once per active entry in a public programme a candidate takes part in."""
    return _per_participant(
        lambda participant: (m.Registration
                             .select(participant)
                             .where(visibility.visible_registration()
                                    & m.Registration.sub_fest_programme.in_(
                                        visibility.public_programme_ids(festival_id)))),
        candidate_ids)


def counted_results(festival_id, candidate_ids=None):
    """``(participant, type, points, position, grade)``: published public results of active
    entries in public programmes."""
    return _per_participant(
        lambda participant: (visibility.public_results(
            festival_id, participant, m.Registration.type, m.Result.points, m.Result.position,
            m.Result.grade)
            .switch(m.Result)
            .join(m.Registration)
            .where(visibility.visible_registration())),
        candidate_ids)


def public_candidate_rows(festival_id):
    """Visible sub-fest candidates; rows carry ``candidate`` (public columns only) and ``sub_fest``."""
    return visibility.public_candidates(festival_id, m.SubFestCandidate, *PUBLIC_PERSON_COLUMNS, m.SubFest)


# --- related data of a page: one query per relation ---------------------------------------


def attach_candidate_fields(festival_id, items):
    """Everything a candidate list item shows besides its own row."""
    for item in items:
        item.identity = {
            "id": item.id, "chest_no": item.chest_no, "name": item.candidate.name,
            "name_local": item.candidate.name_local, "gender": item.candidate.gender,
            "avatar_url": item.avatar_url,
        }
    attach_teams(items)
    attach_categories(items)
    attach_sections(items)
    attach_points(festival_id, items)
    attach_registration_counts(festival_id, items)


def _uuid(value):
    """A UUID, whether the driver handed back a UUID or its text."""
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _by_id(model, ids, visible, *columns):
    if not ids:
        return {}
    return {row.id: row for row in model.select(*columns).where(model.id.in_(ids) & visible)}


def attach_teams(items):
    """``item.team_ref``: the candidate's team when it is public, else None."""
    teams = _by_id(m.Team, list({i.team_id for i in items if i.team_id}), visibility.visible_team(),
                   m.Team.id, m.Team.name, m.Team.public_name, m.Team.color_code, m.Team.level,
                   m.Team.logo_url)
    for item in items:
        item.team_ref = teams.get(item.team_id)


def attach_categories(items):
    """``item.category_ref``: the candidate's category when it is public, else None."""
    categories = _by_id(m.Category, list({i.category_id for i in items if i.category_id}),
                        visibility.visible_category(), m.Category.id, m.Category.name, m.Category.name_local)
    for item in items:
        item.category_ref = categories.get(item.category_id)


def attach_sections(items):
    """``item.section_list``: the candidate's public sections, in display order."""
    attach_linked(items, "section_list", m.SubFestCandidateSection.sub_fest_candidate, m.Section,
                  ("id", "key", "name", "name_local"), visibility.visible_section())


def empty_points_summary():
    return {"total_points": 0.0, "individual_points": 0.0, "group_points": 0.0,
            "result_count": 0, "by_position": {}, "by_grade": {}}


def attach_points(festival_id, items):
    """``item.points_summary`` from the published public results of the candidate's entries."""
    by_id = {item.id: item for item in items}
    for item in items:
        item.points_summary = empty_points_summary()
    if not by_id:
        return
    for participant, entry_type, points, position, grade in counted_results(festival_id, list(by_id)).tuples():
        summary = by_id[_uuid(participant)].points_summary
        summary["total_points"] += points
        summary["group_points" if entry_type == "group" else "individual_points"] += points
        summary["result_count"] += 1
        if position is not None:
            key = str(position)
            summary["by_position"][key] = summary["by_position"].get(key, 0) + 1
        if grade:
            summary["by_grade"][grade] = summary["by_grade"].get(grade, 0) + 1


def attach_registration_counts(festival_id, items):
    """``item.registration_count``: visible entries in public programmes the candidate took part in."""
    ids = [item.id for item in items]
    counts = Counter()
    if ids:
        counts = Counter(_uuid(participant) for participant, in participations(festival_id, ids).tuples())
    for item in items:
        item.registration_count = counts.get(item.id, 0)
