"""GET /subfests."""

from db.read.subfests import list_sub_fests
from schemas.subfests import SubFestListSchema, SubFestQueryArgsSchema

from .responses import list_json
from .operations import FESTIVAL_STRUCTURE, Blueprint

blp = Blueprint("subfests", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public sub-fests of the festival.")


@blp.operation("/subfests", "listSubFests", SubFestQueryArgsSchema, SubFestListSchema)
def subfests(festival, **args):
    """List active public sub-fests

    The festivals within the festival (`general`, `sanskrit`, `arabic`): their ids and the slugs
    the other operations take as `subFestSlug`.
    """
    page = list_sub_fests(festival.id, **args)
    return list_json(page, [body for (body,) in page.items], festival.context_json())
