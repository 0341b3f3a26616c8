"""A festival whose leaderboards use every part of a board's rule (docs/rankings.md, "A
board's rule"), small enough to rank by hand. The hand-computed boards are in
tests/test_board_rules.py.

Sub-fest "main", one category (Junior). Teams: North > N1, N2; South > S1. Sections:
"class-a" lists the teams N1 and S1, "class-b" lists N2, "day" lists no team (Anu's 101 and
Chitra are in it). Collections: solo-dance (D1, D2), non-dance (N1, N2).

People (chest numbers): Anu 101 and 102 (both N1), Bala 103 (N2), Chitra 104 (S1), Devi
105 (S1), Esha 106 (N1). Position points 1st 5, 2nd 3, 3rd 1; grade points A 5, B 3, C 1;
points = both. Results (position, grade, points), published on day 10 + n:

- D1 (day 10): 101 1st A 10; 103 2nd A 8; 104 3rd B 4
- D2 (day 11): 105 1st A 10; 102 2nd B 6; 104 2nd B 6; 106 4th C 1
- N1 (day 12): 103 1st A 10; 104 2nd A 8; 102 3rd C 2
- N2 (day 13): 101 1st B 8; 105 2nd B 6
- G1, group items (day 14): N1's group (member 101) 1st A 10; S1's group (member 105) 2nd A 8
- T1, the teams' own entries (day 15): N2 1st 5 (position points 5); S1 2nd 3 (3)
"""
from tiny_festival import Builder, day

SLUG = "rules-fest"

RESULTS = {
    "D1": [("101", 1, "A", 5, 5), ("103", 2, "A", 3, 5), ("104", 3, "B", 1, 3)],
    "D2": [("105", 1, "A", 5, 5), ("102", 2, "B", 3, 3), ("104", 2, "B", 3, 3), ("106", 4, "C", 0, 1)],
    "N1": [("103", 1, "A", 5, 5), ("104", 2, "A", 3, 5), ("102", 3, "C", 1, 1)],
    "N2": [("101", 1, "B", 5, 3), ("105", 2, "B", 3, 3)],
}
PUBLISHED = {"D1": day(10), "D2": day(11), "N1": day(12), "N2": day(13), "G1": day(14), "T1": day(15)}

# label -> the rule's fields (and scope) of each board
BOARDS = {
    "chests": {"entity_type": "candidate"},
    "chests-firsts": {"entity_type": "candidate", "tie_break": ["firsts", "seconds", "thirds"]},
    "chests-thirds": {"entity_type": "candidate", "tie_break": ["thirds"]},
    "chests-fewest": {"entity_type": "candidate", "tie_break": ["fewest_entries"]},
    "chests-grade-a": {"entity_type": "candidate", "tie_break": ["grade:a"]},
    "chests-best": {"entity_type": "candidate", "tie_break": ["best_result"]},
    "chests-position-points": {"entity_type": "candidate", "tie_break": ["position_points"]},
    "chests-grade-points": {"entity_type": "candidate", "tie_break": ["grade_points"]},
    "chests-dense": {"entity_type": "candidate", "rank_style": "dense"},
    "chests-dense-top2": {"entity_type": "candidate", "rank_style": "dense", "display_top_n": 2},
    "chests-standard-top2": {"entity_type": "candidate", "display_top_n": 2},
    "chests-by-position": {"entity_type": "candidate", "points_from": "position"},
    "chests-by-grade": {"entity_type": "candidate", "points_from": "grade"},
    "people": {"entity_type": "person"},
    "people-firsts": {"entity_type": "person", "tie_break": ["firsts", "seconds"]},
    "people-champion": {"entity_type": "person",
                        "eligible_if": [{"collection": "solo-dance", "best_position": 1},
                                        {"collection": "non-dance", "best_position": 1}]},
    "people-dancers": {"entity_type": "person", "eligible_if": [{"collection": "solo-dance", "best_position": 2}]},
    "parishes": {"entity_type": "team", "team_level": 2},
    "parishes-best": {"entity_type": "team", "team_level": 2, "best_per_programme": True},
    "parishes-own": {"entity_type": "team", "team_level": 2, "counts": ["team_entry"]},
    "parishes-groups": {"entity_type": "team", "team_level": 2, "counts": ["group"]},
    "class-a": {"entity_type": "team", "team_level": 2, "scope_type": "section", "section_key": "class-a"},
    "class-b": {"entity_type": "team", "team_level": 2, "scope_type": "section", "section_key": "class-b"},
    "class-a-regions": {"entity_type": "team", "team_level": 1, "scope_type": "section", "section_key": "class-a"},
    "class-a-section": {"entity_type": "section", "scope_type": "section", "section_key": "class-a",
                        "counts": ["individual", "group", "team_entry"]},
    "class-a-groups": {"entity_type": "group", "scope_type": "section", "section_key": "class-a"},
    "day-parishes": {"entity_type": "team", "team_level": 2, "scope_type": "section", "section_key": "day"},
}


