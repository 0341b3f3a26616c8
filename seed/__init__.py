"""Fixture festivals: the file format, the importer and the bundled demo festivals."""
from pathlib import Path

FIXTURE_DIR = Path(__file__).parent / "fixtures"


def bundled_fixtures():
    """Paths of the bundled festival fixture files, in a stable order."""
    return sorted(FIXTURE_DIR.glob("*.json"))
