"""A revalidated answer (``If-None-Match``, response cache on) beside bare hello, the code before and after.

    .venv/bin/python bench/revalidation_304.py [--before DIR [--before-python PY]] [--seconds 3] [--rounds 2]
                                               [--server-only]

Each code (this checkout, and ``DIR``, a checkout of earlier code, run by ``PY`` when its
dependencies differ) seeds its own SQLite database and serves it (``festival-api serve``,
8 threads, the response cache on, rate limits off, the access log on as in production);
``bench/baselines.py hello`` serves a fixed body beside them. In each round wrk runs one
connection for ``--seconds`` on bare hello, then on each code's ``/programmes`` with the ETag
it answered (every request a ``304``), in turn, so a load that comes and goes falls on all
alike. It prints each run's requests/s, the server's CPU a request, and the ``304`` ÷ bare
hello of the same round (requests/s), then the medians, and bare hello's CPU a request ÷ a
``304``'s (which a shared machine's load moves less than requests/s). ``--server-only``: each
code's server (its ``app.server.create_server``, as ``serve`` makes it) answers every request
with a fixed ``304`` (no app, no database), so what the server alone costs is compared.
"""
import argparse
import contextlib
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_model import API, Baseline, wrk  # noqa: E402
from harness import FESTIVAL, free_port  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATH = f"{API}/programmes?subFestSlug=general&limit=20"


def get(port, path, headers):
    """``(status, headers)`` of a GET."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, {name.lower(): value for name, value in response.getheaders()}
    finally:
        connection.close()


def answering(process, port, path, status, folder):
    """Return once the server ``process`` at ``port`` answers ``path`` with ``status`` (30 s at most)."""
    for _ in range(300):
        with contextlib.suppress(OSError):
            if get(port, path, {})[0] == status:
                return
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"the server of {folder} did not start")


def fixed_304(environ, start_response):
    start_response("304 Not Modified", [("ETag", 'W/"fixed"'), ("Cache-Control", "no-cache")])
    return []


def serve_fixed(port):
    """Serve :func:`fixed_304` through the ``app.server`` found first on the path, with the
    settings ``serve`` gives it (what an older checkout's server takes)."""
    from app import server

    server.pin_to_cpu()
    settings = {"host": "127.0.0.1", "port": port, "threads": 8}
    if os.path.exists(os.path.join(os.path.dirname(server.__file__), "waitress_compat.py")):  # its guards open
        settings.update(connections_per_address=0, threads_per_address=256, header_timeout=5)
    server.create_server(fixed_304, **settings).run()


class FixedSide:
    """One code's server answering a fixed ``304``."""

    def __init__(self, label, folder, python, workdir):
        self.label, self.key, self.etag = label, "", 'W/"fixed"'
        self.port = free_port()
        self.process = subprocess.Popen([python, os.path.abspath(__file__), "--serve-fixed", str(self.port)],
                                        cwd=folder, env={**os.environ, "PYTHONPATH": folder},
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        answering(self.process, self.port, PATH, 304, folder)

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


class Side:
    """One code's server on its own database."""

    def __init__(self, label, folder, python, workdir):
        self.label = label
        url = f"sqlite:///{workdir}/{label}.db"
        self.env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": folder, "RESPONSE_CACHE_SECONDS": "600",
                    "RATELIMIT_DEFAULT": "", "LOG_LEVEL": "INFO", "CONNECTIONS_PER_ADDRESS": "0",
                    "THREADS_PER_ADDRESS": "256"}  # every client from one address

        def cli(*words):
            return subprocess.run([python, "-m", "app.cli", *words], cwd=folder, env=self.env, check=True,
                                  capture_output=True, text=True).stdout

        cli("seed")
        self.key = cli("keys", "create", FESTIVAL, "--label", "bench").strip().splitlines()[-1]
        self.port = free_port()
        self.process = subprocess.Popen([python, "-m", "app.cli", "serve", "--port", str(self.port), "--threads", "8"],
                                        cwd=folder, env=self.env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        answering(self.process, self.port, "/healthz", 200, folder)
        status, headers = get(self.port, PATH, {"X-API-Key": self.key})
        assert status == 200, status
        self.etag = headers["etag"]
        status, _ = get(self.port, PATH, {"X-API-Key": self.key, "If-None-Match": self.etag})
        assert status == 304, status

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", help="a checkout of the earlier code")
    parser.add_argument("--before-python", default=sys.executable, help="the Python that runs it")
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--server-only", action="store_true", help="each code's server alone, answering a fixed 304")
    parser.add_argument("--serve-fixed", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_fixed:
        serve_fixed(args.serve_fixed)
        return
    side_class = FixedSide if args.server_only else Side
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as workdir, contextlib.ExitStack() as stack:
        sides = []
        if args.before:
            sides.append(stack.enter_context(contextlib.closing(
                side_class("before", os.path.abspath(args.before), args.before_python, workdir))))
        sides.append(stack.enter_context(contextlib.closing(side_class("after", ROOT, sys.executable, workdir))))
        hello = stack.enter_context(contextlib.closing(Baseline("hello")))
        ratios = {side.label: [] for side in sides}
        cpu = {side.label: [] for side in sides}
        hello_cpu = []
        print(f"{'round':>5} {'bare hello req/s':>16} {'CPU us':>7} " + " ".join(
            f"{side.label + ' 304 req/s':>16} {'CPU us':>7} {'÷ hello':>8}" for side in sides), flush=True)
        for number in range(1, args.rounds + 1):
            base = wrk(hello.port, ["/"], args.seconds, 1, workdir=workdir, pid=hello.process.pid)
            hello_cpu.append(base.get("cpu_us", 0))
            line = f"{number:>5} {base['rps']:>16.0f} {hello_cpu[-1]:>7.0f} "
            for side in sides:
                run = wrk(side.port, [PATH], args.seconds, 1, workdir=workdir, pid=side.process.pid,
                          headers=[f"X-API-Key: {side.key}", f"If-None-Match: {side.etag}"])
                assert run["errors"] == 0, run
                ratios[side.label].append(run["rps"] / base["rps"])
                cpu[side.label].append(run.get("cpu_us", 0))
                line += f"{run['rps']:>16.0f} {run.get('cpu_us', 0):>7.0f} {run['rps'] / base['rps']:>8.2f} "
            print(line, flush=True)
        for side in sides:
            print(f"{side.label}: 304 ÷ bare hello {statistics.median(ratios[side.label]):.2f} "
                  f"(rounds {', '.join(f'{r:.2f}' for r in ratios[side.label])}), "
                  f"CPU a 304 {statistics.median(cpu[side.label]):.0f} us, bare hello's "
                  f"{statistics.median(hello_cpu):.0f} us (hello ÷ 304, CPU: "
                  f"{statistics.median(hello_cpu) / statistics.median(cpu[side.label]):.2f})")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
