"""GET /programmes and /programme-detail."""

from db import clock
from db.read.programmes import DETAIL_COLUMNS, find_programmes, list_programmes, render_detail, render_item
from schemas.programmes import (ProgrammeDetailQueryArgsSchema, ProgrammeDetailSchema, ProgrammeListSchema,
                                ProgrammeQueryArgsSchema)

from .lookups import narrowing_sub_fest_or_404, sub_fest_ref_or_404, the_one
from .responses import json_text, list_json
from .operations import FESTIVAL_STRUCTURE, SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("programmes", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public programmes of a sub-fest.")


@blp.operation("/programmes", "listProgrammes", ProgrammeQueryArgsSchema, ProgrammeListSchema)
def programmes(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public programmes of a sub-fest

    The competition items of a sub-fest as run there: code (`HS-G05`), status, master programme,
    category, next schedule and counts. Choose the sub-fest by `subFestSlug` or `subFestId`;
    `hasResults=true` keeps the programmes with published results.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    now = clock.utcnow()
    page = list_programmes(festival.id, sub_fest.id, now=now, **args)
    now_iso = now.isoformat()
    return list_json(page, [render_item(body, schedules, now_iso) for body, schedules in page.items],
                     festival.context_json(sub_fest))


@blp.operation("/programme-detail", "getProgrammeDetail", ProgrammeDetailQueryArgsSchema, ProgrammeDetailSchema,
               tags=[SCHEDULES_AND_RESULTS])  # the contract's group of details
def programme_detail(festival, sub_fest_program_id=None, program_code=None, sub_fest_id=None, sub_fest_slug=None):
    """Show one programme with its schedules, collections and registration windows

    One programme, by `subFestProgramId` or by its code
    (`programCode=HS-G05&subFestSlug=general`): the list item's fields plus its schedules,
    collections and registration windows.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    matches = find_programmes(festival.id, sub_fest_program_id, program_code, sub_fest and sub_fest.id,
                              columns=DETAIL_COLUMNS)
    row = the_one(matches, "Programme", "programCode", sub_fest)
    return json_text(render_detail(row, festival.context_json(festival.sub_fests[row[0]]), clock.utcnow()))
