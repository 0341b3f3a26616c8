"""PostgreSQL's side of ``/candidates?search=`` when a request reads PostgreSQL itself
(``LOCAL_COPY=false``; the local copy has SQLite's index, :mod:`db.compiled.text_index`).

A search of one sub-fest reads narrow rows made for it, never the candidates' wide rows
(their stored JSON is inline, so a match is nearly a block of its own), and a common term's
total is kept, not counted:

- :data:`ROWS`: one row a candidate: its sub-fest's number (``scope``, from :data:`SCOPES`),
  its id, its compiled ``search`` text (``words``) and its place in each sort of the list
  (``chest_no_at``, ``name_at``: the sort key, then the id, the list's own order). Each
  sort has a unique index ``(scope, place)`` that includes ``words`` and ``candidate``: a
  page walks its sub-fest's entries in the list's order and checks the terms on the index
  entry (an index-only scan; the rows change only when a candidate's text or sort keys do,
  so result day leaves their pages all-visible), stopping once the page is full.
- A ``pg_trgm`` GIN index of ``words`` finds a rare term's few rows instead, wherever they
  are in the sort (a whole name: one row), then sorts them.
- :data:`COUNTS`: for each sub-fest, the exact number of candidates a common term finds
  (:func:`db.compiled.text_index.common_terms`: the terms SQLite keeps), counted by the
  matching rule (a substring of the folded text) when the sub-fest is written.

Which way a page goes is decided from the kept count (:func:`walks`): a term found by many
candidates fills a page after a short walk; any other goes through the trigram index, whose
cost is its matches. Without ``pg_trgm`` (a role not allowed to create it) every page walks.

:func:`refresh_postgres_text_index` keeps all three after the compile step, in its
transaction; a sub-fest is written again only when the digest of its candidates' ids, text
and sort keys changes (a published result changes none of them).
"""
from itertools import repeat
from operator import contains

from psycopg2.extras import execute_values

from ..query import escape_like
from .text_index import COUNTS, SCOPES, TABLE, changed_sub_fests, common_terms

ROWS = f"{TABLE}_search_rows"
TRIGRAMS = f"{ROWS}_words"  # the GIN index of ROWS.words
TABLES = (SCOPES, ROWS, COUNTS)  # what create_postgres_search makes
PLACES = {"chestNo": "chest_no_at", "name": "name_at"}
# A walk reads about (offset + limit + 1) * size / kept entries to fill a page of a term
# found kept times in a sub-fest of size candidates; the trigram index reads about each
# match, at this many times the cost of a walked entry (docs/performance.md, "Search on
# PostgreSQL without the local copy").
MATCH_COST = 8

_TABLES = (
    f'CREATE TABLE IF NOT EXISTS "{SCOPES}" (number serial PRIMARY KEY, festival uuid NOT NULL, '
    f"sub_fest uuid NOT NULL, digest text NOT NULL, size integer NOT NULL, UNIQUE (festival, sub_fest))",
    f'CREATE TABLE IF NOT EXISTS "{ROWS}" (scope integer NOT NULL, candidate uuid NOT NULL, words text NOT NULL, '
    f"chest_no_at integer NOT NULL, name_at integer NOT NULL)",
    *(f'CREATE UNIQUE INDEX IF NOT EXISTS "{ROWS}_{order}" ON "{ROWS}" (scope, {place}) INCLUDE (words, candidate)'
      for order, place in PLACES.items()),
    f'CREATE TABLE IF NOT EXISTS "{COUNTS}" (scope integer NOT NULL, term text NOT NULL, total integer NOT NULL, '
    f"PRIMARY KEY (scope, term))",
)
TRIGRAM_INDEX = f'CREATE INDEX IF NOT EXISTS "{TRIGRAMS}" ON "{ROWS}" USING gin (words gin_trgm_ops)'


def create_postgres_search(db, trigrams):
    """Create the tables where they are missing (and, with ``trigrams``, the GIN index);
    tables made now, for candidates already compiled, are filled from them."""
    made = db.execute_sql("SELECT to_regclass(%s)", (ROWS,)).fetchone()[0] is None
    for sql in _TABLES:
        db.execute_sql(sql)
    if trigrams:
        db.execute_sql(TRIGRAM_INDEX)
    if made:
        for (festival,) in db.execute_sql(f'SELECT DISTINCT festival FROM "{TABLE}"').fetchall():
            refresh_postgres_text_index(db, festival)


