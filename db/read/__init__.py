"""Request-time readers: each answers one request from the compiled tables
(``db/read_model.py``) with one indexed query, and returns stored public JSON."""
from ..read_model import PublicTag


def tagged(model, kind, festival_id, values):
    """Rows of ``model`` that have any of ``values`` in ``PublicTag`` list ``kind``."""
    return model.id.in_(PublicTag
                        .select(PublicTag.item)
                        .where((PublicTag.festival == festival_id) & (PublicTag.kind == kind)
                               & PublicTag.value.in_([str(v) for v in values])))


def wanted(condition, value):
    """``condition`` when ``value`` is true, its negation when false."""
    return condition if value else ~condition
