"""``GET /healthz`` for load balancers: 200 while the database answers, 503 when it does not."""
import socket

import pytest

from conftest import ON_POSTGRES
from custom_apps import app_with  # noqa: F401  (fixture)


def test_healthz_is_200_without_a_key(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "database": "postgresql" if ON_POSTGRES else "sqlite"}
    assert response.headers["Cache-Control"] == "no-store"


def test_healthz_lives_outside_the_api(api):
    assert api.get("/healthz").status_code == 404


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("url", [
    "sqlite:///{tmp}/no/such/dir/festival.db",
    "postgresql://festival@127.0.0.1:{port}/festival",
], ids=["sqlite-missing-file", "postgresql-closed-port"])
def test_healthz_is_503_when_the_database_does_not_answer(app_with, tmp_path, url):
    client = app_with(database_url=url.format(tmp=tmp_path, port=closed_port())).test_client()
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["code"] == 503 and body["status"] == "Service Unavailable" and body["message"]
    text = response.get_data(as_text=True)
    assert "no/such/dir" not in text and "127.0.0.1" not in text


def test_healthz_is_503_for_a_sqlite_file_of_an_older_version(app_with, seeded, tmp_path):
    """A file without a table this version reads (an older version's, before `festival-api
    init`): 503, saying so, where a search would otherwise fail."""
    import sqlite3

    from conftest import database_copy

    from db.compiled.text_index import INDEX

    if ON_POSTGRES:
        pytest.skip("a SQLite file's tables")
    with database_copy(seeded[0], tmp_path) as url:
        with sqlite3.connect(url[len("sqlite:///"):]) as conn:
            conn.execute(f'DROP TABLE "{INDEX}"')
        response = app_with(database_url=url).test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json()["message"] == "The database lacks some of the service's tables."
