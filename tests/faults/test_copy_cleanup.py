"""The local copy's folders on a real `festival-api serve` on PostgreSQL: removed on every
exit a process sees (SIGTERM, SIGINT, a worker stopped), and those of processes that no
longer run (SIGKILL) removed when `serve` starts; a live process's folder is never touched."""
import os
import signal
import subprocess
import time

import pytest

from db.serving.local_copy import PREFIX, _owner_mark

from .conftest import START_SECONDS
from .test_postgres_faults import watched_and_copied

pytestmark = pytest.mark.postgres  # `pytest -m postgres` (db/serving/STATES.md)


def copies(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith(PREFIX))


def owner(name):
    return int(name[len(PREFIX):].split("-")[2])


def wait_until(condition, what, seconds=START_SECONDS):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "copies"
    path.mkdir()
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_server_removes_its_copy(postgres_database, serve, folder, sig):
    server = serve(postgres_database, LOCAL_COPY_DIR=folder)
    watched_and_copied(server)
    [name] = copies(folder)
    assert owner(name) == server.process.pid
    assert os.path.getsize(folder / name / "compiled.sqlite3") > 100_000
    server.process.send_signal(sig)
    assert server.process.wait(timeout=10) == -sig
    assert copies(folder) == []


def test_a_killed_process_leaves_its_copy_for_the_next_start_which_keeps_a_live_ones(postgres_database, serve,
                                                                                      folder):
    killed = serve(postgres_database, LOCAL_COPY_DIR=folder)
    watched_and_copied(killed)
    live = serve(postgres_database, LOCAL_COPY_DIR=folder)
    watched_and_copied(live)
    killed.process.kill()
    killed.process.wait(timeout=10)
    assert sorted(map(owner, copies(folder))) == sorted([killed.process.pid, live.process.pid])

    started = serve(postgres_database, LOCAL_COPY_DIR=folder)
    watched_and_copied(started)
    assert sorted(map(owner, copies(folder))) == sorted([live.process.pid, started.process.pid])
    assert "the local copy of a process that no longer runs" in started.log()


def test_a_killed_worker_s_copy_is_removed_when_another_starts_and_all_go_on_sigterm(postgres_database, serve,
                                                                                      folder):
    server = serve(postgres_database, LOCAL_COPY_DIR=folder, WORKERS=2)
    wait_until(lambda: len(copies(folder)) == 2, "two workers, two copies")
    victim, other = copies(folder)
    os.kill(owner(victim), signal.SIGKILL)
    wait_until(lambda: victim not in copies(folder) and len(copies(folder)) == 2,
               f"the killed worker's copy removed and a new worker's made: {copies(folder)}")
    assert other in copies(folder)
    server.process.terminate()
    server.process.wait(timeout=20)
    assert copies(folder) == []


# name of a folder (its owner mark, then a random part) -> whether `serve` removes it
def _reused_pid_mark():
    boot, namespace, pid, started = _owner_mark(1).split("-")
    return f"{boot}-{namespace}-{pid}-{int(started) + 1}"


def _dead_pid_mark():
    boot, namespace, _, started = _owner_mark(os.getpid()).split("-")
    with subprocess.Popen(["true"]) as done:
        done.wait()
    return f"{boot}-{namespace}-{done.pid}-{started}"


STALE_CASES = [
    ("this process", lambda: _owner_mark(os.getpid()), False),
    ("a live process (pid 1)", lambda: _owner_mark(1), False),
    ("a process that ended", _dead_pid_mark, True),
    ("a pid used again by a process started later", _reused_pid_mark, True),
    ("an earlier boot", lambda: "0123456789ab-" + _owner_mark(os.getpid()).split("-", 1)[1], True),
    ("another pid namespace", lambda: _owner_mark(os.getpid()).replace(
        _owner_mark(os.getpid()).split("-")[1], "1", 1), False),
    ("an older name, without an owner", lambda: "abcdefgh", False),
    ("an owner not known", lambda: "x-x-123-x", False),
]


@pytest.mark.parametrize("case, mark, removed", STALE_CASES, ids=[case[0] for case in STALE_CASES])
def test_only_the_copies_of_processes_that_no_longer_run_are_removed(tmp_path, case, mark, removed):
    from db.serving.local_copy import remove_stale_copies

    path = tmp_path / f"{PREFIX}{mark()}-abc123de"
    path.mkdir()
    (path / "compiled.sqlite3").write_bytes(b"x")
    (tmp_path / "not-a-copy").mkdir()
    assert remove_stale_copies(str(tmp_path)) == ([str(path)] if removed else [])
    assert path.exists() is not removed
    assert (tmp_path / "not-a-copy").exists()
