"""Changes: query arguments and output."""
from marshmallow import fields, validate

from . import examples
from .common import OutSchema, PageArgs, UtcDateTime, Uuid, list_envelope
from .enums import CHANGE_ACTIONS, CHANGE_KINDS
from .fields import Array, Enum, WholeNumber


class ChangeQueryArgsSchema(PageArgs):
    since_revision = WholeNumber(required=True, validate=validate.Range(min=0, max=2**31 - 1), metadata={
        "example": 0,
        "description": "List what changed after this data revision (the `context.data.revision` "
                       "of the answers a website holds); 0 lists everything recorded."})
    kinds = Array(Enum(CHANGE_KINDS), metadata={
        "description": "Only changes of these kinds.", "example": ["programme", "leaderboard"]})


class ChangeSchema(OutSchema):
    revision = fields.Integer(metadata={"description": "The data revision that made the change."})
    changed_at = UtcDateTime(metadata={
        "description": "When the change became visible: the revision's time, or later for news "
                       "published for a later moment."})
    kind = fields.String(metadata={"enum": list(CHANGE_KINDS)})
    id = Uuid(metadata={"description": "Id of the changed record: a sub-fest programme, a topper "
                                       "placeholder, a news item, a download, a gallery image or a "
                                       "sub-fest candidate."})
    action = fields.String(metadata={
        "enum": list(CHANGE_ACTIONS),
        "description": "`added`, `changed`, `removed` (no longer public), or `results` (a "
                       "programme's or candidate's published results changed). A candidate is "
                       "`changed` when its entries (`/candidate-registrations`) or its record "
                       "changed and its results did not."})
    sub_fest_id = Uuid(allow_none=True, metadata={
        "description": "The sub-fest of a programme, leaderboard or candidate."})
    # The natural keys a site fetches the record by (null where the kind has none, and in
    # changes recorded before they were): db/compiler/changes.py reads them from the
    # record's public JSON, after the change or, when it was removed, as last shown.
    sub_fest_slug = fields.String(allow_none=True, metadata={
        "description": "Slug of the sub-fest of a programme, leaderboard or candidate (null for a "
                       "candidate `removed`).", "example": "general"})
    program_code = fields.String(allow_none=True, metadata={
        "description": "A programme's code in its sub-fest: "
                       "`/programme-result?programCode=...&subFestSlug=...`.", "example": "HS-G05"})
    placeholder_label = fields.String(allow_none=True, metadata={
        "description": "A leaderboard's label: `/toppers?placeholderLabel=...&subFestSlug=...`.",
        "example": "Overall individual champions"})
    title = fields.String(allow_none=True, metadata={
        "description": "Title of a news item, download or gallery image (an image's may be null).",
        "example": "Results of day one"})
    album_title = fields.String(allow_none=True, metadata={
        "description": "Title of a gallery image's album.", "example": "Day one"})
    chest_no = fields.String(allow_none=True, metadata={
        "description": "A candidate's chest number: `/candidate-result?chestNo=...&subFestSlug=...`; "
                       "null for a candidate `removed` (no longer public: it is named by its id alone).",
        "example": "1001"})


ChangeListSchema = list_envelope(ChangeSchema, "ChangeList")
