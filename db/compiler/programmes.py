"""Compile programmes: list items, details, published results and their filter columns."""
from schemas.common import item_of_detail
from schemas.nested import ScheduleRefSchema
from schemas.programmes import ProgrammeDetailSchema, ProgrammeSchema
from schemas.results import EntryResultSchema

from ..compiled import kinds
from ..compiled.tables import PublicProgramme
from ..compiled.templates import dumps, make_template
from ..query import ascii_lower, search_text, text_sort_key
from ..source import models as m
from ..source import visibility
from ..source.programmes import attach_collections, attach_programme_fields, attach_schedules, public_programme_list
from ..source.results import results_of_programmes

# Read in batches: every source query of a batch takes the batch's ids as parameters.
BATCH = 500


def _active_judges(programme_ids):
    rows = (m.SubFestProgrammeJudge
            .select(m.SubFestProgrammeJudge.sub_fest_programme, m.Judge.id)
            .join(m.Judge)
            .where(m.SubFestProgrammeJudge.sub_fest_programme.in_(programme_ids) & visibility.visible_judge())
            .tuples())
    judges = {}
    for programme_id, judge_id in rows:
        judges.setdefault(programme_id, []).append(judge_id)
    return judges


def _visible_programmes(festival_id, sub_fest_id, programme_ids=None):
    """The visible programmes of a sub-fest (of ``programme_ids`` among them, when given)
    with their list fields, read by the source readers."""
    query = public_programme_list(festival_id, sub_fest_id).order_by(m.SubFestProgramme.id)
    if programme_ids is not None:
        query = query.where(m.SubFestProgramme.id.in_(list(programme_ids)))
    programmes = list(query)
    attach_programme_fields(festival_id, programmes)
    return programmes


def compile_programmes(festival_id, writer, programme_ids=None):
    """Compile the visible programmes of the festival (those of ``programme_ids`` only, when
    given: the caller has cleared their compiled rows)."""
    detail_schema = ProgrammeDetailSchema()
    item_of = item_of_detail(ProgrammeSchema(), detail_schema)
    schedule_schema, result_schema = ScheduleRefSchema(), EntryResultSchema(many=True)
    for sub_fest_id in [s.id for s in visibility.public_sub_fests(festival_id)]:
        programmes = _visible_programmes(festival_id, sub_fest_id, programme_ids)
        for start in range(0, len(programmes), BATCH):
            batch = programmes[start:start + BATCH]
            ids = [p.id for p in batch]
            attach_schedules(batch)
            attach_collections(batch)
            judges = _active_judges(ids)
            results = results_of_programmes(festival_id, ids)
            for programme in batch:
                _compile_one(writer, programme, judges.get(programme.id, []), results[programme.id],
                             item_of, detail_schema, schedule_schema, result_schema)


def _compile_one(writer, p, judge_ids, results, item_of, detail_schema, schedule_schema,
                 result_schema):
    master = p.programme
    schedules = [[s["scheduled_at"].isoformat(), dumps(schedule_schema.dump(s))] for s in p.schedule_list]
    # Slots of the stored JSON, filled per request (db/compiled/templates.py); the schemas
    # dump these placeholders, which make_template then replaces.
    p.next_schedule = p.context = None
    p.candidate_registration_open = p.topic_registration_open = False
    detail = detail_schema.dump(p)
    writer.add(
        PublicProgramme,
        id=p.id, sub_fest=p.sub_fest_id, code=ascii_lower(p.code), master_code=ascii_lower(master.code),
        search=search_text(master.name, master.name_local, master.code, p.code),
        category=p.category_ref.id if p.category_ref else None,
        status=p.status, program_type=master.program_type,
        position_criteria=p.position_criteria_id, grade_criteria=p.grade_criteria_id,
        requires_topic_registration=p.requires_topic_registration,
        candidate_registration_opens_at=p.candidate_registration_opens_at,
        candidate_registration_closes_at=p.candidate_registration_closes_at,
        topic_registration_opens_at=p.topic_registration_opens_at,
        topic_registration_closes_at=p.topic_registration_closes_at,
        has_schedule=bool(p.schedule_list), has_results=p.result_count > 0,
        has_judges=bool(judge_ids), has_registrations=p.registration_count > 0,
        display_order=p.display_order, code_key=text_sort_key(p.code), name_key=text_sort_key(master.name),
        status_key=text_sort_key(p.status), program_type_key=text_sort_key(master.program_type),
        published_at=p.published_at,
        schedules=dumps(schedules),
        body=make_template(item_of(detail), ("nextSchedule",)),
        detail=make_template(detail, (
            "nextSchedule", "context", "candidateRegistrationOpen", "topicRegistrationOpen")),
        results=dumps(result_schema.dump(results)),
    )
    writer.tag(kinds.TAG_PROGRAMME_VENUE, p.id, [s["venue"]["id"] for s in p.schedule_list if s["venue"]])
    writer.tag(kinds.TAG_PROGRAMME_COLLECTION, p.id, [c["id"] for c in p.collection_list])
    writer.tag(kinds.TAG_PROGRAMME_JUDGE, p.id, judge_ids)
