"""GET /candidate-registrations."""
from flask import g

from db.registrations import list_candidate_registrations
from schemas.registrations import CandidateRegistrationQueryArgsSchema, RegistrationListSchema

from ..context import list_response
from ..lookups import candidate_or_404
from ..smorest import Blueprint

blp = Blueprint("registrations", __name__, description="The entries of a public candidate.")


@blp.get("/candidate-registrations")
@blp.arguments(CandidateRegistrationQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, RegistrationListSchema)
def candidate_registrations(sub_fest_candidate_id, **args):
    """List the registrations of a public candidate"""
    candidate = candidate_or_404(sub_fest_candidate_id)
    page = list_candidate_registrations(g.festival.id, candidate.id, **args)
    return list_response(page, sub_fest=candidate.sub_fest)
