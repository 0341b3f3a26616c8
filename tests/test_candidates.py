"""GET /candidates and /candidate-detail: visibility, privacy, every filter, points, sorting."""
import fnmatch

import pytest

from conftest import API, BIG, ENCODINGS, SMALL, ApiClient, array_query
from schemas.enums import GENDERS
from fixture_rules import PRIVATE_FIELD_NAMES, flag, private_values
from structure_rules import UNKNOWN_ID, expected_order, ids, one_404, unseen_sub_fests
from structure_rules import big, fests, sub_fest  # noqa: F401 (fixtures)
from structure_tiny import shape  # noqa: F401 (fixture)

IDENTITY_FIELDS = {"id", "chestNo", "name", "nameLocal", "gender", "avatarUrl"}
ITEM_FIELDS = {"id", "candidate", "avatarUrl", "subFest", "category", "team", "sections",
               "pointsSummary", "registrationCount"}


@pytest.fixture(scope="module")
def everyone(api, sub_fest):
    """Every listed candidate of the big festival's main sub-fest, by id."""
    return {i["id"]: i for i in api.all("/candidates", subFestId=sub_fest)}


def listed(api, key=BIG, **params):
    return api.all("/candidates", key=key, **params)


def expect(big, sub_fest, predicate):
    return sorted(c["id"] for c in big.candidates(sub_fest) if predicate(c))


