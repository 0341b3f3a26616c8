"""A tiny festival, small enough to compute its leaderboards by hand.

``tiny_festival()`` returns the fixture dict (the importer's format) and a name -> id map;
``tiny_copy`` imports it into a private copy of the test database (SQLite or PostgreSQL,
whichever the suite runs on) and ``tiny_api`` serves that copy.
The hand-computed tables the tests check are written next to the data below.
"""
import contextlib
import uuid

import pytest

from conftest import TEST_SETTINGS, ApiClient, database_copy, writable
from db.database import database
from db.source import models as m
from db.source.keys import create_key
from seed.pipeline.write.importer import import_fixture

NAMESPACE = uuid.UUID("5b0c1a52-95f1-4c8e-9d55-7a3f7f0c2b11")
SLUG = "tiny-fest"


class Builder:
    def __init__(self, slug=SLUG):
        self.slug = slug
        self.ids = {}
        self.data = {"formatVersion": 1, "festival": {
            "id": self.id("festival"), "slug": slug, "name": "Tiny Fest", "timezone": "UTC"}}

    def id(self, name):
        if name not in self.ids:
            self.ids[name] = str(uuid.uuid5(NAMESPACE, f"{self.slug}/{name}"))
        return self.ids[name]

    def add(self, section, key, /, **fields):
        row = {"id": self.id(key), **fields}
        self.data.setdefault(section, []).append(row)
        return row


# Published: day N of January 2026, 10:00 UTC.
def day(n):
    return f"2026-01-{n:02d}T10:00:00Z"


