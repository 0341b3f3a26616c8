"""GET /programme-detail and /candidate-detail by their natural keys: a programme by its code,
a candidate by chest number, narrowed to a sub-fest by ``subFestSlug`` or ``subFestId``; the
answer is exactly the one the id gives, and the selector rules are those of /programme-result."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import visible_programme_ids, visible_sub_fests
from result_rules import visible_candidate_ids
from tiny_festival import tiny, tiny_festival  # noqa: F401 (fixture)

# path, id parameter, natural-key parameter
DETAILS = [("/programme-detail", "subFestProgramId", "programCode"),
           ("/candidate-detail", "subFestCandidateId", "chestNo")]


@pytest.fixture(scope="module")
def records(fixture_data):
    """{path: [(id, natural key, sub-fest)]} of every visible programme and candidate of the big festival."""
    data = fixture_data[BIG]
    sub_fests = {s["id"]: s for s in visible_sub_fests(data)}
    programmes = visible_programme_ids(data)
    candidates = visible_candidate_ids(data)
    return {
        "/programme-detail": [(p["id"], p["code"], sub_fests[p["sub_fest"]]) for p in data["subFestProgrammes"]
                              if p["id"] in programmes],
        "/candidate-detail": [(c["id"], c["chest_no"], sub_fests[c["sub_fest"]]) for c in data["subFestCandidates"]
                              if c["id"] in candidates],
    }


@pytest.mark.parametrize("path, by_id, by_key", DETAILS)
def test_the_natural_key_answers_exactly_what_the_id_answers(api, records, path, by_id, by_key):
    assert len(records[path]) > 20
    for record_id, key, sub_fest in records[path]:
        expected = api.ok(path, **{by_id: record_id})
        assert api.ok(path, **{by_key: key, "subFestSlug": sub_fest["slug"]}) == expected
        assert api.ok(path, **{by_key: key.lower(), "subFestId": sub_fest["id"]}) == expected
        assert api.ok(path, **{by_id: record_id, by_key: key}) == expected


@pytest.mark.parametrize("path, by_id, by_key", DETAILS)
@pytest.mark.parametrize("params", [{}, {"subFestSlug": "general"}, {"blank key": " "}, {"blank key": ""}])
def test_no_selector_is_400_naming_both(api, path, by_id, by_key, params):
    params = {by_key if name == "blank key" else name: value for name, value in params.items()}
    response = api.get(path, **params)
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert set(errors) == {by_id, by_key}
    assert all(by_id in messages[0] and by_key in messages[0] for messages in errors.values())


@pytest.mark.parametrize("path, by_id, by_key", DETAILS)
def test_sub_fest_id_and_slug_naming_different_sub_fests_are_the_404_of_an_unknown_one(api, records, path, by_id,
                                                                                        by_key):
    record_id, key, sub_fest = records[path][0]
    other = next(s for _, _, s in records[path] if s["id"] != sub_fest["id"])
    unknown = api.get(path, **{by_key: key, "subFestSlug": "no-such-sub-fest"})
    assert unknown.status_code == 404
    for selector in ({by_key: key}, {by_id: record_id}):
        # either order: the record's own sub-fest by id or by slug, the other by the other
        for pair in ({"subFestId": sub_fest["id"], "subFestSlug": other["slug"]},
                     {"subFestId": other["id"], "subFestSlug": sub_fest["slug"]}):
            response = api.get(path, **selector, **pair)
            assert response.status_code == 404
            assert response.get_json() == unknown.get_json()


@pytest.mark.parametrize("path, by_id, by_key", DETAILS)
def test_an_id_and_a_key_of_different_records_are_the_one_404(api, records, path, by_id, by_key):
    (first_id, _, sub_fest), (_, other_key, _) = records[path][0], records[path][1]
    response = api.get(path, **{by_id: first_id, by_key: other_key})
    assert response.status_code == 404
    # a key in another sub-fest than the one named is not found either
    other = next(s for _, _, s in records[path] if s["id"] != sub_fest["id"])
    assert api.get(path, **{by_id: first_id, "subFestSlug": other["slug"]}).status_code == 404


def test_hidden_and_foreign_keys_are_the_one_404(api, fixture_data):
    data = fixture_data[BIG]
    visible = visible_programme_ids(data)
    hidden = next(p for p in data["subFestProgrammes"] if p["id"] not in visible)
    bodies = [api.get("/programme-detail", programCode=hidden["code"]).get_json(),
              api.get("/programme-detail", programCode="NO-SUCH-CODE").get_json()]
    foreign = next(p for p in fixture_data[SMALL]["subFestProgrammes"]
                   if p["id"] in visible_programme_ids(fixture_data[SMALL])
                   and p["code"] not in {q["code"] for q in data["subFestProgrammes"]})
    bodies.append(api.get("/programme-detail", programCode=foreign["code"]).get_json())
    assert bodies[0] == bodies[1] == bodies[2] == {"code": 404, "status": "Not Found", "message": "Programme not found."}
    assert api.get("/candidate-detail", chestNo="no-such-chest", subFestSlug="general").status_code == 404
    assert api.get("/programme-detail", programCode=data["subFestProgrammes"][0]["code"],
                   subFestSlug="hidden-tamil").status_code == 404


@pytest.mark.parametrize("path, key, named, other", [
    ("/programme-detail", {"programCode": "P1"}, "P1", "second-P1"),
    ("/candidate-detail", {"chestNo": "101"}, "Anu", "Farah"),
])
def test_a_key_used_in_two_sub_fests_needs_the_sub_fest(tiny, path, key, named, other):
    client, names = tiny
    response = client.get(path, **key)
    assert response.status_code == 400
    assert "subFestSlug" in response.get_json()["message"]
    assert client.ok(path, **key, subFestSlug="main")["id"] == names[named]
    assert client.ok(path, **key, subFestSlug="second")["id"] == names[other]


def test_openapi_documents_the_natural_keys(app):
    spec = app.test_client().get("/public-api/v1/openapi.json").get_json()
    for path, by_id, by_key in DETAILS:
        params = {p["name"]: p for p in spec["paths"][f"/public-api/v1{path}"]["get"]["parameters"]}
        assert set(params) == {by_id, by_key, "subFestId", "subFestSlug"}
        assert not any(p["required"] for p in params.values())
        assert by_key in params[by_id]["description"] and by_id in params[by_key]["description"]
