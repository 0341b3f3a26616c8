"""Candidate registrations: query arguments and output."""
from marshmallow import fields

from .common import OutSchema, UtcDateTime, Uuid, list_envelope, sort_args
from .enums import REGISTRATION_TYPES, TOPIC_STATUSES
from .selectors import CandidateSelectorArgs
from .nested import CandidateIdentitySchema, ProgrammeSummarySchema, TeamRefSchema
from .results import ResultFieldsSchema


# The public sort names; db/read/registrations.py maps each to a compiled column.
REGISTRATION_SORT_NAMES = ("registeredAt", "programCode", "programName", "type")


class CandidateRegistrationQueryArgsSchema(CandidateSelectorArgs, sort_args(REGISTRATION_SORT_NAMES, "registeredAt")):
    """The candidate by id or by chest number, as ``/candidate-detail`` takes it."""


class RegistrationSchema(OutSchema):
    type = fields.String(metadata={"enum": list(REGISTRATION_TYPES)})
    id = Uuid(metadata={"description": "Registration id."})
    topic = fields.String(allow_none=True)
    topic_status = fields.String(allow_none=True, metadata={"enum": list(TOPIC_STATUSES)})
    checked_in = fields.Boolean()
    registered_at = UtcDateTime()
    team = fields.Nested(TeamRefSchema, attribute="team_ref", allow_none=True, metadata={
        "description": "The team the entry represents; set only when public."})
    programme = fields.Nested(ProgrammeSummarySchema, attribute="sub_fest_programme")
    members = fields.List(fields.Nested(CandidateIdentitySchema), attribute="member_list", allow_none=True,
                          metadata={"description": "The public members of a group entry; null for an individual."})
    result = fields.Nested(ResultFieldsSchema, attribute="result_ref", allow_none=True, metadata={
        "description": "The entry's result once it is published and public, else null."})


RegistrationListSchema = list_envelope(RegistrationSchema, "CandidateRegistrationList")
