"""The hit path: a repeated API ``GET`` answered from the response cache without Flask.

On result day most requests repeat one another within seconds. Once an answer is in the
response cache (``app/caching.py``) and the Flask path has sent it once, everything about
sending it again is known: its body, each compressed copy, and the headers the Flask path
finished it with (CORS, caching, ``Vary``, ETag). This WSGI layer, in front of Flask, does
the little that is left — resolve the key from the key cache, read the revision (only
after a commit: ``PRAGMA data_version``), count the request against the rate limits, log
it — and replays the answer: a ``304`` when the client's ``If-None-Match`` holds the
ETag, the stored body otherwise. Anything it does not know (a key not in the cache, an
answer not cached or not yet sent for this ``Accept-Encoding`` and ``Origin``, a refused
rate limit, any other method) goes to Flask, which answers as always and teaches the hit
path its headers for next time.
"""
import time

from werkzeug.http import is_resource_modified
from werkzeug.wrappers import Request

from db.database import database, is_postgres

from .access_log import log_request
from .caching import ENVIRON_ENTRY

# Headers made again for every answer: by the server, or by the rate limiter.
_REPLAYED_EXCEPT = {"date", "server", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset",
                    "retry-after"}


def replay_key(status, environ):
    return status, environ.get("HTTP_ACCEPT_ENCODING", ""), environ.get("HTTP_ORIGIN", "")


class HitPath:
    """WSGI middleware: cache hits and 304s outside Flask (see the module doc)."""

    def __init__(self, app, wsgi_app, prefix):
        self.app = app
        self.wsgi_app = wsgi_app
        self.prefix = prefix
        self.cache = app.extensions["response_cache"]
        self.keys = app.extensions["festival_keys"]
        self.limits = app.extensions.get("festival_limiter")
        self.revisions = app.extensions["festival_revisions"]

    def __call__(self, environ, start_response):
        if (environ.get("REQUEST_METHOD") != "GET" or not self.cache.enabled
                or not environ.get("PATH_INFO", "").startswith(self.prefix)):
            return self.wsgi_app(environ, start_response)
        answer = self._answer(environ)
        if answer is None:
            return self._through_flask(environ, start_response)
        status, headers, body = answer
        start_response(status, headers)
        return [body]

    def _answer(self, environ):
        started = time.perf_counter()
        plain = environ.get("HTTP_X_API_KEY", "").strip()
        found = self.keys.cached(plain) if plain else None
        if not found:
            return None
        key_id, festival = found
        request = Request(environ)
        db = database.obj
        try:
            db.connect(reuse_if_open=True)
            version = None if is_postgres(db) else db.connection().execute("PRAGMA data_version").fetchone()[0]
            revision, _ = self.revisions.revision(festival.id, version)
        except Exception:  # any database trouble: Flask answers (503) as usual
            return None
        query = tuple(sorted(request.args.items(multi=True), key=lambda item: item[0]))
        entry = self.cache.get((key_id, festival.id, revision, request.path, query))
        if entry is None:
            return None
        not_modified = not is_resource_modified(environ, etag=entry.etag)
        status = 304 if not_modified else 200
        recorded = entry.replays.get(replay_key(status, environ))
        if recorded is None:
            return None
        headers = list(recorded)
        if self.limits is not None:
            allowed, limit_headers = self.limits.count(key_id, request.remote_addr)
            if not allowed:
                return None  # Flask answers the 429 (and counts it again: the client is over anyway)
            headers += limit_headers
        body = b"" if not_modified else entry.encoded_body(environ.get("HTTP_ACCEPT_ENCODING", ""))
        if body is None:
            return None
        log_request(method="GET", path=request.path, query=request.args.keys(), status=status,
                    started=started, festival=festival, key_id=key_id, size=len(body), cache="hit")
        return ("304 NOT MODIFIED" if not_modified else "200 OK"), headers, body

    def _through_flask(self, environ, start_response):
        def learn(status, headers, exc_info=None):
            entry = environ.get(ENVIRON_ENTRY)
            code = int(status.split(" ", 1)[0])
            if entry is not None and code in (200, 304):
                entry.remember_replay(replay_key(code, environ), [
                    (name, value) for name, value in headers if name.lower() not in _REPLAYED_EXCEPT])
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, learn)
