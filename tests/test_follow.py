"""``festival-api follow``: a workbook on this machine or served over HTTP, or a CSV folder,
saved while `follow` runs as a real process; what it publishes is read back through the
API, as a website would. The watched saves at the default interval (30 s) must be applied
well within it; each save is one import, counted by the lines `follow` prints."""
import contextlib
import functools
import hashlib
import http.server
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from openpyxl import Workbook

from app import create_app
import pg_scratch
from conftest import API, ON_POSTGRES, TEST_DATABASE_URL, TEST_SETTINGS, database_copy, writable
from db.compiled.tables import create_tables
from db.source import models as m
from db.source.keys import create_key
from seed.pipeline.write.importer import import_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "seed" / "examples" / "district-fest-csv"
SLUG = "district-fest-2026"
FESTIVAL_API = Path(sys.executable).with_name("festival-api")
INTERVAL = 0.5
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
    book = _book(results, programmes)
    temporary = path.with_name(f"~{path.name}")
    book.save(temporary)
    os.replace(temporary, path)


def _book(results, programmes=()):
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
    return book


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

    def __init__(self, url, database_url, *args, interval=INTERVAL):
        # PYTHONFAULTHANDLER: a process that does not stop prints every thread's stack on SIGABRT (``stop``).
        env = {**os.environ, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}
        every = ["--interval", str(interval)] if interval else []  # None: the default
        self.process = subprocess.Popen([str(FESTIVAL_API), "follow", url, *every, *args],
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
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)  # its stacks, for the failure below
            self.process.wait(timeout=10)
            self.reader.join(timeout=5)
            raise AssertionError(f"follow still ran 20 s after signal {signal_number}; its output and stacks:\n"
                                 + "\n".join(line for _, line in self.lines)) from None
        self.reader.join(timeout=5)
        return code


@pytest.fixture(scope="module")
def example_database(tmp_path_factory):
    """``(url, key)``: a database on the suite's engine holding the example festival and a key,
    made once per module."""
    with contextlib.ExitStack() as stack:
        if ON_POSTGRES:
            url = stack.enter_context(pg_scratch.empty_database(TEST_DATABASE_URL))
        else:
            url = f"sqlite:///{tmp_path_factory.mktemp('follow') / 'example.sqlite3'}"
        with writable(url):
            create_tables()
            import_file(EXAMPLE)
            key = create_key(m.Festival.get(m.Festival.slug == SLUG), label="test")[1]
        yield url, key


@pytest.fixture
def festival(example_database, tmp_path):
    """A database of its own holding the example festival, and what an API client on it
    answers for a programme's results (the chest numbers)."""
    source, key = example_database
    with database_copy(source, tmp_path) as url:
        yield url, _results_of(url, key)


def _results_of(url, key):
    app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
    client = app.test_client()

    def results(code):
        answer = client.get(f"{API}/programme-result", headers={"X-API-Key": key},
                            query_string={"programCode": code, "subFestSlug": "general"})
        assert answer.status_code in (200, 404), answer.get_data(as_text=True)
        return sorted(re.findall(r'"chestNo": ?"(\d+)"', answer.get_data(as_text=True)))

    return results


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    server = Served(folder)
    yield server
    with contextlib.suppress(Exception):
        server.stop()


@contextlib.contextmanager
def following(url, database_url, *args, interval=INTERVAL):
    process = Follow(url, database_url, *args, interval=interval)
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
    folder = office_folder(tmp_path)
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


def office_folder(tmp_path):
    """A folder holding the example's festival.csv alone, as an office starts one."""
    folder = tmp_path / "office"
    folder.mkdir()
    shutil.copy(EXAMPLE / "festival.csv", folder)
    return folder


def scripted_source(looks):
    """An address (read once a turn) whose turns read the items of ``looks`` in order: the
    content, or the Waiting or error raised."""
    from seed.pipeline.follow import UrlSource

    class Source(UrlSource):
        def __init__(self):
            self.name = "x"

        def read(self):
            look = next(looks)
            if isinstance(look, Exception):
                raise look
            return look, lambda: look

    return Source()


