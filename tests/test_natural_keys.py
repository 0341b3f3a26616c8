"""Rows without ids and references by natural keys; ids derived the same on every import."""
import uuid

import pytest

from conftest import SMALL, writable
from db.source import models as m
from natural_festival import SLUG, natural_festival
from seed.pipeline.write.importer import FixtureError, import_fixture, validate
from seed.pipeline.check.natural_keys import derive_id


def problems_of(data):
    with pytest.raises(FixtureError) as caught:
        validate(data)
    return caught.value.problems


def entry(chest, sub_fest="main"):
    return (m.SubFestCandidate.select().join(m.SubFest).join(m.Festival)
            .where(m.Festival.slug == SLUG, m.SubFest.slug == sub_fest, m.SubFestCandidate.chest_no == chest).get())


def test_a_festival_without_ids_imports_with_every_reference_resolved(fresh_app):
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        anu = entry("101")
        assert anu.team.name == "Red School" and anu.team.parent.name == "Red"
        assert anu.candidate.admission_number == "ADM-1"
        assert [link.section.key for link in anu.section_links] == ["day"]
        assert entry("101", "junior").candidate.name == "Farah"
        p1 = m.SubFestProgramme.get(m.SubFestProgramme.code == "P1", m.SubFestProgramme.sub_fest == anu.sub_fest)
        assert p1.programme.code == "LM" and p1.category.name == "Senior"
        assert p1.position_criteria.name == "Individual" and p1.grade_criteria.name == "AB"
        assert [link.judge.name for link in p1.judge_links] == ["Jaya"]
        assert p1.schedules.get().venue.name == "Hall"
        group = m.Registration.get(m.Registration.group_name == "Red voices")
        assert [member.sub_fest_candidate.chest_no for member in group.members.order_by(m.RegistrationMember.display_order)] == ["101", "102"]
        result = m.Result.get(m.Result.registration == group)
        assert result.sub_fest_programme.code == "G1"
        page = m.WebsitePage.get(m.WebsitePage.slug == "results", m.WebsitePage.festival == anu.sub_fest.festival)
        assert [link.placeholder.label for link in page.placeholder_links] == ["Toppers"]
        assert m.GalleryImage.get(m.GalleryImage.image_url == "https://example.org/1.jpg").sub_fest_programme == p1


def test_ids_are_derived_from_the_festival_slug_and_the_natural_key(fresh_app):
    _, url = fresh_app
    with writable(url):
        summary = import_fixture(natural_festival())
        main = entry("101").sub_fest
        assert str(main.id) == derive_id(SLUG, "subFests", "", "main")
        assert str(entry("101").id) == derive_id(SLUG, "subFestCandidates", main.id, "101")
        ids = {model: {row.id for row in model.select()} for model in (m.SubFestCandidate, m.Result, m.News)}
        again = import_fixture(natural_festival())
        assert {model: {row.id for row in model.select()} for model in ids} == ids
    assert again.revision == summary.revision + 1
    assert again.row_diff.empty, again.row_diff.lines()


def test_explicit_ids_and_natural_keys_mix(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    chosen = str(uuid.uuid4())
    data["subFests"][0]["id"] = chosen
    data["categories"][0] = {"sub_fest": chosen, "name": "Senior"}
    data["festival"]["id"] = festival_id = str(uuid.uuid4())
    with writable(url):
        import_fixture(data)
        assert str(entry("101").sub_fest_id) == chosen
        assert str(m.Festival.get(m.Festival.slug == SLUG).id) == festival_id
        assert str(entry("101").category.sub_fest_id) == chosen


@pytest.mark.parametrize("mutate, path, words", [
    # "P1" is a programme code of both sub-fests
    (lambda d: d["registrations"][0].pop("sub_fest_slug"), "$.registrations[0].sub_fest_programme_code",
     ["'P1'", "2", "sub_fest_slug"]),
    (lambda d: d["registrations"][1].update(chest_no="999"), "$.registrations[1].chest_no",
     ["'999'", "sub-fest 'main'"]),
    (lambda d: d["subFestCandidates"][0].update(team_name="Blue"), "$.subFestCandidates[0].team_name",
     ["'Blue'", "sub-fest 'main'"]),
    (lambda d: d["results"][0].update(chest_no="104"), "$.results[0].chest_no", ["'104'", "registration"]),
    (lambda d: d["subFestProgrammes"][0].update(programme_code="XX"), "$.subFestProgrammes[0].programme_code",
     ["'XX'"]),
    (lambda d: d["websitePages"][0].update(placeholder_labels=["Nope"]), "$.websitePages[0].placeholder_labels[0]",
     ["'Nope'"]),
    (lambda d: d["galleryImages"][0].update(album_title="Day 9"), "$.galleryImages[0].album_title", ["'Day 9'"]),
    (lambda d: d["candidates"][0].pop("admission_number"), "$.candidates[0]", ["id", "admission_number"]),
    (lambda d: d["categories"][0].pop("sub_fest_slug"), "$.categories[0]", ["sub_fest_slug", "required"]),
    (lambda d: d["registrations"][2].update(sub_fest_candidate=str(uuid.uuid4())), "$.registrations[2].chest_no",
     ["different rows"]),
])
def test_bad_natural_keys_name_the_row_and_the_key(fresh_app, mutate, path, words):
    _, url = fresh_app
    data = natural_festival()
    mutate(data)
    with writable(url):
        problems = problems_of(data)
    messages = [message for where, message in problems if where == path]
    assert messages, problems
    assert all(word in messages[0] for word in words), messages


def test_a_key_used_twice_names_the_key_and_the_other_row(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["venues"].append({"name": "Hall", "location": "elsewhere"})
    with writable(url):
        problems = problems_of(data)
    # the rows have no id: the problem names the key they share, not an id
    assert problems == [("$.venues[1].name", "name 'Hall' is given twice (also $.venues[0]): keep one of the two rows")]


def test_an_id_of_another_festival_names_the_row_and_that_festival(fresh_app, fixture_data):
    _, url = fresh_app
    data = natural_festival()
    taken = fixture_data[SMALL]["downloads"][0]["id"]
    data["downloads"][0]["id"] = taken
    with writable(url):
        problems = problems_of(data)
    assert problems == [("$.downloads[0].id", f"download id {taken} belongs to another festival ({SMALL!r})")]
