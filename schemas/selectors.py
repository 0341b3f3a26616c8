"""Alternative selectors: endpoints that accept one record by any of several parameters."""
from marshmallow import ValidationError, validates_schema

from .common import QueryArgs
from .fields import CanonicalUUID, Text

SUB_FEST_SELECTORS = {"subFestId": "sub_fest_id", "subFestSlug": "sub_fest_slug"}


def require_one_of(data, selectors):
    """Raise a 400 naming every selector when none was sent.

    ``selectors`` maps each parameter's query name to its attribute, e.g.
    ``{"subFestProgramId": "sub_fest_program_id", "programCode": "program_code"}``.
    """
    if all(data.get(attribute) in (None, "") for attribute in selectors.values()):
        names = " or ".join(selectors)
        raise ValidationError({name: [f"Send {names}."] for name in selectors})


class SubFestSelectorArgs(QueryArgs):
    """The sub-fest a list comes from, by id or by slug (``app.lookups.sub_fest_ref_or_404``)."""

    sub_fest_id = CanonicalUUID(metadata={
        "description": "Sub-fest to list from; required unless `subFestSlug` is sent. "
                       "When both are sent they must name the same sub-fest."})
    sub_fest_slug = Text(max_length=80, metadata={
        "description": "Slug of the sub-fest to list from; required unless `subFestId` is sent."})

    @validates_schema
    def one_sub_fest_selector(self, data, **kwargs):
        require_one_of(data, SUB_FEST_SELECTORS)
