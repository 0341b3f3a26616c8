"""Records the public must never see: hidden kinds inside a public sub-fest, hidden sub-fests."""
from .candidates import add_candidate, add_entry
from .specs import CategorySpec, ProgrammeSpec, SubFestSpec, TeamSpec
from .structure import add_master, add_sfp

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


def hidden_code_base(programme_count):
    """The hidden programmes are numbered after this (91, 92, ...; 791, ... past 90 programmes)."""
    base = 90
    while base <= programme_count:
        base += 100
    return base


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
    base = hidden_code_base(len(ctx.spec.programmes))
    for n, (name, master_flags, sfp_flags) in enumerate(HIDDEN_PROGRAMMES, 1):
        pspec = ProgrammeSpec(name, f"HIDDEN {name}", (category,), "stage")
        master = add_master(fx, ctx.spec, base + n, pspec, **master_flags)
        row = add_sfp(fx, shared, ctx, master, pspec, category, f"{category}-HIDDEN-{n}",
                      "result_published", 10 * base + n, **sfp_flags)
        row["collections"].append(shared.hidden_collection["id"])
        row["judges"].append(shared.hidden_judge["id"])
        ctx.hidden_sfps.append(row)


def hidden_sub_fest(slug, name, code, chest_start, days, **flags):
    """A small sub-fest the public must never see; every name in it says HIDDEN."""
    return SubFestSpec(
        slug=slug, name=name, name_local=None, code=code, chest_start=chest_start,
        categories=[CategorySpec("OPEN", "Open category", None, 1, (14, 17))],
        teams=[TeamSpec("District", None, "#000000", ("School",))],
        sections=[("hidden", "Section", None, 1)],
        programmes=[ProgrammeSpec("Recitation", None, ("OPEN",), "stage"),
                    ProgrammeSpec("Essay", None, ("OPEN",), "off-stage")],
        candidates=4, hidden=True, days=days,
        placeholders=[(f"Toppers of the {name}", "subfest", "candidate", {}, True)], **flags)
