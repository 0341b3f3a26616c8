"""A festival as a folder (or a .zip) of CSV files, one per section, as organisers keep it.

``festival.csv`` holds the festival (one row), ``<section>.csv`` (e.g. ``subFests.csv``,
``results.csv``) the rows of a section. Columns are the JSON format's field names; an
empty cell leaves the field out. Cells are typed by the format: lists are ``;``-separated,
booleans are ``true/false/yes/no/1/0``, ``points`` and ``bands`` are JSON. UTF-8, with or
without a byte order mark.
"""
import csv
import io
import json
import re
import zipfile
import zlib
from pathlib import Path

from seed.pipeline.read.fixture_format import FORMAT_VERSION, SECTIONS, json_schema
from seed.pipeline.read.limits import check_archive, check_size, count_rows, text_stream
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.read.sources import Source

FESTIVAL_FILE = "festival"
# A cell a spreadsheet would run as a formula starts with one of these (the OWASP rule for
# CSV injection). ``export`` writes such a cell with a leading apostrophe, which makes it
# text in every spreadsheet, and reading a CSV file takes that apostrophe off again; a cell
# that itself starts with an apostrophe before one of them (or before another apostrophe)
# gets one more, so reading gives back exactly what was written.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def as_text(cell):
    """``cell`` (CSV text) as a spreadsheet will show it and never run it: with a leading
    apostrophe when it starts like a formula (a plain number such as ``-5`` is left alone)."""
    if cell[:1] in FORMULA_STARTS and not _PLAIN_NUMBER.match(cell):
        return TEXT_MARK + cell
    if cell[:1] == TEXT_MARK and cell[1:2] in (*FORMULA_STARTS, TEXT_MARK):
        return TEXT_MARK + cell
    return cell


def from_text(cell):
    """The cell :func:`as_text` was given: its leading apostrophe taken off."""
    if cell[:1] == TEXT_MARK and cell[1:2] in (*FORMULA_STARTS, TEXT_MARK):
        return cell[1:]
    return cell
_BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _properties():
    props = json_schema()["properties"]
    out = {FESTIVAL_FILE: props["festival"]["properties"]}
    for section in SECTIONS:
        out[section.key] = props[section.key]["items"]["properties"]
    return out


SECTION_PROPERTIES = _properties()
_FILE_KEYS = {key.lower(): key for key in SECTION_PROPERTIES}
SECTION_NAMES = list(SECTION_PROPERTIES)


def _types(schema):
    kinds = schema.get("type", "string")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return [k for k in kinds if k != "null"]


