"""``/candidates?search=`` at scale 1 and scale 20, the code before and after, side by side.

    .venv/bin/python bench/candidate_search.py --before DIR [--scales 1,20] [--seconds 3] [--repeat 3]
        [--cpu] [--postgres URL]

``DIR`` holds the code to compare with (e.g. ``git archive <commit> | tar -x -C DIR``); it
runs with this venv. For each version and scale a database is made by that version
(``seed`` for scale 1, ``import`` of the generated N× festival), and a server is started
on it with the response cache off; all of them are up at once. Each row is then run on
every server in turn at one connection, ``--repeat`` times, and compared by the median p50:
the target is the scale-20 p50 within 1.25× of the scale-1 p50 (docs/performance.md).

``--cpu`` measures, besides, the CPU time of each request in process (the WSGI app called
directly, no server or network: one worker process for each version and scale, the rows
taken in turn by each, ``--repeat`` times; the median of each round's median), which a
shared machine's load disturbs much less than a latency.

``--postgres URL`` (e.g. ``postgresql://postgres@127.0.0.1:5432/test``) runs every version
and scale on a database of its own on that server (``fds_search_<version>_<scale>``, made
again each run, dropped at the end) with ``LOCAL_COPY=false``: every read goes to
PostgreSQL, as behind a transaction-mode pooler. Each database is ``VACUUM ANALYZE``d after
its load, as autovacuum would do within a minute of an import. There the in-process table
gives each request's wall time (``perf_counter``), not its thread's CPU time, which leaves
out the work PostgreSQL does for it.

The searches are what a site's search box sends: a candidate's whole name, one word of it,
the first three letters of a name, a chest number, and a word of a Malayalam name; each
row draws its terms from 200 candidates of the sub-fest with most programmes, the same way
at every scale.

What a row compares: the first five rows ask for a page of 20, so they compare answers of
different lengths where a term finds more candidates at scale 20: one word of a name finds
about 18 at scale 1 and 300 at scale 20, and its page holds 15 items (mean) at scale 1 and
20 at scale 20; a whole name and a chest number find one at both. The rows marked
``limit=1`` ask for the same terms a page of one: an answer of one item at both scales, and
a page that is full, so its exact ``meta.total`` is read or counted at both (the cost of
finding the term's first match and its total, not of writing more items). With ``--cpu``
the table gives the median items and ``meta.total`` of each row's answers at each scale.
"""
import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_model import API, BUNDLED, collect_all, service_env, wrk  # noqa: E402
from harness import free_port  # noqa: E402
from result_day import request  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cli(code, env, *args):
    done = subprocess.run([sys.executable, "-m", "app.cli", *args], env={**env, "PYTHONPATH": code}, cwd=code,
                          check=True, capture_output=True, text=True)
    return done.stdout


# The service's settings for every version and scale (--postgres: LOCAL_COPY=false).
SETTINGS = {}


def postgres_database(server_url, name):
    """A new empty database ``name`` on the server of ``server_url``: its URL, and a function
    that drops it."""
    import psycopg2
    base = urllib.parse.urlsplit(server_url)

    def admin(sql):
        connection = psycopg2.connect(server_url)
        connection.autocommit = True
        try:
            connection.cursor().execute(sql)
        finally:
            connection.close()

    admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin(f'CREATE DATABASE "{name}"')
    return base._replace(path=f"/{name}").geturl(), lambda: admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def vacuum_analyze(url):
    import psycopg2
    connection = psycopg2.connect(url)
    connection.autocommit = True
    try:
        connection.cursor().execute("VACUUM ANALYZE")
    finally:
        connection.close()


class Server:
    """``festival-api serve`` of the code in ``code``, stopped on exit."""

    def __init__(self, code, env, log_path):
        self.port = free_port()
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(self.port),
                                         "--threads", "8", "--workers", "1"],
                                        env={**env, "PYTHONPATH": code}, cwd=code,
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if request(self.port, "/healthz", None)[0] == 200:
                    return
            time.sleep(0.1)
        self.close()
        raise RuntimeError(f"server did not start; see {log_path}")

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def load(code, url, scale, festival_file):
    env = service_env(url, 0, None, **SETTINGS)
    cli(code, env, "init")
    if scale == 1:
        cli(code, env, "seed")
        return BUNDLED
    cli(code, env, "import", festival_file)
    with open(festival_file) as fh:
        return json.load(fh)["festival"]["slug"]


