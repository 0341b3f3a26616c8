"""GET /filters."""
from flask import g

from db.filters import filter_options
from schemas.filters import FilterOptionsSchema, FilterQueryArgsSchema

from ..context import build_context
from ..lookups import sub_fest_by_slug_or_404
from ..smorest import Blueprint

blp = Blueprint("filters", __name__, description="Public filter options of the festival.")


@blp.get("/filters")
@blp.arguments(FilterQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, FilterOptionsSchema)
def filters(sub_fest_slug=None):
    """List the public filter options of the festival or of one sub-fest"""
    sub_fest = sub_fest_by_slug_or_404(sub_fest_slug) if sub_fest_slug else None
    options = filter_options(g.festival.id, sub_fest.id if sub_fest else None)
    options.context = build_context(sub_fest)
    return options
