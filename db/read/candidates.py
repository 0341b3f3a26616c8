"""Candidates from the compiled tables: ``/candidates``, ``/candidate-detail`` and
``/candidate-result``.

``admNoPattern`` is an exact match on a keyed hash: the given number is hashed with the
festival's key (:class:`db.compiled.tables.PublicSecret`) and compared with ``adm_no_digest``,
and only when the festival has turned the filter on (:class:`PrivateFilterOff` otherwise).
"""
from ..compiled import kinds
from ..compiled.postgres_search import PLACES, ROWS, has_postgres_search, holds_all, like_all, walks
from ..compiled.tables import PublicCandidate as C
from ..compiled.tables import PublicSecret, adm_no_digest
from ..compiled.text_index import COUNTS, INDEX, MIN_INDEXED, PAIRS, SCOPES, count_sql, pair_query, scope_range
from ..database import database, is_postgres
from ..query import SEARCH_SEPARATOR, Page, ascii_lower
from . import find_by_selectors
from .sql import (
    Select,
    any_bool,
    column,
    contains_all,
    equals,
    indexed_contains_all,
    match_query,
    one_of,
    pattern_any,
    run,
    sparse_match_query,
    tagged,
    uses_pairs,
    uses_text_index,
)

CANDIDATE_SORTS = {
    # Shorter chest numbers first, so numeric ones sort as numbers ("99" before "100").
    "chestNo": C.chest_no_key,
    "name": C.name_key,
}

NOTHING = ("1 = 0", [])
EVERYTHING = ("1 = 1", [])


class PrivateFilterOff(Exception):
    """A filter on a private value that the festival has not turned on."""


def adm_no_digests(festival_id, numbers):
    """The ``adm_no_digest`` values of ``numbers``; :class:`PrivateFilterOff` unless the
    festival's compiled row says the filter is on."""
    found = (Select(PublicSecret).where(*equals(PublicSecret.festival, festival_id))
             .first(PublicSecret.hash_key, PublicSecret.admission_number_filter))
    if not found or not found[1]:
        raise PrivateFilterOff("admNoPattern")
    return [adm_no_digest(found[0], number) for number in numbers]


def _adm_no_pattern(festival_id, numbers):
    digests = adm_no_digests(festival_id, numbers)
    return one_of(C.adm_no_digest, digests) if digests else NOTHING


def candidate_filters(festival_id):
    """The filter table of ``/candidates``: argument name -> SQL fragment."""
    return {
        "search": lambda terms: indexed_contains_all(C.search, terms, INDEX),
        "category_ids": lambda ids: one_of(C.category, ids),
        "team_ids": lambda ids: tagged(C, kinds.TAG_CANDIDATE_TEAM, festival_id, ids),
        "gender": lambda values: one_of(C.gender, values),
        # Every listed candidate is active: isActive=false alone lists nothing.
        "is_active": lambda values: EVERYTHING if True in values else NOTHING,
        "chest_no_pattern": lambda patterns: pattern_any((C.chest_no,), patterns),
        # Exact equality only: a wildcard here would let anyone guess private numbers.
        "adm_no_pattern": lambda numbers: _adm_no_pattern(festival_id, numbers),
        "has_avatar": lambda values: any_bool(C.has_avatar, values),
        "has_registration": lambda values: any_bool(C.has_registration, values),
        "section_ids": lambda ids: tagged(C, kinds.TAG_CANDIDATE_SECTION, festival_id, ids),
    }


def list_candidates(festival_id, sub_fest_id, page, limit, sort_by, sort_order, **filters):
    """One page of a sub-fest's candidates: ``(body,)`` rows. A ``search`` the text index
    serves is read from the index (:func:`_search_page`)."""
    terms = filters.get("search")
    if terms and is_postgres() and not any(value not in (None, []) for name, value in filters.items()
                                           if name != "search"):
        found = _postgres_search_page(festival_id, sub_fest_id, page, limit, sort_by, sort_order, terms)
        if found is not None:
            return found
    if uses_text_index(terms):
        sparse, long_terms = sparse_match_query(terms)
        return _search_page(festival_id, sub_fest_id, page, limit, sort_by, sort_order, filters, INDEX,
                            (sparse, long_terms), match_query(terms))
    if uses_pairs(terms):
        query = pair_query([ascii_lower(term) for term in terms])
        return _search_page(festival_id, sub_fest_id, page, limit, sort_by, sort_order, filters, PAIRS,
                            (query, []), query)
    return (Select(C)
            .where(*equals(C.festival, festival_id))
            .where(*equals(C.sub_fest, sub_fest_id))
            .total_of(kinds.LIST_CANDIDATES, festival_id, sub_fest_id)
            .filter(candidate_filters(festival_id), filters)
            .sort(CANDIDATE_SORTS, sort_by, sort_order, C.id)
            .page(page, limit, C.body))


