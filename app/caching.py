"""Result-day response cache: identical requests are answered from memory.

On result day thousands of browsers ask for the same few URLs. A ``GET`` whose API key,
festival, data revision, path and query string match an earlier one is answered with the
earlier body for up to ``RESPONSE_CACHE_SECONDS``, without running the view.

The data revision (``db.source.revisions.current_revision``, one indexed query) is read before the
view and is part of the cache key, so an import is visible on the next request. What the
cache can hold back is only what changes with the clock alone — news whose ``publishedAt``
has just passed, ``nextSchedule``, "registration open" flags — and for at most
``RESPONSE_CACHE_SECONDS``. Only ``200`` JSON answers are kept; errors never are.

When an answer is missing (first request, a new revision, an expired entry) and many
identical requests arrive together, one of them makes it and the others wait for it
(up to ``MAKER_WAIT_SECONDS``) instead of all doing the same work at once.
"""
import threading
import time

from cachetools import TTLCache
from flask import current_app, g, request

from .context import data_revision

# Compressed copies kept per cached response, one per distinct Accept-Encoding header.
MAX_ENCODINGS = 4

# Header sets kept per cached response for the hit path: per status, encoding and origin.
MAX_REPLAYS = 16

# Where a request's cache entry is left for the hit path (app/hit_path.py) to learn from.
ENVIRON_ENTRY = "festival_api.cache_entry"

# How long identical requests wait for the one making a missing answer, before making it too.
MAKER_WAIT_SECONDS = 5


# Headers made again for every answer (length, encoding) or by later hooks (CORS, limits).
_NOT_KEPT = {"content-length", "content-encoding", "etag", "vary", "date"}


class CachedResponse:
    """The body of a ``200`` answer, the view's headers, its ETag, and its compressed copies."""

    __slots__ = ("body", "headers", "etag", "encoded", "replays", "_lock")

    def __init__(self, body, headers, etag):
        self.body = body
        self.headers = headers
        self.etag = etag
        self.encoded = {}  # Accept-Encoding header -> (Content-Encoding or None, bytes)
        # (status, Accept-Encoding, Origin) -> the final headers the Flask path sent, which
        # the hit path (app/hit_path.py) sends again
        self.replays = {}
        self._lock = threading.Lock()

    def encoded_body(self, accept_encoding):
        """The bytes sent for ``accept_encoding``, or None when none were sent yet."""
        known = self.encoded.get(accept_encoding)
        if known is None:
            return None
        content_encoding, data = known
        return data if content_encoding else self.body

    def remember_replay(self, key, headers):
        with self._lock:
            if key in self.replays or len(self.replays) < MAX_REPLAYS:
                self.replays[key] = headers

    def remember_encoding(self, accept_encoding, content_encoding, data):
        with self._lock:
            if accept_encoding in self.encoded or len(self.encoded) < MAX_ENCODINGS:
                self.encoded[accept_encoding] = (content_encoding, data)


class ResponseCache:
    """A thread-safe TTL cache of :class:`CachedResponse`; ``seconds=0`` disables it."""

    def __init__(self, seconds, entries, timer=time.monotonic):
        self._entries = (TTLCache(maxsize=entries, ttl=seconds, timer=timer)
                         if seconds > 0 and entries > 0 else None)
        self._lock = threading.Lock()
        self._makers = {}  # key -> lock held by the request making that answer

    @property
    def enabled(self):
        return self._entries is not None

    def get(self, key):
        with self._lock:
            return self._entries.get(key)

    def put(self, key, entry):
        with self._lock:
            self._entries[key] = entry

    def __len__(self):
        with self._lock:
            return len(self._entries) if self._entries is not None else 0

    def make_or_wait(self, key):
        """Wait for a request already making ``key``, then become its maker: return the held
        lock, or None when the wait timed out (the answer is then made without the lock)."""
        with self._lock:
            maker = self._makers.setdefault(key, threading.Lock())
        return maker if maker.acquire(timeout=MAKER_WAIT_SECONDS) else None

    def made(self, key, maker):
        """Let the requests waiting for ``key`` go: the answer is in the cache, or failed."""
        with self._lock:
            if self._makers.get(key) is maker:
                del self._makers[key]
        maker.release()


def request_key():
    """What makes two requests identical: key, festival, data revision, path, query."""
    revision, _ = data_revision()
    # Parameter order does not matter; the order of one parameter's values is kept.
    query = tuple(sorted(request.args.items(multi=True), key=lambda item: item[0]))
    return (g.api_key_id, g.festival.id, revision, request.path, query)


def _cache():
    return current_app.extensions["response_cache"]


def answer_from_cache():
    """``before_request``: answer a repeated API ``GET`` from memory."""
    cache = _cache()
    if not cache.enabled or request.method not in ("GET", "HEAD") or "festival" not in g:
        return None
    key = g.response_cache_key = request_key()
    entry = cache.get(key)
    if entry is None:
        maker = cache.make_or_wait(key)
        entry = cache.get(key)  # made while this request waited?
        if entry is None:
            g.response_cache, g.response_cache_maker = "miss", maker
            return None
        if maker is not None:
            cache.made(key, maker)
    g.response_cache = "hit"
    g.response_cache_entry = request.environ[ENVIRON_ENTRY] = entry
    response = current_app.response_class(entry.body, headers=entry.headers)
    response.set_etag(entry.etag, weak=True)
    return response


def remember(response):
    """Keep a freshly made ``200`` JSON answer (with its weak ETag) for identical requests."""
    if g.get("response_cache") != "miss" or response.status_code != 200 or not response.is_json:
        return
    etag, _ = response.get_etag()
    headers = [(name, value) for name, value in response.headers if name.lower() not in _NOT_KEPT]
    entry = CachedResponse(response.get_data(), headers, etag)
    _cache().put(g.response_cache_key, entry)
    g.response_cache_entry = request.environ[ENVIRON_ENTRY] = entry


def compress(response, compressor):
    """Compress ``response`` with ``compressor`` once per cached answer and Accept-Encoding."""
    entry = g.get("response_cache_entry")
    if entry is None:
        return compressor(response)
    accept = request.headers.get("Accept-Encoding", "")
    known = entry.encoded.get(accept)
    if known is not None:
        content_encoding, data = known
        if content_encoding:
            response.set_data(data)
            response.headers["Content-Encoding"] = content_encoding
        return response
    response = compressor(response)
    content_encoding = response.headers.get("Content-Encoding")
    entry.remember_encoding(accept, content_encoding, response.get_data() if content_encoding else None)
    return response


def release_waiters(exc):
    """``teardown_request``: whatever happened, requests waiting for this answer go on."""
    maker = g.pop("response_cache_maker", None)
    if maker is not None:
        _cache().made(g.response_cache_key, maker)


def init_response_cache(app):
    """Install the cache; call after authentication and the rate limiter."""
    app.extensions["response_cache"] = ResponseCache(
        app.config["RESPONSE_CACHE_SECONDS"], app.config["RESPONSE_CACHE_ENTRIES"])
    app.before_request(answer_from_cache)
    app.teardown_request(release_waiters)
