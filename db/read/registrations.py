"""A candidate's entries from the compiled tables: ``/candidate-registrations``."""
from ..compiled.tables import PublicCandidate as C
from ..compiled.tables import PublicRegistration as R
from ..query import Page
from .sql import column, run

REGISTRATION_SORTS = {
    "registeredAt": R.registered_at,
    "programCode": R.program_code_key,
    "programName": R.program_name_key,
    "type": R.type_key,
}

# The candidate joined to its entries: one row without an entry when it has none. The join
# is on the candidate alone (its id is the festival's), so it uses the (candidate, id) key:
# joined on the festival too, SQLite chose the festival index and read every entry of it.
JOINED = (f'FROM "{C._meta.table_name}" AS c LEFT JOIN "{R._meta.table_name}" AS r '
          f'ON r."candidate" = c."id" '
          f'WHERE c."festival" = ? AND c."id" = ?')


def list_candidate_registrations(festival_id, candidate_id, page, limit, sort_by, sort_order):
    """``(sub_fest, page)``: the candidate's sub-fest and one page of the entries they took
    part in (``(body,)`` rows); None when there is no such public candidate.

    One statement: the candidate with its entries, the total (a candidate's few entries)
    counted over them. Only a page past the end, which has no row, costs a second one.
    """
    direction = "DESC" if sort_order == "desc" else "ASC"
    key = f"r.{column(REGISTRATION_SORTS[sort_by])}"
    order = f'({key} IS NULL), {key} {direction}, r."id" {direction}'
    params = [C.festival.db_value(festival_id), C.id.db_value(candidate_id)]
    offset = (page - 1) * limit
    rows = run(f'SELECT c."sub_fest", r."body", COUNT(r."id") OVER () {JOINED} '
               f"ORDER BY {order} LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
    if rows:
        sub_fest, total = rows[0][0], rows[0][2]
    elif offset:  # past the end, or no such candidate
        found = run(f'SELECT c."sub_fest", COUNT(r."id") {JOINED} GROUP BY c."sub_fest"', params).fetchone()
        if found is None:
            return None
        sub_fest, total = found
    else:
        return None
    items = [(body,) for _, body, _ in rows if body is not None]
    return C.sub_fest.python_value(sub_fest), Page(items=items, page=page, limit=limit, total=total)
