"""Filter options from the compiled documents: ``/filters``."""
from ..compiled import kinds
from ..compiled.templates import render
from .documents import stored_document


def filter_options_json(festival_id, sub_fest_slug, context):
    """The stored filter options of the festival (``sub_fest_slug`` ``""``) or of one of its
    public sub-fests, with ``context`` (JSON text) in its slot."""
    return render(stored_document(festival_id, kinds.DOCUMENT_FILTERS, sub_fest_slug), {"context": context})
