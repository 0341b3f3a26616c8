"""The front door: one WSGI layer that every request passes, in front of Flask.

A ``GET`` (or ``HEAD``) of a data endpoint passes these steps, in this order (``STEPS``:
each a method of :class:`FrontDoor` that answers, and the request goes no further, or lets it
go on; the last one always answers):

1. ``reads``: the request's reads begun (``db/serving/__init__.py``), without a read
   snapshot: an answer from the response cache needs none;
2. ``key``: the API key (``app/door/auth.py``): hashed once, looked up in the key cache or
   the database, 401 when missing, unknown or revoked; a wrong key counts against its
   address's budget for wrong keys (``app/door/limits.py``), and past it that address's
   wrong keys are answered 429; a right key is answered whatever its address's wrong keys;
3. ``revision``: the key's festival's data revision (on SQLite it is read again only after
   a commit; on PostgreSQL with the local copy it is known from the server's notifications);
4. ``festival_url``: a URL that names its festival (``app/door/festival_url.py``) names the
   key's, else 403 (400 when named twice);
5. ``rate_limits`` (``app/door/limits.py``), counted once per request that is not answered
   ``304``: 429 when over budget. A conditional request (``If-None-Match``) is only looked
   at here, and counted once its answer is known to be something else (8.). A request with a
   filter on a private value (``schemas.candidates.PRIVATE_PARAMETERS``) is counted against
   a small budget of its own as well; it is never answered from or kept in the response
   cache, gets no ETag and is marked ``Cache-Control: private, no-store``;
6. ``response_cache`` (``app/door/response_cache.py``): an identical request at the same
   revision is answered from memory; on a miss, identical requests wait for the one making it;
7. ``view``, on a miss: the request's read snapshot begins (on the local copy when it holds
   that revision), and the endpoint's :class:`~app.views.operations.Operation` loads its
   parameters by the plan made from its flask-smorest argument schema and calls its view
   with the festival at that revision (``FestivalAtRevision``, ``app/door/request.py``),
   which stitches the answer and calls nothing back; a ``200`` is given its weak ETag (its
   data without the revision: ``app/door/headers.py``) and kept in the cache. Flask is not
   entered: its routes are the API's description (the OpenAPI document) and serve
   everything else;
8. ``not_modified``: ``304`` for a matching ``If-None-Match``, from the cache or not;
   any other answer to a conditional request is counted against the rate limits now.

Then every answer under the API prefix, whoever made it, gets compression, CORS, ``Vary``
and ``Cache-Control`` (``app/door/headers.py``), the festival's current revision
(``X-Data-Revision``) and the rate-limit headers; and every request one access-log line
(``app/door/access_log.py``; under ``festival-api serve`` written after the answer, and
held while requests wait).

What the door sees of a request as it passes these steps is one record, its
:class:`~app.door.observation.Observation`: the access line is written from it and, with
``SERVER_TIMING`` on, the ``Server-Timing`` header of an API answer (its time by kind of
work: ``key``, ``limit``, ``cache``, ``query``, ``render``) is made from it.

Requests outside the API's data endpoints (``/healthz``, the documentation, the demo page,
unknown paths, other methods) go to Flask with no key and no snapshot; the front door
still finishes and logs them. Errors have one shape whoever finds them: the door renders a
view's ``abort`` and bad parameters with the same handler Flask uses for its own. A request
that met a connection the database server had closed (a restart, a failover) is answered
once more on new connections (its steps again, none counted twice): it has changed nothing.
"""

import time

import marshmallow as ma
import orjson
from werkzeug.exceptions import BadRequest, HTTPException, InternalServerError
from werkzeug.http import HTTP_STATUS_CODES

from db.serving import DATABASE_ERRORS, ServiceDatabase, Unavailable
from db.serving.deadlines import is_deadline_error
from schemas.candidates import PRIVATE_PARAMETERS

