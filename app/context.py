"""The ``context`` block of every response: who the data belongs to and how fresh it is."""
from flask import g

from db.revisions import current_revision


def data_revision():
    """The resolved festival's ``(revision, changed_at)``, read once per request."""
    if "data_revision" not in g:
        g.data_revision = current_revision(g.festival.id)
    return g.data_revision


def build_context(sub_fest=None):
    revision, changed_at = data_revision()
    return {
        "festival": g.festival,
        "sub_fest": sub_fest,
        "data": {"revision": revision, "changed_at": changed_at},
    }


def list_response(page, sub_fest=None, **extra):
    """The list envelope: ``data``, ``meta`` and ``context`` (DESIGN.md §2)."""
    return {"data": page.items, "meta": page.meta, "context": build_context(sub_fest), **extra}
