"""A stored festival written back out as the documented CSV folder, or as one workbook
(``festival-api export``).

The office takes the current state back into its spreadsheets: one file per section, the
columns of ``docs/spreadsheets.md``, rows naming each other by natural keys (slugs, codes,
chest numbers, names), no ids. An ``id`` is written only for a row whose id is not the one
its natural key gives (a festival first loaded from a JSON file with ids of its own), and a
reference by id only where no natural key can name its row (a name used twice): importing
the folder again gives the very same ids, so the same public answers.

Times are written in the festival's local time, with their offset
(``2026-01-17T18:00:00+05:30``); a festival without a valid timezone gets UTC (``+00:00``).
The folder holds the private columns too (email, phone, ...): it is the office's own data.

Files are safe to open in a spreadsheet: a CSV cell that would run as a formula (it starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written with a leading
apostrophe, which importing takes off again (``seed.pipeline.read.csv_folder.as_text``); a workbook holds
such a cell as text, never a formula.
"""
import csv
import datetime
import json
import uuid
from pathlib import Path

from peewee import BooleanField, DateField, DateTimeField, ForeignKeyField, JSONField

from db.clock import festival_zone
from db.source import models as m

from seed.pipeline.read.csv_folder import FESTIVAL_FILE, as_text
from seed.pipeline.diff.festival_state import state_from_database
from seed.pipeline.read.fixture_format import (
    INLINE_ALIASES,
    NATURAL_KEYS,
    RESULT_TEAM_ALIAS,
    SCOPE_ALIAS,
    SCOPED_SECTIONS,
    SECTIONS,
    fixture_fields,
    reference_alias,
)
from seed.pipeline.check.natural_keys import derive_id, festival_id
from seed.pipeline.write.update import state_index

LIST_SEPARATOR = ";"


class ExportError(Exception):
    """The festival cannot be written to that folder."""


def _cell(f, value, zone):
    """The CSV cell of ``value`` (a stored Python value of field ``f``)."""
    if value is None:
        return ""
    if isinstance(f, DateTimeField):
        return value.replace(tzinfo=datetime.timezone.utc).astimezone(zone).isoformat()
    if isinstance(f, DateField):
        return value.isoformat()
    if isinstance(f, BooleanField):
        return "true" if value else "false"
    if isinstance(f, JSONField):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


class _Namer:
    """Natural keys of the stored rows, and whether each can name its row unambiguously."""

    def __init__(self, state):
        self.state = state
        self.slug = state.festival["slug"]
        self.index = state_index(state)
        self.rows = {}
        for section in SECTIONS:
            for row_id, row in state.rows[section.key].items():
                self.rows[row_id] = (section, row)

    def key(self, model, row):
        """``(scope id or None, key text)`` of a stored row, or None when it has no key."""
        text = self.index.key_text(model, _as_text(row))
        if text is None:
            return None
        scope = NATURAL_KEYS[model].scope
        return (str(row[scope]) if scope and row.get(scope) is not None else None), text

    def derived_id(self, section, row):
        key = self.key(section.model, row)
        return key and derive_id(self.slug, section.key, key[0] or "", key[1])

    def name(self, target_id, scope):
        """The natural key that finds ``target_id`` when looked up in ``scope`` (the whole
        festival when None), or None."""
        section, row = self.rows.get(target_id, (None, None))
        if section is None:
            return None
        key = self.key(section.model, row)
        if key is None or (scope is not None and key[0] != str(scope)):
            return None
        found = self.index.find(section.model, None if scope is None else key[0], key[1])
        return key[1] if found == [str(target_id)] else None

    def sub_fest_of(self, row):
        for name in ("sub_fest", "sub_fest_programme", "sub_fest_candidate"):
            value = row.get(name)
            if value is None:
                continue
            if name == "sub_fest":
                return value
            return self.rows.get(value, (None, {}))[1].get("sub_fest")
        return None


def _as_text(row):
    return {k: (str(v) if isinstance(v, uuid.UUID) else v) for k, v in row.items()}


def _section_rows(namer, section, zone):
    """The CSV rows (column -> cell) of one section."""
    model = section.model
    fields = fixture_fields(model, section)
    out = []
    for row_id, row in namer.state.rows[section.key].items():
        cells = {}
        lookup_sub_fest = namer.sub_fest_of(row)
        if section.key in SCOPED_SECTIONS and "sub_fest" not in model._meta.fields:
            lookup_sub_fest = lookup_sub_fest or _links_sub_fest(namer, section, row_id)
            if lookup_sub_fest is not None:
                cells[SCOPE_ALIAS] = namer.rows[lookup_sub_fest][1]["slug"]
        if namer.derived_id(section, row) != str(row_id):
            cells["id"] = str(row_id)
        for f in fields:
            if f.primary_key or row.get(f.name) is None:
                continue
            if isinstance(f, ForeignKeyField):
                scope = NATURAL_KEYS[f.rel_model].scope
                within = lookup_sub_fest if scope == "sub_fest" else row.get(scope) if scope else None
                name = namer.name(row[f.name], within)
                team = _team_of_entry(namer, model, f, row, name, lookup_sub_fest)
                if team is not None:
                    cells[RESULT_TEAM_ALIAS] = team
                elif name is not None:
                    cells[reference_alias(model, f)] = name
                else:
                    cells[f.name] = str(row[f.name])
                continue
            cells[f.name] = _cell(f, row[f.name], zone)
        for name, inline in section.inline.items():
            values = namer.state.links[section.key].get(row_id, {}).get(name, [])
            if not values:
                continue
            cells.update(_inline_cells(namer, name, inline, values, lookup_sub_fest))
        out.append(cells)
    return out


