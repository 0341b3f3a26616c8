"""Peewee's internals a query needs (bounded in ``setup.cfg``: written against 4.5.3). Beside
these, ``db/database.py``'s proxy sets ``DatabaseProxy``'s ``_callbacks`` and ``_Model``, and
``db/query.py`` renders a node with ``__sql__``.

- :func:`render_subqueries_once` replaces ``Expression._is_rhs_empty``;
- :func:`selected_columns` reads a query's ``_returning`` and an ``Alias``'s ``_alias``;
- :func:`query_conditions` reads a query's ``_from_list`` and ``_where``, and
  :func:`join_condition` a ``Join``'s ``_on``.
"""
import peewee


def render_subqueries_once():
    """Stop Peewee rendering every ``IN (subquery)`` twice.

    Before writing ``x IN rhs``, Peewee renders ``rhs`` once more to see whether it is an
    empty list (PostgreSQL rejects ``IN ()``). A subquery never is, yet the extra render
    doubles at every level of nesting, and the privacy rules' queries nest a few levels deep:
    this halves the time the heaviest endpoints spend building SQL. Same SQL, less work.
    """
    original = peewee.Expression._is_rhs_empty
    if getattr(original, "subqueries_once", False):
        return

    def _is_rhs_empty(self, rhs, ctx):
        if isinstance(rhs, peewee.SelectBase):
            return False
        return original(self, rhs, ctx)

    _is_rhs_empty.subqueries_once = True
    peewee.Expression._is_rhs_empty = _is_rhs_empty


def selected_columns(query):
    """``[(name, field)]`` of what a select returns, in order: each column's name as
    ``.dicts()`` names it (an alias, else the field's name) and the field it reads."""
    columns = []
    for node in query._returning:
        if isinstance(node, peewee.Alias):
            columns.append((node._alias, node.node))
        else:
            columns.append((node.name, node))
    return columns


def query_conditions(query):
    """What a model select reads rows by: its ``FROM`` list (with its joins) and its ``WHERE``."""
    return query._from_list, query._where


def join_condition(join):
    """A join's ``ON`` expression."""
    return join._on
