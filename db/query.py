"""The text rule both paths share, a page of a list, and the compiled search columns.

Text compares the same on SQLite and PostgreSQL: the ASCII letters A-Z are folded to a-z
and nothing else is (Malayalam has no case; "É" and "é" stay different), then characters
compare by code point, which is UTF-8 byte order. The compiler stores that order as bytes
(``text_sort_key``) and the folded text of searches (``search_text``), so requests compare
plain columns; on the source side ``text_key`` renders the same rule in SQL (``LOWER`` under
SQLite's byte order, or PostgreSQL's "C" collation whatever the database's locale).
Sorting on text orders by that key, then by the exact text (so "Apple" comes before
"apple"), then by id; search and ``*Pattern`` parameters match on it.
"""
import math
import string
from dataclasses import dataclass

from peewee import SQL, CharField, ColumnBase, NodeList, TextField, fn


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


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_lower(text):
    """Fold A-Z to a-z and nothing else: Python's side of ``text_key``."""
    return text.translate(_ASCII_LOWER)


class ByteOrder(ColumnBase):
    """``node`` compared byte by byte: ``COLLATE "C"`` on PostgreSQL, as is on SQLite."""

    def __init__(self, node):
        super().__init__()
        self.node = node

    def __sql__(self, ctx):
        collation = ctx.state.byte_order_collation  # set by db.database.ByteOrderTextMixin
        if collation:
            return ctx.sql(NodeList((self.node, SQL(f"COLLATE {collation}"))))
        return ctx.sql(self.node)


def text_key(column):
    """The engine-independent key of a text column: A-Z folded, compared byte-wise."""
    return fn.LOWER(ByteOrder(column))


def sort_keys(column):
    """What ``ORDER BY`` uses for ``column``: text by ``text_key`` then exact text."""
    if isinstance(column, (CharField, TextField)):
        return (text_key(column), ByteOrder(column))
    return (column,)


def escape_like(text):
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# --- compiled columns: sort keys and search text worked out once, by the compiler -------


def text_sort_key(text):
    """Bytes that sort like ``text`` by the text rule (:func:`sort_keys`): by ``text_key``
    (A-Z folded, code point order), then by the exact text. None stays None (sorted last)."""
    if text is None:
        return None
    return ascii_lower(text).encode() + b"\x00" + text.encode()


# Joins the folded values of a compiled ``search`` column; a term holding it matches nothing.
SEARCH_SEPARATOR = "\x1f"


def search_text(*values):
    """The compiled ``search`` column: every searchable value, A-Z folded."""
    return SEARCH_SEPARATOR.join(ascii_lower(value) for value in values if value)
