"""Checks over a festival's rows as a whole: shape, references, uniqueness, other festivals' ids."""
import copy
import re

import jsonschema
import jsonschema_rs
from peewee import ForeignKeyField

from db.source import models as m

from seed.pipeline.diff.festival_state import festival_column, owned_by
from seed.pipeline.read.fixture_format import SECTION_BY_KEY, SECTION_BY_MODEL, SECTIONS, fixture_fields
from seed.pipeline.read.problems import FixtureError


def check_references(state, problems, where="in this file", only=None):
    """Every reference and link-list entry names a row of the right section.

    ``only``: the ids of the rows to check (an update's; stored rows were checked before).
    """
    for section in SECTIONS:
        rows = state.rows[section.key]
        if only is not None:
            rows = {i: rows[i] for i in only if i in rows}
        for row_id, row in rows.items():
            path = state.path(section.key, row_id)
            for f in fixture_fields(section.model, section):
                if isinstance(f, ForeignKeyField) and row.get(f.name) is not None:
                    if row[f.name] not in state.rows[SECTION_BY_MODEL[f.rel_model].key]:
                        problems.append((f"{path}.{f.name}",
                                         f"no {f.rel_model._meta.table_name} with id {row[f.name]} {where}"))
            for name, inline in section.inline.items():
                value_field = inline.model._meta.fields[inline.value_field]
                if not isinstance(value_field, ForeignKeyField):
                    continue
                targets = state.rows[SECTION_BY_MODEL[value_field.rel_model].key]
                for j, value in enumerate(state.links[section.key][row_id].get(name, [])):
                    if value not in targets:
                        problems.append((f"{path}.{name}[{j}]",
                                         f"no {value_field.rel_model._meta.table_name} with id {value} {where}"))


def _unique_keys(model):
    """Column sets the database keeps unique within one festival (the implied festival dropped)."""
    keys = [(f.name,) for f in model._meta.sorted_fields if f.unique and not f.primary_key]
    keys += [tuple(names) for names, unique in model._meta.indexes if unique]
    return [tuple(name for name in key if name != "festival") for key in keys]


def check_unique(state, problems):
    """E.g. a sub-fest slug, a chest number within a sub-fest, one result per registration."""
    for section in SECTIONS:
        for key in _unique_keys(section.model):
            seen = {}
            for row_id, row in state.rows[section.key].items():
                value = tuple(row.get(name) for name in key)
                if None in value:
                    continue
                if value not in seen:
                    seen[value] = row_id
                    continue
                # Name the file's row: in an update, the other one may be a stored row.
                here, other = (row_id, seen[value]) if row_id in state.paths else (seen[value], row_id)
                problems.append((f"{state.path(section.key, here)}.{key[-1]}",
                                 f"{' + '.join(key)} must be unique: already used by "
                                 f"{state.path(section.key, other)}"))


_KEY_WORDS = {"registration": "entry", "sub_fest_candidate": "candidate", "sub_fest_programme": "programme",
              "sub_fest": "sub-fest"}


def check_passed_on_keys(old, new, ids, problems):
    """An update writes its rows one by one: a row may not take a unique value (a result's
    entry, a chest number) that another row of the same update gives up, as in a swap of two
    results' entries; the database would refuse the first write half-way. ``old``/``new``:
    the stored rows and the rows with the update laid over; ``ids``: the update's rows."""
    for section in SECTIONS:
        before, after = old.rows[section.key], new.rows[section.key]
        moving = [i for i in ids if i in before and i in after]
        for key in _unique_keys(section.model):
            held = {}
            for row_id in moving:
                was, now = (tuple(rows[row_id].get(name) for name in key) for rows in (before, after))
                if was != now and None not in was:
                    held[was] = row_id
            for row_id in moving:
                now = tuple(after[row_id].get(name) for name in key)
                other = held.get(now)
                if other is None or other == row_id or None in now:
                    continue
                what = " + ".join(_KEY_WORDS.get(name, name) for name in key)
                problems.append((f"{new.path(section.key, row_id)}.{key[-1]}",
                                 f"takes the {what} that {new.path(section.key, other)} gives up in this "
                                 "same update (a swap): an update cannot pass a unique value from row to row; "
                                 "change one of them in an update of its own first, or import the whole festival"))


