"""Import problems: each names where it is (a JSON path) and what is wrong."""
import re

from seed.pipeline.read.caps import cap

# A row's JSON path inside a message, e.g. "(also $.results[7])".
_PATH_IN_MESSAGE = re.compile(r"\$\.\w+(?:\[\d+\])?(?:\.\w+)?")
_ROW = re.compile(r"^\$\.(?P<section>\w+)(?:\[(?P<index>\d+)\])?")
# Columns holding a person's private data: a problem never quotes their value (the problems
# of ``follow`` go to the journal, an import's to the office's terminal or its CI log).
PRIVATE_COLUMNS = frozenset({"email", "phone", "date_of_birth", "admission_number", "admission_details",
                             "candidate_admission_number"})
PRIVATE_VALUE = "(a private value)"
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
# What a problem may say about a value beyond quoting it: the value read back in other words
# (``; if that is 14 November 2013, write 2013-11-14``), or unquoted in front (a number,
# ``12345 is not of type 'string'``).
_READ_BACK = re.compile(r";\s*if that is [^;]*")
_LEADING_VALUE = re.compile(r"^(?!\(a private value\))(?![a-z_]+ is )[^'\"]+?(?= is )")


def most_problems():
    """How many problems one refusal lists: ``IMPORT_MAX_PROBLEMS``."""
    return cap("IMPORT_MAX_PROBLEMS")


def path_order(path, sections=()):
    """A sort key putting JSON paths in the order of the file: the festival, then each
    section (in ``sections`` order) row by row."""
    match = _ROW.match(path)
    if not match:
        return ("", -2, 0)
    section = match["section"]
    rank = -1 if section == "festival" else (sections.index(section) if section in sections else len(sections))
    return ("", rank, int(match["index"] or -1))


def without_private_values(path, message):
    """``message`` with no trace of the value when ``path`` is a private column's: quoted
    values masked, a reading of it back dropped, an unquoted value in front masked. Such a
    problem names the row and the column only."""
    if path.rsplit(".", 1)[-1] not in PRIVATE_COLUMNS:
        return message
    message = _READ_BACK.sub("", _QUOTED.sub(PRIVATE_VALUE, message))
    return _LEADING_VALUE.sub(PRIVATE_VALUE, message, count=1)


class FixtureError(Exception):
    """The input is invalid; ``problems`` is a list of ``(json_path, message)``.

    ``source`` (when known) turns a JSON path into the file, line and column of a CSV
    cell; ``total`` counts every problem found, of which at most ``IMPORT_MAX_PROBLEMS`` are listed.
    """

    def __init__(self, problems, source=None):
        self.all = list(problems)
        self.total = len(self.all)
        self.source = source
        super().__init__(self.total)

    @property
    def problems(self):
        """The first ``IMPORT_MAX_PROBLEMS`` problems, in the order of the file's rows."""
        from seed.pipeline.read.fixture_format import SECTIONS

        keys = [s.key for s in SECTIONS]
        order = self.source.order if self.source is not None else (lambda path: path_order(path, keys))
        return sorted(self.all, key=lambda problem: order(problem[0]))[:most_problems()]

    def __str__(self):
        return "\n".join(self.lines())

    def located(self):
        """``[(location, message)]``: the file, the row and the column of each problem."""
        problems = [(path, without_private_values(path, message)) for path, message in self.problems]
        if self.source is None:
            return problems
        out = []
        for path, message in problems:
            message = _PATH_IN_MESSAGE.sub(lambda match, here=path: self.source.refer(match[0], here), message)
            out.append((self.source.locate(path, message), message))
        return out

    def lines(self):
        lines = [f"{where}: {message}" for where, message in self.located()]
        most = most_problems()
        if self.total > most:
            lines.append(f"… and {self.total - most} more problem(s) (IMPORT_MAX_PROBLEMS lists {most})")
        return lines
