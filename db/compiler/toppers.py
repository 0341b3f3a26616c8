"""Compile the published leaderboards: placeholders, their entries, and the website pages
that show them. The entries themselves are computed by :mod:`db.source.toppers`; here they are
only stored, with the placeholders the rules of :mod:`db.source.topper_lists` let the public see
(scope keys of hidden sections and collections masked)."""
from schemas.toppers import (
    TopperEntrySchema,
    TopperPlaceholderSchema,
    TopperPlaceholderWithEntriesSchema,
    WebsitePageSchema,
)

from ..compiled.tables import PublicPage, PublicPlaceholder, PublicTopperEntry
from ..compiled.templates import dumps
from ..query import text_sort_key
from ..source import models as m
from ..source import scopes
from ..source.topper_lists import attach_categories, attach_entry_lists, page_placeholders, visible_placeholders


def compile_toppers(festival_id, writer):
    body_schema, with_entries_schema = TopperPlaceholderSchema(), TopperPlaceholderWithEntriesSchema()
    entry_schema = TopperEntrySchema()
    placeholders = list(visible_placeholders(festival_id).order_by(m.TopperPlaceholder.id))
    attach_categories(placeholders)
    attach_entry_lists(placeholders)
    for placeholder in placeholders:
        _compile_placeholder(writer, placeholder, body_schema, with_entries_schema, entry_schema)
    page_schema = WebsitePageSchema()
    for page in scopes.public_pages(festival_id):
        shown = [str(placeholder.id) for placeholder in page_placeholders(festival_id, page.id)]
        writer.add(PublicPage, id=page.id, slug=page.slug, body=dumps(page_schema.dump(page)),
                   placeholders=dumps(shown))


def _compile_placeholder(writer, p, body_schema, with_entries_schema, entry_schema):
    writer.add(
        PublicPlaceholder, id=p.id, sub_fest=p.sub_fest_id, is_published=p.is_published,
        entity_type=p.entity_type, scope_type=p.scope_type, display_order=p.display_order,
        label_key=text_sort_key(p.label), scope_type_key=text_sort_key(p.scope_type),
        entity_type_key=text_sort_key(p.entity_type), last_computed_at=p.last_computed_at,
        body=dumps(body_schema.dump(p)), with_entries=dumps(with_entries_schema.dump(p)))
    for entry in p.entry_list:
        writer.add(
            PublicTopperEntry, placeholder=p.id, entity_id=entry.entity_id, rank=entry.rank,
            points=entry.points, programme_count=entry.programme_count,
            last_result_at=entry.last_result_at, name_key=text_sort_key(entry.name),
            body=dumps(entry_schema.dump(entry)))
