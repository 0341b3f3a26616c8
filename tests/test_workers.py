"""``festival-api serve --workers N``: N processes on one port, a dead one started again,
all of them stopped with the parent; each process kept on one CPU (``PIN_CPU``)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import BIG, ON_POSTGRES
from test_multiprocess import fetch, festival_api, free_port, process_env, wait_until_serving


def children_of(pid):
    """The pids of ``pid``'s child processes (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return sorted(found)


def cpus_of(pid):
    """The distinct CPU sets of the threads of process ``pid``."""
    found = set()
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            found.add(frozenset(os.sched_getaffinity(int(thread))))
        except OSError:  # a thread that ended meanwhile
            pass
    return found


ALLOWED = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two_cpus = pytest.mark.skipif(len(ALLOWED) < 2, reason="pinning needs two CPUs or more")


def wait_for(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not os.path.isdir("/proc") or not hasattr(os, "fork"), reason="needs Linux processes")
def test_workers_share_the_port_are_started_again_and_stop_with_the_parent(seeded, keys, tmp_path):
    url = seeded[0]
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        parent = subprocess.Popen(festival_api() + ["serve", "--port", str(port), "--threads", "2", "--workers", "2"],
                                  env=process_env(url), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(parent, port, keys[BIG], log)
        workers = wait_for(lambda: len(children_of(parent.pid)) == 2 and children_of(parent.pid))
        assert len(workers) == 2, log.read_text()[-2000:]
        assert "with 2 processes" in log.read_text()
        # Every new connection is answered, whichever worker the kernel gives it to.
        assert {fetch(port, "/news", keys[BIG])[0] for _ in range(20)} == {200}
        pinned = {worker: cpus_of(worker) for worker in workers}
        if len(ALLOWED) >= 2:  # every thread of a worker on one CPU, each worker on its own
            assert all(len(cpus) == 1 and len(next(iter(cpus))) == 1 for cpus in pinned.values()), pinned
            assert pinned[workers[0]] != pinned[workers[1]]

        os.kill(workers[0], signal.SIGKILL)
        again = wait_for(lambda: (lambda now: len(now) == 2 and workers[0] not in now and now)(
            children_of(parent.pid)))
        assert again and workers[1] in again, log.read_text()[-2000:]
        assert "stopped; starting another" in log.read_text()
        assert {fetch(port, "/news", keys[BIG])[0] for _ in range(20)} == {200}
        if len(ALLOWED) >= 2:  # the new worker takes the CPU of the one it replaces
            new = next(worker for worker in again if worker != workers[1])
            assert cpus_of(new) == pinned[workers[0]]
    finally:
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=20)
    assert parent.returncode == 0
    assert not children_of(parent.pid)
    with pytest.raises(OSError):
        fetch(port, "/news", keys[BIG])


def test_a_bad_workers_value_is_one_line_and_exit_2(seeded):
    done = subprocess.run(festival_api() + ["serve", "--workers", "0"], env=process_env(seeded[0]),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--workers" in done.stderr and "Traceback" not in done.stderr


@needs_two_cpus
@pytest.mark.parametrize("pin", ["true", "false"])
def test_one_process_keeps_to_one_cpu_unless_told_not_to(seeded, keys, tmp_path, pin):
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(festival_api() + ["serve", "--port", str(port), "--threads", "4"],
                                  env={**process_env(seeded[0]), "PIN_CPU": pin}, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(server, port, keys[BIG], log)
        assert {fetch(port, "/news", keys[BIG])[0] for _ in range(8)} == {200}  # the worker threads started
        threads = len(os.listdir(f"/proc/{server.pid}/task"))
        assert threads >= 5, threads  # the main thread and four workers, at least
        if pin == "true":
            assert cpus_of(server.pid) == {frozenset({ALLOWED[-1]})}
            assert f"on CPU {ALLOWED[-1]}" in log.read_text()
        else:
            assert cpus_of(server.pid) == {frozenset(ALLOWED)}
            assert "on CPU" not in log.read_text()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


@needs_two_cpus
def test_pinning_covers_threads_started_before_and_after_and_is_left_alone_where_not_allowed():
    script = """
import os, threading
from app.server import pin_to_cpu
started = threading.Event(); stop = threading.Event()
def wait():
    started.set(); stop.wait()
before = threading.Thread(target=wait); before.start(); started.wait()
cpu = pin_to_cpu(1)
after = threading.Thread(target=stop.wait); after.start()
cpus = {frozenset(os.sched_getaffinity(int(t))) for t in os.listdir('/proc/self/task')}
stop.set(); before.join(); after.join()
def refused(*args):
    raise PermissionError(1, 'not allowed')
os.sched_setaffinity = refused
print(cpu, sorted(next(iter(cpus))), len(cpus), pin_to_cpu())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    cpu, pinned, sets, refused = done.stdout.split()  # e.g. "0 [0] 1 None"
    assert int(cpu) == ALLOWED[-2]  # worker 1: the second CPU from the last
    assert pinned == f"[{ALLOWED[-2]}]" and sets == "1"  # every thread, the one before included
    assert refused == "None"