def test_each_wait_is_said_once_again_when_it_changes_and_its_end_too():
    """The Follower alone, turn by turn, with a source and an apply that do as told."""
    from types import SimpleNamespace

    from seed.pipeline.diff.row_diff import RowDiff
    from seed.pipeline.follow import Follower, Waiting

    looks = iter([Waiting("x does not answer (refused)"), Waiting("x does not answer (refused)"),
                  Waiting("x answers 503 Service Unavailable"), "v1", "v1", RuntimeError("a bug"), "v1"])

    said = []
    applied = []

    def apply(content):
        applied.append(content)
        return SimpleNamespace(festival=SimpleNamespace(slug="f"), revision=7, row_diff=RowDiff())

    follower = Follower(scripted_source(looks), said.append, apply)
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

    from seed.pipeline.follow import Follower, Waiting
    from seed.pipeline.read.problems import FixtureError

    looks = iter(["bad", "bad", Waiting("x does not answer (refused)"), "bad"])

    def apply(content):
        raise FixtureError([("$", "broken")])

    said = []
    follower = Follower(scripted_source(looks), said.append, apply)
    follower.run(0, SimpleNamespace(is_set=lambda: looks.__length_hint__() == 0, wait=lambda seconds: None))
    refusal = "waiting: x has 1 problem(s); nothing was applied, the festival stays as it was:\n  $: broken"
    assert said == [refusal, "waiting: x does not answer (refused); nothing was applied", refusal]


# A look this soon after a save, at the default 30 s interval, is the file system's event.
WATCH_BOUND = 10.0
PUBLISHED_HS_LM = [["general", "HS-LM", "result_published"]]


def scored(score):
    """HS-LM published, its third place's score changed."""
    rows = published(HS_LM)
    rows[2][3] = score
    return rows


def workbook_bytes(results, programmes=()):
    buffer = io.BytesIO()
    _book(results, programmes).save(buffer)
    return buffer.getvalue()


def test_a_saved_workbook_is_applied_as_it_is_saved_and_once_a_save(festival, tmp_path):
    database_url, results = festival
    folder = tmp_path / "office"
    folder.mkdir()
    path = folder / "results.xlsx"
    save(path, HS_LM)
    with following(str(path), database_url, interval=None) as follow:
        follow.wait_for("no changes")
        assert "as it is saved, and every 30 s" in follow.lines[0][1]
        for n, score in enumerate((88, 87, 86), start=1):
            seen = len(follow.lines)
            lock = folder / ".~lock.results.xlsx#"
            lock.write_text("office,host")  # what a spreadsheet keeps beside the file it has open
            (folder / "notes.txt").write_text(f"save {n}")  # another file of the folder: not looked at
            save(path, scored(score), PUBLISHED_HS_LM)  # a temporary file renamed over the workbook
            saved = time.monotonic()
            lock.unlink()
            at, line = follow.wait_for(r"published district-fest-2026 revision \d+", timeout=WATCH_BOUND, after=seen)
            assert at - saved < WATCH_BOUND
        assert results("HS-LM") == ["1013", "1021", "1023"]
        time.sleep(2)
        assert follow.count("published district-fest") == 3, "one import a save"
        assert follow.count("no changes") == 1, "the notes and the lock file are not looked at"
        assert follow.stop() == 0


