"""GET /programme-results, /programme-result and /candidate-result."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import flag, parse_time, visible_programme_ids, visible_sub_fests
from result_rules import took_part, visible_candidate_ids, visible_registrations, visible_results
from structure_tiny import shape  # noqa: F401 (fixture)
from tiny_festival import tiny, tiny_festival  # noqa: F401 (fixture)

PRIVATE_VALUES = ("@private.example", "ADM-")


@pytest.fixture(scope="module")
def big(fixture_data):
    data = fixture_data[BIG]
    return {
        "data": data,
        "results": visible_results(data),
        "registrations": visible_registrations(data),
        "programmes": {p["id"]: p for p in data["subFestProgrammes"]},
        "visible_programmes": visible_programme_ids(data),
        "sub_fest": visible_sub_fests(data)[0],
    }


def ids(items):
    return [item["id"] for item in items]


def expected_result_ids(big, programme_id):
    return sorted(r["id"] for r in big["results"].values() if r["sub_fest_programme"] == programme_id)


def programmes_with_results(big, sub_fest_id):
    return sorted({r["sub_fest_programme"] for r in big["results"].values()
                   if big["programmes"][r["sub_fest_programme"]]["sub_fest"] == sub_fest_id})


# --- /programme-results ----------------------------------------------------------------------


def test_programme_results_attach_exactly_the_visible_results(api, big):
    sub_fest_id = big["sub_fest"]["id"]
    items = api.all("/programme-results", subFestId=sub_fest_id)
    visible = [p for p in big["visible_programmes"] if big["programmes"][p]["sub_fest"] == sub_fest_id]
    assert sorted(item["programme"]["id"] for item in items) == sorted(visible)
    hidden_results = {r["id"] for r in big["data"]["results"]} - set(big["results"])
    assert hidden_results, "the fixture must hold unpublished and private results"
    for item in items:
        assert sorted(ids(item["results"])) == expected_result_ids(big, item["programme"]["id"])
        assert item["programme"]["resultCount"] == len(item["results"])
        assert not hidden_results & set(ids(item["results"]))


def test_has_results_restricts_to_programmes_with_visible_results(api, big):
    sub_fest_id = big["sub_fest"]["id"]
    with_results = api.all("/programme-results", subFestId=sub_fest_id, hasResults="true")
    assert sorted(item["programme"]["id"] for item in with_results) == programmes_with_results(big, sub_fest_id)
    assert all(item["results"] for item in with_results)
    without = api.all("/programme-results", subFestId=sub_fest_id, hasResults="false")
    assert all(item["results"] == [] for item in without)
    assert without


@pytest.mark.parametrize("params", [
    lambda big: {"search": "song"},
    lambda big: {"search": big["programmes"][next(iter(big["results"].values()))["sub_fest_programme"]]["code"]},
    lambda big: {"categoryIds": next(p["category"] for p in big["programmes"].values()
                                     if p["id"] in big["visible_programmes"] and p["sub_fest"] == big["sub_fest"]["id"])},
    lambda big: {"venues": big["data"]["schedules"][0]["venue"]},
    lambda big: {"hasResults": "true", "programType": "group"},
    lambda big: {"sortBy": "code", "sortOrder": "desc"},
    lambda big: {"sortBy": "name", "limit": 5, "page": 2},
])
def test_programme_filters_paging_and_sorting_match_programmes(api, big, params):
    """The same filter table and query as /programmes: the same programmes, in the same order."""
    query = {"subFestId": big["sub_fest"]["id"], **params(big)}
    expected = api.ok("/programmes", **query)
    body = api.ok("/programme-results", **query)
    assert [item["programme"]["id"] for item in body["data"]] == ids(expected["data"])
    assert body["meta"] == expected["meta"]
    assert body["data"], "the parameters must select something"


def test_results_are_ordered_placed_first_then_by_points(api, big):
    items = api.all("/programme-results", subFestId=big["sub_fest"]["id"], hasResults="true")
    for item in items:
        keys = [(r["position"] is None, r["position"] or 0, -r["points"]) for r in item["results"]]
        assert keys == sorted(keys)


def test_result_fields(api, big):
    registrations = big["registrations"]
    visible_people = visible_candidate_ids(big["data"])
    items = api.all("/programme-results", subFestId=big["sub_fest"]["id"], hasResults="true")
    seen_types = set()
    for item in items:
        for result in item["results"]:
            row = big["results"][result["id"]]
            entry = registrations[row["registration"]]
            seen_types.add(result["participantType"])
            assert set(result) == {
                "id", "participantName", "participantType", "topic", "team", "candidate", "members", "score",
                "grade", "position", "points", "pointsBreakdown", "publishedAt"}
            assert (result["score"], result["grade"], result["position"], result["points"]) == (
                row["score"], row["grade"], row["position"], row["points"])
            breakdown = result["pointsBreakdown"]
            assert breakdown == {"positionPoints": row["position_points"], "gradePoints": row["grade_points"]}
            assert breakdown["positionPoints"] + breakdown["gradePoints"] == result["points"]
            assert parse_time(result["publishedAt"].rstrip("Z")) == parse_time(row["published_at"])
            assert result["participantType"] == entry["type"]
            assert result["topic"] == entry.get("topic")
            if entry["type"] == "group":
                assert result["candidate"] is None
                assert ids(result["members"]) == [c for c in entry["members"] if c in visible_people]
                assert result["participantName"] == entry["group_name"]
            else:
                assert result["members"] is None
                assert result["candidate"]["id"] == entry["sub_fest_candidate"]
                assert result["participantName"] == result["candidate"]["name"]
            if result["team"] is not None:
                assert result["team"]["id"] == entry["team"]
    assert seen_types == {"individual", "group"}


@pytest.mark.parametrize("params, status", [
    ({}, 400),
    ({"subFestId": "nope"}, 400),
    ({"subFestId": "00000000-0000-0000-0000-000000000000"}, 404),
])
def test_programme_results_sub_fest_errors(api, params, status):
    assert api.get("/programme-results", **params).status_code == status


def test_programme_results_of_a_hidden_or_foreign_sub_fest_is_404(api, fixture_data):
    hidden = next(s for s in fixture_data[BIG]["subFests"] if not flag(s, "is_public"))
    foreign = visible_sub_fests(fixture_data[SMALL])[0]
    for sub_fest in (hidden, foreign):
        response = api.get("/programme-results", subFestId=sub_fest["id"])
        assert response.status_code == 404
        assert response.get_json()["message"] == "Sub-fest not found."


def test_programme_results_query_count_does_not_grow_with_the_page(api, big, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/programme-results", subFestId=big["sub_fest"]["id"], limit=1)
    counts = []
    for limit in (1, 8):
        with query_count() as counter:
            body = api.ok("/programme-results", subFestId=big["sub_fest"]["id"], hasResults="true",
                          programType="group", limit=limit)
        assert len(body["data"]) == limit
        counts.append(counter.count)
    # key, then the compiled programmes' page (with their results) with its count
    assert counts[0] == counts[1] == 2, counts


# --- /programme-result -----------------------------------------------------------------------


def a_programme_with_results(big):
    counts = {}
    for result in big["results"].values():
        counts[result["sub_fest_programme"]] = counts.get(result["sub_fest_programme"], 0) + 1
    return big["programmes"][max(sorted(counts), key=counts.get)]


def test_programme_result_by_id(api, big):
    programme = a_programme_with_results(big)
    body = api.ok("/programme-result", subFestProgramId=programme["id"])
    assert set(body) == {"context", "programme", "results"}
    assert body["programme"]["id"] == programme["id"]
    assert body["context"]["subFest"]["id"] == programme["sub_fest"]
    assert sorted(ids(body["results"])) == expected_result_ids(big, programme["id"])


@pytest.mark.parametrize("transform", [str, str.lower])
def test_programme_result_by_code_is_case_insensitive(api, big, transform):
    programme = a_programme_with_results(big)
    body = api.ok("/programme-result", programCode=transform(programme["code"]))
    by_id = api.ok("/programme-result", subFestProgramId=programme["id"])
    assert body == by_id


def test_programme_result_with_both_selectors_agreeing(api, big):
    programme = a_programme_with_results(big)
    sub_fest = next(s for s in big["data"]["subFests"] if s["id"] == programme["sub_fest"])
    body = api.ok("/programme-result", subFestProgramId=programme["id"], programCode=programme["code"],
                  subFestSlug=sub_fest["slug"])
    assert body["programme"]["id"] == programme["id"]


def test_programme_result_with_disagreeing_selectors_is_404(api, big):
    programme = a_programme_with_results(big)
    other = next(p for p in big["programmes"].values()
                 if p["id"] in big["visible_programmes"] and p["code"] != programme["code"])
    response = api.get("/programme-result", subFestProgramId=programme["id"], programCode=other["code"])
    assert response.status_code == 404
    assert response.get_json()["message"] == "Programme not found."


@pytest.mark.parametrize("path, names", [
    ("/programme-result", {"subFestProgramId", "programCode"}),
    ("/candidate-result", {"subFestCandidateId", "chestNo"}),
])
@pytest.mark.parametrize("params", [{}, {"subFestSlug": "main"}, {"blank key": " "}, {"blank key": ""}])
def test_no_selector_is_400_naming_both(tiny, path, names, params):
    client, _ = tiny
    key = next(name for name in names if not name.endswith("Id"))  # the natural key, sent blank
    response = client.get(path, **{key if name == "blank key" else name: value for name, value in params.items()})
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert set(errors) == names
    for name in names:
        assert all(other in errors[name][0] for other in names)


def test_programme_result_404_for_hidden_foreign_and_unknown_ids(api, fixture_data, big):
    hidden = next(p["id"] for p in big["programmes"].values() if p["id"] not in big["visible_programmes"])
    foreign = next(iter(visible_programme_ids(fixture_data[SMALL])))
    bodies = []
    for programme_id in (hidden, foreign, "00000000-0000-0000-0000-000000000000"):
        response = api.get("/programme-result", subFestProgramId=programme_id)
        assert response.status_code == 404
        bodies.append(response.get_json())
    assert bodies[0] == bodies[1] == bodies[2]
    hidden_code = big["programmes"][hidden]["code"]
    assert api.get("/programme-result", programCode=hidden_code).status_code == 404


def test_programme_code_used_in_two_sub_fests_needs_the_sub_fest(tiny):
    client, names = tiny
    response = client.get("/programme-result", programCode="P1")
    assert response.status_code == 400
    assert "subFestSlug" in response.get_json()["message"]
    assert client.ok("/programme-result", programCode="p1", subFestSlug="main")["programme"]["id"] == names["P1"]
    assert client.ok("/programme-result", programCode="P1", subFestSlug="second")["programme"]["id"] == names["second-P1"]
    assert client.get("/programme-result", programCode="P1", subFestSlug="hidden").status_code == 404
    assert client.get("/programme-result", programCode="P1", subFestSlug="nope").status_code == 404
    # an id is unique: no sub-fest needed, but a sub-fest that does not hold it is a 404
    assert client.ok("/programme-result", subFestProgramId=names["P1"])["programme"]["code"] == "P1"
    assert client.get("/programme-result", subFestProgramId=names["P1"], subFestSlug="second").status_code == 404


def test_hidden_results_never_appear_in_a_programme(tiny):
    client, names = tiny
    p1 = client.ok("/programme-result", subFestProgramId=names["P1"])["results"]
    # Xavier (inactive) scored 10 and placed first; he is not there
    assert [(r["participantName"], r["points"]) for r in p1] == [("Anu", 5), ("Bala", 3)]
    p4 = client.ok("/programme-result", subFestProgramId=names["P4"])["results"]
    assert [r["participantName"] for r in p4] == ["Devi", "Chitra"]  # Esha's private result is not
    assert client.ok("/programme-result", subFestProgramId=names["P5"])["results"] == []  # unpublished
    assert client.get("/programme-result", subFestProgramId=names["PH"]).status_code == 404
    g1 = client.ok("/programme-result", programCode="G1")["results"]
    assert [(r["participantName"], [m["name"] for m in r["members"]]) for r in g1] == [
        ("Red group", ["Anu", "Bala"]), ("Blue group", ["Chitra"])]
    assert g1[0]["team"]["name"] == "Red" and g1[0]["candidate"] is None


# --- a team's own entry (see structure_tiny.py) -------------------------------------------------------


def team_ref(names, key, name, public_name=None):
    return {"id": names[key], "name": name, "publicName": public_name}


def entry_rows(results):
    return [(r["participantType"], r["participantName"], r["position"], r["points"],
             r["team"] and r["team"]["id"], r["candidate"], r["members"] and [m["name"] for m in r["members"]])
            for r in results]


def test_a_team_result_shows_while_its_team_is_public(shape):
    client, names = shape
    body = client.ok("/programme-result", subFestProgramId=names["G"])
    # A hidden school's 8, an inactive district's 7 and an inactive entry's 6 are not there;
    # the Empty team's result is withheld (not public).
    assert entry_rows(body["results"]) == [
        ("group", "Red group", 1, 4, None, None, ["Anu", "Bala"]),
        ("team", "The School", 2, 3, names["School"], None, None),  # its public name
        ("team", "Orphan", 3, 2, names["Orphan"], None, None),  # its parent is hidden, not the team
    ]
    assert [r["id"] for r in body["results"]] == [names["result-G-Red"], names["result-G-School"],
                                                 names["result-G-Orphan"]]
    school = body["results"][1]
    assert {k: school["team"][k] for k in ("id", "name", "publicName")} == team_ref(
        names, "School", "School", "The School")
    assert (school["grade"], school["publishedAt"]) == ("B", "2026-01-22T11:00:00Z")
    assert body["programme"]["resultCount"] == 3 and body["programme"]["registrationCount"] == 4
    listed = {item["programme"]["code"]: item for item in client.all("/programme-results", subFestId=names["main"])}
    assert listed["M-G"]["results"] == body["results"]
    # a group of hidden members only is no team's entry: B shows no result
    assert client.ok("/programme-result", subFestProgramId=names["B"])["results"] == []


def test_a_team_result_is_no_candidates_result(shape):
    client, names = shape
    for name in ("Anu", "Bala"):
        results = client.ok("/candidate-result", subFestCandidateId=names[name])["results"]
        assert {r["participantType"] for r in results} <= {"individual", "group"}
        assert names["result-G-School"] not in {r["id"] for r in results}
        entries = client.all("/candidate-registrations", subFestCandidateId=names[name])
        assert not {names["reg-G-School"], names["reg-B-team"]} & {e["id"] for e in entries}


def test_malformed_id_is_400(api):
    response = api.get("/programme-result", subFestProgramId="12")
    assert response.status_code == 400
    assert "subFestProgramId" in response.get_json()["errors"]["query"]


# --- /candidate-result -------------------------------------------------------------------------


def a_candidate_with_group_and_individual_results(big):
    registrations = big["registrations"]
    kinds = {}
    for result in big["results"].values():
        entry = registrations[result["registration"]]
        members = entry["members"] if entry["type"] == "group" else [entry["sub_fest_candidate"]]
        for candidate in members:
            kinds.setdefault(candidate, set()).add(entry["type"])
    candidate_id = sorted(c for c, k in kinds.items() if k == {"individual", "group"})[0]
    return next(c for c in big["data"]["subFestCandidates"] if c["id"] == candidate_id)


def expected_candidate_results(big, candidate_id):
    return sorted(r["id"] for r in big["results"].values()
                  if took_part(big["registrations"][r["registration"]], candidate_id))


def test_candidate_result_lists_individual_and_group_results(api, big):
    candidate = a_candidate_with_group_and_individual_results(big)
    body = api.ok("/candidate-result", subFestCandidateId=candidate["id"])
    assert set(body) == {"context", "candidate", "results"}
    assert sorted(ids(body["results"])) == expected_candidate_results(big, candidate["id"])
    assert {r["participantType"] for r in body["results"]} == {"individual", "group"}
    assert body["candidate"]["id"] == candidate["id"] and body["candidate"]["chestNo"] == candidate["chest_no"]
    assert body["context"]["subFest"]["id"] == candidate["sub_fest"]
    published = [r["publishedAt"] for r in body["results"]]
    assert published == sorted(published, reverse=True)
    for result in body["results"]:
        row = big["results"][result["id"]]
        assert result["programme"]["id"] == row["sub_fest_programme"]
        assert result["programme"]["code"] == big["programmes"][row["sub_fest_programme"]]["code"]
        assert result["points"] == row["points"]


def test_candidate_result_by_chest_number(api, big):
    candidate = a_candidate_with_group_and_individual_results(big)
    assert (api.ok("/candidate-result", chestNo=candidate["chest_no"])
            == api.ok("/candidate-result", subFestCandidateId=candidate["id"]))


def test_candidate_result_selectors_must_agree(api, big):
    candidate = a_candidate_with_group_and_individual_results(big)
    other = next(c for c in big["data"]["subFestCandidates"]
                 if c["id"] in visible_candidate_ids(big["data"]) and c["chest_no"] != candidate["chest_no"])
    assert api.ok("/candidate-result", subFestCandidateId=candidate["id"], chestNo=candidate["chest_no"])
    response = api.get("/candidate-result", subFestCandidateId=candidate["id"], chestNo=other["chest_no"])
    assert response.status_code == 404
    assert response.get_json()["message"] == "Candidate not found."


def test_candidate_result_404_for_hidden_foreign_and_unknown(api, fixture_data, big):
    visible = visible_candidate_ids(big["data"])
    hidden = [c for c in big["data"]["subFestCandidates"] if c["id"] not in visible]
    assert len(hidden) >= 4
    foreign = sorted(visible_candidate_ids(fixture_data[SMALL]))[0]
    for candidate_id in [c["id"] for c in hidden] + [foreign, "00000000-0000-0000-0000-000000000000"]:
        response = api.get("/candidate-result", subFestCandidateId=candidate_id)
        assert response.status_code == 404
        assert response.get_json()["message"] == "Candidate not found."
    for candidate in hidden:
        assert api.get("/candidate-result", chestNo=candidate["chest_no"]).status_code == 404


def test_chest_number_used_in_two_sub_fests_needs_the_sub_fest(tiny):
    client, names = tiny
    response = client.get("/candidate-result", chestNo="101")
    assert response.status_code == 400
    assert "subFestSlug" in response.get_json()["message"]
    assert client.ok("/candidate-result", chestNo="101", subFestSlug="main")["candidate"]["name"] == "Anu"
    assert client.ok("/candidate-result", chestNo="101", subFestSlug="second")["candidate"]["name"] == "Farah"


def test_candidate_result_shows_only_published_public_results(tiny):
    client, names = tiny
    bala = client.ok("/candidate-result", subFestCandidateId=names["Bala"])
    # P1 (3) and the Red group's G1 (4); the unpublished P5 (10) is not there
    assert sorted((r["programme"]["code"], r["points"]) for r in bala["results"]) == [("G1", 4), ("P1", 3)]
    esha = client.ok("/candidate-result", subFestCandidateId=names["Esha"])
    assert [r["programme"]["code"] for r in esha["results"]] == ["P2"]  # not the private P4 result
    anu = client.ok("/candidate-result", subFestCandidateId=names["Anu"])
    assert "PH" not in [r["programme"]["code"] for r in anu["results"]]  # a private programme
    assert client.get("/candidate-result", subFestCandidateId=names["Xavier"]).status_code == 404


def test_candidate_result_has_no_private_values(tiny):
    client, names = tiny
    for name in ("Anu", "Bala", "Chitra"):
        text = client.get("/candidate-result", subFestCandidateId=names[name]).get_data(as_text=True)
        assert not any(value in text for value in PRIVATE_VALUES)
        assert "Xavier" not in text


def test_single_record_query_counts_do_not_grow_with_their_results(tiny, query_count):
    client, names = tiny
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    client.ok("/programme-result", subFestProgramId=names["G1"])
    counts = {}
    for path, params in [("/programme-result", {"subFestProgramId": names["G1"]}),  # 2 group results
                         ("/programme-result", {"subFestProgramId": names["P1"]}),  # 2 individual results
                         ("/candidate-result", {"subFestCandidateId": names["Anu"]}),  # 3 results
                         ("/candidate-result", {"subFestCandidateId": names["Devi"]})]:  # 2 results
        with query_count() as counter:
            body = client.ok(path, **params)
        assert body["results"]
        counts.setdefault(path, []).append(counter.count)
    # key, the compiled programme with its results
    assert counts["/programme-result"] == [2] * 2
    # key, the compiled candidate with its results
    assert counts["/candidate-result"] == [2] * 2


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_bundled_results_show_places_from_first(api, slug):
    """No bundled programme shows a 2nd place without a 1st: places shown rank from 1 (standard
    competition ranking, so 1, 1, 3 is fine and 2 alone is not)."""
    checked = 0
    for sub_fest in api.all("/subfests", key=slug):
        for item in api.all("/programme-results", key=slug, subFestId=sub_fest["id"], hasResults=True):
            places = sorted(r["position"] for r in item["results"] if r["position"] is not None)
            assert all(place <= ahead + 1 for ahead, place in enumerate(places)), (item["programme"]["code"], places)
            checked += bool(places)
    assert checked >= 5
