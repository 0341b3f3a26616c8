"""The ``X-API-Key`` header decides whose data a request gets (docs/api-conventions.md).

Keys are stored as their SHA-256; a lookup is reused for ``API_KEY_CACHE_SECONDS``, so a
revoked key stops working within that time. The front door hashes the key once per
request and asks :class:`KeyCache`; a missing, unknown or revoked key is a 401 that names
the scheme (``WWW-Authenticate``).
"""
import threading

from cachetools import TTLCache

from db.source.keys import find_active_key_by_hash, hash_key

HEADER = "X-API-Key"
ENVIRON_HEADER = "HTTP_X_API_KEY"
# RFC 9110 §11.6.1: every 401 names the scheme (the header) that would be accepted.
CHALLENGE = f'{HEADER} realm="public-api"'
MISSING_MESSAGE = "A valid X-API-Key header is required."
UNKNOWN_MESSAGE = "The API key is unknown or revoked."
_MISSING = object()


class KeyCache:
    """Key lookups by hash, reused for a few seconds (``seconds=0``: every request asks)."""

    def __init__(self, seconds, size=10_000):
        self._cache = TTLCache(maxsize=size, ttl=seconds) if seconds > 0 else None
        self._lock = threading.Lock()

    def lookup(self, plain):
        """``(digest, found)``: the key's SHA-256 (what the response cache and counters know
        it by) and ``(key id, festival)`` for a valid key, None for a bad one. Queries the
        database (in the caller's snapshot) only when the key is not in the cache."""
        digest = hash_key(plain)
        return digest, self._find(digest)

    def _find(self, digest):
        if self._cache is None:
            return find_active_key_by_hash(digest)
        with self._lock:
            found = self._cache.get(digest, _MISSING)
        if found is _MISSING:
            found = find_active_key_by_hash(digest)
            with self._lock:
                self._cache[digest] = found
        return found