def tiny_festival():
    """The hand-computed festival. Points per programme (candidate: team, category, section):

    - Anu (R1, junior, day), Bala (R2, junior, hostel), Chitra (B1, senior, day),
      Devi (B1, senior, hostel), Esha (R1, junior, day), Xavier (B1, junior, day) is INACTIVE.
    - P1 junior/stage (day 10): Anu 5, Bala 3, Xavier 10
    - P2 junior (day 11): Anu 5, Esha 5
    - P3 senior/stage (day 12): Chitra 5, Devi 3
    - P4 senior (day 13): Devi 5, Chitra 3, Esha 1 (published but not public)
    - P5 senior: Bala 10, NOT published
    - G1 junior/stage group (day 14): Red group (Anu, Bala) 4, Blue group (Chitra, Xavier) 2
    - PH hidden (private) programme: Anu 100

    Candidate totals: Anu 10, Chitra 8, Devi 8, Esha 5, Bala 3 -> ranks 1, 2=, 2=, 4, 5.

    Schedules: one per programme at 09:00 UTC, P1 on day 10 to PH on day 16; P5's venue is
    private. A second public sub-fest reuses the programme code "P1" and the chest number
    "101" (Farah), so a code alone is ambiguous across sub-fests.
    """
    b = Builder()
    sub = b.add("subFests", "main", slug="main", name="Main Fest")["id"]
    b.add("subFests", "hidden-sub", slug="hidden", name="HIDDEN sub-fest", is_public=False)
    junior = b.add("categories", "category-junior", sub_fest=sub, name="Junior")["id"]
    senior = b.add("categories", "category-senior", sub_fest=sub, name="Senior")["id"]
    red = b.add("teams", "Red", sub_fest=sub, name="Red", level=1, color_code="#f00")["id"]
    blue = b.add("teams", "Blue", sub_fest=sub, name="Blue", level=1, color_code="#00f")["id"]
    teams = {"Red": red, "Blue": blue}
    for name, parent in (("R1", red), ("R2", red), ("B1", blue)):
        teams[name] = b.add("teams", name, sub_fest=sub, name=name, level=2, parent=parent)["id"]
    b.add("teams", "HiddenTeam", sub_fest=sub, name="HIDDEN team", level=1, is_public=False)
    sections = {key: b.add("sections", f"section-{key}", sub_fest=sub, key=key, name=key.title())["id"]
                for key in ("day", "hostel")}
    stage = b.add("programmeCollections", "stage", key="stage", name="Stage")["id"]
    venue = b.add("venues", "hall", name="Hall")["id"]
    b.add("venues", "hidden-venue", name="HIDDEN room", is_public=False)

    people = {}
    for chest, (name, team, category, section, flags) in enumerate([
        ("Anu", "R1", junior, "day", {}),
        ("Bala", "R2", junior, "hostel", {}),
        ("Chitra", "B1", senior, "day", {}),
        ("Devi", "B1", senior, "hostel", {}),
        ("Esha", "R1", junior, "day", {}),
        ("Xavier", "B1", junior, "day", {"is_active": False}),
    ], start=101):
        person = b.add("candidates", f"person-{name}", name=name, email=f"{name.lower()}@private.example",
                       admission_number=f"ADM-{chest}", **flags)
        people[name] = b.add("subFestCandidates", name, sub_fest=sub, candidate=person["id"],
                             chest_no=str(chest), team=teams[team], category=category,
                             sections=[sections[section]])["id"]

    def programme(code, category, published_at, group=False, collections=(), **flags):
        master = b.add("programmes", f"master-{code}", code=code, name=f"Programme {code}",
                       program_type="group" if group else "individual", **flags)
        return b.add("subFestProgrammes", code, sub_fest=sub, programme=master["id"], category=category,
                     code=code, status="result_published" if published_at else "completed",
                     published_at=published_at, collections=list(collections))["id"]

    progs = {
        "P1": programme("P1", junior, day(10), collections=[stage]),
        "P2": programme("P2", junior, day(11)),
        "P3": programme("P3", senior, day(12), collections=[stage]),
        "P4": programme("P4", senior, day(13)),
        "P5": programme("P5", senior, None),
        "G1": programme("G1", junior, day(14), group=True, collections=[stage]),
        "PH": programme("PH", junior, day(15), is_public=False),
    }
    # One schedule per programme, day 10 to day 16 at 09:00; P5 runs in a private room.
    for n, code in enumerate(("P1", "P2", "P3", "P4", "P5", "G1", "PH"), start=1):
        b.add("schedules", f"schedule-{code}", sub_fest_programme=progs[code],
              venue=b.id("hidden-venue") if code == "P5" else venue,
              scheduled_at=f"2026-01-{n + 9:02d}T09:00:00Z", duration_minutes=60 + n)

    def result(code, who, points, published=True, public=True, team=None, members=None):
        name = f"{code}-{who}"
        reg = b.add("registrations", f"reg-{name}", sub_fest_programme=progs[code],
                    type="group" if members else "individual",
                    sub_fest_candidate=people[members[0] if members else who],
                    team=teams[team] if team else None, group_name=f"{who} group" if members else None,
                    members=[people[p] for p in members or ()])
        published_at = next(p["published_at"] for p in b.data["subFestProgrammes"] if p["id"] == progs[code])
        b.add("results", f"result-{name}", registration=reg["id"], sub_fest_programme=progs[code],
              score=50 + points, grade="A" if points >= 5 else "B", position_points=points - 1,
              grade_points=1, points=points, is_published=published, is_public=public,
              published_at=published_at if published else None)
        return reg

    for code, who, points, team in (("P1", "Anu", 5, "R1"), ("P1", "Bala", 3, "R2"), ("P1", "Xavier", 10, "B1"),
                                    ("P2", "Anu", 5, "R1"), ("P2", "Esha", 5, "R1"),
                                    ("P3", "Chitra", 5, "B1"), ("P3", "Devi", 3, "B1"),
                                    ("P4", "Devi", 5, "B1"), ("P4", "Chitra", 3, "B1"),
                                    ("PH", "Anu", 100, "R1")):
        result(code, who, points, team=team)
    result("P4", "Esha", 1, public=False, team="R1")
    result("P5", "Bala", 10, published=False, team="R2")
    result("G1", "Red", 4, team="Red", members=["Anu", "Bala"])
    result("G1", "Blue", 2, team="Blue", members=["Chitra", "Xavier"])

    # A second public sub-fest reusing the code "P1" and the chest number "101".
    other = b.add("subFests", "second", slug="second", name="Second Fest")["id"]
    farah = b.add("candidates", "person-Farah", name="Farah", email="farah@private.example")["id"]
    people["Farah"] = b.add("subFestCandidates", "Farah", sub_fest=other, candidate=farah, chest_no="101")["id"]
    master = b.add("programmes", "master-second-P1", code="P1", name="Programme P1 (second)")["id"]
    progs["second-P1"] = b.add("subFestProgrammes", "second-P1", sub_fest=other, programme=master, code="P1",
                               status="result_published", published_at=day(17))["id"]
    result("second-P1", "Farah", 5)

    def placeholder(key, scope, entity, top_n=10, published=True, **extra):
        b.add("topperPlaceholders", key, sub_fest=sub, label=key, scope_type=scope, entity_type=entity,
              display_top_n=top_n, is_published=published, display_order=len(b.data.get("topperPlaceholders", [])),
              **extra)

    placeholder("candidates", "subfest", "candidate")
    placeholder("candidates-top2", "subfest", "candidate", top_n=2)
    placeholder("junior", "category", "candidate", category=junior)
    placeholder("senior", "category", "candidate", category=senior)
    placeholder("hostel", "section", "candidate", section_key="hostel")
    placeholder("sections", "subfest", "section")
    placeholder("houses", "subfest", "team", team_level=1)
    placeholder("departments", "subfest", "team", team_level=2)
    placeholder("stage-houses", "collection", "team", collection_key="stage", team_level=1)
    placeholder("groups", "subfest", "group")
    placeholder("draft", "subfest", "candidate", published=False)
    b.add("websitePages", "results-page", slug="results", title="Results",
          placeholders=[b.id("houses"), b.id("draft"), b.id("candidates")])
    b.add("websitePages", "draft-page", slug="draft", title="HIDDEN draft", is_published=False,
          placeholders=[b.id("houses")])
    return b.data, b.ids


