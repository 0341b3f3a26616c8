"""The text index of ``/candidates?search=``: a trigram index of ``PublicCandidate.search``.

``search`` matches a term anywhere in a candidate's compiled ``search`` column (a
substring, A-Z folded on both sides: :func:`db.read.sql.contains_all`). Without an index
that is a scan of the sub-fest's candidates, which grows with the festival; with a trigram
index the engine finds the few rows that hold the term's trigrams instead.

- SQLite: an FTS5 table with the ``trigram`` tokenizer over the candidates' ``search``
  column (external content: the text is not stored twice), kept in step by triggers, so
  every writer of ``public_candidate`` (the compile step, the local copy of a PostgreSQL
  service) keeps it without knowing of it. ``case_sensitive 1``: the column and the terms
  are already folded by the service's own rule (A-Z only; FTS5's folding would also fold
  "É" to "é", which the rule keeps apart). The index finds a term of 3 characters or more
  (:data:`MIN_INDEXED`); shorter terms have no trigram and are matched by ``LIKE`` alone.
  Its rows follow the candidates' ``rowid``: a ``VACUUM`` may renumber those, after which
  ``INSERT INTO public_candidate_search(public_candidate_search) VALUES('rebuild')``
  (what :func:`create_text_index` does for a new index) makes it again.
- PostgreSQL: a ``pg_trgm`` GIN index on the column, which ``LIKE '%term%'`` uses as it is.
  Creating the extension needs a role allowed to; without it the index is left out and
  the search scans as before (:func:`create_text_index` says so).

The answers are the same with or without it: on SQLite the FTS5 phrase of a term of
``MIN_INDEXED`` characters or more is the rule's substring match and decides alone, shorter
terms keep the ``LIKE`` of :func:`db.read.sql.contains_all` (:func:`db.read.sql.indexed_contains_all`);
on PostgreSQL the ``LIKE`` decides and the index serves it.
"""
import logging

from peewee import PostgresqlDatabase

# PublicCandidate's table (db/compiled/tables.py, which imports this module to create the index)
TABLE = "public_candidate"
INDEX = f"{TABLE}_search"  # the FTS5 table on SQLite, the GIN index on PostgreSQL
# A trigram index finds terms of this many characters or more.
MIN_INDEXED = 3

logger = logging.getLogger(__name__)

_SQLITE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS \"{INDEX}\" USING fts5("
    f"search, content='{TABLE}', tokenize='trigram case_sensitive 1')",
    f'CREATE TRIGGER IF NOT EXISTS "{INDEX}_insert" AFTER INSERT ON "{TABLE}" BEGIN '
    f'INSERT INTO "{INDEX}"(rowid, search) VALUES (new.rowid, new.search); END',
    f'CREATE TRIGGER IF NOT EXISTS "{INDEX}_delete" AFTER DELETE ON "{TABLE}" BEGIN '
    f"INSERT INTO \"{INDEX}\"(\"{INDEX}\", rowid, search) VALUES ('delete', old.rowid, old.search); END",
    f'CREATE TRIGGER IF NOT EXISTS "{INDEX}_update" AFTER UPDATE ON "{TABLE}" BEGIN '
    f"INSERT INTO \"{INDEX}\"(\"{INDEX}\", rowid, search) VALUES ('delete', old.rowid, old.search); "
    f'INSERT INTO "{INDEX}"(rowid, search) VALUES (new.rowid, new.search); END',
)


def create_text_index(db):
    """Create the index where it is missing (safe to repeat); return whether the database
    has one. An index made for a table that already has rows is filled from them."""
    if isinstance(db, PostgresqlDatabase):
        return _create_postgres(db)
    exists = db.execute_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (INDEX,)).fetchone()
    with db.atomic():
        for sql in _SQLITE:
            db.execute_sql(sql)
        if not exists:
            db.execute_sql(f"INSERT INTO \"{INDEX}\"(\"{INDEX}\") VALUES ('rebuild')")
    return True


def _create_postgres(db):
    try:
        with db.atomic():  # a savepoint inside a transaction: a refusal leaves it usable
            db.execute_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            db.execute_sql(f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "{TABLE}" USING gin (search gin_trgm_ops)')
    except Exception as error:  # no such extension, or not allowed to create it
        logger.warning("no trigram index for candidate search (pg_trgm: %s); search reads the "
                       "sub-fest's candidates instead", str(error).strip().splitlines()[0])
        return False
    return True


def has_text_index(db):
    """Whether ``db`` has the index (on PostgreSQL, the GIN index)."""
    if isinstance(db, PostgresqlDatabase):
        sql = "SELECT 1 FROM pg_indexes WHERE indexname = %s"
    else:
        sql = "SELECT 1 FROM sqlite_master WHERE name = ?"
    return db.execute_sql(sql, (INDEX,)).fetchone() is not None
