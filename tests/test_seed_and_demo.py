"""`festival-api seed` is idempotent; `festival-api demo` loads, prints keys and a curl line, serves."""
import os
import re
import socket
import subprocess
import threading
import time
import urllib.request

import pytest
from click.testing import CliRunner

import app.cli as cli_module
from conftest import BIG, SMALL, writable
from db.database import database
from db.source import models as m
from db.source.keys import create_key, find_active_key, list_keys
from test_multiprocess import festival_api


def snapshot():
    """Ids of every stored row but the computed ones (leaderboard entries and histories)."""
    return {model.__name__: sorted(str(row.id) for row in model.select(model.id))
            for model in m.ALL_MODELS if model not in (m.FestivalRevision, m.TopperEntry, m.TopperHistory)}


def test_seed_twice_gives_the_same_data(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/seed.db"
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(cli_module.main, ["seed"]).exit_code == 0
    with writable(url):
        first = snapshot()
    result = runner.invoke(cli_module.main, ["seed"])
    assert result.exit_code == 0, result.output
    with writable(url):
        assert snapshot() == first
        assert {f.slug for f in m.Festival.select()} == {BIG, SMALL}
    assert "subFestCandidates" in result.output, "the import shows its progress"


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """`festival-api demo --port 8123` on a new database with its serving left out, run once for
    the tests that read what it did: ``(result, what it would serve with, database url, the
    time it ended)``."""
    import datetime

    url = f"sqlite:///{tmp_path_factory.mktemp('demo')}/demo.db"
    served = {}
    # Set up before the per-test fixture that puts the shared proxy's binding back
    # (conftest's _keep_database_binding): the binding the command makes is undone here.
    previous = database.obj
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("DATABASE_URL", url)
            patch.setattr(cli_module, "_serve", lambda host, port, threads, config=None: served.update(
                host=host, port=port, threads=threads, config=config))
            result = CliRunner().invoke(cli_module.main, ["demo", "--port", "8123"])
        ended = datetime.datetime.now(datetime.timezone.utc)
    finally:
        if database.obj is not previous:
            if database.obj is not None and not database.obj.is_closed():
                database.obj.close()
            database.initialize(previous)
    return result, served, url, ended


def test_demo_loads_prints_working_keys_and_serves(demo_run):
    result, served, url, _ = demo_run
    assert result.exit_code == 0, result.output
    served = dict(served)
    config = served.pop("config")
    assert served == {"host": "127.0.0.1", "port": 8123, "threads": 8}
    printed = dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", result.output, re.M))
    assert config["DEMO_PAGE"] is True and dict(config["DEMO_API_KEYS"]) == printed
    assert set(printed) == {BIG, SMALL}
    assert re.search(r'curl -H "X-API-Key: fds_\S+" "http://127\.0\.0\.1:8123/public-api/v1/news"',
                     result.output)
    # The README's examples need the big festival's key: it is printed first and used to try.
    assert list(printed)[0] == BIG and config["DEMO_API_KEYS"][0][0] == BIG
    assert f'X-API-Key: {printed[BIG]}"' in result.output.split("Try:")[1]
    with writable(url):
        for slug, plain in printed.items():
            _, festival = find_active_key(plain)
            assert festival.slug == slug


def test_demo_run_again_replaces_its_own_keys_and_touches_no_other_festival(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/demo.db"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setattr(cli_module, "_serve", lambda *args, **kwargs: None)
    runner = CliRunner()
    assert runner.invoke(cli_module.main, ["init"]).exit_code == 0
    with writable(url):
        own = m.Festival.create(slug="our-own-fest", name="Our own fest")
        website_key, website_plain = create_key(own, label="main website")

    runs = []
    for _ in range(2):
        result = runner.invoke(cli_module.main, ["demo", "--port", str(free_port())])
        assert result.exit_code == 0, result.output
        runs.append(dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", result.output, re.M)))
    assert set(runs[0]) == set(runs[1]) == {BIG, SMALL}

    with writable(url):
        assert all(find_active_key(plain) is None for plain in runs[0].values())  # replaced
        assert {slug: find_active_key(plain)[1].slug for slug, plain in runs[1].items()} == {BIG: BIG, SMALL: SMALL}
        active = [(k.festival.slug, re.sub(r" \(process \d+\)$", "", k.label)) for k in list_keys()
                  if k.revoked_at is None]
        assert sorted(active) == sorted([(BIG, "festival-api demo"), (SMALL, "festival-api demo"),
                                         ("our-own-fest", "main website")])
        assert find_active_key(website_plain)[0] == website_key.id
        assert m.FestivalRevision.get_or_none(m.FestivalRevision.festival == own.id) is None


class Demo:
    """`festival-api demo` as a real process: its printed keys, and its stderr as it comes."""

    def __init__(self, tmp_path, port):
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/demo.db", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(festival_api() + ["demo", "--port", str(port)], cwd=tmp_path, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=lambda s=stream, kept=lines: kept.extend(s), daemon=True).start()

    def serving(self, timeout=240):
        deadline = time.monotonic() + timeout
        while not any("Serving on" in line for line in self.err):
            assert self.process.poll() is None and time.monotonic() < deadline, "".join(self.err)
            time.sleep(0.1)
        return dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", "".join(self.out), re.M))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def news_status(port, key):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/public-api/v1/news", headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_second_demo_never_takes_the_running_demos_port_data_or_keys(tmp_path):
    first_port, second_port = free_port(), free_port()
    first = Demo(tmp_path, first_port)
    try:
        keys = first.serving()
        assert news_status(first_port, keys[BIG]) == 200
        database = (tmp_path / "demo.db").stat().st_mtime_ns

        # The same port: refused before anything is written.
        again = subprocess.run(festival_api() + ["demo", "--port", str(first_port)], cwd=tmp_path, timeout=120,
                               env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/demo.db"},
                               capture_output=True, text=True)
        assert again.returncode == 2
        assert again.stderr.strip() == (f"Error: port {first_port} on 127.0.0.1 is already in use: stop what uses "
                                        "it, or choose another port with --port (or PORT)")
        assert again.stdout == "" and (tmp_path / "demo.db").stat().st_mtime_ns == database
        assert news_status(first_port, keys[BIG]) == 200

        # Another port: a second demo serves with keys of its own; the first's keep working.
        second = Demo(tmp_path, second_port)
        try:
            second_keys = second.serving()
            assert second_keys[BIG] != keys[BIG]
            assert news_status(second_port, second_keys[BIG]) == 200
            for slug, key in keys.items():
                assert news_status(first_port, key) == 200, slug
        finally:
            second.stop()
    finally:
        first.stop()


# --- the demo festivals run around today ------------------------------------------------------

def test_demo_dates_each_festival_so_that_it_runs_around_today(demo_run, fixture_data):
    """`festival-api demo` moves every date of a bundled festival by whole days, its middle day
    on today in its own zone: so its schedules are partly still ahead, and each wall-clock time
    stays; the bundled files (and every other command and test) keep their own dates."""
    import datetime
    import zoneinfo

    result, _, url, now = demo_run
    assert result.exit_code == 0, result.output
    with writable(url):
        for slug in (BIG, SMALL):
            bundled = fixture_data[slug]
            festival = m.Festival.get(m.Festival.slug == slug)
            today = now.astimezone(zoneinfo.ZoneInfo(festival.timezone)).date()
            assert today == festival.start_date + (festival.end_date - festival.start_date) // 2
            days = (festival.start_date - datetime.date.fromisoformat(bundled["festival"]["start_date"])).days
            assert f"{festival.start_date} to {festival.end_date}" in result.output
            # Every schedule moved by the same whole days, at the same time of day.
            moved = {str(s.id): aware(s.scheduled_at) for s in m.Schedule.select().join(m.SubFestProgramme)
                     .join(m.SubFest).where(m.SubFest.festival == festival.id)}
            for schedule in bundled["schedules"]:
                was = datetime.datetime.fromisoformat(schedule["scheduled_at"].replace("Z", "+00:00"))
                assert moved[schedule["id"]] - was == datetime.timedelta(days=days), schedule["id"]
            assert any(moment > now for moment in moved.values())  # something is coming up
            # A date of birth is a person's, not the festival's: kept.
            person = bundled["candidates"][0]
            assert str(m.Candidate.get_by_id(person["id"]).date_of_birth) == person["date_of_birth"]


def aware(moment):
    """A stored time (UTC; naive on SQLite) as an aware datetime."""
    import datetime

    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("now, start, end, days", [
    ("2026-11-26T12:00:00+00:00", "2026-01-14", "2026-01-18", 314),   # the middle day, 16 January, on 26 November
    ("2026-11-26T20:00:00+00:00", "2026-01-14", "2026-01-18", 315),   # already 27 November in Kolkata
    ("2026-02-20T03:00:00+00:00", "2026-02-19", "2026-02-21", 0),     # the festival's own middle day
    ("2026-02-20T03:00:00+00:00", "2026-02-19", "2026-02-19", 1),     # a one-day festival: on today
])
def test_the_days_to_today_put_the_middle_day_on_today_in_the_festivals_zone(now, start, end, days):
    import datetime

    from seed.demo_dates import days_to_today

    festival = {"timezone": "Asia/Kolkata", "start_date": start, "end_date": end}
    assert days_to_today(festival, datetime.datetime.fromisoformat(now)) == days


def test_moving_dates_keeps_times_offsets_and_other_values():
    import datetime

    from seed.demo_dates import moved

    data = {"festival": {"start_date": "2026-01-14", "name": "2026-01-14", "updated_at": "2026-01-18T14:00:00Z"},
            "schedules": [{"scheduled_at": "2026-01-31T23:30:00+05:30", "duration_minutes": 30}],
            "candidates": [{"date_of_birth": "2010-05-01", "created_at": None}]}
    assert moved(data, 2, now=datetime.datetime(2027, 1, 1, tzinfo=datetime.timezone.utc)) == {
        "festival": {"start_date": "2026-01-16", "name": "2026-01-14", "updated_at": "2026-01-20T14:00:00Z"},
        "schedules": [{"scheduled_at": "2026-02-02T23:30:00+05:30", "duration_minutes": 30}],
        "candidates": [{"date_of_birth": "2010-05-01", "created_at": None}]}
    assert data["festival"]["start_date"] == "2026-01-14"  # the original is left as it was


def test_no_result_is_published_after_the_import_but_news_ahead_stays_ahead():
    import datetime

    from seed.demo_dates import moved

    now = datetime.datetime(2026, 11, 26, 9, 0, tzinfo=datetime.timezone.utc)
    data = {"results": [{"published_at": "2026-01-14T07:30:00Z"}, {"published_at": "2026-01-18T14:30:00Z"}],
            "subFestProgrammes": [{"published_at": "2026-01-18T13:30:00Z", "candidate_registration_closes_at": "2026-01-18T13:30:00Z"}],
            "news": [{"published_at": "2026-01-18T15:00:00Z"}, {"published_at": "2099-01-01T04:30:00Z"}]}
    assert moved(data, 314, now) == {
        "results": [{"published_at": "2026-11-24T07:30:00Z"}, {"published_at": "2026-11-26T08:00:00Z"}],
        "subFestProgrammes": [{"published_at": "2026-11-26T08:00:00Z", "candidate_registration_closes_at": "2026-11-28T13:30:00Z"}],
        "news": [{"published_at": "2026-11-28T15:00:00Z"}, {"published_at": "2099-11-11T04:30:00Z"}]}


def test_the_demo_s_document_names_the_days_its_festival_has(demo_run, app, keys):
    """The OpenAPI document's date examples name the bundled Kalolsavam's days; the demo moves
    the festival, and its document moves the examples with it: /schedules with its examples
    lists on the demo what it lists on the bundled festival."""
    from app import create_app
    from conftest import API, TEST_SETTINGS

    result, served, url, _ = demo_run
    assert result.exit_code == 0, result.output
    config = served["config"]
    assert config["DEMO_EXAMPLE_DAYS"] != 0  # the bundled days are in January 2026

    def schedules(client, key):
        document = client.get(f"{API}/openapi.json").get_json()
        parameters = document["paths"][f"{API}/schedules"]["get"]["parameters"]
        dated = {p["name"]: p["example"] for p in parameters if p["name"] in ("scheduledAtFrom", "scheduledAtTo")}
        assert len(dated) == 2
        body = client.get(f"{API}/schedules", query_string={**dated, "limit": 500},
                          headers={"X-API-Key": key}).get_json()
        return [(item["subFestProgram"]["code"], item["scheduledAt"][11:]) for item in body["data"]]

    bundled = schedules(app.test_client(), keys[BIG])
    assert bundled
    demo = create_app({"DATABASE_URL": url, **TEST_SETTINGS, **config})  # closed by conftest
    assert schedules(demo.test_client(), dict(config["DEMO_API_KEYS"])[BIG]) == bundled
