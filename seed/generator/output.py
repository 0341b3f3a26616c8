"""Write the bundled festivals, a scaled Kalolsavam and the fixture JSON Schema."""
import json
from pathlib import Path

from seed.pipeline.read.fixture_format import json_schema

from .college import build_college_fest
from .kalolsavam import build_kalolsavam

SCHEMA_PATH = Path(__file__).parent.parent / "fixture.schema.json"
FESTIVALS = {"kalolsavam-2026": build_kalolsavam, "college-fest-2026": build_college_fest}


def dump(data):
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_fixtures(out_dir):
    """Write every bundled festival to ``out_dir`` (``seed.FIXTURE_DIR``: the bundled ones);
    return the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for slug, build in FESTIVALS.items():
        path = out_dir / f"{slug}.json"
        path.write_text(dump(build()), encoding="utf-8")
        paths.append(path)
    return paths


def write_scaled_kalolsavam(scale, out="."):
    """Write the Kalolsavam ``scale`` times its size to ``out`` (a file, or a folder for
    ``kalolsavam-2026-xN.json``); return the path written."""
    data = build_kalolsavam(scale=scale)
    path = Path(out)
    if path.is_dir():
        path = path / f"{data['festival']['slug']}.json"
    path.write_text(dump(data), encoding="utf-8")
    return path


def schema_text():
    return json.dumps(json_schema(), indent=2) + "\n"


def write_schema(path=SCHEMA_PATH):
    Path(path).write_text(schema_text(), encoding="utf-8")
    return Path(path)
