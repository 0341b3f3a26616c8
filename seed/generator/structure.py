"""Festival-wide structure (venues, judges, collections, criteria) and each sub-fest's
categories, teams, sections and programmes."""
from schemas.enums import SUB_FEST_PROGRAMME_STATUSES

from .fixture import hide
from .specs import Shared

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
    # A school's display order follows its district's: district 3's schools are 31, 32, ...
    step = 10 ** len(str(max(len(team.children) for team in spec.teams)))
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
                   motto=None, logo_url=None, color_code=team.color, display_order=order * step + i,
                   is_active=True, is_public=True)
            for i, school in enumerate(team.children, 1)]
    for order, (key, name, local, _) in enumerate(spec.sections, 1):
        ctx.sections.append(fx.add("sections", sub_fest=ctx.row["id"], key=key, name=hide(name, spec),
                                   name_local=local, display_order=order, is_active=True,
                                   is_public=True))


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
    statuses = list(spec.statuses) or status_plan(fx.rng, len(instances), spec.hidden)
    for order, ((master, pspec, cat, code), status) in enumerate(zip(instances, statuses), 1):
        add_sfp(fx, shared, ctx, master, pspec, cat, code, status, order)