from .access_log import hold_observation, log_observation, write_held
from .auth import CHALLENGE, ENVIRON_HEADER, MISSING_MESSAGE, UNKNOWN_MESSAGE, KeyCache
from .errors import error_json, query_messages
from .festival_url import PARAMETER as FESTIVAL_PARAMETER, REPEATED_MESSAGE, named_festival, refusal_message
from .headers import ALLOW, REVISION_HEADER, ApiHeaders, compress, not_modified, weak_etag
from .healthz import HealthCheck
from .limits import make_private_filter_limits, make_rate_limits
from .observation import CACHE, KEY, LIMIT, QUERY, RENDER, SERVER_TIMING, Observation
from .quiet_log import QuietLog
from .request import AFTER_ANSWER, MAX_PARSED_LENGTH, FestivalAtRevision, RequestState
from .response_cache import CachedResponse, ResponseCache, without_body_headers

# The steps of a data request, in order (the module's doc): each is the door's method
# ``_<step>(environ, state)``, which returns an Answer to stop there or None to go on.
STEPS = ("reads", "key", "revision", "festival_url", "rate_limits", "response_cache", "view", "not_modified")

# Headers of a view's answer that the front door makes again for every answer it sends.
_MADE_AGAIN = {"content-length", "content-encoding", "etag", "date"}

_REASONS = {200: "200 OK", 304: "304 NOT MODIFIED"}

WRONG_KEYS_MESSAGE = ("Too many requests with a wrong API key from this address; "
                      "try again after Retry-After seconds.")


class Answer:
    """An answer on its way out: status, headers, body and, for a ``200``, its weak ETag."""

    __slots__ = ("status", "headers", "body", "etag", "entry")

    def __init__(self, status, headers, body, etag=None, entry=None):
        self.status, self.headers, self.body, self.etag, self.entry = status, headers, body, etag, entry


