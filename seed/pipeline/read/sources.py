"""Where an import comes from: a JSON file, a folder of CSV files, a .zip of them or a workbook.

Every source becomes the same festival document (``seed/pipeline/write/importer.py``'s
``load_source`` picks the reader: ``seed/pipeline/read/csv_folder.py``,
``seed/pipeline/read/workbook.py`` or ``load_json`` here); ``Source.locate`` turns a problem's
JSON path back into the file, the line and the column an organiser can find.
"""
import json
import re
from dataclasses import dataclass, field

from seed.pipeline.read.fixture_format import INLINE_ALIASES, SECTION_BY_KEY, SECTIONS, references
from seed.pipeline.read.problems import PRIVATE_COLUMNS, FixtureError, path_order

_ROW_PATH = re.compile(r"^\$\.(?P<section>\w+)(?:\[(?P<index>\d+)\])?(?:\.(?P<column>\w+))?")
_SECTION_KEYS = [s.key for s in SECTIONS]


def _aliases(section_key):
    """``{field: the column that names it}``, e.g. ``registration`` -> ``chest_no``."""
    section = SECTION_BY_KEY.get(section_key)
    if section is None:
        return {}
    out = {f.name: alias for f, alias in references(section.model, section)}
    out.update({name: INLINE_ALIASES[name] for name in section.inline if name in INLINE_ALIASES})
    return out


@dataclass
class Source:
    name: str
    data: dict
    # "$.section[i]" (or "$.section" for its header) -> (file name, line number)
    rows: dict = field(default_factory=dict)
    # section key -> the columns its file's header names
    headers: dict = field(default_factory=dict)
    # problems found while reading (cells that do not parse), before any other check
    problems: list = field(default_factory=list)
    # "$.section[i].column" -> the cell's text as read (a workbook's problems quote it)
    cells: dict = field(default_factory=dict)
    # a workbook: rows are "sheet NAME row N", columns a letter and the header
    workbook: bool = False

    def _row(self, path):
        """``(section, row key, column)`` of a JSON path, or None."""
        match = _ROW_PATH.match(path)
        if not match:
            return None
        section, index, column = match["section"], match["index"], match["column"]
        key = f"$.{section}" if index is None or section == "festival" else f"$.{section}[{index}]"
        return section, key, column

    def _column(self, section, column):
        """The column of the file that holds ``column``: itself, the alias that names it, or None."""
        header = self.headers.get(section)
        if column is None or header is None or column in header:
            return column
        alias = _aliases(section).get(column)
        return alias if alias in header else None

    def _line(self, key):
        """``results.csv line 4`` (a CSV file) or ``sheet results row 4`` (a workbook's sheet)."""
        file_name, line = self.rows[key]
        return f"sheet {file_name} row {line}" if self.workbook else f"{file_name} line {line}"

    def locate(self, path, message=""):
        """``file line N, column C`` for a CSV cell; ``sheet S row N, column L (C), value 'v'``
        for a workbook's (the value unless ``message`` quotes it); ``file $.json.path`` for JSON."""
        found = self._row(path) if self.rows else None
        if found is None or found[1] not in self.rows:
            return self.name if path == "$" else f"{self.name} {path}"
        section, key, column = found
        where = self._line(key)
        column = self._column(section, column)
        if not column:
            return where
        if not self.workbook:
            return f"{where}, column {column}"
        from openpyxl.utils import get_column_letter

        where = f"{where}, column {get_column_letter(self.headers[section].index(column) + 1)} ({column})"
        value = self.cells.get(f"{key}.{column}")
        if value is None or repr(value) in message or column in PRIVATE_COLUMNS:
            return where
        return f"{where}, value {value!r}"

    def refer(self, path, here):
        """How a problem at ``here`` names the row at ``path``: ``line N`` in the same file."""
        found, at = (self._row(path), self._row(here)) if self.rows else (None, None)
        if found is None or found[1] not in self.rows:
            return path
        file_name, line = self.rows[found[1]]
        if at is not None and at[1] in self.rows and self.rows[at[1]][0] == file_name:
            return f"row {line}" if self.workbook else f"line {line}"
        return self._line(found[1])

    def order(self, path):
        """A sort key putting problems in the order of the files and their rows."""
        found = self._row(path)
        if found is not None and self.rows:
            if found[1] in self.rows:
                file_name, line = self.rows[found[1]]
                return (file_name, line, 0)
            return ("", -1, 0)
        return path_order(path, _SECTION_KEYS)


def load_json(path):
    """A JSON file (``load_source`` checked its size first)."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FixtureError([("$", f"not valid JSON: {exc}")], Source(str(path), {})) from exc
    return Source(str(path), data)
