"""An import's row diff: the stored rows it adds, changes and withdraws per kind, and the
public records they touch (not the public change log: that is ``db/compiler/changes.py``).

``touched`` names, per kind, the public records whose data an import changed, directly or
through a row that belongs to them (a result touches its programme, its candidates and
its team), so that only those need to be recompiled and listed as changed.
"""
from collections import Counter
from dataclasses import dataclass, field

from seed.pipeline.read.fixture_format import SECTIONS, WITHDRAWABLE, fixture_fields

# Private columns the compile step never reads (``db/compiler``): a change to them alone
# changes no public answer, so it is written without a new revision. (``admission_number``
# is compiled, as a keyed hash the ``admNoPattern`` filter matches: not here.)
NEVER_COMPILED = {"candidates": frozenset({"email", "phone", "date_of_birth", "admission_details"})}

TOUCHED_KINDS = ("subFests", "subFestProgrammes", "subFestCandidates", "teams",
                 "news", "downloads", "galleryAlbums", "galleryImages", "people")


@dataclass
class RowDiff:
    """Counts per section key (e.g. ``"results"``) and the ids touched per kind."""

    added: Counter = field(default_factory=Counter)
    changed: Counter = field(default_factory=Counter)
    withdrawn: Counter = field(default_factory=Counter)
    # section key -> ids of the rows added, changed or withdrawn
    rows: dict = field(default_factory=dict)
    # kind (TOUCHED_KINDS) -> ids of the records whose public data may have changed;
    # "people": the sub-fest candidates whose own rows (name, team, ...) changed, which every
    # programme they take part in shows (a new result changes only its own candidates)
    touched: dict = field(default_factory=lambda: {kind: set() for kind in TOUCHED_KINDS})
    # the festival row's columns that changed (``is_active``, ``name``, ...)
    festival: list = field(default_factory=list)
    # False when every change is to columns no public answer shows (:data:`NEVER_COMPILED`)
    public: bool = False

    @property
    def empty(self):
        return not (self.added or self.changed or self.withdrawn or self.festival)

    def lines(self):
        """One line per kind that changed, e.g. ``results: 3 added, 1 changed, 0 withdrawn``
        (the festival row first: ``festival: changed is_active``)."""
        kinds = [s.key for s in SECTIONS if s.key in self.rows]
        head = [f"festival: changed {', '.join(self.festival)}"] if self.festival else []
        return head + [f"{kind}: {self.added[kind]} added, {self.changed[kind]} changed, "
                       f"{self.withdrawn[kind]} withdrawn" for kind in kinds]


def _value(row, f):
    if f.name in row:
        return row[f.name]
    return None if callable(f.default) else f.default


def _differs(section, old, new):
    """The names of the fields ``new`` changes."""
    found = []
    for f in fixture_fields(section.model, section):
        if f.name not in new and callable(f.default):
            continue  # e.g. created_at: the stored time stands
        if _value(old, f) != _value(new, f):
            found.append(f.name)
    return found


def _links_differ(section, old_links, new_links):
    for name, values in new_links.items():
        before = old_links.get(name, [])
        if section.inline[name].order_field is None:
            before, values = sorted(map(str, before)), sorted(map(str, values))
        if before != values:
            return True
    return False


def _is_withdrawal(section, old, new):
    if section.key not in WITHDRAWABLE:
        return False
    name, value = WITHDRAWABLE[section.key]
    return old.get(name, True) != value and new.get(name) == value


def diff_rows(old, new, removed=(), only=None):
    """Compare two :class:`FestivalState`; ``removed`` ids are gone from ``new``.

    ``only``: the ids that may differ (an update's rows); others are not compared.
    """
    summary = RowDiff()
    if old is not None:
        summary.festival = festival_changes(old.festival, new.festival)
    summary.public = bool(summary.festival)
    users = _Users(new)
    old_rows = old.rows if old else {s.key: {} for s in SECTIONS}
    old_links = old.links if old else {s.key: {} for s in SECTIONS}
    for section in SECTIONS:
        key = section.key
        before, after = old_rows[key], new.rows[key]
        candidates = after if only is None else {i: after[i] for i in only if i in after}
        for row_id, row in candidates.items():
            if row_id not in before:
                summary.added[key] += 1
                summary.public = True
            elif _is_withdrawal(section, before[row_id], row):
                summary.withdrawn[key] += 1
                summary.public = True
            else:
                fields = _differs(section, before[row_id], row)
                links = _links_differ(section, old_links[key].get(row_id, {}), new.links[key].get(row_id, {}))
                if not (fields or links):
                    continue
                summary.changed[key] += 1
                summary.public = summary.public or links or not set(fields) <= NEVER_COMPILED.get(key, set())
            summary.rows.setdefault(key, set()).add(row_id)
            _touch(summary, key, row, old, new, users)
            if row_id in before:
                _touch(summary, key, before[row_id], old, new, users)
        gone = [i for i in before if i not in after or i in removed]
        for row_id in gone:
            summary.withdrawn[key] += 1
            summary.public = True
            summary.rows.setdefault(key, set()).add(row_id)
            _touch(summary, key, before[row_id], old, new, users)
    _touch_parent_teams(summary, (new, old))
    return summary