def _search_page(festival_id, sub_fest_id, page, limit, sort_by, sort_order, filters, index, page_query,
                 count_query):
    """A page of a search through the text index (SQLite; ``db.compiled.text_index``): the
    index's rows of the sub-fest in the sort asked for, a ``rowid`` range, give the matches in
    the list's order, so the page reads the rows it shows and few others (a long term's rows
    are found by three of its trigrams and checked: ``sparse_match_query``). The page reads
    one row past its own: without one, the page is the last and its total needs no count (a
    whole name finds one). Otherwise the total of one term alone is the count the index
    keeps for a common term (``count_sql``), else counts the index's rows alone while only
    the terms the index finds narrow the list; a shorter term or another filter is a
    condition on the candidate's row, read for each match. ``index``: the trigram index, or
    its pairs for terms of two characters (:data:`PAIRS`, ``uses_pairs``); ``page_query``:
    ``(MATCH, long terms to check on the row)``; ``count_query``: the exact MATCH."""
    others = (Select(C).filter({name: make for name, make in candidate_filters(festival_id).items()
                                if name != "search"}, filters))
    terms = filters["search"]
    if index == INDEX:  # the index of pairs finds every term, no term is left for the row
        short, short_params = contains_all(C.search, [term for term in terms if len(term) < MIN_INDEXED])
        if short_params:
            others.where(short, short_params)
    scope = [C.festival.db_value(festival_id), C.sub_fest.db_value(sub_fest_id)] * 2
    found = f'"{index}" MATCH ? AND {scope_range(sort_by, index)}'
    joined = f'"{index}" JOIN "{C._meta.table_name}" ON {column(C.id)} = "{index}"."candidate"'
    # The page: a long term by three of its trigrams, then checked on the row it finds.
    sparse, long_terms = page_query
    checked, checked_params = contains_all(C.search, long_terms) if long_terms else ("1 = 1", [])
    direction = "DESC" if sort_order == "desc" else "ASC"
    offset = (page - 1) * limit
    rows = run(f'SELECT {column(C.body)} FROM {joined} WHERE {" AND ".join([found, *others.conditions, checked])} '
               f'ORDER BY "{index}"."rowid" {direction} LIMIT ? OFFSET ?',
               [sparse, *scope, *others.params, *checked_params, limit + 1, offset]).fetchall()
    if len(rows) <= limit and (rows or not offset):
        return Page(items=rows, page=page, limit=limit, total=offset + len(rows))  # the last page: no count
    rows = rows[:limit]
    # The total: kept for one common term alone, else every term's phrase counted, on the
    # index alone unless another condition is on the row.
    alone = {ascii_lower(term) for term in terms}
    if others.conditions:
        count = f'SELECT COUNT(*) FROM {joined} WHERE {" AND ".join([found, *others.conditions])}'
        params = [count_query, *scope, *others.params]
    elif len(alone) == 1:
        count, params = count_sql(index, found), [*scope[:2], *alone, count_query, *scope]
    else:
        count, params = f'SELECT COUNT(*) FROM "{index}" WHERE {found}', [count_query, *scope]
    total = run(count, params).fetchone()[0]
    return Page(items=rows, page=page, limit=limit, total=total)


