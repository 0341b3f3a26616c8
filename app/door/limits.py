"""Rate limits per API key and client address, and an optional per-key ceiling.

A key serves a festival's whole website, so on result day its visitors together make a
great many requests; the default budget (``RATELIMIT_DEFAULT``) is therefore counted per
key *and* client address, so one busy client never locks out the others. An operator may
also cap a key's total (``RATELIMIT_PER_KEY``). The client address is the connection's,
or, behind ``TRUSTED_PROXIES`` reverse proxies, the one they put in ``X-Forwarded-For``
(Werkzeug's ProxyFix); the header is ignored otherwise, so clients cannot choose their
address.

Counting is done by the ``limits`` library (fixed windows, in memory or in Redis), through
:class:`RateLimits`, which the front door (``app/door/__init__.py``) calls once per request,
whether the answer comes from the response cache or from a view. A ``304`` costs nothing:
a conditional request is counted only when its answer is not one (while a budget is spent,
every request is a 429, conditional or not: whether it would be a 304 is known only once
its answer is made).
Counters name the key's id, never the plain key. Requests without a valid key never reach
the key's budgets: authentication answers them with a 401 first. But wrong keys have a
budget of their own per client address (``RATELIMIT_WRONG_KEYS``, in the same storage):
past it, every wrong key from that address is answered ``429`` until the window ends,
while a right key from it is answered as ever (:meth:`RateLimits.wrong_key`,
:meth:`RateLimits.barred`): the budget throttles wrong keys only, so a stale tab with a
revoked key never locks out the valid key of everyone else behind the same address (a
school's NAT). Preflight ``OPTIONS``,
``/healthz``, the docs and the demo page carry no key and are not limited; a request
without any key is a ``401`` that costs no lookup, and is not counted. A filter on a
private value (``admNoPattern``) has a small budget of its own on top
(``RATELIMIT_PRIVATE_FILTER``, :func:`make_private_filter_limits`).
"""
import math
import threading
import time

from limits import parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.middleware.proxy_fix import ProxyFix

# Sent on every limited response; browsers may read them (app/door/headers.py exposes them).
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After")

# The counters' names in the storage: all endpoints share one counter per key and address
# (and one per key) instead of one counter per endpoint.
KEY_AND_ADDRESS_COUNTER = "public-api"
KEY_COUNTER = "public-api-key"
WRONG_KEY_COUNTER = "public-api-wrong-key"
# Most addresses a process remembers as over their wrong-key budget; past it, the ones
# whose window ended are forgotten (and, if none has, all of them).
BARRED_ADDRESSES = 10_000


class SweptMemoryStorage(MemoryStorage):
    """limits' in-process counters, with expired counters swept inline once a second.

    ``MemoryStorage`` starts a timer thread to sweep whenever its last one has finished:
    under steady traffic that is a new thread for nearly every request, which cost more
    than the rest of a cached answer. Counters past their window already read as 0; the
    sweep only frees their memory, so once a second is plenty.

    The one place the service reaches into limits' internals (the name-mangled
    ``_MemoryStorage__schedule_expiry`` and ``__expire_events``): written against limits
    5.8, which setup.cfg bounds (``<5.9``); tests/test_rate_limit.py holds it.
    """

    STORAGE_SCHEME = ["swept-memory"]
    SWEEP_SECONDS = 1.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._next_sweep = 0.0
        self._sweep_lock = threading.Lock()

    def _MemoryStorage__schedule_expiry(self):
        now = time.monotonic()
        if now >= self._next_sweep and self._sweep_lock.acquire(blocking=False):
            try:
                self._next_sweep = now + self.SWEEP_SECONDS
                self._MemoryStorage__expire_events()
            finally:
                self._sweep_lock.release()


