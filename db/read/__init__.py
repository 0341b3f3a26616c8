"""Request-time readers: each answers one request from the compiled tables
(``db/read_model.py``) with one indexed query, and returns stored public JSON."""
from ..read_model import PublicTag
from .sql import Select, column, equals


def tagged(model, kind, festival_id, values):
    """Rows of ``model`` that have any of ``values`` in ``PublicTag`` list ``kind``."""
    return model.id.in_(PublicTag
                        .select(PublicTag.item)
                        .where((PublicTag.festival == festival_id) & (PublicTag.kind == kind)
                               & PublicTag.value.in_([str(v) for v in values])))


def wanted(condition, value):
    """``condition`` when ``value`` is true, its negation when false."""
    return condition if value else ~condition


def find_by_selectors(model, columns, festival_id, selectors):
    """``columns`` (as Python values) of the festival's rows of ``model`` matching every
    selector ``(field, value)`` whose value is not None: at most two rows, by id, enough
    to tell "none", "one" and "ambiguous" apart."""
    select = Select(model).where(*equals(model.festival, festival_id))
    for model_field, value in selectors:
        if value is not None:
            select.where(*equals(model_field, value))
    select.order = column(model.id)
    return [tuple(f.python_value(value) for f, value in zip(columns, row))
            for row in select.rows(*columns, limit=2)]
