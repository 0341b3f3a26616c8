"""Buffered inserts of compiled rows."""
from ..compiled.tables import PublicTag

CHUNK = 200


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
            fields = [model._meta.fields[name] for name in rows[0]]
            for start in range(0, len(rows), CHUNK):
                model.insert_many(rows[start:start + CHUNK], fields=fields).execute()
        self._rows = {}
