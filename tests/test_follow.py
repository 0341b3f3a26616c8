"""``festival-api follow``: a workbook served over HTTP, saved while `follow` runs as a real
process; what it publishes is read back through the API, as a website would."""
import contextlib
import functools
import http.server
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from openpyxl import Workbook

from app import create_app
from conftest import API, TEST_SETTINGS, writable
from db.compiled.tables import create_tables
from db.source import models as m
from db.source.keys import create_key
from seed.pipeline.write.importer import import_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "seed" / "examples" / "district-fest-csv"
SLUG = "district-fest-2026"
FESTIVAL_API = Path(sys.executable).with_name("festival-api")
INTERVAL = 1.0
# What one look and one apply of this small workbook may take beyond the intervals
# themselves, on a loaded 2-core machine.
APPLY_ALLOWANCE = 3.0
RESULT_COLUMNS = ["sub_fest_slug", "sub_fest_programme_code", "chest_no", "score", "position", "is_published",
                  "published_at", "withdrawn"]
# HS-LM as the example has it: results entered, none published yet.
HS_LM = [["general", "HS-LM", "1013", 95, 1, "no", None, None],
         ["general", "HS-LM", "1023", 90, 2, "no", None, None],
         ["general", "HS-LM", "1021", 89, 3, "no", None, None]]
# UP-LM as the example has it: published.
UP_LM_1008 = ["general", "UP-LM", "1008", 97, 1, "yes", "2026-11-16 10:30", None]


def save(path, results, programmes=()):
    """Save the office's result workbook the way a spreadsheet does: whole, then in place."""
    book = Workbook()
    book.active.title = "festival"
    book.active.append(["slug"])
    book.active.append([SLUG])
    if programmes:
        sheet = book.create_sheet("subFestProgrammes")
        sheet.append(["sub_fest_slug", "code", "status"])
        for row in programmes:
            sheet.append(row)
    sheet = book.create_sheet("results")
    sheet.append(RESULT_COLUMNS)
    for row in results:
        sheet.append(row)
    temporary = path.with_name(f"~{path.name}")
    book.save(temporary)
    os.replace(temporary, path)


def published(rows):
    return [[*row[:5], "yes", "2026-11-17 12:00", None] for row in rows]


