"""A hand-built festival for the structure endpoints' edge cases the bundled fixtures lack.

Everything hidden has "HIDDEN" in its name. Expected values, computed by hand:

- Teams: District (level 1) > School (publicName "The School"), HIDDEN school (private);
  HIDDEN district > Orphan;
  Empty (level 1, no candidates). candidateCount: District 2 (Anu, Bala; Chitra's school
  is hidden, Xavier is hidden), School 2, Orphan 1 (Devi), Empty 0; Orphan's parentTeam
  is null.
- Candidates (chest, team, category, sections):
  Anu 101 School Junior [Day, HIDDEN sec] avatar; Bala 102 School Senior [Day];
  Chitra 103 HIDDEN school Junior []; Devi 104 Orphan HIDDEN category [];
  Xavier 105 School Junior, an INACTIVE person; Esha 106 no team, Senior, no entries.
- Programmes:
  A (individual, Junior, collections Stage + HIDDEN internal, judges Jaya + HIDDEN judge,
  schedules 2026-01-20 09:00 in the HIDDEN green room and 2026-01-21 09:00 in the Hall;
  candidate window (none, 2026-01-31], topic window [2026-01-10, none)).
  Results: Anu 5 (1st, A), Bala 3 (2nd, B), Chitra 2 (3rd, B), Xavier 10 (hidden person).
  B (individual, HIDDEN category, only the HIDDEN judge, no schedule, no windows).
  Entries: Devi (result unpublished), Bala (result published but private), the School's
  own entry (a team, no candidate: shown, no result), and a group of Xavier alone under
  the School, 9 points 1st (its only member is hidden: not shown, not a team's entry).
  G (group, Junior): the Red group (Anu, Bala, Xavier) 4 points, 1st, grade A; teams' own
  entries: the School 3 points 2nd B (participantName "The School", its public name),
  Orphan 2 3rd B (its parent is hidden, the team is not), Empty 1 (result not public);
  never shown: the HIDDEN school's 8, the HIDDEN district's 7 (inactive team), the
  District's 6 (inactive entry). H (hidden sub-fest): the School's own entry, 5, 1st.
- resultCount / registrationCount: A 3 / 3, B 0 / 3, G 3 / 4.
- pointsSummary: Anu 9 (individual 5, group 4; 2 results, 1st x2, A x2);
  Bala 7 (3 + 4; 1st, 2nd; A, B); Chitra 2 (3rd, B); Devi 0; Esha 0. registrationCount:
  Anu 2, Bala 3, Chitra 1, Devi 1, Esha 0.
- Categories: Junior 2 candidates (Anu, Chitra) and 2 programmes (A, G); Senior 2 (Bala,
  Esha) and 0.
- Leaderboard "Published" (Junior programmes A and G, teams at level 1): District 15 from
  2 programmes (A: Anu 5 + Bala 3 of the School; G: the Red group 4, led by Anu of the
  School, + the School's own 3); Orphan's 2 passes nothing up (its parent is hidden).
"""
import pytest

from tiny_festival import Builder, tiny_api

SLUG = "shape-fest"


