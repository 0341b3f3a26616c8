"""Candidate queries: the public candidates of a sub-fest and their related data."""
from . import models as m
from . import scopes

# The only columns of a person any query reads for output: never a private one.
PUBLIC_PERSON_COLUMNS = (m.Candidate.name, m.Candidate.name_local, m.Candidate.gender)


def public_candidate_rows(festival_id):
    """Visible sub-fest candidates; rows carry ``candidate`` (public columns only) and ``sub_fest``."""
    return scopes.public_candidates(festival_id, m.SubFestCandidate, *PUBLIC_PERSON_COLUMNS, m.SubFest)


def get_public_candidate(festival_id, sub_fest_candidate_id):
    """The visible sub-fest candidate with this id, or None."""
    return (public_candidate_rows(festival_id)
            .where(m.SubFestCandidate.id == sub_fest_candidate_id)
            .first())
