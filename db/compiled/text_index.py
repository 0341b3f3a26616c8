"""The text index of ``/candidates?search=``: a trigram index of ``PublicCandidate.search``,
scoped by sub-fest and kept in each sort order.

``search`` matches a term anywhere in a candidate's compiled ``search`` column (a
substring, A-Z folded on both sides: :func:`db.read.sql.contains_all`). Without an index
that is a scan of the sub-fest's candidates, which grows with the festival; with a trigram
index the engine finds the rows that hold the term's trigrams instead.

- SQLite: an FTS5 table with the ``trigram`` tokenizer over the candidates' ``search``
  text. ``case_sensitive 1``: the column and the terms are already folded by the service's
  own rule (A-Z only; FTS5's folding would also fold "É" to "é", which the rule keeps
  apart). The index finds a term of 3 characters or more (:data:`MIN_INDEXED`); shorter
  terms have no trigram: a term of two characters is found in :data:`PAIRS`, one of a
  single character by ``LIKE``.

  Each candidate is in it twice, once for each sort of the list, and a row's ``rowid`` says
  where: ``scope << SCOPE_SHIFT | order << ORDER_SHIFT | position``, ``scope`` the number of
  its (festival, sub-fest) in :data:`SCOPES`, ``order`` the sort (:data:`ORDERS`),
  ``position`` its place in that sort (the sort key, then the id: the order of the list);
  ``words`` holds the text (named apart from the candidates' ``search``, so a condition on
  that column joined to the index is not ambiguous).
  So a search of one sub-fest is a ``rowid`` range of the index: FTS5 seeks to it in each
  trigram's list and reads no other sub-fest's or festival's rows; its matches come in the
  list's order (``ORDER BY rowid``, either direction), so a page stops after its rows; and
  the total is a ``count(*)`` of the index alone, never a read of a candidate's row. The
  ``candidate`` column (not indexed) names the row a page shows.

  Beside it, :data:`PAIRS` holds each row's pairs of consecutive characters, as words
  (:func:`pair_tokens`), with the same ``rowid``s: a term of two characters (an initial,
  ``V.``), which has no trigram, is one word of it, found and counted the same way.

  :data:`COUNTS` keeps, for each sub-fest, the exact number of candidates a common term
  finds: every word of the text and every beginning of a word, of 2 characters or more,
  that begins at least :data:`KEPT_FROM` words of the sub-fest, counted by the index in the
  sub-fest's range when the sub-fest is written. A search of that one term alone (no
  other filter) whose page is full reads its total there instead of counting its matches,
  which grow with the sub-fest; any other term is counted.

  The compile step keeps all three (:func:`refresh_text_index`, after the festival's rows are
  written) and so does the local copy of a PostgreSQL service: for each sub-fest it
  compares a digest of what the index holds (ids, text and sort keys) with the compiled
  rows, and writes the sub-fest again only when they differ (a published result changes a
  candidate's results, not the index).
- PostgreSQL: a ``pg_trgm`` GIN index on the column, which ``LIKE '%term%'`` uses as it is
  (a search with other filters; a search alone reads the narrow rows of
  :mod:`db.compiled.postgres_search`, which keep the same counts). Creating the extension
  needs a role allowed to; without it the index is left out and the search scans as before
  (:func:`create_text_index` says so).

The answers are the same with or without it: on SQLite the FTS5 phrase of a term of
``MIN_INDEXED`` characters or more is the rule's substring match and decides alone, shorter
terms keep the ``LIKE`` of :func:`db.read.sql.contains_all` (:func:`db.read.sql.indexed_contains_all`);
on PostgreSQL the ``LIKE`` decides and the index serves it.
"""
import hashlib
import logging

from peewee import PostgresqlDatabase

from ..query import SEARCH_SEPARATOR

# PublicCandidate's table (db/compiled/tables.py, which imports this module to create the index)
TABLE = "public_candidate"
INDEX = f"{TABLE}_search"  # the FTS5 table on SQLite, the GIN index on PostgreSQL
SCOPES = f"{TABLE}_search_scope"  # SQLite: (festival, sub-fest) -> its number, the digest of its rows
PAIRS = f"{TABLE}_search_pairs"  # SQLite: the pairs of characters of each row (see pair_tokens)
COUNTS = f"{TABLE}_search_counts"  # SQLite: (sub-fest number, term) -> how many candidates it finds
# The tables a SQLite database holds for the index (``db.compiled.tables.required_tables``).
SQLITE_TABLES = (INDEX, SCOPES, PAIRS, COUNTS)
# A trigram index finds terms of this many characters or more.
MIN_INDEXED = 3
# The parts of an index row's rowid (see above): 2**24 candidates a sub-fest, two sorts.
ORDER_SHIFT = 24
SCOPE_SHIFT = 25
ORDERS = {"chestNo": 0, "name": 1}
# A term is kept in COUNTS when at least this many words of its sub-fest begin with it: a
# term found fewer times costs about as much to count as to look up (bench/candidate_search.py).
KEPT_FROM = 32
# Where each sort's key is in the rows refresh_text_index reads: (id, search, chest_no_key, name_key).
_SORT_KEYS = {"chestNo": 2, "name": 3}

