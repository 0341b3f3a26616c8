"""A list item's JSON cut from its detail's (``schemas.common.item_of_detail``): the compiler
dumps each candidate and programme once; the item must be what the item schema dumps."""
import pytest
from marshmallow import fields

from conftest import BIG
from db.source import models as m
from db.source.candidates import attach_candidate_fields, public_candidate_rows
from db.source.programmes import attach_collections, attach_programme_fields, attach_schedules, public_programme_list
from schemas.candidates import CandidateDetailSchema, CandidateSchema
from schemas.common import OutSchema, item_of_detail
from schemas.programmes import ProgrammeDetailSchema, ProgrammeSchema


def test_every_bundled_candidate_and_programme_item_is_the_item_schemas_dump(app):
    festival = m.Festival.get(m.Festival.slug == BIG)
    candidates = list(public_candidate_rows(festival.id))
    attach_candidate_fields(festival.id, candidates)
    programmes = [p for sub_fest in m.SubFest.select().where(m.SubFest.festival == festival.id)
                  for p in public_programme_list(festival.id, sub_fest.id)]
    attach_programme_fields(festival.id, programmes)
    attach_schedules(programmes)
    attach_collections(programmes)
    assert len(candidates) > 100 and len(programmes) > 50
    for item, detail, records in ((CandidateSchema(), CandidateDetailSchema(), candidates),
                                  (ProgrammeSchema(), ProgrammeDetailSchema(), programmes)):
        item_of = item_of_detail(item, detail)
        for record in records:
            record.context = record.next_schedule = None
            record.candidate_registration_open = record.topic_registration_open = False
            expected = item.dump(record)
            made = item_of(detail.dump(record))
            assert made == expected and list(made) == list(expected)


class Item(OutSchema):
    name = fields.String()
    code = fields.String()


class Detail(Item):
    extra = fields.Integer()


class Redeclared(Item):
    code = fields.Integer()
    extra = fields.Integer()


class Other(OutSchema):
    name = fields.String()
    code = fields.String()
    extra = fields.Integer()


def test_the_item_is_the_details_first_fields_in_order():
    item_of = item_of_detail(Item(), Detail())
    assert list(item_of({"name": "a", "code": "b", "extra": 1})) == ["name", "code"]


@pytest.mark.parametrize("item, detail", [
    (Item(), Redeclared()),           # a field the detail declares again
    (Item(), Other()),                # the same names, not the item's schema
    (Item(only=("name",)), Detail()),  # a cut instance
    (Item(), Detail(exclude=("code",))),
    (Detail(), Item()),
], ids=["redeclared", "unrelated", "only", "exclude", "reversed"])
def test_a_detail_that_is_not_the_item_with_fields_added_is_refused(item, detail):
    with pytest.raises(TypeError):
        item_of_detail(item, detail)
