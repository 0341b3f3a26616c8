"""Validators that survive imports: after ``import --update`` publishes one programme's results,
an answer whose data did not change keeps its ETag (a client's ``If-None-Match`` gets a
``304``), an answer that did change gets a new one, and ``X-Data-Revision`` always says the
festival's current revision. With the response cache on and off, for ``GET`` and ``HEAD``."""
import json

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from app.door.headers import weak_etag
from conftest import API, BIG
from custom_apps import app_with  # noqa: F401  (fixture)
from fixture_rules import flag, publication, visible_programme_ids
from test_headers_on_the_wire import request, serving, values

PUBLISHED_AT = "2026-01-18T16:00:00Z"


def programmes_of_general(data):
    """``(to publish, already published)``: two visible programmes of the general sub-fest, the
    first completed with results not yet published, the second with published results."""
    general = next(s["id"] for s in data["subFests"] if s["slug"] == "general")
    visible = visible_programme_ids(data)
    mine = [p for p in data["subFestProgrammes"] if p["sub_fest"] == general and p["id"] in visible]
    results = {}
    for result in data["results"]:
        results.setdefault(result["sub_fest_programme"], []).append(result)
    to_publish = next(p for p in mine if p["status"] == "completed" and results.get(p["id"])
                      and not any(flag(r, "is_published") for r in results[p["id"]]))
    published = next(p for p in mine if p["status"] == "result_published" and p is not to_publish)
    return to_publish, published, results[to_publish["id"]]


def urls(to_publish, published, revision):
    """``(path, params, changes)``: what a result-day site holds, and whether publishing
    ``to_publish``'s results changes that answer's data."""
    return [
        ("/subfests", {}, False),
        ("/news", {"limit": 10}, False),
        ("/gallery", {}, False),
        ("/downloads", {}, False),
        ("/categories", {"subFestSlug": "general"}, False),
        ("/schedules", {"limit": 20}, False),
        ("/programme-result", {"subFestProgramId": published["id"]}, False),
        ("/programme-detail", {"subFestProgramId": published["id"]}, False),
        ("/programme-result", {"subFestProgramId": to_publish["id"]}, True),
        ("/programme-results", {"subFestSlug": "general", "hasResults": "true", "limit": 100}, True),
        ("/programmes", {"subFestSlug": "general", "limit": 100}, True),
        ("/filters", {}, False),  # the menus: no option moved
        ("/changes", {"sinceRevision": revision}, True),
    ]


def without_revision(body):
    """The answer's JSON without its ``context.data`` (the revision and its time)."""
    answer = json.loads(body)
    answer["context"].pop("data")
    return answer


@pytest.fixture(params=[0, 60], ids=["cache off", "cache on"])
def cache_seconds(request):
    return request.param


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_an_update_keeps_the_validators_of_the_answers_it_did_not_change(
        fresh_app, app_with, keys, fixture_data, tmp_path, monkeypatch, cache_seconds, method):
    _, url = fresh_app
    client = app_with(database_url=url, RESPONSE_CACHE_SECONDS=cache_seconds).test_client()
    headers = {"X-API-Key": keys[BIG]}

    def get(path, params, **extra):
        return client.open(f"{API}{path}", method="GET", query_string=params, headers={**headers, **extra})

    to_publish, published, results = programmes_of_general(fixture_data[BIG])
    revision = int(get("/subfests", {}).headers["X-Data-Revision"])
    table = urls(to_publish, published, revision)
    before = {}
    for path, params, _ in table:
        response = get(path, params)
        assert response.status_code == 200, (path, response.get_json())
        assert response.headers["X-Data-Revision"] == str(revision)
        before[path, str(params)] = response

    publish(tmp_path, monkeypatch, url, to_publish, results)

    for path, params, changes in table:
        held = before[path, str(params)]
        again = client.open(f"{API}{path}", method=method, query_string=params,
                            headers={**headers, "If-None-Match": held.headers["ETag"]})
        fresh = get(path, params)
        assert fresh.headers["X-Data-Revision"] == str(revision + 1)
        assert json.loads(fresh.data)["context"]["data"]["revision"] == revision + 1
        # The validator follows the data: the same exactly when all but the revision is.
        assert (fresh.headers["ETag"] == held.headers["ETag"]) == (
            without_revision(fresh.data) == without_revision(held.data)), path
        if changes:
            assert again.status_code == 200, (path, params)
            assert again.headers["ETag"] != held.headers["ETag"]
            assert without_revision(fresh.data) != without_revision(held.data)
            assert again.data == (b"" if method == "HEAD" else fresh.data)
        else:
            assert again.status_code == 304, (path, params)
            assert again.data == b""
            assert again.headers.getlist("ETag") == [held.headers["ETag"]]
        assert again.headers.getlist("X-Data-Revision") == [str(revision + 1)]


