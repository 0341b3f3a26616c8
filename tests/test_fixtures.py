"""The fixture format and the bundled festivals: schema, determinism, hidden records, the docs.

The checks of the records' kinds run on a scaled Kalolsavam too (tests/test_scaled_festival.py).

Most tests read the JSON files only; the last few import into a copy of the test database.
"""
import datetime
import json
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import jsonschema
import pytest

from conftest import BIG, SCALED, SMALL, writable
from db.source import models as m
from schemas.enums import SUB_FEST_PROGRAMME_STATUSES
from seed import bundled_fixtures
from seed.pipeline.read.fixture_format import json_schema
from seed.generator import SCHEMA_PATH, schema_text, write_fixtures
from seed.pipeline.write.importer import FixtureError, import_fixture, validate

SLUGS = [BIG, SMALL]


@pytest.fixture(params=SLUGS + [SCALED])
def data(request, fixture_data, scaled_kalolsavam):
    """Each bundled festival, and a scaled Kalolsavam: it must have the same kinds of records."""
    return scaled_kalolsavam if request.param == SCALED else fixture_data[request.param]


def test_committed_schema_is_the_models_schema():
    assert json.loads(SCHEMA_PATH.read_text(encoding="utf-8")) == json_schema()
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text()


def test_both_festivals_are_bundled(fixture_data):
    assert sorted(fixture_data) == sorted(SLUGS)


def test_bundled_file_validates_against_the_schema(data):
    errors = list(jsonschema.Draft202012Validator(json_schema()).iter_errors(data))
    assert errors == []


def test_regenerating_gives_byte_identical_files(tmp_path):
    written = write_fixtures(tmp_path)
    bundled = {path.name: path.read_bytes() for path in bundled_fixtures()}
    assert {path.name: path.read_bytes() for path in written} == bundled


# --- hidden records ---------------------------------------------------------------------------


class Index:
    """Rows of one fixture by id, and the joins the checks below need."""

    def __init__(self, data):
        self.data = data
        self.by_id = {row["id"]: row for key, rows in data.items() if isinstance(rows, list) for row in rows}

    def rows(self, key, **match):
        return [row for row in self.data[key] if all(row.get(k) == v for k, v in match.items())]

    def results_of_candidate(self, candidate_id):
        entries = {e["id"] for e in self.data["subFestCandidates"] if e["candidate"] == candidate_id}
        registrations = {r["id"] for r in self.data["registrations"] if r["sub_fest_candidate"] in entries}
        return [r for r in self.data["results"] if r["registration"] in registrations]

    def results_of_programme(self, sfp_id):
        return self.rows("results", sub_fest_programme=sfp_id)


def _published_with_points(results):
    return [r for r in results if r["is_published"] and r["is_public"] and r["points"] > 0]


def _album_public(ix, image):
    return ix.by_id[image["album"]]["is_public"]


