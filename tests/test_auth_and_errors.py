"""API keys resolve the festival and every error has one JSON shape (docs/api-conventions.md:
"Authentication and the resolved festival", "Errors")."""
import pytest

from conftest import API, BIG, SMALL, writable
from db.source.keys import create_key, revoke_key
from structure_rules import big, fests, sub_fest  # noqa: F401 (fixtures)


def assert_error(response, status):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == status
    assert isinstance(body["status"], str) and body["status"]
    assert isinstance(body["message"], str) and body["message"]
    return body


@pytest.mark.parametrize("key", [None, "", "fds_not-a-real-key", "revoked"])
def test_missing_unknown_or_revoked_key_is_401(api, keys, key):
    response = api.get("/news", key=key)
    body = assert_error(response, 401)
    if key:
        assert keys.get(key, key) not in response.get_data(as_text=True)
    assert "data" not in body
    # RFC 9110 §11.6.1: a 401 names the scheme that would be accepted.
    assert response.headers["WWW-Authenticate"] == 'X-API-Key realm="public-api"'


def test_key_resolves_its_own_festival(api):
    big = api.ok("/news", key=BIG)
    small = api.ok("/news", key=SMALL)
    assert big["context"]["festival"]["slug"] == BIG
    assert small["context"]["festival"]["slug"] == SMALL
    assert not {i["id"] for i in big["data"]} & {i["id"] for i in small["data"]}


@pytest.mark.parametrize("path", ["/news", "/subfests", "/gallery", "/downloads"])
def test_festival_a_key_never_returns_festival_b_data(api, fixture_data, path):
    small_ids = set()
    for section in fixture_data[SMALL].values():
        if isinstance(section, list):
            small_ids.update(row["id"] for row in section if isinstance(row, dict) and "id" in row)
    body = api.get(path, key=BIG, limit=500).get_data(as_text=True)
    assert not [i for i in small_ids if i in body]


def test_options_needs_no_key(client):
    response = client.options(f"{API}/news")
    assert response.status_code in (200, 204)


def test_revocation_takes_effect(fresh_app):
    app, url = fresh_app
    from db.source.models import Festival

    with writable(url):
        key, plain = create_key(Festival.get(Festival.slug == SMALL), label="to revoke")
    client = app.test_client()
    assert client.get(f"{API}/news", headers={"X-API-Key": plain}).status_code == 200
    with writable(url):
        revoke_key(key.id)
    assert_error(client.get(f"{API}/news", headers={"X-API-Key": plain}), 401)


# The endpoints that need a sub-fest: a case not about it sends the large festival's main one.
NEEDS_A_SUB_FEST = ("/candidates", "/programmes")
# Each endpoint's parameters that get one wrong, and the one: a 400 naming it.
BAD_PARAMETERS = {
    "/news": [({"limit": 0}, "limit"), ({"limit": 501}, "limit"), ({"limit": "ten"}, "limit"),
              ({"page": 0}, "page"), ({"page": -1}, "page"), ({"page": 10**12}, "page"), ({"page": "1e9999"}, "page"),
              ({"sortBy": "email"}, "sortBy"), ({"sortOrder": "up"}, "sortOrder"), ({"status": "bogus"}, "status"),
              ({"isPublic": "maybe"}, "isPublic"), ({"hasThumbnail": "yes"}, "hasThumbnail")],
    "/gallery": [({"albumId": "not-a-uuid"}, "albumId"), ({"categoryId": "123"}, "categoryId")],
    "/downloads": [({"isPublic": "2"}, "isPublic")],
    "/subfests": [({"sortBy": "festival"}, "sortBy")],
    "/candidates": [({}, "subFestId"), ({"subFestId": "12345"}, "subFestId"),
                    ({"gender": "female,unknown"}, "gender"), ({"isActive": "yes"}, "isActive"),
                    ({"teamIds": "x"}, "teamIds"), ({"sectionIds": "x"}, "sectionIds"),
                    ({"hasAvatar": "perhaps"}, "hasAvatar"), ({"page": 0}, "page")],
    "/programmes": [({}, "subFestId"), ({"subFestId": "not-a-uuid"}, "subFestId"), ({"status": "finished"}, "status"),
                    ({"statuses": "draft,finished"}, "statuses"), ({"programType": "solo"}, "programType"),
                    ({"sortBy": "points"}, "sortBy"), ({"sortOrder": "up"}, "sortOrder"),
                    ({"hasResults": "maybe"}, "hasResults"), ({"categoryIds": "abc"}, "categoryIds"),
                    ({"limit": 501}, "limit")],
    "/schedules": [({"scheduledAtFrom": "tomorrow"}, "scheduledAtFrom"),
                   ({"scheduledAtTo": "2026-01-12T09:00:00"}, "scheduledAtTo"),  # a date-time needs an offset
                   ({"scheduledAtTo": "2026-13-01"}, "scheduledAtTo"), ({"venueId": "not-a-uuid"}, "venueId"),
                   ({"subFestProgramId": "42"}, "subFestProgramId"), ({"sortBy": "venue"}, "sortBy"),
                   ({"sortOrder": "up"}, "sortOrder"), ({"limit": 501}, "limit")],
}


