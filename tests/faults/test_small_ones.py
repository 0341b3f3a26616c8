"""Small faults on the real server: a ``sinceRevision`` ahead of the data, repeated and
control-character parameters, ``OPTIONS`` without ``Origin``."""

from conftest import BIG


def test_since_revision_ahead_of_the_festival_is_a_409_naming_the_revision(database, serve, keys):
    server = serve(database)
    current = server.get("/changes?sinceRevision=0", keys[BIG]).json()["context"]["data"]["revision"]
    assert server.get(f"/changes?sinceRevision={current}", keys[BIG]).status == 200
    ahead = server.get(f"/changes?sinceRevision={current + 5}", keys[BIG])
    assert ahead.status == 409
    body = ahead.json()
    assert body["code"] == 409 and body["status"] == "Conflict"
    assert f"ahead of the festival's data revision {current}" in body["message"]
    assert f"sinceRevision={current}" in body["message"]
    assert ahead.headers["cache-control"] == "no-store"


BAD_QUERIES = [
    "/news?limit=1&limit=abc",                                   # a repeated single-value parameter
    "/news?limit=5&limit=5",
    "/schedules?scheduledAtFrom=2026-01-15T10:00:00%00Z",       # a NUL inside a date-time
    "/news?publishedAtFrom=2026-01-01T00:00:00%00",
    "/news?publishedAtFrom=2026-01-01T00:00:00%01",              # another control character
]


def test_repeated_single_values_and_control_characters_are_400(database, serve, keys):
    server = serve(database)
    statuses = {query: server.get(query, keys[BIG]).status for query in BAD_QUERIES}
    assert statuses == {query: 400 for query in BAD_QUERIES}


def test_options_without_origin_is_not_an_empty_html_page(database, serve):
    answer = serve(database).get("/news", method="OPTIONS")
    assert answer.status in (200, 204)
    assert "text/html" not in answer.headers.get("content-type", "")
    assert "GET" in answer.headers["allow"]
