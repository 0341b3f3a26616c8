"""Compiled documents (``PublicDocument``): the public parts of answers that have no list
of their own, such as the filter options and the gallery's album summaries."""
from ..compiled.tables import PublicDocument as D
from .sql import Select, equals


def stored_document(festival_id, kind, key=""):
    """The body of the compiled document ``kind``/``key``, or None."""
    row = (Select(D)
           .where(*equals(D.festival, festival_id))
           .where(*equals(D.kind, kind))
           .where(*equals(D.key, key))
           .first(D.body))
    return row and row[0]
