"""What a view knows of its request: the festival, the data revision, and the ``context`` block.

The front door (``app/door/__init__.py``) resolves the key, reads the revision and holds a
:class:`RequestState` for the thread while it calls the endpoint's view; views read it with
the functions below. The festival's summary and its public sub-fests are read once per
data revision and kept in memory (:class:`FestivalAtRevision`), so a request builds its context
without a query.
"""
import threading
from urllib.parse import parse_qsl

import werkzeug.urls  # noqa: F401  (registers the "werkzeug.url_quote" decoding error handler)

from db.compiled.templates import dumps
from db.read.subfests import sub_fest_summaries

# The WSGI environ key under which the server (app/server/waitress_compat.py) offers a list:
# callables the app appends to it run after the answer was handed to the socket (the access
# line), not while the client waits for it.
AFTER_ANSWER = "festival_api.after_answer"

# The request each thread is answering: set and cleared by the front door around a request.
_current = threading.local()


# Query strings parsed lately: on result day most requests repeat a few hundred URLs.
_parsed = {}
MAX_PARSED, MAX_PARSED_LENGTH = 4096, 512


def parse_query(query_string):
    """The ``(name, value)`` pairs of a query string, as Flask parses them (bytes that are not
    UTF-8 stay percent-encoded), as a tuple; short query strings are parsed once."""
    pairs = _parsed.get(query_string)
    if pairs is None:
        pairs = tuple(parse_qsl(query_string.encode("latin-1").decode(errors="replace"), keep_blank_values=True,
                                errors="werkzeug.url_quote"))
        if len(query_string) <= MAX_PARSED_LENGTH:
            if len(_parsed) >= MAX_PARSED:
                _parsed.clear()
            _parsed[query_string] = pairs
    return pairs


class RequestState:
    """One API request as the front door resolved it (key, festival, revision); ``seen`` is
    what the door saw of it (app/door/observation.py), for the access log and ``Server-Timing``."""

    __slots__ = ("seen", "query", "key_id", "festival", "revision", "changed_at",
                 "limit_headers", "limit_spent", "at_revision", "private", "named")

    def __init__(self, query_string, seen):
        self.seen = seen
        # (name, value) pairs of the query string, for the view's arguments, the cache key and the log
        self.query = parse_query(query_string) if query_string else ()
        self.key_id = self.festival = None
        self.revision, self.changed_at = 0, None
        self.limit_headers = None  # X-RateLimit-* of the key's budget, once looked at
        self.limit_spent = False  # whether the request was counted (a 304 is not)
        self.at_revision = None  # the FestivalAtRevision, once a view asked for it
        self.private = False  # the query tests a private value (app/door/__init__.py)
        self.named = None  # the festival the URL names (festival=), or None (app/door/festival_url.py)


def current():
    """The :class:`RequestState` of the request being handled."""
    return _current.state


def festival_id():
    """The id of the festival the request's API key belongs to."""
    return _current.state.festival.id


def begin_request(state):
    """Make ``state`` the thread's current request (the front door, before the view)."""
    _current.state = state


def end_request():
    _current.state = None


class SubFestRef:
    """A public sub-fest as a request needs it: id, slug and its context summary JSON."""

    __slots__ = ("id", "slug", "summary")

    def __init__(self, id, slug, summary):
        self.id, self.slug, self.summary = id, slug, summary


class FestivalAtRevision:
    """What every request of one festival at one revision shares."""

    def __init__(self, festival, revision, changed_at):
        from schemas.common import FestivalSummarySchema, FreshnessSchema

        self.revision = revision
        self.festival_json = dumps(FestivalSummarySchema().dump(festival))
        self.data_json = dumps(FreshnessSchema().dump({"revision": revision, "changed_at": changed_at}))
        # The revision of every context block of this revision, as it is in an answer's bytes
        # (a board's context goes on with its ``asOf``): the front door leaves it out of the
        # answer's ETag (app/door/headers.py, weak_etag). A string's quotes are escaped, so
        # these bytes are found in a key of the context only.
        self.revision_block = f'"data":{self.data_json}'.encode()
        self.sub_fests = {}
        self.slugs = {}
        for sub_fest_id, slug, summary in sub_fest_summaries(festival.id):
            ref = SubFestRef(sub_fest_id, slug, summary)
            self.sub_fests[sub_fest_id] = self.slugs[slug] = ref

    def context_json(self, sub_fest=None):
        return (f'{{"festival":{self.festival_json},"subFest":{sub_fest.summary if sub_fest else "null"},'
                f'"data":{self.data_json}}}')


# The FestivalAtRevision of each festival, at its latest revision asked for.
_shared = {}
_shared_lock = threading.Lock()


def festival_at_revision():
    """The :class:`FestivalAtRevision` of the request's festival at the request's revision."""
    state = current()
    shared = state.at_revision
    if shared is None:
        shared = _shared.get(state.festival.id)
        if shared is None or shared.revision != state.revision:
            shared = FestivalAtRevision(state.festival, state.revision, state.changed_at)
            with _shared_lock:
                _shared[state.festival.id] = shared
        state.at_revision = shared
    return shared


def context_json(sub_fest=None):
    """The context block as JSON text; ``sub_fest`` is a :class:`SubFestRef` or None."""
    return festival_at_revision().context_json(sub_fest)
