"""GET /candidate-registrations."""

from db.read.candidates import CANDIDATE_ID, find_candidates
from db.read.registrations import list_candidate_registrations
from schemas.registrations import CandidateRegistrationQueryArgsSchema, RegistrationListSchema

from .lookups import get_or_404, narrowing_sub_fest_or_404, the_one
from .responses import list_json
from .operations import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("registrations", __name__, group=SCHEDULES_AND_RESULTS,
                description="The entries of a public candidate.")


@blp.operation("/candidate-registrations", "listCandidateRegistrations", CandidateRegistrationQueryArgsSchema,
               RegistrationListSchema)
def candidate_registrations(festival, sub_fest_candidate_id=None, chest_no=None, sub_fest_id=None, sub_fest_slug=None,
                            **args):
    """List the registrations of a public candidate

    A candidate's entries (`subFestCandidateId`, or `chestNo` with `subFestSlug`): each with its
    programme, the members of a group entry and its result once published (else `null`).
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    if chest_no is not None or sub_fest is not None:
        matches = find_candidates(festival.id, sub_fest_candidate_id, chest_no, sub_fest and sub_fest.id,
                                  columns=CANDIDATE_ID)
        sub_fest_candidate_id, = the_one(matches, "Candidate", "chestNo", sub_fest)
    found = list_candidate_registrations(festival.id, sub_fest_candidate_id, **args)
    sub_fest_id, page = get_or_404(found, "Candidate")
    return list_json(page, [body for body, in page.items], festival.context_json(festival.sub_fests[sub_fest_id]))
