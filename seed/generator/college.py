"""The small festival: a college arts fest of four houses."""
import datetime as dt

from .content import add_downloads, add_gallery, add_hidden_content, add_news
from .fixture import Fixture
from .hidden import hidden_sub_fest
from .specs import CategorySpec, SubFestSpec, TeamSpec, programmes
from .structure import festival_structure
from .subfest import build_sub_fest, pick

HOUSES = [
    TeamSpec("Red House", "ചുവപ്പ്", "#d62728", ("Physics", "Commerce"), "Fire within"),
    TeamSpec("Blue House", "നീല", "#1f77b4", ("Chemistry", "English"), "Deep and calm"),
    TeamSpec("Green House", "പച്ച", "#2ca02c", ("Mathematics", "Malayalam"), "Grow together"),
    TeamSpec("Yellow House", "മഞ്ഞ", "#bcbd22", ("Economics", "History"), None),
]
COLLEGE_DAYS = tuple(dt.date(2026, 2, d) for d in range(19, 22))
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
        days=COLLEGE_DAYS,
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
