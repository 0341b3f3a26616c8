"""Every setting comes from an environment variable with a default (README: Configuration).

Each setting has a parser that either returns its value or raises :class:`SettingError`
with one line naming the setting, the value and what it should be: `festival-api serve`
checks them all before it listens and stops with that line and exit status 2.
"""
import ipaddress
import math
import os
import re

from db.database import DEFAULT_DATABASE_URL


class SettingError(ValueError):
    """A setting's value cannot be used; ``str()`` is one line for the operator."""

    def __init__(self, name, value, expected):
        super().__init__(f"{name}={value!r} is not valid: {expected}")


def _bool(value):
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("expected true or false")


def _list(value):
    return [item.strip() for item in str(value).split(",") if item.strip()]


def whole(low, high=None):
    """A parser of a whole number in ``[low, high]``."""
    def parse(value):
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ValueError("expected a whole number") from None
        if number < low or (high is not None and number > high):
            raise ValueError(f"expected a whole number from {low} to {high}" if high is not None
                             else f"expected a whole number of at least {low}")
        return number
    return parse


def seconds(value):
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError("expected a number of seconds") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError("expected a number of seconds, 0 or more")
    return number


def folder(value):
    """An existing folder, or empty for the default."""
    path = str(value).strip()
    if path and not os.path.isdir(path):
        raise ValueError("expected an existing folder, or empty for the system's temporary folder")
    return path


def rate_limits(value):
    from limits import parse_many

    text = str(value).strip()
    if text:
        try:
            parse_many(text)
        except ValueError:
            raise ValueError("expected e.g. '6000 per minute' or '100/second; 5000/hour' (empty: no limit)") from None
    return text


def private_limit(value):
    """A budget that may not be empty: a filter on a private value always has one."""
    text = rate_limits(value)
    if not text:
        raise ValueError("expected e.g. '10 per minute' (a filter on a private value always has a budget)")
    return text


def storage_uri(value):
    text = str(value).strip()
    if not re.match(r"^(memory://|redis://|rediss://|redis\+)", text):
        raise ValueError("expected memory:// or redis://HOST:PORT/DB")
    return text


