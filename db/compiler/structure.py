"""Compile the festival's structure: sub-fests, teams and categories."""
from .. import scopes
from ..query import search_text, text_sort_key
from ..read_model import PublicSubFest
from ..templates import dumps


def compile_sub_fests(festival_id, writer):
    from schemas.common import SubFestSummarySchema
    from schemas.subfests import SubFestSchema

    body_schema, summary_schema = SubFestSchema(), SubFestSummarySchema()
    for sub_fest in scopes.public_sub_fests(festival_id):
        writer.add(
            PublicSubFest, id=sub_fest.id, slug=sub_fest.slug,
            search=search_text(sub_fest.name, sub_fest.name_local, sub_fest.slug),
            display_order=sub_fest.display_order, name_key=text_sort_key(sub_fest.name),
            start_date=sub_fest.start_date, summary=dumps(summary_schema.dump(sub_fest)),
            body=dumps(body_schema.dump(sub_fest)))


def compile_structure(festival_id, writer):
    """Teams and categories."""
