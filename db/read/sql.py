"""The SQL of request-time reads, written from fragments: filters as a table of data.

A compiled table is flat and indexed for its reads, so a request's SQL is a few ``WHERE``
fragments, an ``ORDER BY`` that an index gives in order (``db.compiled.tables.sort_indexes``)
and a ``LIMIT``; the total of a list no filter narrows is read, not counted. Building it
from strings costs microseconds; building the same with Peewee's query objects cost about
as much as the rest of a request.
Every value is a bound parameter, converted by the column's own Peewee field (UUIDs,
booleans and datetimes are stored differently by each engine); nothing from a request is
ever formatted into the SQL text.

A fragment is written with ``?`` for parameters; :func:`run` turns them into the engine's
marker.
"""
from dataclasses import dataclass, field

from ..compiled.tables import PublicTag, PublicTotal
from ..compiled.text_index import MIN_INDEXED, phrase
from ..database import database, is_postgres
from ..query import SEARCH_SEPARATOR, Page, ascii_lower, escape_like


def marks(values):
    """``?, ?, ?`` for ``values``."""
    return ", ".join("?" * len(values))


def column(model_field):
    return f'"{model_field.column_name}"'


def values_of(model_field, values):
    """Request values as the column stores them."""
    return [model_field.db_value(v) for v in values]


def one_of(model_field, values):
    """``column IN (...)`` (any of ``values``)."""
    values = list(values)
    return f"{column(model_field)} IN ({marks(values)})", values_of(model_field, values)


def equals(model_field, value):
    return f"{column(model_field)} = ?", [model_field.db_value(value)]


def compare(model_field, operator, value):
    """``column <operator> value``, the operator one of ``<``, ``<=``, ``>``, ``>=``."""
    if operator not in ("<", "<=", ">", ">="):
        raise ValueError(f"not a comparison: {operator!r}")
    return f"{column(model_field)} {operator} ?", [model_field.db_value(value)]


def any_bool(model_field, wanted_values):
    """A boolean array: any of the wanted values."""
    return one_of(model_field, sorted(set(bool(v) for v in wanted_values)))


def _like(model_field, pattern):
    return f"{column(model_field)} LIKE ? ESCAPE '\\'", [ascii_lower(pattern)]


def contains_all(model_field, terms):
    """Every term occurs in a compiled ``search`` column (``%``, ``_``, ``\\`` literal)."""
    parts, params = [], []
    for term in terms:
        if SEARCH_SEPARATOR in term:
            return "1 = 0", []
        sql, args = _like(model_field, f"%{escape_like(term)}%")
        parts.append(sql)
        params += args
    return " AND ".join(parts) or "1 = 1", params


def indexed_terms(terms):
    """The terms a trigram index finds (``MIN_INDEXED`` characters or more), A-Z folded;
    none when no row can match (a term holding the separator)."""
    if any(SEARCH_SEPARATOR in term for term in terms):
        return []
    return [ascii_lower(term) for term in terms if len(term) >= MIN_INDEXED]


def uses_text_index(terms):
    """Whether :func:`indexed_contains_all` reads ``terms`` through the FTS5 table (SQLite,
    a term of ``MIN_INDEXED`` characters or more)."""
    return bool(terms) and bool(indexed_terms(terms)) and not is_postgres()


def uses_pairs(terms):
    """Whether a list's search reads ``terms`` through the index of pairs of characters
    (SQLite, every term two characters long: none has a trigram)."""
    return (bool(terms) and all(len(term) == 2 and SEARCH_SEPARATOR not in term for term in terms)
            and not is_postgres())


def indexed_contains_all(model_field, terms, index):
    """:func:`contains_all`, with the trigram ``index`` of the column (an FTS5 table of the
    same text, ``db.compiled.text_index``) deciding on SQLite: every term of
    ``MIN_INDEXED`` characters or more, as an FTS5 phrase (``"`` doubled), must be in the
    row. Such a phrase is exactly the rule's match: the tokenizer is ``case_sensitive 1`` and
    the term is A-Z folded as the column is, so a phrase of a term's trigrams at consecutive
    places is the term as a substring, and FTS5 takes no character of a quoted phrase as
    syntax. Only shorter terms (no trigram) keep their ``LIKE``. The index names its rows'
    ids (``candidate``). PostgreSQL's trigram index serves the ``LIKE`` itself. (A list of
    one sub-fest reads the index in its sort order instead: :class:`IndexedSearch`.)"""
    if not uses_text_index(terms):
        return contains_all(model_field, terms)
    short, params = contains_all(model_field, [term for term in terms if len(term) < MIN_INDEXED])
    return (f'{column(model_field.model.id)} IN (SELECT "candidate" FROM "{index}" WHERE "{index}" MATCH ?) '
            f'AND {short}', [match_query(terms), *params])


def match_query(terms):
    """The FTS5 query of the terms the index finds: each a quoted phrase, all of them."""
    return " AND ".join(phrase(term) for term in indexed_terms(terms))


# A term this long is found, for a page, by three of its trigrams (see ``sparse_match_query``).
SPARSE_FROM = 7


def sparse_match_query(terms):
    """``(query, long terms)``: the FTS5 query of :func:`match_query`, but a term of
    ``SPARSE_FROM`` characters or more is its first, middle and last trigram, each anywhere
    in the row; the rows it finds hold more than the long terms' matches, so the caller
    checks those terms on the row (their ``LIKE``). A phrase of every trigram of a whole
    name (14 for "abhinav b. kurup") walks every one of their lists through the sub-fest,
    common ones ("an ", " b.") too; three of them find the few rows to check for less."""
    parts, long_terms = [], []
    for term in indexed_terms(terms):
        if len(term) < SPARSE_FROM:
            parts.append(phrase(term))
            continue
        long_terms.append(term)
        middle = (len(term) - 3) // 2
        parts += [phrase(term[at:at + 3]) for at in dict.fromkeys((0, middle, len(term) - 3))]
    return " AND ".join(parts), long_terms


