"""The compile step: a festival's public data, worked out when its data changes.

``compile_festival`` runs in the transaction of every import, seed and toppers recompute.
It is the only code that reads the source tables (``db/source/models.py``) for the public, and it
reads them through the rules of ``db/source/visibility.py``: a record those rules hide gets no
compiled row and is counted nowhere. It clears the festival's compiled rows
(``db/compiled/tables.py``) and writes them anew, each entity's public JSON made by its output
schema. Readers see the previous compiled data or the next, never half: the whole step
is part of the writer's transaction, and the revision moves with it.
"""
from dataclasses import dataclass, field

from .. import clock
from ..compiled.postgres_search import refresh_postgres_text_index
from ..compiled.tables import (
    KEPT_BY_DIGEST,
    PER_RECORD_MODELS,
    PER_RECORD_ROWS,
    PER_RECORD_TAGS,
    READ_MODELS,
    PublicCandidate,
    PublicTag,
)
from ..compiled.text_index import refresh_text_index
from ..database import database, is_postgres
from ..source import models as m
from ..source.registrations import registrations_of
from ..source.revisions import bump_revision
from . import content, filters, people, programmes, structure, toppers
from .changes import differences, leaderboard_entries, leaderboard_moves, record, snapshot
from .leaderboards import recompute_toppers
from .totals import store_totals
from .writer import Writer

# Sections whose records other records show (a team's name in its candidates, a venue in
# its schedules): a change to one compiles the whole festival.
SHOWN_BY_OTHERS = {"subFests", "categories", "teams", "sections", "venues", "judges", "programmeCollections",
                   "positionCriteria", "gradeCriteria"}


@dataclass
class Recompile:
    """The recompile set: the programmes and candidates a change touched, to compile again.

    Everything else of the festival (sub-fests, teams, categories, news and gallery,
    leaderboards, filter options) is small and compiled whole; the long lists (programmes
    with their schedules, candidates with their entries) are compiled per record.
    A programme shows its participants (in its results) and a candidate the programmes they
    took part in, with their fellow group members: both sides are compiled again. A
    programme's other participants are compiled again with it (their entries show its
    results); a candidate's other programmes only when the candidate's own record changed
    (``touched["people"]``): a new result of theirs shows nowhere else.
    """

    programme_ids: set = field(default_factory=set)
    candidate_ids: set = field(default_factory=set)

    @classmethod
    def of(cls, row_diff):
        """What an import's row diff (``seed.pipeline.diff.row_diff.RowDiff``) makes compile again, or
        None when the whole festival must be compiled again."""
        if row_diff is None or SHOWN_BY_OTHERS & {key for key, ids in row_diff.rows.items() if ids}:
            return None
        touched = row_diff.touched
        programmes = set(touched.get("subFestProgrammes", ())) | programmes_of(touched.get("people", ()))
        candidates = set(touched.get("subFestCandidates", ())) | participants_of(programmes)
        return cls(programmes, candidates)


def programmes_of(candidate_ids):
    """The programmes the candidates have entries in (as an individual or a group member)."""
    if not candidate_ids:
        return set()
    return {row[0] for row in m.Registration.select(m.Registration.sub_fest_programme)
            .where(registrations_of(candidate_ids)).tuples()}


def participants_of(programme_ids):
    """Every candidate with an entry in the programmes (individuals and group members)."""
    if not programme_ids:
        return set()
    ids = list(programme_ids)
    individual = {row[0] for row in m.Registration.select(m.Registration.sub_fest_candidate)
                  .where(m.Registration.sub_fest_programme.in_(ids)
                         & m.Registration.sub_fest_candidate.is_null(False)).tuples()}
    members = {row[0] for row in m.RegistrationMember.select(m.RegistrationMember.sub_fest_candidate)
               .join(m.Registration).where(m.Registration.sub_fest_programme.in_(ids)).tuples()}
    return individual | members


def _whole_steps():
    return (structure.compile_sub_fests, structure.compile_structure, content.compile_content,
            toppers.compile_toppers, filters.compile_filters)


def _per_record_steps():
    return ((programmes.compile_programmes, "programme_ids"), (content.compile_schedules, "programme_ids"),
            (people.compile_candidates, "candidate_ids"))


def clear_festival(festival_id, recompile=None):
    """Delete the festival's compiled rows: all of them, or what ``recompile`` compiles again
    (its records' rows and every row of the small, whole-compiled lists)."""
    for model in READ_MODELS:
        if recompile is None or model not in PER_RECORD_MODELS | KEPT_BY_DIGEST:
            model.delete().where(model.festival == festival_id).execute()
    if recompile is None:
        return
    PublicTag.delete().where((PublicTag.festival == festival_id) & PublicTag.kind.not_in(PER_RECORD_TAGS)).execute()
    for name, rows in PER_RECORD_ROWS.items():
        ids = list(getattr(recompile, name))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            for model, column, *tags in rows:
                condition = (model.festival == festival_id) & column.in_(chunk)
                if tags:
                    condition &= model.kind.in_(tags[0])
                model.delete().where(condition).execute()


def compile_festival(festival_id, recompile=None):
    """Compile the public data of one festival (inside the caller's transaction): all of
    it, or, with a :class:`Recompile`, what a change touched."""
    with database.atomic():
        clear_festival(festival_id, recompile)
        writer = Writer(festival_id)
        for step in _whole_steps():
            step(festival_id, writer)
        for step, name in _per_record_steps():
            if recompile is None:
                step(festival_id, writer)
            elif getattr(recompile, name):
                step(festival_id, writer, getattr(recompile, name))
        writer.flush()
        store_totals(festival_id)
        festival = PublicCandidate.festival.db_value(festival_id)
        if is_postgres():  # the local copy of a PostgreSQL service keeps its own SQLite index
            refresh_postgres_text_index(database.obj, festival)
        else:
            refresh_text_index(database.obj.connection(), festival)


@dataclass
class Publication:
    """What :func:`publish` did: the new revision, the public changes it recorded
    (``(kind, id, action, sub-fest, visible_at, natural keys)``), and with ``explain`` the leaderboards
    whose entries moved (``db.compiler.changes.LeaderboardMove``)."""

    revision: int
    changes: list
    leaderboards: list = field(default_factory=list)


def publish(festival, now=None, recompute=True, row_diff=None, explain=False):
    """After a change to a festival's data, inside the writer's transaction: recompute its
    leaderboards, compile its public data (what ``row_diff``, the import's
    ``seed.pipeline.diff.row_diff.RowDiff``, touched; all of it when None), bump its revision and record
    what changed in public terms, the change log. Returns a :class:`Publication`."""
    now = now or clock.utcnow()
    with database.atomic():
        boards = leaderboard_entries(festival.id) if explain else None
        recompile = Recompile.of(row_diff)
        if recompute:
            # A leaderboard counts its own sub-fest's results: those of the sub-fests the
            # change touched are recomputed (all of them when the whole festival is compiled).
            touched = None if recompile is None else row_diff.touched.get("subFests", set())
            recompute_toppers(festival, now=now, sub_fest_ids=touched)
        records = () if recompile is None else (recompile.programme_ids, recompile.candidate_ids)
        before = snapshot(festival.id, *records)
        compile_festival(festival.id, recompile)
        changes = differences(before, snapshot(festival.id, *records), now)
        revision, changed_at = bump_revision(festival)
        record(festival.id, (revision, changed_at), changes, now, recompile)
        moves = leaderboard_moves(boards, leaderboard_entries(festival.id)) if explain else []
    return Publication(revision, changes, moves)
