"""Compile the filter options (``/filters``): one document for the whole festival (key
``""``) and one per public sub-fest (key: its slug), each with a ``context`` slot."""
from schemas.filters import FilterOptionsSchema

from ..compiled import kinds
from ..compiled.tables import PublicDocument
from ..compiled.templates import make_template
from ..source import visibility
from ..source.filters import filter_options


def compile_filters(festival_id, writer):
    schema = FilterOptionsSchema()
    writer.add(PublicDocument, kind=kinds.DOCUMENT_FILTERS, key="", body=_document(schema, filter_options(festival_id)))
    for sub_fest in visibility.public_sub_fests(festival_id):
        options = filter_options(festival_id, sub_fest.id)
        writer.add(PublicDocument, kind=kinds.DOCUMENT_FILTERS, key=sub_fest.slug, body=_document(schema, options))


def _document(schema, options):
    options.context = None  # a slot, filled per request
    return make_template(schema.dump(options), ("context",))
