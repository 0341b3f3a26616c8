"""GET /programmes and /programme-detail: visibility, every filter, sorting, counts, clock."""
import datetime
import fnmatch

import pytest

import db.clock
from conftest import API, BIG, ENCODINGS, SMALL, array_query
from schemas.enums import PROGRAM_TYPES, SUB_FEST_PROGRAMME_STATUSES
from fixture_rules import PRIVATE_FIELD_NAMES, flag, parse_time, private_values
from structure_rules import UNKNOWN_ID, expected_order, ids, one_404, unseen_sub_fests, window_open
from structure_rules import big, fests, sub_fest  # noqa: F401 (fixtures)
from structure_tiny import shape  # noqa: F401 (fixture)

DURING = datetime.datetime(2026, 1, 15, 12, 0)  # registration open for the 2026-2030 windows
EARLY = datetime.datetime(2025, 1, 15, 12, 0)  # inside the 2025 windows, before every schedule
LATER = datetime.datetime(2031, 1, 15, 12, 0)  # inside the 2031 windows, after every schedule


@pytest.fixture
def clock(monkeypatch):
    """``clock(moment)`` makes ``moment`` the service's now."""
    def set_now(moment):
        monkeypatch.setattr(db.clock, "utcnow", lambda: moment)
        return moment
    return set_now


def listed(api, key=BIG, **params):
    return api.all("/programmes", key=key, **params)


def expect(big, sub_fest, predicate):
    rows = [p for p in big.programmes(sub_fest) if predicate(p)]
    return sorted(p["id"] for p in rows)