class FrontDoor:
    """WSGI middleware around the Flask app (see the module doc)."""

    def __init__(self, app, prefix):
        config = app.config
        self.flask = app.wsgi_app
        self.logger = app.logger
        self.prefix = prefix
        self.database = ServiceDatabase(config["DATABASE_URL"], readonly=config["DATABASE_READONLY"],
                                        connect_timeout=config["DATABASE_CONNECT_TIMEOUT"],
                                        statement_timeout_ms=config["DATABASE_STATEMENT_TIMEOUT_MS"],
                                        request_deadline_ms=config["DATABASE_REQUEST_DEADLINE_MS"],
                                        local_copy=config["LOCAL_COPY"], local_copy_dir=config["LOCAL_COPY_DIR"],
                                        logger=app.logger)
        self.health = HealthCheck(config["DATABASE_URL"], self.database, app.logger)
        self.outages = QuietLog(app.logger)  # a failing database: one line per cause per 10 s
        self.keys = KeyCache(config["API_KEY_CACHE_SECONDS"])
        self.limits = make_rate_limits(config, logger=app.logger)
        self.private_limits = make_private_filter_limits(config, logger=app.logger)
        self.cache = ResponseCache(config["RESPONSE_CACHE_SECONDS"], config["RESPONSE_CACHE_ENTRIES"],
                                   max_bytes=config["RESPONSE_CACHE_MB"] * 2**20)
        self.headers = ApiHeaders(config)
        self.festivals = {}  # festival id -> its FestivalAtRevision, at the latest revision asked for
        self.steps = tuple(getattr(self, f"_{step}") for step in STEPS)
        self.timed = config["SERVER_TIMING"]
        # Worked out once: every request asks.
        self._bars_wrong_keys = self.limits is not None and bool(self.limits.wrong_keys)
        self._counts_requests = self.limits is not None and self.limits.counts_requests
        self.trusts_proxies = config["TRUSTED_PROXIES"] > 0
        self._warned_about_proxy = False
        self.operations = {}  # path -> Operation: GET needs a key and reads the database
        self.data_paths = frozenset()
        self.open_paths = frozenset()  # under the prefix, but no key: the API's documentation
        self.http_error = None  # HTTPException -> (payload, status, headers), as Flask answers it

    def serve(self, operations, open_paths, http_error):
        """Serve the API's data endpoints (``{path: Operation}``), let its documentation's paths
        through without a key, and render errors with ``http_error`` (taken from the app)."""
        self.operations = dict(operations)
        self.data_paths, self.open_paths = frozenset(self.operations), frozenset(open_paths)
        self.http_error = http_error

    def close(self):
        """Close the door's database (:meth:`db.serving.ServiceDatabase.close`): an app that
        is done with, e.g. a test's, leaves no connection or watch behind."""
        self.database.close()

    # -- the door ----------------------------------------------------------------------

    def __call__(self, environ, start_response):
        query_string = environ.get("QUERY_STRING")
        state = RequestState(query_string, Observation(self.timed))
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if path in self.data_paths and method in ("GET", "HEAD"):
            if state.query:
                state.private, state.named = _query_facts(query_string, state.query)
            answer = self._data(environ, state)
        elif method == "OPTIONS" and (path in self.data_paths or path in self.open_paths):
            # Its CORS headers, like every answer's, are added once on the way out (_send).
            answer = Answer(200, [ALLOW], b"")
        elif path.startswith("//"):
            # "//public-api/..." would match a route once the router drops the leading slash.
            answer = self._error(404)
        else:
            answer = self._through_flask(environ)
        return self._send(environ, start_response, answer, state)

    def _data(self, environ, state):
        """The answer to a ``GET`` of a data endpoint."""
        self._notice_forwarding(environ)
        try:
            if self.database.has_request_deadline:
                with self.database.deadline():
                    return self._attempts(environ, state)
            return self._attempts(environ, state)
        finally:
            if self.outages.held:  # repeats held back while the database failed
                self.outages.flush()

    def _attempts(self, environ, state):
        """The answer, once more on new connections when the first met a killed one."""
        for attempt in (1, 2):
            try:
                return self._answer(environ, state)
            except Unavailable as error:
                self.outages.error(f"unavailable: {error}", "database unavailable: %s", error)
                return self._error(503)
            except DATABASE_ERRORS as error:
                if attempt == 1 and self.database.killed(error):
                    # The server closed a connection (restart, failover): the request has
                    # changed nothing, so it is answered once more on new connections.
                    self.database.failed(error)
                    continue
                return self._database_failed(error)
            finally:
                self.database.end()

    def _answer(self, environ, state):
        """The answer of the first step that answers (``STEPS``)."""
        try:
            for step in self.steps:
                answer = step(environ, state)
                if answer is not None:
                    return answer
        finally:
            if state.maker is not None:  # the answer this request was making failed: the
                self.cache.made(state.cache_key, state.maker)  # requests waiting for it make it
                state.maker = None

    # -- the steps (STEPS, in order) ---------------------------------------------------

    def _reads(self, environ, state):
        state.revision_of = self.database.begin()
        if state.seen.steps is not None:
            state.seen.lap(QUERY)

    def _key(self, environ, state):
        seen = state.seen
        plain = environ.get(ENVIRON_HEADER, "").strip()
        barred = None
        if plain and self._bars_wrong_keys:
            barred = self.limits.barred(environ.get("REMOTE_ADDR"))
            if seen.steps is not None:
                seen.lap(LIMIT)
        # Every key is looked up, whatever its address's wrong keys: a right one is answered
        # (a school's valid key beside a stale tab at the same address); a barred address's
        # unknown keys are not kept in the key cache, so guesses cannot crowd it out.
        state.digest, found = self.keys.lookup(plain, keep_unknown=barred is None) if plain else (None, None)
        if seen.steps is not None:
            seen.lap(KEY)
        if found is None:
            if barred is not None:  # over its wrong-key budget: wrong keys wait, uncounted
                state.limit_headers = barred
                return self._error(429, WRONG_KEYS_MESSAGE, [])
            return self._unauthorized(environ, state, plain)
        state.key_id, state.festival = found

    def _revision(self, environ, state):
        state.revision, state.changed_at = state.revision_of(state.festival.id)
        if state.seen.steps is not None:
            state.seen.lap(QUERY)

    def _festival_url(self, environ, state):
        if state.named is not None:
            if len(state.named) > 1:
                return self._http_failure(BadRequest(), messages={"query": {FESTIVAL_PARAMETER: [REPEATED_MESSAGE]}})
            refused = refusal_message(state.named[0], state.festival)
            if refused is not None:
                return self._error(403, refused)

    def _rate_limits(self, environ, state):
        if state.limit_headers is not None:  # counted by an attempt before this one
            return None
        seen = state.seen
        if self._counts_requests:
            # A conditional request may be answered 304, which spends nothing: it is counted
            # once its answer is known (_not_modified), and here only looked at. A private one
            # is never a 304 (it has no ETag).
            state.limit_spent = not environ.get("HTTP_IF_NONE_MATCH") or state.private
            allowed, state.limit_headers = self.limits.count(state.key_id, environ.get("REMOTE_ADDR"),
                                                             spend=state.limit_spent)
            if seen.steps is not None:
                seen.lap(LIMIT)
            if not allowed:
                return self._error(429, None, [])
        if state.private:
            allowed, state.limit_headers = self.private_limits.count(state.key_id, environ.get("REMOTE_ADDR"))
            if seen.steps is not None:
                seen.lap(LIMIT)
            if not allowed:
                return self._error(429, None, [])

    def _response_cache(self, environ, state):
        state.answer = state.cache_key = None
        # What a private value confirms is for this visitor alone: nothing keeps it.
        if state.private or not self.cache.enabled:
            return None
        # The key's digest names the key, and so its festival: two keys never share answers.
        cache_key = (state.digest, state.revision, environ["PATH_INFO"], _query_key(state.query))
        entry = self.cache.get(cache_key)
        if entry is None:
            maker = self.cache.make_or_wait(cache_key)
            entry = self.cache.get(cache_key)  # made while this request waited?
            if entry is None:
                state.cache_key, state.maker = cache_key, maker
            elif maker is not None:
                self.cache.made(cache_key, maker)
        if entry is not None:
            state.seen.cache = "hit"
            state.answer = Answer(200, list(entry.headers), entry.body, entry.etag, entry)
        else:
            state.seen.cache = "miss"
        if state.seen.steps is not None:
            state.seen.lap(CACHE)

    def _view(self, environ, state):
        if state.answer is not None:  # from the response cache
            return None
        state.answer = answer = self._made(environ, state)
        if state.private:  # no validator lets a shared cache key a copy on a private value
            answer.etag = None
        elif state.cache_key is not None:
            # Kept unless an import moved the revision between the key and the snapshot.
            if answer.status == 200 and answer.etag is not None and state.revision == state.cache_key[1]:
                answer.entry = CachedResponse(answer.body, list(answer.headers), answer.etag)
                self.cache.put(state.cache_key, answer.entry)
            if state.maker is not None:
                # The same request gets the same error: the next ones need not wait for it.
                self.cache.made(state.cache_key, state.maker, kept=not 400 <= answer.status < 500)
                state.maker = None
            if state.seen.steps is not None:
                state.seen.lap(CACHE)

    def _not_modified(self, environ, state):
        answer = state.answer
        if_none_match = environ.get("HTTP_IF_NONE_MATCH")
        if if_none_match and answer.etag is not None and not_modified(if_none_match, answer.etag):
            answer.status, answer.body = 304, b""
            # A 304 sends none of the body's headers (RFC 9110 15.4.5; Werkzeug's
            # remove_entity_headers, without the set it builds on every call): a kept
            # answer's are worked out once.
            entry = answer.entry
            bodiless = entry.bodiless_headers() if entry is not None else without_body_headers(answer.headers)
            answer.headers = list(bodiless)
        elif self._counts_requests and not state.limit_spent:
            state.limit_spent = True
            seen = state.seen
            if seen.steps is not None:
                seen.lap(RENDER)
            _, state.limit_headers = self.limits.count(state.key_id, environ.get("REMOTE_ADDR"))
            if seen.steps is not None:
                seen.lap(LIMIT)
        return answer

    # -- what the steps share ----------------------------------------------------------

    def _unauthorized(self, environ, state, plain):
        """A 401 for a missing or wrong key; a ``429`` once the client's address has sent more
        wrong keys than its budget (``RATELIMIT_WRONG_KEYS``)."""
        if plain and self.limits is not None and self.limits.wrong_keys:
            allowed, headers = self.limits.wrong_key(environ.get("REMOTE_ADDR"))
            if state.seen.steps is not None:
                state.seen.lap(LIMIT)
            if not allowed:
                state.limit_headers = headers
                return self._error(429, WRONG_KEYS_MESSAGE, [])
        return self._error(401, MISSING_MESSAGE if not plain else UNKNOWN_MESSAGE, [("WWW-Authenticate", CHALLENGE)])

    def _made(self, environ, state):
        """The endpoint's answer, by its operation, in the request's read snapshot; a ``200``
        gets its weak ETag."""
        operation = self.operations[environ["PATH_INFO"]]
        state.revision, state.changed_at = self.database.snapshot(state.festival.id,
                                                                  (state.revision, state.changed_at))
        try:
            state.at_revision = self._at_revision(state)
            body = operation(state.at_revision, state.query)
        except ma.ValidationError as error:
            return self._http_failure(BadRequest(), messages={"query": query_messages(error.messages)})
        except HTTPException as error:  # the view's abort(): 404, or a 400 of its own
            return self._http_failure(error)
        except DATABASE_ERRORS:
            raise
        except Exception:
            self.logger.exception("Exception on %s [%s]", environ["PATH_INFO"], environ["REQUEST_METHOD"])
            return self._http_failure(InternalServerError())
        finally:
            if state.seen.steps is not None:
                state.seen.lap(QUERY)
        answer = Answer(200, [("Content-Type", "application/json")], body,
                        weak_etag(body, state.at_revision.revision_block))
        if state.seen.steps is not None:
            state.seen.lap(RENDER)
        return answer

    def _at_revision(self, state):
        """The request's festival at its revision: read in its snapshot once a revision."""
        festival = self.festivals.get(state.festival.id)
        if festival is None or festival.revision != state.revision:
            festival = FestivalAtRevision(state.festival, state.revision, state.changed_at)
            self.festivals[state.festival.id] = festival
        return festival

    def _through_flask(self, environ):
        started = []

        def start_response(status, headers, exc_info=None):
            started[:] = [status, headers]
            return _no_write

        iterable = self.flask(environ, start_response)
        try:
            body = b"".join(iterable)
        finally:
            if hasattr(iterable, "close"):
                iterable.close()
        status, headers = started
        return Answer(int(status[:3]), [(name, value) for name, value in headers
                                        if name.lower() not in _MADE_AGAIN], body)

    # -- failures ----------------------------------------------------------------------

    def _database_failed(self, error):
        """503 when the database is the problem (gone, locked, damaged, unreachable); 500 when
        it answers and the statement itself was wrong."""
        self.database.failed(error)
        said = _first_line(error)
        if is_deadline_error(error):  # it did not answer in time: no need to ask it again
            self.outages.error(f"deadline: {said}", "database did not answer within its deadline: %s", said)
            return self._error(503)
        problem = self.database.damaged or self.health.problem()
        if problem is None:  # a statement the server refused: a bug, with its traceback
            self.outages.error(f"error: {type(error).__name__}: {said}", "database error: %s", said, exc_info=error)
            return self._error(500)
        # An outage: the reason and the driver's first line say it; a traceback would not.
        self.outages.error(f"unavailable: {problem.reason} {type(error).__name__}: {said}",
                           "database unavailable: %s (%s: %s)", problem.reason, type(error).__name__, said)
        return self._error(503)

    def _http_failure(self, error, **data):
        """``error`` answered as Flask answers its own HTTP errors (``app/views/operations.py``'s ``Api``)."""
        if data:
            error.data = data
        payload, status, headers = self.http_error(error)
        return Answer(status, [("Content-Type", "application/json"), *dict(headers).items()],
                      orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS) + b"\n")

    def _error(self, status, message=None, headers=()):
        return Answer(status, [("Content-Type", "application/json"), *headers], error_json(status, message))

    def _notice_forwarding(self, environ):
        # Behind a proxy that is not trusted, every client has the proxy's address.
        if not self.trusts_proxies and not self._warned_about_proxy and "HTTP_X_FORWARDED_FOR" in environ:
            self._warned_about_proxy = True
            self.logger.warning("requests carry X-Forwarded-For but TRUSTED_PROXIES is 0: rate limits count "
                                "every client as the proxy's address; set TRUSTED_PROXIES to the number of "
                                "proxies")

    # -- out ---------------------------------------------------------------------------

    def _send(self, environ, start_response, answer, state):
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        headers, body, status = answer.headers, answer.body, answer.status
        if answer.etag is not None:
            headers.append(("ETag", answer.etag))
        if path.startswith(self.prefix):
            headers = self.headers.finish(environ, status, headers, cacheable=method in ("GET", "HEAD"),
                                          private=state.private, shared=state.named is not None)
            if state.festival is not None:
                headers.append((REVISION_HEADER, str(state.revision)))
            headers.extend(state.limit_headers or ())
        if status == 200 and body:
            body = self._compressed(environ, answer, headers)
        if status != 304:
            headers.append(("Content-Length", str(len(body))))
        seen = state.seen
        if seen.steps is not None and path.startswith(self.prefix):
            seen.lap(RENDER)
            headers.append((SERVER_TIMING, seen.server_timing()))
        start_response(_REASONS.get(status) or f"{status} {HTTP_STATUS_CODES.get(status, 'Unknown').upper()}",
                       headers)
        seen.method, seen.path, seen.query, seen.status = method, path, state.query, status
        seen.size, seen.festival, seen.key_id = 0 if method == "HEAD" else len(body), state.festival, state.key_id
        seen.ended = time.perf_counter()
        after = environ.get(AFTER_ANSWER)
        if after is None:
            log_observation(seen)
        elif hold_observation(seen):  # its place kept before the answer leaves; its line made later
            after.append(write_held)  # once the answer is on its way (the client does not wait for it)
        # b"": waitress sends the headers of an answer without a body before the after work.
        return [b""] if method == "HEAD" or not body else [body]

    def _compressed(self, environ, answer, headers):
        encoding = self.headers.encoding(environ)
        content_type = _content_type(headers)
        if encoding is None or not self.headers.compressible(content_type, answer.body):
            return answer.body
        entry = answer.entry
        data = entry.encoded.get(encoding) if entry is not None else None
        if data is None:
            data = compress(answer.body, encoding)
            if entry is not None:
                entry.remember_encoding(encoding, data)
        headers.append(("Content-Encoding", encoding))
        return data


