"""Candidates from the compiled tables: ``/candidates``, ``/candidate-detail`` and
``/candidate-result``.

``admNoPattern`` is an exact match on a keyed hash: the given number is hashed with the
festival's key (:class:`db.compiled.tables.PublicSecret`) and compared with ``adm_no_digest``,
and only when the festival has turned the filter on (:class:`PrivateFilterOff` otherwise).
"""
from ..compiled import kinds
from ..compiled.tables import PublicCandidate as C
from ..compiled.tables import PublicSecret, adm_no_digest
from ..compiled.text_index import INDEX
from ..query import ascii_lower
from . import find_by_selectors
from .sql import Select, any_bool, equals, indexed_contains_all, one_of, pattern_any, tagged, uses_text_index

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
    serves reads the rows it finds and sorts them (a search finds few), not the sort index."""
    select = (Select(C)
              .where(*equals(C.festival, festival_id))
              .where(*equals(C.sub_fest, sub_fest_id))
              .total_of(kinds.LIST_CANDIDATES, festival_id, sub_fest_id)
              .filter(candidate_filters(festival_id), filters)
              .sort(CANDIDATE_SORTS, sort_by, sort_order, C.id))
    if uses_text_index(filters.get("search")):
        select.by_rowid()
    return select.page(page, limit, C.body)


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