@pytest.mark.parametrize("path, params, field", [(path, params, field) for path, cases in BAD_PARAMETERS.items()
                                                  for params, field in cases])
def test_bad_parameters_are_400_naming_the_parameter(api, sub_fest, path, params, field):
    if path in NEEDS_A_SUB_FEST and field != "subFestId":
        params = {"subFestId": sub_fest, **params}
    body = assert_error(api.get(path, **params), 400)
    assert field in body["errors"]["query"]


def test_unknown_sort_field_names_the_allowed_ones(api):
    body = assert_error(api.get("/news", sortBy="nope"), 400)
    assert "publishedAt" in body["errors"]["query"]["sortBy"][0]


def test_unknown_parameters_are_ignored(api):
    assert api.ok("/news", _=12345, cacheBuster="x") == api.ok("/news")


@pytest.mark.parametrize("path", ["/no-such-endpoint", "//news", "/news/"])
def test_unknown_path_is_json_404(api, path):
    assert_error(api.get(path), 404)


@pytest.mark.parametrize("path", [f"/{API}/news", f"//{API}/news", f"/{API}/openapi.json", "//healthz"])
def test_a_leading_doubled_slash_is_json_404(client, keys, path):
    # werkzeug's router drops leading slashes; the test client would read "//host/..." as a host
    response = client.get("/", headers={"X-API-Key": keys[BIG]}, environ_overrides={"PATH_INFO": path})
    assert_error(response, 404)


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_other_methods_are_405(client, keys, method):
    response = getattr(client, method)(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    assert_error(response, 405)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT", "PROPFIND"])
@pytest.mark.parametrize("path", ["/news", "/programme-detail", "/openapi.json"])
def test_a_405_names_the_allowed_methods(client, keys, method, path):
    response = client.open(f"{API}{path}", method=method, headers={"X-API-Key": keys[BIG]})
    assert_error(response, 405)
    assert sorted(m.strip() for m in response.headers["Allow"].split(",")) == ["GET", "HEAD", "OPTIONS"]


def test_unexpected_error_is_a_generic_500(app, api, monkeypatch):
    import app.views.news as news_view

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd SELECT * FROM candidate")

    monkeypatch.setattr(news_view, "list_news", explode)
    response = api.get("/news")
    body = assert_error(response, 500)
    text = response.get_data(as_text=True)
    assert "secret" not in text and "SELECT" not in text and "Traceback" not in text
    assert body["message"] == "Internal server error."


def test_head_is_allowed(client, keys):
    response = client.head(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200


def test_unreachable_database_is_503(tmp_path, keys):
    from app import create_app
    from conftest import TEST_SETTINGS
    from db.database import database

    previous = database.obj
    try:
        broken = create_app({**TEST_SETTINGS, "DATABASE_URL": f"sqlite:///{tmp_path}/missing/dir/x.db"})
        response = broken.test_client().get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    finally:
        database.initialize(previous)
    body = assert_error(response, 503)
    assert "missing" not in response.get_data(as_text=True)
    assert body["message"]