# Codes the API looks rows up by, case-insensitively: (section, scope column, what). A
# programme code names one programme within its sub-fest (``/programme-result?programCode=
# …&subFestSlug=…``); the same code in two sub-fests is two programmes.
_CODES = (("subFestProgrammes", "sub_fest", "programme code {code!r} in sub-fest {scope!r}"),)


def check_codes(state, problems):
    """Programme codes are unique within their sub-fest, in any letter case: the API finds a
    programme by its code whatever the case."""
    sub_fests = state.rows["subFests"]
    for key, scope, what in _CODES:
        seen = {}
        for row_id, row in state.rows[key].items():
            if not isinstance(row.get("code"), str):
                continue
            value = (row.get(scope) if scope else None, row["code"].casefold())
            if value not in seen:
                seen[value] = row_id
                continue
            here, other = (row_id, seen[value]) if row_id in state.paths else (seen[value], row_id)
            other_code = state.rows[key][other].get("code")
            same = "" if other_code == state.rows[key][here].get("code") else f" (as {other_code!r})"
            scope_name = sub_fests.get(value[0], {}).get("slug") if scope else None
            by = state.paths.get(other) or f"the stored {'programme' if scope else 'master programme'} {other_code!r}"
            problems.append((f"{state.path(key, here)}.code",
                             what.format(code=state.rows[key][here]["code"], scope=scope_name)
                             + f" is already used by {by}{same if other in state.paths else ''}: codes are unique "
                             + ("within a sub-fest" if scope else "within the festival") + ", in any letter case"))


def check_group_members(state, problems, only=None):
    """Members make an entry a group: an entry of another ``type`` with members would show
    none of them (and, without a candidate, would be shown nowhere)."""
    for row_id, links in state.links["registrations"].items():
        row = state.rows["registrations"].get(row_id)
        if row is None or (only is not None and row_id not in only) or not links.get("members"):
            continue
        if (row.get("type") or "individual") != "group":
            problems.append((f"{state.path('registrations', row_id)}.members",
                             f"an entry with members is a group: set type to group (it is "
                             f"{row.get('type') or 'individual'!r}), or leave the members out"))


def check_one_entry_per_candidate(state, problems):
    """No candidate has two results in one programme (alone or as a group member), nor one
    person under two chest numbers."""
    registrations = state.rows["registrations"]
    chests = state.rows["subFestCandidates"]
    seen, people = {}, {}
    for result_id, result in state.rows["results"].items():
        registration = registrations.get(result.get("registration"))
        if registration is None:
            continue
        candidates = {registration.get("sub_fest_candidate")}
        candidates.update(state.links["registrations"].get(result["registration"], {}).get("members", []))
        for candidate in candidates - {None}:
            key = (result.get("sub_fest_programme"), candidate)
            if key in seen:
                problems.append((f"{state.path('results', result_id)}.registration",
                                 f"sub-fest candidate {candidate} already has a result in this programme "
                                 f"({state.path('results', seen[key])})"))
                continue
            seen[key] = result_id
            person = chests.get(candidate, {}).get("candidate")
            other = people.setdefault((result.get("sub_fest_programme"), person), (candidate, result_id))
            if person is None or other[0] == candidate:
                continue
            if result_id in state.paths or other[1] in state.paths:  # stored rows were checked before
                here, there = (result_id, other[1]) if result_id in state.paths else (other[1], result_id)
                mine, theirs = (candidate, other[0]) if here == result_id else (other[0], candidate)
                problems.append((f"{state.path('results', here)}.registration",
                                 f"chest_no {chests[mine].get('chest_no')!r} and chest_no "
                                 f"{chests[theirs].get('chest_no')!r} are one person, who already has a result "
                                 f"in this programme ({state.path('results', there)})"))


