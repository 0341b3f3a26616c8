"""Resolve the festival from the ``X-API-Key`` header (DESIGN.md §1)."""
import threading

from cachetools import TTLCache
from flask import current_app, g, request
from flask_smorest import abort

from db.source.keys import find_active_key, hash_key

HEADER = "X-API-Key"
# RFC 9110 §11.6.1: every 401 names the scheme (the header) that would be accepted.
CHALLENGE = f'{HEADER} realm="public-api"'
_MISSING = object()


class KeyCache:
    """Reuse key lookups for a few seconds; a revoked key stops working after that."""

    def __init__(self, seconds, size=10_000):
        self._cache = TTLCache(maxsize=size, ttl=seconds) if seconds > 0 else None
        self._lock = threading.Lock()

    def cached(self, plain):
        """The cached lookup of ``plain`` (``(key id, festival)`` or None for a bad key), or
        False when it is not in the cache: no database query."""
        if self._cache is None:
            return False
        with self._lock:
            return self._cache.get(hash_key(plain), False)

    def lookup(self, plain):
        if self._cache is None:
            return find_active_key(plain)
        digest = hash_key(plain)
        with self._lock:
            found = self._cache.get(digest, _MISSING)
        if found is _MISSING:
            found = find_active_key(plain)
            with self._lock:
                self._cache[digest] = found
        return found


def authenticate():
    """Set ``g.festival`` and ``g.api_key_id`` or answer 401; preflight needs no key."""
    if request.method == "OPTIONS":
        return
    plain = request.headers.get(HEADER, "").strip()
    found = current_app.extensions["festival_keys"].lookup(plain) if plain else None
    if found is None:
        abort(401, message="A valid X-API-Key header is required." if not plain
              else "The API key is unknown or revoked.", headers={"WWW-Authenticate": CHALLENGE})
    g.api_key_id, g.festival = found