logger = logging.getLogger(__name__)

# The index of earlier versions: the candidates' own rowids, kept by triggers.
_EARLIER = (f'DROP TRIGGER IF EXISTS "{INDEX}_insert"', f'DROP TRIGGER IF EXISTS "{INDEX}_delete"',
            f'DROP TRIGGER IF EXISTS "{INDEX}_update"', f'DROP TABLE IF EXISTS "{INDEX}"')

_SQLITE = (
    f'CREATE VIRTUAL TABLE IF NOT EXISTS "{INDEX}" USING fts5('
    f"words, candidate UNINDEXED, tokenize='trigram case_sensitive 1')",
    f'CREATE TABLE IF NOT EXISTS "{SCOPES}" (number INTEGER PRIMARY KEY, festival NOT NULL, sub_fest NOT NULL, '
    f"digest TEXT NOT NULL, UNIQUE (festival, sub_fest))",
    f'CREATE VIRTUAL TABLE IF NOT EXISTS "{PAIRS}" USING fts5('
    f"pairs, candidate UNINDEXED, tokenize='ascii', detail=none)",
    f'CREATE TABLE IF NOT EXISTS "{COUNTS}" (scope INTEGER NOT NULL, term TEXT NOT NULL, '
    f"total INTEGER NOT NULL, PRIMARY KEY (scope, term)) WITHOUT ROWID",
)
# What earlier versions made beside their index (or without the index of pairs or the kept
# counts): made again.
_STALE = (f'DROP TABLE IF EXISTS "{INDEX}"', f'DROP TABLE IF EXISTS "{PAIRS}"', f'DROP TABLE IF EXISTS "{SCOPES}"',
          f'DROP TABLE IF EXISTS "{COUNTS}"')


def create_text_index(db):
    """Create the index where it is missing (safe to repeat); return whether the database
    has one. An index made for a table that already has rows is filled from them; the
    index of earlier versions (kept by triggers) is replaced."""
    if isinstance(db, PostgresqlDatabase):
        return _create_postgres(db)
    found = db.execute_sql("SELECT sql FROM sqlite_master WHERE name = ?", (INDEX,)).fetchone()
    earlier = found is not None and "content=" in found[0]
    stale = found is not None and not earlier and any(
        not db.execute_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() for name in (PAIRS, COUNTS))
    with db.atomic():
        for sql in (*_EARLIER, *_STALE) if earlier or stale else ():
            db.execute_sql(sql)
        for sql in _SQLITE:
            db.execute_sql(sql)
        if found is None or earlier or stale:
            connection = db.connection()
            festivals = connection.execute(f'SELECT DISTINCT festival FROM "{TABLE}"').fetchall()
            for (festival,) in festivals:
                refresh_text_index(connection, festival)
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


def scope_range(order, table=INDEX):
    """The SQL of ``"rowid" >= ? AND "rowid" < ?`` for the rows of one sub-fest in one sort
    (in ``table``, the index or its pairs): the sub-fest's number is looked up in
    :data:`SCOPES` by the four parameters the caller appends (festival, sub-fest, as stored,
    twice); none: no row."""
    low = f'(SELECT number FROM "{SCOPES}" WHERE festival = ? AND sub_fest = ?) * {1 << SCOPE_SHIFT}'
    start = ORDERS[order] << ORDER_SHIFT
    return f'"{table}"."rowid" >= {low} + {start} AND "{table}"."rowid" < {low} + {start + (1 << ORDER_SHIFT)}'


def refresh_text_index(connection, festival):
    """Bring the index of one festival's candidates in step with ``public_candidate``: each
    sub-fest whose candidates' ids, text or sort keys changed is written again, in both
    sorts; a sub-fest without candidates is removed. ``connection``: SQLite's own (the
    caller's transaction); ``festival``: the id as the table stores it."""
    rows = connection.execute(f'SELECT sub_fest, id, search, chest_no_key, name_key FROM "{TABLE}" '
                              f'WHERE festival = ?', (festival,)).fetchall()
    by_scope = {}
    for sub_fest, *row in rows:
        by_scope.setdefault(sub_fest, []).append(row)
    held = {sub_fest: (number, digest) for number, sub_fest, digest in connection.execute(
        f'SELECT number, sub_fest, digest FROM "{SCOPES}" WHERE festival = ?', (festival,))}
    removed, changed = changed_sub_fests(held, by_scope)
    for number in removed:
        _clear(connection, number)
        connection.execute(f'DELETE FROM "{SCOPES}" WHERE number = ?', (number,))
    for sub_fest, number, digest, candidates in changed:
        if number is None:
            number = connection.execute(f'INSERT INTO "{SCOPES}" (festival, sub_fest, digest) VALUES (?, ?, ?)',
                                        (festival, sub_fest, digest)).lastrowid
        else:
            _clear(connection, number)
            connection.execute(f'UPDATE "{SCOPES}" SET digest = ? WHERE number = ?', (digest, number))
        rows = list(_index_rows(number, candidates))
        connection.executemany(f'INSERT INTO "{INDEX}" (rowid, words, candidate) VALUES (?, ?, ?)', rows)
        connection.executemany(f'INSERT INTO "{PAIRS}" (rowid, pairs, candidate) VALUES (?, ?, ?)',
                               [(rowid, pair_tokens(words), candidate) for rowid, words, candidate in rows])
        _keep_counts(connection, number, [search for _, search, *_ in candidates])


