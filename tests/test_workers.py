"""``festival-api serve --workers N``: N processes on one port, a dead one started again,
all of them stopped with the parent."""
import os
import signal
import subprocess
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

        os.kill(workers[0], signal.SIGKILL)
        again = wait_for(lambda: (lambda now: len(now) == 2 and workers[0] not in now and now)(
            children_of(parent.pid)))
        assert again and workers[1] in again, log.read_text()[-2000:]
        assert "stopped; starting another" in log.read_text()
        assert {fetch(port, "/news", keys[BIG])[0] for _ in range(20)} == {200}
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
