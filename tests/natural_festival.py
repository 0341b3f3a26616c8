"""A small festival written with natural keys only (no ids), for the importer's tests.

Two sub-fests reuse the chest number "101" and the programme code "P1", so those alone
are ambiguous across the festival. P1 (main) has criteria: 1st 5/3/1 points and grades
A (80+, 5), B (60+, 3); its results give positions and scores only.
"""
import copy

SLUG = "natural-fest"

_FESTIVAL = {
    "formatVersion": 1,
    "festival": {"slug": SLUG, "name": "Natural Fest", "name_local": "നാച്ചുറൽ ഫെസ്റ്റ്", "timezone": "Asia/Kolkata"},
    "subFests": [{"slug": "main", "name": "Main"}, {"slug": "junior", "name": "Junior"}],
    "categories": [{"sub_fest_slug": "main", "name": "Senior"}, {"sub_fest_slug": "junior", "name": "Senior"}],
    "teams": [
        {"sub_fest_slug": "main", "name": "Red", "level": 1},
        {"sub_fest_slug": "main", "name": "Red School", "level": 2, "parent_name": "Red"},
        {"sub_fest_slug": "junior", "name": "Red", "level": 1},
    ],
    "sections": [{"sub_fest_slug": "main", "key": "day", "name": "Day scholars"}],
    "venues": [{"name": "Hall"}],
    "judges": [{"name": "Jaya"}],
    "programmeCollections": [{"key": "stage", "name": "Stage"}],
    "positionCriteria": [{"name": "Individual", "points": {"1": 5, "2": 3, "3": 1}}],
    "gradeCriteria": [{"name": "AB", "bands": [{"grade": "A", "minScore": 80, "points": 5},
                                               {"grade": "B", "minScore": 60, "points": 3}]}],
    "programmes": [{"code": "LM", "name": "Light Music", "name_local": "ലളിതഗാനം"},
                   {"code": "GS", "name": "Group Song", "program_type": "group", "max_members": 5}],
    "subFestProgrammes": [
        {"sub_fest_slug": "main", "programme_code": "LM", "code": "P1", "category_name": "Senior",
         "status": "result_published", "position_criteria_name": "Individual", "grade_criteria_name": "AB",
         "judge_names": ["Jaya"], "collection_keys": ["stage"], "published_at": "2026-01-10T10:00:00Z"},
        {"sub_fest_slug": "main", "programme_code": "GS", "code": "G1", "status": "result_published",
         "published_at": "2026-01-10T10:00:00Z"},
        {"sub_fest_slug": "junior", "programme_code": "LM", "code": "P1", "category_name": "Senior"},
    ],
    "schedules": [{"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "venue_name": "Hall",
                   "scheduled_at": "2026-01-10T09:00:00+05:30"}],
    "candidates": [{"admission_number": f"ADM-{n}", "name": name}
                   for n, name in enumerate(["Anu", "Bala", "Chitra", "Farah"], start=1)],
    "subFestCandidates": [
        {"sub_fest_slug": "main", "chest_no": "101", "candidate_admission_number": "ADM-1",
         "team_name": "Red School", "category_name": "Senior", "section_keys": ["day"]},
        {"sub_fest_slug": "main", "chest_no": "102", "candidate_admission_number": "ADM-2", "team_name": "Red School"},
        {"sub_fest_slug": "main", "chest_no": "103", "candidate_admission_number": "ADM-3", "team_name": "Red School"},
        {"sub_fest_slug": "junior", "chest_no": "101", "candidate_admission_number": "ADM-4", "team_name": "Red"},
    ],
    "registrations": [
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "team_name": "Red School"},
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102"},
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "103"},
        {"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "101", "type": "group",
         "group_name": "Red voices", "member_chest_nos": ["101", "102"]},
        {"sub_fest_slug": "junior", "sub_fest_programme_code": "P1", "chest_no": "101"},
    ],
    "results": [
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "score": 91, "position": 1,
         "is_published": True, "published_at": "2026-01-10T10:00:00Z"},
        {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "102", "score": 70, "position": 2,
         "is_published": True, "published_at": "2026-01-10T10:00:00Z"},
        {"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "chest_no": "101", "position": 1, "points": 4,
         "is_published": True, "published_at": "2026-01-10T10:00:00Z"},
    ],
    "topperPlaceholders": [{"sub_fest_slug": "main", "label": "Toppers", "entity_type": "candidate",
                            "is_published": True}],
    "websitePages": [{"slug": "results", "title": "Results", "placeholder_labels": ["Toppers"]}],
    "news": [{"title": "Welcome", "status": "published", "published_at": "2026-01-01T00:00:00Z", "tags": ["hello"]}],
    "downloads": [{"title": "Rules", "file_url": "https://example.org/rules.pdf"}],
    "galleryAlbums": [{"title": "Day 1"}],
    "galleryImages": [{"album_title": "Day 1", "image_url": "https://example.org/1.jpg",
                       "sub_fest_slug": "main", "sub_fest_programme_code": "P1"}],
}


def natural_festival():
    """A fresh copy of the festival document."""
    return copy.deepcopy(_FESTIVAL)


# What result-day updates of this festival say, for the tests of ``import --update``.
PUBLISHED = "2026-01-11T10:00:00Z"


def update(**sections):
    """An update document of this festival holding ``sections``."""
    return {"formatVersion": 1, "festival": {"slug": SLUG}, **sections}


def junior_results():
    """Publish the junior P1 results: the programme's new status and its one result."""
    return update(
        subFestProgrammes=[{"sub_fest_slug": "junior", "code": "P1", "status": "result_published",
                            "published_at": PUBLISHED}],
        results=[{"sub_fest_slug": "junior", "sub_fest_programme_code": "P1", "chest_no": "101",
                  "position": 1, "points": 7, "is_published": True, "published_at": PUBLISHED}])