# Festival columns an import stamps itself, whatever the file says.
_STAMPS = {"id", "created_at", "updated_at"}


def festival_changes(old, new):
    """The festival row's columns ``new`` (what the file gives) sets to another value."""
    return sorted(name for name, value in new.items() if name not in _STAMPS and old.get(name) != value)


def _touch_parent_teams(summary, states):
    """A team's points count for the teams above it too."""
    pending = list(summary.touched["teams"])
    while pending:
        parent = _row(states, "teams", pending.pop()).get("parent")
        if parent and parent not in summary.touched["teams"]:
            summary.touched["teams"].add(parent)
            pending.append(parent)


def _row(states, key, row_id):
    for state in states:
        if state and row_id in state.rows[key]:
            return state.rows[key][row_id]
    return {}


def _links(states, key, row_id, name):
    values = []
    for state in states:
        if state:
            values += state.links[key].get(row_id, {}).get(name, [])
    return values


class _Users:
    """Which rows of ``state`` use a given row, indexed once on first use (a full import
    asks for every person and programme: scanning all rows each time would be quadratic)."""

    def __init__(self, state):
        self.state = state
        self._index = {}

    def of(self, section_key, column, row_id):
        index = self._index.get((section_key, column))
        if index is None:
            index = self._index[(section_key, column)] = {}
            for row in self.state.rows[section_key].values():
                if row.get(column) is not None:
                    index.setdefault(row[column], []).append(row["id"])
        return index.get(row_id, ())


def _touch(summary, key, row, old, new, users):
    """Mark the public records ``row`` of section ``key`` belongs to."""
    states = (new, old)
    touched = summary.touched
    if key in touched:
        touched[key].add(row["id"])
    programme = row.get("sub_fest_programme")
    if key in ("registrations", "results"):
        registration_id = row["id"] if key == "registrations" else row.get("registration")
        registration = _row(states, "registrations", registration_id)
        programme = programme or registration.get("sub_fest_programme")
        for candidate in [registration.get("sub_fest_candidate"),
                          *_links(states, "registrations", registration_id, "members")]:
            _touch_candidate(summary, states, candidate)
        if registration.get("team"):
            touched["teams"].add(registration["team"])
    if key == "programmes":
        for sfp_id in users.of("subFestProgrammes", "programme", row["id"]):
            _touch_programme(summary, states, sfp_id)
    if key in ("positionCriteria", "gradeCriteria"):
        column = "position_criteria" if key == "positionCriteria" else "grade_criteria"
        for sfp_id in users.of("subFestProgrammes", column, row["id"]):
            _touch_programme(summary, states, sfp_id)
    if key == "candidates":
        for sfc_id in users.of("subFestCandidates", "candidate", row["id"]):
            _touch_candidate(summary, states, sfc_id)
            touched["people"].add(sfc_id)
    if key == "subFestCandidates":
        _touch_candidate(summary, states, row["id"])
        touched["people"].add(row["id"])
    if programme:
        _touch_programme(summary, states, programme)
    if key == "subFestProgrammes":
        _touch_programme(summary, states, row["id"])
    if row.get("sub_fest"):
        touched["subFests"].add(row["sub_fest"])
    if key == "galleryImages" and row.get("album"):
        touched["galleryAlbums"].add(row["album"])


def _touch_programme(summary, states, sfp_id):
    summary.touched["subFestProgrammes"].add(sfp_id)
    sub_fest = _row(states, "subFestProgrammes", sfp_id).get("sub_fest")
    if sub_fest:
        summary.touched["subFests"].add(sub_fest)


def _touch_candidate(summary, states, sfc_id):
    if sfc_id is None:
        return
    summary.touched["subFestCandidates"].add(sfc_id)
    sfc = _row(states, "subFestCandidates", sfc_id)
    if sfc.get("team"):
        summary.touched["teams"].add(sfc["team"])
    if sfc.get("sub_fest"):
        summary.touched["subFests"].add(sfc["sub_fest"])
