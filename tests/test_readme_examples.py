"""The README's example requests work as printed, with the first key `festival-api demo` prints
(the festival the README names), and answer with data: a reader who copies them sees what
each endpoint returns, with no id to paste from one answer into the next."""
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
    "/programme-detail": lambda body: body["schedules"],
    "/candidate-detail": lambda body: body["pointsSummary"]["resultCount"],
    "/page-toppers": lambda body: body["toppers"],
}


def test_the_readme_names_the_festival_its_examples_need():
    named = re.search(r"The examples use the bundled festival `([a-z0-9-]+)`", README)
    assert named and named[1] == BIG
    assert f"KEY=fds_...   # the first key printed by `festival-api demo`: the {BIG} key" in README
    assert len(EXAMPLES) >= 14


@pytest.mark.parametrize("example", EXAMPLES)
def test_no_example_needs_an_id_pasted(example):
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-|=[A-Z][A-Z_]+(&|$)", example), example


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_readme_example_answers_with_data(api, example):
    response = api.client.get(API + example, headers={"X-API-Key": api.keys[BIG]})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    path = example.split("?")[0]
    filled = FILLED[path](body) if path in FILLED else body["data"]
    assert filled, f"{example} answers with no data"
