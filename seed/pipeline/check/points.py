"""Results follow the rules: points from the programme's criteria, grades the score reaches.

For each result row of the input: a result's programme is its registration's; a grade is
one of the programme's grade bands and its score reaches the band; ``position_points``,
``grade_points`` and ``points`` left out are worked out from the criteria (and a grade
left out from the score), and given ones
must agree with them unless the row sets ``points_override``. A programme without
criteria takes the points as given. A band without ``minScore`` is given by hand: its
results carry the grade, with or without a score.
"""
POINT_FIELDS = ("position_points", "grade_points", "points")


def _band_for_score(bands, score):
    """The highest band whose ``minScore`` the score reaches; bands without one are given by
    hand and never worked out from a score."""
    for band in sorted((b for b in bands if "minScore" in b), key=lambda b: -b["minScore"]):
        if score >= band["minScore"]:
            return band
    return None


def _same(a, b):
    return abs(float(a or 0) - float(b or 0)) < 1e-9


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _points_problem(points):
    if not isinstance(points, dict) or not all(_number(v) for v in points.values()):
        return 'points must map each position to its points, e.g. {"1": 5, "2": 3, "3": 1}'
    return None


def _bands_problem(bands):
    if not isinstance(bands, list) or not all(
            isinstance(b, dict) and isinstance(b.get("grade"), str) and _number(b.get("minScore", 0))
            and _number(b.get("points", 0)) for b in bands):
        return ('bands must be a list of grades, e.g. [{"grade": "A", "minScore": 80, "points": 5}, '
                '{"grade": "B", "minScore": 60, "points": 3}]')
    return None


class ResultRules:
    def __init__(self, state, problems):
        self.state = state
        self.problems = problems
        rows = state.rows
        self.programmes = rows["subFestProgrammes"]
        self.registrations = rows["registrations"]
        self.position_criteria = self._valid(rows["positionCriteria"], "positionCriteria", "points", _points_problem)
        self.grade_criteria = self._valid(rows["gradeCriteria"], "gradeCriteria", "bands", _bands_problem)

    def _valid(self, criteria, section_key, name, problem_of):
        """The criteria whose ``name`` has the shape the rules need; the others are problems."""
        valid = {}
        for criteria_id, row in criteria.items():
            problem = problem_of(row.get(name) or ({} if name == "points" else []))
            if problem is None:
                valid[criteria_id] = row
            elif criteria_id in self.state.paths:
                self.problems.append((f"{self.state.paths[criteria_id]}.{name}", problem))
        return valid

    def apply(self):
        """Check and complete every result the input gave."""
        for result_id, result in self.state.rows["results"].items():
            if result_id in self.state.given:
                self._result(result, self.state.given[result_id], self.state.paths[result_id])

    def _result(self, result, given, path):
        registration = self.registrations.get(result.get("registration"))
        if registration is not None and registration.get("sub_fest_programme") != result.get("sub_fest_programme"):
            self.problems.append((f"{path}.sub_fest_programme",
                                  f"{result.get('sub_fest_programme')} is not the programme of the result's "
                                  f"registration ({registration.get('sub_fest_programme')})"))
            return
        programme = self.programmes.get(result.get("sub_fest_programme"))
        if programme is None:
            return  # the reference check reports it
        if any(programme.get(name) is not None and programme[name] not in criteria
               for name, criteria in (("position_criteria", self.position_criteria),
                                      ("grade_criteria", self.grade_criteria))):
            return  # criteria that are not valid: reported once, with the criteria
        position = self.position_criteria.get(programme.get("position_criteria"))
        grades = self.grade_criteria.get(programme.get("grade_criteria"))
        expected = {}
        if position is not None:
            places = position.get("points") or {}
            expected["position_points"] = places.get(str(result.get("position")), 0) if result.get("position") else 0
        if grades is not None:
            band = self._grade(result, given, grades, path)
            if band is False:
                return
            expected["grade_points"] = band.get("points", 0) if band else 0
        if not expected:
            return
        override = result.get("points_override")
        for name in ("position_points", "grade_points"):
            self._settle(result, given, name, expected.get(name), override, path)
        self._settle(result, given, "points",
                     (result.get("position_points") or 0) + (result.get("grade_points") or 0), override, path)

    def _grade(self, result, given, grades, path):
        """The grade band of the result (filled in from the score when not given); False if wrong."""
        bands = grades.get("bands") or []
        score = result.get("score")
        by_hand = bool(bands) and not any("minScore" in b for b in bands)
        if "grade" not in given and "score" in given and score is not None:
            if by_hand and result.get("grade") is None:
                names = ", ".join(str(b.get("grade")) for b in bands)
                self.problems.append((f"{path}.grade", f"{grades['name']!r} is graded by hand (its bands have no "
                                                       f"minScore): give the result's grade ({names})"))
                return False
            if not by_hand:
                band = _band_for_score(bands, score)
                result["grade"] = band["grade"] if band else None
                return band
        grade = result.get("grade")
        if grade is None:
            return None
        band = next((b for b in bands if b.get("grade") == grade), None)
        if band is None:
            names = ", ".join(str(b.get("grade")) for b in bands)
            self.problems.append((f"{path}.grade", f"{grade!r} is not a grade of {grades['name']!r} ({names})"))
            return False
        if score is not None and "minScore" in band and score < band["minScore"]:
            self.problems.append((f"{path}.grade", f"grade {grade!r} needs a score of at least "
                                                   f"{band.get('minScore')}; the score is {score}"))
            return False
        return band

    def _settle(self, result, given, name, expected, override, path):
        if expected is None:
            return
        if name not in given:
            result[name] = expected
        elif not _same(result.get(name), expected) and not override:
            self.problems.append((f"{path}.{name}",
                                  f"{result.get(name)} does not follow the programme's criteria "
                                  f"(expected {expected}); set points_override to keep it"))


def check_results(state, problems):
    ResultRules(state, problems).apply()
