"""Query helpers every list shares: sorting, paging, text search and patterns."""
import math
from dataclasses import dataclass

from peewee import SQL, NodeList, Value, fn


@dataclass
class Page:
    """One page of a list: the rows and the numbers for ``meta``."""

    items: list
    page: int
    limit: int
    total: int

    @property
    def meta(self):
        total_pages = math.ceil(self.total / self.limit) if self.total else 0
        return {
            "page": self.page,
            "limit": self.limit,
            "total": self.total,
            "total_pages": total_pages,
            "has_next_page": self.page < total_pages,
            "has_previous_page": self.page > 1 and total_pages > 0,
        }


def apply_sorting(query, sort_by, sort_order, mapping, id_field):
    """Order by the column ``mapping[sort_by]``, then ``id_field`` as the tie-breaker.

    ``mapping`` maps public sort names to columns or expressions; a value may also be a
    tuple of columns. NULLs sort last in both directions on every engine.
    """
    columns = mapping[sort_by]
    if not isinstance(columns, tuple):
        columns = (columns,)
    desc = sort_order == "desc"
    order = []
    for column in columns:
        order.append(column.is_null())  # False (0) before True (1): NULLs last
        order.append(column.desc() if desc else column.asc())
    order.append(id_field.desc() if desc else id_field.asc())
    return query.order_by(*order)


def paginate(query, page, limit, count_query=None):
    """Run ``query`` for one page and count the whole list."""
    total = (count_query or query).order_by().count()
    offset = (page - 1) * limit
    if offset >= total:
        return Page(items=[], page=page, limit=limit, total=total)
    items = list(query.limit(limit).offset(offset))
    return Page(items=items, page=page, limit=limit, total=total)


def _escape_like(text):
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def ilike(column, pattern):
    """Case-insensitive LIKE with ``\\`` as the escape character, on every engine."""
    return NodeList((
        fn.LOWER(column), SQL("LIKE"),
        Value(pattern.lower(), converter=False), SQL("ESCAPE"), Value("\\", converter=False),
    ))


def contains(column, term):
    """``column`` contains ``term``, case-insensitively; ``%``, ``_`` and ``\\`` are literal."""
    return ilike(column, f"%{_escape_like(term)}%")


def matches_pattern(column, pattern):
    """A ``*Pattern`` parameter: ``*`` matches any run of characters, nothing else is special."""
    return ilike(column, "%".join(_escape_like(part) for part in pattern.split("*")))


def search_terms(columns, terms):
    """Every term must match at least one of ``columns``."""
    condition = None
    for term in terms:
        any_column = None
        for column in columns:
            expr = contains(column, term)
            any_column = expr if any_column is None else (any_column | expr)
        condition = any_column if condition is None else (condition & any_column)
    return condition


def any_of(conditions):
    """OR together a list of conditions (several values of one parameter)."""
    result = None
    for condition in conditions:
        result = condition if result is None else (result | condition)
    return result


def presence(column, wanted=True):
    """``column`` holds a non-empty value (or, with ``wanted=False``, does not)."""
    present = column.is_null(False) & (column != "")
    return present if wanted else ~present


def apply_filters(query, filters, args):
    """AND together ``filters[name](value)`` for every argument that was sent.

    ``filters`` is a table: argument name -> function returning a condition. Arguments
    that are None or empty lists were not sent and add nothing.
    """
    for name, make_condition in filters.items():
        value = args.get(name)
        if value is None or value == []:
            continue
        query = query.where(make_condition(value))
    return query
