"""Registrations: individual entrants spread evenly, group entries per district."""
import datetime as dt
import heapq
from collections import Counter

from .fixture import ts

TOPICS = [
    "Climate change and Kerala's coastline", "The future of Malayalam literature",
    "Science and superstition", "Social media and the young reader", "Water: a shared responsibility",
    "Kerala's floods and what we learned", "Folk arts in the digital age", "Women in Indian science",
    "Libraries as public spaces", "Sports and school life",
]


def registered_at(rng, festival_day):
    start = dt.datetime.combine(festival_day, dt.time(9)) - dt.timedelta(days=60)
    return ts(start + dt.timedelta(minutes=rng.randrange(40 * 24 * 60)))


def least_loaded(entries, load, rng, count):
    """The ``count`` entries entered least often so far, ties broken at random.

    The same as sorting all of them by ``(load, rng.random())`` and taking the first
    ``count`` (one draw per entry, in order), without sorting them all.
    """
    times, draw = load.get, rng.random  # bound once: this runs millions of times at scale
    keyed = [(times(e.row["id"], 0), draw(), i) for i, e in enumerate(entries)]
    return [entries[i] for *_, i in heapq.nsmallest(count, keyed)]


def add_registrations(fx, ctx):
    """Registrations per programme: entrants spread evenly, groups per district."""
    rng = fx.rng
    load = Counter()
    day = ctx.spec.days[0]
    regs = {}
    # Every 40th candidate never registers, so "hasRegistration=false" has answers.
    public = {code: [] for code in ctx.categories}
    for i, e in enumerate(ctx.entries):
        if not e.hidden and i % 40 != 39:
            public[e.category].append(e)
    for row, pspec in ctx.sfps:
        status = row["status"]
        if status == "draft":
            continue
        checked_in = status in ("ongoing", "completed", "result_published")
        category = next(code for code, c in ctx.categories.items() if c["id"] == row["category"])
        pool = public[category]
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
            by_district = {district["id"]: [] for district in districts}
            for e in pool:
                by_district[e.district["id"]].append(e)
            for district in districts:
                members = by_district[district["id"]]
                if len(members) < pspec.group[0] or teams >= max_teams:
                    continue
                most = min(pspec.group[1], len(members))
                members = least_loaded(members, load, rng, most)[:rng.randint(pspec.group[0], most)]
                for e in members:
                    load[e.row["id"]] += 1
                teams += 1
                register(type="group", sub_fest_candidate=members[0].row["id"], team=district["id"],
                         group_name=f"{district['name']} {pspec.name} team",
                         members=[e.row["id"] for e in members])
        else:
            for e in least_loaded(pool, load, rng, 12)[:rng.randint(6, 12)]:
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


def withdraw_every(fx, every):
    """Withdraw every ``every``-th registration (``is_active: false``).

    A withdrawn entry keeps any result it had; it must count nowhere all the same.
    """
    for n, row in enumerate(fx.data["registrations"], 1):
        if n % every == 0:
            row["is_active"] = False