def has_postgres_search(db):
    """``(rows, trigrams)``: whether ``db`` has :data:`ROWS`, and its trigram index."""
    found = db.execute_sql("SELECT to_regclass(%s) IS NOT NULL, to_regclass(%s) IS NOT NULL",
                           (ROWS, TRIGRAMS)).fetchone()
    return bool(found[0]), bool(found[1])


def refresh_postgres_text_index(db, festival):
    """Bring :data:`ROWS`, :data:`SCOPES` and :data:`COUNTS` of one festival in step with
    ``public_candidate`` (``festival``: its id as the table stores it)."""
    rows = db.execute_sql(f'SELECT sub_fest, id, search, chest_no_key, name_key FROM "{TABLE}" WHERE festival = %s',
                          (festival,)).fetchall()
    by_scope = {}
    for sub_fest, candidate, search, chest_no_key, name_key in rows:
        by_scope.setdefault(str(sub_fest), []).append((str(candidate), search, bytes(chest_no_key), bytes(name_key)))
    held = {str(sub_fest): (number, digest) for number, sub_fest, digest in db.execute_sql(
        f'SELECT number, sub_fest, digest FROM "{SCOPES}" WHERE festival = %s', (festival,))}
    removed, changed = changed_sub_fests(held, by_scope)
    for number in removed:
        _clear(db, number)
        db.execute_sql(f'DELETE FROM "{SCOPES}" WHERE number = %s', (number,))
    for sub_fest, number, digest, candidates in changed:
        if number is None:
            number = db.execute_sql(f'INSERT INTO "{SCOPES}" (festival, sub_fest, digest, size) '
                                    f'VALUES (%s, %s, %s, %s) RETURNING number',
                                    (festival, sub_fest, digest, len(candidates))).fetchone()[0]
        else:
            _clear(db, number)
            db.execute_sql(f'UPDATE "{SCOPES}" SET digest = %s, size = %s WHERE number = %s',
                           (digest, len(candidates), number))
        _insert(db, ROWS, ("scope", "candidate", "words", "chest_no_at", "name_at"), _places(number, candidates))
        texts = [search for _, search, *_ in candidates]
        _insert(db, COUNTS, ("scope", "term", "total"),
                [(number, term, sum(map(contains, texts, repeat(term)))) for term in common_terms(texts)])


def _places(number, candidates):
    """The rows of :data:`ROWS` of one sub-fest: each candidate's place in each sort."""
    places = {}
    for at, key in enumerate((2, 3)):  # chest_no_key, name_key
        for place, row in enumerate(sorted(candidates, key=lambda row: (row[key], row[0]))):
            places.setdefault(row[0], [None, None])[at] = place
    return [(number, candidate, search, *places[candidate]) for candidate, search, *_ in candidates]


def _insert(db, table, columns, rows):
    """Many rows into ``table`` in the caller's transaction, a thousand to a statement."""
    execute_values(db.cursor(), f'INSERT INTO "{table}" ({", ".join(columns)}) VALUES %s', rows, page_size=1000)


def _clear(db, number):
    for table in (ROWS, COUNTS):
        db.execute_sql(f'DELETE FROM "{table}" WHERE scope = %s', (number,))


def walks(kept, size, offset, limit):
    """Whether a page of a term found ``kept`` times in a sub-fest of ``size`` candidates
    walks the sort's entries (about ``(offset + limit + 1) * size / kept`` of them) rather
    than reading the term's matches through the trigram index (``kept`` of them)."""
    return kept * kept * MATCH_COST >= (offset + limit + 1) * size


def like_all(expression, terms):
    """``(sql, params)``: every term (A-Z folded) occurs in ``expression``, by ``LIKE`` (which
    the trigram index serves)."""
    return (" AND ".join([f"{expression} LIKE ? ESCAPE '\\'"] * len(terms)),
            [f"%{escape_like(term)}%" for term in terms])


def holds_all(expression, terms):
    """``(sql, params)``: every term (A-Z folded) occurs in ``expression``, by ``strpos``: the
    same match, which no index serves (it is checked on each entry a walk reads) and which
    the planner takes to keep a third of the rows (a ``LIKE``'s guess of a few would have it
    read every match and sort them, not walk the sort's index until the page is full)."""
    return " AND ".join(["strpos(" + expression + ", ?) > 0"] * len(terms)), list(terms)
