"""Registration queries: the entries a candidate took part in, with their published results."""
from . import models as m
from . import scopes
from .programmes import attach_categories
from .query import apply_sorting, paginate
from .results import attach_entries, took_part

REGISTRATION_SORTS = {
    "registeredAt": m.Registration.registered_at,
    "programCode": m.SubFestProgramme.code,
    "programName": m.Programme.name,
    "type": m.Registration.type,
}


def list_candidate_registrations(festival_id, candidate_id, page, limit, sort_by, sort_order):
    """One page of the visible entries the candidate took part in (individually or as a group
    member), each with its programme, team, members and published public result."""
    query = (scopes.public_registrations(festival_id, m.Registration, m.SubFestProgramme, m.Programme)
             .where(took_part(candidate_id)))
    query = apply_sorting(query, sort_by, sort_order, REGISTRATION_SORTS, m.Registration.id)
    result = paginate(query, page, limit)
    attach_entries(festival_id, result.items)
    attach_categories([r.sub_fest_programme for r in result.items])
    attach_results(festival_id, result.items)
    return result


def attach_results(festival_id, registrations):
    """``registration.result_ref``: its result when published and public, else None."""
    by_registration = {}
    if registrations:
        rows = (scopes.public_entry_results(festival_id, m.Result)
                .where(m.Result.registration.in_([r.id for r in registrations])))
        for row in rows:
            row.points_breakdown = {"position_points": row.position_points, "grade_points": row.grade_points}
            by_registration[row.registration_id] = row
    for registration in registrations:
        registration.result_ref = by_registration.get(registration.id)
