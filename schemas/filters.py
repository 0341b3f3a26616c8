"""Filter options: query arguments and output."""
from marshmallow import fields

from .common import ContextSchema, OutSchema, QueryArgs, Uuid
from .enums import RANKING_BASES, TOPPER_ENTITY_TYPES, TOPPER_SCOPE_TYPES
from .selectors import optional_sub_fest_fields
from .nested import (
    CategoryRefSchema,
    CollectionRefSchema,
    SectionRefSchema,
    SubFestRefSchema,
    TeamRefSchema,
    VenueRefSchema,
)
from .toppers import ScopeKeysSchema


class FilterQueryArgsSchema(QueryArgs):
    sub_fest_id, sub_fest_slug = optional_sub_fest_fields("the options")


class SubFestOptionSchema(SubFestRefSchema):
    display_order = fields.Integer()


class CategoryOptionSchema(CategoryRefSchema):
    sub_fest_id = Uuid()


class TeamOptionSchema(TeamRefSchema):
    sub_fest_id = Uuid()
    parent_team_id = Uuid(allow_none=True, metadata={"description": "Set only when the parent is public."})


class SectionOptionSchema(SectionRefSchema):
    sub_fest_id = Uuid()


class TopperPlaceholderOptionSchema(ScopeKeysSchema):
    id = Uuid()
    sub_fest_id = Uuid()
    label = fields.String()
    scope_type = fields.String(metadata={"enum": list(TOPPER_SCOPE_TYPES)})
    entity_type = fields.String(metadata={"enum": list(TOPPER_ENTITY_TYPES)})
    ranking_basis = fields.String(metadata={"enum": list(RANKING_BASES)})
    display_top_n = fields.Integer()
    display_order = fields.Integer()


class TopperOptionsSchema(OutSchema):
    placeholders = fields.List(fields.Nested(TopperPlaceholderOptionSchema), metadata={
        "description": "Published leaderboards, as a menu names them: their entries' time (`lastComputedAt`) "
                       "and completeness are in /topper-placeholders and /toppers, so an import that moves "
                       "points but no option leaves this answer (and its ETag) as it was."})
    entity_types = fields.List(fields.String(metadata={"enum": list(TOPPER_ENTITY_TYPES)}),
                               metadata={"description": "Entity types they rank."})
    scope_types = fields.List(fields.String(metadata={"enum": list(TOPPER_SCOPE_TYPES)}),
                              metadata={"description": "Scope types they use."})


class FilterOptionsSchema(OutSchema):
    context = fields.Nested(ContextSchema)
    sub_fests = fields.List(fields.Nested(SubFestOptionSchema))
    categories = fields.List(fields.Nested(CategoryOptionSchema))
    teams = fields.List(fields.Nested(TeamOptionSchema))
    sections = fields.List(fields.Nested(SectionOptionSchema))
    venues = fields.List(fields.Nested(VenueRefSchema))
    programme_collections = fields.List(fields.Nested(CollectionRefSchema))
    topper_options = fields.Nested(TopperOptionsSchema)
