"""GET /programme-results, /programme-result and /candidate-result."""
from db import clock
from db.read.candidates import find_candidates
from db.read.programmes import find_programmes, list_programme_results, render_item
from schemas.results import (CandidateResultQueryArgsSchema, CandidateResultSchema,
                             ProgrammeResultQueryArgsSchema, ProgrammeResultSchema,
                             ProgrammeResultsListSchema, ProgrammeResultsQueryArgsSchema)

from .lookups import narrowing_sub_fest_or_404, sub_fest_ref_or_404, the_one
from .responses import list_json, object_json
from .operations import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("results", __name__, group=SCHEDULES_AND_RESULTS,
                description="Published public results of programmes and candidates.")


@blp.operation("/programme-results", "listProgrammeResults", ProgrammeResultsQueryArgsSchema,
               ProgrammeResultsListSchema)
def programme_results_list(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List public programmes of a sub-fest with their published results

    Each item is `{"programme": {...}, "results": [...]}`: the results page of a sub-fest. The
    same filters as `/programmes`; `sortBy=publishedAt&sortOrder=desc` gives the latest results
    first.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    now = clock.utcnow()
    page = list_programme_results(festival.id, sub_fest.id, now=now, **args)
    now_iso = now.isoformat()
    items = [f'{{"programme":{render_item(body, schedules, now_iso)},"results":{results}}}'
             for body, schedules, results in page.items]
    return list_json(page, items, festival.context_json(sub_fest))


@blp.operation("/programme-result", "getProgrammeResult", ProgrammeResultQueryArgsSchema, ProgrammeResultSchema)
def programme_result(festival, sub_fest_program_id=None, program_code=None, sub_fest_id=None, sub_fest_slug=None):
    """Show one public programme with its published results

    One programme, by `subFestProgramId` or by its code
    (`programCode=HS-G05&subFestSlug=general`), with its published results: position, grade,
    points and who took part.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    matches = find_programmes(festival.id, sub_fest_program_id, program_code, sub_fest and sub_fest.id)
    sub_fest_id, body, schedules, results = the_one(matches, "Programme", "programCode", sub_fest)
    return object_json(context=festival.context_json(festival.sub_fests[sub_fest_id]),
                       programme=render_item(body, schedules, clock.utcnow().isoformat()), results=results)


@blp.operation("/candidate-result", "getCandidateResult", CandidateResultQueryArgsSchema, CandidateResultSchema)
def candidate_result(festival, sub_fest_candidate_id=None, chest_no=None, sub_fest_id=None, sub_fest_slug=None):
    """Show one public candidate with the published results of their entries

    One candidate, by `subFestCandidateId` or by chest number
    (`chestNo=1001&subFestSlug=general`), with the published results of their entries, each
    naming its programme.
    """
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    matches = find_candidates(festival.id, sub_fest_candidate_id, chest_no, sub_fest and sub_fest.id)
    sub_fest_id, summary, results = the_one(matches, "Candidate", "chestNo", sub_fest)
    return object_json(context=festival.context_json(festival.sub_fests[sub_fest_id]),
                       candidate=summary, results=results)
