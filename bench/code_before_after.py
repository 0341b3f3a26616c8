"""The service's request path, the code before a change against the code after, side by side.

    .venv/bin/python bench/code_before_after.py --before DIR [--seconds 3] [--repeat 3]
        [--rows "/toppers,/toppers?asOf="] [--scales 1,20] [--connections 1,64]

``DIR`` is a checkout of the earlier code (``git worktree add DIR COMMIT``, or ``git archive
COMMIT | tar -x -C DIR``). For each scale (1: the bundled festivals; N: the N× festival of
``seed.generate``) the earlier code makes a SQLite database and the later code's ``init``
upgrades a copy of it (as a deployment would: a change of the compiled tables' form is
compiled again), so each code reads the form it was written for. Every server is up at once
(the response cache off, as in ``bench/read_model.py``), each with its own settings'
defaults but the rate limits off; every row (``bench/read_model.py``'s names) is run with
wrk on the servers in turn ``--repeat`` times at each number of connections, so a load that
comes and goes falls on all alike. It prints the medians of req/s and of the server's CPU
time a request, after ÷ before, and each row's CPU a request ÷ the first row's (at the same
scale and code) when there are several.
"""
import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_model import cases, load_festival, service_env, wrk  # noqa: E402
from harness import cli, free_port  # noqa: E402
from result_day import request  # noqa: E402

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


def databases(before, scale, workdir):
    """``(before url, after url, key)``: the festival at ``scale`` loaded by the earlier code,
    and a copy of its database upgraded by the later code's ``init``."""
    before_url = f"sqlite:///{workdir}/before-{scale}.db"
    env = {**service_env(before_url, 0, None), "PYTHONPATH": before}
    with contextlib.chdir(before):  # ``python -m`` reads the code of the working directory first
        slug, _ = load_festival(before_url, scale, workdir, env=env)
        key = cli("keys", "create", slug, "--label", "bench", env=env).strip().splitlines()[-1]
    after_url = f"sqlite:///{workdir}/after-{scale}.db"
    shutil.copyfile(before_url[len("sqlite:///"):], after_url[len("sqlite:///"):])
    with contextlib.chdir(ROOT):
        cli("init", env=service_env(after_url, 0, None))
    return before_url, after_url, key


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="a checkout of the earlier code")
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--connections", default="1,64")
    parser.add_argument("--rows", type=lambda text: text.split(","), default=list(ROWS),
                        help="the rows to run, by bench/read_model.py's names, comma-separated")
    parser.add_argument("--scales", type=lambda text: [int(s) for s in text.split(",")], default=[1])
    args = parser.parse_args(argv)
    before = os.path.abspath(args.before)
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as workdir, contextlib.ExitStack() as stack:
        servers, keys, found = {}, {}, {}
        for scale in args.scales:
            before_url, after_url, keys[scale] = databases(before, scale, workdir)
            for name, folder, url in (("before", before, before_url), ("after", ROOT, after_url)):
                env = {k: v for k, v in service_env(url, 0, None).items() if k != "CONNECTIONS_PER_ADDRESS"}
                servers[(scale, name)] = stack.enter_context(contextlib.closing(CodeServer(folder, env)))
            _, found[scale] = cases(servers[(scale, "after")].port, keys[scale])
        print(f"load average with the servers up: {os.getloadavg()}", flush=True)
        figures = {}
        for label in args.rows:
            for connections in (int(c) for c in args.connections.split(",")):
                for _ in range(args.repeat):
                    for (scale, name), server in servers.items():
                        run = wrk(server.port, found[scale][label], args.seconds, connections,
                                  headers=[f"X-API-Key: {keys[scale]}"], workdir=workdir, pid=server.process.pid)
                        assert run["errors"] + run["non_2xx_3xx"] == 0, (name, label, run)
                        figures.setdefault((label, connections, scale, name), []).append(run)
        print(f"\n{'row':<34} {'scale':>5} {'conns':>5} {'req/s before':>12} {'after':>8} {'ratio':>6} "
              f"{'CPU us before':>13} {'after':>8} {'ratio':>6}")
        cpu = {}
        for label in args.rows:
            for scale in args.scales:
                for connections in (int(c) for c in args.connections.split(",")):
                    runs = [figures[(label, connections, scale, n)] for n in ("before", "after")]
                    rps = [statistics.median(r["rps"] for r in each) for each in runs]
                    cpu[(label, scale, connections)] = [statistics.median(r.get("cpu_us", 0) for r in each)
                                                        for each in runs]
                    before_cpu, after_cpu = cpu[(label, scale, connections)]
                    print(f"{label:<34} {scale:>5} {connections:>5} {rps[0]:>12.0f} {rps[1]:>8.0f} "
                          f"{rps[1] / rps[0]:>6.2f} {before_cpu:>13.0f} {after_cpu:>8.0f} {after_cpu / before_cpu:>6.2f}")
        if len(args.rows) > 1:
            first = args.rows[0]
            print(f"\nCPU a request ÷ {first}'s, at the same scale and connections (before → after)")
            for label in args.rows[1:]:
                for scale in args.scales:
                    for connections in (int(c) for c in args.connections.split(",")):
                        ratios = [mine / theirs for mine, theirs in zip(cpu[(label, scale, connections)],
                                                                         cpu[(first, scale, connections)])]
                        print(f"{label:<34} scale {scale:>2} conns {connections:>3}: "
                              f"{ratios[0]:.2f}× → {ratios[1]:.2f}×")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
