"""The festival fixture format: one festival per JSON file.

The file is ``{"formatVersion": 1, "festival": {...}, "<section>": [...], ...}``. Each
section holds the rows of one model with the model's own field names; foreign keys are
ids of rows in the same file. A few link tables are written inline as lists of ids
(``SECTIONS[...].inline``), e.g. ``news[].tags`` or ``registrations[].members``.
Instead of ids, rows may use natural keys (``NATURAL_KEYS``): a reference field has an
alias that names the target by its key (``sub_fest_slug``, ``chest_no``, ...).
The JSON Schema is derived from the models, so the two cannot drift apart.
"""
from dataclasses import dataclass, field

from peewee import (BooleanField, CharField, DateField, DateTimeField, FloatField, ForeignKeyField, IntegerField,
                    JSONField, TextField, UUIDField)

from db.source import models as m
from schemas.enums import COLUMN_ENUMS, TOPPER_COUNTS, TOPPER_POINTS_FROM, TOPPER_RANK_STYLES

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
    Section("sections", m.Section, inline={"teams": Inline(m.SectionTeam, "section", "team")}),
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
SECTION_BY_KEY = {s.key: s for s in SECTIONS}


@dataclass(frozen=True)
class NaturalKey:
    """What organisers call a row: ``column``, unique within the row's ``scope`` reference."""

    column: str
    scope: str | None = None


NATURAL_KEYS = {
    m.Festival: NaturalKey("slug"),
    m.SubFest: NaturalKey("slug"),
    m.Category: NaturalKey("name", "sub_fest"),
    m.Team: NaturalKey("name", "sub_fest"),
    m.Section: NaturalKey("key", "sub_fest"),
    m.Venue: NaturalKey("name"),
    m.Judge: NaturalKey("name"),
    m.ProgrammeCollection: NaturalKey("key"),
    m.PositionCriteria: NaturalKey("name"),
    m.GradeCriteria: NaturalKey("name"),
    m.Programme: NaturalKey("code"),
    m.SubFestProgramme: NaturalKey("code", "sub_fest"),
    m.Schedule: NaturalKey("scheduled_at", "sub_fest_programme"),
    m.Candidate: NaturalKey("admission_number"),
    m.SubFestCandidate: NaturalKey("chest_no", "sub_fest"),
    # A registration is known by its candidate's chest number within its programme.
    m.Registration: NaturalKey("sub_fest_candidate", "sub_fest_programme"),
    m.Result: NaturalKey("registration"),
    m.TopperPlaceholder: NaturalKey("label", "sub_fest"),
    m.WebsitePage: NaturalKey("slug"),
    m.News: NaturalKey("title"),
    m.Download: NaturalKey("title"),
    m.GalleryAlbum: NaturalKey("title"),
    m.GalleryImage: NaturalKey("image_url", "album"),
}

# Aliases whose default name ("<field>_<key column>") would be clumsy.
_REFERENCE_ALIASES = {
    (m.Registration, "sub_fest_candidate"): "chest_no",
    (m.Result, "registration"): "chest_no",
    (m.SubFestCandidate, "candidate"): "candidate_admission_number",
}
INLINE_ALIASES = {
    "judges": "judge_names", "collections": "collection_keys", "sections": "section_keys",
    "members": "member_chest_nos", "placeholders": "placeholder_labels", "teams": "team_names",
}
# Rows without a sub_fest column may name the sub-fest their references are looked up in.
SCOPE_ALIAS = "sub_fest_slug"
SCOPED_SECTIONS = ("schedules", "registrations", "results", "websitePages", "galleryImages")
# A team's own entry (no candidate) is named by its team in a result row.
RESULT_TEAM_ALIAS = "team_name"
# A sub-fest programme may name its master programme by name (made from it if none has it).
PROGRAMME_NAME_ALIAS = "programme_name"
# Key columns a row may leave out, and what stands in for them.
OPTIONAL_KEYS = {"programmes": ("code",)}  # the name is the code
# Explicit removal in a row: a withdrawn entry stays but is hidden; deleted content goes.
WITHDRAWABLE = {"registrations": ("is_active", False), "results": ("is_published", False)}
DELETABLE = ("news", "downloads", "galleryAlbums", "galleryImages")


def reference_alias(model, f):
    """The natural-key alias of reference field ``f`` of ``model``, e.g. ``sub_fest_slug``."""
    return _REFERENCE_ALIASES.get((model, f.name)) or f"{f.name}_{NATURAL_KEYS[f.rel_model].column}"


def references(model, section=None):
    """``(field, alias)`` for every reference a fixture row of ``model`` may carry."""
    return [(f, reference_alias(model, f)) for f in fixture_fields(model, section)
            if isinstance(f, ForeignKeyField)]

