"""Ids read from the source tables (``db.source.models.CachedUUIDField``): each value made into
a ``uuid.UUID`` once, the same object for every row naming it, the memory bounded."""
import uuid

from conftest import BIG, ON_POSTGRES
from db.source import models as m


def test_rows_read_give_equal_ids_and_one_object_per_id(app):
    m._uuid_of_text.cache_clear()  # every id below read anew, none pushed out on the way
    festival = m.Festival.get(m.Festival.slug == BIG)
    sub_fests = list(m.SubFest.select().where(m.SubFest.festival == festival.id))
    candidates = list(m.SubFestCandidate.select().where(m.SubFestCandidate.sub_fest.in_([s.id for s in sub_fests])))
    assert candidates and all(isinstance(c.sub_fest_id, uuid.UUID) for c in candidates)
    by_sub_fest = {s.id: s for s in sub_fests}
    for candidate in candidates:
        assert candidate.sub_fest_id == by_sub_fest[candidate.sub_fest_id].id
    if not ON_POSTGRES:  # psycopg2 hands ids as UUIDs already made, one a row
        assert len({id(c.sub_fest_id) for c in candidates}) <= len(sub_fests)
    again = m.SubFest.get_by_id(sub_fests[0].id)
    assert again.id == sub_fests[0].id and again.festival_id == festival.id


def test_the_memory_of_ids_read_is_bounded():
    field = m.BaseModel.id
    values = [uuid.uuid4().hex for _ in range(m.MAX_IDS_READ + 5)]
    read = [field.python_value(value) for value in values]
    assert read == [uuid.UUID(value) for value in values]
    assert m._uuid_of_text.cache_info().currsize == m.MAX_IDS_READ
    assert field.python_value(None) is None and field.python_value(read[-1]) is read[-1]
    assert field.python_value(values[-1]) is read[-1]
