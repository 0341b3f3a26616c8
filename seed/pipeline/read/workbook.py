"""A festival as one ``.xlsx`` workbook: one sheet per section, named like the CSV files.

A sheet named ``results`` (or ``results.csv``, in any letter case) holds what
``results.csv`` would; its first row names the columns. Cells are read as the text a CSV
file would hold, then typed by the same rules (``csv_folder.read_table``): a number cell
``80`` is ``"80"``, a date cell is ``2026-11-16``, a date-and-time cell is the festival's
local time ``2026-11-17 12:00``. Sheets whose name starts with ``_`` are the office's own
(notes, totals) and are left out.

The reader is openpyxl, in read-only mode (it streams the rows) with the values last
computed for formulas; ``export`` writes workbooks with it too. Only its public API is used.
"""
import datetime
import io
import zipfile
import zlib
from pathlib import Path

from seed.pipeline.read.csv_folder import (FESTIVAL_FILE, FORMULA_STARTS, SECTION_NAMES, SECTION_PROPERTIES, add_table,
                                           finish, read_table, section_key)
from seed.pipeline.read.fixture_format import FORMAT_VERSION
from seed.pipeline.read.limits import check_archive, check_size, count_rows
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.read.sources import Source

# A sheet kept out of the import: the office's notes, totals, lookups.
OWN_SHEET_PREFIX = "_"
# What every .xlsx file (a zip) holds; a truncated file (caught mid-save) does not.
_WORKBOOK_PART = "xl/workbook.xml"


class UnreadableWorkbook(FixtureError):
    """The file is not a workbook that can be read: damaged, or caught half-saved."""

    def __init__(self, name, exc):
        self.reason = f"{type(exc).__name__}: {exc}"
        super().__init__([("$", f"{name} is not a readable .xlsx workbook ({self.reason}); "
                                "if it is being saved, wait until it is")])


def is_workbook(path_or_bytes):
    """True for an ``.xlsx`` file (by name or content), whole or not."""
    if isinstance(path_or_bytes, (bytes, bytearray)):
        return _holds_workbook(io.BytesIO(path_or_bytes))
    path = Path(path_or_bytes)
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        return True
    return path.is_file() and _holds_workbook(path)


