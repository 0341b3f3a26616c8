"""GET /candidates and /candidate-detail."""
from flask import g

from db.candidates import list_candidates, load_candidate_detail
from schemas.candidates import (
    CandidateDetailQueryArgsSchema,
    CandidateDetailSchema,
    CandidateListSchema,
    CandidateQueryArgsSchema,
)

from ..context import build_context, list_response
from ..lookups import candidate_or_404, sub_fest_or_404
from ..smorest import Blueprint

blp = Blueprint("candidates", __name__, description="Active public candidates of a sub-fest; no private fields.")


@blp.get("/candidates")
@blp.arguments(CandidateQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, CandidateListSchema)
def candidates(sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public candidates of a sub-fest"""
    sub_fest = sub_fest_or_404(sub_fest_id, sub_fest_slug)
    return list_response(list_candidates(g.festival.id, sub_fest.id, **args), sub_fest=sub_fest)


@blp.get("/candidate-detail")
@blp.arguments(CandidateDetailQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, CandidateDetailSchema)
def candidate_detail(sub_fest_candidate_id):
    """Show one candidate with team, sections and points summary"""
    candidate = load_candidate_detail(g.festival.id, candidate_or_404(sub_fest_candidate_id))
    candidate.context = build_context(candidate.sub_fest)
    return candidate
