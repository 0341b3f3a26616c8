"""Reading the stored leaderboards: placeholders, their entries, and the ones a page shows.

The entries are computed by :mod:`db.compiler.leaderboards`; here they are only listed. A placeholder is
visible when it is published and its sub-fest is visible (``public_topper_placeholders``).
"""
from peewee import fn

from ..query import sort_keys
from . import models as m
from . import visibility
from .related import attach_lists

TP = m.TopperPlaceholder


def visible_placeholders(festival_id):
    """Visible placeholders with their sub-fest loaded, and whether the section and the
    collection their scope names are public (``section_public``, ``collection_public``);
    every output of a placeholder starts here and masks its keys with ``mask_hidden_keys``."""
    section_public = fn.EXISTS(
        m.Section.select(m.Section.id)
        .where((m.Section.sub_fest == TP.sub_fest) & (m.Section.key == TP.section_key) & visibility.visible_section()))
    collection_public = fn.EXISTS(
        m.ProgrammeCollection.select(m.ProgrammeCollection.id)
        .where((m.ProgrammeCollection.festival == m.SubFest.festival)
               & (m.ProgrammeCollection.key == TP.collection_key) & visibility.visible_collection()))
    return (visibility.public_topper_placeholders(festival_id)
            .select_extend(m.SubFest, section_public.alias("section_public"),
                           collection_public.alias("collection_public")))


def page_placeholders(festival_id, page_id, placeholder_id=None):
    """The visible placeholders configured for a page, in the page's order, with entries."""
    query = (visible_placeholders(festival_id)
             .switch(TP)
             .join(m.WebsitePagePlaceholder)
             .where(m.WebsitePagePlaceholder.page == page_id)
             .order_by(m.WebsitePagePlaceholder.display_order, TP.display_order, TP.id))
    if placeholder_id is not None:
        query = query.where(TP.id == placeholder_id)
    placeholders = list(query)
    attach_categories(placeholders)
    attach_entry_lists(placeholders)
    return placeholders


def attach_categories(placeholders):
    """``placeholder.category_ref``: the scope's category when it is public, else None; and
    the masked scope keys (``mask_hidden_keys``)."""
    ids = list({p.category_id for p in placeholders if p.category_id})
    categories = {}
    if ids:
        categories = {c.id: c for c in m.Category
                      .select(m.Category.id, m.Category.name, m.Category.name_local)
                      .where(m.Category.id.in_(ids) & visibility.visible_category())}
    for placeholder in placeholders:
        placeholder.category_ref = categories.get(placeholder.category_id)
    mask_hidden_keys(placeholders)


def mask_hidden_keys(placeholders):
    """``public_section_key`` / ``public_collection_key``: the scope's key, or None when the
    section (inactive or not public) or the collection (not public) is hidden, so no output
    tells that a hidden one exists. Needs the flags of ``visible_placeholders``."""
    for placeholder in placeholders:
        placeholder.public_section_key = placeholder.section_key if placeholder.section_public else None
        placeholder.public_collection_key = placeholder.collection_key if placeholder.collection_public else None


def attach_entry_lists(placeholders):
    """``placeholder.entry_list``: every stored entry, in rank order, with one query."""
    def entries(ids):
        # the stored order: rank, then name (ties are listed by name)
        query = (m.TopperEntry
                 .select()
                 .where(m.TopperEntry.placeholder.in_(ids))
                 .order_by(m.TopperEntry.rank, *sort_keys(m.TopperEntry.name), m.TopperEntry.entity_id))
        return ((entry.placeholder_id, entry) for entry in query)

    attach_lists(placeholders, "entry_list", entries)
