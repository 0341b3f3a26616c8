"""Where the code reaches into a library's internals, the version it was written against is
bounded: every such note in setup.cfg sits on a requirement with an upper bound, and
``app/server/wake_order.py`` (``threading.Condition``'s internals) runs only on a Python it
was read against."""
import os
import re
import sys
import threading

from app.server import wake_order

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _requirements():
    """``[(the comment lines above it, requirement)]`` of setup.cfg's install_requires."""
    with open(os.path.join(ROOT, "setup.cfg"), encoding="utf-8") as fh:
        text = fh.read()
    block = re.search(r"^install_requires =\n((?:[ \t]+.*\n)+)", text, re.MULTILINE).group(1)
    found, notes = [], []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("#"):
            notes.append(line)
        elif line:
            found.append((" ".join(notes), line))
            notes = []
    return found


def test_every_requirement_written_against_a_version_has_an_upper_bound():
    noted = [(note, req) for note, req in _requirements() if "written against" in note]
    assert len(noted) >= 8
    assert [req for _, req in noted if not re.search(r"<\s*[\d.]+", req)] == []


def test_wake_order_runs_on_a_python_it_was_written_against():
    assert sys.version_info[:2] in wake_order.PYTHONS, (
        f"app/server/wake_order.py reaches into threading.Condition; read it against Python "
        f"{sys.version_info[0]}.{sys.version_info[1]}'s threading.py and add the version to PYTHONS")


def test_the_condition_internals_wake_order_uses_are_there():
    condition = threading.Condition()
    with condition:
        assert condition._is_owned()
    assert hasattr(condition, "_waiters") and len(condition._waiters) == 0