# --- visibility and fields -------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_visible_candidates_of_each_sub_fest(api, fests, slug):
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        body = api.ok("/candidates", key=slug, subFestId=sub_fest["id"], limit=500)
        assert ids(body["data"]) == sorted(c["id"] for c in festival.candidates(sub_fest["id"]))
        assert body["meta"]["total"] == len(festival.candidates(sub_fest["id"]))


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_hidden_candidates_of_every_kind_stay_hidden(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    hidden = festival.hidden_candidates(sub_fest)
    kinds = {(flag(c, "is_active"), flag(c, "is_public"), flag(festival.person(c), "is_active"),
              flag(festival.person(c), "is_public")) for c in hidden}
    assert len(kinds) == 4, "the fixture hides candidates in four ways"
    shown = set(ids(listed(api, key=slug, subFestId=sub_fest)))
    assert not shown & {c["id"] for c in hidden}
    for candidate in hidden:
        assert listed(api, key=slug, subFestId=sub_fest, search=candidate["chest_no"]) == []


def test_item_fields_match_the_fixture(big, sub_fest, everyone):
    teams, categories, sections = big.by_id("teams"), big.by_id("categories"), big.by_id("sections")
    rows = big.by_id("subFestCandidates")
    assert len(everyone) == len(big.candidates(sub_fest))
    for item in everyone.values():
        row = rows[item["id"]]
        person = big.person(row)
        assert set(item) == ITEM_FIELDS
        assert item["candidate"] == {
            "id": row["id"], "chestNo": row["chest_no"], "name": person["name"],
            "nameLocal": person.get("name_local"), "gender": person.get("gender"),
            "avatarUrl": row.get("avatar_url")}
        assert item["avatarUrl"] == row.get("avatar_url")
        assert item["subFest"]["id"] == sub_fest
        assert item["category"]["id"] == row["category"]
        assert item["category"]["name"] == categories[row["category"]]["name"]
        assert item["team"]["id"] == row["team"] and item["team"]["name"] == teams[row["team"]]["name"]
        assert [s["id"] for s in item["sections"]] == sorted(
            (s for s in row.get("sections", []) if big.visible("sections", s)),
            key=lambda s: (sections[s].get("display_order", 0), sections[s]["key"]))


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_points_and_registration_counts(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    items = listed(api, key=slug, subFestId=sub_fest)
    for item in items:
        assert item["pointsSummary"] == festival.points_summary(item["id"]), item["candidate"]["chestNo"]
        assert item["registrationCount"] == festival.candidate_registration_count[item["id"]]
    assert any(item["pointsSummary"]["totalPoints"] > 0 for item in items)


def test_points_would_change_if_hidden_results_counted(big, everyone):
    """Unpublished and private results exist for listed candidates: the totals above leave them out."""
    entries = {r["id"]: r for r in big.rows("registrations")}
    uncounted = [r for r in big.rows("results")
                 if not (flag(r, "is_published", False) and flag(r, "is_public")) and r.get("points")]
    affected = {p for r in uncounted for p in big.participants(entries[r["registration"]])} & set(everyone)
    assert affected


def test_group_results_count_in_full_for_each_member(big, everyone):
    members_with_group_points = [i for i in everyone.values() if i["pointsSummary"]["groupPoints"] > 0]
    assert members_with_group_points
    for item in everyone.values():
        summary = item["pointsSummary"]
        assert summary["totalPoints"] == summary["individualPoints"] + summary["groupPoints"]
        assert summary["resultCount"] >= sum(summary["byPosition"].values())


def test_shape_points_by_hand(shape):
    client, names = shape
    items = {i["candidate"]["name"]: i for i in client.all("/candidates", subFestId=names["main"])}
    assert sorted(items) == ["Anu", "Bala", "Chitra", "Devi", "Esha"]
    summaries = {name: (i["pointsSummary"], i["registrationCount"]) for name, i in items.items()}
    assert summaries == {
        "Anu": ({"totalPoints": 9.0, "individualPoints": 5.0, "groupPoints": 4.0, "resultCount": 2,
                 "byPosition": {"1": 2}, "byGrade": {"A": 2}}, 2),
        "Bala": ({"totalPoints": 7.0, "individualPoints": 3.0, "groupPoints": 4.0, "resultCount": 2,
                  "byPosition": {"1": 1, "2": 1}, "byGrade": {"A": 1, "B": 1}}, 3),
        "Chitra": ({"totalPoints": 2.0, "individualPoints": 2.0, "groupPoints": 0.0, "resultCount": 1,
                    "byPosition": {"3": 1}, "byGrade": {"B": 1}}, 1),
        "Devi": ({"totalPoints": 0.0, "individualPoints": 0.0, "groupPoints": 0.0, "resultCount": 0,
                  "byPosition": {}, "byGrade": {}}, 1),
        "Esha": ({"totalPoints": 0.0, "individualPoints": 0.0, "groupPoints": 0.0, "resultCount": 0,
                  "byPosition": {}, "byGrade": {}}, 0),
    }


def test_shape_hidden_team_category_and_section_are_null_or_left_out(shape):
    client, names = shape
    items = {i["candidate"]["name"]: i for i in client.all("/candidates", subFestId=names["main"])}
    assert items["Chitra"]["team"] is None  # her school is private
    assert items["Devi"]["category"] is None  # her category is inactive
    assert items["Devi"]["team"]["id"] == names["Orphan"]
    assert [s["id"] for s in items["Anu"]["sections"]] == [names["Day"]]
    assert "HIDDEN" not in str(items)


# --- filters, each alone -----------------------------------------------------------------------


def test_search_matches_name_and_chest_number_only(api, big, sub_fest):
    candidates = big.candidates(sub_fest)
    target = candidates[0]
    person = big.person(target)
    surname = person["name"].split()[-1]

    def matches(c, term):
        p = big.person(c)
        return any(term.lower() in (text or "").lower() for text in (p["name"], p.get("name_local"), c["chest_no"]))

    expected = expect(big, sub_fest, lambda c: matches(c, surname))
    assert target["id"] in expected and len(expected) < len(candidates)
    assert ids(listed(api, subFestId=sub_fest, search=surname.upper())) == expected
    assert ids(listed(api, subFestId=sub_fest, search=target["chest_no"])) == expect(
        big, sub_fest, lambda c: matches(c, target["chest_no"]))
    first = person["name"].split()[0]
    both = ids(listed(api, subFestId=sub_fest, search=[first, surname]))
    assert both == expect(big, sub_fest, lambda c: matches(c, first) and matches(c, surname))
    assert target["id"] in both


def test_search_never_matches_private_fields(api, big, sub_fest):
    person = big.person(big.candidates(sub_fest)[0])
    for field in ("email", "phone", "admission_number", "admission_details", "date_of_birth"):
        assert person.get(field)
        assert listed(api, subFestId=sub_fest, search=str(person[field])) == [], field
    assert listed(api, subFestId=sub_fest, search="private.example") == []


def test_category_filter(api, big, sub_fest):
    for category in big.categories(sub_fest)[:3]:
        expected = expect(big, sub_fest, lambda c: c["category"] == category["id"])
        assert expected
        assert ids(listed(api, subFestId=sub_fest, categoryIds=category["id"])) == expected


def test_team_filter_includes_the_teams_below(api, big, sub_fest):
    teams = big.teams(sub_fest)
    school = next(t for t in teams if t.get("parent"))
    district = next(t for t in teams if t["id"] == school["parent"])
    schools = {t["id"] for t in teams if t.get("parent") == district["id"]}
    assert ids(listed(api, subFestId=sub_fest, teamIds=school["id"])) == expect(
        big, sub_fest, lambda c: c["team"] == school["id"])
    expected = expect(big, sub_fest, lambda c: c["team"] in schools | {district["id"]})
    assert len(expected) > len(expect(big, sub_fest, lambda c: c["team"] == school["id"]))
    assert ids(listed(api, subFestId=sub_fest, teamIds=district["id"])) == expected


@pytest.mark.parametrize("value, names", [
    ("true", ["Anu", "Bala", "Chitra", "Devi"]), ("false", ["Esha"]),
    ("true,false", ["Anu", "Bala", "Chitra", "Devi", "Esha"]),
])
def test_shape_has_registration_with_an_entry_without_candidate(shape, value, names):
    client, ids_ = shape
    found = client.all("/candidates", subFestId=ids_["main"], hasRegistration=value)
    assert sorted(i["candidate"]["name"] for i in found) == names


def test_shape_team_filter_skips_hidden_teams(shape):
    client, names = shape
    found = client.all("/candidates", subFestId=names["main"], teamIds=names["District"])
    assert sorted(i["candidate"]["name"] for i in found) == ["Anu", "Bala"]  # not Chitra (hidden school)
    assert client.all("/candidates", subFestId=names["main"], teamIds=names["HiddenSchool"]) == []
    assert client.all("/candidates", subFestId=names["main"], teamIds=names["HiddenDistrict"]) == []
    assert client.all("/candidates", subFestId=names["main"], sectionIds=names["HiddenSection"]) == []
    assert client.all("/candidates", subFestId=names["main"], categoryIds=names["HiddenCategory"]) == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_team_ids_and_gender_accept_three_encodings(app, keys, big, sub_fest, encoding):
    teams = [t["id"] for t in big.teams(sub_fest) if t.get("parent")][:2]
    genders = ["female", "other"]
    query = array_query("teamIds", teams, encoding) + "&" + array_query("gender", genders, encoding)
    response = app.test_client().get(f"{API}/candidates?subFestId={sub_fest}&limit=500&{query}",
                                      headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200
    expected = expect(big, sub_fest, lambda c: c["team"] in teams and big.person(c)["gender"] in genders)
    assert expected
    assert ids(response.get_json()["data"]) == expected


@pytest.mark.parametrize("gender", GENDERS)
def test_gender_filter_each_value(api, big, sub_fest, gender):
    expected = expect(big, sub_fest, lambda c: big.person(c)["gender"] == gender)
    assert expected
    assert ids(listed(api, subFestId=sub_fest, gender=gender)) == expected


@pytest.mark.parametrize("value, everyone_shown", [
    ("true", True), ("false", False), ("true,false", True), ("1", True), ("0", False)])
def test_is_active_never_widens_the_output(api, big, sub_fest, value, everyone_shown):
    expected = sorted(c["id"] for c in big.candidates(sub_fest)) if everyone_shown else []
    assert ids(listed(api, subFestId=sub_fest, isActive=value)) == expected


@pytest.mark.parametrize("pattern", ["10*", "*5", "*0*", "1010", "1?1"])
def test_chest_number_pattern(api, big, sub_fest, pattern):
    regex = fnmatch.translate(pattern.replace("?", "[?]"))
    expected = expect(big, sub_fest, lambda c: fnmatch.re.fullmatch(regex, c["chest_no"]) is not None)
    if "?" not in pattern:
        assert expected
    assert ids(listed(api, subFestId=sub_fest, chestNoPattern=pattern)) == expected


def test_several_chest_number_patterns_mean_any_of(api, big, sub_fest):
    expected = expect(big, sub_fest, lambda c: c["chest_no"].startswith("10") or c["chest_no"].endswith("99"))
    assert ids(listed(api, subFestId=sub_fest, chestNoPattern="10*,*99")) == expected


@pytest.fixture
def adm_api(adm_filter_app, keys):
    """The API on a copy of the festivals where the large one has turned ``admNoPattern`` on."""
    app, _ = adm_filter_app
    return ApiClient(app.test_client(), keys)


def test_admission_number_is_exact_match_only(adm_api, big, sub_fest):
    api = adm_api
    candidate = big.candidates(sub_fest)[0]
    number = big.person(candidate)["admission_number"]
    assert ids(listed(api, subFestId=sub_fest, admNoPattern=number)) == [candidate["id"]]
    assert ids(listed(api, subFestId=sub_fest, admNoPattern=number.lower())) == [candidate["id"]]
    for guess in (number[:-1] + "*", "*" + number[-3:], number[:4], "*", "%", number[:-1] + "_", f" {number[:-1]}"):
        assert listed(api, subFestId=sub_fest, admNoPattern=guess) == [], guess


def test_admission_number_is_never_returned(adm_api, big, sub_fest):
    api = adm_api
    candidate = big.candidates(sub_fest)[0]
    number = big.person(candidate)["admission_number"]
    response = api.get("/candidates", subFestId=sub_fest, admNoPattern=number)
    assert number not in response.get_data(as_text=True)
    assert number.lower() not in response.get_data(as_text=True).lower()


def test_admission_number_of_a_hidden_candidate_finds_nothing(adm_api, big, sub_fest):
    api = adm_api
    hidden = big.hidden_candidates(sub_fest)
    for candidate in hidden:
        assert listed(api, subFestId=sub_fest, admNoPattern=big.person(candidate)["admission_number"]) == []


@pytest.mark.parametrize("param", ["hasAvatar", "hasRegistration"])
@pytest.mark.parametrize("value", ["true", "false", "false,true"])
def test_presence_filters(api, big, sub_fest, param, value):
    predicate = {
        "hasAvatar": lambda c: bool(c.get("avatar_url")),
        "hasRegistration": lambda c: big.candidate_registration_count[c["id"]] > 0,
    }[param]
    wanted = {v == "true" for v in value.split(",")}
    expected = expect(big, sub_fest, lambda c: predicate(c) in wanted)
    assert expected and (len(wanted) == 2 or len(expected) < len(big.candidates(sub_fest)))
    assert ids(listed(api, subFestId=sub_fest, **{param: value})) == expected


def test_section_filter(api, big, sub_fest):
    sections = sorted({s for c in big.candidates(sub_fest) for s in c.get("sections", [])
                       if big.visible("sections", s)})
    assert len(sections) >= 2
    for section in sections:
        expected = expect(big, sub_fest, lambda c: section in c.get("sections", []))
        assert 0 < len(expected) < len(big.candidates(sub_fest))
        assert ids(listed(api, subFestId=sub_fest, sectionIds=section)) == expected


# --- filters combined ------------------------------------------------------------------------------


def test_filters_combine_with_and(api, big, sub_fest):
    category = big.categories(sub_fest)[0]["id"]
    section = big.candidates(sub_fest)[0]["sections"][0]
    cases = [
        ({"gender": "female", "categoryIds": category},
         lambda c: big.person(c)["gender"] == "female" and c["category"] == category),
        ({"hasAvatar": "true", "hasRegistration": "true", "sectionIds": section},
         lambda c: bool(c.get("avatar_url")) and big.candidate_registration_count[c["id"]] > 0
         and section in c["sections"]),
        ({"chestNoPattern": "1*", "gender": "male,other", "search": "a"},
         lambda c: c["chest_no"].startswith("1") and big.person(c)["gender"] in ("male", "other")
         and "a" in (big.person(c)["name"] + (big.person(c).get("name_local") or "") + c["chest_no"]).lower()),
    ]
    for params, predicate in cases:
        expected = expect(big, sub_fest, predicate)
        assert expected, params
        assert ids(listed(api, subFestId=sub_fest, **params)) == expected, params


# --- sorting and paging -------------------------------------------------------------------------------


@pytest.mark.parametrize("sort_by", ["chestNo", "name"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, big, sub_fest, sort_by, order):
    value_of = {
        "chestNo": lambda c: (len(c["chest_no"]), c["chest_no"]),
        "name": lambda c: big.person(c)["name"],
    }[sort_by]
    items = api.ok("/candidates", subFestId=sub_fest, sortBy=sort_by, sortOrder=order, limit=500)["data"]
    assert [i["id"] for i in items] == expected_order(big.candidates(sub_fest), value_of, order == "desc")


def test_chest_numbers_sort_as_numbers(shape):
    client, names = shape
    items = client.ok("/candidates", subFestId=names["main"], sortBy="chestNo", sortOrder="desc")["data"]
    assert [i["candidate"]["chestNo"] for i in items] == ["106", "104", "103", "102", "101"]


@pytest.mark.parametrize("private", ["email", "phone", "dateOfBirth", "admissionNumber", "admNo"])
def test_private_fields_are_not_sort_fields(api, sub_fest, private):
    response = api.get("/candidates", subFestId=sub_fest, sortBy=private)
    assert response.status_code == 400
    assert "chestNo" in response.get_json()["errors"]["query"]["sortBy"][0]


def test_pages_neither_repeat_nor_skip(api, big, sub_fest):
    seen = []
    for page in range(1, 100):
        body = api.ok("/candidates", subFestId=sub_fest, sortBy="name", limit=37, page=page)
        if not body["data"]:
            break
        seen.extend(i["id"] for i in body["data"])
    assert len(seen) == len(set(seen)) == len(big.candidates(sub_fest))


# --- errors ------------------------------------------------------------------------------------------------


def test_not_found_sub_fests_are_one_identical_404(api, fests):
    cases = unseen_sub_fests(fests)
    assert len(cases) >= 4
    assert "Sub-fest not found." in one_404(api, "/candidates", "subFestId", cases)


def test_gender_error_names_the_allowed_values(api, sub_fest):
    message = api.get("/candidates", subFestId=sub_fest, gender="x").get_json()["errors"]["query"]["gender"]
    assert all(g in str(message) for g in GENDERS)


# --- privacy and query count ----------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_private_or_hidden_data_in_lists_or_details(api, fixture_data, fests, slug):
    secrets = private_values(fixture_data[slug])
    assert any("@private.example" in s for s in secrets) and any(s.startswith("ADM-") for s in secrets)
    festival = fests[slug]
    texts = []
    for sub_fest in festival.sub_fests:
        for page in range(1, 100):
            response = api.get("/candidates", key=slug, subFestId=sub_fest["id"], limit=100, page=page)
            texts.append(response.get_data(as_text=True))
            if not response.get_json()["meta"]["hasNextPage"]:
                break
        for candidate in festival.candidates(sub_fest["id"])[:10]:
            texts.append(api.get("/candidate-detail", key=slug, subFestCandidateId=candidate["id"])
                         .get_data(as_text=True))
    people = {c["id"] for c in festival.rows("candidates")}
    for text in texts:
        assert "HIDDEN" not in text
        assert "private.example" not in text and "ADM-" not in text
        assert not [s for s in secrets if s in text]
        assert not [name for name in PRIVATE_FIELD_NAMES if f'"{name}"' in text]
        assert not [p for p in people if p in text], "a person's master id is never shown"


def test_query_count_does_not_grow_with_the_page(api, sub_fest, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/candidates", subFestId=sub_fest, limit=1)
    counts = []
    for limit in (1, 100):
        with query_count() as counter:
            body = api.ok("/candidates", subFestId=sub_fest, limit=limit)
        assert len(body["data"]) == limit
        counts.append(counter.count)
    # key, then the compiled candidates' page with its total
    assert counts == [2] * 2


# --- /candidate-detail ----------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_detail_matches_the_list_item(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    items = listed(api, key=slug, subFestId=sub_fest)
    for item in sorted(items, key=lambda i: -i["pointsSummary"]["totalPoints"])[:5]:
        body = api.ok("/candidate-detail", key=slug, subFestCandidateId=item["id"])
        assert set(body) == ITEM_FIELDS | {"context"}
        assert {k: body[k] for k in ITEM_FIELDS} == item
        assert body["context"]["subFest"]["id"] == sub_fest
        assert body["context"]["festival"]["slug"] == slug
        assert set(body["candidate"]) == IDENTITY_FIELDS


def test_detail_404_is_identical_for_every_hidden_case(api, fests):
    big, small = fests[BIG], fests[SMALL]
    hidden = [c["id"] for c in big.rows("subFestCandidates") if c["id"] not in big.candidate_ids]
    in_hidden_sub_fest = [c for c in big.rows("subFestCandidates") if c["sub_fest"] not in big.sub_fest_ids]
    assert len(hidden) >= 4 and in_hidden_sub_fest
    cases = [UNKNOWN_ID, next(iter(small.candidate_ids)), *hidden]
    assert "Candidate not found." in one_404(api, "/candidate-detail", "subFestCandidateId", cases)


def test_detail_of_a_person_id_is_404(api, big, sub_fest):
    """The person's master id is not a sub-fest candidate id."""
    person_id = big.candidates(sub_fest)[0]["candidate"]
    assert api.get("/candidate-detail", subFestCandidateId=person_id).status_code == 404


@pytest.mark.parametrize("params", [{}, {"subFestCandidateId": "101"}])
def test_detail_bad_parameters_are_400(api, params):
    response = api.get("/candidate-detail", **params)
    assert response.status_code == 400
    assert "subFestCandidateId" in response.get_json()["errors"]["query"]


def test_openapi_documents_every_parameter_enum_and_sort_field(app):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"][f"{API}/candidates"]["get"]["parameters"] if p["in"] == "query"}
    assert set(params) == {
        "subFestId", "subFestSlug", "page", "limit", "sortBy", "sortOrder", "search", "categoryIds", "teamIds", "gender",
        "isActive", "chestNoPattern", "admNoPattern", "hasAvatar", "hasRegistration", "sectionIds"}
    assert params["gender"]["schema"]["items"]["enum"] == list(GENDERS)
    assert params["sortBy"]["schema"]["enum"] == ["chestNo", "name"]
    schemas = spec["components"]["schemas"]
    text = str({name: schemas[name] for name in schemas if "Candidate" in name or "PointsSummary" in name})
    for private in PRIVATE_FIELD_NAMES:
        assert f"'{private}'" not in text


@pytest.mark.parametrize("query", [
    "admNoPattern=ADM-2026-0001,ADM-2026-0002",
    "admNoPattern=ADM-2026-0001&admNoPattern=ADM-2026-0002",
    "admNoPattern[]=ADM-2026-0001&admNoPattern=ADM-2026-0002",
])
def test_adm_no_pattern_takes_one_value_per_request(adm_api, sub_fest, query):
    response = adm_api.client.get(f"{API}/candidates?subFestId={sub_fest}&{query}",
                                  headers={"X-API-Key": adm_api.keys[BIG]})
    assert response.status_code == 400
    assert "admNoPattern" in response.get_json()["errors"]["query"]
    assert adm_api.get("/candidates", subFestId=sub_fest, admNoPattern="ADM-2026-0001").status_code == 200
