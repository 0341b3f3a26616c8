"""The compile step: the public view of a festival, worked out when its data changes.

``compile_festival`` runs in the transaction of every import, seed and toppers recompute.
It is the only code that reads the source tables (``db/models.py``) for the public, and it
reads them through the rules of ``db/scopes.py``: a record those rules hide gets no
compiled row and is counted nowhere. It clears the festival's compiled rows
(``db/read_model.py``) and writes them anew, each entity's public JSON made by its output
schema. Readers see the previous compiled view or the next one, never half: the whole step
is part of the writer's transaction, and the revision moves with it.
"""
from ..database import database
from ..read_model import READ_MODELS
from .writer import Writer


def _steps():
    # Imported here: the steps use the output schemas, which import db.
    from . import content, filters, people, programmes, structure, toppers
    return (structure.compile_sub_fests, programmes.compile_programmes, people.compile_candidates,
            structure.compile_structure, content.compile_content, toppers.compile_toppers,
            filters.compile_filters)


def clear_festival(festival_id):
    """Delete every compiled row of a festival (its hash key stays)."""
    for model in READ_MODELS:
        model.delete().where(model.festival == festival_id).execute()


def compile_festival(festival_id, now=None):
    """Compile the public view of one festival (inside the caller's transaction)."""
    with database.atomic():
        clear_festival(festival_id)
        writer = Writer(festival_id)
        for step in _steps():
            step(festival_id, writer)
        writer.flush()



def publish(festival, now=None, recompute=True, touched=None):
    """After a change to a festival's data, inside the writer's transaction: recompute its
    leaderboards, compile its public view, bump its revision and record what changed in
    public terms. Returns ``(revision, number of public changes)``."""
    from ..models import utcnow
    from ..revisions import bump_revision
    from ..toppers import recompute_toppers
    from .changes import differences, record, snapshot

    now = now or utcnow()
    with database.atomic():
        if recompute:
            recompute_toppers(festival, now=now)
        before = snapshot(festival.id)
        compile_festival(festival.id)
        changes = differences(before, snapshot(festival.id), now)
        revision = bump_revision(festival)
        record(festival.id, revision, changes, now)
    return revision, len(changes)