def pattern_any(model_fields, patterns):
    """Any of ``patterns`` (``*`` = any run of characters) matches any of the folded columns."""
    parts, params = [], []
    for pattern in patterns:
        like = "%".join(escape_like(part) for part in pattern.split("*"))
        for model_field in model_fields:
            sql, args = _like(model_field, like)
            parts.append(sql)
            params += args
    return "(" + " OR ".join(parts) + ")", params


def tagged(model, kind, festival_id, values):
    """Rows of ``model`` that have any of ``values`` in ``PublicTag`` list ``kind``."""
    T = PublicTag
    values = [str(v) for v in values]
    return (f'{column(model.id)} IN (SELECT "item" FROM "{T._meta.table_name}" '
            f'WHERE "festival" = ? AND "kind" = ? AND "value" IN ({marks(values)}))',
            [T.festival.db_value(festival_id), kind, *values])


def negate(fragment):
    sql, params = fragment
    return f"NOT ({sql})", params


@dataclass
class Select:
    """``SELECT columns FROM table WHERE ... ORDER BY ...`` from fragments."""

    model: type
    conditions: list = field(default_factory=list)
    params: list = field(default_factory=list)
    order: str = ""
    stored_total: tuple = ()  # see ``total_of``

    def where(self, sql, params=()):
        self.conditions.append(f"({sql})")
        self.params.extend(params)
        return self

    def total_of(self, list_name, festival_id, owner_id):
        """The rows so far are the whole list ``list_name`` of ``owner_id`` (the festival,
        a sub-fest or a placeholder): while no later condition narrows them, ``count`` reads
        the total the compiler stored."""
        self.stored_total = (len(self.conditions), list_name, festival_id, owner_id)
        return self

    def filter(self, filters, args):
        """AND ``filters[name](value)`` for every argument sent (None and [] are not sent)."""
        for name, make in filters.items():
            value = args.get(name)
            if value is None or value == []:
                continue
            self.where(*make(value))
        return self

    def sort(self, sorts, sort_by, sort_order, tie_breaker):
        """Order by ``sorts[sort_by]`` (a field or a tuple of fields), NULLs last in both
        directions, then by ``tie_breaker``: the terms of the field's sort index."""
        fields_ = sorts[sort_by]
        if not isinstance(fields_, tuple):
            fields_ = (fields_,)
        direction = "DESC" if sort_order == "desc" else "ASC"
        keys = []
        for model_field in fields_:
            if model_field.null:
                keys.append(f"({column(model_field)} IS NULL)")
            keys.append(f"{column(model_field)} {direction}")
        keys.append(f"{column(tie_breaker)} {direction}")
        self.order = ", ".join(keys)
        return self

    def _sql(self, columns):
        sql = f'SELECT {", ".join(columns)} FROM "{self.model._meta.table_name}"'
        if self.conditions:
            sql += " WHERE " + " AND ".join(self.conditions)
        return sql

    def rows(self, *model_fields, limit=None, offset=0, leading=("", ())):
        """Rows of ``model_fields`` in order; ``leading`` is ``(sql, params)`` of an expression
        put before them in every row (a page's total)."""
        expression, leading_params = leading
        columns = [column(f) for f in model_fields]
        sql = self._sql([expression, *columns] if expression else columns)
        params = [*leading_params, *self.params]
        if self.order:
            sql += f" ORDER BY {self.order}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params += [limit, offset]
        return run(sql, params).fetchall()

    def first(self, *model_fields):
        """The first row as a tuple of Python values (each field converts its own), or None."""
        rows = self.rows(*model_fields, limit=1)
        if not rows:
            return None
        return tuple(f.python_value(value) for f, value in zip(model_fields, rows[0]))

    def _total(self):
        """``(sql, params)`` of the list's total: the stored one while no condition narrowed
        the rows since ``total_of``, else a count."""
        if self.stored_total and self.stored_total[0] == len(self.conditions):
            return stored_total_sql(*self.stored_total[1:])
        return self._sql(["COUNT(*)"]), self.params

    def count(self):
        sql, params = self._total()
        row = run(sql, params).fetchone()
        return row[0] if row else 0

    def page(self, page, limit, *model_fields):
        """One page of ``model_fields`` tuples and the total, in one statement: the total is
        a scalar subquery on every row of the page (the engine reads it once). Only a page
        with no row asks for the total again: past the end of a list, or of an empty one."""
        offset = (page - 1) * limit
        total_sql, total_params = self._total()
        rows = self.rows(*model_fields, limit=limit, offset=offset,
                         leading=(f"COALESCE(({total_sql}), 0)", total_params))
        if rows:
            return Page(items=[row[1:] for row in rows], page=page, limit=limit, total=rows[0][0])
        return Page(items=[], page=page, limit=limit, total=self.count() if offset else 0)


def stored_total_sql(list_name, festival_id, owner_id):
    """``(sql, params)`` of the total the compiler stored for a list (no row: the list is
    empty)."""
    T = PublicTotal
    return (f'SELECT "total" FROM "{T._meta.table_name}" WHERE "festival" = ? AND "list_name" = ? '
            f'AND "{T.list_owner.column_name}" = ?',
            [T.festival.db_value(festival_id), list_name, T.list_owner.db_value(owner_id)])


def run(sql, params):
    """Execute on the bound database, with its parameter marker."""
    db = database.obj
    if db.param != "?":
        sql = sql.replace("%", "%%").replace("?", db.param)
    return db.execute_sql(sql, params)