def changed_sub_fests(held, by_scope):
    """``(removed, changed)`` of a festival's sub-fests: the numbers of those the index holds
    that have no candidates now, and ``(sub-fest, number or None, digest, candidates)`` of
    each whose candidates differ from what the index holds. ``held``: sub-fest -> (number,
    digest) as stored; ``by_scope``: sub-fest -> its candidates' rows (id first), sorted here
    by id, so the digest does not depend on the order they were read in."""
    removed = [number for sub_fest, (number, _) in held.items() if sub_fest not in by_scope]
    changed = []
    for sub_fest, candidates in by_scope.items():
        candidates.sort()
        digest = _digest(candidates)
        number, was = held.get(sub_fest, (None, None))
        if digest != was:
            changed.append((sub_fest, number, digest, candidates))
    return removed, changed


def common_terms(texts):
    """The terms of ``texts`` (compiled ``search`` columns) kept in :data:`COUNTS`: each word
    of a value and each beginning of one, of 2 characters or more, that begins the words of
    at least :data:`KEPT_FROM` of them."""
    found = {}
    for text in texts:
        beginnings = {word[:length] for value in text.split(SEARCH_SEPARATOR) for word in value.split()
                      for length in range(2, len(word) + 1)}
        for term in beginnings:
            found[term] = found.get(term, 0) + 1
    return sorted(term for term, words in found.items() if words >= KEPT_FROM)


def _keep_counts(connection, number, texts):
    """Count each common term of a sub-fest in its range of the index (in the chest number
    sort; the count a request makes without a kept one: :func:`count_sql`) and keep the counts."""
    rows = []
    for term in common_terms(texts):
        index, match = (INDEX, phrase(term)) if len(term) >= MIN_INDEXED else (PAIRS, pair_query([term]))
        [(total,)] = connection.execute(
            f'SELECT COUNT(*) FROM "{index}" WHERE "{index}" MATCH ? AND "{index}"."rowid" >= ? AND "{index}"."rowid" < ?',
            (match, number << SCOPE_SHIFT, (number << SCOPE_SHIFT) + (1 << ORDER_SHIFT))).fetchall()
        rows.append((number, term, total))
    connection.executemany(f'INSERT INTO "{COUNTS}" (scope, term, total) VALUES (?, ?, ?)', rows)


def count_sql(index, found):
    """The SQL of a search's total, ``found`` the index's condition (MATCH and the sub-fest's
    range, :func:`scope_range`): the count kept in :data:`COUNTS` for the term (its
    parameters first: festival, sub-fest, the A-Z folded term), else a count of the index's
    rows; SQLite's ``coalesce`` runs the count only when no count is kept."""
    kept = (f'SELECT total FROM "{COUNTS}" WHERE scope = (SELECT number FROM "{SCOPES}" WHERE festival = ? AND '
            f'sub_fest = ?) AND term = ?')
    return f'SELECT coalesce(({kept}), (SELECT COUNT(*) FROM "{index}" WHERE {found}))'


def phrase(term):
    """A term as an FTS5 phrase (``"`` doubled): its trigrams at consecutive places."""
    return '"' + term.replace('"', '""') + '"'


def _index_rows(number, candidates):
    for order, at in ORDERS.items():
        key = _SORT_KEYS[order]
        ordered = sorted(candidates, key=lambda row: (bytes(row[key]), row[0]))
        base = number << SCOPE_SHIFT | at << ORDER_SHIFT
        for position, (candidate, search, *_) in enumerate(ordered):
            yield base + position, search, candidate


def _clear(connection, number):
    for table in (INDEX, PAIRS):
        connection.execute(f'DELETE FROM "{table}" WHERE rowid >= ? AND rowid < ?',
                           (number << SCOPE_SHIFT, (number + 1) << SCOPE_SHIFT))
    connection.execute(f'DELETE FROM "{COUNTS}" WHERE scope = ?', (number,))


def pair_tokens(text):
    """The text of a row of :data:`PAIRS`: each pair of consecutive characters of ``text``
    and the separator after it, as one word (the hex of its UTF-8), so a term of two
    characters, which has no trigram, is one word of the index (:func:`pair_query`)."""
    text += SEARCH_SEPARATOR
    return " ".join(text[at:at + 2].encode().hex() for at in range(len(text) - 1))


def pair_query(terms):
    """The FTS5 query of :data:`PAIRS` for terms of two characters (A-Z folded), all of them."""
    return " AND ".join(f'"{term.encode().hex()}"' for term in terms)


def _digest(candidates):
    digest = hashlib.blake2b(digest_size=16)
    for row in candidates:
        for value in row:
            data = value if isinstance(value, bytes) else str(value).encode()
            digest.update(len(data).to_bytes(4, "big") + data)
    return digest.hexdigest()
