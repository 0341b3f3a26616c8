"""GET /candidate-registrations: a candidate's entries, their members and published results."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import parse_time
from result_rules import took_part, visible_candidate_ids, visible_registrations, visible_results
from tiny_festival import tiny, tiny_festival  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def big(fixture_data):
    data = fixture_data[BIG]
    registrations = visible_registrations(data)
    results = {r["registration"]: r for r in visible_results(data).values()}
    return {"data": data, "registrations": registrations, "results": results,
            "visible": visible_candidate_ids(data)}


def ids(items):
    return [item["id"] for item in items]


def entries_of(big, candidate_id):
    return [r for r in big["registrations"].values() if took_part(r, candidate_id)]


def busiest_candidate(big):
    """The visible candidate with the most entries, of both kinds."""
    def score(candidate_id):
        entries = entries_of(big, candidate_id)
        return (len({e["type"] for e in entries}), len(entries), candidate_id)
    return max(sorted(big["visible"]), key=score)


def test_lists_exactly_the_visible_entries_the_candidate_took_part_in(api, big):
    candidate_id = busiest_candidate(big)
    expected = entries_of(big, candidate_id)
    assert {e["type"] for e in expected} == {"individual", "group"}
    body = api.ok("/candidate-registrations", subFestCandidateId=candidate_id, limit=500)
    assert sorted(ids(body["data"])) == sorted(e["id"] for e in expected)
    assert body["meta"]["total"] == len(expected)
    candidate = next(c for c in big["data"]["subFestCandidates"] if c["id"] == candidate_id)
    assert body["context"]["subFest"]["id"] == candidate["sub_fest"]


def test_item_fields(api, big):
    candidate_id = busiest_candidate(big)
    programmes = {p["id"]: p for p in big["data"]["subFestProgrammes"]}
    for item in api.all("/candidate-registrations", subFestCandidateId=candidate_id):
        row = big["registrations"][item["id"]]
        assert set(item) == {"type", "id", "topic", "topicStatus", "checkedIn", "registeredAt", "team",
                             "programme", "members", "result"}
        assert (item["type"], item["topic"], item["topicStatus"], item["checkedIn"]) == (
            row["type"], row.get("topic"), row.get("topic_status"), row.get("checked_in", False))
        assert parse_time(item["registeredAt"].rstrip("Z")) == parse_time(row["registered_at"])
        assert item["programme"]["id"] == row["sub_fest_programme"]
        assert item["programme"]["code"] == programmes[row["sub_fest_programme"]]["code"]
        if item["team"] is not None:
            assert item["team"]["id"] == row["team"]
        if row["type"] == "group":
            assert ids(item["members"]) == [c for c in row["members"] if c in big["visible"]]
        else:
            assert item["members"] is None


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_a_result_is_shown_only_when_published_and_public(api, fixture_data, slug):
    data = fixture_data[slug]
    registrations = visible_registrations(data)
    shown = {r["registration"]: r for r in visible_results(data).values()}
    withheld = {r["registration"] for r in data["results"]
                if r["registration"] in registrations and r["registration"] not in shown}
    assert withheld, "the fixture must hold unpublished or private results of visible entries"
    candidates = set()
    for registration_id in withheld:
        entry = registrations[registration_id]
        candidates.update(entry["members"] if entry["type"] == "group" else [entry["sub_fest_candidate"]])
    visible = visible_candidate_ids(data)
    checked = 0
    for candidate_id in sorted(candidates & visible)[:6]:
        for item in api.all("/candidate-registrations", key=slug, subFestCandidateId=candidate_id):
            result = shown.get(item["id"])
            if result is None:
                assert item["result"] is None
            else:
                assert item["result"]["id"] == result["id"]
                assert item["result"]["points"] == result["points"]
                assert item["result"]["pointsBreakdown"] == {
                    "positionPoints": result["position_points"], "gradePoints": result["grade_points"]}
            checked += item["id"] in withheld
    assert checked


def test_tiny_entries_results_and_members(tiny):
    client, names = tiny
    bala = {item["programme"]["code"]: item for item in client.all("/candidate-registrations",
                                                                   subFestCandidateId=names["Bala"])}
    assert sorted(bala) == ["G1", "P1", "P5"]
    assert bala["P5"]["result"] is None  # scored 10, not published
    assert bala["P1"]["result"]["points"] == 3
    assert [m["name"] for m in bala["G1"]["members"]] == ["Anu", "Bala"]
    esha = {item["programme"]["code"]: item for item in client.all("/candidate-registrations",
                                                                   subFestCandidateId=names["Esha"])}
    assert esha["P4"]["result"] is None  # published but not public
    chitra = client.all("/candidate-registrations", subFestCandidateId=names["Chitra"])
    group = next(item for item in chitra if item["type"] == "group")
    assert [m["name"] for m in group["members"]] == ["Chitra"]  # Xavier is inactive
    anu = client.all("/candidate-registrations", subFestCandidateId=names["Anu"])
    assert "PH" not in [item["programme"]["code"] for item in anu]  # a private programme


@pytest.mark.parametrize("sort_by, value", [
    ("registeredAt", lambda item: item["registeredAt"]),
    ("programCode", lambda item: item["programme"]["code"].lower()),
    ("programName", lambda item: item["programme"]["program"]["name"].lower()),
    ("type", lambda item: item["type"]),
])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, big, sort_by, value, order):
    candidate_id = busiest_candidate(big)
    items = api.all("/candidate-registrations", subFestCandidateId=candidate_id, sortBy=sort_by, sortOrder=order)
    values = [value(item) for item in items]
    assert values == sorted(values, reverse=(order == "desc"))
    assert len(items) == len(entries_of(big, candidate_id))


def test_pages_neither_repeat_nor_skip(api, big):
    candidate_id = busiest_candidate(big)
    seen, page = [], 1
    while True:
        body = api.ok("/candidate-registrations", subFestCandidateId=candidate_id, sortBy="type", page=page, limit=2)
        seen.extend(ids(body["data"]))
        if not body["meta"]["hasNextPage"]:
            break
        page += 1
    assert sorted(seen) == sorted(e["id"] for e in entries_of(big, candidate_id))


@pytest.mark.parametrize("params, status", [
    ({}, 400),
    ({"subFestCandidateId": "x"}, 400),
    ({"subFestCandidateId": "00000000-0000-0000-0000-000000000000"}, 404),
])
def test_bad_or_unknown_candidate(api, params, status):
    assert api.get("/candidate-registrations", **params).status_code == status


def test_hidden_and_foreign_candidates_are_404(api, fixture_data, big):
    hidden = [c["id"] for c in big["data"]["subFestCandidates"] if c["id"] not in big["visible"]]
    foreign = sorted(visible_candidate_ids(fixture_data[SMALL]))[0]
    bodies = []
    for candidate_id in hidden + [foreign]:
        response = api.get("/candidate-registrations", subFestCandidateId=candidate_id)
        assert response.status_code == 404
        bodies.append(response.get_json())
    assert all(body == bodies[0] for body in bodies)


def test_query_count_does_not_grow_with_the_page(api, big, query_count):
    candidate_id = busiest_candidate(big)
    total = len(entries_of(big, candidate_id))
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/candidate-registrations", subFestCandidateId=candidate_id, limit=1)
    counts = []
    for limit in (1, total):
        with query_count() as counter:
            body = api.ok("/candidate-registrations", subFestCandidateId=candidate_id, sortBy="type",
                          sortOrder="asc", limit=limit)
        assert body["data"][0]["type"] == "group"  # the first page holds a group entry too
        counts.append(counter.count)
    # key, then the compiled candidate with its entries (page and total)
    assert counts[0] == counts[1] == 2, counts


def test_a_candidate_without_entries_and_pages_past_the_end(api, big):
    lonely = sorted(c for c in big["visible"] if not entries_of(big, c))[0]
    body = api.ok("/candidate-registrations", subFestCandidateId=lonely)
    assert body["data"] == [] and body["meta"]["total"] == 0
    sub_fest = next(c["sub_fest"] for c in big["data"]["subFestCandidates"] if c["id"] == lonely)
    assert body["context"]["subFest"]["id"] == sub_fest
    busy = busiest_candidate(big)
    total = len(entries_of(big, busy))
    past = api.ok("/candidate-registrations", subFestCandidateId=busy, page=total + 1, limit=1)
    assert past["data"] == [] and past["meta"]["total"] == total and past["meta"]["hasPreviousPage"]
    assert api.ok("/candidate-registrations", subFestCandidateId=lonely, page=2)["meta"]["total"] == 0
    hidden = next(c["id"] for c in big["data"]["subFestCandidates"] if c["id"] not in big["visible"])
    assert api.get("/candidate-registrations", subFestCandidateId=hidden, page=2).status_code == 404