class Served:
    """A folder served over HTTP on 127.0.0.1 from a thread; ``stop`` and ``start`` again on
    the same port make an address that stops answering and comes back."""

    def __init__(self, folder):
        self.folder = folder
        self.port = None
        self.start()

    def start(self):
        handler = functools.partial(_QuietHandler, directory=str(self.folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port or 0), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Follow:
    """``festival-api follow`` as a process; its stderr lines are collected as they come."""

    def __init__(self, url, database_url, *args):
        env = {**os.environ, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen([str(FESTIVAL_API), "follow", url, "--interval", str(INTERVAL), *args],
                                        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, pattern, timeout=20, after=0):
        """The first line from the ``after``-th on matching ``pattern``, and when it came."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, line in self.lines[after:]:
                if re.search(pattern, line):
                    return at, line
            if self.process.poll() is not None and not self.reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "\n".join(line for _, line in self.lines))

    def count(self, pattern):
        return sum(1 for _, line in self.lines if re.search(pattern, line))

    def stop(self, signal_number=signal.SIGTERM):
        self.process.send_signal(signal_number)
        code = self.process.wait(timeout=20)
        self.reader.join(timeout=5)
        return code


@pytest.fixture(scope="module")
def example_database(tmp_path_factory):
    """``(path, key)``: a SQLite database holding the example festival and a key, made once per module."""
    path = tmp_path_factory.mktemp("follow") / "example.sqlite3"
    with writable(f"sqlite:///{path}"):
        create_tables()
        import_file(EXAMPLE)
        key = create_key(m.Festival.get(m.Festival.slug == SLUG), label="test")[1]
    return path, key


@pytest.fixture
def festival(example_database, tmp_path):
    """A SQLite database of its own holding the example festival, an API client on it, and a key."""
    source, key = example_database
    target = tmp_path / "follow.sqlite3"
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    url = f"sqlite:///{target}"
    app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
    client = app.test_client()

    def results(code):
        answer = client.get(f"{API}/programme-result", headers={"X-API-Key": key},
                            query_string={"programCode": code, "subFestSlug": "general"})
        assert answer.status_code in (200, 404), answer.get_data(as_text=True)
        return sorted(re.findall(r'"chestNo": ?"(\d+)"', answer.get_data(as_text=True)))

    return url, results


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    server = Served(folder)
    yield server
    with contextlib.suppress(Exception):
        server.stop()


@contextlib.contextmanager
def following(url, database_url, *args):
    process = Follow(url, database_url, *args)
    try:
        yield process
    finally:
        if process.process.poll() is None:
            process.process.kill()
            process.process.wait()


def test_a_saved_workbook_is_live_within_two_intervals_and_sigterm_stops_it(festival, served):
    database_url, results = festival
    path = served.folder / "results.xlsx"
    save(path, HS_LM)
    assert results("HS-LM") == []
    with following(served.url("results.xlsx"), database_url) as follow:
        follow.wait_for(r"no changes; district-fest-2026 stays at revision \d+")
        save(path, published(HS_LM), programmes=[["general", "HS-LM", "result_published"]])
        saved = time.monotonic()
        at, line = follow.wait_for(r"published district-fest-2026 revision \d+", timeout=2 * INTERVAL + APPLY_ALLOWANCE)
        assert at - saved <= 2 * INTERVAL + APPLY_ALLOWANCE
        assert "subFestProgrammes: 0 added, 1 changed, 0 withdrawn" in line
        assert "results: 0 added, 3 changed, 0 withdrawn" in line and "(programmes general HS-LM)" in line
        assert results("HS-LM") == ["1013", "1021", "1023"]
        time.sleep(3 * INTERVAL)  # unchanged: looked at, not applied again
        assert follow.count("published") == 1
        assert follow.stop(signal.SIGTERM) == 0
    assert follow.lines[-1][1] == f"Stopped following {served.url('results.xlsx')}"


def test_a_withdrawal_is_refused_and_not_applied_then_applied_once_the_row_says_so(festival, served):
    database_url, results = festival
    path = served.folder / "results.xlsx"
    save(path, [UP_LM_1008])
    assert "1008" in results("UP-LM")
    with following(served.url("results.xlsx"), database_url) as follow:
        follow.wait_for("no changes")
        save(path, [[*UP_LM_1008[:5], "no", None, None]])
        _, line = follow.wait_for(r"would take 1 published record\(s\) away from the public; nothing was applied")
        follow.wait_for(r"published result general UP-LM chest 1008, position 1: would be unpublished")
        time.sleep(3 * INTERVAL)
        assert "1008" in results("UP-LM"), "the refused withdrawal is not applied"
        assert follow.count("would take 1 published record") == 1, "said once, not every turn"
        save(path, [[*UP_LM_1008[:7], "yes"]])  # the row withdraws the result itself
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 0 changed, 1 withdrawn")
        assert "1008" not in results("UP-LM")
        assert follow.stop() == 0


def test_a_workbook_caught_mid_save_or_with_a_broken_row_waits_and_says_so_once(festival, served):
    database_url, results = festival
    path = served.folder / "results.xlsx"
    save(path, HS_LM)
    whole = path.read_bytes()
    with following(served.url("results.xlsx"), database_url) as follow:
        follow.wait_for("no changes")
        path.write_bytes(whole[: len(whole) // 2])  # the spreadsheet is half-way through writing it
        follow.wait_for(r"waiting: .*is not a readable \.xlsx workbook")
        time.sleep(3 * INTERVAL)
        assert follow.count("is not a readable .xlsx workbook") == 1
        broken = published(HS_LM)
        broken[1][3] = "ninety"
        save(path, broken)
        follow.wait_for(r"has 1 problem\(s\); nothing was applied")
        _, line = follow.wait_for(r"sheet results row 3, column D \(score\)")
        assert "'ninety' is not a number" in line
        time.sleep(3 * INTERVAL)
        assert follow.count("has 1 problem") == 1 and results("HS-LM") == []
        save(path, published(HS_LM))
        follow.wait_for("the wait is over")
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 3 changed")
        assert results("HS-LM") == ["1013", "1021", "1023"]
        assert follow.stop(signal.SIGINT) == 0, "Ctrl-C stops it cleanly too"


def test_an_address_that_does_not_answer_is_said_once_and_its_return_too(festival, served):
    database_url, _ = festival
    path = served.folder / "results.xlsx"
    save(path, HS_LM)
    with following(served.url("results.xlsx"), database_url) as follow:
        follow.wait_for("no changes")
        served.stop()
        follow.wait_for(r"waiting: http://127\.0\.0\.1:\d+/results\.xlsx does not answer")
        time.sleep(3 * INTERVAL)
        assert follow.count("does not answer") == 1
        served.start()
        follow.wait_for("back; nothing changed since it was last applied")
        missing = served.url("gone.xlsx")
        assert follow.stop() == 0
    with following(missing, database_url) as follow:
        follow.wait_for(r"waiting: .*/gone\.xlsx answers 404")
        assert follow.stop() == 0


def test_a_folder_of_csv_files_is_followed_too(festival, tmp_path):
    database_url, results = festival
    folder = tmp_path / "office"
    folder.mkdir()
    shutil.copy(EXAMPLE / "festival.csv", folder)
    with following(str(folder), database_url) as follow:
        follow.wait_for("no changes")
        (folder / "~results.csv").write_text("half a file", encoding="utf-8")  # left out: a temporary file
        (folder / "results.csv").write_text(
            "sub_fest_slug,sub_fest_programme_code,chest_no,is_published,published_at\n"
            "general,HS-LM,1013,yes,2026-11-17 12:00\n", encoding="utf-8")
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 1 changed")
        assert results("HS-LM") == ["1013"]
        assert follow.stop() == 0


def test_a_csv_sheet_at_an_address_is_followed_with_its_festival_named(festival, served):
    database_url, results = festival
    path = served.folder / "export"  # a spreadsheet service's link names no file: --sheet says which
    path.write_text("sub_fest_slug,sub_fest_programme_code,chest_no,is_published,published_at\n"
                    "general,HS-LM,1023,yes,2026-11-17 12:00\n", encoding="utf-8")
    with following(served.url("export"), database_url, "--sheet", "results") as follow:
        follow.wait_for(r"waiting: .*/export has 1 problem\(s\)")
        follow.wait_for(r"is one CSV sheet: name its festival with --festival SLUG")
        assert follow.stop() == 0
    with following(served.url("export"), database_url, "--sheet", "results", "--festival", SLUG) as follow:
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 1 changed")
        assert results("HS-LM") == ["1023"]
        assert follow.stop() == 0


def test_a_web_page_instead_of_the_file_is_said_plainly():
    from seed.pipeline.follow import read_content
    from seed.pipeline.read.problems import FixtureError

    with pytest.raises(FixtureError) as caught:
        read_content("https://sheets.example/export", b"<!DOCTYPE html><html>Sign in</html>", "results", SLUG)
    assert caught.value.lines() == ["https://sheets.example/export: a web page came back, not a workbook or a CSV "
                                    "sheet (a sign-in page? the link must download the file itself)"]


def test_each_wait_is_said_once_again_when_it_changes_and_its_end_too():
    """The Follower alone, turn by turn, with a source and an apply that do as told."""
    from types import SimpleNamespace

    from seed.pipeline.diff.row_diff import RowDiff
    from seed.pipeline.follow import Follower, UrlSource, Waiting

    looks = iter([Waiting("x does not answer (refused)"), Waiting("x does not answer (refused)"),
                  Waiting("x answers 503 Service Unavailable"), "v1", "v1", RuntimeError("a bug"), "v1"])

    class Source(UrlSource):  # an address: read once a turn
        def __init__(self):
            self.name = "x"

        def read(self):
            look = next(looks)
            if isinstance(look, Exception):
                raise look
            return look, lambda: look

    said = []
    applied = []

    def apply(content):
        applied.append(content)
        return SimpleNamespace(festival=SimpleNamespace(slug="f"), revision=7, row_diff=RowDiff())

    follower = Follower(Source(), said.append, apply, pause=0)
    stop = SimpleNamespace(is_set=lambda: not remaining(), wait=lambda seconds: None)
    remaining = lambda: looks.__length_hint__()  # noqa: E731
    follower.run(0, stop)
    assert said == ["waiting: x does not answer (refused); nothing was applied",
                    "waiting: x answers 503 Service Unavailable; nothing was applied",
                    "x: the wait is over",
                    "x: no changes; f stays at revision 7",
                    "waiting: x could not be applied (RuntimeError: a bug); nothing was applied, trying again next turn",
                    "x: back; nothing changed since it was last applied"]
    assert applied == ["v1"], "the same content is applied once"


def test_a_refusal_is_said_again_after_another_wait_if_the_same_content_comes_back():
    from types import SimpleNamespace

    from seed.pipeline.follow import Follower, UrlSource, Waiting
    from seed.pipeline.read.problems import FixtureError

    looks = iter(["bad", "bad", Waiting("x does not answer (refused)"), "bad"])

    class Source(UrlSource):
        def __init__(self):
            self.name = "x"

        def read(self):
            look = next(looks)
            if isinstance(look, Exception):
                raise look
            return look, lambda: look

    def apply(content):
        raise FixtureError([("$", "broken")])

    said = []
    follower = Follower(Source(), said.append, apply, pause=0)
    follower.run(0, SimpleNamespace(is_set=lambda: looks.__length_hint__() == 0, wait=lambda seconds: None))
    refusal = "waiting: x has 1 problem(s); nothing was applied, the festival stays as it was:\n  $: broken"
    assert said == [refusal, "waiting: x does not answer (refused); nothing was applied", refusal]
