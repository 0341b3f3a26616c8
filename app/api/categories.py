"""GET /categories."""
from flask import g

from db.categories import list_categories
from schemas.categories import CategoryListSchema, CategoryQueryArgsSchema

from ..context import list_response
from ..lookups import sub_fest_or_404
from ..smorest import Blueprint

blp = Blueprint("categories", __name__, description="Active public categories of a sub-fest.")


@blp.get("/categories")
@blp.arguments(CategoryQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, CategoryListSchema)
def categories(sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public categories of a sub-fest"""
    sub_fest = sub_fest_or_404(sub_fest_id, sub_fest_slug)
    return list_response(list_categories(g.festival.id, sub_fest.id, **args), sub_fest=sub_fest)
