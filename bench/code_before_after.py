"""The service's request path, the code before a change against the code after, side by side.

    .venv/bin/python bench/code_before_after.py --before DIR [--seconds 3] [--repeat 3]

``DIR`` is a checkout of the earlier code (``git worktree add DIR COMMIT``, or ``git archive
COMMIT | tar -x -C DIR``). Both servers are up at once on one bundled SQLite database (the
response cache off, as in ``bench/read_model.py``), each with its own settings' defaults
but the rate limits off; every row is run with wrk on the two in turn ``--repeat`` times at
1 and 64 connections, so a load that comes and goes falls on both alike. It prints the
medians of req/s and of the server's CPU time a request, and after ÷ before.
"""
import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_model import cases, load_festival, service_env, wrk  # noqa: E402
from result_day import cli, free_port, request  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROWS = ("/programmes", "/programme-results", "/news", "/candidate-result (long tail)")


class CodeServer:
    """``festival-api serve`` of the code in ``folder``, in a child process."""

    def __init__(self, folder, env, threads=8):
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(self.port), "--threads", str(threads)],
            cwd=folder, env={**env, "PYTHONPATH": folder}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                if request(self.port, "/healthz", None)[0] == 200:
                    return
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"the server of {folder} did not start")
            time.sleep(0.1)

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="a checkout of the earlier code")
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--connections", default="1,64")
    args = parser.parse_args(argv)
    before = os.path.abspath(args.before)
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as workdir, contextlib.ExitStack() as stack:
        url = f"sqlite:///{workdir}/festival.db"
        slug, _ = load_festival(url, 1, workdir)
        key = cli("keys", "create", slug, "--label", "bench", env=service_env(url, 0, None)).strip().splitlines()[-1]
        env = {name: value for name, value in service_env(url, 0, None).items() if name != "CONNECTIONS_PER_ADDRESS"}
        servers = {"before": stack.enter_context(contextlib.closing(CodeServer(before, env))),
                   "after": stack.enter_context(contextlib.closing(CodeServer(ROOT, env)))}
        _, found = cases(servers["after"].port, key)
        figures = {}
        for label in ROWS:
            for connections in (int(c) for c in args.connections.split(",")):
                for _ in range(args.repeat):
                    for name, server in servers.items():
                        run = wrk(server.port, found[label], args.seconds, connections,
                                  headers=[f"X-API-Key: {key}"], workdir=workdir, pid=server.process.pid)
                        assert run["errors"] + run["non_2xx_3xx"] == 0, (name, label, run)
                        figures.setdefault((label, connections, name), []).append(run)
        print(f"\n{'row':<34} {'conns':>5} {'req/s before':>12} {'after':>8} {'ratio':>6} "
              f"{'CPU us before':>13} {'after':>8} {'ratio':>6}")
        for label in ROWS:
            for connections in (int(c) for c in args.connections.split(",")):
                rps = [statistics.median(r["rps"] for r in figures[(label, connections, n)]) for n in servers]
                cpu = [statistics.median(r.get("cpu_us", 0) for r in figures[(label, connections, n)])
                       for n in servers]
                print(f"{label:<34} {connections:>5} {rps[0]:>12.0f} {rps[1]:>8.0f} {rps[1] / rps[0]:>6.2f} "
                      f"{cpu[0]:>13.0f} {cpu[1]:>8.0f} {cpu[1] / cpu[0]:>6.2f}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
