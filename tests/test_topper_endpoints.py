"""GET /topper-placeholders, /toppers and /page-toppers."""
import copy
import datetime

import pytest

from conftest import BIG, SMALL, writable
from db import clock
from fixture_rules import flag, visible_sub_fests
from seed.pipeline.write.importer import import_fixture
from structure_tiny import shape  # noqa: F401 (fixture)
from tiny_festival import day, tiny, tiny_api, tiny_festival  # noqa: F401 (fixture)


def ids(items):
    return [item["id"] for item in items]


def published_placeholders(data, sub_fest_id):
    return [p for p in data["topperPlaceholders"] if p["sub_fest"] == sub_fest_id and flag(p, "is_published", False)]


def rows(entries):
    return [(e["rank"], e["tied"], e["name"], e["points"], e["programmeCount"]) for e in entries]


# --- /topper-placeholders ----------------------------------------------------------------------------


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_lists_exactly_the_published_placeholders_of_the_sub_fest(api, fixture_data, slug):
    data = fixture_data[slug]
    for sub_fest in visible_sub_fests(data):
        expected = published_placeholders(data, sub_fest["id"])
        body = api.ok("/topper-placeholders", key=slug, subFestId=sub_fest["id"], limit=500)
        assert sorted(ids(body["data"])) == sorted(p["id"] for p in expected)
        assert body["context"]["subFest"]["id"] == sub_fest["id"]
    unpublished = [p for p in data["topperPlaceholders"] if not flag(p, "is_published", False)]
    assert unpublished, "the fixture must hold unpublished placeholders"


def test_placeholder_fields(api, fixture_data):
    data = fixture_data[BIG]
    sub_fest = visible_sub_fests(data)[0]
    rows_by_id = {p["id"]: p for p in data["topperPlaceholders"]}
    for item in api.all("/topper-placeholders", subFestId=sub_fest["id"]):
        row = rows_by_id[item["id"]]
        assert {"id", "label", "scopeType", "entityType", "sectionKey", "collectionKey", "rankingBasis",
                "displayTopN", "displayOrder", "lastComputedAt", "programmesCounted", "programmesInScope"} <= set(item)
        assert (item["label"], item["scopeType"], item["entityType"], item["sectionKey"], item["collectionKey"],
                item["rankingBasis"], item["displayTopN"], item["displayOrder"], item["teamLevel"]) == (
            row["label"], row["scope_type"], row["entity_type"], row["section_key"], row["collection_key"],
            row["ranking_basis"], row["display_top_n"], row["display_order"], row["team_level"])
        assert item["lastComputedAt"].endswith("Z")
        assert 0 <= item["programmesCounted"] <= item["programmesInScope"]
        if row["scope_type"] == "category":
            assert item["category"]["id"] == row["category"]


@pytest.mark.parametrize("params, expected", [
    ({"isPublished": "true"}, lambda ps: ps),
    ({"isPublished": "false"}, lambda ps: []),  # never widens to unpublished ones
    ({"entityType": "team"}, lambda ps: [p for p in ps if p["entity_type"] == "team"]),
    ({"scopeType": "collection"}, lambda ps: [p for p in ps if p["scope_type"] == "collection"]),
    ({"entityType": "team", "scopeType": "subfest"},
     lambda ps: [p for p in ps if p["entity_type"] == "team" and p["scope_type"] == "subfest"]),
])
def test_placeholder_filters(api, fixture_data, params, expected):
    data = fixture_data[BIG]
    sub_fest = visible_sub_fests(data)[0]
    placeholders = published_placeholders(data, sub_fest["id"])
    items = api.all("/topper-placeholders", subFestId=sub_fest["id"], **params)
    assert sorted(ids(items)) == sorted(p["id"] for p in expected(placeholders))


