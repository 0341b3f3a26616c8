"""Many rows into one table at a time: imports and compiles write thousands.

``Model.insert_many(rows).execute()`` builds its statement anew for every chunk, walking a
node per value (a tenth of the CPU of seeding the bundled festivals). Here Peewee builds one
row's statement once per table, column list and database kind; each chunk repeats its
``(?, ...)`` and sends its values only. The rows written are the same: the same columns,
each value through its field's ``db_value``, a column a row leaves out given its field's
default, else NULL. A chunk with a value that is itself SQL (a JSON field's ``json(?)``) is
left to Peewee whole.
"""
from functools import lru_cache

from peewee import Node

CHUNK = 200


def insert_rows(model, rows, chunk=CHUNK):
    """Insert ``rows`` (mappings by field name) into ``model``'s table, ``chunk`` rows a
    statement: the columns any row names, and those with a default."""
    if not rows:
        return
    meta = model._meta
    named = set().union(*rows)
    columns = tuple(field for field in meta.sorted_fields if field.name in named or field in meta.defaults)
    values_of = _values_of(columns, meta.defaults)
    database = meta.database
    head, one_row = _one_row(model, columns, database.param)
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        params = [value for row in part for value in values_of(row)]
        if any(isinstance(value, Node) for value in params):
            model.insert_many(part, fields=list(columns)).execute()
        else:
            database.execute_sql(head + ", ".join([one_row] * len(part)), params)


def _values_of(columns, defaults):
    """A function giving one row's parameters, in ``columns``' order."""
    plan = [(field.name, field.db_value, defaults.get(field)) for field in columns]

    def values(row):
        out = []
        for name, db_value, default in plan:
            if name in row:
                value = row[name]
            else:
                value = default() if callable(default) else default
            out.append(db_value(value))
        return out

    return values


@lru_cache(maxsize=256)
def _one_row(model, columns, param):
    """Peewee's statement for one row with the placeholders of the database kind whose
    parameter mark is ``param``, cut after ``VALUES``: (its head, its ``(?, ...)``)."""
    blank = {field.name: None for field in columns}
    sql, _ = model.insert_many([blank], fields=list(columns)).returning().sql()
    head, row = sql.split(" VALUES ", 1)
    if row.count(param) != len(columns) or not (row.startswith("(") and row.endswith(")")):
        raise ValueError(f"unexpected INSERT statement from Peewee: {sql}")
    return head + " VALUES ", row
