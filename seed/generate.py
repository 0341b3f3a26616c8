"""Generate the bundled fixture festivals: ``python -m seed.generate``.

The output is deterministic: one ``random.Random(seed)`` per festival and ids from
``uuid5(NAMESPACE, "<festival slug>/<kind>/<n>")``, so running it again writes
byte-identical files. Both festivals hold every kind of record the public API must hide;
each hidden record's name or title contains the word ``HIDDEN`` (and no public record's
does), and every candidate has all private fields filled with easy-to-grep values, so
tests can prove nothing hidden or private leaks.
"""
import argparse
import datetime as dt
import json
import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from db.enums import SUB_FEST_PROGRAMME_STATUSES

from . import FIXTURE_DIR
from .fixture_format import FORMAT_VERSION, SECTIONS, json_schema

NAMESPACE = uuid.UUID("6f1c3c52-8d3e-5a57-9a51-3c0d2b7f4e10")
SCHEMA_PATH = Path(__file__).parent / "fixture.schema.json"

# The row kind in an id's readable name, per fixture section.
KINDS = {
    "subFests": "sub-fest", "categories": "category", "teams": "team", "sections": "section",
    "venues": "venue", "judges": "judge", "programmeCollections": "collection",
    "positionCriteria": "position-criteria", "gradeCriteria": "grade-criteria",
    "programmes": "programme", "subFestProgrammes": "sub-fest-programme",
    "schedules": "schedule", "candidates": "candidate", "subFestCandidates": "sub-fest-candidate",
    "registrations": "registration", "results": "result",
    "topperPlaceholders": "topper-placeholder", "websitePages": "website-page", "news": "news",
    "downloads": "download", "galleryAlbums": "gallery-album", "galleryImages": "gallery-image",
}

# Registration windows: open around "now" for years, long closed, not yet open.
WINDOWS = {
    "open": ("2026-01-01T00:00:00Z", "2030-12-31T23:59:59Z"),
    "closed": ("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"),
    "future": ("2031-01-01T00:00:00Z", "2031-02-01T00:00:00Z"),
}
WINDOW_BY_STATUS = {
    "draft": "future", "scheduled": "open", "ongoing": "closed", "completed": "closed",
    "result_published": "closed", "cancelled": "closed",
}
# Statuses beyond the one-of-each every sub-fest gets, drawn with these weights.
STATUS_WEIGHTS = {
    "result_published": 62, "completed": 8, "ongoing": 5, "scheduled": 15, "draft": 5, "cancelled": 5,
}
GRADE_BANDS = [
    {"grade": "A", "minScore": 80, "points": 5},
    {"grade": "B", "minScore": 60, "points": 3},
    {"grade": "C", "minScore": 50, "points": 1},
]
IST = dt.timedelta(hours=5, minutes=30)


