"""GET /filters."""

from db.read.filters import filter_options_json
from schemas.filters import FilterOptionsSchema, FilterQueryArgsSchema

from .lookups import narrowing_sub_fest_or_404
from .responses import json_text
from .operations import FESTIVAL_STRUCTURE, Blueprint

blp = Blueprint("filters", __name__, group=FESTIVAL_STRUCTURE,
                description="Public filter options of the festival.")


@blp.operation("/filters", "getFilterOptions", FilterQueryArgsSchema, FilterOptionsSchema)
def filters(festival, sub_fest_id=None, sub_fest_slug=None):
    """List the public filter options of the festival or of one sub-fest

    Everything a website builds its menus from, in one answer: sub-fests, categories, teams,
    sections, venues, programme collections and the leaderboard options. `subFestSlug` or
    `subFestId` narrows it to one sub-fest.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    return json_text(filter_options_json(festival.id, sub_fest.slug if sub_fest else "",
                                         festival.context_json(sub_fest)))
