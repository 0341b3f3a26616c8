"""Published public results: of a programme, of a page of programmes, of one candidate.

Only what :func:`db.source.visibility.public_entry_results` lets through is shown: published public
results of visible programmes whose entry is visible. Every result carries its entry:
who took part (the candidate of an individual entry, the visible members of a group, the
team of a team's own entry), the entry's team when it is public, and how its points add up.
"""
from . import models as m
from . import visibility
from .candidates import attach_teams

# Placed results first (1, 2, 2, 4, ...), then by points and score, then by id.
RESULT_ORDER = (m.Result.position.is_null(), m.Result.position, m.Result.points.desc(),
                m.Result.score.is_null(), m.Result.score.desc(), m.Result.id)
# A candidate's results: latest first (query with SubFestProgramme joined).
CANDIDATE_RESULT_ORDER = (m.Result.published_at.is_null(), m.Result.published_at.desc(),
                          m.SubFestProgramme.code, m.Result.id)


# --- selectors: an id or a public code, optionally narrowed to one sub-fest ----------------------


# --- entries: who took part, their team, the display name ----------------------------------------


def identities(festival_id, candidate_ids):
    """``{sub-fest candidate id: public identity}`` of the visible ones among ``candidate_ids``."""
    if not candidate_ids:
        return {}
    rows = (visibility.public_candidates(festival_id, m.SubFestCandidate.id, m.SubFestCandidate.chest_no,
                                     m.SubFestCandidate.avatar_url, m.Candidate.name, m.Candidate.name_local,
                                     m.Candidate.gender)
            .where(m.SubFestCandidate.id.in_(list(candidate_ids)))
            .dicts())
    return {row["id"]: row for row in rows}


def attach_entries(festival_id, registrations):
    """Set ``participant_type``, ``candidate_ref`` (individual entries), ``member_list``
    (group entries: visible members only, in their order), ``team_ref`` (public teams only)
    and ``participant_name`` on every registration, with three queries whatever their number.

    A team's own entry (a team, no candidate, no members: ``visibility.team_entry``) is of type
    ``team``, named by its team's public name, with neither candidate nor members.
    """
    # Entries without a candidate are read too: having no members makes one a team's own.
    linked_ids = [r.id for r in registrations if r.type == "group" or r.sub_fest_candidate_id is None]
    links = []
    if linked_ids:
        links = list(m.RegistrationMember
                     .select(m.RegistrationMember.registration, m.RegistrationMember.sub_fest_candidate)
                     .where(m.RegistrationMember.registration.in_(linked_ids))
                     .order_by(m.RegistrationMember.display_order, m.RegistrationMember.id)
                     .tuples())
    people = identities(festival_id, {r.sub_fest_candidate_id for r in registrations if r.type != "group"}
                        | {candidate_id for _, candidate_id in links})
    members = {}
    for registration_id, candidate_id in links:
        members.setdefault(registration_id, [])
        if candidate_id in people:
            members[registration_id].append(people[candidate_id])
    attach_teams(registrations)
    for registration in registrations:
        team = registration.team_ref
        if (registration.sub_fest_candidate_id is None and registration.team_id is not None
                and registration.id not in members):
            registration.participant_type = "team"
            registration.candidate_ref = registration.member_list = None
            registration.participant_name = team and (team.public_name or team.name)
        elif registration.type == "group":
            registration.participant_type = "group"
            registration.candidate_ref = None
            registration.member_list = members.get(registration.id, [])
            registration.participant_name = (
                registration.group_name or (team and (team.public_name or team.name))
                or ", ".join(p["name"] for p in registration.member_list))
        else:
            registration.participant_type = registration.type
            registration.candidate_ref = people.get(registration.sub_fest_candidate_id)
            registration.member_list = None
            registration.participant_name = registration.candidate_ref and registration.candidate_ref["name"]


def with_entries(festival_id, results):
    """Copy each result's entry fields onto it, for the result schemas."""
    attach_entries(festival_id, [r.registration for r in results])
    for result in results:
        entry = result.registration
        result.participant_type = entry.participant_type
        result.participant_name = entry.participant_name
        result.topic = entry.topic
        result.team_ref = entry.team_ref
        result.candidate_ref = entry.candidate_ref
        result.member_list = entry.member_list
        result.points_breakdown = {"position_points": result.position_points, "grade_points": result.grade_points}
    return results


# --- the lists ------------------------------------------------------------------------------------


def results_of_programmes(festival_id, programme_ids):
    """``{programme id: [results, best first]}`` for the given visible programmes."""
    by_programme = {programme_id: [] for programme_id in programme_ids}
    if not programme_ids:
        return by_programme
    results = list(visibility.public_entry_results(festival_id, m.Result, m.Registration)
                   .where(m.Result.sub_fest_programme.in_(list(programme_ids)))
                   .order_by(*RESULT_ORDER))
    for result in with_entries(festival_id, results):
        by_programme[result.sub_fest_programme_id].append(result)
    return by_programme
