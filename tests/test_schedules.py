"""GET /schedules: only schedules of public programmes, every parameter, sorting, paging."""
import pytest

from conftest import BIG, SMALL
from fixture_rules import flag, parse_time, visible_programme_ids, visible_sub_fests
from tiny_festival import tiny, tiny_api, tiny_festival  # noqa: F401 (fixture)


def visible_schedules(data):
    programmes = visible_programme_ids(data)
    return [s for s in data["schedules"] if s["sub_fest_programme"] in programmes]


def ids(items):
    return [item["id"] for item in items]


def iso(value):
    return parse_time(value).isoformat() + "Z"


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_schedules_of_visible_programmes(api, fixture_data, slug):
    expected = visible_schedules(fixture_data[slug])
    hidden = {s["id"] for s in fixture_data[slug]["schedules"]} - {s["id"] for s in expected}
    assert hidden, "the fixture must schedule hidden programmes"
    items = api.all("/schedules", key=slug)
    assert sorted(ids(items)) == sorted(s["id"] for s in expected)
    assert api.ok("/schedules", key=slug)["meta"]["total"] == len(expected)


def test_item_fields_match_the_fixture(api, fixture_data):
    data = fixture_data[BIG]
    rows = {s["id"]: s for s in data["schedules"]}
    programmes = {p["id"]: p for p in data["subFestProgrammes"]}
    masters = {p["id"]: p for p in data["programmes"]}
    sub_fests = {s["id"]: s for s in data["subFests"]}
    venues = {v["id"]: v for v in data["venues"]}
    for item in api.all("/schedules"):
        row = rows[item["id"]]
        programme = programmes[row["sub_fest_programme"]]
        assert set(item) == {"id", "scheduledAt", "durationMinutes", "venue", "subFest", "subFestProgram"}
        assert item["scheduledAt"] == iso(row["scheduled_at"])
        assert item["durationMinutes"] == row["duration_minutes"]
        assert item["venue"]["id"] == row["venue"] and item["venue"]["name"] == venues[row["venue"]]["name"]
        assert item["subFest"]["slug"] == sub_fests[programme["sub_fest"]]["slug"]
        assert item["subFestProgram"]["id"] == programme["id"]
        assert item["subFestProgram"]["code"] == programme["code"]
        assert item["subFestProgram"]["program"]["name"] == masters[programme["programme"]]["name"]


def test_a_private_venue_is_not_shown(tiny):
    client, names = tiny
    items = {item["id"]: item for item in client.all("/schedules")}
    assert items[names["schedule-P5"]]["venue"] is None
    assert items[names["schedule-P1"]]["venue"]["name"] == "Hall"
    assert names["schedule-PH"] not in items  # the private programme's schedule
    assert client.ok("/schedules", venueId=names["hidden-venue"])["data"] == []


def test_filter_by_programme(api, fixture_data):
    expected = visible_schedules(fixture_data[BIG])
    programme_id = next(s["sub_fest_programme"] for s in expected
                        if sum(t["sub_fest_programme"] == s["sub_fest_programme"] for t in expected) > 1)
    items = api.all("/schedules", subFestProgramId=programme_id)
    assert sorted(ids(items)) == sorted(s["id"] for s in expected if s["sub_fest_programme"] == programme_id)


def test_filter_by_venue(api, fixture_data):
    expected = visible_schedules(fixture_data[BIG])
    venue_id = expected[0]["venue"]
    items = api.all("/schedules", venueId=venue_id)
    assert sorted(ids(items)) == sorted(s["id"] for s in expected if s["venue"] == venue_id)
    assert all(item["venue"]["id"] == venue_id for item in items)


def test_filter_by_sub_fest_slug_sets_the_context(api, fixture_data):
    data = fixture_data[BIG]
    sub_fest = visible_sub_fests(data)[1]
    programmes = {p["id"] for p in data["subFestProgrammes"] if p["sub_fest"] == sub_fest["id"]}
    body = api.ok("/schedules", subFestSlug=sub_fest["slug"], limit=500)
    assert sorted(ids(body["data"])) == sorted(
        s["id"] for s in visible_schedules(data) if s["sub_fest_programme"] in programmes)
    assert body["context"]["subFest"]["slug"] == sub_fest["slug"]


@pytest.mark.parametrize("slug_of", [
    lambda data: "no-such-sub-fest",
    lambda data: next(s["slug"] for s in data["subFests"] if not flag(s, "is_public")),
    lambda data: next(s["slug"] for s in data["subFests"] if not flag(s, "is_active")),
])
def test_unknown_or_hidden_sub_fest_slug_is_404(api, fixture_data, slug_of):
    response = api.get("/schedules", subFestSlug=slug_of(fixture_data[BIG]))
    assert response.status_code == 404
    assert response.get_json()["message"] == "Sub-fest not found."