def searches(port, key):
    """``{row: [paths]}``: the searches of 200 candidates of the sub-fest with most programmes."""
    sub_fests = collect_all(port, key, "/subfests")
    sub_fest = max(sub_fests, key=lambda s: len(collect_all(port, key, "/programmes", subFestId=s["id"])))
    people = collect_all(port, key, "/candidates", subFestId=sub_fest["id"])
    chooser = random.Random(8)
    chosen = chooser.sample(people, min(200, len(people)))

    def path(term, limit=20):
        return f"{API}/candidates?subFestId={sub_fest['id']}&limit={limit}&search={urllib.parse.quote(term)}"

    identity = [c["candidate"] for c in chosen]
    local = [i["nameLocal"].split()[-1] for i in identity if i.get("nameLocal")] or ["a"]
    words = [chooser.choice(i["name"].split()) for i in identity]
    return {
        "whole name": [path(i["name"]) for i in identity],
        "one word of the name": [path(word) for word in words],
        "first 3 letters": [path(i["name"][:3]) for i in identity],
        "chest number": [path(i["chestNo"]) for i in identity],
        "Malayalam word": [path(word) for word in local],
        # the same terms, an answer of one item at both scales (see the docstring)
        "one word, limit=1": [path(word, 1) for word in words],
        "first 3 letters, limit=1": [path(i["name"][:3], 1) for i in identity],
        "Malayalam word, limit=1": [path(word, 1) for word in local],
    }


