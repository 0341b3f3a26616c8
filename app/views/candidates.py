"""GET /candidates and /candidate-detail."""

from flask_smorest import abort

from db.compiled.templates import render
from db.read.candidates import DETAIL_COLUMNS, PrivateFilterOff, find_candidates, list_candidates
from schemas.candidates import (ADM_NO_OFF_MESSAGE, CandidateDetailQueryArgsSchema, CandidateDetailSchema,
                                CandidateListSchema, CandidateQueryArgsSchema)

from .lookups import narrowing_sub_fest_or_404, sub_fest_ref_or_404, the_one
from .responses import json_text, list_json
from .operations import FESTIVAL_STRUCTURE, SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("candidates", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public candidates of a sub-fest; no private fields.")


@blp.operation("/candidates", "listCandidates", CandidateQueryArgsSchema, CandidateListSchema)
def candidates(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public candidates of a sub-fest

    The sub-festival's candidates, each a person as registered in it: the public identity (name,
    chest number, gender, avatar), team, category, sections and points. Choose the sub-fest by
    `subFestSlug` (`general`) or `subFestId`; `search` finds names and chest numbers. Nothing
    private is ever answered.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    try:
        page = list_candidates(festival.id, sub_fest.id, **args)
    except PrivateFilterOff:
        abort(400, message=ADM_NO_OFF_MESSAGE, errors={"query": {"admNoPattern": [ADM_NO_OFF_MESSAGE]}})
    return list_json(page, [body for body, in page.items], festival.context_json(sub_fest))


@blp.operation("/candidate-detail", "getCandidateDetail", CandidateDetailQueryArgsSchema, CandidateDetailSchema,
               tags=[SCHEDULES_AND_RESULTS])  # the contract's group of details
def candidate_detail(festival, sub_fest_candidate_id=None, chest_no=None, sub_fest_id=None, sub_fest_slug=None):
    """Show one candidate with team, sections and points summary

    One sub-fest candidate, by `subFestCandidateId` or by chest number
    (`chestNo=1001&subFestSlug=general`): the list item's fields and the answer's `context`.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    matches = find_candidates(festival.id, sub_fest_candidate_id, chest_no, sub_fest and sub_fest.id,
                              columns=DETAIL_COLUMNS)
    found_in, detail = the_one(matches, "Candidate", "chestNo", sub_fest)
    return json_text(render(detail, {"context": festival.context_json(festival.sub_fests[found_in])}))
