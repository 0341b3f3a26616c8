"""The data layer, in rooms: ``source`` (what imports write, the privacy rules), ``compiled``
(the tables requests read), ``compiler`` (the compile step between them) and ``read`` (the
request readers); the modules here are the infrastructure all of them use. No Flask here."""
from .database import bind_database, database, is_postgres, make_database  # noqa: F401


def _subquery_is_never_empty():
    """Stop Peewee rendering every ``IN (subquery)`` twice.

    Before writing ``x IN rhs``, Peewee renders ``rhs`` once more to see whether it is an
    empty list (PostgreSQL rejects ``IN ()``). A subquery never is, yet the extra render
    doubles at every level of nesting, and the visibility scopes nest a few levels deep:
    this halves the time the heaviest endpoints spend building SQL. Same SQL, less work.
    """
    import peewee

    original = peewee.Expression._is_rhs_empty

    def _is_rhs_empty(self, rhs, ctx):
        if isinstance(rhs, peewee.SelectBase):
            return False
        return original(self, rhs, ctx)

    peewee.Expression._is_rhs_empty = _is_rhs_empty


_subquery_is_never_empty()
