"""Natural keys: rows without ids, and references by what organisers call things.

A row may leave out ``id``; its id is then derived from the festival's slug and the row's
natural key (``NATURAL_KEYS``), so the same input gives the same ids on every import. A
reference may be given by its alias (``sub_fest_slug``, ``chest_no``, ...) instead of an
id. :func:`expand` turns such a document into one with ids only.
"""
import datetime
import difflib
import uuid

from db.source import models as m

from seed.pipeline.read.fixture_format import (
    INLINE_ALIASES,
    NATURAL_KEYS,
    PROGRAMME_NAME_ALIAS,
    RESULT_TEAM_ALIAS,
    SCOPE_ALIAS,
    SECTIONS,
    WITHDRAWABLE,
    references,
    required_fields,
)

NAMESPACE = uuid.UUID("6f1d2b4e-8c3a-4e5f-9a7b-0c1d2e3f4a5b")
_SCOPE_PROVIDERS = ("sub_fest", "sub_fest_programme", "album")


def derive_id(festival_slug, kind, *parts):
    """The id of a row known by ``parts`` (its scope's id and its key) in a festival."""
    return str(uuid.uuid5(NAMESPACE, "/".join((festival_slug, kind, *map(str, parts)))))


def festival_id(festival_slug, existing_id=None):
    return existing_id or derive_id(festival_slug, "festival")


