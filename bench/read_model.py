"""Off-cache cost of a request: the service against bare WSGI baselines, side by side.

    .venv/bin/python bench/read_model.py [--scales 1,20] [--seconds 3] [--postgres URL]

One run, on this machine, with wrk (Debian's ``wrk``) on loopback:

- bare WSGI hello, and bare WSGI + sqlite3 + orjson answering the same 20 joined programme
  rows + count (``bench/baselines.py``), both served by waitress like the service;
- the service (``festival-api serve``) with the response cache off, on every list endpoint
  at ``limit=20``, the long tail (``/candidate-result`` by random chest numbers and
  ``/candidate-detail`` by random ids over all candidates), ``/programme-result`` over all
  programmes and ``/toppers``; at 1 and 64 connections; at each scale;
- a 304 revalidation with the response cache on, against bare hello;
- one 256-connection run, and readers during a re-import of the largest festival;
- every list at one connection again on a server per scale, all up at once, run in turn
  ``--repeat`` times: the scales' p50s are compared by medians;
- bare rows, ``/programmes`` and the long tail again with ``PIN_CPU=false`` (every process
  free to use every CPU; the baselines keep to one CPU like the service otherwise);
- with ``--postgres``, the service's rows again on PostgreSQL (a scratch database) side by
  side with SQLite: three servers up at once, SQLite, PostgreSQL as deployed (pages from the
  local copy, ``LOCAL_COPY=true``) and with every read on the server (``LOCAL_COPY=false``),
  each row run on the three in turn ``--repeat`` times (default 3) and compared by medians;
  then at 64 connections with one process and one per core.

It prints a table of req/s, p50, p99 and errors, then the ratios the targets are stated
in (docs/performance.md). ``--quick`` is a one-second smoke run (scale 1, a few endpoints,
each connection pausing 20 ms before each request: a light load, its figures not for comparing);
``--only "/toppers,/toppers?asOf=,/page-toppers?asOf=,/topper-race"`` runs only the rows named (each with bare
rows beside it, then the scales side by side), e.g. a board of the past against the board.
"""
import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import cli, free_port, scratch_postgres  # noqa: E402
from result_day import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
API = "/public-api/v1"
BUNDLED = "kalolsavam-2026"


def get_json(port, path, key):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"X-API-Key": key})
    with urllib.request.urlopen(req, timeout=60) as response:
        return json.load(response), response.headers


def collect_all(port, key, path, **params):
    items, page = [], 1
    while True:
        body, _ = get_json(port, f"{API}{path}?" + urllib.parse.urlencode({**params, "limit": 500, "page": page}), key)
        items += body["data"]
        if not body["meta"]["hasNextPage"]:
            return items
        page += 1


