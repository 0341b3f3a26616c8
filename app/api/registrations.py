"""GET /candidate-registrations."""

from db.read.registrations import list_candidate_registrations
from schemas.registrations import CandidateRegistrationQueryArgsSchema, RegistrationListSchema

from ..context import festival_id, festival_view
from ..lookups import get_or_404
from ..responses import list_json
from ..smorest import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("registrations", __name__, group=SCHEDULES_AND_RESULTS,
                description="The entries of a public candidate.")


@blp.get("/candidate-registrations")
@blp.doc(operationId="listCandidateRegistrations")
@blp.arguments(CandidateRegistrationQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, RegistrationListSchema)
def candidate_registrations(sub_fest_candidate_id, **args):
    """List the registrations of a public candidate

    A candidate's entries (`subFestCandidateId`): each with its programme, the members of a
    group entry and its result once published (else `null`).
    """
    found = list_candidate_registrations(festival_id(), sub_fest_candidate_id, **args)
    sub_fest_id, page = get_or_404(found, "Candidate")
    return list_json(page, [body for body, in page.items], festival_view().sub_fests[sub_fest_id])
