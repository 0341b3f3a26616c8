"""Validate a festival fixture completely, then replace that festival's data in one transaction."""
import datetime
import json
import uuid
from dataclasses import dataclass

import jsonschema
from peewee import DateField, DateTimeField, ForeignKeyField, UUIDField

from db import models as m
from db.database import database
from db.compiler import publish

from .fixture_format import SECTIONS, fixture_fields, json_schema


class FixtureError(Exception):
    """The fixture is invalid; ``problems`` is a list of ``(json_path, message)``."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("\n".join(f"{path}: {msg}" for path, msg in problems))


@dataclass
class ImportSummary:
    festival: m.Festival
    rows: int
    revision: int


_validator = jsonschema.Draft202012Validator(json_schema())


def _parse_datetime(value):
    parsed = datetime.datetime.fromisoformat(value)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return parsed


def _convert(f, value):
    if value is None:
        return None
    if isinstance(f, DateTimeField):
        return _parse_datetime(value)
    if isinstance(f, DateField):
        return datetime.date.fromisoformat(value)
    if isinstance(f, (UUIDField, ForeignKeyField)):
        return uuid.UUID(value)
    return value


def _schema_problems(data):
    problems = []
    for error in sorted(_validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        problems.append((error.json_path, error.message))
    return problems


def _rows(data):
    """Yield ``(section, index, row, json_path)`` for every row, festival first."""
    yield None, None, data["festival"], "$.festival"
    for section in SECTIONS:
        for i, row in enumerate(data.get(section.key, [])):
            yield section, i, row, f"$.{section.key}[{i}]"


def _convert_rows(data, problems):
    """Turn JSON values into Python values; collect ids per model."""
    converted = {}
    ids = {}
    for section, _, row, path in _rows(data):
        model = section.model if section else m.Festival
        fields = {f.name: f for f in fixture_fields(model, section)}
        out = {}
        for name, value in row.items():
            if name not in fields:
                continue  # inline lists, handled below
            try:
                out[name] = _convert(fields[name], value)
            except ValueError as exc:
                problems.append((f"{path}.{name}", f"{value!r} is not valid: {exc}"))
        row_id = out.get("id")
        if row_id is not None:
            if row_id in ids:
                problems.append((f"{path}.id", f"id {row_id} is used twice in this file"))
            ids[row_id] = model
        converted[path] = out
    return converted, ids


def _check_references(data, converted, ids, problems):
    for section, _, row, path in _rows(data):
        model = section.model if section else m.Festival
        for f in fixture_fields(model, section):
            if isinstance(f, ForeignKeyField) and row.get(f.name) is not None:
                target = converted[path].get(f.name)
                if target is not None and ids.get(target) is not f.rel_model:
                    problems.append((f"{path}.{f.name}",
                                     f"no {f.rel_model._meta.table_name} with id {row[f.name]} in this file"))
        for name, inline in (section.inline if section else {}).items():
            value_field = inline.model._meta.fields[inline.value_field]
            if not isinstance(value_field, ForeignKeyField):
                continue
            for j, value in enumerate(row.get(name, [])):
                if ids.get(uuid.UUID(value)) is not value_field.rel_model:
                    problems.append((f"{path}.{name}[{j}]",
                                     f"no {value_field.rel_model._meta.table_name} with id {value} in this file"))


def _unique_keys(model):
    """Column sets the database keeps unique within one festival (the implied festival dropped)."""
    keys = [(f.name,) for f in model._meta.sorted_fields if f.unique and not f.primary_key]
    keys += [tuple(names) for names, unique in model._meta.indexes if unique]
    return [tuple(name for name in key if name != "festival") for key in keys]


def _check_unique(data, converted, problems):
    """E.g. a sub-fest slug, a chest number within a sub-fest, one result per registration."""
    seen = {}
    for section, _, _, path in _rows(data):
        if section is None:
            continue
        for key in _unique_keys(section.model):
            value = tuple(converted[path].get(name) for name in key)
            if None in value:
                continue
            first = seen.setdefault((section.key, key, value), path)
            if first != path:
                problems.append((f"{path}.{key[-1]}", f"{' + '.join(key)} must be unique: already used by {first}"))


def _check_foreign_ids(festival_id, ids, problems):
    """Ids must not belong to another festival already in the database."""
    by_model = {}
    for row_id, model in ids.items():
        by_model.setdefault(model, []).append(row_id)
    for model, model_ids in by_model.items():
        if model is m.Festival:
            continue
        owner = _owner_query(model)
        for batch_start in range(0, len(model_ids), 500):
            batch = model_ids[batch_start:batch_start + 500]
            clash = owner.where(model.id.in_(batch), _festival_expr(model) != festival_id).first()
            if clash:
                problems.append(("$", f"{model._meta.table_name} id {clash.id} belongs to another festival"))


# How each model reaches its festival, for the clash check above.
_PATHS = {
    m.Category: [m.SubFest], m.Team: [m.SubFest], m.Section: [m.SubFest],
    m.SubFestProgramme: [m.SubFest], m.SubFestCandidate: [m.SubFest],
    m.TopperPlaceholder: [m.SubFest],
    m.Schedule: [m.SubFestProgramme, m.SubFest],
    m.Registration: [m.SubFestProgramme, m.SubFest],
    m.Result: [m.SubFestProgramme, m.SubFest],
    m.GalleryImage: [m.GalleryAlbum],
}


def _owner_query(model):
    query = model.select(model.id)
    src = model
    for step in _PATHS.get(model, []):
        query = query.join_from(src, step)
        src = step
    return query


def _festival_expr(model):
    path = _PATHS.get(model, [])
    return (path[-1] if path else model).festival


def validate(data):
    """Return ``(converted rows, ids)`` or raise :class:`FixtureError` naming every bad value."""
    problems = _schema_problems(data)
    if problems:
        raise FixtureError(problems)
    converted, ids = _convert_rows(data, problems)
    _check_references(data, converted, ids, problems)
    _check_unique(data, converted, problems)
    if problems:
        raise FixtureError(problems)
    festival = converted["$.festival"]
    existing = m.Festival.get_or_none(m.Festival.slug == festival["slug"])
    if existing and existing.id != festival["id"]:
        problems.append(("$.festival.slug", f"slug {festival['slug']!r} belongs to another festival"))
    _check_foreign_ids(festival["id"], ids, problems)
    if problems:
        raise FixtureError(problems)
    return converted


def load_file(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise FixtureError([("$", f"not valid JSON: {exc}")]) from exc


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


def _insert(model, rows, chunk=200):
    # Rows may leave optional fields out. Name every column any row sets: left to itself,
    # Peewee takes the columns from the first row and silently drops the others' values.
    columns = [f for f in model._meta.sorted_fields if any(f.name in row for row in rows)]
    for start in range(0, len(rows), chunk):
        model.insert_many(rows[start:start + chunk], fields=columns).execute()


def apply(data, converted, progress=None, recompute=True):
    """Replace the festival's data with the fixture's, in one transaction."""
    festival_row = converted["$.festival"]
    total = 0
    with database.atomic():
        festival_id = festival_row["id"]
        exists = m.Festival.select().where(m.Festival.id == festival_id).exists()
        if exists:
            _delete_festival_data(festival_id)
            festival_row = {**festival_row, "updated_at": m.utcnow()}
            m.Festival.update(**festival_row).where(m.Festival.id == festival_id).execute()
        else:
            m.Festival.insert(**festival_row).execute()
        for section in SECTIONS:
            raw_rows = data.get(section.key, [])
            rows = []
            links = {name: [] for name in section.inline}
            for i, raw in enumerate(raw_rows):
                row = dict(converted[f"$.{section.key}[{i}]"])
                if "festival" in section.model._meta.fields:
                    row["festival"] = festival_id
                rows.append(row)
                for name, inline in section.inline.items():
                    for order, value in enumerate(raw.get(name, [])):
                        # Derived ids keep link rows stable across re-imports too.
                        link = {"id": uuid.uuid5(row["id"], f"{name}/{order}/{value}"),
                                inline.parent_field: row["id"], inline.value_field: value}
                        if inline.order_field:
                            link[inline.order_field] = order
                        links[name].append(link)
            _insert(section.model, rows)
            total += len(rows)
            for name, inline in section.inline.items():
                _insert(inline.model, links[name])
                total += len(links[name])
            if progress:
                progress(section.key, len(rows))
        festival = m.Festival.get_by_id(festival_id)
        revision, _ = publish(festival, recompute=recompute)
    return ImportSummary(festival=festival, rows=total, revision=revision)


def import_fixture(data, progress=None):
    """Validate ``data`` fully, then apply it. Nothing is written when it is invalid."""
    converted = validate(data)
    return apply(data, converted, progress=progress)


def import_file(path, progress=None):
    return import_fixture(load_file(path), progress=progress)
