"""Positions checked as the festival states them (``festival.position_style``) and against
the scores, and a result's ``status``.

The results of one sub-fest programme are compared with each other, published or not;
a result without a position, or whose entry did not take part (``status`` absent,
disqualified or withdrawn), is left out. Each row is blamed at most once for a
contradiction, and each programme at most once for a gap, so one mistake is one problem:

- two results at one position must have the same score (when both have one), and a
  better position must not have a lower score;
- positions start at 1; ``standard`` (1, 1, 3): after k results tied at p the next is
  p + k; ``dense`` (1, 1, 2): the next is p + 1;
- a result whose status is not ``present`` carries no position.
"""
import re

PRESENT = "present"
STYLES = {
    "standard": "standard positions (ties share 1, 1, 3)",
    "dense": "dense positions (ties share 1, 1, 2)",
}
_INDEX = re.compile(r"\[(\d+)\]")
_RESULT_ROW = re.compile(r"^\$\.results\[\d+\]")


def _score(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class PositionCheck:
    def __init__(self, state, problems):
        self.state = state
        self.problems = problems
        self.style = state.festival.get("position_style") or "standard"

    def _order(self, result_id):
        """Stored rows first (what the file is checked against), then the file's, in order."""
        path = self.state.paths.get(result_id)
        if path is None:
            return (0, 0)
        match = _INDEX.search(path)
        return (1, int(match[1]) if match else 0)

    def _name(self, result_id):
        """A result as a problem names it: its row (the file's), or what it is (a stored one)."""
        path = self.state.paths.get(result_id)
        if path is not None:
            return path
        rows = self.state.rows
        registration = rows["registrations"].get(rows["results"][result_id].get("registration"), {})
        candidate = rows["subFestCandidates"].get(registration.get("sub_fest_candidate"))
        if candidate is not None:
            return f"the stored result of chest_no {candidate.get('chest_no')!r}"
        team = rows["teams"].get(registration.get("team"))
        if team is not None:
            return f"the stored result of team {team.get('name')!r}"
        return "a stored result"

    def _programme(self, programme_id):
        programme = self.state.rows["subFestProgrammes"].get(programme_id, {})
        sub_fest = self.state.rows["subFests"].get(programme.get("sub_fest"), {})
        return f"programme {programme.get('code')!r} in sub-fest {sub_fest.get('slug')!r}"

    def run(self, only=None, restyled=False):
        """Check the results of the programmes of the rows ``only`` (ids: an update's rows;
        every programme when None); ``restyled``: the festival's style changed, so every
        programme's positions are checked against it."""
        results = self.state.rows["results"]
        programmes = None
        if only is not None and not restyled:
            programmes = {results[i].get("sub_fest_programme") for i in only if i in results}
        # A gap may only be a row the file gives that could not be read (a chest number that
        # names no entry, a position that is not a number): then it is not reported twice.
        rows = set(self.state.paths.values())
        unread = {match[0] for match in (_RESULT_ROW.match(path) for path, _ in self.problems) if match}
        self.dropped = bool(unread - rows)
        unread_cells = {path for path, _ in self.problems if path.endswith((".position", ".status"))}
        self.unread = {result.get("sub_fest_programme") for result_id, result in results.items()
                       if {f"{self.state.paths.get(result_id)}.position",
                           f"{self.state.paths.get(result_id)}.status"} & unread_cells}
        placed = {}
        for result_id, result in results.items():
            status = result.get("status") or PRESENT
            if status != PRESENT:
                given = self.state.given.get(result_id, ())
                if "status" in given and "position" not in given and only is not None:
                    result["position"] = None  # an update's row that says the entry did not take part
                if result.get("position") is not None and result_id in self.state.paths:
                    self.problems.append((
                        f"{self.state.paths[result_id]}.position",
                        f"position {result['position']} is given to a result with status {status!r}, which "
                        f"takes no place: leave position empty (or set status present)"))
                continue
            if result.get("position") is None or not isinstance(result["position"], int):
                continue
            programme_id = result.get("sub_fest_programme")
            if programmes is None or programme_id in programmes:
                placed.setdefault(programme_id, []).append(result_id)
        for programme_id, ids in placed.items():
            ids.sort(key=self._order)
            if any(i in self.state.paths for i in ids):
                if not self._contradictions(ids):  # a wrong position is one problem, not two
                    self._gaps(programme_id, ids)
            elif restyled:
                self._gaps(programme_id, ids)

    def _contradictions(self, ids):
        """Each result of the file against the results before it (stored ones first); True
        when one contradicts another. Each row is compared with the first scored result at
        its position, and with the lowest score at a better position and the highest at a
        worse one (two Fenwick trees over the positions: n log n, a programme may place
        hundreds)."""
        results = self.state.rows["results"]
        scored = [(i, results[i]["position"], _score(results[i].get("score"))) for i in ids]
        scored = [(i, p, s) for i, p, s in scored if s is not None]
        places = {p: n for n, p in enumerate(sorted({p for _, p, _ in scored}), start=1)}
        lowest_above = _Best(len(places), lambda a, b: a < b)  # by place, from the best
        highest_below = _Best(len(places), lambda a, b: a > b)  # by place, from the worst
        first_at = {}
        found = False
        for result_id, position, score in scored:
            place = places[position]
            clash = None
            first = first_at.get(position)
            if first is not None and first[2] != score:
                clash = first + ("equal positions need equal scores",)
            else:
                other = lowest_above.best(place - 1)
                if other is None or other[0] >= score:
                    other = highest_below.best(len(places) - place)
                    other = other if other is not None and other[0] > score else None
                if other is not None:
                    other_score, other_id = other
                    clash = (other_id, results[other_id]["position"], other_score,
                             "a better position needs a higher score")
            if clash is not None and result_id in self.state.paths:
                other_id, other_position, other_score, rule = clash
                self.problems.append((
                    f"{self.state.paths[result_id]}.position",
                    f"position {position} with score {score:g} contradicts {self._name(other_id)} "
                    f"(position {other_position} with score {other_score:g}): {rule}"))
                found = True
            first_at.setdefault(position, (result_id, position, score))
            lowest_above.add(place, (score, result_id))
            highest_below.add(len(places) - place + 1, (score, result_id))
        return found

    def _gaps(self, programme_id, ids):
        """The first position that the festival's style does not allow, once per programme."""
        results = self.state.rows["results"]
        if self.dropped or programme_id in self.unread:
            return
        at = {}
        for result_id in ids:
            at.setdefault(results[result_id]["position"], []).append(result_id)
        expected, previous = 1, None
        for position in sorted(at):
            if position != expected:
                blamed = next((i for i in at[position] if i in self.state.paths), at[position][0])
                where = (f"{self.state.paths[blamed]}.position" if blamed in self.state.paths
                         else "$.festival.position_style")
                if previous is None:
                    message = (f"position {position} is the best of {self._programme(programme_id)}: "
                               f"positions start at 1")
                else:
                    count = len(at[previous])
                    tied = f"{count} results at position {previous}" if count > 1 else f"position {previous}"
                    message = (f"position {position} follows {tied} in {self._programme(programme_id)}: with "
                               f"{STYLES.get(self.style, self.style)} the next is {expected}")
                    other = next(s for s in STYLES if s != self.style)
                    if self.style in STYLES and position == (previous + count if other == "standard" else previous + 1):
                        message += f"; if the festival ranks that way, set the festival's position_style to {other}"
                if blamed not in self.state.paths:
                    message += f" ({self._name(blamed)})"
                self.problems.append((where, message))
                return
            previous = position
            expected = position + (len(at[position]) if self.style == "standard" else 1)


class _Best:
    """A Fenwick tree of ``(score, id)``: the best score (``better``) among the places up to
    one, as results are added."""

    def __init__(self, size, better):
        self.tree = [None] * (size + 1)
        self.better = better

    def add(self, place, item):
        while place < len(self.tree):
            if self.tree[place] is None or self.better(item[0], self.tree[place][0]):
                self.tree[place] = item
            place += place & -place

    def best(self, place):
        found = None
        while place > 0:
            item = self.tree[place]
            if item is not None and (found is None or self.better(item[0], found[0])):
                found = item
            place -= place & -place
        return found


def check_positions(state, problems, only=None, restyled=False):
    """Add the position problems of ``state``'s results (see :meth:`PositionCheck.run`)."""
    PositionCheck(state, problems).run(only, restyled)


def said_not_present(state):
    """Ids of the file's results whose own row says the entry did not take part: like a row
    that withdraws its result, it takes that result from the public knowingly."""
    return {result_id for result_id, result in state.rows["results"].items()
            if result_id in state.paths and "status" in state.given.get(result_id, ())
            and (result.get("status") or PRESENT) != PRESENT}
