"""GET /teams."""

from db.read.teams import list_teams
from schemas.teams import TeamListSchema, TeamQueryArgsSchema

from .lookups import sub_fest_ref_or_404
from .responses import list_json
from .operations import FESTIVAL_STRUCTURE, Blueprint

blp = Blueprint("teams", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public teams of a sub-fest.")


@blp.operation("/teams", "listTeams", TeamQueryArgsSchema, TeamListSchema)
def teams(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public teams of a sub-fest

    Schools, districts, houses or departments of a sub-fest, with their parent team (teams nest
    by `level`) and candidate count.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    page = list_teams(festival.id, sub_fest.id, **args)
    return list_json(page, [body for body, in page.items], festival.context_json(sub_fest))
