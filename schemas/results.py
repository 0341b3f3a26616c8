"""Results: query arguments and output of /programme-results, /programme-result and /candidate-result."""
from marshmallow import fields

from .common import ContextSchema, OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .nested import (
    CandidateIdentitySchema,
    CategoryRefSchema,
    PointsBreakdownSchema,
    ProgrammeSummarySchema,
    TeamRefSchema,
)
from .programmes import PROGRAMME_SORT_NAMES, ProgrammeFilterArgsSchema, ProgrammeSchema
from .selectors import CandidateSelectorArgs, ProgrammeSelectorArgs, SubFestSelectorArgs

class ProgrammeResultsQueryArgsSchema(SubFestSelectorArgs, ProgrammeFilterArgsSchema,
                                      sort_args(PROGRAMME_SORT_NAMES, "displayOrder")):
    """The programmes of one sub-fest with their results, filtered."""


class ProgrammeResultQueryArgsSchema(ProgrammeSelectorArgs):
    """One programme with its results, by id or by code."""


class CandidateResultQueryArgsSchema(CandidateSelectorArgs):
    """One candidate with their results, by id or by chest number."""


class ResultFieldsSchema(OutSchema):
    """What every published result shows, wherever it appears."""

    id = Uuid(metadata={"description": "Result id."})
    score = fields.Float(allow_none=True)
    grade = fields.String(allow_none=True)
    position = fields.Integer(allow_none=True, metadata={"description": "1, 2, 3 (shared places repeat); null when unplaced."})
    points = fields.Float()
    points_breakdown = fields.Nested(PointsBreakdownSchema)
    published_at = UtcDateTime(allow_none=True)


class EntryResultSchema(ResultFieldsSchema):
    """A result with its entry: who took part and for which team."""

    participant_name = fields.String(metadata={
        "description": "The candidate's name; for a group, its name, else its team's public name, "
                       "else its public members' names (a group shown has at least one); for a team's "
                       "own entry, the team's public name (else its name)."})
    participant_type = fields.String(metadata={
        "enum": ["individual", "group", "team"],
        "description": "`team`: a team's own entry (a school's entry in a group item), with neither "
                       "candidate nor members; it is shown only while its team is public."})
    topic = fields.String(allow_none=True)
    team = fields.Nested(TeamRefSchema, attribute="team_ref", allow_none=True, metadata={
        "description": "Set only when the team is public (always, for a team's own entry)."})
    candidate = fields.Nested(CandidateIdentitySchema, attribute="candidate_ref", allow_none=True, metadata={
        "description": "The candidate of an individual entry; null for a group or a team."})
    members = fields.List(fields.Nested(CandidateIdentitySchema), attribute="member_list", allow_none=True,
                          metadata={"description": "The public members of a group entry; null for an "
                                                   "individual or a team."})


class ProgrammeResultsItemSchema(OutSchema):
    programme = fields.Nested(ProgrammeSchema)
    results = fields.List(fields.Nested(EntryResultSchema), metadata={
        "description": "Published public results, placed ones first (by position), then by points."})


ProgrammeResultsListSchema = list_envelope(ProgrammeResultsItemSchema, "ProgrammeResultsList")


class ProgrammeResultSchema(OutSchema):
    context = fields.Nested(ContextSchema)
    programme = fields.Nested(ProgrammeSchema)
    results = fields.List(fields.Nested(EntryResultSchema), metadata={
        "description": "Published public results, placed ones first (by position), then by points."})


class CandidateResultItemSchema(EntryResultSchema):
    programme = fields.Nested(ProgrammeSummarySchema, attribute="sub_fest_programme")


class ResultCandidateSchema(CandidateIdentitySchema):
    team = fields.Nested(TeamRefSchema, allow_none=True, metadata={"description": "Set only when public."})
    category = fields.Nested(CategoryRefSchema, allow_none=True, metadata={"description": "Set only when public."})


class CandidateResultSchema(OutSchema):
    context = fields.Nested(ContextSchema)
    candidate = fields.Nested(ResultCandidateSchema)
    results = fields.List(fields.Nested(CandidateResultItemSchema), metadata={
        "description": "Published public results of the candidate's individual and group entries, latest first."})
