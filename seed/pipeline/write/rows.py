"""What an import and an update write alike: a row as stored, its link rows, and what
follows the write (the compile step)."""
import uuid

from db.compiler import publish
from db.source import models as m


def link_rows(section, row_id, links):
    """The link-table rows of one row's inline lists, by list name."""
    out = {}
    for name, inline in section.inline.items():
        out[name] = []
        for order, value in enumerate(links.get(name, [])):
            # Derived ids keep link rows stable across re-imports too.
            link = {"id": uuid.uuid5(row_id, f"{name}/{order}/{value}"),
                    inline.parent_field: row_id, inline.value_field: value}
            if inline.order_field:
                link[inline.order_field] = order
            out[name].append(link)
    return out


def stored_row(section, row, festival_id):
    if "festival" in section.model._meta.fields:
        return {**row, "festival": festival_id}
    return row


class DryRun(Exception):
    """Raised inside the transaction of a dry run to roll it back."""


def after_write(festival_id, recompute=True, row_diff=None, explain=False):
    """What every import does once its rows are written: leaderboards, the compiled public
    data (what ``row_diff`` touched, or all of it), the change log and the revision.
    Returns the festival and the ``db.compiler.Publication``."""
    festival = m.Festival.get_by_id(festival_id)
    return festival, publish(festival, recompute=recompute, row_diff=row_diff, explain=explain)
