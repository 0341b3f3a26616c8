"""Apply only the rows of an update file to a festival already in the database.

A row changes the stored row it names (by id or natural key) field by field, or adds a
new one; nothing is removed by being absent. ``withdrawn: true`` withdraws a registration
or a result, ``deleted: true`` removes news, downloads and gallery rows. The festival's
data with the changes applied must pass every check a full import makes, or nothing is
written.
"""
import difflib
import uuid
from dataclasses import dataclass, field

from peewee import ForeignKeyField

from db import clock
from db.bulk import insert_rows
from db.source import models as m
from db.source.revisions import current_revision

from seed.pipeline.diff.festival_state import FestivalState, state_from_database, state_from_document
from seed.pipeline.read.fixture_format import NATURAL_KEYS, SECTIONS, fixture_fields, json_schema, references
from seed.pipeline.write.locking import DEFAULT_WAIT_SECONDS, write_transaction
from seed.pipeline.read.load import load_source
from seed.pipeline.check import check_rows
from seed.pipeline.write.rows import DryRun, after_write, link_rows, stored_row
from seed.pipeline.read.local_times import localise_times, parse_zone
from seed.pipeline.check.natural_keys import INDEXED_ATTRS, Expander, KeyIndex
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.diff.row_diff import RowDiff, diff_rows
from seed.pipeline.check.validation import ShapeValidator, check_shape
from seed.pipeline.guard.withdrawals import guarded_write
from seed.pipeline.check.positions import said_not_present

_partial_validator = ShapeValidator(json_schema(partial=True))


@dataclass
class UpdateSummary:
    festival: m.Festival
    revision: int
    row_diff: RowDiff
    dry_run: bool = False
    # published records the update takes away (allowed, or listed by a dry run)
    withdrawals: list = field(default_factory=list)
    # a dry run's leaderboards whose entries would move (db.compiler.changes.LeaderboardMove)
    leaderboards: list = field(default_factory=list)


@dataclass
class PlannedUpdate:
    festival: m.Festival
    old: FestivalState
    new: FestivalState
    file_ids: set
    deleted: set
    revision: int = 0  # the festival's data revision when ``old`` was read


class StalePlan(Exception):
    """The festival changed between planning an update and taking the write lock (another
    import or update ran meanwhile): the plan's picture of the stored rows is out of date."""


# How often an update is planned again when other writers keep changing the festival.
PLAN_ATTEMPTS = 3


def _stored_festival(raw):
    if raw.get("id"):
        try:
            return m.Festival.get_or_none(m.Festival.id == uuid.UUID(raw["id"]))
        except ValueError:
            return None
    return m.Festival.get_or_none(m.Festival.slug == raw["slug"])


# The columns KeyIndex.add reads: the row's id, its attributes and its natural key.
_INDEXED = ("id", *INDEXED_ATTRS, "team")


def indexed_models(data):
    """The models whose stored rows an update document can name: its sections' own, those
    its rows refer to (by reference or in a list), and what looking those up needs (a
    sub-fest by slug, a registration by its candidate's chest number)."""
    models = {m.SubFest}
    for section in SECTIONS:
        if section.key not in data:
            continue
        models.add(section.model)
        models.update(f.rel_model for f, _ in references(section.model, section))
        models.update(inline.model._meta.fields[inline.value_field].rel_model for inline in section.inline.values()
                      if isinstance(inline.model._meta.fields[inline.value_field], ForeignKeyField))
    if m.Registration in models or m.Result in models:
        # an entry is known by its candidate's chest number, or a team's own by the team
        models.update((m.Registration, m.SubFestCandidate, m.Team))
    return models


def state_index(state, models=None):
    """The natural keys of ``state``'s rows (of ``models`` only, when given)."""
    index = KeyIndex()
    for section in SECTIONS:
        if models is not None and section.model not in models:
            continue
        key = NATURAL_KEYS[section.model]
        names = [k for k in dict.fromkeys((*_INDEXED, key.column, key.scope or "id"))
                 if k in section.model._meta.fields]
        for row in state.rows[section.key].values():
            index.add(section.model, {k: (str(v) if isinstance(v, uuid.UUID) else v)
                                      for k, v in ((k, row.get(k)) for k in names)})
    return index


