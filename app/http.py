"""HTTP behaviour of every API response: CORS, ETag and 304, compression, cache headers.

The order of the steps matters, so one ``after_request`` hook runs them in sequence for a
successful API ``GET``:

1. a weak ETag from the body (weak, because the gzip and the plain body carry the same one);
2. the response cache keeps the plain body (app/caching.py);
3. compression (Flask-Compress), once per cached answer and Accept-Encoding;
4. ``If-None-Match`` turns the answer into a ``304``.

Then flask-cors adds the CORS headers and the last hook sets ``Cache-Control`` and ``Vary``,
so a shared cache keeps one copy per API key (``Vary: X-API-Key``) and never stores errors.
"""
from flask import request
from flask_compress import Compress
from flask_cors import CORS

from . import caching
from .auth import HEADER as KEY_HEADER
from .limits import RATE_LIMIT_HEADERS

# Response headers that scripts on other origins may read. Pagination travels in the
# body's ``meta``; there are no pagination headers.
EXPOSED_HEADERS = ("ETag", *RATE_LIMIT_HEADERS)

# Browsers may reuse a preflight answer this long (they cap it: Chrome at 2 hours).
PREFLIGHT_MAX_AGE = 86400


def _add_vary(response, names):
    # flask-cors and Flask-Compress may each have added a Vary line; merge them into one.
    seen, merged = set(), []
    for line in response.headers.getlist("Vary") + [", ".join(names)]:
        for name in (part.strip() for part in line.split(",")):
            if name and name.lower() not in seen:
                seen.add(name.lower())
                merged.append(name)
    response.headers["Vary"] = ", ".join(merged)


def init_http(app):
    """CORS, ETags with conditional requests, compression, Cache-Control and Vary."""
    from . import API_PREFIX

    def is_api():
        return request.path.startswith(API_PREFIX + "/")

    origins = app.config["CORS_ORIGINS"] or ["*"]
    any_origin = origins == ["*"]
    max_age = app.config["CACHE_MAX_AGE"]
    cacheable = f"public, max-age={max_age}" if max_age > 0 else "no-cache"
    vary = [KEY_HEADER, "Accept-Encoding"] + ([] if any_origin else ["Origin"])

    # after_request hooks run in reverse order of registration: this one runs last.
    @app.after_request
    def cache_headers(response):
        if not is_api():
            return response
        _add_vary(response, vary)
        if request.method == "OPTIONS":
            return response
        if request.method in ("GET", "HEAD") and response.status_code in (200, 304):
            response.headers["Cache-Control"] = cacheable
        else:
            response.headers["Cache-Control"] = "no-store"
        return response

    CORS(
        app,
        resources={rf"{API_PREFIX}/.*": {}},
        origins=origins,
        # With any origin allowed, "*" keeps one shared-cache copy for every site.
        send_wildcard=any_origin,
        vary_header=not any_origin,
        methods=["GET", "HEAD", "OPTIONS"],
        expose_headers=list(EXPOSED_HEADERS),
        max_age=PREFLIGHT_MAX_AGE,
    )

    app.config.setdefault("COMPRESS_REGISTER", False)  # called from finish_response below
    compress = Compress(app)

    @app.after_request
    def finish_response(response):
        if (not is_api() or request.method not in ("GET", "HEAD")
                or response.status_code != 200 or not response.is_json):
            return compress.after_request(response)
        if response.get_etag()[0] is None:
            response.add_etag(weak=True)
        caching.remember(response)
        response = caching.compress(response, compress.after_request)
        return response.make_conditional(request)

    return compress
