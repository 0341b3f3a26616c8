"""GET /candidates and /candidate-detail."""

from db.compiled.templates import render
from db.read.candidates import get_candidate_detail, list_candidates
from schemas.candidates import (
    CandidateDetailQueryArgsSchema,
    CandidateDetailSchema,
    CandidateListSchema,
    CandidateQueryArgsSchema,
)

from ..context import context_json, festival_id, festival_view
from ..lookups import get_or_404, sub_fest_ref_or_404
from ..responses import json_text, list_json
from ..smorest import FESTIVAL_STRUCTURE, SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("candidates", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public candidates of a sub-fest; no private fields.")


@blp.get("/candidates")
@blp.doc(operationId="listCandidates")
@blp.arguments(CandidateQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, CandidateListSchema)
def candidates(sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public candidates of a sub-fest"""
    sub_fest = sub_fest_ref_or_404(sub_fest_id, sub_fest_slug)
    page = list_candidates(festival_id(), sub_fest.id, **args)
    return list_json(page, [body for body, in page.items], sub_fest)


@blp.get("/candidate-detail", tags=[SCHEDULES_AND_RESULTS])  # the contract's group of details
@blp.doc(operationId="getCandidateDetail")
@blp.arguments(CandidateDetailQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, CandidateDetailSchema)
def candidate_detail(sub_fest_candidate_id):
    """Show one candidate with team, sections and points summary"""
    sub_fest_id, detail = get_or_404(get_candidate_detail(festival_id(), sub_fest_candidate_id), "Candidate")
    return json_text(render(detail, {"context": context_json(festival_view().sub_fests[sub_fest_id])}))
