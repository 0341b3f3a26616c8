"""GET /subfests."""
from flask import g

from db.subfests import list_sub_fests
from schemas.subfests import SubFestListSchema, SubFestQueryArgsSchema

from ..context import list_response
from ..smorest import Blueprint

blp = Blueprint("subfests", __name__, description="Active public sub-fests of the festival.")


@blp.get("/subfests")
@blp.arguments(SubFestQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, SubFestListSchema)
def subfests(**args):
    """List active public sub-fests"""
    return list_response(list_sub_fests(g.festival.id, **args))
