"""Every header an error answer carries is declared on that answer in the OpenAPI document
(a client generator reads only what is declared): for a 400, 401, 404 and 429, with rate
limits and the server's timing on, on every operation."""
import uuid

import pytest

from conftest import API, BIG
from custom_apps import app_with  # noqa: F401  (fixture)

# The service's own headers; the rest (Content-Type, CORS, Vary) are HTTP's and the proxy's.
OWN = {"etag", "x-data-revision", "cache-control", "x-ratelimit-limit", "x-ratelimit-remaining",
       "x-ratelimit-reset", "retry-after", "server-timing"}


@pytest.fixture(scope="module")
def document(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


def declared(document, path, status):
    response = document["paths"][f"{API}{path}"]["get"]["responses"][str(status)]
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return {name.lower() for name in response.get("headers", {})}


def sent(response):
    return {name.lower() for name, _ in response.headers if name.lower() in OWN}


@pytest.mark.parametrize("status, query, key", [
    (400, {"limit": "0"}, BIG),
    (401, {}, "fds_not_a_key"),
    (404, {"subFestProgramId": str(uuid.uuid4())}, BIG),
])
def test_an_error_s_headers_are_declared_on_it(app_with, keys, document, status, query, key):
    client = app_with(RATELIMIT_DEFAULT="100 per minute", SERVER_TIMING=True).test_client()
    path = "/programme-detail" if status == 404 else "/news"
    response = client.get(f"{API}{path}", query_string=query, headers={"X-API-Key": keys.get(key, key)})
    assert response.status_code == status, response.get_json()
    assert sent(response) <= declared(document, path, status), (status, sent(response) - declared(document, path, status))
    assert "cache-control" in sent(response)  # not left to chance: a shared cache must not keep it


def test_a_429_s_headers_are_declared_on_it(app_with, keys, document):
    client = app_with(RATELIMIT_DEFAULT="1 per minute", SERVER_TIMING=True).test_client()
    client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    response = client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 429
    assert {"retry-after", "x-ratelimit-limit"} <= sent(response) <= declared(document, "/news", 429)


def test_every_operation_declares_the_same_error_headers(document):
    operations = [path[len(API):] for path, methods in document["paths"].items() if "get" in methods
                  and "400" in methods["get"]["responses"]]
    assert len(operations) >= 20
    for status in (400, 401, 404, 429, 503):
        assert len({frozenset(declared(document, path, status)) for path in operations}) == 1, status