def shape_festival():
    b = Builder(SLUG)
    # Hidden entries share the places of visible ones (M-A: 1, 2, 3 and a hidden 1): dense.
    b.data["festival"]["position_style"] = "dense"
    main = b.add("subFests", "main", slug="main", name="Main")["id"]
    hidden_sub = b.add("subFests", "hidden-sub", slug="hidden-sub", name="HIDDEN sub-fest", is_public=False)["id"]
    junior = b.add("categories", "Junior", sub_fest=main, name="Junior", display_order=1)["id"]
    senior = b.add("categories", "Senior", sub_fest=main, name="Senior", display_order=2)["id"]
    hidden_category = b.add("categories", "HiddenCategory", sub_fest=main, name="HIDDEN category",
                            display_order=3, is_active=False)["id"]
    district = b.add("teams", "District", sub_fest=main, name="District", level=1, color_code="#AA0000",
                     display_order=1)["id"]
    school = b.add("teams", "School", sub_fest=main, name="School", public_name="The School", level=2, parent=district,
                   color_code="#aa0000", display_order=2)["id"]
    hidden_school = b.add("teams", "HiddenSchool", sub_fest=main, name="HIDDEN school", level=2,
                          parent=district, is_public=False, display_order=3)["id"]
    hidden_district = b.add("teams", "HiddenDistrict", sub_fest=main, name="HIDDEN district", level=1,
                            is_active=False, display_order=4)["id"]
    orphan = b.add("teams", "Orphan", sub_fest=main, name="Orphan", level=2, parent=hidden_district,
                   color_code="#00bb00", display_order=5)["id"]
    b.add("teams", "Empty", sub_fest=main, name="Empty", level=1, display_order=6)
    day = b.add("sections", "Day", sub_fest=main, key="day", name="Day")["id"]
    hidden_section = b.add("sections", "HiddenSection", sub_fest=main, key="hidden", name="HIDDEN section",
                           is_public=False)["id"]
    hall = b.add("venues", "Hall", name="Hall")["id"]
    green_room = b.add("venues", "GreenRoom", name="HIDDEN green room", is_public=False)["id"]
    stage = b.add("programmeCollections", "Stage", key="stage", name="Stage")["id"]
    internal = b.add("programmeCollections", "Internal", key="internal", name="HIDDEN internal",
                     is_public=False)["id"]
    jaya = b.add("judges", "Jaya", name="Jaya")["id"]
    old_judge = b.add("judges", "OldJudge", name="HIDDEN judge", is_active=False)["id"]

    people = {}
    for chest, (name, team, category, sections, extra) in enumerate([
        ("Anu", school, junior, [day, hidden_section], {"avatar_url": "https://cdn.example/anu.jpg"}),
        ("Bala", school, senior, [day], {}),
        ("Chitra", hidden_school, junior, [], {}),
        ("Devi", orphan, hidden_category, [], {}),
        ("Xavier", school, junior, [], {}),
        ("Esha", None, senior, [], {}),
    ], start=101):
        person = b.add("candidates", f"person-{name}", name=name if name != "Xavier" else "HIDDEN Xavier",
                       email=f"{name.lower()}@private.example", phone=f"+91 99999 0{chest}",
                       admission_number=f"ADM-S-{chest}", admission_details=f"private record {chest}",
                       is_active=name != "Xavier")
        people[name] = b.add("subFestCandidates", name, sub_fest=main, candidate=person["id"],
                             chest_no=str(chest), team=team, category=category, sections=sections,
                             **extra)["id"]

    def programme(code, category, group=False, **fields):
        master = b.add("programmes", f"master-{code}", code=code, name=f"Programme {code}",
                       program_type="group" if group else "individual")
        return b.add("subFestProgrammes", code, sub_fest=main, programme=master["id"], category=category,
                     code=f"M-{code}", status="result_published", **fields)["id"]

    progs = {
        "A": programme("A", junior, collections=[stage, internal], judges=[jaya, old_judge],
                       candidate_registration_closes_at="2026-01-31T00:00:00Z",
                       topic_registration_opens_at="2026-01-10T00:00:00Z", display_order=1),
        "B": programme("B", hidden_category, judges=[old_judge], display_order=2),
        "G": programme("G", junior, group=True, display_order=3),
    }
    b.add("schedules", "S1", sub_fest_programme=progs["A"], venue=green_room,
          scheduled_at="2026-01-20T09:00:00Z", duration_minutes=30)
    b.add("schedules", "S2", sub_fest_programme=progs["A"], venue=hall,
          scheduled_at="2026-01-21T09:00:00Z", duration_minutes=30)
    hidden_master = b.add("programmes", "master-H", code="H", name="HIDDEN programme")["id"]
    b.add("subFestProgrammes", "H", sub_fest=hidden_sub, programme=hidden_master, code="H-1")

    def entry(code, who, points=None, position=None, grade=None, members=None, **result_flags):
        key = f"{code}-{who}"
        reg = b.add("registrations", f"reg-{key}", sub_fest_programme=progs[code],
                    type="group" if members else "individual", sub_fest_candidate=people[members[0] if members else who],
                    members=[people[m] for m in members or ()], group_name=f"{who} group" if members else None)
        if points is not None:
            b.add("results", f"result-{key}", registration=reg["id"], sub_fest_programme=progs[code],
                  points=points, position=position, grade=grade, position_points=points, grade_points=0,
                  published_at="2026-01-22T10:00:00Z", **{"is_published": True, **result_flags})

    entry("A", "Anu", 5, 1, "A")
    entry("A", "Bala", 3, 2, "B")
    entry("A", "Chitra", 2, 3, "B")
    entry("A", "Xavier", 10, 1, "A")
    entry("B", "Devi", 6, 1, "A", is_published=False)
    entry("B", "Bala", 4, 2, "A", is_public=False)
    entry("G", "Red", 4, 1, "A", members=["Anu", "Bala", "Xavier"])
    # A team's own entry (a team, no candidate, no members) is visible while its team is
    # public: no one's participation, counted for its programme and its team only.
    b.add("registrations", "reg-B-team", sub_fest_programme=progs["B"], type="individual", team=school)

    def team_entry(key, code, team, points, position=None, grade=None, kind="group", members=(),
                   is_active=True, **result_flags):
        reg = b.add("registrations", f"reg-{key}", sub_fest_programme=progs.get(code) or b.id(code), type=kind,
                    team=team, members=[people[p] for p in members], is_active=is_active)
        b.add("results", f"result-{key}", registration=reg["id"], sub_fest_programme=reg["sub_fest_programme"],
              points=points, position=position, grade=grade, position_points=points, grade_points=0,
              published_at="2026-01-22T11:00:00Z", **{"is_published": True, **result_flags})

    team_entry("G-School", "G", school, 3, 2, "B")
    team_entry("G-Orphan", "G", orphan, 2, 3, "B", kind="individual")  # a hidden parent hides no one
    team_entry("G-Empty", "G", b.id("Empty"), 1, is_public=False)  # shown entry, withheld result
    # Never shown: a hidden, an inactive team's entry, an inactive entry, a group of hidden
    # members only, an entry in a hidden sub-fest's programme.
    team_entry("G-HiddenSchool", "G", hidden_school, 8, None, "A")
    team_entry("G-HiddenDistrict", "G", hidden_district, 7, None, "A", kind="individual")
    team_entry("G-District", "G", district, 6, None, "A", is_active=False)
    team_entry("B-Xavier", "B", school, 9, 1, "A", members=["Xavier"])
    team_entry("H-School", "H", school, 5, 1, "A")

    b.add("topperPlaceholders", "Published", sub_fest=main, label="Toppers", scope_type="category",
          entity_type="team", category=junior, is_published=True)
    b.add("topperPlaceholders", "Draft", sub_fest=main, label="HIDDEN draft toppers", scope_type="collection",
          entity_type="group", collection_key="stage", is_published=False)
    return b.data, b.ids


@pytest.fixture(scope="module")
def shape(seeded, tmp_path_factory):
    """``(client, ids)``: a read-only app serving the shape festival (default key)."""
    data, names = shape_festival()
    with tiny_api(seeded[0], tmp_path_factory.mktemp("shape"), data) as (client, _):
        yield client, names
