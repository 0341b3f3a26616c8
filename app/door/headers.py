"""The HTTP headers every answer of the API carries, and its compression.

- CORS, decided by flask-cors's own rules (``flask_cors.core``) for the configured origins,
  so browsers on festival websites may call the API and read ``ETag``, ``X-Data-Revision``
  and the rate-limit headers (and, with ``SERVER_TIMING`` on, ``Server-Timing``, which
  ``Timing-Allow-Origin`` also lets the page's Resource Timing show);
- the weak ``ETag`` of a ``200`` and the ``304`` it allows: the validator is the answer's data
  without the festival's revision, so an import that did not change an answer keeps its
  validator, and ``X-Data-Revision`` says the current revision on every answer of a festival;
- ``Vary: X-API-Key, Accept-Encoding`` (and ``Origin`` when the allowed origin depends on
  it), so a shared cache keeps one copy per key, encoding and origin;
- ``Cache-Control``: ``public, max-age=CACHE_MAX_AGE`` on a successful ``GET``,
  ``no-store`` on everything else, so no cache ever keeps an error, and ``private,
  no-store`` on every answer to a filter on a private value. An answer to a URL that names
  its festival (``festival=``, checked against the key) is the same for every key of that
  festival, so it is shared: ``Vary`` leaves out ``X-API-Key`` and ``Cache-Control`` tells
  shared caches what to do (``s-maxage``, ``stale-while-revalidate``, ``stale-if-error``:
  RFC 9111, RFC 5861);
- compression (brotli or gzip, as the client prefers) of bodies from ``COMPRESS_MIN_SIZE``
  bytes of a compressible type.

The front door (``app/door/__init__.py``) applies them to every answer under the API prefix,
whoever made it; the ones that depend only on the request's ``Origin`` are worked out once
per origin.
"""
import gzip
import threading
from types import SimpleNamespace

import brotli
import xxhash
from flask_cors.core import get_cors_headers, get_cors_options
from werkzeug.datastructures import EnvironHeaders
from werkzeug.http import parse_accept_header, parse_etags

from .auth import HEADER as KEY_HEADER
from .limits import RATE_LIMIT_HEADERS
from .observation import SERVER_TIMING

# The festival's data revision at the moment of the answer, on every answer of a festival's
# data (200, 304 and errors alike): after a 304 the body held shows the revision it was made at.
REVISION_HEADER = "X-Data-Revision"

# Response headers that scripts on other origins may read: the one list of them. Pagination
# travels in the body's ``meta``; there are no pagination headers.
EXPOSED_HEADERS = ("ETag", REVISION_HEADER, *RATE_LIMIT_HEADERS)
# ... and with SERVER_TIMING on (app/door/observation.py)
TIMED_EXPOSED_HEADERS = (*EXPOSED_HEADERS, SERVER_TIMING)

# Browsers may reuse a preflight answer this long (they cap it: Chrome at 2 hours).
PREFLIGHT_MAX_AGE = 86400

METHODS = ("GET", "HEAD", "OPTIONS")
ALLOW = ("Allow", ", ".join(METHODS))
PRIVATE = ("Cache-Control", "private, no-store")
NO_STORE = ("Cache-Control", "no-store")

# Encodings offered, in the server's order of preference when the client has none.
ENCODINGS = ("br", "gzip")
COMPRESSIBLE = ("application/json", "text/", "application/javascript", "image/svg+xml")
BROTLI_QUALITY = 4
GZIP_LEVEL = 6

# Origins whose CORS headers are remembered; more distinct origins are worked out per request.
MAX_ORIGINS = 256


