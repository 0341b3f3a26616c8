"""An update compiles again only what it touched, and that gives the very rows a full
compile gives: the compiled view never depends on how it was reached."""
import pytest

from conftest import writable
from db.compiled.tables import READ_MODELS
from db.compiler import Scope, compile_festival
from db.source import models as m
from natural_festival import SLUG, natural_festival
from seed.importer import import_fixture
from seed.update import update_fixture
from test_update import junior_results, update


def comparable(value):
    return bytes(value) if isinstance(value, memoryview) else value  # PostgreSQL's bytea


def compiled_rows(festival_id):
    """Every compiled row of the festival, as comparable tuples, per table."""
    return {model.__name__: sorted(repr(tuple(map(comparable, row)))
                                   for row in model.select().where(model.festival == festival_id).tuples())
            for model in READ_MODELS}


@pytest.fixture
def natural(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        yield m.Festival.get(m.Festival.slug == SLUG).id


UPDATES = {
    "a programme's results published": junior_results,
    "a withdrawn entry": lambda: update(registrations=[
        {"sub_fest_slug": "junior", "sub_fest_programme_code": "P1", "chest_no": "101", "withdrawn": True}]),
    "a renamed candidate": lambda: update(candidates=[{"admission_number": "ADM-1", "name": "Renamed Person"}]),
}


@pytest.mark.parametrize("name", UPDATES)
def test_an_update_compiles_the_same_rows_as_a_full_compile(natural, name):
    festival_id = natural
    summary = update_fixture(UPDATES[name]())
    assert summary.changes.touched["subFestProgrammes"] or summary.changes.touched["subFestCandidates"]
    after_update = compiled_rows(festival_id)
    compile_festival(festival_id)
    assert compiled_rows(festival_id) == after_update


def test_a_scope_compiles_only_its_records(natural):
    festival_id = natural
    from db.compiled.tables import PublicCandidate, PublicProgramme

    programmes = PublicProgramme.select().where(PublicProgramme.festival == festival_id).count()
    candidates = PublicCandidate.select().where(PublicCandidate.festival == festival_id).count()
    one = PublicProgramme.select(PublicProgramme.id).where(PublicProgramme.festival == festival_id).first().id
    compile_festival(festival_id, Scope(programme_ids={one}))
    assert PublicProgramme.select().where(PublicProgramme.festival == festival_id).count() == programmes
    assert PublicCandidate.select().where(PublicCandidate.festival == festival_id).count() == candidates