def log_level(value):
    text = str(value).strip().upper()
    if text not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError("expected DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return text


HOSTNAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")


def host(value):
    text = str(value).strip()
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    # A name made of digits and dots is a mistyped address, not a host name.
    if not HOSTNAME.match(text) or re.fullmatch(r"[0-9.]+", text):
        raise ValueError("expected an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name")
    return text


port = whole(1, 65535)

# name -> (default, parser, description); the README table lists the same settings.
SETTINGS = {
    "DATABASE_URL": (DEFAULT_DATABASE_URL, str, "sqlite:///PATH or postgresql://USER@HOST:PORT/DB"),
    "DATABASE_READONLY": ("true", _bool, "Open the database read-only in the HTTP service (SQLite mode=ro, PostgreSQL read-only sessions)"),
    "DATABASE_CONNECT_TIMEOUT": ("3", whole(2, 600), "Seconds the HTTP service waits to connect to PostgreSQL before answering 503 (libpq's minimum is 2)"),
    "DATABASE_STATEMENT_TIMEOUT_MS": ("5000", whole(0, 3_600_000), "Longest a PostgreSQL statement of the HTTP service may run, in milliseconds, before the server cancels it (0: no limit); a request's are bounded by DATABASE_REQUEST_DEADLINE_MS too"),
    "DATABASE_REQUEST_DEADLINE_MS": ("1000", whole(0, 3_600_000), "Longest one request waits for PostgreSQL in all, connecting included, in milliseconds, before it is answered 503 (0: only the connect and statement timeouts)"),
    "LOCAL_COPY": ("true", _bool, "On PostgreSQL, read pages from a local SQLite copy of the compiled tables, brought up to date when a festival's revision moves, which each process learns from the server's notifications: a request asks PostgreSQL nothing (false: every read goes to PostgreSQL; use it behind a transaction-mode pooler)"),
    "LOCAL_COPY_DIR": ("", folder, "Folder in which each process makes the private folder of its local copy (about twice the size of the festival's compiled tables); empty: the system's temporary folder"),
    "API_KEY_CACHE_SECONDS": ("5", seconds, "How long a key lookup is reused; a revoked key stops working within this time"),
    "RESPONSE_CACHE_SECONDS": ("5", seconds, "How long an identical request at the same data revision is answered from memory (0 disables)"),
    "RESPONSE_CACHE_ENTRIES": ("2000", whole(0), "Most responses kept in the in-memory response cache"),
    "RESPONSE_CACHE_MB": ("256", whole(0), "Most memory the response cache's answers take per process, in MB (each counted as twice its body, for its compressed copies, and 2 kB); the least recently used make room; 0 disables the cache"),
    "CACHE_MAX_AGE": ("10", whole(0), "max-age of the Cache-Control header of API responses, in seconds"),
    "CACHE_SHARED_MAX_AGE": ("5", whole(0), "s-maxage of answers to URLs that name their festival (festival=): how long a shared cache (nginx, a CDN) reuses one before asking the service again, in seconds"),
    "CACHE_STALE_WHILE_REVALIDATE": ("30", whole(0), "stale-while-revalidate of answers to URLs that name their festival: how long after s-maxage a shared cache may hand out its copy while it asks the service in the background, in seconds (0: not sent)"),
    "CACHE_STALE_IF_ERROR": ("86400", whole(0), "stale-if-error of answers to URLs that name their festival: how long a shared cache may hand out its last copy while the service answers an error or not at all, in seconds (0: not sent)"),
    "CORS_ORIGINS": ("*", _list, "Comma-separated origins allowed to call the API from a browser; * for any"),
    "COMPRESS_MIN_SIZE": ("1024", whole(0), "Responses larger than this many bytes are compressed when the client accepts it"),
    "RATELIMIT_DEFAULT": ("6000 per minute", rate_limits, "Requests allowed per API key and client address; the limits library's syntax; empty disables"),
    "RATELIMIT_PER_KEY": ("", rate_limits, "Optional ceiling on all requests of one API key (a whole festival website's traffic); empty: none"),
    "RATELIMIT_WRONG_KEYS": ("30 per minute", rate_limits, "Requests with a wrong (unknown or revoked) API key allowed per client address; then every wrong key from that address is answered 429 until the window ends (its right keys are answered as ever); empty disables"),
    "RATELIMIT_PRIVATE_FILTER": ("10 per minute", private_limit, "Requests with a filter on a private value (admNoPattern, where a festival turns it on) allowed per API key and client address, on top of RATELIMIT_DEFAULT; never empty"),
    "TRUSTED_PROXIES": ("0", whole(0, 10), "How many reverse proxies in front set X-Forwarded-For; the client address is taken from it only when above 0"),
    "RATELIMIT_STORAGE_URI": ("memory://", storage_uri, "memory:// for one process, redis://HOST:PORT for several"),
    "RATELIMIT_KEY_PREFIX": ("festival-api", str, "Prefix of the rate-limit counters in the storage, so several deployments can share one Redis"),
    "RATELIMIT_STORAGE_TIMEOUT_MS": ("50", whole(1, 10_000), "Longest a rate-limit count waits for Redis, in milliseconds; after a failure the process counts in memory for RATELIMIT_RETRY_SECONDS"),
    "RATELIMIT_RETRY_SECONDS": ("5", seconds, "How long a process counts in memory after Redis failed before it tries Redis again"),
    "IMPORT_WAIT_SECONDS": ("600", seconds, "How long `festival-api import` waits for another import or update to finish before giving up"),
    "IMPORT_MAX_MB": ("100", whole(1), "Most MB one import file may hold: a JSON or CSV file, a sheet, or a .zip's or workbook's contents unpacked (checked in the archive's list of entries before anything is unpacked, and while reading)"),
    "IMPORT_MAX_RATIO": ("100", whole(1), "An entry of a .zip or workbook of 1 MB or more that unpacks to more than this many times its packed size (a zip bomb) is refused"),
    "IMPORT_MAX_ROWS": ("200000", whole(1), "Most rows one CSV file or sheet of an import may have"),
    "IMPORT_MAX_PROBLEMS": ("50", whole(1), "Most problems an import that is refused lists; the rest are counted (… and N more problem(s))"),
    "LOG_LEVEL": ("INFO", log_level, "Level of the access and error log (written to stderr as JSON lines)"),
    "SERVER_TIMING": ("false", _bool, "Send a Server-Timing header on every API answer: the milliseconds its steps took (key, limit, cache, query, render), readable by the pages CORS_ORIGINS allows"),
    "DEMO_PAGE": ("false", _bool, "Serve the demo results page at / (`festival-api demo` turns it on)"),
    "HOST": ("127.0.0.1", host, "Address `festival-api serve` listens on"),
    "PORT": ("8080", port, "Port `festival-api serve` listens on"),
    "THREADS": ("8", whole(1, 256), "Worker threads of `festival-api serve`"),
    "WORKERS": ("1", whole(1, 64), "Processes of `festival-api serve` on one port (SO_REUSEPORT): one per core answers up to that many times more requests; each keeps its own caches and in-memory rate-limit counters (use Redis for one budget)"),
    "PIN_CPU": ("true", _bool, "Keep each process of `festival-api serve` on one CPU (with WORKERS, each on a CPU of its own): a Python process runs on one CPU at a time, and its threads hand the GIL over far faster on one"),
    "CONNECTION_LIMIT": ("2000", whole(10, 100_000), "Most client connections `festival-api serve` keeps open at once (busy and idle); at the limit, a new connection from an address holding less than half as many as the address holding the most takes the place of one of that address's idle ones; others are answered 429 a second later"),
    "CHANNEL_TIMEOUT": ("60", whole(5, 3600), "Seconds an idle client connection is kept open"),
    "CONNECTIONS_PER_ADDRESS": ("100", whole(0, 100_000), "Most connections one client address keeps open in a process of `festival-api serve` (behind TRUSTED_PROXIES: most requests in progress per forwarded address); more are answered 429 at once; 0: no cap"),
    "THREADS_PER_ADDRESS": ("0", whole(0, 256), "Most worker threads the requests of one client address (behind TRUSTED_PROXIES: one forwarded address) hold at once in a process of `festival-api serve`; the requests waiting are taken in turn by address, so others' go first; 0: half of THREADS, rounded up"),
    "PIPELINE_DEPTH": ("8", whole(1, 1000), "Most requests one connection may have sent and not yet been answered (HTTP pipelining); what it sends beyond them is read once they are answered"),
    "SEND_TIMEOUT": ("30", whole(1, 3600), "Seconds a finished answer may wait for its client to read it (held in the connection's buffers, not by a worker thread); then the connection is closed"),
    "HEADER_TIMEOUT": ("5", whole(1, 300), "Seconds a client connection has to send a request's whole headers, from its opening or the request's first byte; then it is closed"),
    "HEALTH_PORT": ("0", whole(0, 65535), "Port on HOST on which `festival-api serve` also answers GET /healthz alone, with a listener and thread of its own that the data port's connections cannot fill; 0: none"),
}


def parse_setting(name, value, shown=None):
    """The value of setting ``name`` from its text; SettingError (naming it ``shown``, e.g.
    the command-line option it came from) if it cannot be used."""
    parse = SETTINGS[name][1]
    try:
        return parse(value)
    except ValueError as error:
        raise SettingError(shown or name, value, str(error)) from None


def load_config(overrides=None, environ=None):
    """Build the Flask config from the environment, then ``overrides``; SettingError if a
    setting in the environment cannot be used."""
    environ = os.environ if environ is None else environ
    overrides = overrides or {}
    config = {name: parse_setting(name, environ.get(name, default))
              for name, (default, _, _) in SETTINGS.items() if name not in overrides}
    config.update(overrides)
    return config