class Baseline:
    """``bench/baselines.py`` in a child process."""

    def __init__(self, *args, pinned=True):
        self.port = free_port()
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "baselines.py"), args[0],
                                         str(self.port), *args[1:]],
                                        env={**os.environ, "PIN_CPU": "true" if pinned else "false"})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/?subFestId=00000000-0000-0000-0000-000000000000",
                                       timeout=2).read()
                return
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("baseline did not start")

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def wrk(port, paths, seconds, connections, headers=(), workdir=None, pid=None):
    """Run wrk over ``paths`` (random order); return its figures as a dict. With the server's
    ``pid``, also its CPU time, context switches and page faults per request (``cpu_us``,
    ``switches``, ``faults``)."""
    paths_file = os.path.join(workdir, "paths.txt")
    headers_file = os.path.join(workdir, "headers.txt")
    with open(paths_file, "w") as fh:
        fh.write("\n".join(paths) + "\n")
    with open(headers_file, "w") as fh:
        fh.write("\n".join(headers) + "\n")
    threads = min(2, connections)
    before = counters(pid) if pid else None
    done = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s",
         "-s", os.path.join(HERE, "wrk_report.lua"), f"http://127.0.0.1:{port}"],
        env={**os.environ, "WRK_PATHS": paths_file, "WRK_HEADERS": headers_file},
        capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["rps"] = figures["requests"] / figures["seconds"] if figures["seconds"] else 0.0
    if before and figures["requests"]:
        after = counters(pid)
        figures["cpu_us"] = (after[0] - before[0]) / figures["requests"] * 1e6
        figures["switches"] = (after[1] - before[1]) / figures["requests"]
        figures["faults"] = (after[2] - before[2]) / figures["requests"]
    return figures


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def counters(pid):
    """``(CPU seconds, context switches, page faults)`` of process ``pid``, its threads and
    its child processes (``serve --workers``), from ``/proc``."""
    cpu, switches, faults = 0.0, 0, 0
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            pids = [pid, *map(int, fh.read().split())]
    except OSError:
        pids = [pid]
    for process in pids:
        try:
            with open(f"/proc/{process}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
            faults += int(fields[7])  # minor faults: memory given back and taken again
            for thread in os.listdir(f"/proc/{process}/task"):
                with open(f"/proc/{process}/task/{thread}/status") as fh:
                    switches += sum(int(line.split()[1]) for line in fh if "ctxt_switches" in line)
        except OSError:  # a process or thread that ended meanwhile
            continue
    return cpu, switches, faults


def service_env(url, cache_seconds, log_path, **settings):
    return {**os.environ, "DATABASE_URL": url, "RESPONSE_CACHE_SECONDS": str(cache_seconds),
            "RATELIMIT_DEFAULT": "", "API_KEY_CACHE_SECONDS": "30", "LOG_LEVEL": "INFO",
            # wrk's connections all come from one address: no cap or share of threads per address.
            "CONNECTIONS_PER_ADDRESS": "0", "THREADS_PER_ADDRESS": "256",
            "PYTHONPATH": ROOT, **settings}


def load_festival(url, scale, workdir, env=None):
    """A database at ``url`` holding the bundled festivals (scale 1) or an N× festival;
    return ``(festival slug, seconds the import took or None)``. ``env``: the commands'
    environment (``service_env``'s by default)."""
    env = env or service_env(url, 0, None)
    cli("init", env=env)
    if scale == 1:
        cli("seed", env=env)
        return BUNDLED, None
    path = os.path.join(workdir, f"scale-{scale}.json")
    subprocess.run([sys.executable, "-m", "seed.generate", "--scale", str(scale), "--out", path],
                   cwd=ROOT, check=True, env=env, capture_output=True)
    with open(path) as fh:
        slug = json.load(fh)["festival"]["slug"]
    started = time.monotonic()
    cli("import", path, env=env)
    return slug, time.monotonic() - started


def cases(port, key, quick=False):
    """``{name: [paths]}``: every list at limit=20, the long tail, single records."""
    sub_fests = collect_all(port, key, "/subfests")
    sub_fest = max(sub_fests, key=lambda s: len(collect_all(port, key, "/programmes", subFestId=s["id"])))
    sid = sub_fest["id"]
    candidates = collect_all(port, key, "/candidates", subFestId=sid)
    programmes = collect_all(port, key, "/programmes", subFestId=sid)
    placeholders = collect_all(port, key, "/topper-placeholders", subFestId=sid)
    busiest = max(candidates, key=lambda c: c["registrationCount"])
    found = {
        "/programmes": [f"{API}/programmes?subFestId={sid}&limit=20"],
        "/candidate-result (long tail)": [
            f"{API}/candidate-result?chestNo={urllib.parse.quote(c['candidate']['chestNo'])}&subFestSlug={sub_fest['slug']}"
            for c in candidates],
    }
    if quick:
        return sid, found
    found.update({
        "/subfests": [f"{API}/subfests?limit=20"],
        "/programme-results": [f"{API}/programme-results?subFestId={sid}&limit=20"],
        "/candidates": [f"{API}/candidates?subFestId={sid}&limit=20"],
        # a site's search box: a candidate's name (bench/candidate_search.py has more kinds)
        "/candidates?search=": [f"{API}/candidates?subFestId={sid}&limit=20&search="
                                f"{urllib.parse.quote(c['candidate']['name'])}" for c in candidates[::7]],
        "/teams": [f"{API}/teams?subFestId={sid}&limit=20"],
        "/categories": [f"{API}/categories?subFestId={sid}&limit=20"],
        "/schedules": [f"{API}/schedules?limit=20"],
        "/topper-placeholders": [f"{API}/topper-placeholders?subFestId={sid}&limit=20"],
        "/news": [f"{API}/news?limit=20"],
        "/gallery": [f"{API}/gallery?limit=20"],
        "/downloads": [f"{API}/downloads?limit=20"],
        "/candidate-registrations": [f"{API}/candidate-registrations?subFestCandidateId={busiest['id']}&limit=20"],
        "/filters": [f"{API}/filters?subFestSlug={sub_fest['slug']}"],
        "/candidate-detail (long tail)": [f"{API}/candidate-detail?subFestCandidateId={c['id']}" for c in candidates],
        "/programme-result": [f"{API}/programme-result?subFestProgramId={p['id']}" for p in programmes],
        "/toppers": [f"{API}/toppers?topperPlaceholderId={p['id']}&limit=20" for p in placeholders],
        # boards of the past: each board after each festival day (a date: that day's end)
        "/toppers?asOf=": [f"{API}/toppers?topperPlaceholderId={p['id']}&limit=20&asOf={day}"
                           for p in placeholders for day in festival_days(port, key)],
        # every board of a page as it stood: each board alone, after each festival day
        "/page-toppers?asOf=": [f"{API}/page-toppers?placeholderId={p['id']}&asOf={day}"
                                for p in placeholders for day in festival_days(port, key)],
        # the race of each board: its first 20 steps of its 10 best
        "/topper-race": [f"{API}/topper-race?topperPlaceholderId={p['id']}&limit=20&top=10" for p in placeholders],
    })
    return sid, found


def festival_days(port, key):
    """The festival's days (``YYYY-MM-DD``), from its first to its last."""
    import datetime

    festival = get_json(port, f"{API}/subfests?limit=1", key)[0]["context"]["festival"]
    day, last = (datetime.date.fromisoformat(festival[k]) for k in ("startDate", "endDate"))
    days = []
    while day <= last and len(days) < 31:
        days.append(day.isoformat())
        day += datetime.timedelta(days=1)
    return days


def row(name, figures):
    line = (f"{name:<62} {figures['rps']:>9.0f} {figures['p50_ms']:>8.2f} {figures['p99_ms']:>8.2f} "
            f"{figures['errors'] + figures['non_2xx_3xx']:>7}")
    if "cpu_us" in figures:
        line += f" {figures['cpu_us']:>10.0f} {figures['switches']:>8.1f} {figures['faults']:>8.2f}"
    return line


def run(args):
    results = {"machine": {"cpus": os.cpu_count(), "loadavg_before": os.getloadavg()}, "runs": []}
    out = lambda line: print(line, flush=True)  # noqa: E731
    out(f"{'run':<62} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'CPU us/req':>10} {'sw/req':>8} "
        f"{'flt/req':>8}")

    def record(label, scale, connections, figures, engine="sqlite"):
        results["runs"].append({"label": label, "scale": scale, "connections": connections,
                                "engine": engine, **figures})
        out(row(f"{label} s{scale} c{connections}" + ("" if engine == "sqlite" else f" [{engine}]"), figures))

    with tempfile.TemporaryDirectory() as workdir:
        hello = Baseline("hello")
        try:
            for connections in args.connections:
                record("bare hello", 0, connections,
                       wrk(hello.port, ["/"], args.seconds, connections, workdir=workdir, pid=hello.process.pid))
            served = {}  # scale -> (url, key, cases)
            for scale in args.scales:
                path = os.path.join(workdir, f"scale-{scale}.db")
                url = f"sqlite:///{path}"
                slug, import_seconds = load_festival(url, scale, workdir)
                if import_seconds is not None:
                    results.setdefault("imports", {})[scale] = import_seconds
                    out(f"import of the {scale}x festival: {import_seconds:.1f} s")
                key = cli("keys", "create", slug, env=service_env(url, 0, None)).strip().splitlines()[-1]
                log = os.path.join(workdir, "service.log")
                with Server(service_env(url, 0, log), args.threads, log) as server:
                    sid, found = cases(server.port, key, quick=args.quick)
                    if args.only:
                        found = {name: paths for name, paths in found.items() if name in args.only}
                    served[scale] = (url, key, found)
                    rows = Baseline("rows", path)
                    try:
                        for connections in args.connections:
                            record("bare rows (20 joined + count)", scale, connections,
                                   wrk(rows.port, [f"/?subFestId={sid}"], args.seconds, connections,
                                       workdir=workdir, pid=rows.process.pid))
                        for name, paths in found.items():
                            # At the smallest scale each row runs in turn with the bare rows, --repeat
                            # times over (medians compared): the same bare request's CPU cost moved by
                            # a fifth within minutes on the shared test machine.
                            for _ in range(args.repeat if scale == args.scales[0] else 1):
                                for connections in args.connections:
                                    if scale == args.scales[0]:
                                        record(beside(name), scale, connections,
                                               wrk(rows.port, [f"/?subFestId={sid}"], args.seconds, connections,
                                                   workdir=workdir, pid=rows.process.pid))
                                    record(name, scale, connections,
                                           wrk(server.port, paths, args.seconds, connections,
                                               headers=[f"X-API-Key: {key}"], workdir=workdir,
                                               pid=server.process.pid))
                    finally:
                        rows.close()
                    if args.heavy and scale == args.scales[-1] and "/candidate-result (long tail)" in found:
                        record("/candidate-result (long tail)", scale, args.heavy,
                               wrk(server.port, found["/candidate-result (long tail)"], args.seconds,
                                   args.heavy, headers=[f"X-API-Key: {key}"], workdir=workdir,
                                   pid=server.process.pid))
                if args.only:
                    continue  # only the rows asked for, and the scales side by side
                if scale == args.scales[0] and not args.quick:
                    unpinned(args, record, url, key, found, sid, path, scale, log, workdir)
                if import_seconds is not None and not args.quick:
                    with Server(service_env(url, 0, log), args.threads, log) as server:
                        results["during_import"] = readers_during_import(
                            server.port, key, found["/programmes"], url, scale, workdir)
                        out(f"readers during a re-import of the {scale}x festival: "
                            f"{results['during_import']}")
                if args.workers > 1 and scale == args.scales[0] and not args.quick:
                    processes(args, record, url, key, found, scale, log, workdir)
                with Server(service_env(url, 60, log), args.threads, log) as server:
                    path_304 = found["/programmes"][0]
                    _, headers = get_json(server.port, path_304, key)
                    for _ in range(args.repeat):  # in turn with bare hello: medians compared
                        record(beside(REVALIDATION), scale, 1,
                               wrk(hello.port, ["/"], args.seconds, 1, workdir=workdir, pid=hello.process.pid))
                        record(REVALIDATION, scale, 1,
                               wrk(server.port, [path_304], args.seconds, 1,
                                   headers=[f"X-API-Key: {key}", f"If-None-Match: {headers['ETag']}"],
                                   workdir=workdir, pid=server.process.pid))
            if len(served) > 1 and not args.quick:
                scales_side_by_side(args, record, served, workdir)
            if args.postgres:
                postgres_rows(args, record, workdir)
        finally:
            hello.close()
    results["machine"]["loadavg_after"] = os.getloadavg()
    print_ratios(results, out)
    targets(results, out)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


PROCESS_CONNECTIONS = 64
PROCESS_ROWS = ("/programmes", "/candidate-result (long tail)")
REVALIDATION = "304 revalidation (cache on)"


def beside(label):
    """The label of a bare baseline's run made just before ``label``'s, to be compared with it."""
    return f"bare, beside {label}"
SIDE_SCALES = "sqlite, scales side by side"


def scales_side_by_side(args, record, served, workdir):
    """Every list at one connection on a server per scale, all up at once, each row run on
    them in turn ``--repeat`` times: the p50 of the largest scale against the smallest's,
    by medians, without the minutes between the scales' own rows (and the load that moves
    in them)."""
    log = os.path.join(workdir, "service-scales.log")
    with contextlib.ExitStack() as stack:
        servers = [(stack.enter_context(Server(service_env(url, 0, log), args.threads, log)), key, found, scale,
                    SIDE_SCALES) for scale, (url, key, found) in served.items()]
        labels = [label for label in next(iter(served.values()))[2] if label not in LONG_TAIL]
        in_turn(args, record, servers, labels, [1], workdir)


def in_turn(args, record, servers, labels, connections, workdir):
    """Run each of ``labels`` at each of ``connections`` on every one of ``servers``
    (``(server, key, cases, scale, engine)``, all up at once) in turn, ``--repeat`` times
    over: a load that comes and goes falls on all of them alike."""
    for label in labels:
        for count in connections:
            for _ in range(args.repeat):
                for server, key, found, scale, engine in servers:
                    if label in found:
                        record(label, scale, count, wrk(server.port, found[label], args.seconds, count,
                                                        headers=[f"X-API-Key: {key}"], workdir=workdir,
                                                        pid=server.process.pid), engine=engine)


# Rows run again with every process free to use every CPU (``PIN_CPU=false``): not targets.
UNPINNED = "sqlite, PIN_CPU=false"


def unpinned(args, record, url, key, found, sid, path, scale, log, workdir):
    """Bare rows, ``/programmes`` and the long tail with ``PIN_CPU=false``, at 1 and 64
    connections: what keeping a process on one CPU is worth on this machine."""
    rows = Baseline("rows", path, pinned=False)
    try:
        for connections in args.connections:
            record("bare rows (20 joined + count)", scale, connections,
                   wrk(rows.port, [f"/?subFestId={sid}"], args.seconds, connections, workdir=workdir,
                       pid=rows.process.pid), engine=UNPINNED)
    finally:
        rows.close()
    with Server(service_env(url, 0, log, PIN_CPU="false"), args.threads, log) as server:
        for label in ("/programmes", "/candidate-result (long tail)"):
            for connections in args.connections:
                record(label, scale, connections,
                       wrk(server.port, found[label], args.seconds, connections,
                           headers=[f"X-API-Key: {key}"], workdir=workdir, pid=server.process.pid),
                       engine=UNPINNED)


def processes(args, record, url, key, found, scale, log, workdir, engine="sqlite"):
    """The service at 64 connections with one process and with ``--workers`` processes: both
    up at once, each row run on them in turn ``--repeat`` times (medians compared)."""
    with contextlib.ExitStack() as stack:
        servers = [(workers, stack.enter_context(Server(service_env(url, 0, log), args.threads, log,
                                                        workers=workers)))
                   for workers in (1, args.workers)]
        for workers, server in servers:
            for _ in range(workers):  # each process makes its local copy as it starts
                for label in PROCESS_ROWS:
                    get_json(server.port, found[label][0], key)
        for label in PROCESS_ROWS:
            for _ in range(args.repeat):
                for workers, server in servers:
                    record(f"{label} {workers} process{'es' if workers > 1 else ''}", scale, PROCESS_CONNECTIONS,
                           wrk(server.port, found[label], args.seconds, PROCESS_CONNECTIONS,
                               headers=[f"X-API-Key: {key}"], workdir=workdir, pid=server.process.pid),
                           engine=engine)


def readers_during_import(port, key, paths, url, scale, workdir):
    """Re-import the festival while wrk reads: every answer must be a 200 from one view."""
    path = os.path.join(workdir, f"scale-{scale}.json")
    importer = subprocess.Popen([sys.executable, "-m", "app.cli", "import", path],
                                env=service_env(url, 0, None), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    started = time.monotonic()
    figures = wrk(port, paths, 1, 4, headers=[f"X-API-Key: {key}"], workdir=workdir)
    while importer.poll() is None:
        more = wrk(port, paths, 1, 4, headers=[f"X-API-Key: {key}"], workdir=workdir)
        for name in ("requests", "errors", "non_2xx_3xx", "timeouts"):
            figures[name] += more[name]
    return {"import_seconds": round(time.monotonic() - started, 1), "requests": figures["requests"],
            "errors": figures["errors"], "non_2xx_3xx": figures["non_2xx_3xx"],
            "import_exit": importer.returncode}


# The service's rows measured again on PostgreSQL (same festival, same requests).
NO_COPY = "postgresql, no local copy"
SIDE_SQLITE = "sqlite, beside postgresql"
POSTGRES_ROWS = ("/programmes", "/candidates", "/news", "/candidate-result (long tail)", "/candidate-detail (long tail)")


def postgres_rows(args, record, workdir):
    """The PostgreSQL rows, side by side with SQLite: the bundled festivals in a scratch
    PostgreSQL database and in a SQLite file, three servers up at once (SQLite, PostgreSQL
    with the local copy, without it), and every row run on each in turn, ``--repeat`` times
    over. Interleaved, a passing load falls on all three; the ratios use the medians."""
    name = f"fds_bench_{os.getpid()}"
    with scratch_postgres(args.postgres, name) as url:
        pg_url = url.replace("postgresql", "postgresql+pool", 1)
        sqlite_url = f"sqlite:///{os.path.join(workdir, 'side-by-side.db')}"
        keys = {}
        for engine_url in (url, sqlite_url):
            slug, _ = load_festival(engine_url, 1, workdir)
            keys[engine_url] = cli("keys", "create", slug, env=service_env(engine_url, 0, None)).strip().splitlines()[-1]
        log = os.path.join(workdir, "service-side-by-side.log")
        engines = ((SIDE_SQLITE, sqlite_url, {}), ("postgresql", pg_url, {"LOCAL_COPY": "true"}),
                   (NO_COPY, pg_url, {"LOCAL_COPY": "false"}))
        with contextlib.ExitStack() as stack:
            servers = []
            for engine, engine_url, settings in engines:
                server = stack.enter_context(Server(service_env(engine_url, 0, log, **settings), args.threads, log))
                key = keys[url if engine_url == pg_url else engine_url]
                servers.append((server, key, cases(server.port, key, quick=args.quick)[1], 1, engine))
            in_turn(args, record, servers, POSTGRES_ROWS, args.connections, workdir)
        if args.workers > 1 and not args.quick:
            found = next(found for _, _, found, _, engine in servers if engine == "postgresql")
            processes(args, record, pg_url, keys[url], found, 1, log, workdir, engine="postgresql")


def print_ratios(results, out):
    runs = results["runs"]

    def find(label, scale, connections, engine="sqlite"):
        for r in runs:
            if (r["label"], r["scale"], r["connections"], r["engine"]) == (label, scale, connections, engine):
                return r
        return None

    out("\nratios (same run):")
    for scale in sorted({r["scale"] for r in runs if r["scale"]}):
        base = find("bare rows (20 joined + count)", scale, 1)
        hello = find("bare hello", 0, 1)
        for r in runs:
            if r["scale"] != scale or r["engine"] != "sqlite" or r["label"].startswith("bare"):
                continue
            if r["connections"] == 1 and r["label"].startswith("304"):
                pair = find(beside(r["label"]), scale, 1) or hello
                out(f"  {r['label']} s{scale}: {100 * r['rps'] / pair['rps']:.0f}% of bare hello (first of each)")
            elif r["connections"] == 1 and base:
                many = find(r["label"], scale, 64)
                pair = find(beside(r["label"]), scale, 1) or base
                line = f"  {r['label']} s{scale}: {100 * r['rps'] / pair['rps']:.0f}% of bare rows"
                if many:
                    line += f"; 64 conns {many['rps'] / r['rps']:.2f}x of 1"
                small = find(r["label"], 1, 1)
                if scale != 1 and small:
                    line += f"; p50 {r['p50_ms'] / small['p50_ms']:.2f}x of scale 1"
                out(line)


LONG_TAIL = ("/candidate-result (long tail)", "/candidate-detail (long tail)")
NOT_FLAT = ("/filters",)  # its answer grows with the festival


def median_rps(runs, label, connections, engine, scale=1, figure="rps"):
    """The median ``figure`` of the runs of ``label`` on ``engine``, or None."""
    found = [r[figure] for r in runs if (r["label"], r["scale"], r["connections"], r["engine"])
             == (label, scale, connections, engine)]
    return statistics.median(found) if found else None


def targets(results, out):
    """Each target of docs/performance.md, with the figure that decides it: met or not."""
    runs = results["runs"]

    def find(label, scale, connections, engine="sqlite"):
        return next((r for r in runs if (r["label"], r["scale"], r["connections"], r["engine"])
                     == (label, scale, connections, engine)), None)

    def verdict(name, value, goal, better="high", unit="x"):
        if value is None:
            return
        met = value >= goal if better == "high" else value <= goal
        shown = f"{100 * value:.0f}%" if unit == "%" else f"{value:.2f}x"
        goal_shown = f"{100 * goal:.0f}%" if unit == "%" else f"{goal:.2f}x"
        out(f"  {'met    ' if met else 'NOT MET'} {name}: {shown} ({'>=' if better == 'high' else '<='} {goal_shown})")

    out("\ntargets (same run):")
    scales = sorted({r["scale"] for r in runs if r["scale"]})
    hello1 = find("bare hello", 0, 1)
    for scale in scales:
        base1 = find("bare rows (20 joined + count)", scale, 1)
        base64 = find("bare rows (20 joined + count)", scale, 64)
        labels = list(dict.fromkeys(  # each once (a row runs --repeat times at the smallest scale)
            r["label"] for r in runs if r["scale"] == scale and r["connections"] == 1 and r["engine"] == "sqlite"
            and not r["label"].startswith(("bare", "304")) and "process" not in r["label"]))
        for label in labels:
            many = find(label, scale, 64)
            kind = "long tail" if label in LONG_TAIL else "list"
            # Against bare rows at the smallest scale only: at scale 20 its join sorts without an
            # index and falls behind the service, so a ratio against it would say nothing. Each
            # row against the bare rows run just before it (on a shared machine the speed moves
            # in minutes).
            comparable = scale == scales[0]
            bare1 = median_rps(runs, beside(label), 1, "sqlite", scale) or (base1 or {}).get("rps")
            bare64 = median_rps(runs, beside(label), 64, "sqlite", scale) or (base64 or {}).get("rps")
            own1, own64 = median_rps(runs, label, 1, "sqlite", scale), median_rps(runs, label, 64, "sqlite", scale)
            if comparable and bare1 and label != "/programme-result":  # one record: not a list or the tail
                verdict(f"{label} s{scale} {kind}, % of bare rows (medians, in turn)", own1 / bare1, 0.60, unit="%")
            if comparable and bare1 and bare64 and many:
                verdict(f"{label} s{scale} 64/1 conns, x of bare rows' 64/1 (medians, in turn)",
                        (own64 / own1) / (bare64 / bare1), 0.90)
            small = median_rps(runs, label, 1, SIDE_SCALES, scales[0], "p50_ms")
            large = median_rps(runs, label, 1, SIDE_SCALES, scale, "p50_ms")
            if scale != scales[0] and small and large and label not in NOT_FLAT and kind == "list":
                verdict(f"{label} p50 s{scale} / s{scales[0]} (medians, side by side)", large / small, 1.25,
                        better="low")
        revalidation, hello = median_rps(runs, REVALIDATION, 1, "sqlite", scale), median_rps(
            runs, beside(REVALIDATION), 1, "sqlite", scale)
        if revalidation and (hello or hello1):
            verdict(f"304 revalidation s{scale}, % of bare hello (medians, in turn)",
                    revalidation / (hello or hello1["rps"]), 0.60, unit="%")
    for label in POSTGRES_ROWS:
        for connections in (1, 64):
            sqlite, pg = median_rps(runs, label, connections, SIDE_SQLITE), median_rps(runs, label, connections, "postgresql")
            if sqlite and pg:
                verdict(f"{label} c{connections} PostgreSQL, % of SQLite (medians, side by side)", pg / sqlite, 0.80, unit="%")
            direct = median_rps(runs, label, connections, NO_COPY)
            if sqlite and direct:  # for comparison: not a target
                out(f"  (info)  {label} c{connections} PostgreSQL without the local copy, % of SQLite: "
                    f"{100 * direct / sqlite:.0f}%")
    for engine in ("sqlite", "postgresql"):
        for label in ("/programmes", "/candidate-result (long tail)"):
            for scale in scales:
                single = median_rps(runs, f"{label} 1 process", PROCESS_CONNECTIONS, engine, scale)
                several = next((r["label"] for r in runs if r["label"].startswith(f"{label} ")
                                and r["engine"] == engine and r["label"].endswith("processes")
                                and r["scale"] == scale), None)
                if single and several:
                    verdict(f"{several} s{scale} c64{'' if engine == 'sqlite' else ' ' + engine}, "
                            f"x of 1 process (medians, in turn)",
                            median_rps(runs, several, PROCESS_CONNECTIONS, engine, scale) / single, 1.5)
    heavy = [r for r in runs if r["connections"] >= 256]
    for r in heavy:
        errors = r["errors"] + r["non_2xx_3xx"] + r.get("timeouts", 0)
        out(f"  {'met    ' if errors == 0 else 'NOT MET'} {r['label']} s{r['scale']} c{r['connections']}: "
            f"{errors} errors (0)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,20", help="festival scales, comma-separated (1 = bundled)")
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--connections", default="1,64")
    parser.add_argument("--heavy", type=int, default=256, help="connections of the one heavy run (0: none)")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--postgres", help="a PostgreSQL server URL to create a scratch database on")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each PostgreSQL row and its SQLite twin, interleaved (medians compared)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes of the multi-process run (one per core); 1: no such run")
    parser.add_argument("--pause", type=int, default=0,
                        help="milliseconds each wrk connection waits before each request (0: none; a light load)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: scale 1, two endpoints, 1 connection, a 20 ms pause before each request")
    parser.add_argument("--only", type=lambda text: set(text.split(",")), default=None,
                        help="run only these rows (their names, comma-separated), then the scales side by side")
    args = parser.parse_args(argv)
    args.scales = [int(s) for s in args.scales.split(",")]
    args.connections = [int(c) for c in args.connections.split(",")]
    if args.quick:
        args.scales, args.connections, args.heavy, args.repeat = [1], [1], 0, 1
        args.pause = args.pause or 20
    if args.pause:
        os.environ["WRK_PAUSE_MS"] = str(args.pause)  # read by wrk_report.lua in each wrk run
    args.seconds = int(max(1, args.seconds))
    return run(args)


if __name__ == "__main__":
    main()
