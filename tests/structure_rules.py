"""The festival-structure rules restated over the fixture JSON, to compute what
/programmes, /candidates, /teams, /categories and /filters must return.

Written independently of ``db/``: tests compare the API's answers with these.
"""
from collections import Counter, defaultdict
from functools import cached_property

import pytest

from conftest import BIG, SMALL
from fixture_rules import flag, parse_time, visible_programme_ids, visible_sub_fests


def active_public(row):
    return flag(row, "is_active") and flag(row, "is_public")


def window_open(opens_at, closes_at, now):
    """Open when opens <= now <= closes; a missing bound is unbounded; no bounds is closed."""
    opens, closes = parse_time(opens_at), parse_time(closes_at)
    if opens is None and closes is None:
        return False
    return (opens is None or opens <= now) and (closes is None or now <= closes)


def is_team_entry(registration):
    """A registration with a team and neither a candidate nor members."""
    return bool(registration.get("team") and not registration.get("sub_fest_candidate")
                and not registration.get("members"))


class Festival:
    """One fixture festival with the visibility rules applied."""

    def __init__(self, data):
        self.data = data

    def rows(self, section):
        return self.data.get(section, [])

    def by_id(self, section):
        return {row["id"]: row for row in self.rows(section)}

    # --- visibility ------------------------------------------------------------------------

    @cached_property
    def sub_fest_ids(self):
        return {s["id"] for s in visible_sub_fests(self.data)}

    @cached_property
    def sub_fests(self):
        return [s for s in self.rows("subFests") if s["id"] in self.sub_fest_ids]

    @cached_property
    def programme_ids(self):
        return visible_programme_ids(self.data)

    def programmes(self, sub_fest_id):
        return [p for p in self.rows("subFestProgrammes")
                if p["id"] in self.programme_ids and p["sub_fest"] == sub_fest_id]

    @cached_property
    def candidate_ids(self):
        people = {c["id"] for c in self.rows("candidates") if active_public(c)}
        return {c["id"] for c in self.rows("subFestCandidates")
                if active_public(c) and c["candidate"] in people and c["sub_fest"] in self.sub_fest_ids}

    def candidates(self, sub_fest_id):
        return [c for c in self.rows("subFestCandidates")
                if c["id"] in self.candidate_ids and c["sub_fest"] == sub_fest_id]

    def hidden_candidates(self, sub_fest_id):
        return [c for c in self.rows("subFestCandidates")
                if c["id"] not in self.candidate_ids and c["sub_fest"] == sub_fest_id]

    def visible(self, section, row_id):
        row = self.by_id(section).get(row_id)
        if row is None:
            return False
        if section in ("venues", "programmeCollections"):
            return flag(row, "is_public")
        if section == "judges":
            return flag(row, "is_active")
        return active_public(row)

    def person(self, sub_fest_candidate):
        return self.by_id("candidates")[sub_fest_candidate["candidate"]]

    # --- entries and results -------------------------------------------------------------------

    def participants(self, registration):
        """Individual entries: their candidate; group entries: their members; a team's own
        entry: no one."""
        if registration["type"] == "group":
            return list(registration.get("members", []))
        return [registration["sub_fest_candidate"]] if registration.get("sub_fest_candidate") else []

    @cached_property
    def public_team_ids(self):
        return {t["id"] for t in self.rows("teams") if active_public(t) and t["sub_fest"] in self.sub_fest_ids}

    def entry_visible(self, registration):
        """Active, with a visible candidate or member; a team's own entry (a team, no
        candidate, no members) with a public team."""
        if not flag(registration, "is_active"):
            return False
        if is_team_entry(registration):
            return registration["team"] in self.public_team_ids
        return any(p in self.candidate_ids for p in self.participants(registration))

    @cached_property
    def visible_entries(self):
        return [r for r in self.rows("registrations")
                if self.entry_visible(r) and r["sub_fest_programme"] in self.programme_ids]

    @cached_property
    def counted_results(self):
        """Published public results of visible entries in visible programmes."""
        entries = {r["id"]: r for r in self.visible_entries}
        return [(x, entries[x["registration"]]) for x in self.rows("results")
                if flag(x, "is_published", False) and flag(x, "is_public")
                and x["registration"] in entries and x["sub_fest_programme"] in self.programme_ids]

    @cached_property
    def result_count(self):
        return Counter(x["sub_fest_programme"] for x, _ in self.counted_results)

    @cached_property
    def registration_count(self):
        return Counter(r["sub_fest_programme"] for r in self.visible_entries)

    @cached_property
    def candidate_registration_count(self):
        counts = Counter()
        for registration in self.visible_entries:
            counts.update(set(self.participants(registration)))
        return counts

    @cached_property
    def points(self):
        """Sub-fest candidate id -> the expected pointsSummary."""
        summaries = defaultdict(lambda: {"totalPoints": 0.0, "individualPoints": 0.0, "groupPoints": 0.0,
                                         "resultCount": 0, "byPosition": Counter(), "byGrade": Counter()})
        for result, registration in self.counted_results:
            kind = "groupPoints" if registration["type"] == "group" else "individualPoints"
            for participant in set(self.participants(registration)):
                summary = summaries[participant]
                summary["totalPoints"] += result.get("points", 0)
                summary[kind] += result.get("points", 0)
                summary["resultCount"] += 1
                if result.get("position") is not None:
                    summary["byPosition"][str(result["position"])] += 1
                if result.get("grade"):
                    summary["byGrade"][result["grade"]] += 1
        return summaries

    def points_summary(self, sub_fest_candidate_id):
        summary = dict(self.points[sub_fest_candidate_id])
        summary["byPosition"] = dict(summary["byPosition"])
        summary["byGrade"] = dict(summary["byGrade"])
        return summary

    # --- schedules and windows -------------------------------------------------------------------

    def schedules(self, programme_id):
        rows = [s for s in self.rows("schedules") if s["sub_fest_programme"] == programme_id]
        return sorted(rows, key=lambda s: (parse_time(s["scheduled_at"]), s["id"]))

    def next_schedule(self, programme_id, now):
        upcoming = [s for s in self.schedules(programme_id) if parse_time(s["scheduled_at"]) >= now]
        return upcoming[0] if upcoming else None

    # --- teams and categories -------------------------------------------------------------------

    def teams(self, sub_fest_id):
        return [t for t in self.rows("teams") if active_public(t) and t["sub_fest"] == sub_fest_id]

    def team_candidate_count(self, team_id):
        """Visible candidates of the team and of every visible team below it."""
        teams = self.by_id("teams")
        members = {team_id}
        changed = True
        while changed:
            changed = False
            for team in teams.values():
                if team["id"] not in members and team.get("parent") in members and active_public(team):
                    members.add(team["id"])
                    changed = True
        return sum(1 for c in self.rows("subFestCandidates")
                   if c["id"] in self.candidate_ids and c.get("team") in members)

    def categories(self, sub_fest_id):
        return [c for c in self.rows("categories") if active_public(c) and c["sub_fest"] == sub_fest_id]

    def category_counts(self, category_id):
        candidates = sum(1 for c in self.rows("subFestCandidates")
                         if c["id"] in self.candidate_ids and c.get("category") == category_id)
        programmes = sum(1 for p in self.rows("subFestProgrammes")
                         if p["id"] in self.programme_ids and p.get("category") == category_id)
        return candidates, programmes

    @cached_property
    def main_sub_fest(self):
        """The visible sub-fest with the most visible programmes: the one most tests use."""
        return max(self.sub_fests, key=lambda s: (len(self.programmes(s["id"])), s["id"]))


