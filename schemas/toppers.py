"""Toppers: query arguments and output of /topper-placeholders, /toppers and /page-toppers."""
from marshmallow import fields, validate

from . import examples
from .common import ContextSchema, MetaSchema, OutSchema, PageArgs, UtcDateTime, Uuid, list_envelope, sort_args
from .enums import (
    GENDERS,
    RANKING_BASES,
    TOPPER_COUNTS,
    TOPPER_ENTITY_TYPES,
    TOPPER_POINTS_FROM,
    TOPPER_RANK_STYLES,
    TOPPER_SCOPE_TYPES,
)
from .fields import Bool, CanonicalUUID, Enum, Moment, Text, WholeNumber
from .nested import (
    CandidateIdentitySchema,
    CategoryRefSchema,
    ProgrammeSummarySchema,
    SectionRefSchema,
    SubFestRefSchema,
    TeamRefSchema,
)
from .selectors import SELECTOR_RULE, NarrowingSubFestArgs, SubFestSelectorArgs, one_of


# The public sort names; db/read/toppers.py maps each to a compiled column.
PLACEHOLDER_SORT_NAMES = ("displayOrder", "label", "scopeType", "entityType", "lastComputedAt")
ENTRY_SORT_NAMES = ("rank", "points", "name", "programmeCount", "lastResultAt")


class TopperPlaceholderQueryArgsSchema(SubFestSelectorArgs, sort_args(PLACEHOLDER_SORT_NAMES, "displayOrder")):
    is_published = Bool(metadata={
        "description": "Output stays restricted to published placeholders.", "example": True})
    entity_type = Enum(TOPPER_ENTITY_TYPES, metadata={
        "description": "Who is ranked.", "example": "candidate"})
    scope_type = Enum(TOPPER_SCOPE_TYPES, metadata={
        "description": "Over which programmes or people.", "example": "subfest"})


def placeholder_label_field(id_name):
    """A leaderboard by its label: the stable key the festival file names it by (a
    ``topperPlaceholders`` row's ``label``, unique in its sub-fest)."""
    return Text(max_length=255, metadata={
        "description": f"Label of a published leaderboard (case-insensitive), as `placeholder.label` shows it; "
                       f"instead of `{id_name}`. A label used in several sub-fests needs `subFestSlug` or "
                       f"`subFestId` (else 400).",
        "example": examples.PLACEHOLDER_LABEL})


def as_of_field():
    """A board as it stood: the moment a board of the past is of."""
    return Moment(metadata={
        "description": "The board as it stood at this moment: computed from the results published by then "
                       "(a result counts from its publication), with the same ranking, tie and top-N rules. "
                       "An ISO 8601 date-time; without an offset it is the festival's local time; a date "
                       "alone is its end (the board after that day). `context.asOf` says which "
                       "publication the board is of.",
        "example": examples.AS_OF})


class TopperQueryArgsSchema(NarrowingSubFestArgs, sort_args(ENTRY_SORT_NAMES, "rank")):
    """One leaderboard, by id or by its label (in a sub-fest)."""

    DEPENDENCIES = (one_of("topperPlaceholderId", "placeholderLabel"),)

    as_of = as_of_field()

    topper_placeholder_id = CanonicalUUID(metadata={
        "description": f"Published placeholder id; required unless `placeholderLabel` is sent. {SELECTOR_RULE}",
        "example": examples.TOPPER_PLACEHOLDER_ID})
    placeholder_label = placeholder_label_field("topperPlaceholderId")



class PageTopperQueryArgsSchema(NarrowingSubFestArgs):
    DEPENDENCIES = (one_of("pageSlug", "pageId", "placeholderId", "placeholderLabel"),)

    as_of = as_of_field()
    page_slug = Text(max_length=120, metadata={
        "description": "Website page slug.", "example": examples.PAGE_SLUG})
    page_id = CanonicalUUID(metadata={"example": examples.PAGE_ID,
        "description": "Website page id: a UUID, as `page.id` shows it (like every id of this API)."})
    placeholder_id = CanonicalUUID(metadata={"example": examples.TOPPER_PLACEHOLDER_ID,
        "description": "One placeholder: of the page when a page is named, else on its own."})
    placeholder_label = placeholder_label_field("placeholderId")



# The most entries a race follows (``db.compiled.tables.RACE_SIZE``).
MAX_RACE_TOP = 50


