"""Every setting of app/config.py is documented: in the README's table and in docs/deployment.md."""
import re
from pathlib import Path

import pytest

from app.config import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*(.*?)\s*\|", re.M)


def section(text, heading):
    """The text under a ``## heading``, up to the next ``## `` heading."""
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + len(heading) + 2)
    return text[start:end if end != -1 else None]


def table_rows(text):
    """``{NAME: default cell}`` of a markdown table whose first column is a `NAME`."""
    return {name: default for name, default in ROW.findall(text)}


@pytest.fixture(scope="module")
def readme_table():
    return table_rows(section((ROOT / "README.md").read_text(encoding="utf-8"), "## Configuration"))


@pytest.fixture(scope="module")
def deployment_table():
    return table_rows(section((ROOT / "docs" / "deployment.md").read_text(encoding="utf-8"), "## Settings"))


def test_readme_configuration_table_lists_exactly_the_settings(readme_table):
    assert list(readme_table) == list(SETTINGS)


def test_deployment_settings_table_lists_exactly_the_settings(deployment_table):
    assert list(deployment_table) == list(SETTINGS)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_documented_defaults_are_the_real_ones(readme_table, deployment_table, name):
    default = SETTINGS[name][0]
    shown = f"`{default}`" if default else "(empty)"
    assert readme_table[name] == shown
    assert deployment_table[name].startswith(shown)

