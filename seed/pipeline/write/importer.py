"""Validate a festival fixture completely, then replace that festival's data in one transaction."""
import uuid
from dataclasses import dataclass, field

from peewee import ForeignKeyField

from db import clock
from db.bulk import insert_rows
from db.compiler.leaderboards import recompute_toppers
from db.source import models as m
from db.source.revisions import current_revision

from seed.pipeline.check import check_rows
from seed.pipeline.read.load import load_source
from seed.pipeline.write.locking import DEFAULT_WAIT_SECONDS, write_transaction
from seed.pipeline.write.rows import DryRun, after_write, link_rows, stored_row
from seed.pipeline.diff.festival_state import state_from_database, state_from_document
from seed.pipeline.read.fixture_format import SECTIONS, fixture_fields, json_schema
from seed.pipeline.read.local_times import localise_times, parse_zone
from seed.pipeline.check.natural_keys import Expander, KeyIndex, festival_id
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.diff.row_diff import RowDiff, diff_rows
from seed.pipeline.guard.withdrawals import WithdrawalRefused, guarded_write
from seed.pipeline.check.positions import said_not_present
from seed.pipeline.check.validation import ShapeValidator, check_shape

__all__ = ["FixtureError", "WithdrawalRefused", "ImportSummary", "validate", "apply", "import_fixture", "import_file"]


@dataclass
class ImportSummary:
    festival: m.Festival
    rows: int
    revision: int
    row_diff: RowDiff
    dry_run: bool = False
    # published records the import takes away (allowed, or listed by a dry run)
    withdrawals: list = field(default_factory=list)
    # a dry run's leaderboards whose entries would move (db.compiler.changes.LeaderboardMove)
    leaderboards: list = field(default_factory=list)


_validator = ShapeValidator(json_schema())


def drop_rows(state, ids):
    for section in SECTIONS:
        for row_id in ids & state.rows[section.key].keys():
            del state.rows[section.key][row_id]
            state.links[section.key].pop(row_id, None)
            state.paths.pop(row_id, None)
            state.given.pop(row_id, None)


def _festival_row(data):
    festival = data.get("festival") if isinstance(data, dict) else None
    return festival if isinstance(festival, dict) else {}


def validate(data, problems=()):
    """Return the festival's rows (a ``FestivalState``) or raise :class:`FixtureError`.

    Every check runs before anything stops, so one run lists every problem of the file;
    ``problems`` are those found while reading it (cells that do not parse).
    """
    problems = list(problems)
    # Before the shape check, whose "required" message this one replaces.
    zone = parse_zone(_festival_row(data).get("timezone"), problems)
    data = check_shape(data, _validator, problems)
    raw = data["festival"]
    data = localise_times(data, zone, problems)
    existing = m.Festival.get_or_none(m.Festival.slug == raw["slug"])
    raw = {**data["festival"], "id": raw.get("id") or festival_id(raw["slug"], existing and str(existing.id))}
    expander = Expander(raw["slug"], KeyIndex(), problems=problems)
    doc = expander.expand({**data, "festival": raw})
    state = state_from_document(doc, problems)
    # A full import leaves deleted rows out: that is what deleting them means here.
    deleted = {uuid.UUID(i) for i in expander.deleted if i}
    drop_rows(state, deleted)
    state.said_gone = deleted | {uuid.UUID(i) for i in expander.withdrawn if i} | said_not_present(state)
    check_rows(state, problems, festival_id=state.festival.get("id"))
    if problems:
        raise FixtureError(problems)
    return state


def _festival_level_models():
    return [
        model for model in reversed(m.ALL_MODELS)
        if model not in (m.Festival, m.FestivalRevision, m.ApiKey)
        and isinstance(model._meta.fields.get("festival"), ForeignKeyField)
    ]


def _delete_festival_data(festival_id):
    # Festival-level rows cascade to everything below them (ON DELETE CASCADE).
    for model in _festival_level_models():
        model.delete().where(model.festival == festival_id).execute()