@pytest.mark.parametrize("sort_by, value", [
    ("displayOrder", lambda item: item["displayOrder"]),
    ("label", lambda item: item["label"].lower()),
    ("scopeType", lambda item: item["scopeType"]),
    ("entityType", lambda item: item["entityType"]),
    ("lastComputedAt", lambda item: item["lastComputedAt"]),
])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_placeholder_sorting(api, fixture_data, sort_by, value, order):
    sub_fest = visible_sub_fests(fixture_data[BIG])[0]
    items = api.all("/topper-placeholders", subFestId=sub_fest["id"], sortBy=sort_by, sortOrder=order)
    values = [value(item) for item in items]
    assert values == sorted(values, reverse=(order == "desc"))


@pytest.mark.parametrize("params, status", [
    ({}, 400),
    ({"subFestId": "zzz"}, 400),
    ({"entityType": "child"}, 400),
    ({"scopeType": "planet"}, 400),
    ({"isPublished": "maybe"}, 400),
])
def test_placeholder_bad_parameters(api, fixture_data, params, status):
    sub_fest = visible_sub_fests(fixture_data[BIG])[0]
    query = {"subFestId": sub_fest["id"], **params} if params else {}
    assert api.get("/topper-placeholders", **query).status_code == status


def test_placeholders_of_hidden_or_foreign_sub_fests_are_404(api, fixture_data):
    hidden = [s["id"] for s in fixture_data[BIG]["subFests"] if not (s["is_active"] and s["is_public"])]
    foreign = [s["id"] for s in visible_sub_fests(fixture_data[SMALL])]
    for sub_fest_id in hidden + foreign:
        assert api.get("/topper-placeholders", subFestId=sub_fest_id).status_code == 404


# --- /toppers --------------------------------------------------------------------------------------------


def test_toppers_serve_the_hand_computed_table(tiny):
    client, names = tiny
    body = client.ok("/toppers", topperPlaceholderId=names["candidates"])
    assert set(body) == {"context", "placeholder", "data", "meta"}
    assert rows(body["data"]) == [(1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2),
                                  (4, False, "Esha", 5, 1), (5, False, "Bala", 3, 1)]
    assert body["placeholder"]["id"] == names["candidates"]
    assert (body["placeholder"]["programmesCounted"], body["placeholder"]["programmesInScope"]) == (5, 6)
    assert body["context"]["subFest"]["slug"] == "main"
    assert body["meta"]["total"] == 5
    anu = body["data"][0]
    assert anu["entityType"] == "candidate" and anu["entityId"] == names["Anu"]
    assert anu["candidate"]["chestNo"] == "101" and anu["team"]["name"] == "R1"
    assert anu["lastResultAt"] == day(11)
    assert anu["section"] is None and anu["group"] is None


def test_top_n_keeps_everyone_tied_at_the_cut_off(tiny):
    client, names = tiny
    body = client.ok("/toppers", topperPlaceholderId=names["candidates-top2"])
    assert body["placeholder"]["displayTopN"] == 2
    assert rows(body["data"]) == [(1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2)]


@pytest.mark.parametrize("key, entity, field, name", [
    ("houses", "team", "team", "Red"),
    ("sections", "section", "section", "Day"),
    ("groups", "group", "group", "Red group"),
])
def test_each_entity_type_names_its_object(tiny, key, entity, field, name):
    client, names = tiny
    first = client.ok("/toppers", topperPlaceholderId=names[key])["data"][0]
    assert first["entityType"] == entity and first["name"] == name
    assert first[field]["name"] == name
    if entity == "group":
        assert first["group"]["programme"]["code"] == "G1"
        assert [m["name"] for m in first["group"]["members"]] == ["Anu", "Bala"]


def test_group_members_are_public_ones_only(tiny):
    client, names = tiny
    blue = client.ok("/toppers", topperPlaceholderId=names["groups"])["data"][1]
    assert blue["name"] == "Blue group"
    assert [m["name"] for m in blue["group"]["members"]] == ["Chitra"]