def _holds_workbook(file):
    try:
        with zipfile.ZipFile(file) as archive:
            return _WORKBOOK_PART in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _text(value, schema):
    """The CSV text of a cell's ``value`` for a column of ``schema``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime):
        if (schema or {}).get("format") == "date":
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)


def _sheet_lines(sheet, key, name):
    """``(header, lines)`` of one sheet: ``lines`` yields ``(row number, cells as text)`` as
    openpyxl streams the rows, at most ``IMPORT_MAX_ROWS`` of them."""
    rows = sheet.iter_rows(values_only=True)
    header = [_text(value, None).strip() for value in next(rows, ())]
    while header and not header[-1]:
        header.pop()
    props = SECTION_PROPERTIES[key]

    def lines():
        for number, values in enumerate(count_rows(rows, name, f"sheet {sheet.title}"), start=2):
            cells = [_text(value, props.get(header[i]) if i < len(header) else None)
                     for i, value in enumerate(values)]
            while len(cells) > len(header) and not cells[-1].strip():
                cells.pop()  # a sheet's row runs as wide as its widest row
            yield number, cells
    return header, lines()


def _check_entries(file, name):
    """The workbook's entries (it is a zip) against the caps, before openpyxl unpacks any."""
    try:
        with zipfile.ZipFile(file) as archive:
            check_archive(name, archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnreadableWorkbook(name, exc) from None
    finally:
        if isinstance(file, io.BytesIO):
            file.seek(0)


def _open(file, name):
    from openpyxl import load_workbook

    try:
        return load_workbook(file, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged or half-saved file
        raise UnreadableWorkbook(name, exc) from None


def read_workbook(path, name=None, sheets=None):
    """The festival document of a workbook (a path, or its bytes with ``name``): a
    :class:`Source` whose problems name the sheet, the row and the column. ``sheets``: the
    titles of the sheets to read besides the festival's (None: every sheet; ``follow``
    reads only those a save changed)."""
    name = name or str(path)
    file = io.BytesIO(path) if isinstance(path, (bytes, bytearray)) else path
    check_size(name, len(path) if isinstance(file, io.BytesIO) else Path(file).stat().st_size)
    _check_entries(file, name)
    book = _open(file, name)
    source = Source(name, {"formatVersion": FORMAT_VERSION}, workbook=True)
    problems = []
    try:
        for sheet in book.worksheets:
            title = sheet.title.strip()
            if title.startswith(OWN_SHEET_PREFIX):
                continue
            key = section_key(title[:-4] if title.lower().endswith(".csv") else title)
            if sheets is not None and sheet.title not in sheets and key != FESTIVAL_FILE:
                continue
            if key is None:
                problems.append(("$", f"sheet {title!r} is not a section of the format (one of "
                                      f"{', '.join(SECTION_NAMES)}); start its name with "
                                      f"{OWN_SHEET_PREFIX!r} to keep it out of the import"))
                continue
            if key in source.data or (key == FESTIVAL_FILE and "festival" in source.data):
                problems.append(("$", f"two sheets hold {key}: keep one"))
                continue
            header, lines = _sheet_lines(sheet, key, name)
            rows = read_table(title, key, header, lines, source, problems)
            add_table(source, f"sheet {title}", key, rows, problems)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, EOFError, zlib.error) as exc:
        raise UnreadableWorkbook(name, exc) from None
    finally:
        book.close()
    return finish(source, problems, f"the sheet {FESTIVAL_FILE!r}")


def _written(value, schema):
    """What a cell of an exported workbook holds: a number for a number column, else text."""
    kinds = schema.get("type", "string") if schema else "string"
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if value and ("integer" in kinds or "number" in kinds):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return value


def write_workbook(path, sheets):
    """Write ``sheets`` (``[(sheet name, columns, rows as dicts of CSV text)]``) as an .xlsx file.

    Number columns are numbers, everything else text as in the CSV folder, so the workbook
    imports to the same answers; a text cell that starts like a formula (``=``, ``+``, ``-``,
    ``@``, a tab, a carriage return) is written as text with Excel's quote prefix, never as a
    formula.
    """
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    book = Workbook(write_only=True)
    for title, columns, rows in sheets:
        sheet = book.create_sheet(title)
        props = SECTION_PROPERTIES[section_key(title)]
        sheet.append(columns)
        for row in rows:
            cells = []
            for column in columns:
                value = _written(row.get(column, ""), props.get(column))
                if isinstance(value, str) and value[:1] in FORMULA_STARTS:
                    value = WriteOnlyCell(sheet, value)
                    value.data_type = "s"  # text, never a formula
                    value.quotePrefix = True  # and still text once the office edits it
                cells.append(value)
            sheet.append(cells)
    book.save(path)


def folder_as_workbook(folder, path):
    """Write the CSV folder ``folder`` as one workbook at ``path``, a sheet per file (how the
    example workbook is made: ``python -m seed.pipeline.read.workbook FOLDER OUT.xlsx``)."""
    import csv

    from seed.pipeline.read.csv_folder import from_text

    sheets = []
    for file in sorted(Path(folder).glob("*.csv"), key=lambda p: (p.stem != FESTIVAL_FILE, SECTION_NAMES.index(
            section_key(p.stem)))):
        with open(file, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            rows = [{column: from_text(cell) if isinstance(cell, str) else cell for column, cell in row.items()}
                    for row in reader]
            sheets.append((file.stem, list(reader.fieldnames or []), rows))
    write_workbook(path, sheets)


if __name__ == "__main__":
    import sys

    folder_as_workbook(sys.argv[1], sys.argv[2])
