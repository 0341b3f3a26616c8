"""The data layer, in rooms: ``source`` (what imports write, the privacy rules), ``compiled``
(the tables requests read), ``compiler`` (the compile step between them) and ``read`` (the
request readers); the modules here are the infrastructure all of them use. No Flask here."""
from .database import bind_database, database, is_postgres, make_database  # noqa: F401
from .peewee_compat import render_subqueries_once

render_subqueries_once()
