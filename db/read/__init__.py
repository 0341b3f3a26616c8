"""Request-time readers: each answers one request from the compiled tables
(``db/compiled/tables.py``) with one indexed query, and returns stored public JSON."""
from .sql import Select, column, equals


def find_by_selectors(model, columns, festival_id, selectors, *conditions):
    """``columns`` (as Python values) of the festival's rows of ``model`` matching every
    selector ``(field, value)`` whose value is not None, and every ``(sql, params)`` of
    ``conditions``: at most two rows, by id, enough to tell "none", "one" and "ambiguous"
    apart."""
    select = Select(model).where(*equals(model.festival, festival_id))
    for model_field, value in selectors:
        if value is not None:
            select.where(*equals(model_field, value))
    for condition in conditions:
        select.where(*condition)
    select.order = column(model.id)
    return [tuple(f.python_value(value) for f, value in zip(columns, row))
            for row in select.rows(*columns, limit=2)]