def _text(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value.isoformat()
    return str(value)


def _schedule_time(value):
    try:
        return _text(datetime.datetime.fromisoformat(value)) if isinstance(value, str) else _text(value)
    except ValueError:
        return value


def _name_key(name):
    """A programme's name as ``programme_name`` matches it: any letter case, any spacing."""
    return " ".join(str(name).split()).casefold()


class KeyIndex:
    """Every known row's natural key and id: the file's rows, and in an update the database's."""

    def __init__(self):
        self._scoped = {}   # (model, scope id, key text) -> {ids}
        self._any = {}      # (model, key text) -> {ids}
        self._keys = {}     # (model, scope id) -> {key texts}: what is near a key not found
        self.programme_codes = {}  # programme name -> code
        self.attrs = {}     # id -> {"sub_fest", "sub_fest_programme", "chest_no", "slug", "code", "name"}

    def add(self, model, row):
        """Index ``row`` (ids as strings) of ``model``."""
        row_id = str(row["id"])
        self.attrs[row_id] = {name: str(row[name]) for name in INDEXED_ATTRS if row.get(name) is not None}
        text = self.key_text(model, row)
        if text is None:
            return
        key = NATURAL_KEYS[model]
        scope = str(row[key.scope]) if key.scope and row.get(key.scope) is not None else None
        self._scoped.setdefault((model, scope, text), set()).add(row_id)
        self._any.setdefault((model, text), set()).add(row_id)
        self._keys.setdefault((model, scope), set()).add(text)
        if model is m.Programme and row.get("name"):
            self.programme_codes[row["name"]] = text

    def key_text(self, model, row):
        key = NATURAL_KEYS[model]
        value = row.get(key.column)
        if model is m.Registration and value is None and row.get("team") is not None:
            return team_key(self.label(row["team"], "name"))  # a team's own entry, without a candidate
        if value is None:
            return None
        if model is m.Registration:  # known by its candidate's chest number
            return self.attrs.get(str(value), {}).get("chest_no")
        if model is m.Schedule:
            return _schedule_time(value)
        return _text(value)

    def find(self, model, scope, text):
        if scope is None:
            return sorted(self._any.get((model, text), ()))
        return sorted(self._scoped.get((model, scope, text), ()))

    def keys_in(self, model, scope):
        """Every key text of ``model`` rows in ``scope``."""
        return self._keys.get((model, scope), set())

    def label(self, row_id, name):
        return self.attrs.get(str(row_id), {}).get(name)


INDEXED_ATTRS = ("sub_fest", "sub_fest_programme", "sub_fest_candidate", "chest_no", "slug", "code", "name")


def team_key(team_name):
    """The key text of a team's own entry in a programme (no candidate): its team's name."""
    return None if team_name is None else f"team {team_name}"


def _kind(model):
    return model._meta.table_name


class Expander:
    """Resolve one document's natural keys against ``index``; collect ``problems``."""

    def __init__(self, festival_slug, index, existing_ids=frozenset(), update=False, problems=None):
        self.slug = festival_slug
        self.index = index
        self.existing_ids = existing_ids
        self.update = update
        self.problems = [] if problems is None else problems
        self._seen = {}  # id -> the path of the file row that has it
        self.deleted = set()
        # ids of the rows the file itself withdraws (``withdrawn: true``)
        self.withdrawn = set()

    def expand(self, data):
        out = {key: value for key, value in data.items() if key not in [s.key for s in SECTIONS]}
        data = self._masters_by_name(data)
        for section in SECTIONS:
            if section.key not in data:
                continue
            rows = []
            for i, row in enumerate(data[section.key]):
                rows.append(self._row(section, row, f"$.{section.key}[{i}]"))
            for i, row in enumerate(rows):
                self._self_references(section, row, f"$.{section.key}[{i}]")
            out[section.key] = rows
        return out

    # --- one row ---------------------------------------------------------------------------

    def _row(self, section, raw, path):
        model = section.model
        row = dict(raw)
        if row.get("id"):
            row["id"] = _canonical(row["id"])
        scope_sub_fest = None
        if SCOPE_ALIAS in row and "sub_fest" not in model._meta.fields:
            scope_sub_fest = self._lookup(m.SubFest, None, row.pop(SCOPE_ALIAS), f"{path}.{SCOPE_ALIAS}")
        refs = sorted(references(model, section), key=lambda ref: ref[0].name not in _SCOPE_PROVIDERS)
        for f, alias in refs:
            if f.rel_model is not model:
                self._reference(row, f, alias, path, scope_sub_fest)
        if model is m.Result and RESULT_TEAM_ALIAS in row:
            self._team_entry(row, path, scope_sub_fest)
        if model is m.Result and not row.get("sub_fest_programme") and row.get("registration"):
            row["sub_fest_programme"] = self.index.attrs.get(row["registration"], {}).get("sub_fest_programme")
        for name, inline in section.inline.items():
            self._inline(row, name, inline, path, scope_sub_fest)
        withdrawn = row.pop("withdrawn", None)
        if withdrawn:
            field, value = WITHDRAWABLE[section.key]
            row[field] = value
        self._assign_id(section, row, path)
        if withdrawn:
            self.withdrawn.add(row.get("id"))
        if row.pop("deleted", False):
            self.deleted.add(row.get("id"))
        self._check_required(section, row, path)
        self._once(section, raw, row, path)
        if row.get("id"):
            self.index.add(model, row)
        return row

    def _masters_by_name(self, data):
        """Programmes known by name only. A programme row without ``code`` takes its name as its
        code; a sub-fest programme row may name its master programme by ``programme_name``, and a
        name no programme has makes a master programme of that name (for festivals whose only
        codes are the per-category ones)."""
        programmes = [dict(row) if isinstance(row, dict) else row for row in data.get("programmes", [])]
        # name (in any letter case and spacing) -> code; the stored festival's first
        codes = {_name_key(name): code for name, code in self.index.programme_codes.items()}
        for i, row in enumerate(programmes):
            if isinstance(row, dict) and not row.get("code") and not row.get("id") and row.get("name"):
                row["code"] = self._name_as_code(row["name"], f"$.programmes[{i}].name")
            if isinstance(row, dict) and row.get("code") and isinstance(row.get("name"), str):
                codes[_name_key(row["name"])] = row["code"]
        sub_fest_programmes = []
        for i, row in enumerate(data.get("subFestProgrammes", [])):
            if isinstance(row, dict) and PROGRAMME_NAME_ALIAS in row:
                row = dict(row)
                name = row.pop(PROGRAMME_NAME_ALIAS)
                path = f"$.subFestProgrammes[{i}].{PROGRAMME_NAME_ALIAS}"
                if row.get("programme_code") or row.get("programme"):
                    self.problems.append((path, "give programme_code or programme_name, not both"))
                elif _name_key(name) not in codes:
                    name = " ".join(str(name).split())
                    codes[_name_key(name)] = self._name_as_code(name, path)
                    programmes.append({"code": codes[_name_key(name)], "name": name})
                row["programme_code"] = row.get("programme_code") or codes.get(_name_key(name))
            sub_fest_programmes.append(row)
        if "programmes" in data or len(programmes):
            data = {**data, "programmes": programmes}
        if "subFestProgrammes" in data:
            data = {**data, "subFestProgrammes": sub_fest_programmes}
        return data

    def _name_as_code(self, name, path):
        limit = m.Programme.code.max_length
        if len(name) > limit:
            self.problems.append((path, f"a programme's name is its code when no code is given, and a code has at "
                                        f"most {limit} characters: give a code"))
        return name[:limit]

    def _team_entry(self, row, path, scope_sub_fest):
        """A result given by ``team_name`` instead of ``chest_no``: the team's own entry."""
        name = row.pop(RESULT_TEAM_ALIAS)
        if row.get("registration"):
            self.problems.append((f"{path}.{RESULT_TEAM_ALIAS}", "give chest_no or team_name, not both"))
            return
        programme = row.get("sub_fest_programme")
        if programme is None:
            if not self._has_problem_under(path):
                self.problems.append((f"{path}.{RESULT_TEAM_ALIAS}", "give sub_fest_programme_code to look the "
                                                                     "team's entry up in"))
            return
        team = self._lookup(m.Team, self._row_sub_fest(row, scope_sub_fest), name, f"{path}.{RESULT_TEAM_ALIAS}")
        if team is None:
            return
        ids = self.index.find(m.Registration, programme, team_key(self.index.label(team, "name")))
        if len(ids) == 1:
            row["registration"] = ids[0]
            return
        code = self.index.label(programme, "code")
        self.problems.append((f"{path}.{RESULT_TEAM_ALIAS}",
                              f"no registration of team {name!r} without a candidate in programme {code!r}: "
                              "add its row to registrations.csv (team_name, no chest_no)"))

    def _once(self, section, raw, row, path):
        """A row's id (given or derived from its natural key) is used by no other row of the file."""
        row_id = row.get("id")
        if not row_id:
            return
        other = self._seen.setdefault(row_id, path)
        if other == path:
            return
        del row["id"]  # the first row keeps the id; this one is not imported
        if raw.get("id"):
            self.problems.append((f"{path}.id", f"id {row_id} is used twice in this file (also {other})"))
            return
        column = NATURAL_KEYS[section.model].column
        alias = {f.name: a for f, a in references(section.model, section)}.get(column)
        given = next((c for c in (alias, column, RESULT_TEAM_ALIAS) if c and c in raw), None)
        where = self._scope_words(section.model, row)
        what = f"{given} {raw[given]!r}" if given else "this row"
        self.problems.append((f"{path}.{given}" if given else path,
                              f"{what}{where} is given twice (also {other}): keep one of the two rows"))

    def _scope_words(self, model, row):
        """`` in programme 'UP-LM'`` or `` in sub-fest 'general'``: where a row's key is unique."""
        scope = NATURAL_KEYS[model].scope
        if model is m.Result:
            scope = "sub_fest_programme"
        value = row.get(scope) if scope else None
        if value is None:
            return ""
        if scope == "sub_fest":
            return f" in sub-fest {self.index.label(value, 'slug')!r}"
        if scope == "sub_fest_programme":
            return f" in programme {self.index.label(value, 'code')!r}"
        return ""

    def _self_references(self, section, row, path):
        for f, alias in references(section.model, section):
            if f.rel_model is section.model:
                self._reference(row, f, alias, path, None)

    def _row_sub_fest(self, row, scope_sub_fest):
        if row.get("sub_fest"):
            return row["sub_fest"]
        if scope_sub_fest:
            return scope_sub_fest
        # A stored row changed by id keeps its sub-fest.
        for name in ("sub_fest_programme", "sub_fest_candidate", "id"):
            if row.get(name):
                found = self.index.attrs.get(row[name], {}).get("sub_fest")
                if found:
                    return found
        return None

    def _scope_of(self, target, row, scope_sub_fest):
        scope = NATURAL_KEYS[target].scope
        if scope == "sub_fest":
            return self._row_sub_fest(row, scope_sub_fest)
        return row.get(scope) if scope else None

    def _reference(self, row, f, alias, path, scope_sub_fest):
        given = row.get(f.name)
        if given is not None:
            row[f.name] = _canonical(given)
        if not alias or alias not in row:
            return
        key = row.pop(alias)
        scope = self._scope_of(f.rel_model, row, scope_sub_fest)
        if NATURAL_KEYS[f.rel_model].scope not in (None, "sub_fest") and scope is None:
            if self._has_problem_under(path):
                return  # e.g. the programme to look a chest number up in is itself unknown
            scope_field = NATURAL_KEYS[f.rel_model].scope
            self.problems.append((f"{path}.{alias}", f"give {scope_field} (or its key) to look {alias} up in"))
            return
        found = self._lookup(f.rel_model, scope, key, f"{path}.{alias}", self._entry_of(row))
        if found is None:
            return
        if given is not None and row[f.name] != found:
            self.problems.append((f"{path}.{alias}", f"{alias} {key!r} and {f.name} name different rows"))
            return
        row[f.name] = found

    def _inline(self, row, name, inline, path, scope_sub_fest):
        alias = INLINE_ALIASES.get(name)
        if name in row:
            row[name] = [_canonical(v) for v in row[name]] if alias else row[name]
        if not alias or alias not in row:
            return
        target = inline.model._meta.fields[inline.value_field].rel_model
        scope = self._scope_of(target, row, scope_sub_fest)
        found = [self._lookup(target, scope, key, f"{path}.{alias}[{j}]", self._entry_of(row))
                 for j, key in enumerate(row.pop(alias))]
        row[name] = row.get(name, []) + [f for f in found if f is not None]

    def _entry_of(self, row):
        """`` (an entry of 'UP-LM')``: the programme a row's chest numbers are entered in."""
        code = self.index.label(row.get("sub_fest_programme"), "code") if row.get("sub_fest_programme") else None
        return f" (an entry of {code!r})" if code else ""

    def _lookup(self, model, scope, key, path, entry=""):
        """The one id of the ``model`` row whose natural key is ``key``; else a problem.

        ``entry`` names the programme a chest number is looked up for."""
        column = NATURAL_KEYS[model].column
        text = _schedule_time(key) if model is m.Schedule else _text(key)
        ids = self.index.find(model, scope, text)
        if len(ids) == 1:
            return ids[0]
        if ids:
            self.problems.append((path, f"{key!r} matches {len(ids)} {_kind(model)} rows (in different sub-fests):"
                                        f" give {SCOPE_ALIAS} or the id"))
        elif model is m.Registration:
            self.problems.append((path, self._no_registration(scope, text)))
        else:
            where = self._where(model, scope)
            entry = entry if model is m.SubFestCandidate else ""
            self.problems.append((path, f"no {_kind(model)} with {_column_label(model, column)} {key!r}{where}"
                                        f"{entry}{self._nearby(model, scope, text)}"))
        return None

    def _where(self, model, scope):
        if scope is None:
            return ""
        scope_model = NATURAL_KEYS[model].scope
        label = self.index.label(scope, "slug") if scope_model == "sub_fest" else None
        return f" in sub-fest {label!r}" if label else f" in that {scope_model}"

    def _nearby(self, model, scope, text):
        """What exists near a key not found: the same key in another sub-fest, close keys."""
        if scope is not None and NATURAL_KEYS[model].scope == "sub_fest":
            elsewhere = sorted({self.index.label(self.index.label(i, "sub_fest"), "slug") or "?"
                                for i in self.index.find(model, None, text)})
            if elsewhere:
                return f"; it is in sub-fest {' and '.join(repr(slug) for slug in elsewhere)}"
        return _close(text, self.index.keys_in(model, scope))

    def _no_registration(self, programme, chest_no):
        """A result's chest number that has no entry in its programme: say what does exist."""
        code = self.index.label(programme, "code")
        sub_fest = self.index.label(programme, "sub_fest")
        slug = self.index.label(sub_fest, "slug")
        message = f"no registration of chest_no {chest_no!r} in programme {code!r}"
        if self.index.find(m.SubFestCandidate, sub_fest, chest_no):
            return (f"{message}: chest_no {chest_no!r} is a candidate of sub-fest {slug!r} but is not registered "
                    f"for {code!r}{_close(chest_no, self.index.keys_in(m.Registration, programme))}")
        elsewhere = sorted({self.index.label(self.index.label(i, "sub_fest"), "slug") or "?"
                            for i in self.index.find(m.SubFestCandidate, None, chest_no)})
        if elsewhere:
            return (f"{message}: chest_no {chest_no!r} is in sub-fest {' and '.join(map(repr, elsewhere))}, "
                    f"not {slug!r}")
        return (f"{message}: no candidate has chest_no {chest_no!r} in sub-fest {slug!r}"
                f"{_close(chest_no, self.index.keys_in(m.Registration, programme))}")

    def _assign_id(self, section, row, path):
        model = section.model
        if row.get("id"):
            row["id"] = _canonical(row["id"])
            return
        text = self.index.key_text(model, row)
        if text is None:
            column = NATURAL_KEYS[model].column
            if not self._has_problem_under(path):
                self.problems.append((path, f"give an id or {_column_label(model, column)}, the row's natural key"))
            return
        key = NATURAL_KEYS[model]
        scope = str(row[key.scope]) if key.scope and row.get(key.scope) else None
        if self.update:
            known = [i for i in self.index.find(model, scope, text) if i in self.existing_ids]
            if len(known) == 1:
                row["id"] = known[0]
                return
        row["id"] = derive_id(self.slug, section.key, scope or "", text)

    def _has_problem_under(self, path):
        return any(p == path or p.startswith(path + ".") for p, _ in self.problems)

    def _check_required(self, section, row, path):
        if self.update and (row.get("id") in self.existing_ids or row.get("id") in self.deleted):
            return  # a change to an existing row gives only what changes
        aliases = {f.name: alias for f, alias in references(section.model, section)}
        for f in required_fields(section.model, section):
            if not self.update and f.name not in aliases:
                continue  # the shape check (JSON Schema) reports these
            if row.get(f.name) is None and not self._has_problem_under(path):
                either = f" (or {aliases[f.name]!r})" if aliases.get(f.name) else ""
                self.problems.append((path, f"{f.name!r}{either} is required"))


def _close(text, known):
    """`` (did you mean 'UP-LM'?)`` from the keys ``known`` close to ``text``."""
    known = sorted(k for k in known if not k.startswith("team "))
    # Swapped characters first (1070 for 1007): the commonest slip with numbers.
    swapped = [k for k in known if k != text and sorted(k) == sorted(text)]
    close = (swapped + [k for k in difflib.get_close_matches(text, known, n=3, cutoff=0.7) if k not in swapped])[:3]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def _column_label(model, column):
    return "chest_no" if model is m.Registration else column


def _canonical(value):
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return value  # the shape check reports it
