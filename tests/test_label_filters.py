"""One rule for filters on labels (docs/api-conventions.md): a value matches a stored label
equal to it up to the case of A-Z; for colours leading ``#`` characters are left out."""
import pytest

from conftest import BIG
from fixture_rules import visible_sub_fests


def ids(items):
    return sorted(item["id"] for item in items)


@pytest.mark.parametrize("tag", ["results", "RESULTS", "Results", "rESULTs"])
def test_news_tags_ignore_the_case_of_a_to_z(api, tag):
    expected = [n for n in api.all("/news") if "results" in n["tags"]]
    assert expected
    assert ids(api.all("/news", tags=tag)) == ids(expected)


@pytest.mark.parametrize("category", ["Results", "results", "RESULTS"])
def test_download_category_ignores_the_case_of_a_to_z(api, category):
    expected = [d for d in api.all("/downloads") if d["category"] == "Results"]
    assert expected
    assert ids(api.all("/downloads", category=category)) == ids(expected)


@pytest.mark.parametrize("value", ["%23d62728", "d62728", "%23D62728", "D62728", "%23%23d62728"])  # %23 is "#"
def test_team_colour_ignores_case_and_the_leading_hash(api, fixture_data, value):
    sub_fest = visible_sub_fests(fixture_data[BIG])[0]["id"]
    teams = api.all("/teams", subFestId=sub_fest)
    expected = [t for t in teams if (t["colorCode"] or "").lower() == "#d62728"]
    assert expected
    response = api.client.get(f"/public-api/v1/teams?subFestId={sub_fest}&limit=500&colorCode={value}",
                              headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 200
    assert ids(response.get_json()["data"]) == ids(expected)


@pytest.mark.parametrize("endpoint, name, value", [
    ("/news", "tags", "résults"), ("/news", "tags", "result"), ("/downloads", "category", "Resultş"),
    ("/teams", "colorCode", "d6272"), ("/teams", "colorCode", "d62728#"),
])
def test_nothing_but_a_to_z_case_and_leading_hashes_is_folded(api, fixture_data, endpoint, name, value):
    sub_fest = {"subFestId": visible_sub_fests(fixture_data[BIG])[0]["id"]} if endpoint == "/teams" else {}
    assert api.ok(endpoint, **sub_fest, **{name: value})["data"] == []
