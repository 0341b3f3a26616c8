"""The festival fixture format: one festival per JSON file.

The file is ``{"formatVersion": 1, "festival": {...}, "<section>": [...], ...}``. Each
section holds the rows of one model with the model's own field names; foreign keys are
ids of rows in the same file. A few link tables are written inline as lists of ids
(``SECTIONS[...].inline``), e.g. ``news[].tags`` or ``registrations[].members``.
The JSON Schema is derived from the models, so the two cannot drift apart.
"""
from dataclasses import dataclass, field

from peewee import (
    BooleanField,
    CharField,
    DateField,
    DateTimeField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    JSONField,
    TextField,
    UUIDField,
)

from db import models as m
from db.enums import COLUMN_ENUMS

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Inline:
    """A link table written as a list on its parent row."""

    model: type
    parent_field: str
    value_field: str
    order_field: str | None = None


@dataclass(frozen=True)
class Section:
    key: str
    model: type
    inline: dict = field(default_factory=dict)
    # Columns the service computes; a fixture never sets them.
    computed: tuple = ()


SECTIONS = [
    Section("subFests", m.SubFest),
    Section("categories", m.Category),
    Section("teams", m.Team),
    Section("sections", m.Section),
    Section("venues", m.Venue),
    Section("judges", m.Judge),
    Section("programmeCollections", m.ProgrammeCollection),
    Section("positionCriteria", m.PositionCriteria),
    Section("gradeCriteria", m.GradeCriteria),
    Section("programmes", m.Programme),
    Section("subFestProgrammes", m.SubFestProgramme, inline={
        "judges": Inline(m.SubFestProgrammeJudge, "sub_fest_programme", "judge"),
        "collections": Inline(m.SubFestProgrammeCollection, "sub_fest_programme", "collection"),
    }),
    Section("schedules", m.Schedule),
    Section("candidates", m.Candidate),
    Section("subFestCandidates", m.SubFestCandidate, inline={
        "sections": Inline(m.SubFestCandidateSection, "sub_fest_candidate", "section"),
    }),
    Section("registrations", m.Registration, inline={
        "members": Inline(m.RegistrationMember, "registration", "sub_fest_candidate", "display_order"),
    }),
    Section("results", m.Result),
    Section("topperPlaceholders", m.TopperPlaceholder, computed=(
        "last_computed_at", "programmes_counted", "programmes_in_scope",
    )),
    Section("websitePages", m.WebsitePage, inline={
        "placeholders": Inline(m.WebsitePagePlaceholder, "page", "placeholder", "display_order"),
    }),
    Section("news", m.News, inline={"tags": Inline(m.NewsTag, "news", "tag")}),
    Section("downloads", m.Download),
    Section("galleryAlbums", m.GalleryAlbum),
    Section("galleryImages", m.GalleryImage),
]
SECTION_BY_MODEL = {s.model: s for s in SECTIONS}

UUID_PATTERN = "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"


def fixture_fields(model, section=None):
    """The fields a fixture row may carry: all but the implied festival and computed ones."""
    skip = set(section.computed if section else ())
    return [
        f for f in model._meta.sorted_fields
        if f.name not in skip and not (isinstance(f, ForeignKeyField) and f.rel_model is m.Festival)
    ]


def _field_schema(model, f):
    if isinstance(f, (UUIDField, ForeignKeyField)):
        schema = {"type": "string", "pattern": UUID_PATTERN}
    elif isinstance(f, BooleanField):
        schema = {"type": "boolean"}
    elif isinstance(f, IntegerField):
        schema = {"type": "integer"}
    elif isinstance(f, FloatField):
        schema = {"type": "number"}
    elif isinstance(f, DateTimeField):
        schema = {"type": "string", "format": "date-time"}
    elif isinstance(f, DateField):
        schema = {"type": "string", "format": "date"}
    elif isinstance(f, JSONField):
        schema = {"type": ["object", "array"]}
    elif isinstance(f, CharField):
        schema = {"type": "string", "maxLength": f.max_length}
    elif isinstance(f, TextField):
        schema = {"type": "string"}
    else:  # pragma: no cover - every model field type is listed above
        raise TypeError(f"no fixture schema for {f!r}")
    enum = COLUMN_ENUMS.get((model._meta.table_name, f.name))
    if enum:
        schema["enum"] = list(enum)
    if f.null:
        # "type": [..., "null"] rather than anyOf, so errors name the allowed values.
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema["type"] = types + ["null"]
        if "enum" in schema:
            schema["enum"] = schema["enum"] + [None]
    return schema


def _required(f):
    return not f.null and f.default is None and not f.primary_key


def _row_schema(model, section=None):
    fields = fixture_fields(model, section)
    props = {f.name: _field_schema(model, f) for f in fields}
    required = ["id"] + [f.name for f in fields if _required(f)]
    for name, inline in (section.inline if section else {}).items():
        value = inline.model._meta.fields[inline.value_field]
        props[name] = {"type": "array", "items": _field_schema(inline.model, value)}
    return {
        "type": "object",
        "properties": props,
        "required": sorted(set(required)),
        "additionalProperties": False,
    }


def json_schema():
    """The JSON Schema (draft 2020-12) of a festival fixture file."""
    props = {
        "formatVersion": {"const": FORMAT_VERSION},
        "festival": _row_schema(m.Festival),
    }
    for section in SECTIONS:
        props[section.key] = {"type": "array", "items": _row_schema(section.model, section)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://festival-data-service.invalid/fixture.schema.json",
        "title": "Festival fixture",
        "description": "One festival and all of its data. See docs/fixture-format.md.",
        "type": "object",
        "properties": props,
        "required": ["formatVersion", "festival"],
        "additionalProperties": False,
    }
