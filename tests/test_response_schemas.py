"""Every answer of a crawl over every id of the bundled festivals matches the OpenAPI
document's response schema: no undeclared field (the schemas forbid additional
properties), no mistyped one, no null where the document does not allow it.

Ids come from the service's own lists, so every visible record is fetched by its id; the
ids of hidden records are asked for too, and their 404 must match the error schema.
"""
import pytest
from openapi_schema_validator import OAS31Validator, oas31_format_checker

from conftest import API, BIG, SMALL
from test_privacy import hidden_ids


@pytest.fixture(scope="module")
def spec(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


class Checker:
    """GET a path and validate the answer against the schema the document declares for it."""

    def __init__(self, client, key, spec):
        self.client, self.key, self.spec = client, key, spec
        self.validators = {}
        self.checked = 0

    def validator(self, path, status):
        if (path, status) not in self.validators:
            responses = self.spec["paths"][f"{API}{path}"]["get"]["responses"]
            response = responses.get(str(status), responses["default"])
            if "$ref" in response:
                response = self.spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
            schema = {**response["content"]["application/json"]["schema"], "components": self.spec["components"]}
            self.validators[path, status] = OAS31Validator(schema, format_checker=oas31_format_checker)
        return self.validators[path, status]

    def get(self, path, expected=200, **params):
        response = self.client.get(f"{API}{path}", query_string=params, headers={"X-API-Key": self.key})
        assert response.status_code == expected, (path, params, response.get_data(as_text=True)[:300])
        body = response.get_json()
        errors = sorted(self.validator(path, response.status_code).iter_errors(body), key=str)
        assert not errors, (path, params, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]])
        self.checked += 1
        return body

    def all(self, path, **params):
        items, page = [], 1
        while True:
            body = self.get(path, page=page, limit=500, **params)
            items.extend(body["data"])
            if not body["meta"]["hasNextPage"]:
                return items
            page += 1


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_every_answer_matches_the_document(keyed_app, keys, spec, fixture_data, slug):
    check = Checker(keyed_app.test_client(), keys[slug], spec)
    for path in ("/subfests", "/news", "/gallery", "/downloads", "/schedules"):
        check.all(path)
    check.get("/filters")
    sub_fests = check.all("/subfests")
    programmes, candidates, placeholders = [], [], []
    for sub_fest in sub_fests:
        check.get("/filters", subFestSlug=sub_fest["slug"])
        check.all("/schedules", subFestSlug=sub_fest["slug"])
        for path in ("/teams", "/categories", "/programme-results"):
            check.all(path, subFestId=sub_fest["id"])
        programmes += check.all("/programmes", subFestId=sub_fest["id"])
        candidates += check.all("/candidates", subFestId=sub_fest["id"])
        placeholders += check.all("/topper-placeholders", subFestId=sub_fest["id"])
    assert programmes and candidates and placeholders
    for programme in programmes:
        check.get("/programme-detail", subFestProgramId=programme["id"])
        check.get("/programme-result", subFestProgramId=programme["id"])
        check.all("/schedules", subFestProgramId=programme["id"])
        check.all("/gallery", subFestProgramId=programme["id"])
    for candidate in candidates:
        check.get("/candidate-detail", subFestCandidateId=candidate["id"])
        check.get("/candidate-result", subFestCandidateId=candidate["id"])
        check.all("/candidate-registrations", subFestCandidateId=candidate["id"])
    for placeholder in placeholders:
        check.all("/toppers", topperPlaceholderId=placeholder["id"])
        check.get("/page-toppers", placeholderId=placeholder["id"])
    for page in fixture_data[slug].get("websitePages", []):
        visible = page.get("is_published", True) and page.get("is_public", True)
        check.get("/page-toppers", 200 if visible else 404, pageId=page["id"])
        check.get("/page-toppers", 200 if visible else 404, pageSlug=page["slug"])
    for hidden in sorted(hidden_ids(fixture_data[slug]))[:50]:
        for path, name in (("/programme-detail", "subFestProgramId"), ("/candidate-detail", "subFestCandidateId"),
                           ("/toppers", "topperPlaceholderId")):
            check.get(path, 404, **{name: hidden})
    check.get("/programmes", 400, subFestId="not-an-id")
    Checker(check.client, "fds_not-a-key", spec).get("/news", 401)
    assert check.checked > 100
