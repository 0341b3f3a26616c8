"""Teams: query arguments and output."""
from marshmallow import fields


from . import examples
from .common import OutSchema, Uuid, list_envelope, sort_args
from .fields import Array, Bool, Text
from .nested import TeamRefSchema
from .selectors import SubFestSelectorArgs


# The public sort names; db/read/teams.py maps each to a compiled column.
TEAM_SORT_NAMES = ("displayOrder", "name", "publicName", "level")


class TeamQueryArgsSchema(SubFestSelectorArgs, sort_args(TEAM_SORT_NAMES, "displayOrder")):
    search = Array(Text(), split=False, metadata={"example": ["Thrissur"],
        "description": "Words to find in the name, display name or public name; all must match."})
    color_code = Array(Text(max_length=16), metadata={"example": [examples.TEAM_COLOUR],
        "description": "Any of these colours, e.g. `d62728` or `%23d62728` for `#d62728`; the case of "
                       "A-Z and leading `#` characters are ignored."})
    has_candidates = Array(Bool(), metadata={"example": [True],
        "description": "Has active public candidates, in the team or in the teams below it."})


class TeamSchema(OutSchema):
    id = Uuid()
    name = fields.String()
    display_name = fields.String(allow_none=True)
    public_name = fields.String(allow_none=True)
    motto = fields.String(allow_none=True)
    logo_url = fields.String(allow_none=True)
    color_code = fields.String(allow_none=True)
    display_order = fields.Integer()
    level = fields.Integer(metadata={"description": "1 for top-level teams, 2 for the teams below them, ..."})
    parent_team = fields.Nested(TeamRefSchema, allow_none=True, metadata={
        "description": "Set only when the parent team is public."})
    candidate_count = fields.Integer(metadata={
        "description": "Active public candidates of the sub-fest in this team and the teams below it."})


TeamListSchema = list_envelope(TeamSchema, "TeamList")
