"""Rate limits with Flask-Limiter: per API key and client address, and an optional per-key ceiling.

A key serves a festival's whole website, so on result day its visitors together make a
great many requests; the default budget (``RATELIMIT_DEFAULT``) is therefore counted per
key *and* client address, so one busy client never locks out the others. An operator may
also cap a key's total (``RATELIMIT_PER_KEY``). The client address is the connection's,
or, behind ``TRUSTED_PROXIES`` reverse proxies, the one they put in ``X-Forwarded-For``
(Werkzeug's ProxyFix); the header is ignored otherwise, so clients cannot choose their
address.

Counters name the key's id, never the plain key. Requests without a valid key never reach
the limiter: authentication answers them with a 401 first. Preflight ``OPTIONS``,
``/healthz``, the docs and the demo page carry no key and are not limited.
"""
import threading
import time

from flask import g, request
from flask_limiter import Limit, Limiter
from limits.storage import MemoryStorage
from werkzeug.middleware.proxy_fix import ProxyFix

# Sent on every limited response; browsers may read them (app/http.py exposes them).
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After")

# All endpoints share one counter per key and address (and one per key) instead of one
# counter per endpoint.
SCOPE = "public-api"
KEY_SCOPE = "public-api-key"


class SweptMemoryStorage(MemoryStorage):
    """limits' in-process counters, with expired counters swept inline once a second.

    ``MemoryStorage`` starts a timer thread to sweep whenever its last one has finished:
    under steady traffic that is a new thread for nearly every request, which cost more
    than the rest of a cached answer. Counters past their window already read as 0; the
    sweep only frees their memory, so once a second is plenty.
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


def rate_limit_key():
    """The id of the request's API key (set by app.auth.authenticate)."""
    return f"key:{g.api_key_id}"


def key_and_address():
    """The id of the request's API key and the client's address."""
    return f"key:{g.api_key_id}:addr:{request.remote_addr}"


def _has_no_key():
    return "api_key_id" not in g


def _retry_after_only_when_limited(response):
    # Flask-Limiter sends Retry-After with every limited response; it only means
    # something on a 429.
    if response.status_code != 429:
        response.headers.pop("Retry-After", None)
    return response


def trust_proxies(app):
    """Take the client address from ``X-Forwarded-For`` when ``TRUSTED_PROXIES`` says how many set it."""
    proxies = app.config["TRUSTED_PROXIES"]
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)
        return

    warned = []

    @app.before_request
    def warn_once_about_an_untrusted_proxy():
        # Behind a proxy that is not trusted, every client has the proxy's address.
        if not warned and "X-Forwarded-For" in request.headers:
            warned.append(True)
            app.logger.warning("requests carry X-Forwarded-For but TRUSTED_PROXIES is 0: rate limits count "
                        "every client as the proxy's address; set TRUSTED_PROXIES to the number of proxies")


def init_rate_limits(app):
    """Limit each key and address to ``RATELIMIT_DEFAULT``; call after the key is resolved."""
    trust_proxies(app)
    limits = []
    budget = app.config["RATELIMIT_DEFAULT"].strip()
    if budget:
        limits.append(Limit(budget, key_function=key_and_address, scope=SCOPE, shared=True,
                            exempt_when=_has_no_key))
    ceiling = app.config["RATELIMIT_PER_KEY"].strip()
    if ceiling:
        limits.append(Limit(ceiling, key_function=rate_limit_key, scope=KEY_SCOPE, shared=True,
                            exempt_when=_has_no_key))
    if not limits:
        return None
    storage_uri = app.config["RATELIMIT_STORAGE_URI"]
    if storage_uri.startswith("memory://"):
        storage_uri = "swept-" + storage_uri
    storage_options = {}
    if storage_uri.startswith(("redis://", "rediss://", "redis+")):
        # A Redis that stops answering must not hold requests for long.
        storage_options = {"socket_connect_timeout": 1, "socket_timeout": 1}
    # Registered before the limiter's own hook, so it runs after it.
    app.after_request(_retry_after_only_when_limited)
    limiter = Limiter(
        rate_limit_key,
        default_limits=limits,
        storage_uri=storage_uri,
        storage_options=storage_options,
        key_prefix=app.config["RATELIMIT_KEY_PREFIX"],
        strategy="fixed-window",
        headers_enabled=True,
        # If the shared storage fails, count in memory rather than fail requests.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
    )
    limiter.init_app(app)
    app.extensions["festival_limiter"] = limiter
    return limiter
