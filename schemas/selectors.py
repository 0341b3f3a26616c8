"""Alternative selectors: endpoints that accept one record by any of several parameters."""
from marshmallow import ValidationError


def require_one_of(data, selectors):
    """Raise a 400 naming every selector when none was sent.

    ``selectors`` maps each parameter's query name to its attribute, e.g.
    ``{"subFestProgramId": "sub_fest_program_id", "programCode": "program_code"}``.
    """
    if all(data.get(attribute) in (None, "") for attribute in selectors.values()):
        names = " or ".join(selectors)
        raise ValidationError({name: [f"Send {names}."] for name in selectors})