def _merge(old, given, deleted):
    """The stored rows ``old`` with the update file's rows ``given`` laid over them."""
    new = FestivalState(festival={**old.festival, **given.festival})
    for section in SECTIONS:
        key = section.key
        rows = dict(old.rows[key])
        links = dict(old.links[key])
        for row_id, row in given.rows[key].items():
            rows[row_id] = {**rows.get(row_id, {}), **row}
            links[row_id] = {**links.get(row_id, {}), **given.links[key][row_id]}
        for row_id in deleted & rows.keys():
            del rows[row_id]
        new.rows[key], new.links[key] = rows, links
    new.paths, new.given = given.paths, given.given
    return new


def _check_deletions(state, deleted, paths, problems):
    """A deleted row must not be one that a remaining row still refers to."""
    if not deleted:
        return
    for section in SECTIONS:
        refs = [f for f in fixture_fields(section.model, section) if isinstance(f, ForeignKeyField)]
        for row_id, row in state.rows[section.key].items():
            for f in refs:
                if row.get(f.name) in deleted:
                    problems.append((f"{paths[row[f.name]]}.deleted",
                                     f"still used by {state.path(section.key, row_id)} ({f.name}): "
                                     f"delete or change that row too"))


def plan_update(data, problems=()):
    """Check an update document against the stored festival; return what it would do.

    Every check runs before anything stops; ``problems`` are those found while reading the
    file (cells that do not parse).
    """
    problems = list(problems)
    data = check_shape(data, _partial_validator, problems)
    festival = _stored_festival(data["festival"])
    if festival is None:
        slug = data["festival"].get("slug")
        near = difflib.get_close_matches(str(slug), [f.slug for f in m.Festival.select(m.Festival.slug)], n=3)
        hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
        raise FixtureError([("$.festival", f"no festival {slug!r} in the database{hint}: "
                                           "import the whole festival first")])
    given_zone = data["festival"].get("timezone")
    zone = parse_zone(given_zone if given_zone is not None else festival.timezone, problems)
    data = localise_times(data, zone, problems)
    revision = current_revision(festival.id)[0]  # before the rows: a later write shows as a newer one
    old = state_from_database(festival)
    existing_ids = {str(i) for section in SECTIONS for i in old.rows[section.key]}
    # Only what the file can name is indexed: a festival at scale 20 has 60,000 rows.
    expander = Expander(festival.slug, state_index(old, indexed_models(data)), existing_ids, update=True,
                        problems=problems)
    doc = expander.expand({**data, "festival": {**data["festival"], "id": str(festival.id)}})
    given = state_from_document(doc, problems)  # the file's rows
    deleted = {uuid.UUID(i) for i in expander.deleted if i}
    missing = [given.paths[i] for i in deleted if str(i) not in existing_ids]
    problems += [(f"{path}.deleted", "there is no such row to delete") for path in missing]
    new = _merge(old, given, deleted)
    new.said_gone = deleted | {uuid.UUID(i) for i in expander.withdrawn if i} | said_not_present(new)
    _check_deletions(new, deleted, given.paths, problems)
    # Stored rows were checked when they were written; deletions were checked above.
    check_rows(new, problems, festival_id=festival.id, where="in the file or the festival",
               only=set(given.paths), stored=old,
               restyled=new.festival.get("position_style") != old.festival.get("position_style"))
    if problems:
        raise FixtureError(problems)
    file_ids = {i for section in SECTIONS for i in given.rows[section.key]}
    return PlannedUpdate(festival, old, new, file_ids, deleted, revision)


