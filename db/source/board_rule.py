"""A board's rule: what counts, who may win, how ties are broken and ranks are written.

Written per leaderboard in the festival's file (``topperPlaceholders``: ``counts``,
``best_per_programme``, ``points_from``, ``eligible_if``, ``tie_break``, ``rank_style``;
``docs/rankings.md``, "A board's rule"). Every field left out takes today's rule, so a
board without one ranks exactly as before. :func:`rule_of` fills the defaults in;
:mod:`db.compiler.leaderboards` and :mod:`db.compiler.topper_history` apply the rule.
"""
from dataclasses import dataclass

from schemas.enums import TOPPER_COUNTS, TOPPER_POINTS_FROM, TOPPER_RANK_STYLES

# What a result is: an individual registration, a group registration (with members), or a
# team's own entry (a team, no candidate, no members).
KINDS = TOPPER_COUNTS
DEFAULT_COUNTS = {
    "candidate": ("individual",), "person": ("individual",), "group": ("group",),
    "section": ("individual", "group"), "team": ("individual", "group", "team_entry"),
}
# The kinds of result a board of each entity may count (an import names any other a problem):
# a candidate's or a person's points are their individual results' (a group's points go to
# the group, its teams and sections, never to each member); a group is a group entry.
APPLICABLE = {
    "candidate": ("individual",), "person": ("individual",), "group": ("group",),
    "section": ("individual", "group", "team_entry"), "team": ("individual", "group", "team_entry"),
}
POINTS_FROM = TOPPER_POINTS_FROM
RANK_STYLES = TOPPER_RANK_STYLES
# Tie-break metrics besides ``grade:X``; all "higher is better" except ``fewest_entries``.
METRICS = ("firsts", "seconds", "thirds", "best_result", "position_points", "grade_points", "fewest_entries")
GRADE_METRIC = "grade:"


def is_metric(name):
    """True for a metric name a ``tie_break`` list may hold (``grade:A`` for any grade)."""
    if not isinstance(name, str):
        return False
    if name.startswith(GRADE_METRIC):
        return bool(name[len(GRADE_METRIC):].strip())
    return name in METRICS


@dataclass(frozen=True)
class Rule:
    counts: tuple
    best_per_programme: bool = False
    points_from: str = "points"
    eligible_if: tuple = ()  # ((collection key, best position), ...)
    tie_break: tuple = ()
    rank_style: str = "standard"

    def as_json(self):
        """The rule as the API shows it (``placeholder.rule``)."""
        return {"counts": list(self.counts), "best_per_programme": self.best_per_programme,
                "points_from": self.points_from,
                "eligible_if": [{"collection": key, "best_position": best} for key, best in self.eligible_if],
                "tie_break": list(self.tie_break), "rank_style": self.rank_style}

    @property
    def plain(self):
        """True when the board adds results up as they come (no best-of, no eligibility)."""
        return not self.best_per_programme and not self.eligible_if

    def value(self, result):
        """The points ``result`` gives the board (``points_from``)."""
        if self.points_from == "position":
            return result.position_points
        if self.points_from == "grade":
            return result.grade_points
        return result.points


def rule_of(placeholder):
    """The effective rule of a placeholder (a model row or anything with its fields)."""
    entity = getattr(placeholder, "entity_type", None) or "candidate"
    counts = getattr(placeholder, "counts", None)
    counts = tuple(k for k in KINDS if k in counts) if counts else DEFAULT_COUNTS.get(entity, ("individual",))
    eligible = tuple((str(r["collection"]), int(r["best_position"]))
                     for r in (getattr(placeholder, "eligible_if", None) or ()))
    return Rule(counts=counts, best_per_programme=bool(getattr(placeholder, "best_per_programme", False)),
                points_from=getattr(placeholder, "points_from", None) or "points", eligible_if=eligible,
                tie_break=tuple(getattr(placeholder, "tie_break", None) or ()),
                rank_style=getattr(placeholder, "rank_style", None) or "standard")


def metric_value(name, results, rule):
    """The value of metric ``name`` over an entity's counted ``results`` (as shown)."""
    if name == "firsts":
        return sum(1 for r in results if r.position == 1)
    if name == "seconds":
        return sum(1 for r in results if r.position == 2)
    if name == "thirds":
        return sum(1 for r in results if r.position == 3)
    if name == "best_result":
        return round(max((rule.value(r) for r in results), default=0), 6)
    if name == "position_points":
        return round(sum(r.position_points for r in results), 6)
    if name == "grade_points":
        return round(sum(r.grade_points for r in results), 6)
    if name == "fewest_entries":
        return len(results)
    grade = name[len(GRADE_METRIC):].strip().casefold()
    return sum(1 for r in results if r.grade and r.grade.strip().casefold() == grade)


def metric_key(name, value):
    """``value`` as a sort key: smaller sorts first (better)."""
    return value if name == "fewest_entries" else -value
