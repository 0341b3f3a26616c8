"""Compile candidates: list items, details, their published results and their entries.

Who took part in an entry: the candidate of an individual entry, each visible member of a
group entry (the source readers of ``db/source/results.py`` work that out). Each of them gets
the entry in ``PublicRegistration`` and the entry's published result in their
``PublicCandidate.results``.
"""
import secrets
import uuid

from schemas.candidates import CandidateDetailSchema, CandidateSchema
from schemas.common import item_of_detail
from schemas.registrations import RegistrationSchema
from schemas.results import CandidateResultItemSchema, ResultCandidateSchema

from ..compiled import kinds
from ..compiled.tables import PublicCandidate, PublicRegistration, PublicSecret, adm_no_digest
from ..compiled.templates import dumps, make_template
from ..query import ascii_lower, search_text, text_sort_key
from ..source import models as m
from ..source import visibility
from ..source.candidates import attach_candidate_fields, public_candidate_rows
from ..source.programmes import attach_categories
from ..source.registrations import attach_results, registrations_of
from ..source.results import CANDIDATE_RESULT_ORDER, with_entries, attach_entries
from ..source.teams import team_tree

# Read in batches: every source query of a batch takes the batch's ids as parameters.
BATCH = 500


def _batches(items):
    for start in range(0, len(items), BATCH):
        yield items[start:start + BATCH]


def participants(entry):
    """Ids of the visible candidates who took part in ``entry`` (after ``attach_entries``)."""
    if entry.member_list is not None:
        ids = [member["id"] for member in entry.member_list]
    else:
        ids = [entry.candidate_ref["id"]] if entry.candidate_ref else []
    return list(dict.fromkeys(ids))


def festival_hash_key(festival_id):
    """The festival's key of ``adm_no_digest`` (made once, kept across compiles), or None
    when the festival has not turned ``admNoPattern`` on; the festival's word is copied to
    its compiled row either way, for requests to read."""
    enabled = (m.Festival.select(m.Festival.admission_number_filter)
               .where(m.Festival.id == festival_id).scalar()) or False
    row = PublicSecret.get_or_none(PublicSecret.festival == festival_id)
    if row is None:
        row = PublicSecret.create(festival=festival_id, hash_key=secrets.token_hex(32),
                                  admission_number_filter=enabled)
    elif row.admission_number_filter != enabled:
        (PublicSecret.update(admission_number_filter=enabled)
         .where(PublicSecret.festival == festival_id).execute())
    return row.hash_key if enabled else None


def _adm_no_digests(festival_id, candidate_ids=None):
    """``{sub-fest candidate id: adm_no_digest}`` of the visible candidates with a number
    (of ``candidate_ids`` only, when given); none at all while the festival has not turned
    ``admNoPattern`` on, so its compiled rows cannot confirm a number."""
    hash_key = festival_hash_key(festival_id)
    if hash_key is None:
        return {}
    rows = visibility.public_candidates(festival_id, m.SubFestCandidate.id, m.Candidate.admission_number)
    if candidate_ids is not None:
        rows = rows.where(m.SubFestCandidate.id.in_(list(candidate_ids)))
    return {candidate_id: adm_no_digest(hash_key, number) for candidate_id, number in rows.tuples()
            if number is not None}


def _team_chains(festival_id):
    """``{team id: [the team and every visible team above it]}`` for every visible team,
    climbing through visible teams only (the tree of ``db/source/teams.py``)."""
    sub_fest_ids = m.SubFest.select(m.SubFest.id).where(m.SubFest.festival == festival_id)
    tree = team_tree(m.Team.sub_fest.in_(sub_fest_ids))
    chains = {}
    for ancestor, member in tree.select_from(tree.c.ancestor, tree.c.member).tuples():
        chains.setdefault(uuid.UUID(str(member)), []).append(uuid.UUID(str(ancestor)))
    return chains


def _entries_of(query, candidate_ids):
    """``query`` narrowed to the registrations the candidates take part in (not at all when
    ``candidate_ids`` is None)."""
    return query if candidate_ids is None else query.where(registrations_of(candidate_ids))


