"""A request as the front door resolves it, and what it hands the endpoint's view.

:class:`RequestState` is the record the door's steps (``app/door/__init__.py``) fill as the
request passes them: its query, key, festival and revision. A view is given, as its first
argument, the :class:`FestivalAtRevision` of the request: the festival's id, time zone and
revision, its public sub-fests and the answer's ``context`` block. It is read once per data
revision and kept in memory by the door, so a request builds its context without a query; a
view calls nothing back.
"""
from urllib.parse import parse_qsl

import werkzeug.urls  # noqa: F401  (registers the "werkzeug.url_quote" decoding error handler)

from db.compiled.templates import dumps
from db.read.subfests import sub_fest_summaries

# The WSGI environ key under which the server (app/server/waitress_compat.py) offers a list:
# callables the app appends to it run after the answer was handed to the socket (the access
# line), not while the client waits for it.
AFTER_ANSWER = "festival_api.after_answer"

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
    """One API request as the front door's steps resolve it (key, festival, revision, its
    answer); ``seen`` is what the door saw of it (app/door/observation.py), for the access log
    and ``Server-Timing``."""

    __slots__ = ("seen", "query", "key_id", "festival", "revision", "changed_at",
                 "limit_headers", "limit_spent", "at_revision", "private", "named",
                 "revision_of", "digest", "cache_key", "maker", "answer")

    def __init__(self, query_string, seen):
        self.seen = seen
        # (name, value) pairs of the query string, for the view's arguments, the cache key and the log
        self.query = parse_query(query_string) if query_string else ()
        self.key_id = self.festival = None
        self.revision, self.changed_at = 0, None
        self.limit_headers = None  # X-RateLimit-* of the key's budget, once looked at
        self.limit_spent = False  # whether the request was counted (a 304 is not)
        self.at_revision = None  # the FestivalAtRevision the view was given
        self.private = False  # the query tests a private value (app/door/__init__.py)
        self.named = None  # the festival the URL names (festival=), or None (app/door/festival_url.py)
        self.revision_of = None  # festival id -> (revision, changed_at), once the reads began
        self.digest = None  # the key's SHA-256, which the response cache knows it by
        self.cache_key = self.maker = None  # on a miss: its key in the response cache, and the
        # lock held while making it (identical requests wait for it)
        self.answer = None  # the answer, once the response cache or the view gave it


class SubFestRef:
    """A public sub-fest as a request needs it: id, slug and its context summary JSON."""

    __slots__ = ("id", "slug", "summary")

    def __init__(self, id, slug, summary):
        self.id, self.slug, self.summary = id, slug, summary


class FestivalAtRevision:
    """What every request of one festival at one revision shares: what a view knows of the
    festival it answers for."""

    def __init__(self, festival, revision, changed_at):
        from schemas.common import FestivalSummarySchema, FreshnessSchema

        self.id, self.timezone, self.revision = festival.id, festival.timezone, revision
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
        """The answer's ``context`` block as JSON text; ``sub_fest`` is a :class:`SubFestRef` or None."""
        return (f'{{"festival":{self.festival_json},"subFest":{sub_fest.summary if sub_fest else "null"},'
                f'"data":{self.data_json}}}')