@pytest.mark.parametrize("params, expected", [
    # tiny schedules are at 09:00 UTC on 10-15 January (P5's private room still counts)
    ({"scheduledAtFrom": "2026-01-12"}, ["P3", "P4", "P5", "G1"]),
    ({"scheduledAtTo": "2026-01-11"}, ["P1", "P2"]),  # a date means the whole day
    ({"scheduledAtFrom": "2026-01-11", "scheduledAtTo": "2026-01-12"}, ["P2", "P3"]),
    # bounds are inclusive, to the second
    ({"scheduledAtFrom": "2026-01-11T09:00:00Z", "scheduledAtTo": "2026-01-12T09:00:00Z"}, ["P2", "P3"]),
    ({"scheduledAtFrom": "2026-01-11T09:00:01Z"}, ["P3", "P4", "P5", "G1"]),
    # an offset is honoured: 14:30 in India is 09:00 UTC
    ({"scheduledAtFrom": "2026-01-13T14:30:00+05:30", "scheduledAtTo": "2026-01-13T14:30:00+05:30"}, ["P4"]),
    ({"scheduledAtTo": "2026-01-10T08:59:59Z"}, []),
    # a window whose start is after its end holds no schedule
    ({"scheduledAtFrom": "2026-01-12", "scheduledAtTo": "2026-01-11"}, []),
    ({"scheduledAtFrom": "2026-01-11T09:00:01Z", "scheduledAtTo": "2026-01-11T09:00:00Z"}, []),
])
def test_time_window(tiny, params, expected):
    client, names = tiny
    items = client.all("/schedules", **params)
    assert ids(items) == [names[f"schedule-{code}"] for code in expected]


@pytest.mark.parametrize("params, expected", [
    # Honolulu is UTC-10: the 09:00 UTC schedules fall at 23:00 on the day before
    ({"scheduledAtFrom": "2026-01-12"}, ["P4", "P5", "G1"]),
    ({"scheduledAtTo": "2026-01-11"}, ["P1", "P2", "P3"]),
    ({"scheduledAtFrom": "2026-01-11", "scheduledAtTo": "2026-01-11"}, ["P3"]),
    # a date-time with an offset is the same moment whatever the festival's zone
    ({"scheduledAtFrom": "2026-01-11T09:00:00Z", "scheduledAtTo": "2026-01-12T09:00:00Z"}, ["P2", "P3"]),
])
def test_a_bare_date_is_a_day_in_the_festivals_time_zone(seeded, tmp_path, params, expected):
    data, names = tiny_festival()
    data["festival"]["timezone"] = "Pacific/Honolulu"
    with tiny_api(seeded[0], tmp_path, data) as (client, _):
        items = client.all("/schedules", **params)
    assert ids(items) == [names[f"schedule-{code}"] for code in expected]


@pytest.mark.parametrize("sort_by, value", [
    ("scheduledAt", lambda item: item["scheduledAt"]),
    ("durationMinutes", lambda item: item["durationMinutes"]),
    ("programCode", lambda item: item["subFestProgram"]["code"].lower()),
    ("programName", lambda item: item["subFestProgram"]["program"]["name"].lower()),
    ("venueName", lambda item: item["venue"]["name"].lower()),
])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(api, fixture_data, sort_by, value, order):
    items = api.all("/schedules", sortBy=sort_by, sortOrder=order)
    assert len(items) == len(visible_schedules(fixture_data[BIG]))
    values = [value(item) for item in items]
    assert values == sorted(values, reverse=(order == "desc"))


def test_default_order_is_earliest_first(api):
    items = api.ok("/schedules", limit=500)["data"]
    keys = [(item["scheduledAt"], item["id"]) for item in items]
    assert keys == sorted(keys)


def test_private_venues_sort_last_by_venue_name(tiny):
    client, names = tiny
    for order in ("asc", "desc"):
        items = client.all("/schedules", sortBy="venueName", sortOrder=order)
        assert items[-1]["id"] == names["schedule-P5"]


def test_pages_neither_repeat_nor_skip(api, fixture_data):
    seen = []
    page = 1
    while True:
        body = api.ok("/schedules", sortBy="venueName", page=page, limit=7)
        seen.extend(ids(body["data"]))
        if not body["meta"]["hasNextPage"]:
            break
        page += 1
    assert len(seen) == len(set(seen)) == len(visible_schedules(fixture_data[BIG]))


def test_query_count_does_not_grow_with_the_page(api, query_count):
    # Warm up: the first request after a commit also reads the revision and the sub-fests.
    api.ok("/schedules", limit=1)
    counts = []
    for limit in (1, 100):
        with query_count() as counter:
            body = api.ok("/schedules", limit=limit)
        assert len(body["data"]) == limit
        counts.append(counter.count)
    # key lookup, then the compiled schedules' page with its total
    assert counts[0] == counts[1] == 2, counts
