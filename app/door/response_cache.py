"""Result-day response cache: identical requests are answered from memory, by the front door.

On result day thousands of browsers ask for the same few URLs. A ``GET`` whose API key,
festival, data revision, path and query string match an earlier one is answered with the
earlier body for up to ``RESPONSE_CACHE_SECONDS``, without running the view.

The front door reads the festival's data revision in the request's snapshot before it asks
the cache, and the revision is part of the cache key, so an import is visible on the next
request. What the
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

# Compressed copies kept per cached response, one per content coding.
MAX_ENCODINGS = 4

# How long identical requests wait for the one making a missing answer, before making it too.
MAKER_WAIT_SECONDS = 5

# The headers that describe a body, left out of a 304 (Werkzeug's entity headers, but
# ``Expires`` and ``Content-Location``, which a 304 may carry).
BODY_HEADERS = frozenset(("allow", "content-encoding", "content-language", "content-length", "content-md5",
                          "content-range", "content-type", "last-modified"))


def without_body_headers(headers):
    """``headers`` (``(name, value)`` pairs) without those that describe a body: a ``304``'s."""
    return tuple(header for header in headers if header[0].lower() not in BODY_HEADERS)


class CachedResponse:
    """The body of a ``200`` answer, the view's headers, its ETag, and its compressed copies."""

    __slots__ = ("body", "headers", "etag", "encoded", "_lock", "_bodiless")

    def __init__(self, body, headers, etag):
        self.body = body
        self.headers = headers
        self.etag = etag
        self.encoded = {}  # content coding ("br", "gzip") -> compressed body
        self._lock = threading.Lock()
        self._bodiless = None

    def bodiless_headers(self):
        """The headers without those that describe a body (:func:`without_body_headers`): a
        ``304``'s, worked out once."""
        bodiless = self._bodiless
        if bodiless is None:
            self._bodiless = bodiless = without_body_headers(self.headers)
        return bodiless

    def remember_encoding(self, encoding, data):
        with self._lock:
            if encoding in self.encoded or len(self.encoded) < MAX_ENCODINGS:
                self.encoded[encoding] = data


# What an answer's key, headers and bookkeeping (the cache's own and Python's objects) take
# besides its body: about 1.5 kB, measured by tests/test_response_cache.py.
ENTRY_BYTES = 2048


def _weight(entry):
    """What an answer is counted as against the byte budget: its body twice, to leave room
    for the compressed copies kept with it later (each smaller than the body), and what
    keeping any answer takes (``ENTRY_BYTES``): small answers are mostly that."""
    return 2 * len(entry.body) + ENTRY_BYTES


class ResponseCache:
    """A thread-safe TTL cache of :class:`CachedResponse`; ``seconds=0`` disables it.

    It holds at most ``entries`` answers and ``max_bytes`` of them (see :func:`_weight`):
    at scale, a few thousand pages of 500 rows would otherwise take gigabytes. The least
    recently used answers make room for new ones; an answer larger than the whole budget is
    not kept.
    """

    def __init__(self, seconds, entries, timer=time.monotonic, max_bytes=256 * 2**20):
        self._max_entries = entries
        self._entries = (TTLCache(maxsize=max_bytes, ttl=seconds, timer=timer, getsizeof=_weight)
                         if seconds > 0 and entries > 0 and max_bytes > 0 else None)
        self._lock = threading.Lock()
        self._makers = {}  # key -> lock held by the request making that answer
        # Keys whose answer is an error of the request (a 404 for a mistyped chest number):
        # never kept, so identical requests make it side by side instead of queueing.
        self._not_kept = (TTLCache(maxsize=max(entries, 1), ttl=seconds, timer=timer)
                          if self._entries is not None else None)

    @property
    def enabled(self):
        return self._entries is not None

    def get(self, key):
        """The answer kept for ``key``, or None (absent or expired)."""
        with self._lock:
            try:  # one lookup, where TTLCache.get asks twice (``in``, then ``[]``)
                return self._entries[key]
            except KeyError:
                return None

    def put(self, key, entry):
        """Keep ``entry`` (unless it alone is larger than the byte budget)."""
        with self._lock:
            if _weight(entry) > self._entries.maxsize:
                return
            while len(self._entries) >= self._max_entries and key not in self._entries:
                self._entries.popitem()
            self._entries[key] = entry

    @property
    def size(self):
        """The bytes the kept answers count for (see :func:`_weight`)."""
        with self._lock:
            return self._entries.currsize if self._entries is not None else 0

    def __len__(self):
        with self._lock:
            return len(self._entries) if self._entries is not None else 0

    def make_or_wait(self, key):
        """Wait for a request already making ``key``, then become its maker: return the held
        lock, or None when the wait timed out or ``key``'s answer is not kept (the answer is
        then made without the lock)."""
        with self._lock:
            if key in self._not_kept:
                return None
            maker = self._makers.setdefault(key, threading.Lock())
        return maker if maker.acquire(timeout=MAKER_WAIT_SECONDS) else None

    def made(self, key, maker, kept=True):
        """Let the requests waiting for ``key`` go: the answer is in the cache, or failed
        (they make it again), or is an error of the request itself (``kept=False``: later
        identical requests make it without waiting, for the cache's seconds)."""
        with self._lock:
            if self._makers.get(key) is maker:
                del self._makers[key]
            if not kept:
                self._not_kept[key] = True
        maker.release()
