"""Buffered inserts of compiled rows."""
from ..bulk import insert_rows
from ..compiled.tables import PublicTag


class Writer:
    """Collects compiled rows per table and inserts them in chunks."""

    def __init__(self, festival_id):
        self.festival_id = festival_id
        self._rows = {}

    def add(self, model, **row):
        self._rows.setdefault(model, []).append({"festival": self.festival_id, **row})

    def tag(self, kind, item, values):
        """Rows of ``PublicTag``: ``item`` of list ``kind`` has each of ``values``."""
        for value in dict.fromkeys(str(v) for v in values if v is not None):
            self.add(PublicTag, kind=kind, item=item, value=value)

    def flush(self):
        for model, rows in self._rows.items():
            insert_rows(model, rows)
        self._rows = {}