def _write(plan, row_diff):
    festival_id = plan.festival.id
    changed_fields = {k: v for k, v in plan.new.festival.items() if plan.old.festival.get(k) != v}
    if changed_fields:
        # The write is stamped now, whatever the file says its festival row was updated at.
        changed_fields["updated_at"] = clock.utcnow()
        m.Festival.update(**changed_fields).where(m.Festival.id == festival_id).execute()
    for section in SECTIONS:
        model, key = section.model, section.key
        for row_id in [i for i in plan.new.rows[key] if i in row_diff.rows.get(key, ())]:
            row, before = plan.new.rows[key][row_id], plan.old.rows[key].get(row_id)
            if before is None:
                insert_rows(model, [stored_row(section, row, festival_id)])
            else:
                changed = {k: v for k, v in row.items() if before.get(k) != v}
                if changed:
                    model.update(**changed).where(model.id == row_id).execute()
            given = plan.new.links[key].get(row_id, {})
            for name, items in link_rows(section, row_id, given).items():
                if before is not None and plan.old.links[key].get(row_id, {}).get(name, []) == given.get(name, []):
                    continue
                inline = section.inline[name]
                parent = inline.model._meta.fields[inline.parent_field]
                inline.model.delete().where(parent == row_id).execute()
                insert_rows(inline.model, items)
    for section in reversed(SECTIONS):
        doomed = [i for i in plan.deleted if i in plan.old.rows[section.key]]
        if doomed:
            section.model.delete().where(section.model.id.in_(doomed)).execute()


def apply_update(plan, dry_run=False, allow_withdrawals=False, wait_seconds=DEFAULT_WAIT_SECONDS):
    """Write the planned changes in one transaction (rolled back if ``dry_run``).

    Refused (:class:`WithdrawalRefused`, nothing written: the transaction rolls back) when it
    would take published records away that its rows do not withdraw themselves, unless
    ``allow_withdrawals`` (``seed.pipeline.guard.withdrawals.guarded_write``).
    """
    row_diff = diff_rows(plan.old, plan.new, removed=plan.deleted, only=plan.file_ids | plan.deleted)
    result = None
    try:
        with write_transaction(wait_seconds):
            if current_revision(plan.festival.id)[0] != plan.revision:
                raise StalePlan()
            withdrawals = guarded_write(plan.festival.id, plan.old, plan.new, lambda: _write(plan, row_diff),
                                        allow=allow_withdrawals, dry_run=dry_run)
            festival_changed = bool(row_diff.festival)
            moves = []
            if not row_diff.public:  # nothing, or private columns no answer shows: no new revision
                revision = current_revision(plan.festival.id)[0]
                festival = plan.festival
            else:
                festival, published = after_write(plan.festival.id, row_diff=None if festival_changed else row_diff,
                                                  explain=dry_run)
                revision, moves = published.revision, published.leaderboards
            result = UpdateSummary(festival=festival, revision=revision, row_diff=row_diff, dry_run=dry_run,
                                   withdrawals=withdrawals, leaderboards=moves)
            if dry_run:
                raise DryRun
    except DryRun:
        pass
    return result


def update_fixture(data, dry_run=False, problems=(), allow_withdrawals=False, wait_seconds=DEFAULT_WAIT_SECONDS):
    """Apply an update document (its rows only) to the stored festival; see :class:`UpdateSummary`.

    An update that waited for another writer is planned again against what that writer
    left, so it never writes from an out-of-date picture of the festival.
    """
    for attempt in range(1, PLAN_ATTEMPTS + 1):
        try:
            return apply_update(plan_update(data, problems), dry_run=dry_run, allow_withdrawals=allow_withdrawals,
                                wait_seconds=wait_seconds)
        except StalePlan:
            if attempt == PLAN_ATTEMPTS:
                raise FixtureError([("$", "the festival kept changing while this update waited for other "
                                          "imports; nothing was written: run it again")]) from None


def update_file(path, dry_run=False, allow_withdrawals=False, wait_seconds=DEFAULT_WAIT_SECONDS):
    return update_source(load_source(path), dry_run=dry_run, allow_withdrawals=allow_withdrawals,
                         wait_seconds=wait_seconds)


def update_source(source, dry_run=False, allow_withdrawals=False, wait_seconds=DEFAULT_WAIT_SECONDS):
    """``update_fixture`` of a read :class:`~seed.pipeline.read.sources.Source`; its problems name its rows.

    ``import --update`` and ``follow`` both apply a source through this function, so they
    make the same checks and refuse the same withdrawals."""
    try:
        return update_fixture(source.data, dry_run=dry_run, problems=source.problems,
                              allow_withdrawals=allow_withdrawals, wait_seconds=wait_seconds)
    except FixtureError as exc:
        exc.source = source
        raise
