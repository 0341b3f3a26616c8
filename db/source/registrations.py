"""Registration queries: the entries a candidate took part in, with their published results."""
from . import models as m
from . import visibility


def registrations_of(candidate_ids):
    """Condition: registrations the candidates take part in (as an individual or a member)."""
    ids = list(candidate_ids)
    return (m.Registration.sub_fest_candidate.in_(ids)
            | m.Registration.id.in_(m.RegistrationMember.select(m.RegistrationMember.registration)
                                    .where(m.RegistrationMember.sub_fest_candidate.in_(ids))))


def attach_results(festival_id, registrations):
    """``registration.result_ref``: its result when published and public, else None."""
    by_registration = {}
    if registrations:
        rows = (visibility.public_entry_results(festival_id, m.Result)
                .where(m.Result.registration.in_([r.id for r in registrations])))
        for row in rows:
            row.points_breakdown = {"position_points": row.position_points, "grade_points": row.grade_points}
            by_registration[row.registration_id] = row
    for registration in registrations:
        registration.result_ref = by_registration.get(registration.id)