def _scalar(schema, text):
    """``text`` as the JSON value ``schema`` wants; ValueError names what was expected."""
    kinds = _types(schema)
    if "boolean" in kinds:
        value = _BOOLEANS.get(text.strip().lower())
        if value is None:
            raise ValueError(f"{text!r} is not a boolean (true/false/yes/no/1/0)")
        return value
    if "integer" in kinds:
        try:
            return int(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
    if "number" in kinds:
        try:
            number = float(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        return int(number) if number.is_integer() else number
    if "object" in kinds or "array" in kinds:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{text!r} is not JSON: {exc}") from None
    return text


def _names(text):
    """A list of names written ``a, b`` or ``a; b`` (or as JSON)."""
    if text.strip().startswith("["):
        return _scalar({"type": "array"}, text)
    return [part.strip() for part in re.split(r"[,;]", text) if part.strip()]


_REQUIREMENT = re.compile(r"^\s*(?P<key>[^:;]+?)\s*:\s*(?P<best>\d+)\s*$")


def _requirements(text):
    """``eligible_if`` written ``KEY:N; KEY:N`` (or as JSON)."""
    if text.strip().startswith("["):
        return _scalar({"type": "array"}, text)
    out = []
    for part in (p for p in text.split(";") if p.strip()):
        match = _REQUIREMENT.match(part)
        if not match:
            raise ValueError(f"{part.strip()!r} is not COLLECTION:POSITION (e.g. solo-dance:1)")
        out.append({"collection": match["key"], "best_position": int(match["best"])})
    return out


# Cells with a text form of their own (a board's rule: docs/fixture-format.md).
TEXT_FORMS = {("topperPlaceholders", "counts"): _names, ("topperPlaceholders", "tie_break"): _names,
              ("topperPlaceholders", "eligible_if"): _requirements}


def _cell(schema, text, form=None):
    if form is not None:
        return form(text)
    if schema.get("type") == "array" and "items" in schema:
        return [_scalar(schema["items"], part.strip()) for part in text.split(";") if part.strip()]
    return _scalar(schema, text)


def _csv_lines(stream, name, file_name):
    """``(header, lines)`` of one CSV file read from the text ``stream``: ``lines`` yields
    ``(line, cells)`` as the file is read (``line`` is where the row starts), at most
    ``IMPORT_MAX_ROWS`` of them."""
    reader = csv.reader(stream)
    header = next(reader, None) or []

    def lines():
        line = reader.line_num
        for cells in count_rows(reader, name, file_name):
            start, line = line + 1, reader.line_num
            yield start, [from_text(cell) for cell in cells]
    return header, lines()


def _count(stream, name, file_name):
    """Read one CSV file through, keeping nothing: :class:`TooBig` past ``IMPORT_MAX_ROWS``."""
    with stream:
        reader = csv.reader(stream)
        next(reader, None)  # the header
        for _ in count_rows(reader, name, file_name):
            pass


def read_table(name, key, header, lines, source, problems):
    """Rows of one file or sheet as JSON rows; register each row's line in ``source``.

    ``header``: the cells of its first line; ``lines``: ``[(line number, cells)]``, cells
    as text (an empty cell is ``""``).
    """
    props = SECTION_PROPERTIES[key]
    header = [column.strip() for column in header]
    source.rows[f"$.{key}"] = (name, 1)
    source.headers[key] = header
    for column in header:
        if column and column not in props:
            problems.append((f"$.{key}", f"unknown column {column!r}"))
    rows = []
    for start, cells in lines:
        if not any(cell.strip() for cell in cells):
            continue
        path = "$.festival" if key == FESTIVAL_FILE else f"$.{key}[{len(rows)}]"
        source.rows[path] = (name, start)
        row = {}
        for column, cell in zip(header, cells):
            if not column or column not in props or cell.strip() == "":
                continue
            source.cells[f"{path}.{column}"] = cell
            try:
                row[column] = _cell(props[column], cell, TEXT_FORMS.get((key, column)))
            except ValueError as exc:
                problems.append((f"{path}.{column}", str(exc)))
        if len(cells) > len(header):
            problems.append((path, f"{len(cells)} cells but the header names {len(header)} columns"))
        rows.append(row)
    return rows


def section_key(name):
    """The section a file or sheet named ``name`` (``results.csv``, ``Results``) holds, or None."""
    return _FILE_KEYS.get(name.lower())


def add_table(source, name, key, rows, problems):
    """Put one file's or sheet's ``rows`` into ``source.data``."""
    if key == FESTIVAL_FILE:
        if len(rows) != 1:
            problems.append(("$.festival", f"{name} must have exactly one row, has {len(rows)}"))
        source.data["festival"] = rows[0] if rows else {}
    else:
        source.data[key] = rows


def finish(source, problems, missing):
    """``source`` with its reading ``problems``; FixtureError when there is no festival row."""
    if "festival" not in source.data:
        problems.append(("$", f"{missing} is missing: it names the festival (slug, name, ...)"))
    if not source.data.get("festival"):
        raise FixtureError(problems, source)
    source.problems = problems
    return source


def read_files(name, files):
    """``files``: ``[(file name, bytes or a function that opens it as a binary stream)]``.
    Return a :class:`Source` whose ``problems`` are the cells that do not parse; raise
    FixtureError when there is no festival row to go on with (:class:`TooBig` past a cap of
    ``seed.pipeline.read.limits``). Each file is read as a stream, row by row."""
    source = Source(name, {"formatVersion": FORMAT_VERSION})
    problems = []
    for file_name, content in sorted(files, key=lambda item: item[0]):
        key = section_key(Path(file_name).stem)
        if key is None:
            known = ", ".join(f"{k}.csv" for k in SECTION_PROPERTIES)
            problems.append(("$", f"{file_name}: not a section of the format (one of {known})"))
            continue
        def opened(content=content, file_name=file_name):
            return text_stream(io.BytesIO(content) if isinstance(content, (bytes, bytearray)) else content(),
                               name, file_name)
        stream = None
        try:
            _count(opened(), name, file_name)  # a file past IMPORT_MAX_ROWS is refused before a row is kept
            stream = opened()
            header, lines = _csv_lines(stream, name, file_name)
            rows = read_table(Path(file_name).name, key, header, lines, source, problems)
        except UnicodeDecodeError as exc:
            problems.append(("$", f"{file_name} is not UTF-8 text ({exc}); save it as CSV UTF-8"))
            continue
        except csv.Error as exc:
            problems.append(("$", f"{file_name} is not a CSV file a spreadsheet saves ({exc})"))
            continue
        finally:
            if stream is not None:
                stream.close()
        add_table(source, file_name, key, rows, problems)
    return finish(source, problems, "festival.csv")


# What a spreadsheet leaves beside a file while it has it open or saves it (``~$results.csv``).
_TEMPORARY = ("~", ".")


def folder_files(path):
    """``[(file name, bytes)]`` of the CSV files of a folder, leaving out temporary files."""
    return [(p.name, p.read_bytes()) for p in sorted(Path(path).glob("*.csv")) if not p.name.startswith(_TEMPORARY)]


def read_folder(path):
    """A folder of CSV files, each read from the disk as a stream."""
    files = []
    for p in sorted(Path(path).glob("*.csv")):
        if not p.name.startswith(_TEMPORARY):
            check_size(str(path), p.stat().st_size, p.name)
            files.append((p.name, lambda p=p: open(p, "rb")))
    return read_files(str(path), files)


def read_zip(path, name=None):
    """A .zip of CSV files: a path, or a file object with ``name``. Its list of entries is
    checked against the caps before any is unpacked, and each is read as a bounded stream."""
    name = name or str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            check_archive(name, archive)
            files = [(info.filename, lambda info=info: archive.open(info)) for info in archive.infolist()
                     if info.filename.lower().endswith(".csv") and not info.is_dir()
                     and not Path(info.filename).name.startswith(".") and "__MACOSX" not in info.filename]
            return read_files(name, files)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error) as exc:
        raise FixtureError([("$", f"not a .zip of CSV files that can be read ({type(exc).__name__}: {exc})")],
                           Source(name, {})) from None