class TinyClient(ApiClient):
    """``ApiClient`` of the tiny festival's app, whose default key is the tiny festival's.

    The models share one database proxy; the client points it at its own database around
    every request, so it can be used next to the session's ``api`` client.
    """

    def __init__(self, client, keys, db):
        super().__init__(client, keys)
        self.db = db

    def get(self, path, key="tiny", headers=None, **params):
        previous = database.obj
        database.initialize(self.db)
        try:
            return super().get(path, key=key, headers=headers, **params)
        finally:
            database.initialize(previous)

    def ok(self, path, key="tiny", **params):
        return super().ok(path, key=key, **params)

    def all(self, path, key="tiny", **params):
        return super().all(path, key=key, **params)


@contextlib.contextmanager
def tiny_copy(seeded_url, tmp_path, data=None):
    """A private copy of the seeded database with ``data`` (default: the tiny festival)
    imported; yield ``(url, plain API key of that festival)``."""
    data = data or tiny_festival()[0]
    with database_copy(seeded_url, tmp_path) as url:
        with writable(url):
            import_fixture(data)
            _, key = create_key(m.Festival.get(m.Festival.slug == data["festival"]["slug"]), label="tests")
        yield url, key


@contextlib.contextmanager
def tiny_api(seeded_url, tmp_path, data=None):
    """``(TinyClient, url)`` over a read-only app on a copy holding the tiny festival."""
    from app import create_app

    with tiny_copy(seeded_url, tmp_path, data) as (url, key):
        previous = database.obj
        app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
        db = database.obj
        database.initialize(previous)
        try:
            yield TinyClient(app.test_client(), {"tiny": key}, db), url
        finally:
            if not db.is_closed():
                db.close()


@pytest.fixture(scope="module")
def tiny(seeded, tmp_path_factory):
    """``(ApiClient, names)`` of the tiny festival served from a copy of the test database."""
    data, names = tiny_festival()
    with tiny_api(seeded[0], tmp_path_factory.mktemp("tiny"), data) as (client, _):
        yield client, names
