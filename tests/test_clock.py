"""The one clock (``db/clock.py``): every reader of "now" asks it at call time, so a test that
sets the time sets it once, there, and the rules, views, revisions and rows all follow."""
import ast
import datetime

from test_layout import CODE, EVERYTHING

import db.clock
from db.source.revisions import bump_revision, current_revision


def test_no_module_defines_or_copies_utcnow_but_the_clock():
    """``from db.clock import utcnow`` would keep the function of import time: a test setting
    the clock would not reach it."""
    found = []
    for module in CODE:
        with open(EVERYTHING[module], encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "utcnow" and module != "db.clock":
                found.append(f"{module} defines utcnow")
            elif isinstance(node, ast.ImportFrom) and any(alias.name == "utcnow" for alias in node.names):
                found.append(f"{module} imports utcnow from {node.module}")
    assert found == []


def test_a_revision_is_stamped_by_the_clock(seeded, monkeypatch):
    from conftest import writable
    from db.source import models as m

    url, _ = seeded
    moment = datetime.datetime(2031, 5, 6, 7, 8, 9)
    monkeypatch.setattr(db.clock, "utcnow", lambda: moment)
    with writable(url) as database, database.atomic() as transaction:
        festival = m.Festival.select().first()
        number, _ = current_revision(festival.id)
        stamped = bump_revision(festival)
        transaction.rollback()  # the shared database's revision stays
    assert stamped == (number + 1, moment)