def test_on_the_wire_an_unchanged_answer_is_a_free_304_after_an_update(
        fresh_app, app_with, keys, fixture_data, tmp_path, monkeypatch):
    """Through waitress on a port, read as raw header lists: after the update, the held /news
    is a 304 with one ETag (the one held), the new revision and the budget unspent; the
    programme published is a 200 that spends one request."""
    _, url = fresh_app
    to_publish, _, results = programmes_of_general(fixture_data[BIG])
    app = app_with(database_url=url, RATELIMIT_DEFAULT="5 per minute", RESPONSE_CACHE_SECONDS=5)
    key = {"X-API-Key": keys[BIG]}
    programme = f"/programme-result?subFestProgramId={to_publish['id']}"
    with serving(app) as port:
        _, news, _ = request(port, "GET", "/news", key)
        _, held, _ = request(port, "GET", programme, key)
        revision = int(values(news, "X-Data-Revision")[0])
        assert values(held, "X-RateLimit-Remaining") == ["3"]
        publish(tmp_path, monkeypatch, url, to_publish, results)
        for _ in range(3):
            status, headers, body = request(port, "GET", "/news", {**key, "If-None-Match": values(news, "ETag")[0]})
            assert (status, body) == (304, b"")
            assert values(headers, "ETag") == values(news, "ETag")
            assert values(headers, "X-Data-Revision") == [str(revision + 1)]
            assert values(headers, "X-RateLimit-Remaining") == ["3"]
        status, headers, _ = request(port, "GET", programme, {**key, "If-None-Match": values(held, "ETag")[0]})
        assert status == 200 and values(headers, "ETag") != values(held, "ETag")
        assert values(headers, "X-Data-Revision") == [str(revision + 1)]
        assert values(headers, "X-RateLimit-Remaining") == ["2"]


def publish(tmp_path, monkeypatch, url, programme, results):
    """Publish ``programme``'s results with ``festival-api import --update``."""
    update = tmp_path / "publish.json"
    update.write_text(json.dumps(publication(BIG, programme, results, PUBLISHED_AT)))
    monkeypatch.setenv("DATABASE_URL", url)
    done = CliRunner().invoke(cli, ["import", "--update", str(update)])
    assert done.exit_code == 0, done.output


def test_the_revision_header_is_on_every_answer_of_a_festival_and_exposed(api):
    body = api.ok("/news")
    for response in (api.get("/news"), api.get("/news", limit=0), api.get("/candidate-result", chestNo="0"),
                     api.get("/news", headers={"If-None-Match": api.get("/news").headers["ETag"]})):
        assert response.headers.getlist("X-Data-Revision") == [str(body["context"]["data"]["revision"])]
    assert "X-Data-Revision" not in api.get("/news", key=None).headers  # no key: no festival
    exposed = api.get("/news", headers={"Origin": "https://festival-site.example"}).headers
    assert "x-data-revision" in exposed["Access-Control-Expose-Headers"].lower()


REVISION_12 = b'"data":{"revision":12,"changedAt":"2026-01-14T09:30:00Z"}}'
REVISION_13 = b'"data":{"revision":13,"changedAt":"2026-01-14T10:00:00Z"}}'


@pytest.mark.parametrize("first, second, same", [
    (b'{"data":[1],"context":{' + REVISION_12 + b'}', b'{"data":[1],"context":{' + REVISION_13 + b'}', True),
    (b'{"data":[1],"context":{' + REVISION_12 + b'}', b'{"data":[2],"context":{' + REVISION_13 + b'}', False),
    # the same bytes around the revision, but the revision elsewhere: other data
    (b'{"a":"x' + REVISION_12 + b'"}', b'{"a":"' + REVISION_13 + b'x"}', False),
    (b'{"data":[1]}', b'{"data":[2]}', False),
])
def test_a_validator_leaves_out_the_revision_and_nothing_else(first, second, same):
    assert (weak_etag(first, REVISION_12) == weak_etag(second, REVISION_13)) is same
    assert weak_etag(first, REVISION_12).startswith('W/"')


def every_operation(api_get, programme, chest_no, revision):
    """``{path: params}``: one request of each of the API's operations, for the sub-fest
    ``general``, the programme ``programme`` and the candidate ``chest_no``."""
    board = api_get("/topper-placeholders", {"subFestSlug": "general", "limit": 1}).get_json()["data"][0]
    page = api_get("/filters", {}).get_json()  # noqa: F841  (read once, as a site does)
    candidate = {"chestNo": chest_no, "subFestSlug": "general"}
    return {
        "/subfests": {}, "/news": {}, "/gallery": {}, "/downloads": {},
        "/categories": {"subFestSlug": "general"}, "/teams": {"subFestSlug": "general"},
        "/filters": {}, "/schedules": {"subFestSlug": "general", "limit": 20},
        "/programmes": {"subFestSlug": "general", "limit": 100},
        "/programme-detail": {"subFestProgramId": programme},
        "/programme-results": {"subFestSlug": "general", "hasResults": "true", "limit": 100},
        "/programme-result": {"subFestProgramId": programme},
        "/candidates": {"subFestSlug": "general", "limit": 10},
        "/candidate-detail": candidate, "/candidate-result": candidate, "/candidate-registrations": candidate,
        "/topper-placeholders": {"subFestSlug": "general"},
        "/toppers": {"topperPlaceholderId": board["id"]},
        "/page-toppers": {"pageSlug": "results"},
        "/topper-race": {"topperPlaceholderId": board["id"]},
        "/changes": {"sinceRevision": revision},
    }


