"""Browser clients and shared caches: CORS, Cache-Control and Vary, ETag and 304, compression."""
import gzip
import json

import brotli
import pytest

from conftest import API, BIG, SMALL
from custom_apps import app_with  # noqa: F401  (fixture)

ORIGIN = "https://festival-site.example"
EXPOSED = {"etag", "x-data-revision", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"}


def header_set(response, name):
    return {part.strip().lower() for part in ", ".join(response.headers.getlist(name)).split(",") if part.strip()}


def api_routes(app):
    """Every data route under the API prefix (not the docs)."""
    return sorted(
        rule.rule for rule in app.url_map.iter_rules()
        if rule.rule.startswith(API + "/") and not rule.arguments and "GET" in rule.methods
        and rule.endpoint.split(".")[0] in {blp.name for blp in _blueprints()})


def _blueprints():
    from app.views import BLUEPRINTS

    return BLUEPRINTS


def test_every_api_route_answers_a_preflight_without_a_key(app, client):
    routes = api_routes(app)
    assert f"{API}/news" in routes and len(routes) == len(set(routes)) >= 4
    for route in routes:
        response = client.options(route, headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "x-api-key",
        })
        assert response.status_code in (200, 204), route
        assert response.headers["Access-Control-Allow-Origin"] == "*", route
        assert "x-api-key" in header_set(response, "Access-Control-Allow-Headers"), route
        assert "GET" in response.headers["Access-Control-Allow-Methods"], route
        assert int(response.headers["Access-Control-Max-Age"]) > 0, route


def test_preflight_for_a_write_method_is_not_allowed(client):
    response = client.options(f"{API}/news", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"})
    assert "Access-Control-Allow-Methods" not in response.headers


def explode(*args, **kwargs):
    raise RuntimeError("internal detail")


@pytest.mark.parametrize("case, status", [
    ("ok", 200), ("no key", 401), ("bad limit", 400), ("unknown path", 404), ("crash", 500),
])
def test_cors_and_cache_headers_on_normal_and_error_responses(api, monkeypatch, case, status):
    import app.views.news as news_view

    if case == "crash":
        monkeypatch.setattr(news_view, "list_news", explode)
    path, key, params = {
        "ok": ("/news", BIG, {}),
        "no key": ("/news", None, {}),
        "bad limit": ("/news", BIG, {"limit": 0}),
        "unknown path": ("/no-such-endpoint", BIG, {}),
        "crash": ("/news", BIG, {}),
    }[case]
    response = api.get(path, key=key, headers={"Origin": ORIGIN}, **params)
    assert response.status_code == status
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert header_set(response, "Access-Control-Expose-Headers") >= EXPOSED
    assert {"x-api-key", "accept-encoding"} <= header_set(response, "Vary")
    expected = f"public, max-age={api.client.application.config['CACHE_MAX_AGE']}" if status == 200 else "no-store"
    assert response.headers["Cache-Control"] == expected


def test_cache_control_max_age_follows_the_setting(app_with, keys):
    client = app_with(CACHE_MAX_AGE=120).test_client()
    response = client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    assert response.headers["Cache-Control"] == "public, max-age=120"


def test_allow_list_of_origins(app_with, keys):
    client = app_with(CORS_ORIGINS=[ORIGIN, "https://other.example"]).test_client()
    allowed = client.get(f"{API}/news", headers={"X-API-Key": keys[BIG], "Origin": ORIGIN})
    refused = client.get(f"{API}/news", headers={"X-API-Key": keys[BIG], "Origin": "https://elsewhere.example"})
    preflight = client.options(f"{API}/news", headers={
        "Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET"})
    assert allowed.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "Access-Control-Allow-Origin" not in refused.headers
    assert "Access-Control-Allow-Origin" not in preflight.headers
    # The answer depends on Origin, so a shared cache must keep one copy per origin.
    for response in (allowed, refused):
        assert {"origin", "x-api-key"} <= header_set(response, "Vary")
        assert len(response.headers.getlist("Vary")) == 1


def test_etag_and_conditional_requests(api):
    first = api.get("/news")
    etag = first.headers["ETag"]
    assert etag.startswith('W/"')
    again = api.get("/news", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == etag
    assert again.headers["Cache-Control"].startswith("public")
    assert again.headers["Access-Control-Allow-Origin"] == "*"
    assert api.get("/news", headers={"If-None-Match": 'W/"something-else"'}).status_code == 200
    assert api.get("/news", limit=1).headers["ETag"] != etag
    assert api.get("/news", key=SMALL).headers["ETag"] != etag


def test_errors_have_no_etag(api):
    assert "ETag" not in api.get("/news", limit=0).headers
    assert "ETag" not in api.get("/news", key=None).headers


def test_head_answers_like_get(api):
    get = api.get("/news")
    head = api.client.head(f"{API}/news", headers={"X-API-Key": api.keys[BIG]})
    assert head.status_code == 200 and head.data == b""
    assert head.headers["ETag"] == get.headers["ETag"]


@pytest.mark.parametrize("encoding, decompress", [("gzip", gzip.decompress), ("br", brotli.decompress)])
def test_compression_is_negotiated(api, encoding, decompress):
    plain = api.get("/news", limit=50)
    assert "Content-Encoding" not in plain.headers
    assert len(plain.data) > api.client.application.config["COMPRESS_MIN_SIZE"]
    packed = api.get("/news", limit=50, headers={"Accept-Encoding": encoding})
    assert packed.headers["Content-Encoding"] == encoding
    assert len(packed.data) < len(plain.data)
    assert json.loads(decompress(packed.data)) == plain.get_json()
    assert "accept-encoding" in header_set(packed, "Vary")


@pytest.mark.parametrize("margin, compressed", [(-1, True), (1, False)])
def test_only_bodies_above_the_threshold_are_compressed(app_with, api, margin, compressed):
    size = len(api.get("/subfests").data)
    client = app_with(COMPRESS_MIN_SIZE=size + margin).test_client()
    response = client.get(f"{API}/subfests", headers={"X-API-Key": api.keys[BIG], "Accept-Encoding": "gzip"})
    assert ("Content-Encoding" in response.headers) is compressed


def test_etag_is_the_same_for_every_encoding_and_304_works_with_compression(api):
    plain = api.get("/news", limit=50)
    packed = api.get("/news", limit=50, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.headers["ETag"] == plain.headers["ETag"]
    for accept in ("gzip", "br", "identity"):
        response = api.get("/news", limit=50, headers={
            "Accept-Encoding": accept, "If-None-Match": packed.headers["ETag"]})
        assert response.status_code == 304, accept
        assert response.data == b""