UUID_PATTERN = "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"


def fixture_fields(model, section=None):
    """The fields a fixture row may carry: all but the implied festival and computed ones."""
    skip = set(section.computed if section else ())
    return [
        f for f in model._meta.sorted_fields
        if f.name not in skip and not (isinstance(f, ForeignKeyField) and f.rel_model is m.Festival)
    ]


# Columns whose JSON value has a shape of its own (a board's rule: docs/rankings.md).
FIELD_SCHEMAS = {
    (m.TopperPlaceholder, "counts"): {
        "type": ["array", "null"], "items": {"enum": list(TOPPER_COUNTS)}, "minItems": 1, "uniqueItems": True},
    (m.TopperPlaceholder, "eligible_if"): {"type": ["array", "null"], "items": {
        "type": "object", "properties": {"collection": {"type": "string", "minLength": 1, "maxLength": 40},
                                         "best_position": {"type": "integer", "minimum": 1}},
        "required": ["collection", "best_position"], "additionalProperties": False}},
    (m.TopperPlaceholder, "tie_break"): {
        "type": ["array", "null"], "items": {"type": "string", "minLength": 1, "maxLength": 40}},
    (m.TopperPlaceholder, "points_from"): {"type": ["string", "null"], "enum": [*TOPPER_POINTS_FROM, None]},
    (m.TopperPlaceholder, "rank_style"): {"type": ["string", "null"], "enum": [*TOPPER_RANK_STYLES, None]},
}


def _field_schema(model, f):
    if (model, f.name) in FIELD_SCHEMAS:
        return dict(FIELD_SCHEMAS[(model, f.name)])
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


def required_fields(model, section=None):
    """Fields a new row must give (a reference may be given by its alias instead)."""
    return [f for f in fixture_fields(model, section)
            if not f.null and f.default is None and not f.primary_key]


def _key_schema(f):
    """A natural-key value: the target's key column, as text."""
    key = NATURAL_KEYS[f.rel_model].column
    target = f.rel_model._meta.fields[key]
    if isinstance(target, ForeignKeyField):  # a registration's chest number
        target = m.SubFestCandidate.chest_no
    if isinstance(target, CharField):
        return {"type": "string", "minLength": 1, "maxLength": target.max_length}
    return {"type": "string", "minLength": 1}


def _row_schema(model, section=None, partial=False):
    fields = fixture_fields(model, section)
    props = {f.name: _field_schema(model, f) for f in fields}
    # id and references may be replaced by natural keys; the importer checks those.
    required = [f.name for f in required_fields(model, section) if not isinstance(f, ForeignKeyField)
                and f.name not in OPTIONAL_KEYS.get(section.key if section else None, ())]
    for f, alias in references(model, section):
        if alias:
            props[alias] = _key_schema(f)
    for name, inline in (section.inline if section else {}).items():
        value = inline.model._meta.fields[inline.value_field]
        props[name] = {"type": "array", "items": _field_schema(inline.model, value)}
        if isinstance(value, ForeignKeyField):
            props[INLINE_ALIASES[name]] = {"type": "array", "items": _key_schema(value)}
    if section and section.key == "results":
        props[RESULT_TEAM_ALIAS] = _key_schema(m.Registration.team)
    if section and section.key == "subFestProgrammes":
        props[PROGRAMME_NAME_ALIAS] = {"type": "string", "minLength": 1, "maxLength": m.Programme.name.max_length}
    if section and section.key in SCOPED_SECTIONS:
        props[SCOPE_ALIAS] = {"type": "string", "minLength": 1, "maxLength": 80}
    if section and section.key in WITHDRAWABLE:
        props["withdrawn"] = {"type": "boolean"}
    if section and section.key in DELETABLE:
        props["deleted"] = {"type": "boolean"}
    return {
        "type": "object",
        "properties": props,
        "required": [] if partial else sorted(set(required)),
        "additionalProperties": False,
    }


def json_schema(partial=False):
    """The JSON Schema (draft 2020-12) of a festival fixture file.

    ``partial``: of an update file, whose rows give only what changes.
    """
    festival = _row_schema(m.Festival, partial=partial)
    if partial:
        festival["required"] = ["slug"]
    else:
        # Times without an offset are read in it: a festival says its timezone (none is assumed).
        festival["required"] = sorted(set(festival["required"]) | {"timezone"})
    props = {
        "formatVersion": {"const": FORMAT_VERSION},
        "festival": festival,
    }
    for section in SECTIONS:
        props[section.key] = {"type": "array", "items": _row_schema(section.model, section, partial)}
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
