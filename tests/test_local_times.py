"""A time without an offset is the festival's local time, in every file format and command."""
import datetime
import json
import re

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import writable
from db.source import models as m
from natural_festival import SLUG, natural_festival
from seed.pipeline.write.importer import FixtureError, import_file, import_fixture, validate
from seed.pipeline.read.local_times import parse_date, parse_time
from seed.pipeline.write.update import update_file, update_fixture

KOLKATA = "Asia/Kolkata"
# The guide's example: 12:51 in Kolkata (UTC+05:30) is 07:21 UTC.
LOCAL, UTC = "2025-09-02 12:51", datetime.datetime(2025, 9, 2, 7, 21)


@pytest.mark.parametrize("text, stored", [
    ("2025-09-02 12:51", UTC),
    ("2025-09-02T12:51:00", UTC),
    ("2025-09-02T12:51", UTC),
    ("2025-09-02 12:51+05:30", UTC),                          # an offset is kept
    ("2025-09-02T12:51:00Z", datetime.datetime(2025, 9, 2, 12, 51)),
    ("2025-09-02T12:51:00+01:00", datetime.datetime(2025, 9, 2, 11, 51)),
    ("2025-09-02", datetime.datetime(2025, 9, 1, 18, 30)),   # local midnight
])
def test_a_time_is_read_in_the_festival_zone_unless_it_has_an_offset(text, stored):
    from zoneinfo import ZoneInfo

    assert parse_time(text, ZoneInfo(KOLKATA)) == stored


@pytest.mark.parametrize("text, words", [
    ("02/09/2025 12:51", ["YYYY-MM-DD HH:MM", "if that is 2 September 2025, write 2025-09-02 12:51"]),
    ("2025-13-02 10:00", ["YYYY-MM-DD HH:MM"]),
    ("noon", ["YYYY-MM-DD HH:MM"]),
])
def test_a_time_that_does_not_parse_says_the_expected_form(text, words):
    with pytest.raises(ValueError) as caught:
        parse_time(text, None)
    message = str(caught.value)
    assert all(word in message for word in words) and "isoformat" not in message, message


def test_a_date_that_does_not_parse_says_the_expected_form():
    with pytest.raises(ValueError) as caught:
        parse_date("16/11/2026")
    assert str(caught.value) == "'16/11/2026' is not a date: write YYYY-MM-DD; if that is 16 November 2026, write 2026-11-16"


def news_published_at(title):
    return m.News.get(m.News.title == title).published_at


def test_a_json_fixture_reads_times_without_an_offset_in_the_festival_zone(fresh_app):
    _, url = fresh_app
    data = natural_festival()
    data["news"][0]["published_at"] = LOCAL
    data["news"].append({"title": "With offset", "status": "published", "published_at": "2025-09-02T12:51:00Z"})
    with writable(url):
        import_fixture(data)
        assert news_published_at("Welcome") == UTC
        assert news_published_at("With offset") == datetime.datetime(2025, 9, 2, 12, 51)


def test_a_csv_folder_reads_times_without_an_offset_in_the_festival_zone(fresh_app, tmp_path):
    _, url = fresh_app
    folder = tmp_path / "fest"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"slug,name,timezone,start_date\nlocal-fest,Local Fest,{KOLKATA},2025-09-01\n",
                                         encoding="utf-8")
    (folder / "news.csv").write_text(f"title,status,published_at\nResults,published,{LOCAL}\n", encoding="utf-8")
    with writable(url):
        import_file(folder)
        assert news_published_at("Results") == UTC
        assert m.Festival.get(m.Festival.slug == "local-fest").start_date == datetime.date(2025, 9, 1)


def test_an_update_reads_times_without_an_offset_in_the_stored_festival_zone(fresh_app, tmp_path):
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        update_fixture({"formatVersion": 1, "festival": {"slug": SLUG},
                        "news": [{"title": "Welcome", "published_at": LOCAL}]})
        assert news_published_at("Welcome") == UTC
        folder = tmp_path / "update"
        folder.mkdir()
        (folder / "festival.csv").write_text(f"slug\n{SLUG}\n", encoding="utf-8")
        (folder / "news.csv").write_text("title,published_at\nWelcome,2025-09-02 13:51\n", encoding="utf-8")
        update_file(folder)
        assert news_published_at("Welcome") == UTC + datetime.timedelta(hours=1)


def test_a_schedule_written_in_local_time_is_found_again_by_an_update(fresh_app):
    """A schedule is known by its time: the same local time names the same schedule."""
    _, url = fresh_app
    data = natural_festival()
    data["schedules"][0]["scheduled_at"] = "2026-01-10 09:00"
    with writable(url):
        import_fixture(data)
        def schedules():
            return (m.Schedule.select().join(m.SubFestProgramme).join(m.SubFest).join(m.Festival)
                    .where(m.Festival.slug == SLUG))
        assert [s.scheduled_at for s in schedules()] == [datetime.datetime(2026, 1, 10, 3, 30)]
        summary = update_fixture({"formatVersion": 1, "festival": {"slug": SLUG}, "schedules": [
            {**data["schedules"][0], "duration_minutes": 45}]})
        assert summary.row_diff.changed == {"schedules": 1}
        assert [s.duration_minutes for s in schedules()] == [45]


@pytest.mark.parametrize("timezone, words", [
    (None, ["timezone is missing", "Asia/Kolkata", "none is assumed"]),
    ("", ["timezone is missing"]),
    ("Asia/Kolkatta", ["'Asia/Kolkatta' is not a time zone", "did you mean 'Asia/Kolkata'"]),
])
def test_a_festival_without_a_valid_timezone_is_refused(fresh_app, timezone, words):
    _, url = fresh_app
    data = natural_festival()
    data["festival"].pop("timezone")
    if timezone is not None:
        data["festival"]["timezone"] = timezone
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            validate(data)
    [(path, message)] = caught.value.problems
    assert path == "$.festival.timezone"
    assert all(word in message for word in words), message


def test_the_cli_refuses_a_csv_festival_without_a_timezone(fresh_app, tmp_path, monkeypatch):
    _, url = fresh_app
    folder = tmp_path / "fest"
    folder.mkdir()
    (folder / "festival.csv").write_text("slug,name\nno-zone-fest,No Zone\n", encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["import", str(folder)])
    assert result.exit_code == 1
    assert "festival.csv line 2: timezone is missing" in result.output
    with writable(url):
        assert not m.Festival.select().where(m.Festival.slug == "no-zone-fest").exists()


def test_the_bundled_festivals_keep_their_times(fixture_data):
    """Their times all carry an offset, so the local-time rule changes none of them."""
    for data in fixture_data.values():
        assert data["festival"]["timezone"] == KOLKATA
        for value in re.findall(r'"\d{4}-\d\d-\d\dT[^"]*"', json.dumps(data)):
            assert value.endswith(('Z"', '+05:30"', '+00:00"')), value