class ApiHeaders:
    """CORS, ``Vary`` and ``Cache-Control`` of API answers, and their compression."""

    def __init__(self, config):
        origins = config["CORS_ORIGINS"] or ["*"]
        any_origin = origins == ["*"]
        self._timed = config["SERVER_TIMING"]
        # flask-cors would also read CORS_* settings from an app's config: there are none.
        self._cors = get_cors_options(SimpleNamespace(config={}), {
            "origins": origins,
            # With any origin allowed, "*" keeps one shared-cache copy for every site.
            "send_wildcard": any_origin,
            "vary_header": not any_origin,
            "methods": list(METHODS),
            "expose_headers": list(TIMED_EXPOSED_HEADERS if self._timed else EXPOSED_HEADERS),
            "max_age": PREFLIGHT_MAX_AGE,
        })
        self._any_origin = any_origin
        self._vary_names = (KEY_HEADER, "Accept-Encoding") + (() if any_origin else ("Origin",))
        self._vary = ", ".join(self._vary_names)
        self._shared_vary = ", ".join(name for name in self._vary_names if name != KEY_HEADER)
        max_age = config["CACHE_MAX_AGE"]
        self._cacheable = ("Cache-Control", f"public, max-age={max_age}" if max_age > 0 else "no-cache")
        self._shared = ("Cache-Control", shared_cache_control(config))
        self._min_size = config["COMPRESS_MIN_SIZE"]
        self._by_origin = {}
        self._lock = threading.Lock()

    def cors(self, environ):
        """The CORS headers of an answer to ``environ``: a preflight's for an ``OPTIONS``
        request (they echo its ``Access-Control-Request-*`` headers, so they are worked out
        each time), else those of its ``Origin``."""
        if environ.get("REQUEST_METHOD") == "OPTIONS":
            return self._cors_headers(environ, "OPTIONS")
        origin = environ.get("HTTP_ORIGIN")
        found = self._by_origin.get(origin)
        if found is None:
            found = self._cors_headers(environ, "GET")
            with self._lock:
                if len(self._by_origin) < MAX_ORIGINS:
                    self._by_origin[origin] = found
        return found

    def cors_of(self, origin):
        """The CORS headers an answer (not a preflight) carries for a request whose ``Origin``
        is ``origin``, for waitress's own errors, answered before the front door sees the
        request (app/server/waitress_compat.py). ``origin`` None: it was not read (or not sent), so
        only the headers that hold for every origin: with any origin allowed ``*``, with an
        allow-list none."""
        if origin is None:
            return list(self.cors({"REQUEST_METHOD": "GET"})) if self._any_origin else []
        return list(self.cors({"REQUEST_METHOD": "GET", "HTTP_ORIGIN": origin}))

    def _cors_headers(self, environ, method):
        # flask-cors's Vary: Origin is one of our own Vary names (finish).
        headers = [(name, str(value)) for name, value in
                   get_cors_headers(self._cors, EnvironHeaders(environ), method).items(multi=True)
                   if name != "Vary"]
        if self._timed and method != "OPTIONS":
            # The origins that may read the answer may see its Server-Timing in Resource Timing.
            headers += [("Timing-Allow-Origin", value) for name, value in headers
                        if name == "Access-Control-Allow-Origin"]
        return headers

    def finish(self, environ, status, headers, cacheable, private=False, shared=False):
        """Give ``headers`` of an answer with ``status`` their CORS headers, ``Vary`` and
        ``Cache-Control``, each once.

        This is the one place they are made, for every kind of answer (preflight, data,
        ``304``, error): any the answer already had are dropped, but a view's own ``Vary``
        names, which join ours. ``private``: the answer to a request that filters on a private
        value, which no cache may keep. ``shared``: the answer to a URL that names its
        festival, the same for every key of it (``festival=``)."""
        vary = self._shared_vary if shared else self._vary
        if _any_made_here(headers):  # rare: a data answer has none of them
            names = [name for name in self._vary_names if not (shared and name == KEY_HEADER)]
            for name, value in headers:
                if name.lower() == "vary":  # a view's own Vary joins ours
                    names += value.split(",")
            headers[:] = [(name, value) for name, value in headers if not _made_here(name)]
            vary = ", ".join(_unique(name.strip() for name in names if name.strip()))
        headers.extend(self.cors(environ))
        headers.append(("Vary", vary))
        if private:
            headers.append(PRIVATE)
        elif cacheable and status in (200, 304):
            headers.append(self._shared if shared else self._cacheable)
        else:
            headers.append(NO_STORE)
        return headers

    def encoding(self, environ):
        """The content coding ``environ``'s ``Accept-Encoding`` prefers among ours, or None."""
        accept = environ.get("HTTP_ACCEPT_ENCODING")
        if not accept:
            return None
        return parse_accept_header(accept).best_match(ENCODINGS)

    def compressible(self, content_type, body):
        return len(body) >= self._min_size and content_type.startswith(COMPRESSIBLE)