# --- visibility and fields -------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_visible_programmes_of_each_sub_fest(api, fests, slug):
    festival = fests[slug]
    for sub_fest in festival.sub_fests:
        body = api.ok("/programmes", key=slug, subFestId=sub_fest["id"], limit=500)
        assert ids(body["data"]) == sorted(p["id"] for p in festival.programmes(sub_fest["id"]))
        assert body["meta"]["total"] == len(festival.programmes(sub_fest["id"]))
        assert body["context"]["subFest"]["id"] == sub_fest["id"]


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_hidden_programmes_of_every_kind_stay_hidden(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    hidden = [p for p in festival.rows("subFestProgrammes")
              if p["sub_fest"] == sub_fest and p["id"] not in festival.programme_ids]
    masters = festival.by_id("programmes")
    kinds = {(flag(p, "is_active"), flag(p, "is_public"), flag(masters[p["programme"]], "is_active")
              and flag(masters[p["programme"]], "is_public")) for p in hidden}
    assert len(kinds) >= 2, "the fixture must hide programmes in several ways"
    shown = set(ids(listed(api, key=slug, subFestId=sub_fest)))
    assert not shown & {p["id"] for p in hidden}


def test_item_fields_match_the_fixture(api, big, sub_fest, clock):
    clock(DURING)
    masters = big.by_id("programmes")
    categories = big.by_id("categories")
    rows = big.by_id("subFestProgrammes")
    for item in listed(api, subFestId=sub_fest):
        row = rows[item["id"]]
        master = masters[row["programme"]]
        assert set(item) == {"id", "code", "status", "publishedAt", "subFest", "program", "category",
                             "nextSchedule", "resultCount", "registrationCount"}
        assert item["code"] == row["code"]
        assert item["status"] == row["status"]
        published = parse_time(row.get("published_at"))
        assert item["publishedAt"] == (published.isoformat() + "Z" if published else None)
        assert item["subFest"]["id"] == sub_fest
        assert item["program"] == {
            "id": master["id"], "code": master["code"], "name": master["name"],
            "nameLocal": master.get("name_local"), "programType": master["program_type"],
            "durationMinutes": master.get("duration_minutes")}
        category = categories[row["category"]]
        assert item["category"] == {"id": category["id"], "name": category["name"],
                                    "nameLocal": category.get("name_local")}


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_counts_leave_out_hidden_entries_and_unpublished_results(api, fests, slug):
    festival = fests[slug]
    sub_fest = festival.main_sub_fest["id"]
    items = {i["id"]: i for i in listed(api, key=slug, subFestId=sub_fest)}
    for programme_id, item in items.items():
        assert item["resultCount"] == festival.result_count[programme_id], programme_id
        assert item["registrationCount"] == festival.registration_count[programme_id], programme_id
    # the counts would differ if hidden entries or unpublished/private results counted
    naive_results = {pid: sum(1 for r in festival.rows("results") if r["sub_fest_programme"] == pid)
                     for pid in items}
    naive_entries = {pid: sum(1 for r in festival.rows("registrations") if r["sub_fest_programme"] == pid)
                     for pid in items}
    assert any(naive_results[pid] != items[pid]["resultCount"] for pid in items)
    assert any(naive_entries[pid] != items[pid]["registrationCount"] for pid in items)
    hidden_people = {c["id"] for c in festival.hidden_candidates(sub_fest)}
    assert any(r["sub_fest_candidate"] in hidden_people for r in festival.rows("registrations")
               if r["sub_fest_programme"] in items), "the fixture must enter hidden candidates"


# --- the clock: next schedule and registration windows --------------------------------------


@pytest.mark.parametrize("now", [EARLY, DURING, LATER])
def test_next_schedule_follows_the_clock(api, big, sub_fest, clock, now):
    clock(now)
    venues = big.by_id("venues")
    seen_some = seen_none = False
    for item in listed(api, subFestId=sub_fest):
        expected = big.next_schedule(item["id"], now)
        if expected is None:
            assert item["nextSchedule"] is None
            seen_none = True
            continue
        seen_some = True
        assert item["nextSchedule"]["id"] == expected["id"]
        assert item["nextSchedule"]["scheduledAt"] == parse_time(expected["scheduled_at"]).isoformat() + "Z"
        venue = venues[expected["venue"]]
        if flag(venue, "is_public"):
            assert item["nextSchedule"]["venue"]["id"] == venue["id"]
        else:
            assert item["nextSchedule"]["venue"] is None
    assert seen_some == (now != LATER)
    assert seen_none


@pytest.mark.parametrize("param, prefix", [
    ("candidateRegistrationOpen", "candidate_registration"),
    ("topicRegistrationOpen", "topic_registration"),
])
@pytest.mark.parametrize("now", [EARLY, DURING, LATER])
@pytest.mark.parametrize("wanted", [True, False])
def test_registration_window_filters_follow_the_clock(api, big, sub_fest, clock, param, prefix, now, wanted):
    clock(now)
    expected = expect(big, sub_fest, lambda p: window_open(
        p.get(f"{prefix}_opens_at"), p.get(f"{prefix}_closes_at"), now) == wanted)
    assert ids(listed(api, subFestId=sub_fest, **{param: str(wanted).lower()})) == expected


def test_registration_windows_open_and_closed_at_each_clock(big, sub_fest):
    """The clocks above see both states of both windows (the filter tests discriminate)."""
    for prefix in ("candidate_registration", "topic_registration"):
        states = {window_open(p.get(f"{prefix}_opens_at"), p.get(f"{prefix}_closes_at"), now)
                  for p in big.programmes(sub_fest) for now in (EARLY, DURING, LATER)}
        assert states == {True, False}, prefix


# --- filters, each alone -----------------------------------------------------------------------


def test_search_matches_name_and_code_case_insensitively(api, big, sub_fest):
    masters = big.by_id("programmes")
    programme = big.programmes(sub_fest)[0]
    word = masters[programme["programme"]]["name"].split()[0]

    def matches(p, term):
        master = masters[p["programme"]]
        return any(term.lower() in (text or "").lower()
                   for text in (master["name"], master.get("name_local"), master["code"], p["code"]))

    expected = expect(big, sub_fest, lambda p: matches(p, word))
    assert programme["id"] in expected and len(expected) < len(big.programmes(sub_fest))
    assert ids(listed(api, subFestId=sub_fest, search=word.upper())) == expected
    code = programme["code"].lower()
    assert ids(listed(api, subFestId=sub_fest, search=code)) == expect(big, sub_fest, lambda p: matches(p, code))


@pytest.mark.parametrize("term", ["%", "_", "\\"])
def test_search_wildcards_are_literal(api, big, sub_fest, term):
    assert ids(listed(api, subFestId=sub_fest, search=term)) == expect(
        big, sub_fest, lambda p: term in p["code"] or term in big.by_id("programmes")[p["programme"]]["name"])


def test_search_never_finds_hidden_programmes(api, big, sub_fest):
    assert listed(api, subFestId=sub_fest, search="HIDDEN") == []


def test_category_filter(api, big, sub_fest):
    categories = [c["id"] for c in big.categories(sub_fest)]
    assert len(categories) >= 2
    for category in categories[:2]:
        expected = expect(big, sub_fest, lambda p: p["category"] == category)
        assert expected
        assert ids(listed(api, subFestId=sub_fest, categoryIds=category)) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_category_ids_accept_three_encodings(app, keys, big, sub_fest, encoding):
    wanted = [c["id"] for c in big.categories(sub_fest)][:2]
    query = array_query("categoryIds", wanted, encoding)
    response = app.test_client().get(f"{API}/programmes?subFestId={sub_fest}&limit=500&{query}",
                                      headers={"X-API-Key": keys[BIG]})
    assert response.status_code == 200
    assert ids(response.get_json()["data"]) == expect(big, sub_fest, lambda p: p["category"] in wanted)


def test_venue_filter(api, big, sub_fest):
    def at(venue):
        return lambda p: any(s["venue"] == venue for s in big.schedules(p["id"]))

    public = sorted({s["venue"] for p in big.programmes(sub_fest) for s in big.schedules(p["id"])
                     if big.visible("venues", s["venue"])})
    assert len(public) >= 2
    for venue in public[:3]:
        expected = expect(big, sub_fest, at(venue))
        assert expected
        assert ids(listed(api, subFestId=sub_fest, venues=venue)) == expected
    both = public[:2]
    assert ids(listed(api, subFestId=sub_fest, venues=",".join(both))) == expect(
        big, sub_fest, lambda p: at(both[0])(p) or at(both[1])(p))


@pytest.mark.parametrize("status", SUB_FEST_PROGRAMME_STATUSES)
def test_status_filter_each_value(api, big, sub_fest, status):
    expected = expect(big, sub_fest, lambda p: p["status"] == status)
    assert expected, f"the fixture must hold a visible {status} programme"
    assert ids(listed(api, subFestId=sub_fest, status=status)) == expected
    assert ids(listed(api, subFestId=sub_fest, statuses=status)) == expected


def test_status_and_statuses_mean_any_of(api, big, sub_fest):
    expected = expect(big, sub_fest, lambda p: p["status"] in ("draft", "scheduled", "ongoing"))
    assert ids(listed(api, subFestId=sub_fest, status="draft", statuses="scheduled,ongoing")) == expected
    assert ids(listed(api, subFestId=sub_fest, statuses=["draft", "scheduled", "ongoing"])) == expected


def test_status_never_widens_the_output(api, big, sub_fest):
    hidden = [p for p in big.rows("subFestProgrammes")
              if p["sub_fest"] == sub_fest and p["id"] not in big.programme_ids]
    for status in {p["status"] for p in hidden}:
        shown = set(ids(listed(api, subFestId=sub_fest, status=status)))
        assert not shown & {p["id"] for p in hidden}


@pytest.mark.parametrize("program_type", PROGRAM_TYPES)
def test_program_type_filter(api, big, sub_fest, program_type):
    masters = big.by_id("programmes")
    expected = expect(big, sub_fest, lambda p: masters[p["programme"]]["program_type"] == program_type)
    assert expected
    assert ids(listed(api, subFestId=sub_fest, programType=program_type)) == expected


@pytest.mark.parametrize("pattern", ["hs-*", "*G0*", "HSS-G01", "*-g1?", "G01"])
def test_program_code_pattern(api, big, sub_fest, pattern):
    masters = big.by_id("programmes")

    def matches(code):
        # ``*`` is the only wildcard; fnmatch's ``?`` and ``[`` must be literal here
        regex = fnmatch.translate(pattern.lower().replace("?", "[?]"))
        return fnmatch.re.fullmatch(regex, code.lower()) is not None

    expected = expect(big, sub_fest, lambda p: matches(p["code"]) or matches(masters[p["programme"]]["code"]))
    if pattern != "*-g1?":
        assert expected
    assert ids(listed(api, subFestId=sub_fest, programCodePattern=pattern)) == expected


def test_collection_filters(api, big, sub_fest):
    def in_(collections):
        return lambda p: bool(set(p.get("collections", [])) & set(collections))

    public = [c["id"] for c in big.rows("programmeCollections") if flag(c, "is_public")]
    used = [c for c in public if expect(big, sub_fest, in_([c]))]
    assert len(used) >= 2
    for collection in used:
        assert ids(listed(api, subFestId=sub_fest, collectionId=collection)) == expect(big, sub_fest, in_([collection]))
    assert ids(listed(api, subFestId=sub_fest, collectionIds=used[:2])) == expect(big, sub_fest, in_(used[:2]))
    assert ids(listed(api, subFestId=sub_fest, collectionId=used[0], collectionIds=used[1])) == expect(
        big, sub_fest, in_(used[:2]))


def test_judge_filter(api, big, sub_fest):
    judges = {j["id"]: j for j in big.rows("judges")}
    active = sorted(j for j in judges if flag(judges[j], "is_active"))
    for judge in active[:3]:
        expected = expect(big, sub_fest, lambda p: judge in p.get("judges", []))
        assert ids(listed(api, subFestId=sub_fest, judges=judge)) == expected
    assert any(expect(big, sub_fest, lambda p: j in p.get("judges", [])) for j in active[:3])


@pytest.mark.parametrize("param, column", [
    ("positionCriteriaId", "position_criteria"), ("gradeCriteriaId", "grade_criteria"),
])
def test_criteria_filters(api, big, sub_fest, param, column):
    values = sorted({p[column] for p in big.programmes(sub_fest) if p.get(column)})
    for value in values:
        expected = expect(big, sub_fest, lambda p: p.get(column) == value)
        assert ids(listed(api, subFestId=sub_fest, **{param: value})) == expected
    assert listed(api, subFestId=sub_fest, **{param: "00000000-0000-0000-0000-000000000000"}) == []


def _boolean_cases(big):
    counted = big.result_count
    entered = big.registration_count
    return {
        "requiresTopicRegistration": lambda p: bool(p.get("requires_topic_registration")),
        "hasSchedule": lambda p: bool(big.schedules(p["id"])),
        "hasResults": lambda p: counted[p["id"]] > 0,
        "hasJudges": lambda p: any(big.visible("judges", j) for j in p.get("judges", [])),
        "hasRegistrations": lambda p: entered[p["id"]] > 0,
    }


@pytest.mark.parametrize("param", ["requiresTopicRegistration", "hasSchedule", "hasResults", "hasJudges",
                                   "hasRegistrations"])
@pytest.mark.parametrize("value", ["true", "false", "TRUE", "0"])
def test_boolean_filters(api, big, sub_fest, param, value):
    predicate = _boolean_cases(big)[param]
    wanted = value.lower() in ("true", "1")
    expected = expect(big, sub_fest, lambda p: predicate(p) == wanted)
    assert expected, f"the fixture must make {param} {wanted} for some programme"
    assert ids(listed(api, subFestId=sub_fest, **{param: value})) == expected


def test_has_results_ignores_unpublished_private_and_hidden_entry_results(big, sub_fest):
    """Programmes whose only results are unpublished, private or of hidden entries exist
    in the fixture; for them hasResults=false (checked by the test above)."""
    results = [r for r in big.rows("results") if r["sub_fest_programme"] in {p["id"] for p in big.programmes(sub_fest)}]
    with_any = {r["sub_fest_programme"] for r in results}
    assert with_any - {pid for pid, n in big.result_count.items() if n}


def test_unknown_ids_match_nothing(api, sub_fest):
    nobody = "00000000-0000-0000-0000-000000000000"
    for param in ("categoryIds", "venues", "collectionIds", "judges"):
        assert listed(api, subFestId=sub_fest, **{param: nobody}) == []


# --- filters combined ------------------------------------------------------------------------------


def test_filters_combine_with_and(api, big, sub_fest, clock):
    clock(DURING)
    masters = big.by_id("programmes")
    category = big.categories(sub_fest)[0]["id"]
    cases = [
        ({"categoryIds": category, "hasResults": "true"},
         lambda p: p["category"] == category and big.result_count[p["id"]] > 0),
        ({"statuses": "scheduled,ongoing", "programType": "individual", "hasSchedule": "true"},
         lambda p: p["status"] in ("scheduled", "ongoing")
         and masters[p["programme"]]["program_type"] == "individual" and big.schedules(p["id"])),
        ({"candidateRegistrationOpen": "true", "hasRegistrations": "true"},
         lambda p: window_open(p.get("candidate_registration_opens_at"),
                               p.get("candidate_registration_closes_at"), DURING)
         and big.registration_count[p["id"]] > 0),
        ({"requiresTopicRegistration": "true", "hasRegistrations": "true", "search": "-"},
         lambda p: p["requires_topic_registration"] and big.registration_count[p["id"]] > 0),
    ]
    for params, predicate in cases:
        expected = expect(big, sub_fest, predicate)
        assert expected, params
        assert ids(listed(api, subFestId=sub_fest, **params)) == expected, params


# --- sorting and paging -------------------------------------------------------------------------------


@pytest.mark.parametrize("sort_by", ["displayOrder", "code", "name", "status", "programType", "publishedAt"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, big, sub_fest, sort_by, order):
    masters = big.by_id("programmes")
    value_of = {
        "displayOrder": lambda p: p.get("display_order", 0),
        "code": lambda p: p["code"],
        "name": lambda p: masters[p["programme"]]["name"],
        "status": lambda p: p["status"],
        "programType": lambda p: masters[p["programme"]]["program_type"],
        "publishedAt": lambda p: parse_time(p.get("published_at")),
    }[sort_by]
    items = api.ok("/programmes", subFestId=sub_fest, sortBy=sort_by, sortOrder=order, limit=500)["data"]
    assert [i["id"] for i in items] == expected_order(big.programmes(sub_fest), value_of, order == "desc")


def test_default_order_is_display_order(api, big, sub_fest):
    items = api.ok("/programmes", subFestId=sub_fest, limit=500)["data"]
    assert [i["id"] for i in items] == expected_order(big.programmes(sub_fest), lambda p: p.get("display_order", 0))


def test_pages_neither_repeat_nor_skip(api, big, sub_fest):
    seen = []
    for page in range(1, 100):
        body = api.ok("/programmes", subFestId=sub_fest, sortBy="status", limit=7, page=page)
        if not body["data"]:
            break
        seen.extend(i["id"] for i in body["data"])
    assert seen == [i["id"] for i in api.ok("/programmes", subFestId=sub_fest, sortBy="status", limit=500)["data"]]
    assert len(set(seen)) == len(big.programmes(sub_fest))


# --- errors ------------------------------------------------------------------------------------------------


def test_not_found_sub_fests_are_one_identical_404(api, fests):
    cases = unseen_sub_fests(fests)
    assert len(cases) >= 4
    assert "Sub-fest not found." in one_404(api, "/programmes", "subFestId", cases)


@pytest.mark.parametrize("field, allowed", [
    ("status", SUB_FEST_PROGRAMME_STATUSES), ("programType", PROGRAM_TYPES),
    ("sortBy", ("displayOrder", "code", "name", "status", "programType", "publishedAt")),
])
def test_enum_errors_name_the_allowed_values(api, sub_fest, field, allowed):
    body = api.get("/programmes", subFestId=sub_fest, **{field: "nope"}).get_json()
    message = " ".join(body["errors"]["query"][field])
    assert all(value in message for value in allowed)


# --- privacy and query count ----------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_hidden_or_private_data(api, fixture_data, fests, slug):
    secrets = private_values(fixture_data[slug])
    for sub_fest in fests[slug].sub_fests:
        response = api.get("/programmes", key=slug, subFestId=sub_fest["id"], limit=500)
        text = response.get_data(as_text=True)
        assert "HIDDEN" not in text
        assert not [s for s in secrets if s in text]
        assert not [name for name in PRIVATE_FIELD_NAMES if f'"{name}"' in text]


def test_query_count_does_not_grow_with_the_page(api, sub_fest, query_count, clock):
    clock(LATER)
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/programmes", subFestId=sub_fest, limit=1)
    counts = []
    for limit in (1, 100):
        with query_count() as counter:
            body = api.ok("/programmes", subFestId=sub_fest, limit=limit)
        assert len(body["data"]) == min(limit, body["meta"]["total"])
        counts.append(counter.count)
    # key, then the compiled programmes' page with its total; the revision is read again
    # only after a commit (PRAGMA data_version)
    assert counts == [2] * 2


# --- /programme-detail ----------------------------------------------------------------------------------


def test_detail_fields(api, big, sub_fest, clock):
    now = clock(DURING)
    programme = next(p for p in big.programmes(sub_fest) if len(big.schedules(p["id"])) >= 2)
    body = api.ok("/programme-detail", subFestProgramId=programme["id"])
    assert body["id"] == programme["id"]
    assert body["context"]["subFest"]["id"] == sub_fest
    assert body["context"]["festival"]["slug"] == BIG
    assert [s["id"] for s in body["schedules"]] == [s["id"] for s in big.schedules(programme["id"])]
    expected_next = big.next_schedule(programme["id"], now)
    assert (body["nextSchedule"] or {}).get("id") == (expected_next or {}).get("id")
    assert body["resultCount"] == big.result_count[programme["id"]]
    assert body["registrationCount"] == big.registration_count[programme["id"]]
    assert body["requiresTopicRegistration"] == programme["requires_topic_registration"]
    listed_item = next(i for i in listed(api, subFestId=sub_fest) if i["id"] == programme["id"])
    assert {k: body[k] for k in listed_item} == listed_item


@pytest.mark.parametrize("now", [EARLY, DURING, LATER])
def test_detail_windows_follow_the_clock(api, big, sub_fest, clock, now):
    clock(now)
    seen = set()
    windows = ("candidate_registration_opens_at", "candidate_registration_closes_at",
               "topic_registration_opens_at", "topic_registration_closes_at")
    # one programme of each distinct pair of windows
    samples = {tuple(p.get(w) for w in windows): p for p in big.programmes(sub_fest)}
    assert len(samples) >= 4
    for programme in samples.values():
        body = api.ok("/programme-detail", subFestProgramId=programme["id"])
        for prefix, field in (("candidate_registration", "candidateRegistrationOpen"),
                              ("topic_registration", "topicRegistrationOpen")):
            expected = window_open(programme.get(f"{prefix}_opens_at"), programme.get(f"{prefix}_closes_at"), now)
            assert body[field] is expected, (programme["code"], field)
            seen.add((field, expected))
    assert len(seen) >= 3


def test_detail_404_is_identical_for_every_hidden_case(api, fests):
    big, small = fests[BIG], fests[SMALL]
    hidden = [p["id"] for p in big.rows("subFestProgrammes") if p["id"] not in big.programme_ids]
    cases = [UNKNOWN_ID, next(iter(small.programme_ids)), *hidden]
    assert len(hidden) >= 3
    assert "Programme not found." in one_404(api, "/programme-detail", "subFestProgramId", cases)


@pytest.mark.parametrize("params", [{}, {"subFestProgramId": "nope"}])
def test_detail_bad_parameters_are_400(api, params):
    response = api.get("/programme-detail", **params)
    assert response.status_code == 400
    assert "subFestProgramId" in response.get_json()["errors"]["query"]


# --- edge cases of the hand-built festival (see structure_tiny.py) -----------------------------------


def shape_list(client, names, **params):
    return {i["code"]: i for i in client.all("/programmes", subFestId=names["main"], **params)}


def test_shape_counts_categories_and_private_venue(shape, clock):
    client, names = shape
    clock(DURING)
    items = shape_list(client, names)
    assert sorted(items) == ["M-A", "M-B", "M-G"]
    assert {code: (i["resultCount"], i["registrationCount"]) for code, i in items.items()} == {
        "M-A": (3, 3), "M-B": (0, 3), "M-G": (3, 4)}  # teams' own entries of public teams count
    assert items["M-B"]["category"] is None  # its category is hidden
    assert items["M-A"]["nextSchedule"]["id"] == names["S1"]
    assert items["M-A"]["nextSchedule"]["venue"] is None  # the green room is private
    clock(datetime.datetime(2026, 1, 20, 9, 1))
    assert shape_list(client, names)["M-A"]["nextSchedule"]["venue"]["id"] == names["Hall"]


@pytest.mark.parametrize("params, codes", [
    ({"venues": "GreenRoom"}, []),
    ({"venues": "Hall"}, ["M-A"]),
    ({"venues": ["GreenRoom", "Hall"]}, ["M-A"]),
    ({"collectionIds": "Internal"}, []),
    ({"collectionId": "Stage"}, ["M-A"]),
    ({"judges": "OldJudge"}, []),
    ({"judges": "Jaya"}, ["M-A"]),
    ({"hasJudges": "true"}, ["M-A"]),
    ({"hasJudges": "false"}, ["M-B", "M-G"]),
    ({"categoryIds": "HiddenCategory"}, []),
    ({"hasResults": "false"}, ["M-B"]),
    ({"hasRegistrations": "true"}, ["M-A", "M-B", "M-G"]),
])
def test_shape_hidden_records_match_nothing(shape, params, codes):
    client, names = shape
    params = {k: ([names[x] for x in v] if isinstance(v, list) else names.get(v, v)) for k, v in params.items()}
    assert sorted(shape_list(client, names, **params)) == codes


@pytest.mark.parametrize("now, candidate_open, topic_open", [
    (EARLY, ["M-A"], []),  # no opening time: open since ever; topic opens 2026-01-10
    (DURING, ["M-A"], ["M-A"]),
    (LATER, [], ["M-A"]),  # no closing time: open until further notice
])
def test_shape_windows_with_a_missing_bound(shape, clock, now, candidate_open, topic_open):
    client, names = shape
    clock(now)
    assert sorted(shape_list(client, names, candidateRegistrationOpen="true")) == candidate_open
    assert sorted(shape_list(client, names, topicRegistrationOpen="true")) == topic_open
    assert sorted(shape_list(client, names, candidateRegistrationOpen="false")) == sorted(
        {"M-A", "M-B", "M-G"} - set(candidate_open))
    detail = client.ok("/programme-detail", subFestProgramId=names["A"])
    assert detail["candidateRegistrationOpen"] is bool(candidate_open)
    assert detail["topicRegistrationOpen"] is bool(topic_open)
    assert detail["candidateRegistrationOpensAt"] is None
    assert detail["candidateRegistrationClosesAt"] == "2026-01-31T00:00:00Z"
    # a window with neither time is not configured: closed
    assert client.ok("/programme-detail", subFestProgramId=names["B"])["candidateRegistrationOpen"] is False


def test_shape_detail_shows_public_collections_and_venues_only(shape, clock):
    client, names = shape
    clock(DURING)
    body = client.ok("/programme-detail", subFestProgramId=names["A"])
    assert [c["id"] for c in body["collections"]] == [names["Stage"]]
    assert [(s["id"], s["venue"] and s["venue"]["id"]) for s in body["schedules"]] == [
        (names["S1"], None), (names["S2"], names["Hall"])]
    assert "HIDDEN" not in str(body)


def test_shape_hidden_sub_fest_and_its_programme_are_404(shape):
    client, names = shape
    assert client.get("/programmes", subFestId=names["hidden-sub"]).status_code == 404
    assert client.get("/programme-detail", subFestProgramId=names["H"]).status_code == 404


# --- the OpenAPI document --------------------------------------------------------------------------------


def _query_params(app, path):
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    return {p["name"]: p for p in spec["paths"][f"{API}{path}"]["get"]["parameters"] if p["in"] == "query"}


def test_openapi_documents_every_parameter_enum_and_sort_field(app):
    params = _query_params(app, "/programmes")
    assert set(params) == {
        "subFestId", "subFestSlug", "page", "limit", "sortBy", "sortOrder", "search", "categoryIds", "venues", "status",
        "statuses", "programType", "programCodePattern", "collectionId", "collectionIds", "judges",
        "positionCriteriaId", "gradeCriteriaId", "requiresTopicRegistration", "candidateRegistrationOpen",
        "topicRegistrationOpen", "hasSchedule", "hasResults", "hasJudges", "hasRegistrations"}
    assert "required unless `subFestSlug` is sent" in params["subFestId"]["description"]
    assert params["status"]["schema"]["enum"] == list(SUB_FEST_PROGRAMME_STATUSES)
    assert params["statuses"]["schema"]["items"]["enum"] == list(SUB_FEST_PROGRAMME_STATUSES)
    assert params["programType"]["schema"]["enum"] == list(PROGRAM_TYPES)
    assert set(params["sortBy"]["schema"]["enum"]) == {
        "displayOrder", "code", "name", "status", "programType", "publishedAt"}
    assert set(_query_params(app, "/programme-detail")) == {"subFestProgramId", "programCode", "subFestId", "subFestSlug"}