@pytest.mark.parametrize("sort_by, order, expected", [
    ("rank", "asc", ["Anu", "Chitra", "Devi", "Esha", "Bala"]),
    ("rank", "desc", ["Bala", "Esha", "Devi", "Chitra", "Anu"]),
    ("points", "desc", ["Anu", None, None, "Esha", "Bala"]),
    ("name", "asc", ["Anu", "Bala", "Chitra", "Devi", "Esha"]),
    ("programmeCount", "asc", [None, None, None, None, None]),
    ("lastResultAt", "desc", [None, None, None, None, "Bala"]),
])
def test_toppers_sorting(tiny, sort_by, order, expected):
    client, names = tiny
    items = client.ok("/toppers", topperPlaceholderId=names["candidates"], sortBy=sort_by, sortOrder=order)["data"]
    got = [item["name"] for item in items]
    assert [g if e else None for g, e in zip(got, expected)] == expected
    key = {"rank": "rank", "points": "points", "name": "name", "programmeCount": "programmeCount",
           "lastResultAt": "lastResultAt"}[sort_by]
    values = [item[key] for item in items]
    assert values == sorted(values, reverse=(order == "desc"))


def test_toppers_paging(tiny):
    client, names = tiny
    first = client.ok("/toppers", topperPlaceholderId=names["candidates"], limit=2)
    second = client.ok("/toppers", topperPlaceholderId=names["candidates"], limit=2, page=2)
    third = client.ok("/toppers", topperPlaceholderId=names["candidates"], limit=2, page=3)
    assert [e["name"] for e in first["data"] + second["data"] + third["data"]] == [
        "Anu", "Chitra", "Devi", "Esha", "Bala"]
    assert first["meta"]["totalPages"] == 3 and not third["meta"]["hasNextPage"]


def test_unpublished_hidden_and_foreign_placeholders_are_404(api, tiny, fixture_data):
    client, names = tiny
    draft = client.get("/toppers", topperPlaceholderId=names["draft"])
    assert draft.status_code == 404
    data = fixture_data[BIG]
    hidden_sub_fests = {s["id"] for s in data["subFests"] if not (s["is_active"] and s["is_public"])}
    in_hidden = [p["id"] for p in data["topperPlaceholders"] if p["sub_fest"] in hidden_sub_fests]
    unpublished = [p["id"] for p in data["topperPlaceholders"] if not p["is_published"]]
    foreign = [p["id"] for p in fixture_data[SMALL]["topperPlaceholders"] if p["is_published"]][:1]
    assert in_hidden and unpublished
    for placeholder_id in in_hidden + unpublished + foreign + ["00000000-0000-0000-0000-000000000000"]:
        response = api.get("/toppers", topperPlaceholderId=placeholder_id)
        assert response.status_code == 404
        assert response.get_json() == draft.get_json()


@pytest.mark.parametrize("params", [{}, {"topperPlaceholderId": "1"}, {"sortBy": "score"}])
def test_toppers_bad_parameters(tiny, params):
    client, names = tiny
    query = {"topperPlaceholderId": names["candidates"], **params} if "sortBy" in params else params
    assert client.get("/toppers", **query).status_code == 400


def test_bundled_leaderboards_hold_no_hidden_candidate(api, fixture_data):
    data = fixture_data[BIG]
    hidden_people = {c["id"] for c in data["candidates"] if "HIDDEN" in c["name"]}
    hidden_entries = {c["id"] for c in data["subFestCandidates"] if c["candidate"] in hidden_people}
    assert hidden_entries
    for sub_fest in visible_sub_fests(data):
        for placeholder in api.all("/topper-placeholders", subFestId=sub_fest["id"]):
            entries = api.all("/toppers", topperPlaceholderId=placeholder["id"])
            assert not {e["entityId"] for e in entries} & hidden_entries
            ranks = [e["rank"] for e in entries]
            assert ranks == sorted(ranks) and (not ranks or ranks[0] == 1)
            assert all(r <= placeholder["displayTopN"] for r in ranks)


