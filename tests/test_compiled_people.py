"""The compiled candidates: ``admNoPattern`` compares keyed hashes whose key is made once
per festival and kept, and only a festival that turned the filter on has any
(tests/test_read_model.py: no private value is stored anywhere)."""
import hashlib
import hmac

import pytest

from conftest import API, BIG, SMALL, changed_copy, writable, writable_app_on_copy
from db.compiled.tables import PublicCandidate, PublicSecret
from db.compiler import compile_festival
from db.source import models as m
from seed.pipeline.write.update import update_fixture


def turn_on(slug):
    update_fixture({"formatVersion": 1, "festival": {"slug": slug, "admission_number_filter": True}})


@pytest.fixture(scope="module")
def filter_on_template(seeded, tmp_path_factory):
    """The URL of a copy of the seeded database where both bundled festivals have turned
    ``admNoPattern`` on, made once a module (each update compiles its festival again)."""
    def turn_both_on(url):
        with writable(url):
            turn_on(BIG)
            turn_on(SMALL)

    with changed_copy(seeded[0], tmp_path_factory.mktemp("filter_on"), turn_both_on) as url:
        yield url


@pytest.fixture
def filter_on(filter_on_template, tmp_path):
    """``(app, url)``: a private copy where both bundled festivals have turned ``admNoPattern`` on."""
    with writable_app_on_copy(filter_on_template, tmp_path) as made:
        yield made


def hash_key(slug):
    festival = m.Festival.get(m.Festival.slug == slug)
    return PublicSecret.get(PublicSecret.festival == festival.id).hash_key


def numbered_candidate(data):
    """A visible sub-fest candidate whose person has an admission number, and the number."""
    people = {p["id"]: p for p in data["candidates"]}
    for row in data["subFestCandidates"]:
        person = people[row["candidate"]]
        if person.get("admission_number") and all(
                r.get("is_active", True) and r.get("is_public", True) for r in (row, person)):
            return row, person["admission_number"]
    raise AssertionError("the fixture must hold a visible candidate with an admission number")


def test_a_festival_that_has_not_turned_the_filter_on_has_no_digest_at_all(app):
    for slug in (BIG, SMALL):
        festival = m.Festival.get(m.Festival.slug == slug)
        assert not PublicSecret.get(PublicSecret.festival == festival.id).admission_number_filter
        assert not (PublicCandidate.select()
                    .where((PublicCandidate.festival == festival.id) & PublicCandidate.adm_no_digest.is_null(False))
                    .exists())


def test_adm_no_digest_is_a_keyed_hash_of_the_folded_number(filter_on, fixture_data):
    _, url = filter_on
    with writable(url):
        key = hash_key(BIG)
        assert len(key) == 64 and key != hash_key(SMALL)
        row, number = numbered_candidate(fixture_data[BIG])
        digest = PublicCandidate.get(PublicCandidate.id == row["id"]).adm_no_digest
    assert digest == hmac.new(bytes.fromhex(key), number.lower().encode(), hashlib.sha256).hexdigest()
    assert digest != hashlib.sha256(number.lower().encode()).hexdigest()


def test_turning_the_filter_off_again_drops_every_digest(filter_on):
    _, url = filter_on
    with writable(url):
        update_fixture({"formatVersion": 1, "festival": {"slug": BIG, "admission_number_filter": False}})
        festival = m.Festival.get(m.Festival.slug == BIG)
        assert not PublicSecret.get(PublicSecret.festival == festival.id).admission_number_filter
        assert not (PublicCandidate.select()
                    .where((PublicCandidate.festival == festival.id) & PublicCandidate.adm_no_digest.is_null(False))
                    .exists())


def test_the_hash_key_is_kept_across_compiles_and_made_when_missing(filter_on, fixture_data, keys):
    app, url = filter_on
    row, number = numbered_candidate(fixture_data[BIG])

    def found():
        response = app.test_client().get(f"{API}/candidates", headers={"X-API-Key": keys[BIG]},
                                         query_string={"subFestId": row["sub_fest"], "admNoPattern": number})
        return [item["id"] for item in response.get_json()["data"]]

    def digest():
        return PublicCandidate.get(PublicCandidate.id == row["id"]).adm_no_digest

    with writable(url):
        festival = m.Festival.get(m.Festival.slug == BIG)
        key, before = hash_key(BIG), digest()
        compile_festival(festival.id)
        assert (hash_key(BIG), digest()) == (key, before)
    assert found() == [row["id"]]
    with writable(url) as db, db.atomic():
        # One transaction, as any write of compiled rows is: a snapshot between the delete and
        # the compile would be the festival without its key at a revision already copied.
        PublicSecret.delete().where(PublicSecret.festival == festival.id).execute()
        compile_festival(festival.id)
        assert hash_key(BIG) != key and digest() != before
    assert found() == [row["id"]]
