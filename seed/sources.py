"""Where an import comes from: a JSON file, a folder of CSV files or a .zip of them.

Every source becomes the same festival document; ``Source.locate`` turns a problem's
JSON path back into the file, the line and the column an organiser can find.
"""
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .problems import FixtureError

_ROW_PATH = re.compile(r"^\$\.(?P<section>\w+)(?:\[(?P<index>\d+)\])?(?:\.(?P<column>\w+))?")


@dataclass
class Source:
    name: str
    data: dict
    # "$.section[i]" (or "$.section" for its header) -> (file name, line number)
    rows: dict = field(default_factory=dict)

    def locate(self, path):
        """``file line N, column C`` for a CSV cell; ``file $.json.path`` for JSON."""
        if not self.rows:
            return f"{self.name} {path}"
        match = _ROW_PATH.match(path)
        if not match:
            return f"{self.name} {path}"
        section, index, column = match["section"], match["index"], match["column"]
        key = f"$.{section}" if index is None else f"$.{section}[{index}]"
        if section == "festival":
            key, column = "$.festival", column
        if key not in self.rows:
            return f"{self.name} {path}"
        file_name, line = self.rows[key]
        where = f"{file_name} line {line}"
        return f"{where}, column {column}" if column else where


def load_json(path):
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FixtureError([("$", f"not valid JSON: {exc}")], Source(str(path), {})) from exc
    return Source(str(path), data)


def load_source(path):
    """The festival document at ``path``: a ``.json`` file, a folder or a ``.zip`` of CSV files."""
    from .csv_folder import read_folder, read_zip

    path = Path(path)
    if path.is_dir():
        return read_folder(path)
    if zipfile.is_zipfile(path):
        return read_zip(path)
    return load_json(path)
