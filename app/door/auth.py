"""The ``X-API-Key`` header decides whose data a request gets (docs/api-conventions.md).

Keys are stored as their SHA-256; a lookup is reused for ``API_KEY_CACHE_SECONDS``, so a
revoked key stops working within that time. The front door hashes the key once per
request and asks :class:`KeyCache`; a missing, unknown or revoked key is a 401 that names
the scheme (``WWW-Authenticate``).
"""
import threading
import time

from db.source.keys import find_active_key_by_hash, hash_key

HEADER = "X-API-Key"
ENVIRON_HEADER = "HTTP_X_API_KEY"
# RFC 9110 §11.6.1: every 401 names the scheme (the header) that would be accepted.
CHALLENGE = f'{HEADER} realm="public-api"'
MISSING_MESSAGE = "A valid X-API-Key header is required."
UNKNOWN_MESSAGE = "The API key is unknown or revoked."


class KeyCache:
    """Key lookups by hash, reused for a few seconds (``seconds=0``: every request asks).

    A plain dict of ``digest -> (found, expires at)``: a lookup is one dict read, without a
    lock (every request of a cached answer makes one). At ``size`` entries the expired ones
    go; if none has expired, all do.
    """

    def __init__(self, seconds, size=10_000, timer=time.monotonic):
        self._seconds, self._size, self._timer = seconds, size, timer
        self._found = {}
        self._lock = threading.Lock()

    def lookup(self, plain, keep_unknown=True):
        """``(digest, found)``: the key's SHA-256 (what the response cache and counters know
        it by) and ``(key id as text, festival)`` for a valid key, None for a bad one. Queries
        the database (in the caller's snapshot) only when the key is not in the cache; with
        ``keep_unknown=False`` a key found unknown is not kept (a guesser's keys, each new,
        would only push the right ones out)."""
        digest = hash_key(plain)
        return digest, self._find(digest, keep_unknown)

    def _find(self, digest, keep_unknown=True):
        if self._seconds <= 0:
            return _found(digest)
        now = self._timer()
        entry = self._found.get(digest)
        if entry is not None and now < entry[1]:
            return entry[0]
        found = _found(digest)
        if found is None and not keep_unknown:
            return None
        with self._lock:
            if len(self._found) >= self._size:
                kept = {d: e for d, e in self._found.items() if now < e[1]}
                self._found = kept if len(kept) < self._size else {}
            self._found[digest] = (found, now + self._seconds)
        return found


def _found(digest):
    found = find_active_key_by_hash(digest)
    return None if found is None else (str(found[0]), found[1])