def shared_cache_control(config):
    """The ``Cache-Control`` of a successful answer to a URL that names its festival: browsers
    keep it ``CACHE_MAX_AGE`` seconds, shared caches ``CACHE_SHARED_MAX_AGE`` (``s-maxage``),
    and may then hand out the stale copy while they ask again
    (``CACHE_STALE_WHILE_REVALIDATE``) or while the service answers an error or not at all
    (``CACHE_STALE_IF_ERROR``); a setting of 0 leaves its directive out."""
    directives = ["public", f"max-age={config['CACHE_MAX_AGE']}", f"s-maxage={config['CACHE_SHARED_MAX_AGE']}"]
    for directive, name in (("stale-while-revalidate", "CACHE_STALE_WHILE_REVALIDATE"),
                            ("stale-if-error", "CACHE_STALE_IF_ERROR")):
        if config[name] > 0:
            directives.append(f"{directive}={config[name]}")
    return ", ".join(directives)


# Header names an answer had, and whether ``finish`` makes them: a few names, asked of every answer.
_MADE_HERE = {}


def _any_made_here(headers):
    """Whether any of ``headers`` is one ``finish`` makes (:func:`_made_here`)."""
    for name, _ in headers:
        made = _MADE_HERE.get(name)
        if made is None:
            made = _made_here(name)
            if len(_MADE_HERE) < MAX_ORIGINS:
                _MADE_HERE[name] = made
        if made:
            return True
    return False


def _made_here(name):
    """Whether ``finish`` makes the header ``name`` (so an answer's own one is dropped)."""
    lowered = name.lower()
    return lowered in ("vary", "cache-control", "timing-allow-origin") or lowered.startswith("access-control-")


def _unique(names):
    """``names`` without repeats (``Vary`` names are case-insensitive), in their order."""
    seen = set()
    return [name for name in names if not (name.lower() in seen or seen.add(name.lower()))]


def compress(body, encoding):
    if encoding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, GZIP_LEVEL, mtime=0)


def weak_etag(body, revision_block=None):
    """The weak ETag of an answer's body: a 128-bit hash of it (xxh3: a 60 kB list answer
    is hashed in a few microseconds, where SHA-1 takes tens), without ``revision_block``, the
    revision and its time in the answer's ``context`` (``FestivalAtRevision.revision_block``).

    Every answer carries the festival's revision, which every import moves; an answer whose
    data an import did not change keeps its validator, so a client holding it gets a ``304``
    (a weak validator promises the same data, not the same bytes) and reads the current
    revision in ``X-Data-Revision``. The block's offset is hashed too: two bodies share a
    validator only when they are the same bytes but for that block, in the same place.
    """
    at = body.rfind(revision_block) if revision_block else -1  # the context closes a list answer
    if at < 0:
        return f'W/"{xxhash.xxh3_128_hexdigest(body)}"'
    whole = memoryview(body)
    digest = xxhash.xxh3_128(whole[:at])
    digest.update(at.to_bytes(8, "little"))
    digest.update(whole[at + len(revision_block):])
    return f'W/"{digest.hexdigest()}"'


def not_modified(if_none_match, etag):
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, as for a ``GET``)."""
    return if_none_match == etag or parse_etags(if_none_match).contains_weak(etag[3:-1])
