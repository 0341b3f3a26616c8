"""Every setting comes from an environment variable with a default (README: Configuration)."""
import os

from db.database import DEFAULT_DATABASE_URL


def _bool(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _list(value):
    return [item.strip() for item in str(value).split(",") if item.strip()]


# name -> (default, parser, description); the README table lists the same settings.
SETTINGS = {
    "DATABASE_URL": (DEFAULT_DATABASE_URL, str, "sqlite:///PATH or postgresql://USER@HOST:PORT/DB"),
    "DATABASE_READONLY": ("true", _bool, "Open the database read-only in the HTTP service (SQLite mode=ro, PostgreSQL read-only sessions)"),
    "API_KEY_CACHE_SECONDS": ("5", float, "How long a key lookup is reused; a revoked key stops working within this time"),
    "RESPONSE_CACHE_SECONDS": ("5", float, "How long an identical request at the same data revision is answered from memory (0 disables)"),
    "RESPONSE_CACHE_ENTRIES": ("2000", int, "Most responses kept in the in-memory response cache"),
    "CACHE_MAX_AGE": ("10", int, "max-age of the Cache-Control header of API responses, in seconds"),
    "CORS_ORIGINS": ("*", _list, "Comma-separated origins allowed to call the API from a browser; * for any"),
    "COMPRESS_MIN_SIZE": ("1024", int, "Responses larger than this many bytes are compressed when the client accepts it"),
    "RATELIMIT_DEFAULT": ("6000 per minute", str, "Requests allowed per API key and client address; the limits library's syntax; empty disables"),
    "RATELIMIT_PER_KEY": ("", str, "Optional ceiling on all requests of one API key (a whole festival website's traffic); empty: none"),
    "TRUSTED_PROXIES": ("0", int, "How many reverse proxies in front set X-Forwarded-For; the client address is taken from it only when above 0"),
    "RATELIMIT_STORAGE_URI": ("memory://", str, "memory:// for one process, redis://HOST:PORT for several"),
    "RATELIMIT_KEY_PREFIX": ("festival-api", str, "Prefix of the rate-limit counters in the storage, so several deployments can share one Redis"),
    "LOG_LEVEL": ("INFO", str, "Level of the access and error log (written to stderr as JSON lines)"),
    "DEMO_PAGE": ("false", _bool, "Serve the demo results page at / (`festival-api demo` turns it on)"),
    "HOST": ("127.0.0.1", str, "Address `festival-api serve` listens on"),
    "PORT": ("8080", int, "Port `festival-api serve` listens on"),
    "THREADS": ("8", int, "Worker threads of `festival-api serve`"),
}


def load_config(overrides=None, environ=None):
    """Build the Flask config from the environment, then ``overrides``."""
    environ = os.environ if environ is None else environ
    config = {}
    for name, (default, parse, _) in SETTINGS.items():
        config[name] = parse(environ.get(name, default))
    config.update(overrides or {})
    return config