def check_festival_slug(festival, problems):
    existing = m.Festival.get_or_none(m.Festival.slug == festival["slug"])
    if existing and existing.id != festival["id"]:
        problems.append(("$.festival.slug", f"slug {festival['slug']!r} belongs to another festival"))


def check_foreign_ids(state, festival_id, problems):
    """No id of the file may belong to another festival already in the database."""
    for section in SECTIONS:
        model = section.model
        ids = [i for i in state.rows[section.key] if i in state.paths]
        for start in range(0, len(ids), 500):
            batch = ids[start:start + 500]
            owner = festival_column(model)
            query = (owned_by(model.select(model.id, owner.alias("owner_id")), model)
                     .where(model.id.in_(batch), owner != festival_id))
            for row_id, owner_id in query.tuples():
                slug = m.Festival.get_by_id(owner_id).slug
                problems.append((f"{state.paths[row_id]}.id",
                                 f"{model._meta.table_name} id {row_id} belongs to another festival ({slug!r})"))


class ShapeValidator:
    """A fixture's JSON Schema (draft 2020-12), checked twice over only when it fails.

    jsonschema-rs decides whether a document is valid (about 2 ms for the bundled
    Kalolsavam, where Python's jsonschema takes about 165 ms, an eighth of its import); a
    document it finds invalid, or cannot read (a value that is not JSON, e.g. a cell read as
    a date), is walked by Python's jsonschema, whose errors (path, keyword, message) are the
    problems an import reports. Formats are annotations for both, as the draft says.
    ``tests/test_shape_validation.py`` holds the two to the same verdict.
    """

    def __init__(self, schema):
        self._verdict = jsonschema_rs.validator_for(schema, validate_formats=False)
        self._reporter = jsonschema.Draft202012Validator(schema)

    def iter_errors(self, data):
        """The errors of ``data`` as Python's jsonschema gives them (none when it is valid)."""
        try:
            if self._verdict.is_valid(data):
                return iter(())
        except (ValueError, TypeError, OverflowError):
            pass
        return self._reporter.iter_errors(data)


_REQUIRED = re.compile(r"^'(?P<name>[^']+)' is a required property$")


def check_shape(data, validator, problems):
    """Add the shape (JSON Schema) problems of ``data`` to ``problems``; return ``data``
    without the values they name, so the other checks can still look at every row.

    Raise :class:`FixtureError` when there is no festival to go on with.
    """
    found = list(problems)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors and isinstance(data, dict):
        data = copy.deepcopy(data)  # the caller's document stays as it was given
    for error in errors:
        where = list(error.absolute_path)
        match = _REQUIRED.match(error.message) if error.validator == "required" else None
        if match and any(p.startswith(f"{error.json_path}.{match['name']}") for p, _ in found):
            continue  # the cell that would have given it is already reported
        problems.append((error.json_path, error.message))
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            for name in [name for name in error.instance if name not in known]:
                _drop(data, where + [name])  # e.g. ``withdrawn`` on a row that cannot be withdrawn
        else:
            _drop(data, where)
    festival = data.get("festival") if isinstance(data, dict) else None
    if not isinstance(festival, dict) or not isinstance(festival.get("slug"), str) or not festival["slug"]:
        raise FixtureError(problems)
    return data


def _drop(data, where):
    """Leave out the value at ``where`` (a field of a row, a row, a section) that is not valid."""
    if not where or not isinstance(data, dict):
        return
    section = where[0]
    if len(where) == 1 and section not in SECTION_BY_KEY and section != "festival":
        data.pop(section, None)
        return
    if section == "festival":
        if len(where) > 1 and isinstance(data.get("festival"), dict):
            data["festival"].pop(where[1], None)
        return
    if section not in data:
        return
    if len(where) == 1:
        data[section] = []
        return
    rows, index = data[section], where[1]
    if not isinstance(rows, list) or not isinstance(index, int) or index >= len(rows):
        return
    if not isinstance(rows[index], dict):
        rows[index] = {}
    elif len(where) > 2:
        rows[index].pop(where[2], None)