def test_a_workbook_written_in_place_in_a_burst_or_half_then_whole_is_one_import_and_no_complaint(festival, tmp_path):
    database_url, results = festival
    path = tmp_path / "results.xlsx"
    save(path, HS_LM)
    with following(str(path), database_url, interval=None) as follow:
        follow.wait_for("no changes")
        whole = workbook_bytes(scored(88), PUBLISHED_HS_LM)
        with open(path, "wb") as fh:  # written in place, piece by piece: a burst of events on the file
            for start in range(0, len(whole), 2048):
                fh.write(whole[start:start + 2048])
                fh.flush()
                time.sleep(0.002)
        follow.wait_for(r"published district-fest-2026 revision \d+: .*results: 0 added, 3 changed",
                        timeout=WATCH_BOUND)
        whole = workbook_bytes(scored(87), PUBLISHED_HS_LM)
        with open(path, "wb") as fh:
            fh.write(whole[: len(whole) // 2])  # half of it, then a pause longer than the quiet time
            fh.flush()
            time.sleep(0.6)
            fh.write(whole[len(whole) // 2:])
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 1 changed",
                        timeout=WATCH_BOUND)
        time.sleep(2)
        assert follow.count("published district-fest") == 2, "one import a save"
        assert not [line for _, line in follow.lines if "waiting" in line], "a save under way is no problem"
        assert results("HS-LM") == ["1013", "1021", "1023"]
        assert follow.stop() == 0


def test_a_csv_folder_changed_file_by_file_is_one_import(festival, tmp_path):
    database_url, results = festival
    folder = office_folder(tmp_path)
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "subFestProgrammes.csv").write_text("sub_fest_slug,code,status\ngeneral,HS-LM,result_published\n",
                                                  encoding="utf-8")
    (staged / "results.csv").write_text(
        "sub_fest_slug,sub_fest_programme_code,chest_no,is_published,published_at\n"
        "general,HS-LM,1013,yes,2026-11-17 12:00\ngeneral,HS-LM,1023,yes,2026-11-17 12:00\n", encoding="utf-8")
    with following(str(folder), database_url, interval=None) as follow:
        follow.wait_for("no changes")
        for name in ("subFestProgrammes.csv", "results.csv"):  # one file, then the next
            os.replace(staged / name, folder / name)
        _, line = follow.wait_for(r"published district-fest-2026 revision \d+", timeout=WATCH_BOUND)
        assert "subFestProgrammes: 0 added, 1 changed" in line and "results: 0 added, 2 changed" in line
        (folder / "results.csv").write_text(  # a spreadsheet saving one CSV file in place
            "sub_fest_slug,sub_fest_programme_code,chest_no,is_published,published_at\n"
            "general,HS-LM,1021,yes,2026-11-17 12:00\n", encoding="utf-8")
        follow.wait_for(r"published district-fest-2026 revision \d+: results: 0 added, 1 changed",
                        timeout=WATCH_BOUND)
        time.sleep(2)
        assert follow.count("published district-fest") == 2, "one import a save"
        assert results("HS-LM") == ["1013", "1021", "1023"]
        assert follow.stop() == 0


def test_with_poll_a_local_workbook_is_looked_at_every_second_instead(festival, tmp_path):
    database_url, results = festival
    path = tmp_path / "results.xlsx"
    save(path, HS_LM)
    with following(str(path), database_url, "--poll", interval=None) as follow:
        follow.wait_for("no changes")
        assert "when its size or time changes (looked at every 1 s: --poll), and every 30 s" in follow.lines[0][1]
        save(path, published(HS_LM), PUBLISHED_HS_LM)
        saved = time.monotonic()
        at, _ = follow.wait_for(r"published district-fest-2026 revision \d+", timeout=WATCH_BOUND)
        assert at - saved < WATCH_BOUND
        assert results("HS-LM") == ["1013", "1021", "1023"]
        time.sleep(2.5)
        assert follow.count("published district-fest") == 1
        assert follow.stop() == 0


def test_a_network_file_system_is_looked_at_not_watched(tmp_path):
    from seed.pipeline.follow import FileSource, Watch, network_file_system

    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "90 22 0:50 / /mnt/office\\040share rw,relatime shared:40 - cifs //office/share rw,vers=3.1.1\n"
        "91 22 0:51 / /mnt/office\\040share/local rw,relatime shared:41 - tmpfs tmpfs rw\n")
    assert network_file_system("/mnt/office share/results.xlsx", mountinfo) == "cifs"
    assert network_file_system("/mnt/office share/local/results.xlsx", mountinfo) is None
    assert network_file_system("/srv/results.xlsx", mountinfo) is None
    assert network_file_system("/mnt/office sharer/results.xlsx", mountinfo) is None
    watch = Watch(FileSource(tmp_path / "gone" / "results.xlsx"))
    assert "cannot be watched" in watch.start(), "no folder to watch: looked at instead"


class _Counted(http.server.BaseHTTPRequestHandler):
    """One file, with an ETag, answering 304 to a request that names it; the statuses and
    the validators asked with are kept on the server."""

    def do_GET(self):
        content = self.server.path.read_bytes()
        tag = f'"{hashlib.sha256(content).hexdigest()[:16]}"'
        self.server.asked.append(self.headers.get("If-None-Match"))
        if self.headers.get("If-None-Match") == tag:
            self.send_response(304)
            self.send_header("ETag", tag)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("ETag", tag)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_request(self, code="-", size="-"):
        self.server.statuses.append(int(code))

    def log_message(self, *args):
        pass


class _CountedFolder(_QuietHandler):
    """A folder served with Last-Modified (http.server's own: it answers If-Modified-Since)."""

    def log_request(self, code="-", size="-"):
        self.server.statuses.append(int(code))
        self.server.asked.append(self.headers.get("If-Modified-Since"))


@pytest.mark.parametrize("validator", ["ETag", "Last-Modified"])
def test_an_address_is_asked_whether_it_changed_and_an_unchanged_file_costs_a_304(tmp_path, validator):
    from seed.pipeline.follow import UrlSource

    path = tmp_path / "results.xlsx"
    save(path, HS_LM)
    earlier = time.time() - 10
    os.utime(path, (earlier, earlier))  # saved before this second: its time says it did not change since
    if validator == "ETag":
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counted)
    else:
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_CountedFolder, directory=str(tmp_path)))
    server.path, server.statuses, server.asked = path, [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        source = UrlSource(f"http://127.0.0.1:{server.server_address[1]}/results.xlsx", timeout=5)
        first, load = source.read()
        again = [source.read() for _ in range(2)]
        assert server.statuses == [200, 304, 304]
        assert server.asked[0] is None and server.asked[1] and server.asked[2] == server.asked[1]
        assert [digest for digest, _ in again] == [first, first]
        assert again[-1][1]().data == load().data, "a 304 is the content last downloaded"
        save(path, published(HS_LM), PUBLISHED_HS_LM)
        changed, load = source.read()
        assert server.statuses[-1] == 200 and changed != first
        assert load().data["results"][0]["is_published"] is True
        if validator == "Last-Modified":  # its time not a second before the answer's Date (saved
            soon = time.time() + 30        # within the second it was sent, whatever the clock says
            os.utime(path, (soon, soon))   # by then): asked whole again
            assert source.read()[0] == changed
            assert server.asked[-1] is None and server.statuses[-1] == 200
    finally:
        server.shutdown()
        server.server_close()


def test_rows_applied_before_are_left_out_unless_the_festival_was_written_since(festival, tmp_path):
    """What ``follow`` gives ``update_source``: the rows changed since it last applied the
    workbook, while nothing else wrote; the whole workbook after another writer, and for
    naming a problem."""
    from seed.pipeline.read.fixture_format import FORMAT_VERSION
    from seed.pipeline.follow import FileSource, Follower
    from seed.pipeline.write.update import update_fixture, update_source

    database_url, _ = festival
    path = tmp_path / "results.xlsx"
    given, said = [], []

    def apply(source):
        given.append(len(source.data.get("results", [])))
        return update_source(source)

    def scores():
        rows = (m.Result.select(m.SubFestCandidate.chest_no, m.Result.score).join(m.Registration)
                .join(m.SubFestCandidate).switch(m.Result).join(m.SubFestProgramme)
                .where(m.SubFestProgramme.code == "HS-LM").tuples())
        return {chest: score for chest, score in rows if chest in ("1013", "1021", "1023")}

    with writable(database_url):
        follower = Follower(FileSource(path), said.append, apply)
        save(path, scored(88), PUBLISHED_HS_LM)
        follower.turn()
        save(path, scored(87), PUBLISHED_HS_LM)
        follower.turn()
        assert given == [3, 1], "the whole workbook first, then the one row it changed"
        assert scores() == {"1013": 95, "1023": 90, "1021": 87}
        # another writer corrects a score
        update_fixture({"formatVersion": FORMAT_VERSION, "festival": {"slug": SLUG}, "results": [
            {"sub_fest_slug": "general", "sub_fest_programme_code": "HS-LM", "chest_no": "1013", "score": 96}]})
        save(path, scored(86), PUBLISHED_HS_LM)
        follower.turn()
        assert given == [3, 1, 3], "written since: the whole workbook, as import --update of it"
        assert scores() == {"1013": 95, "1023": 90, "1021": 86}
        broken = scored(85)
        broken[2][2] = "9999"  # a chest number with no entry, in the one row changed
        save(path, broken, PUBLISHED_HS_LM)
        follower.turn()
        assert given == [3, 1, 3, 1, 3], "refused: applied whole, to name the problem as the workbook has it"
        assert "sheet results row 4" in said[-1] and "9999" in said[-1]
        assert scores() == {"1013": 95, "1023": 90, "1021": 86}


def test_of_a_saved_workbook_only_the_sheets_it_changed_are_read_again(tmp_path):
    from seed.pipeline.follow import FileSource, changed_sheets, read_content

    path = tmp_path / "results.xlsx"
    save(path, HS_LM, PUBLISHED_HS_LM)
    before = path.read_bytes()
    save(path, scored(88), PUBLISHED_HS_LM)  # a score, in one sheet
    scores = path.read_bytes()
    assert changed_sheets(before, scores) == {"results"}
    save(path, scored(88), [["general", "HS-LM", "results_announced"]])
    assert changed_sheets(scores, path.read_bytes()) == {"subFestProgrammes"}
    book = _book(scored(88), PUBLISHED_HS_LM)
    book.create_sheet("_notes").append(["the office's own"])
    book.save(path)
    assert changed_sheets(scores, path.read_bytes()) is None, "the list of sheets changed: read it whole"
    assert changed_sheets(before, before[: len(before) // 2]) is None

    source = FileSource(path)
    save(path, HS_LM, PUBLISHED_HS_LM)
    _, load = source.read()
    source.remember(load())
    save(path, scored(87), PUBLISHED_HS_LM)
    _, load = source.read()
    read = []
    with pytest.MonkeyPatch.context() as patch:
        import seed.pipeline.follow as follow_module

        original = follow_module.read_workbook
        patch.setattr(follow_module, "read_workbook",
                      lambda content, name, sheets=None: read.append(sheets) or original(content, name, sheets))
        partly = load()
    assert read == [{"results"}]
    whole = read_content(str(path), path.read_bytes())
    assert (partly.data, partly.rows, partly.cells, partly.headers) == \
        (whole.data, whole.rows, whole.cells, whole.headers), "as the workbook read whole"
    assert list(partly.data) == list(whole.data)


def test_the_rows_left_out_are_those_held_as_they_are_wherever_they_stand():
    from seed.pipeline.follow import changed_rows
    from seed.pipeline.read.sources import Source

    festival = {"slug": SLUG}
    a, b, c, d = ({"chest_no": str(n), "score": n} for n in (1, 2, 3, 4))
    before = Source("w", {"festival": festival, "results": [a, b, c, c], "news": [{"title": "x"}]})
    after = Source("w", {"festival": festival, "results": [b, a, {**c, "score": 9}, c, d],
                         "news": [{"title": "x"}]},
                   rows={"$.festival": ("festival", 2), **{f"$.results[{i}]": ("results", i + 2) for i in range(5)}},
                   cells={"$.festival.slug": SLUG, "$.results[2].score": "9", "$.results[4].score": "4",
                          "$.results[0].score": "2"})
    narrowed = changed_rows(before, after)
    assert narrowed.data == {"festival": festival, "results": [{**c, "score": 9}, d], "news": []}
    assert narrowed.rows == {"$.festival": ("festival", 2), "$.results[0]": ("results", 4),
                             "$.results[1]": ("results", 6)}, "each row still names its line in the sheet"
    assert narrowed.cells == {"$.festival.slug": SLUG, "$.results[0].score": "9", "$.results[1].score": "4"}
    assert changed_rows(before, Source("w", {"festival": {"slug": "other"}, "results": []})) is None
    assert changed_rows(before, Source("w", {"festival": festival}, problems=[("$", "x")])) is None
