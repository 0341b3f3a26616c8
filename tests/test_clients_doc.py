"""docs/clients.md: its glossary names the contract's names, its table gives the shape of every
answer, and its Python result-day recipe runs as printed against the service: it polls
/changes and fetches again only the programme whose results were just published."""
import re
import threading
import urllib.error
import urllib.request
import wsgiref.simple_server
from pathlib import Path

import pytest

from conftest import API, BIG, TEST_SETTINGS, writable
from fixture_rules import flag, visible_programme_ids
from seed.pipeline.write.update import update_fixture

DOC = (Path(__file__).resolve().parent.parent / "docs" / "clients.md").read_text(encoding="utf-8")


def test_the_glossary_explains_the_contracts_names():
    glossary = DOC.split("## The names", 1)[1].split("## The shape", 1)[0]
    names = re.findall(r"^\| ([^|]+?) \|", glossary, re.M)
    for name in ("sub-fest", "programme", "program", "candidate", "chest number", "revision"):
        assert name in names, name
    for parameter in ("subFestProgramId", "programCode", "subFestCandidateId", "chestNo", "subFestSlug"):
        assert parameter in glossary, parameter


def test_the_table_gives_the_shape_of_every_answer(app):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    table = DOC.split("## The shape of each answer", 1)[1].split("## ", 1)[0]
    rows = dict(re.findall(r"^\| `(/[a-z-]+)` \| (.+) \|$", table, re.M))
    assert set(rows) == {path[len(API):] for path in spec["paths"]}
    assert "{\"programme\": {...}, \"results\": [...]}" in rows["/programme-results"]


def test_the_recipe_names_the_three_steps_and_the_409():
    recipe = DOC.split("## Result day", 1)[1]
    for words in ("If-None-Match", "/changes?sinceRevision=N", "304", "409", "starts over from 0"):
        assert words in recipe, words
    javascript = re.search(r"```js\n(.*?)```", recipe, re.S)[1]
    # The default cache mode: `cache: "no-cache"` costs a preflight before every request.
    assert "cache:" not in javascript and "/changes" in javascript and "error.status === 409" in javascript


def test_the_typescript_revalidation_is_the_code_ci_compiles_and_runs():
    """The TypeScript blocks that revalidate are clients/typescript/recipe.ts's own, which
    tests/test_typescript_client.py compiles with tsc --strict and runs against the service."""
    recipe = (Path(__file__).resolve().parent.parent / "clients" / "typescript" / "recipe.ts").read_text(encoding="utf-8")
    blocks = [block for block in re.findall(r"```ts\n(.*?)```", DOC, re.S) if "If-None-Match" in block]
    assert len(blocks) == 2
    for block in blocks:
        assert block in recipe, block[:200]


class QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served(fresh_app):
    """The service on a loopback port, over a private writable copy of the database."""
    from app import create_app

    _, url = fresh_app
    app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
    server = wsgiref.simple_server.make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{API}", url
    finally:
        server.shutdown()
        server.server_close()


def python_recipe(base, key):
    """The documented Python recipe, run as printed: its ``FestivalCopy`` of the sub-fest "general"."""
    code = next(block for block in re.findall(r"```python\n(.*?)```", DOC, re.S) if "class FestivalCopy" in block)
    namespace = {}
    exec(compile(code, "docs/clients.md", "exec"), namespace)  # noqa: S102 (the documented recipe, as printed)
    return namespace["FestivalCopy"](base=base, key=key, sub_fest="general")


def counted_statuses(monkeypatch):
    """The list every ``urllib.request.urlopen`` answer's status is appended to, from now on."""
    statuses = []
    urlopen = urllib.request.urlopen

    def counted(request, **kwargs):
        try:
            response = urlopen(request, **kwargs)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
            raise
        statuses.append(response.status)
        return response

    monkeypatch.setattr(urllib.request, "urlopen", counted)
    return statuses


def test_the_python_recipe_fetches_only_what_was_published(served, keys, fixture_data, monkeypatch):
    base, url = served
    statuses = counted_statuses(monkeypatch)
    festival = python_recipe(base, keys[BIG])
    asked = []
    get = festival.get
    festival.get = lambda path, **params: asked.append(path) or get(path, **params)

    festival.load()
    assert festival.programmes and festival.poll() == []
    statuses.clear()
    assert festival.poll() == []
    assert statuses == [304]  # the poll itself: the same answer, revalidated

    data = fixture_data[BIG]
    general = next(s["id"] for s in data["subFests"] if s["slug"] == "general")
    visible = visible_programme_ids(data)
    programme = next(p for p in data["subFestProgrammes"] if p["sub_fest"] == general and p["id"] in visible
                     and p["status"] == "completed")
    results = [r for r in data["results"] if r["sub_fest_programme"] == programme["id"]]
    assert results and not any(flag(r, "is_published") for r in results)
    assert festival.programmes[programme["id"]]["results"] == []
    with writable(url):
        update_fixture({
            "formatVersion": 1, "festival": {"slug": BIG},
            "subFestProgrammes": [{"id": programme["id"], "status": "result_published",
                                   "published_at": "2026-01-18T16:00:00Z"}],
            "results": [{"id": r["id"], "is_published": True, "published_at": "2026-01-18T16:00:00Z"} for r in results],
        })
    asked.clear()
    assert festival.poll() == [programme["id"]]
    assert asked == ["/changes", "/programme-result"]
    assert len(festival.programmes[programme["id"]]["results"]) == len(results)
    assert festival.poll() == []


def test_the_python_recipe_recovers_from_a_revision_ahead_of_the_festival(served, keys):
    """A revision ahead of the festival's (its data was loaded anew): the recipe ends up at the
    festival's revision, whether /changes answers 409 (start over from 0) or an empty list."""
    base, _ = served
    festival = python_recipe(base, keys[BIG])
    festival.load()
    current = festival.revision
    festival.revision = current + 1000
    festival.poll()
    assert festival.revision == current


def test_the_python_recipe_follows_the_revision_through_a_304(served, keys, fixture_data, monkeypatch):
    """An import that changes no programme leaves the /changes poll a 304, whose body shows the
    revision it was made at; the recipe still moves on to the festival's current revision."""
    base, url = served
    festival = python_recipe(base, keys[BIG])
    festival.load()
    assert festival.poll() == []
    before = festival.revision
    statuses = counted_statuses(monkeypatch)
    news = fixture_data[BIG]["news"][0]
    with writable(url):
        update_fixture({"formatVersion": 1, "festival": {"slug": BIG},
                        "news": [{"id": news["id"], "title": news["title"] + " (updated)"}]})
    assert festival.poll() == []
    assert statuses == [304]
    assert festival.revision == before + 1
