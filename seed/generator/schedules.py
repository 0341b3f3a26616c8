"""Schedules of a sub-fest's programmes, and when their results were published."""
from .fixture import ist


def add_schedules(fx, shared, ctx):
    """One session (a group item sometimes two) per programme, on the sub-fest's days."""
    rng, days = fx.rng, ctx.spec.days
    for row, pspec in ctx.sfps:
        status = row["status"]
        if status == "draft":
            continue
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