class TopperRaceQueryArgsSchema(NarrowingSubFestArgs, PageArgs):
    """One leaderboard's race, by the selectors of /toppers; pages are of its steps."""

    DEPENDENCIES = (one_of("topperPlaceholderId", "placeholderLabel"),)

    topper_placeholder_id = CanonicalUUID(metadata={
        "description": f"Published placeholder id; required unless `placeholderLabel` is sent. {SELECTOR_RULE}",
        "example": examples.TOPPER_PLACEHOLDER_ID})
    placeholder_label = placeholder_label_field("topperPlaceholderId")
    top = WholeNumber(load_default=10, validate=validate.Range(min=1, max=MAX_RACE_TOP), metadata={
        "description": f"How many entries the race follows: the best of the final (current) board, in its "
                       f"order. Default 10, at most {MAX_RACE_TOP}.", "example": 10})
    as_of = Moment(metadata={
        "description": "The race up to this moment: only its steps published by then (the last of them is "
                       "the board `/toppers` gives with the same `asOf`). The entries stay the best `top` of "
                       "the current board, with their current numbers, so a chart's lines are the same at "
                       "every moment. An ISO 8601 date-time; without an offset it is the festival's local "
                       "time; a date alone is its end. `context.asOf` says which publication the last step is.",
        "example": examples.AS_OF})



class ScopeKeysSchema(OutSchema):
    """The section and collection keys of a placeholder's scope: every output of a
    placeholder shows them through this schema, masked (``db.source.topper_lists.mask_hidden_keys``)."""

    section_key = fields.String(attribute="public_section_key", allow_none=True, metadata={
        "description": "The section of a `section` scope, when public."})
    collection_key = fields.String(attribute="public_collection_key", allow_none=True, metadata={
        "description": "The programme collection of a `collection` scope, when public."})


class EligibilitySchema(OutSchema):
    collection = fields.String(metadata={"description": "Key of a programme collection."})
    best_position = fields.Integer(metadata={
        "description": "An entity needs a counted result in a programme of the collection with a position "
                       "no worse than this."})


class BoardRuleSchema(OutSchema):
    """How a board ranks (docs/rankings.md, "A board's rule"); every default filled in."""

    counts = fields.List(fields.String(metadata={"enum": list(TOPPER_COUNTS)}), metadata={
        "description": "Kinds of result that count: individual registrations, group registrations, a team's "
                       "own entries."})
    best_per_programme = fields.Boolean(metadata={
        "description": "Only each entity's single best counted result in a programme counts."})
    points_from = fields.String(metadata={"enum": list(TOPPER_POINTS_FROM), "description":
                                          "Which points a result gives: its points, position points or grade points."})
    eligible_if = fields.List(fields.Nested(EligibilitySchema), metadata={
        "description": "Who may be listed: every requirement met (empty: everyone)."})
    tie_break = fields.List(fields.String(), metadata={
        "description": "Metrics compared, in order, after points; equal on all of them, entries share a rank. "
                       "`firsts`, `seconds`, `thirds`, `grade:X`, `best_result`, `position_points`, "
                       "`grade_points`, `fewest_entries`."})
    rank_style = fields.String(metadata={"enum": list(TOPPER_RANK_STYLES), "description":
                                         "`standard` (1, 2, 2, 4) or `dense` (1, 2, 2, 3)."})


class TopperPlaceholderSchema(ScopeKeysSchema):
    id = Uuid()
    label = fields.String()
    sub_fest = fields.Nested(SubFestRefSchema)
    scope_type = fields.String(metadata={"enum": list(TOPPER_SCOPE_TYPES)})
    entity_type = fields.String(metadata={"enum": list(TOPPER_ENTITY_TYPES)})
    category = fields.Nested(CategoryRefSchema, attribute="category_ref", allow_none=True, metadata={
        "description": "The category of a `category` scope, when public."})
    team_level = fields.Integer(allow_none=True, metadata={
        "description": "Team level ranked by a `team` leaderboard (1 when null)."})
    ranking_basis = fields.String(metadata={"enum": list(RANKING_BASES)})
    display_top_n = fields.Integer(metadata={
        "description": "Places shown; everyone tied at the last place is kept."})
    display_order = fields.Integer()
    last_computed_at = UtcDateTime(allow_none=True, metadata={
        "description": "When the board's entries last changed: an import that moves none of its points "
                       "keeps it (and the answer's ETag)."})
    programmes_counted = fields.Integer(metadata={
        "description": "Programmes in scope with at least one counted published result."})
    programmes_in_scope = fields.Integer(metadata={"description": "Public programmes the scope covers."})
    rule = fields.Nested(BoardRuleSchema, attribute="rule_json", metadata={
        "description": "How the board ranks, every default filled in (docs/rankings.md, \"A board's rule\")."})


TopperPlaceholderListSchema = list_envelope(TopperPlaceholderSchema, "TopperPlaceholderList")


class TopperGroupSchema(OutSchema):
    id = Uuid(metadata={"description": "Registration id of the group entry."})
    name = fields.String()
    programme = fields.Nested(ProgrammeSummarySchema)
    team = fields.Nested(TeamRefSchema, allow_none=True)
    members = fields.List(fields.Nested(CandidateIdentitySchema), metadata={"description": "Public members."})


class TopperPersonSchema(OutSchema):
    """A person across their chest numbers in the sub-fest (a ``person`` board): public fields only."""

    name = fields.String()
    name_local = fields.String(allow_none=True)
    gender = fields.String(allow_none=True, metadata={"enum": list(GENDERS)})
    chest_nos = fields.List(fields.String(), metadata={"description": "Their chest numbers in the sub-fest, sorted."})


