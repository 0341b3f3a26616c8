"""Import problems: each names where it is (a JSON path) and what is wrong."""

MAX_PROBLEMS = 50


class FixtureError(Exception):
    """The input is invalid; ``problems`` is a list of ``(json_path, message)``.

    ``source`` (when known) turns a JSON path into the file, line and column of a CSV
    cell; ``total`` counts every problem found, of which at most ``MAX_PROBLEMS`` are kept.
    """

    def __init__(self, problems, source=None):
        self.total = len(problems)
        self.problems = list(problems[:MAX_PROBLEMS])
        self.source = source
        super().__init__(self.total)

    def __str__(self):
        return "\n".join(self.lines())

    def located(self):
        """``[(location, message)]``: the file, the row and the column of each problem."""
        if self.source is None:
            return list(self.problems)
        return [(self.source.locate(path), message) for path, message in self.problems]

    def lines(self):
        lines = [f"{where}: {message}" for where, message in self.located()]
        if self.total > len(self.problems):
            lines.append(f"… and {self.total - len(self.problems)} more problem(s)")
        return lines