def rules_festival():
    """``(fixture dict, name -> id)`` of the festival above."""
    b = Builder(SLUG)
    b.data["festival"]["name"] = "Rules Fest"
    sub = b.add("subFests", "main", slug="main", name="Main")["id"]
    junior = b.add("categories", "junior", sub_fest=sub, name="Junior")["id"]
    teams = {}
    for name, level, parent in (("North", 1, None), ("South", 1, None), ("N1", 2, "North"), ("N2", 2, "North"),
                                ("S1", 2, "South")):
        teams[name] = b.add("teams", f"team-{name}", sub_fest=sub, name=name, level=level,
                            parent=teams[parent] if parent else None)["id"]
    sections = {
        "class-a": b.add("sections", "section-class-a", sub_fest=sub, key="class-a", name="Class A",
                         teams=[teams["N1"], teams["S1"]])["id"],
        "class-b": b.add("sections", "section-class-b", sub_fest=sub, key="class-b", name="Class B",
                         teams=[teams["N2"]])["id"],
        "day": b.add("sections", "section-day", sub_fest=sub, key="day", name="Day")["id"],
    }
    collections = {key: b.add("programmeCollections", key, key=key, name=key.title())["id"]
                   for key in ("solo-dance", "non-dance")}
    chests = {}
    for chest, name, team, section in (("101", "Anu", "N1", "day"), ("102", "Anu", "N1", None),
                                       ("103", "Bala", "N2", None), ("104", "Chitra", "S1", "day"),
                                       ("105", "Devi", "S1", None), ("106", "Esha", "N1", None)):
        person = b.id(f"person-{name}")
        if not any(row["id"] == person for row in b.data.get("candidates", [])):
            b.add("candidates", f"person-{name}", name=name, email=f"{name.lower()}@private.example",
                  phone="+91 90000 00000", admission_number=f"ADM-{name}", date_of_birth="2010-01-01")
        chests[chest] = b.add("subFestCandidates", f"chest-{chest}", sub_fest=sub, candidate=person, chest_no=chest,
                              team=teams[team], category=junior,
                              sections=[sections[section]] if section else [])["id"]

    def programme(code, group=False, collection=None):
        master = b.add("programmes", f"master-{code}", code=code, name=f"Programme {code}",
                       program_type="group" if group else "individual")
        return b.add("subFestProgrammes", f"programme-{code}", sub_fest=sub, programme=master["id"], category=junior, code=code,
                     status="result_published", published_at=PUBLISHED[code],
                     collections=[collections[collection]] if collection else [])["id"]

    progs = {code: programme(code, collection="solo-dance" if code.startswith("D") else "non-dance")
             for code in ("D1", "D2", "N1", "N2")}
    progs["G1"] = programme("G1", group=True)
    progs["T1"] = programme("T1")

    def result(code, key, position, grade, position_points, grade_points, **registration):
        reg = b.add("registrations", f"reg-{code}-{key}", sub_fest_programme=progs[code], **registration)
        b.add("results", f"result-{code}-{key}", registration=reg["id"], sub_fest_programme=progs[code],
              position=position, grade=grade, position_points=position_points, grade_points=grade_points,
              points=position_points + grade_points, is_published=True, published_at=PUBLISHED[code])

    for code, rows in RESULTS.items():
        for chest, position, grade, pp, gp in rows:
            result(code, chest, position, grade, pp, gp, type="individual", sub_fest_candidate=chests[chest])
    result("G1", "N1", 1, "A", 5, 5, type="group", team=teams["N1"], group_name="N1 group",
           sub_fest_candidate=chests["101"], members=[chests["101"]])
    result("G1", "S1", 2, "A", 3, 5, type="group", team=teams["S1"], group_name="S1 group",
           sub_fest_candidate=chests["105"], members=[chests["105"]])
    result("T1", "N2", 1, None, 5, 0, type="individual", team=teams["N2"])
    result("T1", "S1", 2, None, 3, 0, type="individual", team=teams["S1"])

    for n, (label, fields) in enumerate(BOARDS.items()):
        fields = dict(fields)
        b.add("topperPlaceholders", f"board-{label}", sub_fest=sub, label=label, scope_type=fields.pop("scope_type", "subfest"),
              display_top_n=fields.pop("display_top_n", 10), is_published=True, display_order=n, **fields)
    b.add("websitePages", "page", slug="boards", title="Boards", placeholders=[b.id(f"board-{label}") for label in BOARDS])
    return b.data, b.ids
