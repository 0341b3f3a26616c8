"""The README's example requests work, with the key of the festival the README names, and
answer with data: a reader who copies them sees what each endpoint returns."""
import re
from pathlib import Path

import pytest

from conftest import API, BIG

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r'curl -H "X-API-Key: \$KEY" "\$BASE(/[^"]+)"', README)

# Where each answer keeps its data when it is not a list envelope.
FILLED = {
    "/filters": lambda body: any(isinstance(v, list) and v for v in body.values()),
    "/programme-result": lambda body: body["results"],
    "/candidate-result": lambda body: body["results"],
    "/page-toppers": lambda body: body["toppers"],
}


def test_the_readme_names_the_festival_its_examples_need():
    named = re.search(r"The examples use the bundled festival `([a-z0-9-]+)`", README)
    assert named and named[1] == BIG
    assert f"KEY=fds_...   # the {BIG} key printed by `festival-api demo`" in README
    assert len(EXAMPLES) >= 10


@pytest.fixture(scope="module")
def ids(api):
    sub_fest_slug = re.search(r"subFestSlug=([a-z0-9-]+)", " ".join(EXAMPLES))[1]
    sub_fest = next(s for s in api.ok("/subfests", limit=100)["data"] if s["slug"] == sub_fest_slug)
    placeholders = api.ok("/topper-placeholders", subFestId=sub_fest["id"], entityType="team")["data"]
    return {"SUBFEST_ID": sub_fest["id"], "PLACEHOLDER_ID": placeholders[0]["id"]}


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_readme_example_answers_with_data(api, ids, example):
    for name, value in ids.items():
        example = example.replace(name, value)
    response = api.client.get(API + example, headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    path = example.split("?")[0]
    filled = FILLED[path](body) if path in FILLED else body["data"]
    assert filled, f"{example} answers with no data"