def ts(value):
    """ISO 8601 in UTC with an explicit ``Z``."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def ist(day, hour, minute=0):
    """A wall-clock time in India as a UTC timestamp string."""
    return ts(dt.datetime.combine(day, dt.time(hour, minute)) - IST)


# --- the specification of a festival ---------------------------------------------------------


@dataclass(frozen=True)
class ProgrammeSpec:
    name: str
    name_local: str
    categories: tuple
    collection: str
    group: tuple | None = None  # (min_members, max_members)
    topic: bool = False
    duration: int = 10


def programmes(table):
    """Parse ``name | name_local | categories | collection [| group 5-10] [| topic]`` lines."""
    specs = []
    for line in table.strip().splitlines():
        name, local, cats, collection, *flags = [part.strip() for part in line.split("|")]
        group = next((tuple(int(n) for n in f.split()[1].split("-")) for f in flags
                      if f.startswith("group")), None)
        duration = 30 if group else (90 if collection == "off-stage" else 10)
        specs.append(ProgrammeSpec(name, local, tuple(cats.split()), collection, group,
                                   "topic" in flags, duration))
    return specs


@dataclass(frozen=True)
class CategorySpec:
    code: str
    name: str
    name_local: str
    weight: int
    ages: tuple


@dataclass(frozen=True)
class TeamSpec:
    name: str
    public_name: str
    color: str
    children: tuple
    motto: str | None = None
    display_name: str | None = None


@dataclass
class SubFestSpec:
    slug: str
    name: str
    name_local: str
    code: str
    chest_start: int
    categories: list
    teams: list
    sections: list  # (key, name, name_local, weight)
    programmes: list
    candidates: int
    placeholders: list = field(default_factory=list)
    shared_candidates: int = 0
    description: str | None = None
    is_active: bool = True
    is_public: bool = True
    hidden: bool = False  # everything inside is hidden: names say HIDDEN
    hidden_kinds_category: str | None = None  # add hidden candidates/programmes/structure here
    days: tuple = ()
    future_days: tuple = ()


@dataclass
class Entry:
    """A sub-fest candidate and what the generator needs to know about it."""

    row: dict
    candidate: dict
    category: str
    district: dict
    school: dict
    hidden: bool = False  # one of the hidden candidates of a public sub-fest


@dataclass
class Context:
    """One generated sub-fest."""

    spec: SubFestSpec
    row: dict
    categories: dict = field(default_factory=dict)
    districts: list = field(default_factory=list)
    schools: dict = field(default_factory=dict)  # district id -> school rows
    sections: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    sfps: list = field(default_factory=list)  # (row, ProgrammeSpec)
    hidden_sfps: list = field(default_factory=list)
    hidden_categories: list = field(default_factory=list)
    placeholders: list = field(default_factory=list)


@dataclass
class Shared:
    """Festival-level rows every sub-fest uses."""

    stage_venues: list
    offstage_venues: list
    hidden_venue: dict
    judges: list
    hidden_judge: dict
    collections: dict
    hidden_collection: dict
    position: dict
    group_position: dict
    grades: dict


# --- the fixture being built ----------------------------------------------------------------------


class Fixture:
    def __init__(self, slug, seed, private):
        self.slug = slug
        self.rng = random.Random(seed)
        self.private = private  # (admission prefix, phone offset, admission year)
        self.data = {"formatVersion": FORMAT_VERSION, "festival": {}}
        self.data.update({section.key: [] for section in SECTIONS})
        self._serial = Counter()

    def new_id(self, kind):
        self._serial[kind] += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.slug}/{kind}/{self._serial[kind]}"))

    def add(self, section, **fields):
        row = {"id": self.new_id(KINDS[section]), **fields}
        self.data[section].append(row)
        return row

    def festival(self, **fields):
        self.data["festival"] = {"id": self.new_id("festival"), "slug": self.slug, **fields}


def hide(name, spec):
    return f"HIDDEN {name}" if spec.hidden else name


# --- names ------------------------------------------------------------------------------------------

FIRST_NAMES = {
    "female": """Anjali അഞ്ജലി|Aparna അപർണ|Devika ദേവിക|Gayathri ഗായത്രി|Keerthana കീർത്തന|
        Lakshmi ലക്ഷ്മി|Meera മീര|Nandana നന്ദന|Parvathy പാർവതി|Sreelakshmi ശ്രീലക്ഷ്മി|
        Aswathy അശ്വതി|Fathima ഫാത്തിമ|Ayisha ആയിഷ|Sneha സ്നേഹ|Athira ആതിര|Anagha അനഘ|
        Diya ദിയ|Hiba ഹിബ|Riya റിയ|Sana സന|Mariya മരിയ|Niranjana നിരഞ്ജന|Krishnapriya കൃഷ്ണപ്രിയ|
        Neha നേഹ|Amrutha അമൃത""",
    "male": """Arjun അർജുൻ|Adithyan ആദിത്യൻ|Akhil അഖിൽ|Abhinav അഭിനവ്|Gokul ഗോകുൽ|Hari ഹരി|
        Karthik കാർത്തിക്|Midhun മിഥുൻ|Nandu നന്ദു|Rahul രാഹുൽ|Sreehari ശ്രീഹരി|Vishnu വിഷ്ണു|
        Muhammed മുഹമ്മദ്|Ameen അമീൻ|Fahad ഫഹദ്|Nihal നിഹാൽ|Shahid ഷാഹിദ്|Joel ജോയൽ|
        Alan അലൻ|Kevin കെവിൻ|Sidharth സിദ്ധാർത്ഥ്|Anand ആനന്ദ്|Aromal ആരോമൽ|Devanand ദേവാനന്ദ്""",
    "other": "Sam സാം|Jo ജോ|Kiran കിരൺ",
}
SURNAMES = """Nair നായർ|Menon മേനോൻ|Pillai പിള്ള|Kurup കുറുപ്പ്|Varma വർമ്മ|Thomas തോമസ്|
    Joseph ജോസഫ്|George ജോർജ്|Rahman റഹ്മാൻ|Basheer ബഷീർ|Ali അലി|Krishnan കൃഷ്ണൻ|Das ദാസ്|
    Mohan മോഹൻ|Babu ബാബു|Kumar കുമാർ|Namboothiri നമ്പൂതിരി|Panicker പണിക്കർ|Jacob ജേക്കബ്|Rajan രാജൻ"""
INITIALS = "A എ|B ബി|K കെ|M എം|P പി|R ആർ|S എസ്|V വി|J ജെ|T ടി|N എൻ|G ജി"


def _pairs(text):
    return [tuple(item.strip().split(" ", 1)) for item in text.split("|")]


FIRST = {gender: _pairs(text) for gender, text in FIRST_NAMES.items()}
LAST = _pairs(SURNAMES)
INITIAL = _pairs(INITIALS)


def person_name(rng, gender):
    first, first_ml = rng.choice(FIRST[gender])
    initial, initial_ml = rng.choice(INITIAL)
    last, last_ml = rng.choice(LAST)
    return f"{first} {initial}. {last}", f"{first_ml} {initial_ml}. {last_ml}"


# --- building blocks ------------------------------------------------------------------------------


def add_candidate(fx, name, name_local, gender, age, **flags):
    """A person, with every private field filled in."""
    prefix, phone_offset, year = fx.private
    n = len(fx.data["candidates"]) + 1
    born = dt.date(year - age, 1, 1) + dt.timedelta(days=fx.rng.randrange(365))
    local_part = ".".join(name.lower().replace(".", "").split()[::2])
    return fx.add(
        "candidates", name=name, name_local=name_local, gender=gender,
        email=f"{local_part}.{n:04d}@private.example",
        phone=f"+91 90000 {phone_offset + n:05d}",
        date_of_birth=born.isoformat(),
        admission_number=f"{prefix}-{n:04d}",
        admission_details=(f"Private admission record {prefix}-{n:04d}: admitted "
                           f"{year - fx.rng.randint(1, 6)}-06-0{fx.rng.randint(1, 9)}, "
                           f"guardian phone +91 90000 {phone_offset + n:05d}, "
                           f"fee concession file FC/{n:04d}"),
        **flags)


def festival_structure(fx, venues, judges):
    """Venues, judges, collections and criteria, including the hidden ones."""
    stage, offstage = [], []
    for order, (name, local, location, kind) in enumerate(venues, 1):
        row = fx.add("venues", name=name, name_local=local, location=location, display_order=order,
                     is_public=True)
        (stage if kind == "stage" else offstage).append(row)
    hidden_venue = fx.add("venues", name="HIDDEN private venue (green room)", name_local=None,
                          location="Back office", display_order=99, is_public=False)
    judge_rows = [fx.add("judges", name=name, is_active=True) for name in judges]
    hidden_judge = fx.add("judges", name="HIDDEN inactive judge", is_active=False)
    collections = {}
    for order, (key, name) in enumerate([("stage", "Stage items"), ("off-stage", "Off-stage items"),
                                         ("group-items", "Group items")], 1):
        collections[key] = fx.add("programmeCollections", key=key, name=name, display_order=order,
                                  is_public=True)
    hidden_collection = fx.add("programmeCollections", key="internal",
                               name="HIDDEN internal collection", display_order=9, is_public=False)
    return Shared(
        stage_venues=stage, offstage_venues=offstage, hidden_venue=hidden_venue,
        judges=judge_rows, hidden_judge=hidden_judge, collections=collections,
        hidden_collection=hidden_collection,
        position=fx.add("positionCriteria", name="Individual items",
                        points={"1": 5, "2": 3, "3": 1}),
        group_position=fx.add("positionCriteria", name="Group items",
                              points={"1": 10, "2": 6, "3": 2}),
        grades=fx.add("gradeCriteria", name="Standard grades (A/B/C)", bands=GRADE_BANDS),
    )


def add_structure(fx, ctx):
    spec = ctx.spec
    for order, cat in enumerate(spec.categories, 1):
        ctx.categories[cat.code] = fx.add(
            "categories", sub_fest=ctx.row["id"], name=hide(cat.name, spec), name_local=cat.name_local,
            description=f"{cat.code}: ages {cat.ages[0]}-{cat.ages[1]}", display_order=order,
            is_active=True, is_public=True)
    for order, team in enumerate(spec.teams, 1):
        district = fx.add(
            "teams", sub_fest=ctx.row["id"], parent=None, level=1, name=hide(team.name, spec),
            display_name=hide(team.display_name or team.name, spec), public_name=team.public_name,
            motto=team.motto, logo_url=f"https://cdn.festival.example/{fx.slug}/teams/{order}.png",
            color_code=team.color, display_order=order, is_active=True, is_public=True)
        ctx.districts.append(district)
        ctx.schools[district["id"]] = [
            fx.add("teams", sub_fest=ctx.row["id"], parent=district["id"], level=2,
                   name=hide(school, spec), display_name=hide(school, spec), public_name=None,
                   motto=None, logo_url=None, color_code=team.color, display_order=order * 10 + i,
                   is_active=True, is_public=True)
            for i, school in enumerate(team.children, 1)]
    for order, (key, name, local, _) in enumerate(spec.sections, 1):
        ctx.sections.append(fx.add("sections", sub_fest=ctx.row["id"], key=key, name=hide(name, spec),
                                   name_local=local, display_order=order, is_active=True,
                                   is_public=True))


def add_entry(fx, ctx, candidate, category, district, school, hidden=False, **flags):
    rng, spec = fx.rng, ctx.spec
    chest = str(spec.chest_start + len(ctx.entries))
    sections = rng.choices(ctx.sections, weights=[w for *_, w in spec.sections])
    if len(ctx.sections) > 1 and rng.random() < 0.15:
        sections = ctx.sections[:2]  # some candidates belong to two sections
    avatar = f"https://cdn.festival.example/{fx.slug}/avatars/{chest}.jpg" if rng.random() < 0.4 else None
    row = fx.add("subFestCandidates", sub_fest=ctx.row["id"], candidate=candidate["id"], chest_no=chest,
                 category=ctx.categories[category]["id"], team=school["id"], avatar_url=avatar,
                 is_active=flags.get("is_active", True), is_public=flags.get("is_public", True),
                 sections=[s["id"] for s in sections])
    entry = Entry(row, candidate, category, district, school, hidden)
    ctx.entries.append(entry)
    return entry


def add_candidates(fx, ctx, shared_from=None):
    rng, spec = fx.rng, ctx.spec
    cats = spec.categories
    shared = []
    if shared_from and spec.shared_candidates:
        pool = [e for e in shared_from.entries
                if not e.hidden and e.category in ctx.categories and e.candidate["is_active"]
                and e.candidate["is_public"]]
        shared = rng.sample(pool, spec.shared_candidates)
    for i in range(spec.candidates):
        if i < len(shared):  # the same person in the same district, in a second sub-fest
            candidate, category = shared[i].candidate, shared[i].category
            district = ctx.districts[shared_from.districts.index(shared[i].district)]
        else:
            district = rng.choice(ctx.districts)
            cat = rng.choices(cats, weights=[c.weight for c in cats])[0]
            category = cat.code
            gender = rng.choices(["female", "male", "other"], weights=[55, 44, 1])[0]
            name, local = person_name(rng, gender)
            candidate = add_candidate(fx, hide(name, spec), local, gender, rng.randint(*cat.ages),
                                      is_active=True, is_public=True)
        add_entry(fx, ctx, candidate, category, district, rng.choice(ctx.schools[district["id"]]))


def status_plan(rng, count, hidden):
    if hidden:
        return ["result_published"] * count
    statuses = list(SUB_FEST_PROGRAMME_STATUSES)
    names, weights = zip(*STATUS_WEIGHTS.items())
    statuses += rng.choices(names, weights=weights, k=count - len(statuses))
    rng.shuffle(statuses)
    return statuses


def add_master(fx, spec, index, pspec, **flags):
    return fx.add(
        "programmes", code=f"{spec.code}{index:02d}", name=hide(pspec.name, spec), name_local=pspec.name_local,
        description=f"{pspec.name} ({'group' if pspec.group else 'individual'} item)",
        program_type="group" if pspec.group else "individual",
        min_members=pspec.group[0] if pspec.group else 1,
        max_members=pspec.group[1] if pspec.group else 1,
        duration_minutes=pspec.duration, is_active=flags.get("is_active", True),
        is_public=flags.get("is_public", True))


def add_sfp(fx, shared, ctx, master, pspec, category, code, status, order, **flags):
    rng = fx.rng
    window = WINDOWS[WINDOW_BY_STATUS[status]] if order % 7 else (None, None)
    topic_window = window if pspec.topic else (None, None)
    collections = [shared.collections[pspec.collection]["id"]]
    if pspec.group:
        collections.append(shared.collections["group-items"]["id"])
    judges = [] if status == "draft" else [j["id"] for j in rng.sample(shared.judges, 3)]
    row = fx.add(
        "subFestProgrammes", sub_fest=ctx.row["id"], programme=master["id"],
        category=ctx.categories[category]["id"], code=code, status=status,
        position_criteria=(shared.group_position if pspec.group else shared.position)["id"],
        grade_criteria=shared.grades["id"], requires_topic_registration=pspec.topic,
        candidate_registration_opens_at=window[0], candidate_registration_closes_at=window[1],
        topic_registration_opens_at=topic_window[0], topic_registration_closes_at=topic_window[1],
        published_at=None, display_order=order, is_active=flags.get("is_active", True),
        is_public=flags.get("is_public", True), judges=judges, collections=collections)
    ctx.sfps.append((row, pspec))
    return row


def add_programmes(fx, shared, ctx):
    spec = ctx.spec
    instances = []
    for index, pspec in enumerate(spec.programmes, 1):
        master = add_master(fx, spec, index, pspec)
        for cat in pspec.categories:
            instances.append((master, pspec, cat, f"{cat}-{spec.code}{index:02d}"))
    statuses = status_plan(fx.rng, len(instances), spec.hidden)
    for order, ((master, pspec, cat, code), status) in enumerate(zip(instances, statuses), 1):
        add_sfp(fx, shared, ctx, master, pspec, cat, code, status, order)


# --- the hidden kinds inside a public sub-fest ------------------------------------------------------

HIDDEN_CANDIDATES = [
    ("HIDDEN inactive candidate", {"is_active": False}, {}),
    ("HIDDEN private candidate", {"is_public": False}, {}),
    ("HIDDEN candidate with an inactive entry", {}, {"is_active": False}),
    ("HIDDEN candidate with a private entry", {}, {"is_public": False}),
]
HIDDEN_PROGRAMMES = [
    ("HIDDEN inactive programme", {"is_active": False}, {}),
    ("HIDDEN private programme", {"is_public": False}, {}),
    ("HIDDEN programme with an inactive instance", {}, {"is_active": False}),
    ("HIDDEN programme with a private instance", {}, {"is_public": False}),
]


def add_hidden_kinds(fx, shared, ctx, category):
    """Hidden structure, candidates and programmes in a public sub-fest.

    The hidden candidates are registered in public programmes and win published results
    (high scores, so they would top every ranking that wrongly counted them). The hidden
    programmes have public entrants and published results, which must count nowhere.
    """
    rng, sub_fest = fx.rng, ctx.row["id"]
    for label, flag in [("inactive", "is_active"), ("private", "is_public")]:
        flags = {"is_active": True, "is_public": True, flag: False}
        ctx.hidden_categories.append(fx.add(
            "categories", sub_fest=sub_fest, name=f"HIDDEN {label} category", name_local=None,
            description="Not shown to the public", display_order=90, **flags))
        fx.add("teams", sub_fest=sub_fest, parent=None, level=1, name=f"HIDDEN {label} team",
               display_name=f"HIDDEN {label} team", public_name=None, motto=None, logo_url=None,
               color_code="#000000", display_order=90, **flags)
        fx.add("teams", sub_fest=sub_fest, parent=ctx.districts[0]["id"], level=2,
               name=f"HIDDEN {label} school", display_name=f"HIDDEN {label} school", public_name=None,
               motto=None, logo_url=None, color_code="#000000", display_order=91, **flags)
        fx.add("sections", sub_fest=sub_fest, key=f"hidden-{label}", name=f"HIDDEN {label} section",
               name_local=None, display_order=90, **flags)
    cat = next(c for c in ctx.spec.categories if c.code == category)
    for name, person_flags, entry_flags in HIDDEN_CANDIDATES:
        district = rng.choice(ctx.districts)
        candidate = add_candidate(fx, name, f"HIDDEN {name}", "female", rng.randint(*cat.ages),
                                  **{"is_active": True, "is_public": True, **person_flags})
        add_entry(fx, ctx, candidate, category, district, ctx.schools[district["id"]][0], hidden=True,
                  **entry_flags)
    for n, (name, master_flags, sfp_flags) in enumerate(HIDDEN_PROGRAMMES, 1):
        pspec = ProgrammeSpec(name, f"HIDDEN {name}", (category,), "stage")
        master = add_master(fx, ctx.spec, 90 + n, pspec, **master_flags)
        row = add_sfp(fx, shared, ctx, master, pspec, category, f"{category}-HIDDEN-{n}",
                      "result_published", 900 + n, **sfp_flags)
        row["collections"].append(shared.hidden_collection["id"])
        row["judges"].append(shared.hidden_judge["id"])
        ctx.hidden_sfps.append(row)


# --- registrations, results, schedules --------------------------------------------------------------

TOPICS = [
    "Climate change and Kerala's coastline", "The future of Malayalam literature",
    "Science and superstition", "Social media and the young reader", "Water: a shared responsibility",
    "Kerala's floods and what we learned", "Folk arts in the digital age", "Women in Indian science",
    "Libraries as public spaces", "Sports and school life",
]


def registered_at(rng, festival_day):
    start = dt.datetime.combine(festival_day, dt.time(9)) - dt.timedelta(days=60)
    return ts(start + dt.timedelta(minutes=rng.randrange(40 * 24 * 60)))


def add_registrations(fx, ctx):
    """Registrations per programme: entrants spread evenly, groups per district."""
    rng = fx.rng
    load = Counter()
    day = ctx.spec.days[0]
    regs = {}
    # Every 40th candidate never registers, so "hasRegistration=false" has answers.
    public = [e for i, e in enumerate(ctx.entries) if not e.hidden and i % 40 != 39]
    for row, pspec in ctx.sfps:
        status = row["status"]
        if status == "draft":
            continue
        checked_in = status in ("ongoing", "completed", "result_published")
        category = next(code for code, c in ctx.categories.items() if c["id"] == row["category"])
        pool = [e for e in public if e.category == category]
        rows = regs[row["id"]] = []

        def register(members, **fields):
            if pspec.topic:
                topic = rng.choice(TOPICS)
                topic_status = ("approved" if checked_in
                                else rng.choice(["pending", "approved", "approved", "rejected"]))
            else:
                topic = topic_status = None
            rows.append(fx.add(
                "registrations", sub_fest_programme=row["id"], **fields, topic=topic,
                topic_status=topic_status, checked_in=checked_in and rng.random() < 0.95,
                registered_at=registered_at(rng, day), is_active=True, members=members))

        if pspec.group:
            districts = ctx.districts[:]
            rng.shuffle(districts)
            teams, max_teams = 0, rng.randint(4, 8)
            for district in districts:
                members = [e for e in pool if e.district is district]
                if len(members) < pspec.group[0] or teams >= max_teams:
                    continue
                members.sort(key=lambda e: (load[e.row["id"]], rng.random()))
                members = members[:rng.randint(pspec.group[0], min(pspec.group[1], len(members)))]
                for e in members:
                    load[e.row["id"]] += 1
                teams += 1
                register(type="group", sub_fest_candidate=members[0].row["id"], team=district["id"],
                         group_name=f"{district['name']} {pspec.name} team",
                         members=[e.row["id"] for e in members])
        else:
            pool.sort(key=lambda e: (load[e.row["id"]], rng.random()))
            for e in pool[:rng.randint(6, 12)]:
                load[e.row["id"]] += 1
                register(type="individual", sub_fest_candidate=e.row["id"], team=e.school["id"],
                         group_name=None, members=[])
    # The hidden candidates enter (and win) up to three published individual programmes each.
    for e in (e for e in ctx.entries if e.hidden):
        choices = [row for row, pspec in ctx.sfps
                   if row["status"] == "result_published" and not pspec.group and not pspec.topic
                   and row["category"] == e.row["category"] and row not in ctx.hidden_sfps]
        assert choices, "a hidden candidate needs a published programme to win"
        for row in rng.sample(choices, min(3, len(choices))):
            regs[row["id"]].append(fx.add(
                "registrations", sub_fest_programme=row["id"], type="individual",
                sub_fest_candidate=e.row["id"], team=e.school["id"], group_name=None, topic=None,
                topic_status=None, checked_in=True, registered_at=registered_at(rng, day),
                is_active=True, members=[]))
    return regs


def grade_for(score):
    return next(((b["grade"], b["points"]) for b in GRADE_BANDS if score >= b["minScore"]), (None, 0))


def add_results(fx, shared, ctx, regs, hidden_entries):
    """Scores, competition-ranked positions (top three), grades and points from the criteria."""
    rng = fx.rng
    for row, pspec in ctx.sfps:
        status = row["status"]
        entrants = regs.get(row["id"], [])
        if status not in ("ongoing", "completed", "result_published") or not entrants:
            continue
        if status == "ongoing":
            entrants = entrants[:len(entrants) // 2]
        scores = [rng.randint(90, 98) if r["sub_fest_candidate"] in hidden_entries else rng.randint(42, 96)
                  for r in entrants]
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        if status == "result_published" and len(order) >= 3 and rng.random() < 0.35:
            first, second, third = order[:3]
            if rng.random() < 0.5:
                scores[second] = scores[first]  # shared first place
            else:
                scores[third] = scores[second]  # shared second place
        position_points = (shared.group_position if pspec.group else shared.position)["points"]
        published = status == "result_published"
        published_at = row["published_at"] if published else None
        rows = []
        for reg, score in zip(entrants, scores):
            rank = 1 + sum(other > score for other in scores)
            position = rank if rank <= 3 else None
            grade, grade_points = grade_for(score)
            pos_points = position_points.get(str(position), 0) if position else 0
            rows.append(fx.add(
                "results", registration=reg["id"], sub_fest_programme=row["id"], score=score,
                grade=grade, position=position, position_points=pos_points, grade_points=grade_points,
                points=pos_points + grade_points, is_published=published, is_public=True,
                published_at=published_at))
        if published and rng.random() < 0.25:
            # Published, but withheld from the public (e.g. under appeal); it still has points.
            unplaced = [r for r in rows if r["position"] is None and r["grade_points"]]
            if unplaced:
                rng.choice(unplaced)["is_public"] = False


def add_schedules(fx, shared, ctx):
    rng, spec = fx.rng, ctx.spec
    for row, pspec in ctx.sfps:
        status = row["status"]
        if status == "draft":
            continue
        days = spec.future_days if status == "scheduled" else spec.days
        venues = shared.stage_venues if pspec.collection == "stage" else shared.offstage_venues
        if ctx.hidden_sfps and row is ctx.hidden_sfps[0]:
            venues = [shared.hidden_venue]  # the private venue hosts only a hidden programme
        day_index = rng.randrange(len(days))
        venue = rng.choice(venues)
        hour = rng.randint(9, 17)
        slots = [(days[day_index], hour)]
        if pspec.group and day_index + 1 < len(days) and rng.random() < 0.3:
            slots.append((days[day_index + 1], rng.randint(9, 12)))  # a second session the next day
        for day, h in slots:
            fx.add("schedules", sub_fest_programme=row["id"], venue=venue["id"],
                   scheduled_at=ist(day, h, rng.choice([0, 30])), duration_minutes=pspec.duration * 12)
        if status == "result_published":
            last_day, last_hour = slots[-1]
            row["published_at"] = ist(last_day, min(last_hour + 4, 23))


def add_placeholders(fx, ctx):
    for order, (label, scope, entity, extra, published) in enumerate(ctx.spec.placeholders, 1):
        fields = {"category": None, "section_key": None, "collection_key": None, "team_level": None}
        for key, value in extra.items():
            fields[key] = ctx.categories[value]["id"] if key == "category" else value
        ctx.placeholders.append(fx.add(
            "topperPlaceholders", sub_fest=ctx.row["id"], label=label, scope_type=scope,
            entity_type=entity, **fields, ranking_basis="points", display_top_n=10 if entity != "team" else 14,
            display_order=order, is_published=published))


def build_sub_fest(fx, shared, spec, order, shared_from=None):
    ctx = Context(spec, fx.add(
        "subFests", slug=spec.slug, name=spec.name, name_local=spec.name_local,
        description=spec.description, start_date=spec.days[0].isoformat(),
        end_date=spec.days[-1].isoformat(), logo_url=None, display_order=order,
        is_active=spec.is_active, is_public=spec.is_public,
        created_at="2025-10-01T04:30:00Z", updated_at="2026-01-10T04:30:00Z"))
    add_structure(fx, ctx)
    add_candidates(fx, ctx, shared_from)
    add_programmes(fx, shared, ctx)
    if spec.hidden_kinds_category:
        add_hidden_kinds(fx, shared, ctx, spec.hidden_kinds_category)
    regs = add_registrations(fx, ctx)
    add_schedules(fx, shared, ctx)  # sets published_at, which results copy
    hidden_entries = {e.row["id"] for e in ctx.entries if e.hidden}
    add_results(fx, shared, ctx, regs, hidden_entries)
    add_placeholders(fx, ctx)
    return ctx


def hidden_sub_fest(slug, name, code, chest_start, days, **flags):
    """A small sub-fest the public must never see; every name in it says HIDDEN."""
    return SubFestSpec(
        slug=slug, name=name, name_local=None, code=code, chest_start=chest_start,
        categories=[CategorySpec("OPEN", "Open category", None, 1, (14, 17))],
        teams=[TeamSpec("District", None, "#000000", ("School",))],
        sections=[("hidden", "Section", None, 1)],
        programmes=[ProgrammeSpec("Recitation", None, ("OPEN",), "stage"),
                    ProgrammeSpec("Essay", None, ("OPEN",), "off-stage")],
        candidates=4, hidden=True, days=days, future_days=days,
        placeholders=[(f"Toppers of the {name}", "subfest", "candidate", {}, True)], **flags)


# --- content: news, downloads, gallery, pages ------------------------------------------------------


def add_news(fx, items):
    for title, summary, html, tags, published_at, images in items:
        fx.add("news", title=title, summary=summary, content_html=html, status="published",
               is_public=True, is_deleted=False, published_at=published_at,
               thumbnail_url=f"https://cdn.festival.example/{fx.slug}/news/{images}-thumb.jpg" if images else None,
               feature_image_url=f"https://cdn.festival.example/{fx.slug}/news/{images}.jpg"
               if images and len(fx.data["news"]) % 2 else None,
               created_at=published_at, updated_at=published_at, tags=tags)


def add_hidden_content(fx, main, page_placeholders, hidden_placeholders):
    """Every hidden kind of public content: news, download, album, images, pages."""
    hidden_news = [
        ("HIDDEN draft news", {"status": "draft", "published_at": None}),
        ("HIDDEN archived news", {"status": "archived", "published_at": "2026-01-05T04:30:00Z"}),
        ("HIDDEN future-dated news", {"published_at": "2099-01-01T04:30:00Z"}),
        ("HIDDEN deleted news", {"is_deleted": True, "published_at": "2026-01-06T04:30:00Z"}),
        ("HIDDEN private news", {"is_public": False, "published_at": "2026-01-07T04:30:00Z"}),
    ]
    for title, flags in hidden_news:
        row = {"status": "published", "is_public": True, "is_deleted": False, **flags}
        fx.add("news", title=title, summary=f"{title}: must never be served",
               content_html=f"<p>{title}</p>", status=row["status"], is_public=row["is_public"],
               is_deleted=row["is_deleted"], published_at=row["published_at"],
               thumbnail_url=None, feature_image_url=None,
               created_at="2026-01-01T04:30:00Z", updated_at="2026-01-02T04:30:00Z",
               tags=["HIDDEN-tag", "results"])
    fx.add("downloads", title="HIDDEN private download (judges' mark sheet)",
           description="HIDDEN internal document", category="HIDDEN internal",
           file_url=f"https://cdn.festival.example/{fx.slug}/private/mark-sheet.xlsx", is_public=False,
           created_at="2026-01-01T04:30:00Z", updated_at="2026-01-01T04:30:00Z")
    album = fx.add("galleryAlbums", title="HIDDEN private album (press embargo)",
                   description="HIDDEN not yet released", cover_url=None, display_order=99,
                   is_public=False, created_at="2026-01-01T04:30:00Z", updated_at="2026-01-01T04:30:00Z")
    public_album = next(a for a in fx.data["galleryAlbums"] if a["is_public"])
    hidden_images = [
        (album, "HIDDEN public image in a private album", True, None, None),
        (public_album, "HIDDEN private image in a public album", False, None, None),
        # Public images whose programme/category references are hidden: the refs must be dropped.
        (public_album, "Backstage before the curtain", True, main.hidden_sfps[2]["id"], None),
        (public_album, "Waiting for the results", True, None, main.hidden_categories[0]["id"]),
    ]
    for n, (owner, title, public, programme, category) in enumerate(hidden_images, 1):
        fx.add("galleryImages", album=owner["id"], title=title, description=None,
               image_url=f"https://cdn.festival.example/{fx.slug}/gallery/extra-{n}.jpg",
               thumbnail_url=f"https://cdn.festival.example/{fx.slug}/gallery/extra-{n}-thumb.jpg",
               sub_fest_programme=programme, category=category, display_order=90 + n,
               is_public=public, created_at="2026-01-02T04:30:00Z", updated_at="2026-01-02T04:30:00Z")
    fx.add("websitePages", slug="results", title="Results and toppers", is_published=True,
           is_public=True, placeholders=[p["id"] for p in page_placeholders + hidden_placeholders])
    fx.add("websitePages", slug="hidden-draft", title="HIDDEN draft page", is_published=False,
           is_public=True, placeholders=[p["id"] for p in page_placeholders[:1]])
    fx.add("websitePages", slug="hidden-private", title="HIDDEN private page", is_published=True,
           is_public=False, placeholders=[p["id"] for p in page_placeholders[:1]])


def add_gallery(fx, albums, images_per_album, ctxs):
    """Public albums and images; some images point at a public programme or category."""
    rng = fx.rng
    sfps = [row for ctx in ctxs for row, _ in ctx.sfps
            if row["status"] == "result_published" and row not in ctx.hidden_sfps]
    categories = [c for ctx in ctxs for c in ctx.categories.values()]
    for a, (title, description) in enumerate(albums, 1):
        album = fx.add("galleryAlbums", title=title, description=description,
                       cover_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-cover.jpg",
                       display_order=a, is_public=True, created_at=f"2026-01-1{a % 10}T12:00:00Z",
                       updated_at=f"2026-01-1{a % 10}T12:00:00Z")
        for i in range(1, images_per_album + 1):
            programme = rng.choice(sfps)["id"] if i % 3 == 0 else None
            category = rng.choice(categories)["id"] if i % 4 == 1 else None
            fx.add("galleryImages", album=album["id"], title=f"{title} – photo {i}",
                   description=f"Photo {i} of {title.lower()}",
                   image_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-{i}.jpg",
                   thumbnail_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-{i}-thumb.jpg",
                   sub_fest_programme=programme, category=category, display_order=i, is_public=True,
                   created_at=f"2026-01-1{a % 10}T12:{i:02d}:00Z", updated_at=f"2026-01-1{a % 10}T12:{i:02d}:00Z")


def add_downloads(fx, items):
    for n, (title, description, category, filename) in enumerate(items, 1):
        stamp = f"2026-01-{n:02d}T06:00:00Z"
        fx.add("downloads", title=title, description=description, category=category,
               file_url=f"https://cdn.festival.example/{fx.slug}/downloads/{filename}", is_public=True,
               created_at=stamp, updated_at=stamp)


def pick(ctx, *labels):
    return [p for p in ctx.placeholders if p["label"] in labels]


# --- festival 1: a large state school arts festival -------------------------------------------------

DISTRICTS = [
    ("Thiruvananthapuram", "തിരുവനന്തപുരം", "#1f77b4", ("GHSS Pattom", "GBHSS Attingal")),
    ("Kollam", "കൊല്ലം", "#ff7f0e", ("GHSS Karunagappally", "SN HSS Punalur")),
    ("Pathanamthitta", "പത്തനംതിട്ട", "#2ca02c", ("GHSS Adoor", "MGM HSS Thiruvalla")),
    ("Alappuzha", "ആലപ്പുഴ", "#d62728", ("GGHSS Cherthala", "BH HSS Mavelikkara")),
    ("Kottayam", "കോട്ടയം", "#9467bd", ("St. Thomas HSS Pala", "SB HSS Changanassery")),
    ("Idukki", "ഇടുക്കി", "#8c564b", ("GHSS Thodupuzha", "St. George HSS Kattappana")),
    ("Ernakulam", "എറണാകുളം", "#e377c2", ("GBHSS Aluva", "SNDP HSS Muvattupuzha")),
    ("Thrissur", "തൃശ്ശൂർ", "#7f7f7f", ("Model Boys HSS Thrissur", "Don Bosco HSS Irinjalakuda")),
    ("Palakkad", "പാലക്കാട്", "#bcbd22", ("GVHSS Ottapalam", "GHSS Chittur")),
    ("Malappuram", "മലപ്പുറം", "#17becf", ("GBHSS Tirur", "GGHSS Manjeri")),
    ("Kozhikode", "കോഴിക്കോട്", "#393b79", ("GHSS Vadakara", "GVHSS Koyilandy")),
    ("Wayanad", "വയനാട്", "#637939", ("SKMJ HSS Kalpetta", "GVHSS Mananthavady")),
    ("Kannur", "കണ്ണൂർ", "#8c6d31", ("GBHSS Thalassery", "GHSS Payyanur")),
    ("Kasaragod", "കാസർഗോഡ്", "#843c39", ("GHSS Kanhangad", "GHSS Nileshwar")),
]
MOTTOS = ["Art for all", "Rhythm and grace", "Together on stage", None]

GENERAL_PROGRAMMES = programmes("""
Mohiniyattam | മോഹിനിയാട്ടം | UP HS HSS | stage
Bharatanatyam | ഭരതനാട്യം | LP UP HS HSS | stage
Kuchipudi | കുച്ചിപ്പുടി | UP HS HSS | stage
Kathakali | കഥകളി | HS HSS | stage
Ottanthullal | ഓട്ടൻതുള്ളൽ | HS HSS | stage
Keralanatanam | കേരളനടനം | HS HSS | stage
Folk Dance | നാടോടിനൃത്തം | LP UP HS HSS | stage
Light Music | ലളിതഗാനം | LP UP HS HSS | stage
Classical Music | ശാസ്ത്രീയ സംഗീതം | UP HS HSS | stage
Mappilappattu | മാപ്പിളപ്പാട്ട് | UP HS HSS | stage
Kathaprasangam | കഥാപ്രസംഗം | HS HSS | stage
Mono Act | മോണോ ആക്ട് | LP UP HS HSS | stage
Mimicry | മിമിക്രി | UP HS HSS | stage
Chakyarkoothu | ചാക്യാർകൂത്ത് | HS HSS | stage
Violin | വയലിൻ | HS HSS | stage
Mridangam | മൃദംഗം | HS HSS | stage
Flute | ഓടക്കുഴൽ | HS HSS | stage
Poetry Recitation | കവിതാപാരായണം | LP UP HS HSS | stage
Elocution (Malayalam) | മലയാള പ്രസംഗം | UP HS HSS | stage | topic
Elocution (English) | ഇംഗ്ലീഷ് പ്രസംഗം | HS HSS | stage | topic
Essay Writing | ഉപന്യാസരചന | UP HS HSS | off-stage | topic
Story Writing | കഥാരചന | UP HS HSS | off-stage
Poetry Writing | കവിതാരചന | UP HS HSS | off-stage
Pencil Drawing | പെൻസിൽ ചിത്രരചന | LP UP HS HSS | off-stage
Water Colour | ജലച്ചായം | UP HS HSS | off-stage
Oppana | ഒപ്പന | HS HSS | stage | group 5-10
Margamkali | മാർഗംകളി | HS HSS | stage | group 5-10
Thiruvathirakali | തിരുവാതിരക്കളി | HS HSS | stage | group 5-10
Kolkali | കോൽക്കളി | HS | stage | group 6-12
Duffmuttu | ദഫ്മുട്ട് | HSS | stage | group 6-12
Chenda Melam | ചെണ്ടമേളം | HS HSS | stage | group 5-9
Vanchipattu | വഞ്ചിപ്പാട്ട് | HS | stage | group 5-10
Group Song | സംഘഗാനം | UP HS HSS | stage | group 3-7
Group Dance | സംഘനൃത്തം | UP HSS | stage | group 4-8
Patriotic Song | ദേശഭക്തിഗാനം | UP HS | stage | group 3-7
Drama | നാടകം | HSS | stage | group 4-10
Nadanpattu | നാടൻപാട്ട് | HS HSS | stage | group 5-10
""")
SANSKRIT_PROGRAMMES = programmes("""
Aksharaslokam | അക്ഷരശ്ലോകം | UP HS HSS | stage
Ashtapadi | അഷ്ടപദി | HS HSS | stage
Sanskrit Recitation | സംസ്കൃത പദ്യം ചൊല്ലൽ | UP HS HSS | stage
Sanskrit Elocution | സംസ്കൃത പ്രസംഗം | HS HSS | stage | topic
Sanskrit Essay Writing | സംസ്കൃത ഉപന്യാസരചന | HS HSS | off-stage | topic
Sanskrit Story Writing | സംസ്കൃത കഥാരചന | UP HS | off-stage
Chambu Prabhashanam | ചമ്പു പ്രഭാഷണം | HS HSS | stage
Koodiyattam | കൂടിയാട്ടം | HS | stage | group 3-7
Sanskrit Drama | സംസ്കൃത നാടകം | HSS | stage | group 3-8
Sanskrit Group Song | സംസ്കൃത സംഘഗാനം | UP HS | stage | group 3-7
""")
ARABIC_PROGRAMMES = programmes("""
Quran Recitation | ഖുർആൻ പാരായണം | LP UP HS | stage
Arabic Elocution | അറബി പ്രസംഗം | UP HS | stage | topic
Arabic Essay Writing | അറബി ഉപന്യാസരചന | UP HS | off-stage | topic
Arabic Poem Recitation | അറബി പദ്യം ചൊല്ലൽ | LP UP HS | stage
Arabic Song | അറബി ഗാനം | LP UP HS | stage
Mushaara | മുശാഅറ | HS | stage
Arabic Calligraphy | അറബി കാലിഗ്രഫി | UP HS | off-stage
Arabic Story Telling | അറബി കഥപറയൽ | LP UP | stage
Arabic Drama | അറബി നാടകം | HS | stage | group 3-8
Arabic Group Song | അറബി സംഘഗാനം | UP HS | stage | group 3-7
""")

SCHOOL_CATEGORIES = {
    "LP": CategorySpec("LP", "Lower Primary (LP)", "എൽ.പി. വിഭാഗം", 12, (6, 9)),
    "UP": CategorySpec("UP", "Upper Primary (UP)", "യു.പി. വിഭാഗം", 20, (10, 12)),
    "HS": CategorySpec("HS", "High School (HS)", "ഹൈസ്കൂൾ വിഭാഗം", 36, (13, 15)),
    "HSS": CategorySpec("HSS", "Higher Secondary (HSS)", "ഹയർ സെക്കൻഡറി വിഭാഗം", 32, (16, 17)),
}
KALOLSAVAM_DAYS = tuple(dt.date(2026, 1, d) for d in range(14, 19))
KALOLSAVAM_FUTURE_DAYS = tuple(dt.date(2030, 1, d) for d in range(14, 19))


def district_teams(schools_per_district):
    return [TeamSpec(name, local, color, schools[:schools_per_district], MOTTOS[i % len(MOTTOS)],
                     f"{name} District")
            for i, (name, local, color, schools) in enumerate(DISTRICTS)]


def kalolsavam_specs():
    common = {"days": KALOLSAVAM_DAYS, "future_days": KALOLSAVAM_FUTURE_DAYS}
    general = SubFestSpec(
        slug="general", name="General", name_local="പൊതുവിഭാഗം", code="G", chest_start=1001,
        description="Dance, music, literary and visual arts items open to every school.",
        categories=[SCHOOL_CATEGORIES[c] for c in ("LP", "UP", "HS", "HSS")],
        teams=district_teams(2),
        sections=[("general", "General schools", "പൊതുവിദ്യാലയങ്ങൾ", 85),
                  ("special", "Special schools", "പ്രത്യേക വിദ്യാലയങ്ങൾ", 15)],
        programmes=GENERAL_PROGRAMMES, candidates=300, hidden_kinds_category="HS",
        placeholders=[
            ("Overall individual champions", "subfest", "candidate", {}, True),
            ("District championship", "subfest", "team", {"team_level": 1}, True),
            ("Best schools", "subfest", "team", {"team_level": 2}, True),
            ("HS Kalaprathibha and Kalathilakam", "category", "candidate", {"category": "HS"}, True),
            ("HSS toppers", "category", "team", {"category": "HSS", "team_level": 1}, True),
            ("General schools toppers", "section", "candidate", {"section_key": "general"}, True),
            ("Section standings", "subfest", "section", {}, True),
            ("Stage items: district standings", "collection", "team",
             {"collection_key": "stage", "team_level": 1}, True),
            ("Best group performances", "collection", "group", {"collection_key": "group-items"}, True),
            ("HIDDEN unpublished off-stage toppers", "collection", "candidate",
             {"collection_key": "off-stage"}, False),
            ("HIDDEN unpublished school preview", "subfest", "team", {"team_level": 2}, False),
        ], **common)
    sanskrit = SubFestSpec(
        slug="sanskrit", name="Sanskrit Fest", name_local="സംസ്കൃതോത്സവം", code="S", chest_start=2001,
        description="Sanskrit recitation, elocution, writing and theatre.",
        categories=[SCHOOL_CATEGORIES[c] for c in ("UP", "HS", "HSS")], teams=district_teams(1),
        sections=[("sanskrit", "Sanskrit schools", "സംസ്കൃത വിദ്യാലയങ്ങൾ", 70),
                  ("oriental", "Oriental schools", "ഓറിയന്റൽ സ്കൂളുകൾ", 30)],
        programmes=SANSKRIT_PROGRAMMES, candidates=70, shared_candidates=20,
        placeholders=[
            ("Sanskrit Fest champions", "subfest", "candidate", {}, True),
            ("Sanskrit Fest district table", "subfest", "team", {"team_level": 1}, True),
            ("Sanskrit HS toppers", "category", "candidate", {"category": "HS"}, True),
            ("HIDDEN unpublished Sanskrit groups", "subfest", "group", {}, False),
        ], **common)
    arabic = SubFestSpec(
        slug="arabic", name="Arabic Fest", name_local="അറബിക് കലോത്സവം", code="A", chest_start=3001,
        description="Arabic recitation, song, literary and calligraphy items.",
        categories=[SCHOOL_CATEGORIES[c] for c in ("LP", "UP", "HS")], teams=district_teams(1),
        sections=[("arabic", "Arabic schools", "അറബിക് വിദ്യാലയങ്ങൾ", 70),
                  ("oriental", "Oriental schools", "ഓറിയന്റൽ സ്കൂളുകൾ", 30)],
        programmes=ARABIC_PROGRAMMES, candidates=70, shared_candidates=20,
        placeholders=[
            ("Arabic Fest champions", "subfest", "candidate", {}, True),
            ("Arabic Fest district table", "subfest", "team", {"team_level": 1}, True),
            ("Arabic schools toppers", "section", "team", {"section_key": "arabic", "team_level": 1}, True),
            ("Arabic section standings", "subfest", "section", {}, True),
            ("Arabic group items", "subfest", "group", {}, True),
        ], **common)
    return general, sanskrit, arabic


KALOLSAVAM_VENUES = [
    ("Main Stage – Thekkinkadu Maidanam", "പ്രധാന വേദി – തേക്കിൻകാട് മൈതാനം", "Swaraj Round, Thrissur", "stage"),
    ("Regional Theatre", "റീജിയണൽ തിയേറ്റർ", "Chembukkavu, Thrissur", "stage"),
    ("Town Hall", "ടൗൺ ഹാൾ", "Palace Road, Thrissur", "stage"),
    ("Model Boys HSS Auditorium", None, "Thrissur", "stage"),
    ("Holy Family HSS Hall", None, "Chembukkavu, Thrissur", "stage"),
    ("Sahitya Akademi Hall", "സാഹിത്യ അക്കാദമി ഹാൾ", "Palace Road, Thrissur", "off-stage"),
    ("CMS HSS Classrooms", None, "Thrissur", "off-stage"),
    ("Vivekodayam HSS", "വിവേകോദയം ഹയർ സെക്കൻഡറി സ്കൂൾ", "Thrissur", "off-stage"),
]
KALOLSAVAM_JUDGES = [
    "Dr. Sreedevi Menon", "Prof. K. Madhavan", "R. L. V. Sunitha", "Dr. Abdul Latheef",
    "P. K. Rajagopal", "Smt. Leela Varier", "Dr. Thomas Mathew", "K. S. Anitha", "M. Narayanan Namboothiri",
    "Dr. Fousiya Beegum", "V. R. Suresh", "Kalamandalam Radhika", "Dr. Jayasree Nair", "A. Hamsa",
]
KALOLSAVAM_NEWS = [
    ("Kalolsavam 2026 opens in Thrissur", "The state school arts festival begins with a procession of 14 districts.",
     "<p>The <strong>Kerala School Kalolsavam 2026</strong> opened at the main stage on Wednesday.</p>"
     "<p>More than 10,000 students from 14 districts take part over five days.</p>",
     ["announcements", "opening"], "2026-01-14T05:30:00Z", "opening"),
    ("കലോത്സവത്തിന് തിരിതെളിഞ്ഞു", "തൃശ്ശൂരിൽ സംസ്ഥാന സ്കൂൾ കലോത്സവം ആരംഭിച്ചു.",
     "<p>അഞ്ച് ദിവസം നീളുന്ന കലോത്സവത്തിന് തേക്കിൻകാട് മൈതാനത്ത് തുടക്കമായി.</p>",
     ["announcements", "malayalam"], "2026-01-14T06:00:00Z", "lamp"),
    ("Live stream links for every stage", "Watch the main stage and the regional theatre live.",
     "<p>Watch the main stage <a href=\"https://stream.festival.example/main\" onclick=\"steal()\">live</a>.</p>"
     "<script>alert('xss')</script><img src=\"https://cdn.festival.example/live.png\" onerror=\"alert(1)\">"
     "<p><a href=\"javascript:alert(2)\">Regional theatre</a></p>",
     ["live", "announcements"], "2026-01-14T07:00:00Z", None),
    ("Day one: Thrissur and Kozhikode share the early lead", "Results of the first day's stage items.",
     "<p>After the first day of results, <em>Thrissur</em> and <em>Kozhikode</em> are level on points.</p>",
     ["results", "points-table"], "2026-01-14T16:30:00Z", "day1"),
    ("Schedule change: Kathakali moved to the Regional Theatre", "HS Kathakali now starts at 2 pm.",
     "<p>Due to rain, <b>HS Kathakali</b> moves to the Regional Theatre at 2 pm.</p>",
     ["schedule"], "2026-01-15T03:00:00Z", None),
    ("Oppana and Margamkali draw packed houses", "Group items on day two.",
     "<p>The group items filled the main stage late into the night.</p><ul><li>Oppana</li><li>Margamkali</li></ul>",
     ["group-items", "highlights"], "2026-01-15T17:00:00Z", "oppana"),
    ("Appeals: how to file and by when", "Appeals must be filed within one hour of a result.",
     "<p>Appeals are accepted at the help desk within <strong>one hour</strong> of the result.</p>",
     ["circulars"], "2026-01-15T04:00:00Z", None),
    ("Day three results: Sanskrit and Arabic fests conclude", "Final tables of the Sanskrit and Arabic fests.",
     "<p>The Sanskrit Fest and the Arabic Fest finished on day three.</p>",
     ["results", "sanskrit", "arabic"], "2026-01-16T15:30:00Z", "day3"),
    ("Volunteers thanked at the green protocol review", "The festival stayed plastic free.",
     "<p>More than 2,000 volunteers kept every venue clean.</p>",
     ["green-protocol"], "2026-01-17T06:00:00Z", "volunteers"),
    ("Gold cup goes to the district with the most points", "The overall championship is decided.",
     "<p>The gold cup was presented at the closing ceremony.</p><table><tr><th>District</th><th>Points</th></tr>"
     "<tr><td>See the results page</td><td>–</td></tr></table>",
     ["results", "closing"], "2026-01-18T14:00:00Z", "goldcup"),
    ("ഫലങ്ങൾ വെബ്സൈറ്റിൽ", "എല്ലാ ഇനങ്ങളുടെയും ഫലങ്ങൾ ഇപ്പോൾ ലഭ്യമാണ്.",
     "<p>ഫലങ്ങൾ ഫലങ്ങൾ പേജിൽ കാണാം.</p>", ["results", "malayalam"], "2026-01-18T15:00:00Z", None),
    ("Certificates available for download", "Participation certificates can be downloaded from school logins.",
     "<p>Certificates are issued through the school portal.</p>",
     ["certificates"], "2026-01-25T05:00:00Z", None),
]
KALOLSAVAM_DOWNLOADS = [
    ("Kalolsavam Manual 2026", "Rules of every item, categories and grading.", "Manuals", "manual-2026.pdf"),
    ("Programme schedule – all days", "Stage-wise schedule for five days.", "Schedules", "schedule.pdf"),
    ("Venue map", "Map of all venues in Thrissur town.", "Maps", "venue-map.pdf"),
    ("Circular: appeal procedure", "How appeals are filed and decided.", "Circulars", "appeals.pdf"),
    ("Circular: green protocol", "Rules for a plastic-free festival.", "Circulars", "green-protocol.pdf"),
    ("Results booklet – Day 1", "All results published on day one.", "Results", "results-day1.pdf"),
    ("Results booklet – Final", "The final results of every item.", "Results", "results-final.pdf"),
    ("Media accreditation form", None, "Forms", "media-form.pdf"),
]
KALOLSAVAM_ALBUMS = [
    ("Opening ceremony", "The procession and the lighting of the lamp."),
    ("Stage highlights", "Classical and folk dance on the main stage."),
    ("Off-stage events", "Writing and drawing competitions."),
    ("Group items", "Oppana, Margamkali and more."),
]


def build_kalolsavam():
    fx = Fixture("kalolsavam-2026", seed=2026, private=("ADM-2026", 0, 2026))
    fx.festival(
        name="Kerala School Kalolsavam 2026", name_local="കേരള സ്കൂൾ കലോത്സവം 2026",
        short_name="Kalolsavam 2026",
        description="The state school arts festival of Kerala: dance, music, literature and visual arts.",
        location="Thrissur, Kerala", timezone="Asia/Kolkata", start_date="2026-01-14", end_date="2026-01-18",
        logo_url="https://cdn.festival.example/kalolsavam-2026/logo.png",
        website_url="https://kalolsavam.festival.example", is_active=True,
        created_at="2025-10-01T04:30:00Z", updated_at="2026-01-18T14:00:00Z")
    shared = festival_structure(fx, KALOLSAVAM_VENUES, KALOLSAVAM_JUDGES)
    general_spec, sanskrit_spec, arabic_spec = kalolsavam_specs()
    general = build_sub_fest(fx, shared, general_spec, 1)
    sanskrit = build_sub_fest(fx, shared, sanskrit_spec, 2, shared_from=general)
    arabic = build_sub_fest(fx, shared, arabic_spec, 3, shared_from=general)
    hidden = [
        build_sub_fest(fx, shared, hidden_sub_fest(
            "hidden-tamil", "HIDDEN inactive sub-fest (Tamil Fest)", "HT", 8001, KALOLSAVAM_DAYS,
            is_active=False), 8),
        build_sub_fest(fx, shared, hidden_sub_fest(
            "hidden-kannada", "HIDDEN private sub-fest (Kannada Fest)", "HK", 9001, KALOLSAVAM_DAYS,
            is_public=False), 9),
    ]
    add_news(fx, KALOLSAVAM_NEWS)
    add_downloads(fx, KALOLSAVAM_DOWNLOADS)
    add_gallery(fx, KALOLSAVAM_ALBUMS, 6, [general, sanskrit, arabic])
    page = (pick(general, "Overall individual champions", "District championship", "Best schools",
                 "Best group performances")
            + pick(sanskrit, "Sanskrit Fest champions") + pick(arabic, "Arabic Fest champions"))
    add_hidden_content(fx, general, page, pick(general, "HIDDEN unpublished school preview")
                       + hidden[1].placeholders)
    fx.add("websitePages", slug="home", title="Kalolsavam 2026", is_published=True, is_public=True,
           placeholders=[p["id"] for p in pick(general, "District championship")])
    return fx.data


# --- festival 2: a small college arts festival --------------------------------------------------

HOUSES = [
    TeamSpec("Red House", "ചുവപ്പ്", "#d62728", ("Physics", "Commerce"), "Fire within"),
    TeamSpec("Blue House", "നീല", "#1f77b4", ("Chemistry", "English"), "Deep and calm"),
    TeamSpec("Green House", "പച്ച", "#2ca02c", ("Mathematics", "Malayalam"), "Grow together"),
    TeamSpec("Yellow House", "മഞ്ഞ", "#bcbd22", ("Economics", "History"), None),
]
COLLEGE_DAYS = tuple(dt.date(2026, 2, d) for d in range(19, 22))
COLLEGE_FUTURE_DAYS = tuple(dt.date(2030, 2, d) for d in range(19, 22))
COLLEGE_PROGRAMMES = programmes("""
Light Music | ലളിതഗാനം | UG PG | stage
Western Solo | പാശ്ചാത്യ സംഗീതം | UG | stage
Bharatanatyam | ഭരതനാട്യം | UG | stage
Mimicry | മിമിക്രി | UG PG | stage
Mono Act | മോണോ ആക്ട് | UG | stage
Elocution | പ്രസംഗം | UG PG | stage | topic
Essay Writing | ഉപന്യാസരചന | UG | off-stage | topic
Cartoon | കാർട്ടൂൺ | UG | off-stage
Group Song | സംഘഗാനം | UG | stage | group 3-6
Thiruvathirakali | തിരുവാതിരക്കളി | UG | stage | group 4-8
""")
COLLEGE_CATEGORIES = [
    CategorySpec("UG", "Undergraduate", "ബിരുദം", 75, (18, 21)),
    CategorySpec("PG", "Postgraduate", "ബിരുദാനന്തര ബിരുദം", 25, (21, 24)),
]


def build_college_fest():
    fx = Fixture("college-fest-2026", seed=2027, private=("ADM-RC-2026", 50000, 2026))
    fx.festival(
        name="Riverside College Arts Fest 2026", name_local="റിവർസൈഡ് കോളേജ് കലോത്സവം 2026",
        short_name="Arts Fest 2026", description="The annual inter-house arts festival of Riverside College.",
        location="Kochi, Kerala", timezone="Asia/Kolkata", start_date="2026-02-19", end_date="2026-02-21",
        logo_url=None, website_url="https://artsfest.festival.example", is_active=True,
        created_at="2025-12-01T04:30:00Z", updated_at="2026-02-21T14:00:00Z")
    shared = festival_structure(fx, [
        ("Main Auditorium", "പ്രധാന ഓഡിറ്റോറിയം", "Main block", "stage"),
        ("Open Air Theatre", None, "Behind the library", "stage"),
        ("Seminar Hall", "സെമിനാർ ഹാൾ", "Library block, first floor", "off-stage"),
    ], ["Dr. Mini Varghese", "Prof. Ajith Kumar", "Sangeetha R.", "Dr. Nazeer Ahmed", "Lekha Menon"])
    arts = build_sub_fest(fx, shared, SubFestSpec(
        slug="arts", name="Arts Fest", name_local="കലോത്സവം", code="C", chest_start=101,
        description="Inter-house arts competitions.", categories=COLLEGE_CATEGORIES, teams=HOUSES,
        sections=[("day", "Day scholars", "ഡേ സ്കോളർമാർ", 70), ("hostel", "Hostel", "ഹോസ്റ്റൽ", 30)],
        programmes=COLLEGE_PROGRAMMES, candidates=40, hidden_kinds_category="UG",
        days=COLLEGE_DAYS, future_days=COLLEGE_FUTURE_DAYS,
        placeholders=[
            ("Kalaprathibha and Kalathilakam", "subfest", "candidate", {}, True),
            ("House championship", "subfest", "team", {"team_level": 1}, True),
            ("Department standings", "subfest", "team", {"team_level": 2}, True),
            ("UG toppers", "category", "candidate", {"category": "UG"}, True),
            ("Day scholars vs hostel", "subfest", "section", {}, True),
            ("Best groups", "collection", "group", {"collection_key": "group-items"}, True),
            ("Hostel toppers", "section", "candidate", {"section_key": "hostel"}, True),
            ("HIDDEN unpublished stage toppers", "collection", "team",
             {"collection_key": "stage", "team_level": 1}, False),
        ]), 1)
    hidden = [
        build_sub_fest(fx, shared, hidden_sub_fest(
            "hidden-film", "HIDDEN inactive sub-fest (Film Fest)", "HF", 801, COLLEGE_DAYS,
            is_active=False), 8),
        build_sub_fest(fx, shared, hidden_sub_fest(
            "hidden-staff", "HIDDEN private sub-fest (Staff Fest)", "HS", 901, COLLEGE_DAYS,
            is_public=False), 9),
    ]
    add_news(fx, [
        ("Arts Fest 2026 begins on 19 February", "Three days, four houses, ten items.",
         "<p>The <strong>Arts Fest</strong> opens in the main auditorium.</p>",
         ["announcements"], "2026-02-10T05:00:00Z", "opening"),
        ("Red and Blue tied after day one", "A tight house race.",
         "<p>Red House and Blue House are level after the first day.</p>"
         "<p onclick=\"alert('x')\">Details on the results page.<script>document.cookie</script></p>",
         ["results"], "2026-02-19T15:00:00Z", "day1"),
        ("ഫലങ്ങൾ പ്രസിദ്ധീകരിച്ചു", "എല്ലാ ഇനങ്ങളുടെയും ഫലങ്ങൾ.", "<p>ഫലങ്ങൾ കാണുക.</p>",
         ["results", "malayalam"], "2026-02-21T15:00:00Z", None),
    ])
    add_downloads(fx, [
        ("Arts Fest rules 2026", "Rules of every item.", "Rules", "rules.pdf"),
        ("Schedule", "Venue-wise schedule.", "Schedules", "schedule.pdf"),
        ("Final results", None, "Results", "results.pdf"),
    ])
    add_gallery(fx, [("Day one", "Stage items of the first day."), ("Group items", "Group song and dance.")],
                5, [arts])
    add_hidden_content(fx, arts, pick(arts, "House championship", "Kalaprathibha and Kalathilakam"),
                       pick(arts, "HIDDEN unpublished stage toppers") + hidden[0].placeholders)
    return fx.data


# --- output -----------------------------------------------------------------------------------------

FESTIVALS = {"kalolsavam-2026": build_kalolsavam, "college-fest-2026": build_college_fest}


def dump(data):
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_fixtures(out_dir=FIXTURE_DIR):
    """Write every bundled festival to ``out_dir``; return the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for slug, build in FESTIVALS.items():
        path = out_dir / f"{slug}.json"
        path.write_text(dump(build()), encoding="utf-8")
        paths.append(path)
    return paths


def schema_text():
    return json.dumps(json_schema(), indent=2) + "\n"


def write_schema(path=SCHEMA_PATH):
    Path(path).write_text(schema_text(), encoding="utf-8")
    return Path(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(FIXTURE_DIR), help="directory for the fixture files")
    args = parser.parse_args(argv)
    for path in write_fixtures(args.out):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"wrote {write_schema()}")


if __name__ == "__main__":
    main()
