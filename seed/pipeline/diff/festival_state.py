"""A festival's rows in memory, by section and id: what the checks and the writers work on.

Built from an import file (every row) or from the database (an update's starting point,
which the file's rows then change).
"""
import datetime
import uuid
from dataclasses import dataclass, field

from peewee import DateField, DateTimeField, ForeignKeyField, UUIDField

from db.source import models as m

from seed.pipeline.read.fixture_format import SECTIONS, fixture_fields


@dataclass
class FestivalState:
    festival: dict
    rows: dict = field(default_factory=lambda: {s.key: {} for s in SECTIONS})
    # section key -> row id -> inline list name -> values
    links: dict = field(default_factory=lambda: {s.key: {} for s in SECTIONS})
    # row id -> JSON path of the file row that gave it
    paths: dict = field(default_factory=dict)
    # row id -> the fields the file row gave (the points rules fill in the others)
    given: dict = field(default_factory=dict)
    # ids whose own file row withdraws or deletes them (``withdrawn`` / ``deleted``)
    said_gone: set = field(default_factory=set)

    def path(self, section_key, row_id):
        return self.paths.get(row_id) or f"(stored {section_key} row {row_id})"


def _parse_datetime(value):
    parsed = datetime.datetime.fromisoformat(value)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return parsed


def convert_value(f, value):
    """A JSON value as the Python value of field ``f``; ValueError when it does not parse."""
    if value is None:
        return None
    if isinstance(f, DateTimeField):
        return _parse_datetime(value)
    if isinstance(f, DateField):
        return datetime.date.fromisoformat(value)
    if isinstance(f, (UUIDField, ForeignKeyField)):
        return uuid.UUID(value)
    return value


def convert_row(model, section, row, path, problems):
    """The model fields of a (natural-key expanded) file row, as Python values."""
    fields = {f.name: f for f in fixture_fields(model, section)}
    out = {}
    for name, value in row.items():
        if name not in fields:
            continue  # inline lists, handled by the caller
        try:
            out[name] = convert_value(fields[name], value)
        except ValueError as exc:
            problems.append((f"{path}.{name}", f"{value!r} is not valid: {exc}"))
    return out


def convert_links(section, row):
    links = {}
    for name, inline in section.inline.items():
        if name in row:
            value_field = inline.model._meta.fields[inline.value_field]
            values = row[name]
            if isinstance(value_field, ForeignKeyField):
                values = [uuid.UUID(v) for v in values]
            links[name] = list(values)
    return links


def state_from_document(doc, problems, seen_ids=None):
    """Convert every row of an expanded document; ids used twice are problems."""
    festival = convert_row(m.Festival, None, doc["festival"], "$.festival", problems)
    state = FestivalState(festival=festival)
    seen = {} if seen_ids is None else seen_ids
    for section in SECTIONS:
        for i, raw in enumerate(doc.get(section.key, [])):
            path = f"$.{section.key}[{i}]"
            row = convert_row(section.model, section, raw, path, problems)
            row_id = row.get("id")
            if row_id is None:
                continue
            if row_id in seen:
                problems.append((f"{path}.id", f"id {row_id} is used twice in this file (also {seen[row_id]})"))
                continue
            seen[row_id] = path
            state.rows[section.key][row_id] = row
            state.links[section.key][row_id] = convert_links(section, raw)
            state.paths[row_id] = path
            state.given[row_id] = set(raw)
    return state


# How each model reaches its festival.
OWNER_PATHS = {
    m.Category: [m.SubFest], m.Team: [m.SubFest], m.Section: [m.SubFest],
    m.SubFestProgramme: [m.SubFest], m.SubFestCandidate: [m.SubFest],
    m.TopperPlaceholder: [m.SubFest],
    m.Schedule: [m.SubFestProgramme, m.SubFest],
    m.Registration: [m.SubFestProgramme, m.SubFest],
    m.Result: [m.SubFestProgramme, m.SubFest],
    m.GalleryImage: [m.GalleryAlbum],
}


def owned_by(query, model, festival_id=None):
    """``query`` of ``model`` joined up to the festival; restricted to ``festival_id`` if given."""
    src = model
    for step in OWNER_PATHS.get(model, []):
        query = query.join_from(src, step)
        src = step
    if festival_id is not None:
        query = query.where(festival_column(model) == festival_id)
    return query


def festival_column(model):
    path = OWNER_PATHS.get(model, [])
    return (path[-1] if path else model).festival


class _Converters:
    """Stored values as Python values, faster than row by row through Peewee: an update
    reads the whole festival (60,000 rows at scale 20), and most of the time went into
    making the same ids into ``uuid.UUID`` again and again."""

    def __init__(self):
        self.ids = {}

    def uuid(self, value):
        if value is None:
            return None
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = value if isinstance(value, uuid.UUID) else uuid.UUID(value)
        return found

    def of(self, f):
        if isinstance(f, (UUIDField, ForeignKeyField)):
            return self.uuid
        if isinstance(f, DateTimeField):
            return _stored_datetime(f)
        return f.python_value


def _stored_datetime(f):
    def convert(value):
        if isinstance(value, str):
            try:
                return datetime.datetime.fromisoformat(value)
            except ValueError:
                pass
        return f.python_value(value)
    return convert


def _tuples(query, fields, converters):
    convert = [converters.of(f) for f in fields]
    cursor = query.model._meta.database.execute(query)
    return ([c(v) for c, v in zip(convert, row)] for row in cursor)


def state_from_database(festival):
    """Every stored row of ``festival``, as Python values."""
    state = FestivalState(festival=m.Festival.select().where(m.Festival.id == festival.id).dicts().get())
    converters = _Converters()
    for section in SECTIONS:
        model = section.model
        fields = fixture_fields(model, section)
        names = [f.name for f in fields]
        query = owned_by(model.select(*fields), model, festival.id)
        rows = state.rows[section.key]
        section_links = state.links[section.key]
        for values in _tuples(query, fields, converters):
            row = dict(zip(names, values))
            rows[row["id"]] = row
            section_links[row["id"]] = {}
        for name, inline in section.inline.items():
            link = inline.model
            parent = link._meta.fields[inline.parent_field]
            value = link._meta.fields[inline.value_field]
            order = [link._meta.fields[inline.order_field]] if inline.order_field else [link.id]
            links = owned_by(link.select(parent, value).join_from(link, model), model, festival.id)
            for parent_id, item in _tuples(links.order_by(*order), [parent, value], converters):
                section_links[parent_id].setdefault(name, []).append(item)
    return state