class RateLimits:
    """The budgets of a deployment and their counters."""

    def __init__(self, per_address, per_key, storage_uri, key_prefix, logger=None,
                 timeout_ms=50, retry_seconds=5.0, wrong_keys=""):
        self.per_address = parse_many(per_address) if per_address else []
        self.per_key = parse_many(per_key) if per_key else []
        self.wrong_keys = parse_many(wrong_keys) if wrong_keys else []
        self._barred = {}  # address -> (time.time() when its wrong-key window ends, headers)
        self.key_prefix = key_prefix
        self.logger = logger
        options = {}
        if storage_uri.startswith("memory://"):
            storage_uri = "swept-" + storage_uri
        elif storage_uri.startswith(("redis://", "rediss://", "redis+")):
            # A Redis that hangs must cost a request at most one short wait, once: no
            # retries (redis-py retries 3 times with back-off by default).
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            timeout = timeout_ms / 1000
            options = {"socket_connect_timeout": timeout, "socket_timeout": timeout,
                       "retry": Retry(NoBackoff(), 0)}
        self.storage = storage_from_string(storage_uri, **options)
        self._limiter = FixedWindowRateLimiter(self.storage)
        # If the shared storage fails, count in memory for retry_seconds, then try again.
        self._fallback = FixedWindowRateLimiter(SweptMemoryStorage("swept-memory://"))
        self._retry_seconds = retry_seconds
        self._shared_from = 0.0  # monotonic time from which the shared storage is tried
        self._breaker_lock = threading.Lock()

    @property
    def enabled(self):
        return bool(self.per_address or self.per_key or self.wrong_keys)

    @property
    def counts_requests(self):
        return bool(self.per_address or self.per_key)

    def _checks(self, key_id, address):
        for item in self.per_address:
            yield item, (self.key_prefix, f"key:{key_id}:addr:{address}", KEY_AND_ADDRESS_COUNTER)
        for item in self.per_key:
            yield item, (self.key_prefix, f"key:{key_id}", KEY_COUNTER)

    def _ask(self, item, identifiers, spend):
        if time.monotonic() >= self._shared_from:
            try:
                return _window(self._limiter, item, identifiers, spend)
            except Exception as error:  # any storage failure: count in memory for a while
                self._storage_failed(error)
        return _window(self._fallback, item, identifiers, spend)

    def _storage_failed(self, error):
        """Stop using the shared storage for ``retry_seconds``: the requests meanwhile
        count in memory at once instead of each waiting for a storage that hangs."""
        with self._breaker_lock:
            now = time.monotonic()
            if now < self._shared_from:
                return  # another thread already switched
            self._shared_from = now + self._retry_seconds
        if self.logger:
            self.logger.warning("rate-limit storage failed, counting in memory for %ss: %s",
                                self._retry_seconds, error)

    def count(self, key_id, address, spend=True):
        """Count one request; return ``(allowed, headers)``. With ``spend=False`` nothing is
        counted: ``allowed`` says whether one more request would be, and the headers show the
        budget as it is (a request that may be answered ``304``, which costs nothing).

        The headers describe the limit that refused the request, or else the one closest
        to running out; ``Retry-After`` is sent only on a refusal.
        """
        shown = None
        for item, identifiers in self._checks(key_id, address):
            allowed, stats = self._ask(item, identifiers, spend)
            if not allowed:
                return False, _refusal_headers(item, stats)
            if shown is None or stats.remaining < shown[1].remaining:
                shown = (item, stats)
        item, stats = shown
        return True, [("X-RateLimit-Limit", str(item.amount)), ("X-RateLimit-Remaining", str(stats.remaining)),
                      ("X-RateLimit-Reset", str(int(stats.reset_time)))]

    def wrong_key(self, address):
        """Count a request from ``address`` whose key was wrong; return ``(allowed, headers)``:
        not allowed once the address is over ``RATELIMIT_WRONG_KEYS``, which bars its wrong
        keys (:meth:`barred`) until the window ends."""
        for item in self.wrong_keys:
            allowed, stats = self._ask(item, (self.key_prefix, f"addr:{address}", WRONG_KEY_COUNTER), True)
            if not allowed:
                headers = _refusal_headers(item, stats)
                self._bar(address, stats.reset_time, headers)
                return False, headers
        return True, []

    def barred(self, address):
        """The ``429`` headers for a wrong key from ``address`` while it is over its wrong-key
        budget, else None: one lookup in this process's memory, no storage asked."""
        found = self._barred.get(address)
        if found is None:
            return None
        if time.time() >= found[0]:
            self._barred.pop(address, None)
            return None
        return _refusal_headers_at(found)

    def _bar(self, address, until, headers):
        barred = self._barred
        if len(barred) >= BARRED_ADDRESSES:
            now = time.time()
            kept = {a: e for a, e in barred.items() if e[0] > now}
            self._barred = barred = kept if len(kept) < BARRED_ADDRESSES else {}
        barred[address] = (until, headers)


def _window(limiter, item, identifiers, spend):
    """``(allowed, window stats)`` of one limit, after one request is counted (``spend``), or
    as they are: then allowed while the window has a request left."""
    if spend:
        allowed = limiter.hit(item, *identifiers)
        return allowed, limiter.get_window_stats(item, *identifiers)
    stats = limiter.get_window_stats(item, *identifiers)
    return stats.remaining > 0, stats


def _refusal_headers(item, stats):
    return [("X-RateLimit-Limit", str(item.amount)), ("X-RateLimit-Remaining", "0"),
            ("X-RateLimit-Reset", str(int(stats.reset_time))),
            ("Retry-After", str(max(1, math.ceil(stats.reset_time - time.time()))))]


def _refusal_headers_at(found):
    """A barred address's headers, ``Retry-After`` counted from now."""
    until, headers = found
    return [*headers[:3], ("Retry-After", str(max(1, math.ceil(until - time.time()))))]


def make_rate_limits(config, logger=None):
    """The deployment's :class:`RateLimits`, or None when no budget is set."""
    limits = RateLimits(config["RATELIMIT_DEFAULT"].strip(), config["RATELIMIT_PER_KEY"].strip(),
                        config["RATELIMIT_STORAGE_URI"], config["RATELIMIT_KEY_PREFIX"], logger=logger,
                        timeout_ms=config["RATELIMIT_STORAGE_TIMEOUT_MS"],
                        retry_seconds=config["RATELIMIT_RETRY_SECONDS"],
                        wrong_keys=config.get("RATELIMIT_WRONG_KEYS", "").strip())
    return limits if limits.enabled else None


def make_private_filter_limits(config, logger=None):
    """The budget of requests that filter on a private value (``RATELIMIT_PRIVATE_FILTER``),
    per key and address, counted apart from the others (counters of their own prefix) in
    the same storage, so several processes share it through Redis."""
    return RateLimits(config["RATELIMIT_PRIVATE_FILTER"].strip(), "", config["RATELIMIT_STORAGE_URI"],
                      config["RATELIMIT_KEY_PREFIX"] + ":private-filter", logger=logger,
                      timeout_ms=config["RATELIMIT_STORAGE_TIMEOUT_MS"],
                      retry_seconds=config["RATELIMIT_RETRY_SECONDS"])


def trust_proxies(wsgi_app, proxies):
    """Take the client address from ``X-Forwarded-For`` when ``proxies`` (``TRUSTED_PROXIES``)
    says how many reverse proxies set it; otherwise the header is ignored."""
    return ProxyFix(wsgi_app, x_for=proxies) if proxies > 0 else wsgi_app