def _postgres_search_page(festival_id, sub_fest_id, page, limit, sort_by, sort_order, terms):
    """A page of a search alone on PostgreSQL, read from the sub-fest's narrow rows
    (``db.compiled.postgres_search``): walked in the list's order until the page is full
    when the term's kept count says it is common (and for terms too short for a trigram),
    else found through the trigram index and sorted (``postgres_search.walks``); the total
    is the kept count, else counted on the same rows. Two statements: one that does both
    (each way run only when its condition holds) costs more to plan than a round trip.
    None: the database or the sub-fest has no rows there (no candidates), or a term holds
    the separator (it finds nothing), for the list's own reading to answer."""
    folded = sorted({ascii_lower(term) for term in terms})
    rows_made, trigrams = _search_rows(database.obj)
    if not rows_made or any(SEARCH_SEPARATOR in term for term in folded):
        return None
    found = run(f'SELECT s.number, s.size, (SELECT total FROM "{COUNTS}" WHERE scope = s.number AND term = ?) '
                f'FROM "{SCOPES}" s WHERE s.festival = ? AND s.sub_fest = ?',
                [folded[0] if len(folded) == 1 else None, C.festival.db_value(festival_id),
                 C.sub_fest.db_value(sub_fest_id)]).fetchone()
    if found is None:
        return None
    number, size, kept = found
    place, direction = PLACES[sort_by], "DESC" if sort_order == "desc" else "ASC"
    offset = (page - 1) * limit
    indexed = [term for term in folded if len(term) >= MIN_INDEXED]
    if not indexed or (kept is not None and walks(kept, size, offset, limit)) or not trigrams:
        checked, params = holds_all("words", folded)
        matches = f'SELECT candidate, {place} AS at FROM "{ROWS}" WHERE scope = ? AND {checked}'
        counted = "NULL"
    else:  # "scope + 0": the trigram index finds the rows, not the sort's index
        checked, params = like_all("words", indexed)
        short, short_params = holds_all("words", [term for term in folded if len(term) < MIN_INDEXED])
        matches = (f'SELECT candidate, {place} AS at FROM "{ROWS}" WHERE scope + 0 = ? AND {checked}'
                   + (f" AND {short}" if short else ""))
        params += short_params
        counted = "NULL" if kept is not None else "count(*) OVER ()"
    wanted = limit if kept is not None else limit + 1
    rows = run(f'SELECT p.total, {column(C.body)} FROM (SELECT candidate, at, {counted} AS total FROM ({matches}) m '
               f'ORDER BY at {direction} LIMIT ? OFFSET ?) p JOIN "{C._meta.table_name}" '
               f'ON {column(C.id)} = p.candidate ORDER BY p.at {direction}',
               [number, *params, wanted, offset]).fetchall()
    if kept is not None:
        total = kept
    elif rows and rows[0][0] is not None:
        total = rows[0][0]
    elif len(rows) <= limit and (rows or not offset):
        total = offset + len(rows)  # the last page: no count
    else:  # a full page walked for terms without a kept count, or past the end of the matches
        total = run(f"SELECT count(*) FROM ({matches}) m", [number, *params]).fetchone()[0]
    return Page(items=[row[1:] for row in rows[:limit]], page=page, limit=limit, total=total)


_SEARCH_ROWS = {}  # database -> (whether it has the search rows, and their trigram index)


def _search_rows(db):
    """``(rows, trigrams)``: whether ``db`` has the search rows (not before ``festival-api
    init`` made them after an upgrade) and their trigram index; asked once a database."""
    if db not in _SEARCH_ROWS:
        _SEARCH_ROWS[db] = has_postgres_search(db)
    return _SEARCH_ROWS[db]


DETAIL_COLUMNS = (C.sub_fest, C.detail)
CANDIDATE_ID = (C.id,)


def find_candidates(festival_id, candidate_id=None, chest_no=None, sub_fest_id=None,
                    columns=(C.sub_fest, C.summary, C.results)):
    """``columns`` of the candidates matching every selector given (see
    :func:`find_by_selectors`); by default ``(sub_fest, summary, results)``, and
    ``DETAIL_COLUMNS`` for a detail. Chest numbers compare A-Z case-insensitively."""
    return find_by_selectors(C, columns, festival_id, (
        (C.id, candidate_id), (C.chest_no, None if chest_no is None else ascii_lower(chest_no)),
        (C.sub_fest, sub_fest_id)))
