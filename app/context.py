"""The ``context`` block of every response: who the data belongs to and how fresh it is.

The festival's summary and its public sub-fests are read once per data revision and kept
in memory (:class:`FestivalView`); a request then builds its context without a query.
"""
import threading

from flask import current_app, g

from db.compiled.templates import dumps
from db.read.subfests import sub_fest_summaries
from db.source.revisions import RevisionCache


def init_revisions(app):
    """One :class:`RevisionCache` per app, shared with the hit path."""
    app.extensions["festival_revisions"] = RevisionCache()


def data_revision():
    """The resolved festival's ``(revision, changed_at)``: read from the database only when
    something was committed since this connection last read it (see ``RevisionCache``)."""
    if "data_revision" not in g:
        g.data_revision = current_app.extensions["festival_revisions"].revision(
            g.festival.id, g.get("data_version"))
    return g.data_revision


class SubFestRef:
    """A public sub-fest as a request needs it: id, slug and its context summary JSON."""

    __slots__ = ("id", "slug", "summary")

    def __init__(self, id, slug, summary):
        self.id, self.slug, self.summary = id, slug, summary


class FestivalView:
    """What every request of one festival at one revision shares."""

    def __init__(self, festival, revision, changed_at):
        from schemas.common import FestivalSummarySchema, FreshnessSchema

        self.revision = revision
        self.festival_json = dumps(FestivalSummarySchema().dump(festival))
        self.data_json = dumps(FreshnessSchema().dump({"revision": revision, "changed_at": changed_at}))
        self.sub_fests = {}
        self.slugs = {}
        for sub_fest_id, slug, summary in sub_fest_summaries(festival.id):
            ref = SubFestRef(sub_fest_id, slug, summary)
            self.sub_fests[sub_fest_id] = self.slugs[slug] = ref

    def context_json(self, sub_fest=None):
        return (f'{{"festival":{self.festival_json},"subFest":{sub_fest.summary if sub_fest else "null"},'
                f'"data":{self.data_json}}}')


_views = {}
_views_lock = threading.Lock()


def festival_view():
    """The :class:`FestivalView` of the resolved festival at the request's revision."""
    view = g.get("festival_view")
    if view is not None:
        return view
    revision, changed_at = data_revision()
    view = _views.get(g.festival.id)
    if view is None or view.revision != revision:
        view = FestivalView(g.festival, revision, changed_at)
        with _views_lock:
            _views[g.festival.id] = view
    g.festival_view = view
    return view


def context_json(sub_fest=None):
    """The context block as JSON text; ``sub_fest`` is a :class:`SubFestRef` or None."""
    return festival_view().context_json(sub_fest)