def _results_by_candidate(festival_id, candidate_ids=None):
    """``{sub-fest candidate id: [result JSON, latest first]}`` as ``/candidate-result`` lists them."""
    schema = CandidateResultItemSchema()
    results = list(_entries_of(visibility.public_entry_results(festival_id, m.Result, m.Registration,
                                                           m.SubFestProgramme, m.Programme), candidate_ids)
                   .order_by(*CANDIDATE_RESULT_ORDER))
    by_candidate = {}
    for batch in _batches(results):
        attach_categories([r.sub_fest_programme for r in batch])
        for result in with_entries(festival_id, batch):
            text = dumps(schema.dump(result))
            for candidate_id in participants(result.registration):
                by_candidate.setdefault(candidate_id, []).append(text)
    return by_candidate


def compile_candidates(festival_id, writer, candidate_ids=None):
    """Compile the visible candidates of the festival's public sub-fests and their entries
    (those of ``candidate_ids`` only, when given: the caller has cleared their rows)."""
    detail_schema = CandidateDetailSchema()
    schemas = item_of_detail(CandidateSchema(), detail_schema), detail_schema, ResultCandidateSchema()
    digests = _adm_no_digests(festival_id, candidate_ids)
    chains = _team_chains(festival_id)
    results = _results_by_candidate(festival_id, candidate_ids)
    for sub_fest in visibility.public_sub_fests(festival_id):
        query = public_candidate_rows(festival_id).where(m.SubFestCandidate.sub_fest == sub_fest.id)
        if candidate_ids is not None:
            query = query.where(m.SubFestCandidate.id.in_(list(candidate_ids)))
        candidates = list(query)
        for batch in _batches(candidates):
            attach_candidate_fields(festival_id, batch)
            for candidate in batch:
                _compile_one(writer, candidate, digests.get(candidate.id), chains.get(candidate.team_id, []),
                             results.get(candidate.id, []), *schemas)
    compile_registrations(festival_id, writer, candidate_ids)


def chest_no_key(chest_no):
    """The ``chestNo`` sort key: shorter numbers first ("99" before "100"), then as text."""
    return len(chest_no).to_bytes(4, "big") + text_sort_key(chest_no)


def _compile_one(writer, c, digest, team_chain, results, item_of, detail_schema, summary_schema):
    person = c.candidate
    c.context = None
    summary = {**c.identity, "team": c.team_ref, "category": c.category_ref}
    detail = detail_schema.dump(c)
    writer.add(
        PublicCandidate,
        id=c.id, sub_fest=c.sub_fest_id, chest_no=ascii_lower(c.chest_no),
        search=search_text(person.name, person.name_local, c.chest_no),
        category=c.category_ref.id if c.category_ref else None, gender=person.gender,
        has_avatar=bool(c.avatar_url), has_registration=c.registration_count > 0,
        adm_no_digest=digest, chest_no_key=chest_no_key(c.chest_no), name_key=text_sort_key(person.name),
        body=dumps(item_of(detail)),
        detail=make_template(detail, ("context",)),
        summary=dumps(summary_schema.dump(summary)),
        results=f"[{','.join(results)}]",
    )
    writer.tag(kinds.TAG_CANDIDATE_TEAM, c.id, team_chain)
    writer.tag(kinds.TAG_CANDIDATE_SECTION, c.id, [section["id"] for section in c.section_list])


def compile_registrations(festival_id, writer, candidate_ids=None):
    """Each visible entry once for every visible candidate who took part in it."""
    schema = RegistrationSchema()
    entries = list(_entries_of(visibility.public_registrations(festival_id, m.Registration, m.SubFestProgramme,
                                                           m.Programme), candidate_ids))
    for batch in _batches(entries):
        attach_entries(festival_id, batch)
        attach_categories([entry.sub_fest_programme for entry in batch])
        attach_results(festival_id, batch)
        for entry in batch:
            body = dumps(schema.dump(entry))
            programme = entry.sub_fest_programme
            for candidate_id in participants(entry):
                if candidate_ids is not None and candidate_id not in candidate_ids:
                    continue
                writer.add(PublicRegistration, id=entry.id, candidate=candidate_id,
                           registered_at=entry.registered_at, program_code_key=text_sort_key(programme.code),
                           program_name_key=text_sort_key(programme.programme.name),
                           type_key=text_sort_key(entry.type), body=body)