HIDDEN_KINDS = {
    "draft news": lambda ix: ix.rows("news", status="draft"),
    "archived news": lambda ix: ix.rows("news", status="archived"),
    "future-dated news": lambda ix: [n for n in ix.rows("news", status="published", is_public=True,
                                                        is_deleted=False)
                                     if n["published_at"] and n["published_at"] >= "2099"],
    "deleted news": lambda ix: ix.rows("news", status="published", is_deleted=True),
    "private news": lambda ix: ix.rows("news", status="published", is_public=False),
    "private download": lambda ix: ix.rows("downloads", is_public=False),
    "private album": lambda ix: ix.rows("galleryAlbums", is_public=False),
    "private image in a public album": lambda ix: [i for i in ix.rows("galleryImages", is_public=False)
                                                   if _album_public(ix, i)],
    "public image in a private album": lambda ix: [i for i in ix.rows("galleryImages", is_public=True)
                                                   if not _album_public(ix, i)],
    "inactive sub-fest": lambda ix: ix.rows("subFests", is_active=False),
    "private sub-fest": lambda ix: ix.rows("subFests", is_public=False),
    "inactive category": lambda ix: ix.rows("categories", is_active=False),
    "private category": lambda ix: ix.rows("categories", is_public=False),
    "inactive team": lambda ix: ix.rows("teams", is_active=False),
    "private team": lambda ix: ix.rows("teams", is_public=False),
    "inactive section": lambda ix: ix.rows("sections", is_active=False),
    "private section": lambda ix: ix.rows("sections", is_public=False),
    "private venue": lambda ix: ix.rows("venues", is_public=False),
    "inactive judge": lambda ix: ix.rows("judges", is_active=False),
    "private collection": lambda ix: ix.rows("programmeCollections", is_public=False),
    "inactive master programme with published results": lambda ix: [
        s for s in ix.data["subFestProgrammes"]
        if not ix.by_id[s["programme"]]["is_active"] and _published_with_points(ix.results_of_programme(s["id"]))],
    "private master programme with published results": lambda ix: [
        s for s in ix.data["subFestProgrammes"]
        if not ix.by_id[s["programme"]]["is_public"] and _published_with_points(ix.results_of_programme(s["id"]))],
    "inactive sub-fest programme with published results": lambda ix: [
        s for s in ix.rows("subFestProgrammes", is_active=False)
        if _published_with_points(ix.results_of_programme(s["id"]))],
    "private sub-fest programme with published results": lambda ix: [
        s for s in ix.rows("subFestProgrammes", is_public=False)
        if _published_with_points(ix.results_of_programme(s["id"]))],
    "inactive candidate with published results": lambda ix: [
        c for c in ix.rows("candidates", is_active=False)
        if _published_with_points(ix.results_of_candidate(c["id"]))],
    "private candidate with published results": lambda ix: [
        c for c in ix.rows("candidates", is_public=False)
        if _published_with_points(ix.results_of_candidate(c["id"]))],
    "inactive sub-fest candidate": lambda ix: ix.rows("subFestCandidates", is_active=False),
    "private sub-fest candidate": lambda ix: ix.rows("subFestCandidates", is_public=False),
    "unpublished result": lambda ix: ix.rows("results", is_published=False),
    "published but private result": lambda ix: ix.rows("results", is_published=True, is_public=False),
    "unpublished topper placeholder": lambda ix: ix.rows("topperPlaceholders", is_published=False),
    "unpublished page": lambda ix: ix.rows("websitePages", is_published=False),
    "private page": lambda ix: ix.rows("websitePages", is_public=False),
}


@pytest.mark.parametrize("kind", HIDDEN_KINDS)
def test_fixture_has_a_hidden_record_of_each_kind(data, kind):
    assert HIDDEN_KINDS[kind](Index(data)), f"no {kind} in {data['festival']['slug']}"


def _visible(ix, key, row):
    """Whether the public may see ``row``, by the rules of docs/api-conventions.md, "What is public"."""
    parent = ix.by_id.get
    if key == "subFests":
        return row["is_active"] and row["is_public"]
    if key in ("categories", "teams", "sections"):
        return row["is_active"] and row["is_public"] and _visible(ix, "subFests", parent(row["sub_fest"]))
    if key in ("venues", "programmeCollections", "downloads", "galleryAlbums"):
        return row["is_public"]
    if key == "judges":
        return row["is_active"]
    if key == "subFestProgrammes":
        master = parent(row["programme"])
        return (row["is_active"] and row["is_public"] and master["is_active"] and master["is_public"]
                and _visible(ix, "subFests", parent(row["sub_fest"])))
    if key == "programmes":
        return any(_visible(ix, "subFestProgrammes", s) for s in ix.rows("subFestProgrammes", programme=row["id"]))
    if key == "schedules":
        return _visible(ix, "subFestProgrammes", parent(row["sub_fest_programme"]))
    if key == "subFestCandidates":
        person = parent(row["candidate"])
        return (row["is_active"] and row["is_public"] and person["is_active"] and person["is_public"]
                and _visible(ix, "subFests", parent(row["sub_fest"])))
    if key == "candidates":
        return any(_visible(ix, "subFestCandidates", e) for e in ix.rows("subFestCandidates", candidate=row["id"]))
    if key == "registrations":
        return (_visible(ix, "subFestProgrammes", parent(row["sub_fest_programme"]))
                and _visible(ix, "subFestCandidates", parent(row["sub_fest_candidate"])))
    if key == "results":
        return row["is_published"] and row["is_public"] and _visible(ix, "registrations", parent(row["registration"]))
    if key == "topperPlaceholders":
        return row["is_published"] and _visible(ix, "subFests", parent(row["sub_fest"]))
    if key == "websitePages":
        return row["is_published"] and row["is_public"]
    if key == "news":
        return (row["status"] == "published" and row["is_public"] and not row["is_deleted"]
                and row["published_at"] is not None and row["published_at"] < "2099")
    if key == "galleryImages":
        return row["is_public"] and parent(row["album"])["is_public"]
    return True  # criteria: never shown on their own


NAME_FIELDS = ("name", "title", "label")


