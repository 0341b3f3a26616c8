"""GET /programmes and /programme-detail."""
from flask import g

from db.programmes import list_programmes, load_programme_detail
from schemas.programmes import (
    ProgrammeDetailQueryArgsSchema,
    ProgrammeDetailSchema,
    ProgrammeListSchema,
    ProgrammeQueryArgsSchema,
)

from ..context import build_context, list_response
from ..lookups import programme_or_404, sub_fest_or_404
from ..smorest import Blueprint

blp = Blueprint("programmes", __name__, description="Active public programmes of a sub-fest.")


@blp.get("/programmes")
@blp.arguments(ProgrammeQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, ProgrammeListSchema)
def programmes(sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public programmes of a sub-fest"""
    sub_fest = sub_fest_or_404(sub_fest_id, sub_fest_slug)
    return list_response(list_programmes(g.festival.id, sub_fest.id, **args), sub_fest=sub_fest)


@blp.get("/programme-detail")
@blp.arguments(ProgrammeDetailQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, ProgrammeDetailSchema)
def programme_detail(sub_fest_program_id):
    """Show one programme with its schedules, collections and registration windows"""
    programme = load_programme_detail(g.festival.id, programme_or_404(sub_fest_program_id))
    programme.context = build_context(programme.sub_fest)
    return programme
