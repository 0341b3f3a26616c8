"""Alternative selectors: endpoints that accept one record by any of several parameters.

OpenAPI cannot relate one query parameter to another, so each schema states the one rule of
that kind the service has, "send at least one of these", in the Inter-parameter Dependency
Language (IDL) of IDL4OAS, its classes' ``DEPENDENCIES``, which the document carries as the
operation's ``x-dependencies`` (``app/views/operations.py``): ``Or(a, b);``. The groups are
checked from the same statement (:class:`StatedRules`), none of a group sent being a 400
naming the group. Every other combination of the parameters the document lists is taken, each
with a meaning: parameters combine with AND, so selectors sent together name the one record
they all name (``subFestId`` with ``subFestSlug``: the sub-fest with that id and that slug,
``app.views.lookups``), and naming different records they name none, the one 404 of an
unknown record. Ids and keys that name no visible record are that 404 too: that depends on
the data, not on the parameters.
"""
import re

from marshmallow import ValidationError, validates_schema

from . import examples
from .common import QueryArgs, camelcase
from .fields import CanonicalUUID, Text


def one_of(*names):
    """The IDL rule of :func:`require_one_of`: at least one of ``names``."""
    return f"Or({', '.join(names)});"


# An IDL group needing one of its parameters: its names.
REQUIRED_GROUP = re.compile(r"^Or\((.+)\);$")


def dependencies(schema):
    """The IDL rules of a query-argument schema (its classes' ``DEPENDENCIES``, base classes
    first, each once)."""
    found = []
    for klass in reversed(type(schema).__mro__ if not isinstance(schema, type) else schema.__mro__):
        for rule in vars(klass).get("DEPENDENCIES", ()):
            if rule not in found:
                found.append(rule)
    return found


def require_one_of(data, selectors):
    """Raise a 400 naming every selector when none was sent.

    ``selectors`` maps each parameter's query name to its attribute, e.g.
    ``{"subFestProgramId": "sub_fest_program_id", "programCode": "program_code"}``.
    """
    if all(data.get(attribute) in (None, "") for attribute in selectors.values()):
        names = " or ".join(selectors)
        raise ValidationError({name: [f"Send {names}."] for name in selectors})


class StatedRules(QueryArgs):
    """Checks the groups of its ``DEPENDENCIES`` that need one of their parameters: none of
    them sent is a 400 naming each (:func:`require_one_of`)."""

    @validates_schema
    def stated_groups(self, data, **kwargs):
        groups = type(self).__dict__.get("_required_groups")
        if groups is None:
            attributes = {camelcase(field.data_key or name): name for name, field in self.declared_fields.items()}
            groups = [{key.strip(): attributes[key.strip()] for key in found[1].split(",")}
                      for found in map(REQUIRED_GROUP.match, dependencies(self)) if found]
            type(self)._required_groups = groups
        errors = {}
        for group in groups:
            try:
                require_one_of(data, group)
            except ValidationError as error:
                errors.update(error.messages)
        if errors:
            raise ValidationError(errors)


# Both sub-fest selectors sent: the sub-fest with that id and that slug (``app.views.lookups``).
BOTH_SUB_FEST_RULE = ("When both `subFestId` and `subFestSlug` are sent they must name the same sub-fest, "
                      "else the answer is the 404 of an unknown sub-fest.")


class SubFestSelectorArgs(StatedRules):
    """The sub-fest a list comes from, by id or by slug (``app.views.lookups.sub_fest_ref_or_404``)."""

    DEPENDENCIES = (one_of("subFestId", "subFestSlug"),)

    sub_fest_id = CanonicalUUID(metadata={"example": examples.SUB_FEST_ID,
        "description": f"Sub-fest to list from; required unless `subFestSlug` is sent. {BOTH_SUB_FEST_RULE}"})
    sub_fest_slug = Text(max_length=80, metadata={"example": examples.SUB_FEST_SLUG,
        "description": f"Slug of the sub-fest to list from; required unless `subFestId` is sent. "
                       f"{BOTH_SUB_FEST_RULE}"})



SELECTOR_RULE = ("When both are sent they must name the same record (else 404); "
                 "`subFestSlug` or `subFestId` narrows the lookup to one sub-fest.")


def optional_sub_fest_fields(what):
    """``(sub_fest_id, sub_fest_slug)``: the optional sub-fest of a list or document that
    may be of the whole festival (``/schedules``, ``/filters``), by id or by slug
    (``app.views.lookups.narrowing_sub_fest_or_404``)."""
    return (CanonicalUUID(metadata={"example": examples.SUB_FEST_ID,
                                    "description": f"Only {what} of this public sub-fest. {BOTH_SUB_FEST_RULE}"}),
            Text(max_length=80, metadata={"example": examples.SUB_FEST_SLUG,
                                          "description": f"Only {what} of this public sub-fest, by its slug. "
                                                         f"{BOTH_SUB_FEST_RULE}"}))


class NarrowingSubFestArgs(StatedRules):
    """The optional sub-fest a lookup by code, chest number or label is narrowed to."""

    sub_fest_id = CanonicalUUID(metadata={"example": examples.SUB_FEST_ID,
        "description": f"Look the code, chest number or label up in this sub-fest only. {BOTH_SUB_FEST_RULE}"})
    sub_fest_slug = Text(max_length=80, metadata={"example": examples.SUB_FEST_SLUG,
        "description": f"Look the code, chest number or label up in this sub-fest only, by its slug. "
                       f"{BOTH_SUB_FEST_RULE}"})


class ProgrammeSelectorArgs(NarrowingSubFestArgs):
    """One programme, by id or by its code in a sub-fest (``/programme-detail``, ``/programme-result``)."""

    DEPENDENCIES = (one_of("subFestProgramId", "programCode"),)

    sub_fest_program_id = CanonicalUUID(metadata={"example": examples.PROGRAMME_ID,
        "description": f"Programme instance id; required unless `programCode` is sent. {SELECTOR_RULE}"})
    program_code = Text(max_length=40, metadata={"example": examples.PROGRAMME_CODE,
        "description": "Public programme code in its sub-fest (e.g. `HS-C01`, case-insensitive); "
                       "required unless `subFestProgramId` is sent. A code used in several "
                       "sub-fests needs `subFestSlug` or `subFestId` (else 400)."})



class CandidateSelectorArgs(NarrowingSubFestArgs):
    """One candidate, by id or by chest number (``/candidate-detail``, ``/candidate-result``)."""

    DEPENDENCIES = (one_of("subFestCandidateId", "chestNo"),)

    sub_fest_candidate_id = CanonicalUUID(metadata={"example": examples.CANDIDATE_ID,
        "description": f"Sub-fest candidate id; required unless `chestNo` is sent. {SELECTOR_RULE}"})
    chest_no = Text(max_length=20, metadata={"example": examples.CHEST_NO,
        "description": "Chest number (case-insensitive); required unless `subFestCandidateId` is "
                       "sent. A chest number used in several sub-fests needs `subFestSlug` or "
                       "`subFestId` (else 400)."})

