"""Natural keys: rows without ids, and references by what organisers call things.

A row may leave out ``id``; its id is then derived from the festival's slug and the row's
natural key (``NATURAL_KEYS``), so the same input gives the same ids on every import. A
reference may be given by its alias (``sub_fest_slug``, ``chest_no``, ...) instead of an
id. :func:`expand` turns such a document into one with ids only.
"""
import datetime
import uuid

from db.source import models as m

from .fixture_format import (
    INLINE_ALIASES,
    NATURAL_KEYS,
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


class KeyIndex:
    """Every known row's natural key and id: the file's rows, and in an update the database's."""

    def __init__(self):
        self._scoped = {}   # (model, scope id, key text) -> {ids}
        self._any = {}      # (model, key text) -> {ids}
        self.attrs = {}     # id -> {"sub_fest", "sub_fest_programme", "chest_no", "slug"}

    def add(self, model, row):
        """Index ``row`` (ids as strings) of ``model``."""
        row_id = str(row["id"])
        self.attrs[row_id] = {name: str(row[name]) for name in ("sub_fest", "sub_fest_programme", "chest_no", "slug")
                              if row.get(name) is not None}
        text = self.key_text(model, row)
        if text is None:
            return
        key = NATURAL_KEYS[model]
        scope = str(row[key.scope]) if key.scope and row.get(key.scope) is not None else None
        self._scoped.setdefault((model, scope, text), set()).add(row_id)
        self._any.setdefault((model, text), set()).add(row_id)

    def key_text(self, model, row):
        key = NATURAL_KEYS[model]
        value = row.get(key.column)
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


def _kind(model):
    return model._meta.table_name


class Expander:
    """Resolve one document's natural keys against ``index``; collect ``problems``."""

    def __init__(self, festival_slug, index, existing_ids=frozenset(), update=False):
        self.slug = festival_slug
        self.index = index
        self.existing_ids = existing_ids
        self.update = update
        self.problems = []
        self.deleted = set()

    def expand(self, data):
        out = {key: value for key, value in data.items() if key not in [s.key for s in SECTIONS]}
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
        if model is m.Result and not row.get("sub_fest_programme") and row.get("registration"):
            row["sub_fest_programme"] = self.index.attrs.get(row["registration"], {}).get("sub_fest_programme")
        for name, inline in section.inline.items():
            self._inline(row, name, inline, path, scope_sub_fest)
        withdrawn = row.pop("withdrawn", None)
        if withdrawn:
            field, value = WITHDRAWABLE[section.key]
            row[field] = value
        self._assign_id(section, row, path)
        if row.pop("deleted", False):
            self.deleted.add(row.get("id"))
        self._check_required(section, row, path)
        if row.get("id"):
            self.index.add(model, row)
        return row

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
            scope_field = NATURAL_KEYS[f.rel_model].scope
            self.problems.append((f"{path}.{alias}", f"give {scope_field} (or its key) to look {alias} up in"))
            return
        found = self._lookup(f.rel_model, scope, key, f"{path}.{alias}")
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
        found = [self._lookup(target, scope, key, f"{path}.{alias}[{j}]") for j, key in enumerate(row.pop(alias))]
        row[name] = row.get(name, []) + [f for f in found if f is not None]

    def _lookup(self, model, scope, key, path):
        """The one id of the ``model`` row whose natural key is ``key``; else a problem."""
        column = NATURAL_KEYS[model].column
        text = _schedule_time(key) if model is m.Schedule else _text(key)
        ids = self.index.find(model, scope, text)
        if len(ids) == 1:
            return ids[0]
        where = ""
        if scope is not None:
            scope_model = NATURAL_KEYS[model].scope
            label = self.index.attrs.get(scope, {}).get("slug") if scope_model == "sub_fest" else None
            where = f" in sub-fest {label!r}" if label else f" in that {scope_model}"
        if not ids:
            self.problems.append((path, f"no {_kind(model)} with {_column_label(model, column)} {key!r}{where}"))
        else:
            self.problems.append((path, f"{key!r} matches {len(ids)} {_kind(model)} rows (in different sub-fests):"
                                        f" give {SCOPE_ALIAS} or the id"))
        return None

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


def _column_label(model, column):
    return "chest_no" if model is m.Registration else column


def _canonical(value):
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return value  # the shape check reports it