def test_a_score_that_moves_no_points_keeps_every_board_and_filters_etag(
        fresh_app, app_with, keys, fixture_data, tmp_path, monkeypatch, cache_seconds):
    """An import that changes one result's score and no points: of the 21 operations exactly
    those that show the score (the programme's results, its candidate's) and /changes get a new
    ETag; every leaderboard, /filters and the rest answer 304 to the ETag held."""
    _, url = fresh_app
    client = app_with(database_url=url, RESPONSE_CACHE_SECONDS=cache_seconds).test_client()
    headers = {"X-API-Key": keys[BIG]}

    def get(path, params, **extra):
        return client.get(f"{API}{path}", query_string=params, headers={**headers, **extra})

    spec = get("/openapi.json", {}).get_json()
    operations = {path[len(API):] for path, item in spec["paths"].items() if "get" in item}
    published = {r["id"]: r for r in fixture_data[BIG]["results"]}
    latest = get("/programme-results", {"subFestSlug": "general", "hasResults": "true", "limit": 100}).get_json()
    programme, result = next((item["programme"]["id"], r) for item in latest["data"] for r in item["results"]
                             if r["candidate"] and published[r["id"]].get("score") is not None)
    revision = int(get("/subfests", {}).headers["X-Data-Revision"])
    table = every_operation(get, programme, result["candidate"]["chestNo"], revision)
    assert set(table) == operations and len(operations) == 21
    held = {}
    for path, params in table.items():
        response = get(path, params)
        assert response.status_code == 200, (path, response.get_json())
        held[path] = response

    update = tmp_path / "score.json"
    update.write_text(json.dumps({"formatVersion": 1, "festival": {"slug": BIG}, "results": [
        {"id": result["id"], "score": published[result["id"]]["score"] + 0.5}]}))
    monkeypatch.setenv("DATABASE_URL", url)
    done = CliRunner().invoke(cli, ["import", "--update", str(update)])
    assert done.exit_code == 0, done.output

    assert moved_since(get, table, held, revision + 1) == {
        "/programme-result", "/programme-results", "/candidate-result", "/candidate-registrations", "/changes"}


def moved_since(get, table, held, revision):
    """The paths of ``table`` whose answer is no longer the one ``held``: each asked again
    with the ETag held, a ``304`` exactly when its data (all but the revision) is the same."""
    moved = set()
    for path, params in table.items():
        again = get(path, params, **{"If-None-Match": held[path].headers["ETag"]})
        assert again.headers["X-Data-Revision"] == str(revision)
        assert again.status_code in (200, 304), (path, again.status_code)
        if again.status_code == 200:
            moved.add(path)
            assert again.headers["ETag"] != held[path].headers["ETag"]
            assert without_revision(again.data) != without_revision(held[path].data), path
        else:
            assert without_revision(get(path, params).data) == without_revision(held[path].data), path
    return moved


def test_a_publication_that_moves_points_moves_only_the_answers_that_show_them(
        fresh_app, app_with, keys, fixture_data, tmp_path, monkeypatch):
    """One programme's results published, moving points: of the 21 operations those that show
    the programme, its results, its candidate, the boards it moves (their times and
    completeness in /topper-placeholders) and /changes get a new ETag; /filters (no option
    moved), the content, the teams, categories and schedules answer 304."""
    _, url = fresh_app
    client = app_with(database_url=url).test_client()
    headers = {"X-API-Key": keys[BIG]}

    def get(path, params, **extra):
        return client.get(f"{API}{path}", query_string=params, headers={**headers, **extra})

    data = fixture_data[BIG]
    to_publish, _, results = programmes_of_general(data)
    entries = {r["id"]: r for r in data["registrations"]}
    people = {c["id"]: c for c in data["subFestCandidates"]}
    scored = next(r for r in results if r.get("points") and entries[r["registration"]]["type"] == "individual")
    candidate = people[entries[scored["registration"]]["sub_fest_candidate"]]
    revision = int(get("/subfests", {}).headers["X-Data-Revision"])
    table = every_operation(get, to_publish["id"], candidate["chest_no"], revision)
    held = {path: get(path, params) for path, params in table.items()}
    assert all(response.status_code == 200 for response in held.values())

    publish(tmp_path, monkeypatch, url, to_publish, results)

    detail = get("/candidate-detail", table["/candidate-detail"]).get_json()
    assert detail["pointsSummary"] != held["/candidate-detail"].get_json()["pointsSummary"]  # points moved
    # The list of candidates moves when one of the programme's is on its page.
    in_programme = {entries[r["registration"]].get("sub_fest_candidate") for r in results}
    listed = {item["id"] for item in held["/candidates"].get_json()["data"]}
    assert moved_since(get, table, held, revision + 1) == {
        "/programmes", "/programme-detail", "/programme-results", "/programme-result",
        "/candidate-detail", "/candidate-result", "/candidate-registrations",
        "/topper-placeholders", "/toppers", "/page-toppers", "/topper-race", "/changes",
        *(["/candidates"] if listed & in_programme else [])}
