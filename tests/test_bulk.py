"""db/bulk.py writes the rows Peewee's ``insert_many`` writes: same columns, same values,
defaults for what a row leaves out, JSON columns, chunk boundaries; on both engines."""
import datetime
import uuid

import pytest

from conftest import writable
from db.bulk import insert_rows
from db.database import database
from db.source import models as m

STAMP = datetime.datetime(2026, 1, 5, 9, 30)


def stored(model, ids, leave_out=()):
    """The rows of ``ids``, by id, as dicts of every column but the id and ``leave_out``."""
    rows = model.select().where(model.id.in_(ids)).dicts()
    return {row["id"]: {k: v for k, v in row.items() if k not in ("id", *leave_out)} for row in rows}


def both_ways(model, rows, chunk):
    """Insert ``rows`` by Peewee and by db/bulk.py, each with fresh ids; return the ids each
    side gave, in the rows' order (``{"peewee": [...], "bulk": [...]}``)."""
    ids = {side: [uuid.uuid4() for _ in rows] for side in ("peewee", "bulk")}
    peewee_rows = [{**row, "id": i} for row, i in zip(rows, ids["peewee"])]
    bulk_rows = [{**row, "id": i} for row, i in zip(rows, ids["bulk"])]
    columns = [f for f in model._meta.sorted_fields if any(f.name in row for row in peewee_rows)]
    for start in range(0, len(rows), chunk):
        model.insert_many(peewee_rows[start:start + chunk], fields=columns).execute()
    insert_rows(model, bulk_rows, chunk=chunk)
    return ids


@pytest.mark.parametrize("count, chunk", [(1, 200), (7, 3), (450, 200)])
def test_rows_are_stored_as_peewee_stores_them(fresh_app, count, chunk):
    _, url = fresh_app
    festival = m.Festival.get(m.Festival.slug == "kalolsavam-2026").id
    # Rows that leave different optional columns out, and one that sets what has a default.
    rows = []
    for i in range(count):
        row = {"festival": festival, "title": f"Item {i} \u0d15\u0d32"}
        if i % 3 == 0:
            row["summary"] = None if i % 2 else f"summary {i}"
        if i % 3 == 1:
            row.update(status="published", is_public=False, published_at=STAMP, created_at=STAMP)
        rows.append(row)
    with writable(url):
        with database.atomic() as transaction:
            ids = both_ways(m.News, rows, chunk)
            by_peewee = stored(m.News, ids["peewee"], leave_out=("created_at", "updated_at"))
            by_bulk = stored(m.News, ids["bulk"], leave_out=("created_at", "updated_at"))
            assert [by_bulk[i] for i in ids["bulk"]] == [by_peewee[i] for i in ids["peewee"]]
            assert len(by_bulk) == count
            # A default that is a function is called per row, as Peewee calls it.
            stamps = m.News.select(m.News.created_at).where(m.News.id.in_(ids["bulk"])).tuples()
            assert all(isinstance(stamp, datetime.datetime) for (stamp,) in stamps)
            transaction.rollback()


def test_json_columns_are_stored_as_peewee_stores_them(fresh_app):
    """A JSON field's value is SQL (``json(?)`` on SQLite): its chunk is written by Peewee."""
    _, url = fresh_app
    festival = m.Festival.get(m.Festival.slug == "kalolsavam-2026").id
    rows = [{"festival": festival, "name": "points", "points": {"1": 5, "2": 3}},
            {"festival": festival, "name": "empty"}]
    with writable(url):
        with database.atomic() as transaction:
            ids = both_ways(m.PositionCriteria, rows, 200)
            by_peewee = stored(m.PositionCriteria, ids["peewee"])
            by_bulk = stored(m.PositionCriteria, ids["bulk"])
            assert [by_bulk[i] for i in ids["bulk"]] == [by_peewee[i] for i in ids["peewee"]]
            assert [by_bulk[i]["points"] for i in ids["bulk"]] == [{"1": 5, "2": 3}, {}]
            transaction.rollback()


def test_nothing_to_insert_sends_nothing(fresh_app, query_count):
    _, url = fresh_app
    with writable(url):
        with query_count() as counted:
            insert_rows(m.News, [])
    assert counted.count == 0