class CpuWorker:
    """A process running the WSGI app of ``code`` on ``url``: given a row's name, it calls
    each of the row's paths once and answers the median thread CPU µs a request.
    ``answers``: ``{row: (median items, median meta.total)}`` of the row's answers."""

    def __init__(self, code, url, key, rows_file):
        self.process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", code, rows_file, key],
                                        env={**service_env(url, 0, None, **SETTINGS), "PYTHONPATH": code,
                                             "LOG_LEVEL": "WARNING"},
                                        cwd=code, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.answers = json.loads(self.process.stdout.readline())
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the CPU worker of {code} did not start")

    def measure(self, row):
        self.process.stdin.write(row + "\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def worker(code, rows_file, key):
    """``CpuWorker``'s side: the app of ``code`` (on ``DATABASE_URL``), in this process."""
    sys.path.insert(0, code)
    from werkzeug.test import EnvironBuilder

    from app import create_app
    app = create_app()
    with open(rows_file) as fh:
        rows = json.load(fh)

    def call(path):
        base, _, query = path.partition("?")
        environ = EnvironBuilder(path=base, query_string=query, headers={"X-API-Key": key}).get_environ()
        status = []
        body = b"".join(app(environ, lambda s, h, e=None: status.append(s)))
        if not status[0].startswith("200"):
            raise RuntimeError(f"{path}: {status[0]}")
        return body

    answers = {}
    for row, paths in rows.items():
        found = [json.loads(call(path)) for path in paths]  # and warm: connections, caches of the revision
        answers[row] = (statistics.median(len(body["data"]) for body in found),
                        statistics.median(body["meta"]["total"] for body in found))
    print(json.dumps(answers), flush=True)
    print("ready", flush=True)
    for line in sys.stdin:
        times = []
        clock = time.perf_counter_ns if os.environ.get("BENCH_CLOCK") == "wall" else time.thread_time_ns
        for path in rows[line.strip()]:
            started = clock()
            call(path)
            times.append((clock() - started) / 1000)
        print(statistics.median(times), flush=True)


def main():
    if sys.argv[1:2] == ["--worker"]:
        return worker(*sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a folder holding the code to compare with")
    parser.add_argument("--scales", default="1,20")
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", action="store_true", help="also the CPU time a request, in process")
    parser.add_argument("--postgres", metavar="URL", help="run on databases of this PostgreSQL server, "
                        "without the local copy")
    args = parser.parse_args()
    if args.postgres:
        SETTINGS.update(LOCAL_COPY="false", BENCH_CLOCK="wall")  # BENCH_CLOCK: the CPU workers'
    clock = SETTINGS.get("BENCH_CLOCK", "cpu")
    scales = [int(s) for s in args.scales.split(",")]
    versions = {"before": os.path.abspath(args.before), "after": ROOT}
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as workdir, contextlib.ExitStack() as stack:
        files = {}
        for scale in scales:
            if scale > 1:
                files[scale] = os.path.join(workdir, f"scale-{scale}.json")
                subprocess.run([sys.executable, "-m", "seed.generate", "--scale", str(scale), "--out", files[scale]],
                               cwd=ROOT, check=True, capture_output=True)
        servers = []  # (version, scale, server, key, rows)
        workers = []  # (version, scale, CpuWorker) with --cpu
        for version, code in versions.items():
            for scale in scales:
                if args.postgres:
                    url, drop = postgres_database(args.postgres, f"fds_search_{version}_{scale}")
                    stack.callback(drop)
                else:
                    url = f"sqlite:///{os.path.join(workdir, f'{version}-{scale}.db')}"
                started = time.monotonic()
                slug = load(code, url, scale, files.get(scale))
                if args.postgres:
                    vacuum_analyze(url)
                print(f"{version} s{scale}: loaded in {time.monotonic() - started:.0f} s", flush=True)
                key = cli(code, service_env(url, 0, None, **SETTINGS), "keys", "create", slug).strip().splitlines()[-1]
                log = os.path.join(workdir, f"{version}-{scale}.log")
                server = Server(code, service_env(url, 0, log, **SETTINGS), log)
                stack.callback(server.close)
                servers.append((version, scale, server, key, searches(server.port, key)))
                if args.cpu:
                    rows_file = os.path.join(workdir, f"{version}-{scale}-rows.json")
                    with open(rows_file, "w") as fh:
                        json.dump(servers[-1][4], fh)
                    cpu = CpuWorker(code, url, key, rows_file)
                    stack.callback(cpu.close)
                    workers.append((version, scale, cpu))
        p50s = {}
        for row in servers[0][4]:
            for _ in range(args.repeat):
                for version, scale, server, key, rows in servers:
                    try:
                        figures = wrk(server.port, rows[row], args.seconds, 1, headers=[f"X-API-Key: {key}"],
                                      workdir=workdir)
                    except subprocess.CalledProcessError as error:
                        raise RuntimeError(f"{version} s{scale} {row}: wrk: {error.stdout} {error.stderr}") from None
                    if figures["errors"] or figures["non_2xx_3xx"]:
                        raise RuntimeError(f"{version} s{scale} {row}: errors {figures}")
                    p50s.setdefault((row, version, scale), []).append(figures["p50_ms"])
        cpu = {}
        for _ in range(args.repeat if workers else 0):
            for row in servers[0][4]:
                for version, scale, cpu_worker in workers:
                    cpu.setdefault((row, version, scale), []).append(cpu_worker.measure(row))
        print(f"load average after: {os.getloadavg()}", flush=True)
        first, last = scales[0], scales[-1]
        print(f"{'row (median p50, ms)':<26}" + "".join(f"{f'{v} s{s}':>12}" for v in versions for s in scales)
              + "".join(f"{f'{v} s{last}/s{first}':>18}" for v in versions))
        for row in servers[0][4]:
            medians = {(v, s): statistics.median(p50s[(row, v, s)]) for v in versions for s in scales}
            print(f"{row:<26}" + "".join(f"{medians[(v, s)]:>12.2f}" for v in versions for s in scales)
                  + "".join(f"{medians[(v, last)] / medians[(v, first)]:>17.2f}x" for v in versions), flush=True)
        if cpu:
            print(f"{f'row ({clock} us a request)':<26}" + "".join(f"{f'{v} s{s}':>12}" for v in versions for s in scales)
                  + "".join(f"{f'{v} s{last}/s{first}':>18}" for v in versions)
                  + "".join(f"{f'items, total s{s}':>20}" for s in scales))
            answers = {s: w.answers for v, s, w in workers if v == "after"}
            for row in servers[0][4]:
                medians = {(v, s): statistics.median(cpu[(row, v, s)]) for v in versions for s in scales}
                print(f"{row:<26}" + "".join(f"{medians[(v, s)]:>12.0f}" for v in versions for s in scales)
                      + "".join(f"{medians[(v, last)] / medians[(v, first)]:>17.2f}x" for v in versions)
                      + "".join(f"{'%g, %g' % tuple(answers[s][row]):>20}" for s in scales), flush=True)


if __name__ == "__main__":
    main()
