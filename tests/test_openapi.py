"""The OpenAPI document and the interactive docs: no key, no internet."""
import re

import pytest

from conftest import API


@pytest.fixture(scope="module")
def spec(app):
    response = app.test_client().get(f"{API}/openapi.json")
    assert response.status_code == 200
    return response.get_json()


def query_params(spec, path):
    return {p["name"]: p for p in spec["paths"][f"{API}{path}"]["get"]["parameters"]
            if p["in"] == "query"}


@pytest.mark.parametrize("path, names", [
    ("/news", {"page", "limit", "sortBy", "sortOrder", "search", "status", "isPublic", "tags",
               "hasThumbnail", "hasFeatureImage"}),
    ("/downloads", {"page", "limit", "sortBy", "sortOrder", "search", "category", "isPublic"}),
    ("/gallery", {"page", "limit", "sortBy", "sortOrder", "albumId", "subFestProgramId", "categoryId"}),
    ("/subfests", {"page", "limit", "sortBy", "sortOrder", "search"}),
])
def test_every_parameter_is_documented(spec, path, names):
    assert set(query_params(spec, path)) == names


def test_sort_fields_and_enums_are_listed(spec):
    params = query_params(spec, "/news")
    assert set(params["sortBy"]["schema"]["enum"]) == {"publishedAt", "createdAt", "updatedAt", "title"}
    assert params["sortOrder"]["schema"]["enum"] == ["asc", "desc"]
    assert set(params["status"]["schema"]["items"]["enum"]) == {"draft", "published", "archived"}
    assert params["limit"]["schema"]["maximum"] == 500


def test_every_endpoint_documents_its_errors_and_needs_the_key(spec):
    assert spec["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    assert spec["security"] == [{"ApiKey": []}]
    for path, item in spec["paths"].items():
        responses = item["get"]["responses"]
        assert {"200", "400", "401", "404", "429"} <= set(responses), path
        assert "422" not in responses, path


def test_docs_page_uses_local_assets_only(client):
    response = client.get(f"{API}/docs")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    external = re.findall(r'(?:src|href)="(https?://[^"]+)"', html)
    assert external == []
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html)
    assert assets
    for asset in assets:
        assert client.get(asset).status_code == 200, asset


@pytest.mark.parametrize("name", ["scheduledAtFrom", "scheduledAtTo"])
def test_instants_are_declared_as_a_date_or_a_date_time(app, name):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}/schedules"]["get"]["parameters"]}
    assert params[name]["schema"] == {"oneOf": [{"type": "string", "format": "date"},
                                                {"type": "string", "format": "date-time"}]}
