"""A Kalolsavam N times the bundled one, for load tests: ``build_kalolsavam(scale=N)``.

tests/test_fixtures.py checks that the scaled festival holds every kind of record the
bundled ones do (hidden kinds, ties, statuses, private fields); here: its size, its
unique numbers and ids, its withdrawn entries, the command line and the import.
"""
import re
from collections import Counter

import pytest

from conftest import BIG, SCALED, writable
from db.source import models as m
from seed import FIXTURE_DIR
from seed.generate import main
from seed.generator import build_kalolsavam, dump
from seed.pipeline.write.importer import import_file

SCALED_SECTIONS = ["candidates", "subFestCandidates", "subFestProgrammes", "schedules", "registrations", "results"]
MALAYALAM = re.compile("[\u0d00-\u0d7f]")


def test_scale_one_is_the_bundled_kalolsavam(fixture_data):
    assert build_kalolsavam(scale=1) == fixture_data[BIG]


@pytest.mark.parametrize("scale", [0, -1, 1.5, "2"])
def test_a_scale_that_is_not_a_whole_number_of_1_or_more_is_refused(scale):
    with pytest.raises(ValueError, match="scale must be a whole number of 1 or more, not "):
        build_kalolsavam(scale=scale)


def test_scaled_festival_has_its_own_slug(scaled_kalolsavam):
    festival = scaled_kalolsavam["festival"]
    assert festival["slug"] == SCALED
    assert festival["name"] == "Kerala School Kalolsavam 2026 (×2)"


@pytest.mark.parametrize("section", SCALED_SECTIONS)
def test_counts_scale(fixture_data, scaled_kalolsavam, section):
    ratio = len(scaled_kalolsavam[section]) / len(fixture_data[BIG][section])
    assert 1.9 <= ratio <= 2.1, (section, ratio)


def test_programme_statuses_keep_the_bundled_mix(fixture_data, scaled_kalolsavam):
    bundled = Counter(row["status"] for row in fixture_data[BIG]["subFestProgrammes"])
    scaled = Counter(row["status"] for row in scaled_kalolsavam["subFestProgrammes"])
    hidden_kinds = 4  # the hidden programmes of a public sub-fest are not scaled
    assert scaled == {status: 2 * n - (hidden_kinds if status == "result_published" else 0)
                      for status, n in bundled.items()}


def _duplicates(values):
    return [value for value, n in Counter(values).items() if n > 1]


@pytest.mark.parametrize("scale", [2, 3])
def test_numbers_codes_slugs_and_names_are_unique(scale, scaled_kalolsavam):
    data = scaled_kalolsavam if scale == 2 else build_kalolsavam(scale=scale)
    assert _duplicates(row["chest_no"] for row in data["subFestCandidates"]) == []
    assert _duplicates(row["code"] for row in data["programmes"]) == []
    assert _duplicates(row["code"] for row in data["subFestProgrammes"]) == []
    assert _duplicates(row["slug"] for row in data["subFests"]) == []
    assert _duplicates((row["sub_fest"], row["name"]) for row in data["teams"]) == []
    assert _duplicates((row["sub_fest"], row["level"], row["display_order"]) for row in data["teams"]
                       if "HIDDEN" not in row["name"]) == []


def _ids(data):
    return [row["id"] for rows in data.values() if isinstance(rows, list) for row in rows] + [data["festival"]["id"]]


def test_ids_are_unique_and_differ_from_the_bundled_festivals(fixture_data, scaled_kalolsavam):
    ids = _ids(scaled_kalolsavam)
    assert _duplicates(ids) == []
    assert set(ids).isdisjoint(i for data in fixture_data.values() for i in _ids(data))


def test_people_have_malayalam_names(scaled_kalolsavam):
    public = [row for row in scaled_kalolsavam["candidates"] if "HIDDEN" not in row["name"]]
    assert len(public) >= 800
    assert [row["name"] for row in public if not MALAYALAM.search(row["name_local"] or "")] == []


def test_withdrawn_entries_of_every_kind(scaled_kalolsavam):
    withdrawn = [row for row in scaled_kalolsavam["registrations"] if not row["is_active"]]
    results = {row["registration"]: row for row in scaled_kalolsavam["results"]}
    assert {row["type"] for row in withdrawn} == {"individual", "group"}
    assert any(row["id"] not in results for row in withdrawn)
    assert any(results.get(row["id"], {}).get("is_published") and results[row["id"]]["points"] > 0
               for row in withdrawn)
    assert 0.015 < len(withdrawn) / len(scaled_kalolsavam["registrations"]) < 0.025


# --- the command line and the import ---------------------------------------------------------------


def test_command_line_writes_the_scaled_festival_into_a_folder(tmp_path, capsys, scaled_kalolsavam):
    main(["--scale", "2", "--out", str(tmp_path)])
    path = tmp_path / f"{SCALED}.json"
    assert path.read_text(encoding="utf-8") == dump(scaled_kalolsavam)
    assert capsys.readouterr().out.startswith(f"wrote {path} (")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_command_line_scale_one_writes_the_bundled_kalolsavam_to_a_file(tmp_path):
    main(["--scale", "1", "--out", str(tmp_path / "one.json")])
    assert (tmp_path / "one.json").read_bytes() == (FIXTURE_DIR / f"{BIG}.json").read_bytes()


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_command_line_refuses_a_bad_scale(value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--scale", value, "--out", "unused.json"])
    assert exited.value.code == 2
    assert f"argument --scale: must be a whole number of 1 or more, not '{value}'" in capsys.readouterr().err


def _count(model, festival):
    query = model.select()
    if model is m.Candidate:
        return query.where(model.festival == festival).count()
    if model is m.SubFestCandidate:
        return query.join(m.SubFest).where(m.SubFest.festival == festival).count()
    if model in (m.Registration, m.Result, m.Schedule):
        query = query.join(m.SubFestProgramme)
    elif model is not m.SubFestProgramme:
        raise AssertionError(model)
    return query.switch(m.SubFestProgramme).join(m.SubFest).where(m.SubFest.festival == festival).count()


MODELS = {"candidates": m.Candidate, "subFestCandidates": m.SubFestCandidate,
          "subFestProgrammes": m.SubFestProgramme, "schedules": m.Schedule, "registrations": m.Registration,
          "results": m.Result}


def test_scaled_festival_imports_beside_the_bundled_ones(fresh_app, tmp_path, scaled_kalolsavam):
    _, url = fresh_app
    path = tmp_path / "scaled.json"
    path.write_text(dump(scaled_kalolsavam), encoding="utf-8")
    with writable(url):
        summary = import_file(path)
        assert summary.festival.slug == SCALED
        bundled = m.Festival.get(m.Festival.slug == BIG)
        for section in SCALED_SECTIONS:
            imported = _count(MODELS[section], summary.festival)
            assert imported == len(scaled_kalolsavam[section]), section
            assert 1.9 <= imported / _count(MODELS[section], bundled) <= 2.1, section
        assert m.Festival.select().count() == 3