def test_reimport_changes_the_leaderboard_and_its_computed_time(seeded, tmp_path, monkeypatch):
    data, names = tiny_festival()
    with tiny_api(seeded[0], tmp_path, data) as (client, url):
        before = client.ok("/toppers", topperPlaceholderId=names["candidates"])
        computed = datetime.datetime.fromisoformat(before["placeholder"]["lastComputedAt"].rstrip("Z"))
        later = computed + datetime.timedelta(days=1)
        monkeypatch.setattr(clock, "utcnow", lambda: later)
        changed = copy.deepcopy(data)
        next(r for r in changed["results"] if r["id"] == names["result-P5-Bala"]).update(
            is_published=True, published_at=day(16))
        with writable(url):
            import_fixture(changed)
        after = client.ok("/toppers", topperPlaceholderId=names["candidates"])
    assert rows(after["data"])[0] == (1, False, "Bala", 13, 2)
    assert after["placeholder"]["lastComputedAt"] == later.isoformat(timespec="seconds") + "Z"
    assert after["placeholder"]["programmesCounted"] == before["placeholder"]["programmesCounted"] + 1
    assert after["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1



def test_a_board_whose_entries_stay_keeps_its_time_and_shows_a_new_programme_counted(seeded, tmp_path, monkeypatch):
    """A team's own result in P5, which had none counted: it moves the team boards (their time
    is the import's) and no candidate's points, so the candidates' board keeps its time; it
    shows one more programme counted, so its answer (ETag) changes and /changes lists it."""
    import uuid

    data, names = tiny_festival()
    for registration in data["registrations"]:
        registration["registered_at"] = "2026-01-05T10:00:00Z"
    with tiny_api(seeded[0], tmp_path, data) as (client, url):
        held = {key: client.get("/toppers", topperPlaceholderId=names[key]) for key in ("candidates", "houses")}
        revision = held["candidates"].get_json()["context"]["data"]["revision"]
        later = datetime.datetime(2026, 11, 30, 12, 0)
        monkeypatch.setattr(clock, "utcnow", lambda: later)
        changed = copy.deepcopy(data)
        registration, result = (str(uuid.uuid5(uuid.NAMESPACE_URL, f"tiny-fest/{name}-R2-P5")) for name in ("reg", "result"))
        changed["registrations"].append({"id": registration, "sub_fest_programme": names["P5"], "type": "individual",
                                         "team": names["R2"], "registered_at": "2026-01-05T10:00:00Z"})
        changed["results"].append({"id": result, "registration": registration, "sub_fest_programme": names["P5"],
                                   "score": 57, "grade": "A", "position_points": 6, "grade_points": 1, "points": 7,
                                   "is_published": True, "published_at": day(16)})
        with writable(url):
            import_fixture(changed)
        again = {key: client.get("/toppers", topperPlaceholderId=names[key],
                                 headers={"If-None-Match": held[key].headers["ETag"]}) for key in held}
        boards = {c["id"] for c in client.ok("/changes", sinceRevision=revision, kinds="leaderboard")["data"]}
    before, after = held["candidates"].get_json(), again["candidates"].get_json()
    assert again["candidates"].status_code == 200 and after["data"] == before["data"]
    assert after["placeholder"]["lastComputedAt"] == before["placeholder"]["lastComputedAt"]
    assert after["placeholder"]["programmesCounted"] == before["placeholder"]["programmesCounted"] + 1
    houses = again["houses"].get_json()
    assert houses["data"] != held["houses"].get_json()["data"]
    assert houses["placeholder"]["lastComputedAt"] == later.isoformat(timespec="seconds") + "Z"
    assert {names["candidates"], names["houses"]} <= boards

# --- /page-toppers ------------------------------------------------------------------------------------------


def test_page_toppers_by_slug_or_id(tiny):
    client, names = tiny
    by_slug = client.ok("/page-toppers", pageSlug="results")
    assert set(by_slug) == {"context", "page", "toppers"}
    assert by_slug["page"] == {"id": names["results-page"], "slug": "results", "title": "Results"}
    # the page's order; the unpublished "draft" placeholder is left out
    assert ids(by_slug["toppers"]) == [names["houses"], names["candidates"]]
    assert rows(by_slug["toppers"][1]["entries"])[:3] == [
        (1, False, "Anu", 10, 2), (2, True, "Chitra", 8, 2), (2, True, "Devi", 8, 2)]
    assert by_slug["toppers"][0]["entries"][0]["name"] == "Red"
    assert client.ok("/page-toppers", pageId=names["results-page"]) == by_slug
    assert client.ok("/page-toppers", pageId=names["results-page"], pageSlug="results") == by_slug


def test_page_toppers_narrowed_to_one_placeholder(tiny):
    client, names = tiny
    body = client.ok("/page-toppers", pageSlug="results", placeholderId=names["candidates"])
    assert ids(body["toppers"]) == [names["candidates"]]
    alone = client.ok("/page-toppers", placeholderId=names["groups"])
    assert alone["page"] is None
    assert ids(alone["toppers"]) == [names["groups"]]
    assert [e["name"] for e in alone["toppers"][0]["entries"]] == ["Red group", "Blue group"]


@pytest.mark.parametrize("params", [
    lambda n: {"pageSlug": "draft"},  # unpublished page
    lambda n: {"pageSlug": "no-such-page"},
    lambda n: {"pageId": n["draft-page"]},
    lambda n: {"pageId": n["results-page"], "pageSlug": "draft"},  # selectors disagree
    lambda n: {"pageSlug": "results", "placeholderId": n["groups"]},  # not on the page
    lambda n: {"pageSlug": "results", "placeholderId": n["draft"]},  # on the page, unpublished
    lambda n: {"placeholderId": n["draft"]},
])
def test_page_toppers_404(tiny, params):
    client, names = tiny
    assert client.get("/page-toppers", **params(names)).status_code == 404


def test_page_toppers_needs_a_selector(tiny):
    client, _ = tiny
    response = client.get("/page-toppers")
    assert response.status_code == 400
    errors = response.get_json()["errors"]["query"]
    assert set(errors) == {"pageSlug", "pageId", "placeholderId", "placeholderLabel"}
    assert "pageSlug or pageId or placeholderId or placeholderLabel" in errors["pageSlug"][0]
    assert client.get("/page-toppers", pageId="not-a-uuid").status_code == 400


def test_bundled_page_leaves_out_unpublished_and_hidden_sub_fest_placeholders(api, fixture_data):
    data = fixture_data[SMALL]
    page = next(p for p in data["websitePages"] if p["slug"] == "results")
    hidden_sub_fests = {s["id"] for s in data["subFests"] if not (s["is_active"] and s["is_public"])}
    rows_by_id = {p["id"]: p for p in data["topperPlaceholders"]}
    expected = [p for p in page["placeholders"]
                if rows_by_id[p]["is_published"] and rows_by_id[p]["sub_fest"] not in hidden_sub_fests]
    assert len(expected) < len(page["placeholders"])
    body = api.ok("/page-toppers", key=SMALL, pageSlug="results")
    assert ids(body["toppers"]) == expected


# --- query counts --------------------------------------------------------------------------------------------


def test_query_counts_do_not_grow_with_the_data(api, fixture_data, tiny, query_count):
    client, names = tiny
    sub_fest = visible_sub_fests(fixture_data[BIG])[0]
    cases = [
        # key, then the compiled placeholders' page with its total
        (lambda limit: api.ok("/topper-placeholders", subFestId=sub_fest["id"], sortBy="scopeType",
                              limit=limit), 2),
        # key, the compiled placeholder, then its compiled entries' page with their total
        (lambda limit: client.ok("/toppers", topperPlaceholderId=names["junior"], limit=limit), 3),
    ]
    for call, expected in cases:
        call(1)  # warm up: the first request after a commit also reads the revision
        counts = []
        for limit in (1, 100):
            with query_count() as counter:
                call(limit)
            counts.append(counter.count)
        assert counts == [expected] * 2
    with query_count() as counter:
        client.ok("/page-toppers", pageSlug="results")
    # key, the compiled page, its compiled placeholders with their entries
    assert counter.count == 3


def test_placeholder_paging(api, fixture_data):
    sub_fest = visible_sub_fests(fixture_data[BIG])[0]
    expected = published_placeholders(fixture_data[BIG], sub_fest["id"])
    seen, page = [], 1
    while True:
        body = api.ok("/topper-placeholders", subFestId=sub_fest["id"], sortBy="entityType", page=page, limit=3)
        seen.extend(ids(body["data"]))
        assert body["meta"]["total"] == len(expected)
        if not body["meta"]["hasNextPage"]:
            break
        page += 1
    assert sorted(seen) == sorted(p["id"] for p in expected) and len(seen) == len(set(seen))
    past_the_end = api.ok("/topper-placeholders", subFestId=sub_fest["id"], page=page + 1, limit=3)
    assert past_the_end["data"] == [] and past_the_end["meta"]["total"] == len(expected)


def test_scope_keys_of_hidden_sections_and_collections_are_not_shown(seeded, tmp_path):
    """A placeholder scoped to a private section or collection names neither: its key is
    null, like the category of a placeholder scoped to a hidden category."""
    from tiny_festival import Builder

    data, names = tiny_festival()
    b = Builder()
    b.data, b.ids = data, names
    b.add("sections", "section-secret", sub_fest=names["main"], key="secretsection", name="HIDDEN section",
          is_public=False)
    b.add("programmeCollections", "internal", key="internalcollection", name="HIDDEN collection", is_public=False)
    for key, scope, extra in (("by-secret-section", "section", {"section_key": "secretsection"}),
                              ("by-internal-collection", "collection", {"collection_key": "internalcollection"})):
        b.add("topperPlaceholders", key, sub_fest=names["main"], label=key, scope_type=scope, entity_type="candidate",
              display_top_n=10, is_published=True, **extra)
    with tiny_api(seeded[0], tmp_path, data) as (client, _):
        listed = {p["label"]: p for p in client.all("/topper-placeholders", subFestId=names["main"])}
        assert listed["hostel"]["sectionKey"] == "hostel"
        assert listed["stage-houses"]["collectionKey"] == "stage"
        assert listed["by-secret-section"]["sectionKey"] is None
        assert listed["by-internal-collection"]["collectionKey"] is None
        for key in ("by-secret-section", "by-internal-collection"):
            for path, params in (("/topper-placeholders", {"subFestId": names["main"]}),
                                 ("/toppers", {"topperPlaceholderId": names[key]}),
                                 ("/page-toppers", {"placeholderId": names[key]})):
                text = client.get(path, **params).get_data(as_text=True)
                assert "secretsection" not in text and "internalcollection" not in text, path


HIDDEN_SCOPES = {
    # placeholder label: (the hidden record, the placeholder's scope fields, the output key)
    "by-inactive-section": ("sections", {"sub_fest": "main", "key": "inactivesection", "is_active": False},
                            {"scope_type": "section", "section_key": "inactivesection"}, "sectionKey"),
    "by-private-section": ("sections", {"sub_fest": "main", "key": "privatesection", "is_public": False},
                           {"scope_type": "section", "section_key": "privatesection"}, "sectionKey"),
    "by-private-collection": ("programmeCollections", {"key": "privatecollection", "is_public": False},
                              {"scope_type": "collection", "collection_key": "privatecollection"}, "collectionKey"),
}


@pytest.fixture(scope="module")
def hidden_scopes(seeded, tmp_path_factory):
    """The tiny festival plus one published placeholder per hidden section or collection."""
    from tiny_festival import Builder

    data, names = tiny_festival()
    b = Builder()
    b.data, b.ids = data, names
    for label, (kind, record, scope, _) in HIDDEN_SCOPES.items():
        record = {**record, "name": f"HIDDEN {label}"}
        if "sub_fest" in record:
            record["sub_fest"] = names[record["sub_fest"]]
        b.add(kind, f"record-{label}", **record)
        b.add("topperPlaceholders", label, sub_fest=names["main"], label=label, entity_type="candidate",
              display_top_n=10, is_published=True, **scope)
    b.add("websitePages", "hidden-scopes-page", slug="hidden-scopes", title="Hidden scopes",
          placeholders=[names[label] for label in HIDDEN_SCOPES])
    with tiny_api(seeded[0], tmp_path_factory.mktemp("hidden-scopes"), data) as (client, _):
        yield client, names


def _placeholders_shown(client, names, output):
    """The placeholders (by label) as ``output`` shows them."""
    if output == "/filters":
        return {p["label"]: p for p in client.ok("/filters")["topperOptions"]["placeholders"]}
    if output == "/filters?subFestSlug":
        return {p["label"]: p for p in client.ok("/filters", subFestSlug="main")["topperOptions"]["placeholders"]}
    if output == "/topper-placeholders":
        return {p["label"]: p for p in client.all("/topper-placeholders", subFestId=names["main"])}
    if output == "/toppers":
        return {label: client.ok("/toppers", topperPlaceholderId=names[label])["placeholder"]
                for label in HIDDEN_SCOPES}
    if output == "/page-toppers":
        return {p["label"]: p for p in client.ok("/page-toppers", pageSlug="hidden-scopes")["toppers"]}
    return {label: client.ok("/page-toppers", placeholderId=names[label])["toppers"][0] for label in HIDDEN_SCOPES}


@pytest.mark.parametrize("output", ["/filters", "/filters?subFestSlug", "/topper-placeholders", "/toppers",
                                    "/page-toppers", "/page-toppers?placeholderId"])
@pytest.mark.parametrize("label", sorted(HIDDEN_SCOPES))
def test_every_output_masks_the_key_of_a_hidden_scope(hidden_scopes, output, label):
    client, names = hidden_scopes
    shown = _placeholders_shown(client, names, output)
    assert shown[label][HIDDEN_SCOPES[label][3]] is None
    # the visible scopes of the same festival keep their keys
    if output.startswith(("/filters", "/topper-placeholders")):
        assert (shown["hostel"]["sectionKey"], shown["stage-houses"]["collectionKey"]) == ("hostel", "stage")


def test_filters_show_the_scope_keys_the_placeholder_list_shows(hidden_scopes):
    client, names = hidden_scopes
    listed = {p["id"]: (p["sectionKey"], p["collectionKey"])
              for p in client.all("/topper-placeholders", subFestId=names["main"])}
    for params in ({}, {"subFestSlug": "main"}):
        options = {p["id"]: (p["sectionKey"], p["collectionKey"])
                   for p in client.ok("/filters", **params)["topperOptions"]["placeholders"]}
        assert options == listed
    assert {label: listed[names[label]] for label in HIDDEN_SCOPES} == {
        "by-inactive-section": (None, None), "by-private-section": (None, None),
        "by-private-collection": (None, None)}


def test_a_page_of_toppers_past_the_end_still_names_the_placeholder(tiny):
    client, names = tiny
    whole = client.ok("/toppers", topperPlaceholderId=names["candidates"])
    past = client.ok("/toppers", topperPlaceholderId=names["candidates"], page=4, limit=2)
    assert past["data"] == [] and past["placeholder"] == whole["placeholder"]
    assert past["context"] == whole["context"]
    assert past["meta"] == {"page": 4, "limit": 2, "total": 5, "totalPages": 3, "hasNextPage": False,
                            "hasPreviousPage": True}
    assert client.get("/toppers", topperPlaceholderId=names["draft"], page=4).status_code == 404


def test_a_teams_own_result_counts_for_it_and_the_teams_above_it(shape):
    """The shape festival's Junior leaderboard of level-1 teams (see structure_tiny.py)."""
    client, names = shape
    body = client.ok("/toppers", topperPlaceholderId=names["Published"])
    assert rows(body["data"]) == [(1, False, "District", 15, 2)]
    assert body["data"][0]["lastResultAt"] == "2026-01-22T11:00:00Z"  # the School's own result