class Metrics(fields.Field):
    """The board's tie-break metrics of an entry, stored as ``[[name, value], ...]``."""

    def _serialize(self, value, attr, obj, **kwargs):
        return {name: number for name, number in (value or ())}


class TopperEntrySchema(OutSchema):
    """One ranked entity; the object named by ``entityType`` is set, with public fields only."""

    rank = fields.Integer(metadata={
        "description": "Rank by the board's rule: standard (1, 2, 2, 4) unless `rule.rankStyle` is dense (1, 2, 2, 3)."})
    tied = fields.Boolean(metadata={"description": "Another entry has the same rank."})
    points = fields.Float()
    programme_count = fields.Integer(metadata={"description": "Programmes the points come from."})
    metrics = Metrics(dump_default={}, metadata={
        "type": "object", "additionalProperties": {"type": "number"},
        "description": "The board's tie-break metrics (`rule.tieBreak`) and their values, in order; empty without."})
    entity_type = fields.String(metadata={"enum": list(TOPPER_ENTITY_TYPES)})
    entity_id = Uuid(metadata={"description": "Sub-fest candidate, team, section or group registration id; for "
                                              "a person, an id derived from the person and the sub-fest."})
    name = fields.String()
    last_result_at = UtcDateTime(allow_none=True, metadata={"description": "When the latest counted result was published."})
    candidate = fields.Nested(CandidateIdentitySchema, attribute="details.candidate", allow_none=True)
    team = fields.Nested(TeamRefSchema, attribute="details.team", allow_none=True, metadata={
        "description": "The ranked team, or a candidate's team."})
    parent_team = fields.Nested(TeamRefSchema, attribute="details.parent_team", allow_none=True)
    category = fields.Nested(CategoryRefSchema, attribute="details.category", allow_none=True, metadata={
        "description": "A candidate's category."})
    section = fields.Nested(SectionRefSchema, attribute="details.section", allow_none=True)
    group = fields.Nested(TopperGroupSchema, attribute="details.group", allow_none=True)
    person = fields.Nested(TopperPersonSchema, attribute="details.person", allow_none=True, dump_default=None,
                           metadata={"description": "The ranked person (a `person` board)."})


class AsOfSchema(OutSchema):
    class Meta:
        description = "The moment a board of the past is of (with `asOf`)."

    requested = UtcDateTime(metadata={"description": "The `asOf` asked for, in UTC."})
    published_at = UtcDateTime(allow_none=True, metadata={
        "description": "The last publication the board counts (a step of the race); null when nothing was "
                       "published by then: the board is empty."})


class TopperContextSchema(ContextSchema):
    as_of = fields.Nested(AsOfSchema, allow_none=True, metadata={
        "description": "With `asOf`: which moment the board is of; null for the current board."})


class ToppersSchema(OutSchema):
    context = fields.Nested(TopperContextSchema)
    placeholder = fields.Nested(TopperPlaceholderSchema)
    data = fields.List(fields.Nested(TopperEntrySchema))
    meta = fields.Nested(MetaSchema)


class TopperPlaceholderWithEntriesSchema(TopperPlaceholderSchema):
    entries = fields.List(fields.Nested(TopperEntrySchema), attribute="entry_list")


class WebsitePageSchema(OutSchema):
    id = Uuid()
    slug = fields.String()
    title = fields.String()


class PageToppersSchema(OutSchema):
    context = fields.Nested(TopperContextSchema)
    page = fields.Nested(WebsitePageSchema, allow_none=True, metadata={"description": "Null when only placeholderId is sent."})
    toppers = fields.List(fields.Nested(TopperPlaceholderWithEntriesSchema))


class RaceStandingSchema(OutSchema):
    entity_id = Uuid(metadata={"description": "The entry, as `entries[].entityId` names it."})
    rank = fields.Integer(allow_none=True, metadata={
        "description": "Its rank on the whole board after this publication; null before its first counted result."})
    points = fields.Float(metadata={"description": "Its cumulative points after this publication."})


class RaceStepSchema(OutSchema):
    step = fields.Integer(metadata={"description": "The publication's number, from 1, oldest first."})
    at = UtcDateTime(metadata={"description": "When the results of this step were published."})
    standings = fields.List(fields.Nested(RaceStandingSchema), metadata={
        "description": "Each of `entries`, in their order: its points and rank after this publication."})


class TopperRaceSchema(OutSchema):
    context = fields.Nested(TopperContextSchema)
    placeholder = fields.Nested(TopperPlaceholderSchema)
    entries = fields.List(fields.Nested(TopperEntrySchema), metadata={
        "description": "The entries the race follows: the best `top` of the final (current) board, in its "
                       "order, with their final numbers."})
    data = fields.List(fields.Nested(RaceStepSchema), metadata={
        "description": "One page of the race's steps, oldest first: every publication that moved the board."})
    meta = fields.Nested(MetaSchema, metadata={"description": "The paging of the steps."})