def is_private(pairs):
    """Whether a request's query names a parameter that tests a private value."""
    for name, _ in pairs:  # a loop, not any() over a generator: every request asks
        if name in PRIVATE_PARAMETERS or name[-2:] == "[]" and name[:-2] in PRIVATE_PARAMETERS:
            return True
    return False


# What the front door needs of a query string's pairs, worked out once for each of the
# queries seen lately (result day repeats a few hundred URLs): whether it tests a private
# value, and the festival it names (None).
_facts = {}
MAX_FACTS = 4096


def _query_facts(query_string, pairs):
    """``(private, named)`` of a query string and its ``(name, value)`` pairs;
    short query strings are worked out once."""
    facts = _facts.get(query_string)
    if facts is None:
        facts = (is_private(pairs), named_festival(pairs) or None)
        if len(query_string) <= MAX_PARSED_LENGTH:
            if len(_facts) >= MAX_FACTS:
                _facts.clear()
            _facts[query_string] = facts
    return facts


def _first_line(error):
    """The first line of what ``error`` says (a driver's later lines hold details and hints)."""
    return (str(error).strip().splitlines() or [""])[0][:300]


def _query_key(pairs):
    """What makes two query strings the same request: parameters in any order (the order of
    one parameter's values kept)."""
    return tuple(sorted(pairs, key=_name)) if len(pairs) > 1 else tuple(pairs)


def _name(pair):
    return pair[0]


def _content_type(headers):
    for name, value in headers:
        if name.lower() == "content-type":
            return value
    return ""


def _no_write(data):
    raise RuntimeError("the app must return its body, not write it")
