"""The large festival: a state school arts festival of three public sub-fests."""
from .content import add_downloads, add_gallery, add_hidden_content, add_news
from .fixture import Fixture
from .hidden import hidden_sub_fest
from .kalolsavam_tables import (ARABIC_PROGRAMMES, GENERAL_PROGRAMMES, KALOLSAVAM_ALBUMS, KALOLSAVAM_DAYS,
                                KALOLSAVAM_DOWNLOADS, KALOLSAVAM_JUDGES,
                                KALOLSAVAM_NEWS, KALOLSAVAM_VENUES, SANSKRIT_PROGRAMMES, SCHOOL_CATEGORIES,
                                district_teams)
from .registrations import withdraw_every
from .scale import programme_statuses, scaled
from .specs import SubFestSpec
from .structure import festival_structure
from .subfest import build_sub_fest, pick


def kalolsavam_specs():
    common = {"days": KALOLSAVAM_DAYS}
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
    tamil = hidden_sub_fest("hidden-tamil", "HIDDEN inactive sub-fest (Tamil Fest)", "HT", 8001, KALOLSAVAM_DAYS,
                            is_active=False)
    kannada = hidden_sub_fest("hidden-kannada", "HIDDEN private sub-fest (Kannada Fest)", "HK", 9001,
                              KALOLSAVAM_DAYS, is_public=False)
    return general, sanskrit, arabic, tamil, kannada


def build_kalolsavam(scale=1):
    """The Kalolsavam as a fixture document; ``scale`` N gives a festival N times its size.

    A scaled festival (slug ``kalolsavam-2026-xN``) has N times the candidates, schools and
    programmes of every sub-fest, so about N times the registrations and results, and
    withdraws every 50th registration; its ids differ from the bundled festival's, so both
    can be imported into one database.
    """
    if not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale must be a whole number of 1 or more, not {scale!r}")
    slug, title = ("kalolsavam-2026", "") if scale == 1 else (f"kalolsavam-2026-x{scale}", f" (×{scale})")
    fx = Fixture(slug, seed=2026, private=("ADM-2026" if scale == 1 else f"ADM-2026X{scale}", 0, 2026))
    fx.festival(
        name=f"Kerala School Kalolsavam 2026{title}", name_local=f"കേരള സ്കൂൾ കലോത്സവം 2026{title}",
        short_name=f"Kalolsavam 2026{title}",
        description="The state school arts festival of Kerala: dance, music, literature and visual arts.",
        location="Thrissur, Kerala", timezone="Asia/Kolkata", start_date="2026-01-14", end_date="2026-01-18",
        logo_url=f"https://cdn.festival.example/{slug}/logo.png",
        website_url="https://kalolsavam.festival.example", is_active=True,
        created_at="2025-10-01T04:30:00Z", updated_at="2026-01-18T14:00:00Z")
    shared = festival_structure(fx, KALOLSAVAM_VENUES, KALOLSAVAM_JUDGES)
    specs = kalolsavam_specs()
    if scale > 1:
        statuses = programme_statuses(build_kalolsavam())
        specs = [scaled(spec, scale, statuses[spec.slug]) for spec in specs]
    general_spec, sanskrit_spec, arabic_spec, tamil_spec, kannada_spec = specs
    general = build_sub_fest(fx, shared, general_spec, 1)
    sanskrit = build_sub_fest(fx, shared, sanskrit_spec, 2, shared_from=general)
    arabic = build_sub_fest(fx, shared, arabic_spec, 3, shared_from=general)
    hidden = [build_sub_fest(fx, shared, tamil_spec, 8), build_sub_fest(fx, shared, kannada_spec, 9)]
    if scale > 1:
        withdraw_every(fx, 50)
    add_news(fx, KALOLSAVAM_NEWS)
    add_downloads(fx, KALOLSAVAM_DOWNLOADS)
    add_gallery(fx, KALOLSAVAM_ALBUMS, 6, [general, sanskrit, arabic])
    page = (pick(general, "Overall individual champions", "District championship", "Best schools",
                 "Best group performances")
            + pick(sanskrit, "Sanskrit Fest champions") + pick(arabic, "Arabic Fest champions"))
    add_hidden_content(fx, general, page, pick(general, "HIDDEN unpublished school preview")
                       + hidden[1].placeholders)
    fx.add("websitePages", slug="home", title=f"Kalolsavam 2026{title}", is_published=True, is_public=True,
           placeholders=[p["id"] for p in pick(general, "District championship")])
    return fx.data