def _write_festival(state, festival_row, stored, progress=None):
    """Replace the festival's stored rows with ``state``'s; return how many rows were written."""
    festival_id = festival_row["id"]
    total = 0
    if stored:
        _delete_festival_data(festival_id)
        festival_row = {**festival_row, "updated_at": clock.utcnow()}
        m.Festival.update(**festival_row).where(m.Festival.id == festival_id).execute()
    else:
        m.Festival.insert(**festival_row).execute()
    for section in SECTIONS:
        rows = [stored_row(section, row, festival_id) for row in state.rows[section.key].values()]
        links = {name: [] for name in section.inline}
        for row_id in state.rows[section.key]:
            for name, items in link_rows(section, row_id, state.links[section.key][row_id]).items():
                links[name] += items
        insert_rows(section.model, rows)
        total += len(rows)
        for name, inline in section.inline.items():
            insert_rows(inline.model, links[name])
            total += len(links[name])
        if progress:
            progress(section.key, len(rows))
    return total


def keep_stored_times(old, state):
    """A stored row's own times (``created_at``, ``registered_at``, ...: the columns stamped
    when a row is made) stay as they were when the file does not give them: the whole
    festival is written anew, and a news item's creation time, which the public sees and
    sorts by, must not move with each import."""
    if old is None:
        return
    for section in SECTIONS:
        stamped = [f.name for f in fixture_fields(section.model, section) if callable(f.default)]
        if not stamped:
            continue
        before = old.rows[section.key]
        for row_id, row in state.rows[section.key].items():
            if row_id in before:
                for name in stamped:
                    if name not in row and before[row_id].get(name) is not None:
                        row[name] = before[row_id][name]


def apply(state, progress=None, recompute=True, dry_run=False, allow_withdrawals=False,
          wait_seconds=DEFAULT_WAIT_SECONDS):
    """Replace the festival's data with ``state``'s, in one transaction (rolled back if ``dry_run``).

    Refused (:class:`WithdrawalRefused`, nothing written) when it would take published
    records away, unless ``allow_withdrawals``; a dry run lists them instead. What would go
    is what the visibility rules show before the rows are written and no longer after
    (``seed.pipeline.guard.withdrawals.guarded_write``). It waits up to ``wait_seconds`` for
    another writer (``seed.pipeline.write.locking.write_transaction``).
    """
    festival_row = state.festival
    festival_id = festival_row["id"]
    total = 0
    result = None
    try:
        with write_transaction(wait_seconds):
            stored = m.Festival.get_or_none(m.Festival.id == festival_id)
            old = state_from_database(stored) if stored else None
            keep_stored_times(old, state)

            def write():
                nonlocal total
                total = _write_festival(state, festival_row, stored, progress)

            row_diff = diff_rows(old, state)
            withdrawals = guarded_write(festival_id, old, state, write, allow=allow_withdrawals, dry_run=dry_run)
            if old is not None and not row_diff.empty and not row_diff.public:
                # Private columns no answer shows, only: the compiled view stands, at its
                # revision; the leaderboards' rows, written anew with the festival's, are
                # computed again (to the same entries).
                festival = m.Festival.get_by_id(festival_id)
                recompute_toppers(festival)
                revision, moves = current_revision(festival_id)[0], []
            else:
                festival, published = after_write(festival_id, recompute, explain=dry_run)
                revision, moves = published.revision, published.leaderboards
            result = ImportSummary(festival=festival, rows=total, revision=revision, row_diff=row_diff,
                                   dry_run=dry_run, withdrawals=withdrawals, leaderboards=moves)
            if dry_run:
                raise DryRun
    except DryRun:
        pass
    return result


def import_fixture(data, progress=None, dry_run=False, problems=(), allow_withdrawals=False,
                   wait_seconds=DEFAULT_WAIT_SECONDS):
    """Validate ``data`` fully, then apply it. Nothing is written when it is invalid."""
    state = validate(data, problems)
    return apply(state, progress=progress, dry_run=dry_run, allow_withdrawals=allow_withdrawals,
                 wait_seconds=wait_seconds)


def import_file(path, progress=None, dry_run=False, allow_withdrawals=False, wait_seconds=DEFAULT_WAIT_SECONDS):
    """Import a JSON file, a folder of CSV files or a .zip of them; problems name the file."""
    source = load_source(path)
    try:
        return import_fixture(source.data, progress=progress, dry_run=dry_run, problems=source.problems,
                              allow_withdrawals=allow_withdrawals, wait_seconds=wait_seconds)
    except FixtureError as exc:
        exc.source = source
        raise