def _team_of_entry(namer, model, f, row, name, lookup_sub_fest):
    """A result of a team's own entry (no candidate) names it by the team: its team's name."""
    if model is not m.Result or f.name != "registration" or name is None:
        return None
    entry = namer.rows.get(row[f.name], (None, {}))[1]
    if entry.get("sub_fest_candidate") is not None or entry.get("team") is None:
        return None
    return namer.name(entry["team"], lookup_sub_fest)


def _links_sub_fest(namer, section, row_id):
    """The one sub-fest of a row's listed references (a website page's leaderboards)."""
    found = set()
    for name in section.inline:
        for value in namer.state.links[section.key].get(row_id, {}).get(name, []):
            found.add(namer.sub_fest_of(namer.rows.get(value, (None, {}))[1]))
    return found.pop() if len(found) == 1 else None


def _inline_cells(namer, name, inline, values, lookup_sub_fest):
    value_field = inline.model._meta.fields[inline.value_field]
    if not isinstance(value_field, ForeignKeyField):
        return {name: LIST_SEPARATOR.join(map(str, values))}
    scope = NATURAL_KEYS[value_field.rel_model].scope
    within = lookup_sub_fest if scope == "sub_fest" else None
    names = [namer.name(value, within) for value in values]
    if all(n is not None and LIST_SEPARATOR not in n for n in names):
        return {INLINE_ALIASES[name]: LIST_SEPARATOR.join(names)}
    return {name: LIST_SEPARATOR.join(map(str, values))}


def _column_order(model, section):
    """Columns in the order of the format: id, the sub-fest, then the fields (a reference by
    its key where it has one), then the lists."""
    order = ["id", SCOPE_ALIAS]
    for f in fixture_fields(model, section):
        order += [reference_alias(model, f), f.name] if isinstance(f, ForeignKeyField) else [f.name]
        if model is m.Result and f.name == "registration":
            order.append(RESULT_TEAM_ALIAS)
    for name in (section.inline if section else {}):
        order += [INLINE_ALIASES.get(name, name), name]
    return {column: n for n, column in enumerate(order)}


def _columns(rows, order):
    return sorted({c for row in rows for c in row}, key=lambda c: order.get(c, len(order)))


def _write(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        # CSV's own line ends (RFC 4180): a cell holding a carriage return is then quoted too.
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows({column: as_text(cell) for column, cell in row.items()} for row in rows)


def festival_sheets(festival):
    """``[(sheet name, columns, rows)]`` of ``festival`` (a stored ``Festival``): the
    festival's row first, then each section that has rows, as CSV text."""
    state = state_from_database(festival)
    zone = festival_zone(state.festival.get("timezone"))
    namer = _Namer(state)
    festival_fields = [f for f in fixture_fields(m.Festival) if not f.primary_key]
    festival_row = {}
    if str(state.festival["id"]) != festival_id(state.festival["slug"]):
        festival_row["id"] = str(state.festival["id"])
    festival_row.update({f.name: _cell(f, state.festival[f.name], zone) for f in festival_fields
                         if state.festival.get(f.name) is not None})
    sheets = [(FESTIVAL_FILE, _columns([festival_row], _column_order(m.Festival, None)), [festival_row])]
    for section in SECTIONS:
        rows = _section_rows(namer, section, zone)
        if rows:
            sheets.append((section.key, _columns(rows, _column_order(section.model, section)), rows))
    return sheets


def export_festival(festival, folder):
    """Write ``festival`` (a stored ``Festival``) as a CSV folder, or as a workbook when
    ``folder`` ends with ``.xlsx``; return the files written."""
    folder = Path(folder)
    if folder.suffix.lower() == ".xlsx":
        return [export_workbook(festival, folder)]
    if folder.exists() and (not folder.is_dir() or any(folder.glob("*.csv"))):
        raise ExportError(f"{folder} already holds CSV files (or is not a folder): choose a new or empty folder")
    sheets = festival_sheets(festival)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, columns, rows in sheets:
        written.append(folder / f"{name}.csv")
        _write(written[-1], columns, rows)
    return written


def export_workbook(festival, path):
    """Write ``festival`` as one .xlsx workbook, a sheet per CSV file; return its path."""
    from seed.pipeline.read.workbook import write_workbook

    path = Path(path)
    if path.exists():
        raise ExportError(f"{path} already exists: choose a new file name")
    if not path.parent.is_dir():
        raise ExportError(f"no folder {str(path.parent)!r} to write {path.name} into")
    write_workbook(path, festival_sheets(festival))
    return path
