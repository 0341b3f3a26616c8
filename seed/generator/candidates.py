"""People and their sub-fest entries, with every private field filled in."""
import datetime as dt

from .fixture import hide
from .names import person_name
from .specs import Entry


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
