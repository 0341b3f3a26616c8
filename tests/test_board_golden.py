"""Every existing festival's boards, pinned: a board's rule left out ranks exactly as before.

For each festival the tests build (the bundled fixtures, the CSV example, the tiny, shape
and natural festivals), every topper placeholder's stored board (rank, tied, points,
programme count, entity, name, details, last result) and its history are compared with
``tests/golden/boards.json``, written from the service before boards had rules of their
own. A board that moves fails here.

``GOLDEN_WRITE=1 pytest tests/test_board_golden.py`` writes the file again (only when a
change of the rules is meant to move existing boards; say so in the commit).
"""
import hashlib
import json
import os
from pathlib import Path

import orjson
import pytest

from conftest import writable
from db.source import models as m
from natural_festival import natural_festival
from seed.pipeline.write.importer import import_file, import_fixture
from structure_tiny import shape_festival
from test_csv_import import EXAMPLE
from tiny_festival import tiny_festival

GOLDEN = Path(__file__).parent / "golden" / "boards.json"


def _built_festivals():
    """The festivals the tests build besides the bundled ones (imported into the copy)."""
    import_file(EXAMPLE)
    import_fixture(tiny_festival()[0])
    import_fixture(shape_festival()[0])
    import_fixture(natural_festival())


def _entry(entry):
    return {"rank": entry.rank, "tied": entry.tied, "points": entry.points,
            "programmeCount": entry.programme_count, "entityType": entry.entity_type,
            "entityId": str(entry.entity_id), "name": entry.name, "details": entry.details,
            "lastResultAt": None if entry.last_result_at is None else entry.last_result_at.isoformat()}


def _digest(history):
    """A history's step count and a digest of its content (any key order)."""
    if history is None:
        return None
    text = json.dumps(history, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return {"steps": len(history["steps"]), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def boards():
    """``{festival slug: {"sub-fest slug / label": board}}`` of every placeholder stored."""
    out = {}
    histories = {row.placeholder_id: orjson.loads(row.body) for row in m.TopperHistory.select()}
    query = (m.TopperPlaceholder.select(m.TopperPlaceholder, m.SubFest, m.Festival)
             .join(m.SubFest).join(m.Festival))
    for placeholder in query:
        entries = sorted(placeholder.entries, key=lambda e: (e.rank, e.name.casefold(), str(e.entity_id)))
        sub_fest = placeholder.sub_fest
        board = {
            "entityType": placeholder.entity_type, "scopeType": placeholder.scope_type,
            "programmesCounted": placeholder.programmes_counted,
            "programmesInScope": placeholder.programmes_in_scope,
            "entries": [_entry(e) for e in entries],
            "history": _digest(histories.get(placeholder.id)),
        }
        out.setdefault(sub_fest.festival.slug, {})[f"{sub_fest.slug} / {placeholder.label}"] = board
    return {slug: dict(sorted(found.items())) for slug, found in sorted(out.items())}


@pytest.fixture(scope="module")
def computed(seeded, tmp_path_factory):
    from conftest import database_copy

    with database_copy(seeded[0], tmp_path_factory.mktemp("golden")) as url:
        with writable(url):
            _built_festivals()
            yield json.loads(json.dumps(boards(), default=str))


def test_the_golden_file_covers_every_kind_of_board(computed):
    assert set(computed) >= {"kalolsavam-2026", "college-fest-2026", "district-fest-2026", "tiny-fest",
                             "shape-fest", "natural-fest"}
    kinds = {(b["entityType"], b["scopeType"]) for f in computed.values() for b in f.values()}
    assert {"candidate", "team", "group", "section"} <= {kind for kind, _ in kinds}
    assert {"subfest", "category", "collection", "section"} <= {scope for _, scope in kinds}
    assert sum(len(b["entries"]) for f in computed.values() for b in f.values()) > 300


def test_every_existing_festivals_boards_are_unchanged(computed):
    if os.environ.get("GOLDEN_WRITE"):
        GOLDEN.write_text(json.dumps(computed, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(computed) == set(expected)
    for slug, festival in expected.items():
        assert set(computed[slug]) == set(festival), slug
        for name, board in festival.items():
            got = computed[slug][name]
            for part in ("entityType", "scopeType", "programmesCounted", "programmesInScope", "entries"):
                assert got[part] == board[part], f"{slug}: {name}: {part} moved"
            assert got["history"] == board["history"], f"{slug}: {name}: its history moved"