def ids(items):
    return sorted(item["id"] for item in items)


def text_order_key(value):
    """The documented text order: A-Z folded to a-z, then the exact text (code points)."""
    return (value.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")), value)


def expected_order(rows, value_of, desc=False):
    """Ids of ``rows`` in sort order: by ``value_of(row)`` (text in the documented text
    order), NULLs last in both directions, then by id in the same direction."""
    def key(row):
        value = value_of(row)
        return text_order_key(value) if isinstance(value, str) else value

    present = [r for r in rows if value_of(r) is not None]
    missing = [r for r in rows if value_of(r) is None]
    ordered = sorted(present, key=lambda r: (key(r), r["id"].replace("-", "")), reverse=desc)
    return [r["id"] for r in ordered] + [r["id"] for r in sorted(
        missing, key=lambda r: r["id"].replace("-", ""), reverse=desc)]


UNKNOWN_ID = "5f0c6d1e-0000-4000-8000-000000000000"


def unseen_sub_fests(fests):
    """Ids of sub-fests the large festival's key does not see: an unknown one, another
    festival's, and the large festival's hidden ones."""
    big, small = fests[BIG], fests[SMALL]
    hidden = [s["id"] for s in big.rows("subFests") if s["id"] not in big.sub_fest_ids]
    return [UNKNOWN_ID, small.sub_fests[0]["id"], *hidden]


def one_404(api, path, parameter, values):
    """The body of the 404 that ``path`` answers for each of ``values`` of ``parameter``: one
    body, the same to the byte whatever the case."""
    bodies = set()
    for value in values:
        response = api.get(path, **{parameter: value})
        assert response.status_code == 404, value
        bodies.add(response.get_data(as_text=True))
    assert len(bodies) == 1
    return bodies.pop()


# Fixtures shared by the structure endpoints' tests (imported by them).


@pytest.fixture(scope="module")
def fests(fixture_data):
    """``{slug: Festival}`` over the bundled fixtures."""
    return {slug: Festival(data) for slug, data in fixture_data.items()}


@pytest.fixture(scope="module")
def big(fests):
    return fests[BIG]


@pytest.fixture(scope="module")
def sub_fest(big):
    """The large festival's main public sub-fest id."""
    return big.main_sub_fest["id"]
