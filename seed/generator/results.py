"""Results: scores, competition-ranked positions with ties, grades and points."""
from .structure import GRADE_BANDS


def grade_for(score):
    return next(((b["grade"], b["points"]) for b in GRADE_BANDS if score >= b["minScore"]), (None, 0))


def add_results(fx, shared, ctx, regs, hidden_entries):
    """Scores, competition-ranked positions (top three), grades and points from the criteria."""
    rng = fx.rng
    for row, pspec in ctx.sfps:
        status = row["status"]
        entrants = regs.get(row["id"], [])
        if status not in ("ongoing", "completed", "result_published") or not entrants:
            continue
        if status == "ongoing":
            entrants = entrants[:len(entrants) // 2]
        scores = [rng.randint(90, 98) if r["sub_fest_candidate"] in hidden_entries else rng.randint(42, 96)
                  for r in entrants]
        # A hidden entry scores high, so that a leak would show at the top, but takes no place:
        # the public would see a 2nd place with no 1st.
        placed = [r["sub_fest_candidate"] not in hidden_entries for r in entrants]
        order = sorted((i for i in range(len(scores)) if placed[i]), key=lambda i: -scores[i])
        if status == "result_published" and len(order) >= 3 and rng.random() < 0.35:
            first, second, third = order[:3]
            if rng.random() < 0.5:
                scores[second] = scores[first]  # shared first place
            else:
                scores[third] = scores[second]  # shared second place
        position_points = (shared.group_position if pspec.group else shared.position)["points"]
        published = status == "result_published"
        published_at = row["published_at"] if published else None
        rows = []
        for reg, score, takes_place in zip(entrants, scores, placed):
            rank = 1 + sum(other > score for other, counts in zip(scores, placed) if counts)
            position = rank if takes_place and rank <= 3 else None
            grade, grade_points = grade_for(score)
            pos_points = position_points.get(str(position), 0) if position else 0
            rows.append(fx.add(
                "results", registration=reg["id"], sub_fest_programme=row["id"], score=score,
                grade=grade, position=position, position_points=pos_points, grade_points=grade_points,
                points=pos_points + grade_points, is_published=published, is_public=True,
                published_at=published_at))
        if published and rng.random() < 0.25:
            # Published, but withheld from the public (e.g. under appeal); it still has points.
            unplaced = [r for r in rows if r["position"] is None and r["grade_points"]]
            if unplaced:
                rng.choice(unplaced)["is_public"] = False
