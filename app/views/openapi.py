"""What the OpenAPI document declares beside the schemas, as data: the headers of every answer
(``Server-Timing`` too, sent when ``SERVER_TIMING`` is on),
the 304 of a revalidation, the error answers with their examples, the server, and an example
answer of every operation (``app/views/openapi_examples.json``, answers of the bundled Kalolsavam).

``app/views/operations.py`` puts them on every operation; ``tests/test_openapi_document.py`` checks
that every operation has them and that every example is valid against its schema.
"""
import json
from importlib import resources

from ..door.errors import GENERIC_MESSAGES

# The document's paths start with the API's prefix, so its server is the host itself: a
# generated client's base URL is the origin that serves the API (https://api.example.org).
SERVERS = [{"url": "/", "description": "The service serving this document (its paths start with "
                                       "`/public-api/v1`)."}]


def _header(description, kind, example):
    return {"description": description, "schema": {"type": kind}, "example": example}


# Response headers, declared once (components.headers) and named on each answer.
HEADERS = {
    "ETag": _header(
        "The answer's validator (weak). Send it back as `If-None-Match`: while the answer "
        "is unchanged the service answers `304 Not Modified` without a body.",
        "string", 'W/"5f1c2e9a0b7d4c3e8a6f2d1b0c9e8f7a"'),
    "X-Data-Revision": _header(
        "The festival's current data revision (on every answer once the key is known). "
        "A body's `context.data.revision` is the revision it was made at, older after a "
        "`304` when other data changed since: give this one to `/changes?sinceRevision=`.",
        "integer", 96),
    "Cache-Control": _header(
        "How long a cache may reuse the answer without revalidating it "
        "(`public, max-age=N`; to a URL that names its festival also `s-maxage`, "
        "`stale-while-revalidate` and `stale-if-error` for shared caches; `no-store` on errors).",
        "string", "public, max-age=10"),
    "X-RateLimit-Limit": _header(
        "Requests the key may make in the current window (sent when rate limits are on).", "integer", 600),
    "X-RateLimit-Remaining": _header(
        "Requests left in the current window (sent when rate limits are on).", "integer", 599),
    "X-RateLimit-Reset": _header(
        "When the current window ends, in seconds since the Unix epoch (sent when rate limits are on).",
        "integer", 1767600060),
    "Retry-After": _header("Seconds to wait before asking again.", "integer", 42),
    "Server-Timing": _header(
        "Milliseconds the answer's steps took in the service, as a browser's developer tools "
        "show them: `key` (the API key), `limit` (rate limits), `cache` (the response cache), "
        "`query` (the database and the view), `render` (validator, compression, headers); a "
        "step the request did not take is left out. Sent only when the service's "
        "`SERVER_TIMING` setting is on.",
        "string", "key;dur=0.012, limit;dur=0.004, cache;dur=0.003, query;dur=0.912, render;dur=0.087"),
}
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# name -> component name, as flask-smorest's ``headers=`` takes them
ANSWER_HEADERS = {name: name for name in ("ETag", "X-Data-Revision", "Cache-Control", *RATE_LIMIT_HEADERS,
                                          "Server-Timing")}
# ... of every error answer
ERROR_HEADERS = {name: name for name in ("Cache-Control", "Server-Timing")}
# ... and of the errors of a known key (a 400, 404, 409 or 429: the key was looked up first)
KNOWN_KEY_ERROR_HEADERS = {**ERROR_HEADERS, **{name: name for name in ("X-Data-Revision", *RATE_LIMIT_HEADERS)}}

# The request header of a revalidation, documented on every GET.
# Every operation may name its festival in the URL (app/door/festival_url.py).
FESTIVAL = {
    "in": "query",
    "name": "festival",
    "required": False,
    "description": "The festival's slug (`context.festival.slug`), checked against the key: a key of "
                   "another festival is a `403`. A URL that names its festival answers the same for "
                   "every key of it, so a shared cache (a CDN) that keys on the URL alone may keep it: "
                   "its answers carry `s-maxage`, `stale-while-revalidate` and `stale-if-error`.",
    "schema": {"type": "string"},
    "example": "kalolsavam-2026",
}

IF_NONE_MATCH = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "description": "The `ETag` of the answer you hold: while it is still the answer, the service "
                   "answers `304 Not Modified` without a body (and the copy you hold is current).",
    "schema": {"type": "string"},
    "example": HEADERS["ETag"]["example"],
}

NOT_MODIFIED = {
    "description": "Not Modified: the answer whose `ETag` was sent in `If-None-Match` is still the "
                   "answer. No body: use the copy you hold.",
    "headers": dict(ANSWER_HEADERS),
}


def _error(code, status, message=None, **extra):
    return {"code": code, "status": status, "message": message or GENERIC_MESSAGES[code], **extra}


# status -> (description, example, headers) of the error answers: every operation declares
# these but the 409, which /changes alone answers
COMMON_ERRORS = (400, 401, 403, 404, 429, 503)
ERRORS = {
    400: ("Bad Request: a parameter is missing, malformed or out of range; `errors.query` gives the "
          "messages per parameter.",
          _error(400, "Bad Request", errors={"query": {"limit": [
              "Must be greater than or equal to 1 and less than or equal to 500."]}}),
          dict(KNOWN_KEY_ERROR_HEADERS)),
    401: ("Unauthorized: the `X-API-Key` header is missing, or the key is unknown or revoked.",
          _error(401, "Unauthorized"), dict(ERROR_HEADERS)),
    403: ("Forbidden: the URL names another festival (`festival=`) than the key's.",
          _error(403, "Forbidden", "This API key belongs to another festival than the URL names (festival=); "
                                   "its URLs name festival=kalolsavam-2026."), dict(ERROR_HEADERS)),
    404: ("Not Found: no public record has this id, code or chest number (a record that is not public "
          "answers the same).",
          _error(404, "Not Found", "Programme not found."), dict(KNOWN_KEY_ERROR_HEADERS)),
    429: ("Too Many Requests: the key's (or the address's) budget is spent; ask again after "
          "`Retry-After` seconds.",
          _error(429, "Too Many Requests"),
          {**KNOWN_KEY_ERROR_HEADERS, "Retry-After": "Retry-After"}),
    409: ("Conflict: `sinceRevision` is ahead of the festival's revision (the data was restored from an "
          "older copy) or older than the changes kept. Read the lists again and poll from the revision "
          "of that answer.",
          _error(409, "Conflict", "sinceRevision 120 is ahead of the festival's data revision 96: the data "
                 "was restored from an older copy. Drop what you kept, read the lists again, and poll from "
                 "sinceRevision=96."), dict(KNOWN_KEY_ERROR_HEADERS)),
    503: ("Service Unavailable: the database did not answer in time; try again shortly.",
          _error(503, "Service Unavailable"), dict(ERROR_HEADERS)),
}


def _answer_examples():
    with resources.files(__package__).joinpath("openapi_examples.json").open(encoding="utf-8") as fh:
        return json.load(fh)


# "blueprint.view" (the view's endpoint name) -> an example answer
ANSWER_EXAMPLES = _answer_examples()