def test_hidden_is_named_hidden_and_public_never_is(data):
    """The word HIDDEN marks exactly the records the public must not see.

    Then a test of the API can assert that "HIDDEN" appears in no response body.
    """
    ix = Index(data)
    for key, rows in data.items():
        if not isinstance(rows, list):
            continue
        for row in rows:
            names = [row[f] for f in NAME_FIELDS if row.get(f)]
            if _visible(ix, key, row):
                assert "HIDDEN" not in json.dumps(row, ensure_ascii=False), (key, row["id"])
            elif names:
                assert any("HIDDEN" in name for name in names), (key, row["id"])


def test_every_sub_fest_programme_status_is_present(data):
    for sub_fest in data["subFests"]:
        if sub_fest["is_active"] and sub_fest["is_public"]:
            statuses = {s["status"] for s in data["subFestProgrammes"] if s["sub_fest"] == sub_fest["id"]}
            assert statuses == set(SUB_FEST_PROGRAMME_STATUSES), sub_fest["slug"]


def test_published_results_include_ties(data):
    positions = {}
    for result in data["results"]:
        if result["is_published"] and result["is_public"] and result["position"]:
            positions.setdefault(result["sub_fest_programme"], []).append(result["position"])
    assert any(len(p) != len(set(p)) for p in positions.values())


def test_points_follow_the_criteria(data):
    ix = Index(data)
    for result in data["results"]:
        sfp = ix.by_id[result["sub_fest_programme"]]
        position_points = ix.by_id[sfp["position_criteria"]]["points"]
        bands = ix.by_id[sfp["grade_criteria"]]["bands"]
        band = next((b for b in bands if result["score"] >= b["minScore"]), None)
        assert result["grade"] == (band and band["grade"])
        assert result["grade_points"] == (band["points"] if band else 0)
        assert result["position_points"] == position_points.get(str(result["position"]), 0)
        assert result["points"] == result["position_points"] + result["grade_points"]


def _local_day(timestamp, zone):
    return datetime.datetime.fromisoformat(timestamp).astimezone(ZoneInfo(zone)).date().isoformat()


def test_every_schedule_is_within_its_festival_and_sub_fest_dates(data):
    """A schedule starts on a day of the festival and of its sub-fest, in the festival's time zone."""
    ix = Index(data)
    festival = data["festival"]
    assert data["schedules"]
    for schedule in data["schedules"]:
        sub_fest = ix.by_id[ix.by_id[schedule["sub_fest_programme"]]["sub_fest"]]
        day = _local_day(schedule["scheduled_at"], festival["timezone"])
        assert festival["start_date"] <= day <= festival["end_date"], (schedule["id"], day)
        assert sub_fest["start_date"] <= day <= sub_fest["end_date"], (schedule["id"], day, sub_fest["slug"])


PRIVATE_FIELDS = {
    "email": re.compile(r"^[a-z.]+\.\d{4}@private\.example$"),
    "phone": re.compile(r"^\+91 90000 \d{5}$"),
    "admission_number": re.compile(r"^ADM-[A-Z0-9-]+-\d{4}$"),
    "admission_details": re.compile(r"^Private admission record ADM-"),
}


def test_every_candidate_has_all_private_fields(data):
    for candidate in data["candidates"]:
        for name, pattern in PRIVATE_FIELDS.items():
            assert pattern.match(candidate[name] or ""), (candidate["id"], name)
        assert datetime.date.fromisoformat(candidate["date_of_birth"]).year < 2026


# --- the documented format ------------------------------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "fixture-format.md"


@pytest.fixture
def doc_example():
    """The JSON of the "A complete example" section of docs/fixture-format.md."""
    text = DOC.read_text(encoding="utf-8").split("## A complete example", 1)[1]
    return json.loads(text.split("```json", 1)[1].split("```", 1)[0])


def test_documented_example_is_complete_and_valid(doc_example):
    assert set(doc_example) == set(json_schema()["properties"])
    assert list(jsonschema.Draft202012Validator(json_schema()).iter_errors(doc_example)) == []


def test_documented_example_imports(fresh_app, doc_example):
    _, url = fresh_app
    with writable(url):
        summary = import_fixture(doc_example)
        assert summary.festival.slug == "town-arts-2026"
        assert m.Result.select().where(m.Result.points == 10).count() >= 1


def test_duplicate_chest_number_is_named_by_its_json_path(fresh_app, doc_example):
    _, url = fresh_app
    twin = {**doc_example["subFestCandidates"][0], "id": "27e8a42b-c3f8-4b1b-9b1a-9ec2ad1f3a99", "sections": []}
    doc_example["subFestCandidates"].append(twin)
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(doc_example)
    assert [p for p, _ in caught.value.problems] == ["$.subFestCandidates[1].chest_no"]
