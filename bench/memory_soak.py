"""Memory under a long, mixed load: each process's resident memory over time.

    .venv/bin/python bench/memory_soak.py --postgres URL [--database URL] [--scale 20]
        [--seconds 600] [--rate 150] [--workers 2] [--imports full,full,update] [--json out.json]

Starts `festival-api serve --workers N` with the settings of the environment (defaults:
``RESPONSE_CACHE_MB=256``, the response cache on), drives ``--rate`` requests a second at
it from threads in this process — the long tail (single candidates, entries and
programmes by random ids), list pages at ``limit=20`` on random pages, and large pages
(``limit`` 200–500) whose answers fill the response cache — and runs ``--imports`` imports
of the festival by another process during it (each changes one news item, so each
is a new revision the local copy follows; ``full`` imports the whole festival again,
``update`` is an ``import --update`` of that item). Every ``--sample`` seconds it reads, from
``/proc``, the resident memory of the parent and of each worker (``VmRSS``, with its
anonymous and file-backed parts) and the size of the local copies' folder.

``--postgres URL``: a server on which a scratch database is made (and dropped after), and
the ``--scale``× festival generated and imported into it; ``--database URL`` instead uses
a database that holds it already (nothing is dropped). Without either the festival goes in
a SQLite file. ``--quick`` is a few seconds' smoke run at scale 1 on SQLite.

It prints a line a minute and, at the end, the series by worker (start, each minute, the
highest) with the load it ran under (``--json`` writes every sample).
"""
import argparse
import contextlib
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ROOT, cli, scratch_postgres  # noqa: E402
from read_model import collect_all, load_festival, service_env  # noqa: E402
from result_day import Server  # noqa: E402

API = "/public-api/v1"


def status_fields(pid):
    """``{VmRSS, RssAnon, RssFile}`` of process ``pid`` in MB, or None when it is gone."""
    found = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "RssAnon", "RssFile"):
                    found[name] = int(value.split()[0]) / 1024
    except OSError:
        return None
    return found


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            return [int(child) for child in fh.read().split()]
    except OSError:
        return []


def folder_mb(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.path.getsize(os.path.join(root, name))
    return total / 2**20


def urls_of(port, key):
    """The soak's URLs by kind: long tail, small pages, large pages."""
    sub_fests = collect_all(port, key, "/subfests")
    sub_fest = max(sub_fests, key=lambda s: len(collect_all(port, key, "/programmes", subFestId=s["id"])))
    sid, slug = sub_fest["id"], sub_fest["slug"]
    candidates = collect_all(port, key, "/candidates", subFestId=sid)
    programmes = collect_all(port, key, "/programmes", subFestId=sid)
    tail = ([f"{API}/candidate-result?chestNo={urllib.parse.quote(c['candidate']['chestNo'])}&subFestSlug={slug}"
             for c in candidates]
            + [f"{API}/candidate-detail?subFestCandidateId={c['id']}" for c in candidates]
            + [f"{API}/programme-result?subFestProgramId={p['id']}" for p in programmes])
    lists = {"/candidates": len(candidates), "/programmes": len(programmes),
             "/programme-results": len(programmes)}

    def pages(limit):
        return [f"{API}{path}?subFestId={sid}&limit={limit}&page={page}"
                for path, count in lists.items() for page in range(1, max(1, count // limit) + 1)]

    return {"tail": tail, "small": pages(20), "large": pages(200) + pages(500)}


# Share of each kind of request.
MIX = (("tail", 0.6), ("small", 0.3), ("large", 0.1))


class Load:
    """``rate`` requests a second from ``clients`` threads, each on a keep-alive connection."""

    def __init__(self, port, key, urls, rate, clients=16):
        self.port, self.key, self.urls, self.rate, self.clients = port, key, urls, rate, clients
        self.lock = threading.Lock()
        self.latencies, self.statuses = [], {}
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(clients)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopped.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def take(self):
        """``(latencies, statuses)`` since the last take."""
        with self.lock:
            taken = self.latencies, self.statuses
            self.latencies, self.statuses = [], {}
        return taken

    def _client(self, index):
        rng = random.Random(index)
        interval = self.clients / self.rate
        due = time.monotonic() + rng.random() * interval
        connection = None
        kinds, weights = zip(*MIX)
        while not self.stopped.is_set():
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            due = max(due + interval, time.monotonic() - interval)  # behind: no burst to catch up
            path = rng.choice(self.urls[rng.choices(kinds, weights)[0]])
            started = time.monotonic()
            try:
                connection = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                connection.request("GET", path, headers={"X-API-Key": self.key, "Accept-Encoding": "gzip"})
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                status, connection = "error", None
            with self.lock:
                self.latencies.append(time.monotonic() - started)
                self.statuses[status] = self.statuses.get(status, 0) + 1


def run_import(path, url, step, kind):
    """Import the festival at ``path`` again with one news item changed (a new revision):
    whole (``kind`` "full": every compiled row written again, each process copies the
    festival whole) or as ``import --update`` of that one item (a result day's edit)."""
    with open(path, encoding="utf-8") as fh:
        fixture = json.load(fh)
    news = dict(fixture["news"][0], title=f"Soak edition {step}")
    if kind == "full":
        fixture["news"][0] = news
    else:
        fixture = {"formatVersion": fixture["formatVersion"], "festival": {"slug": fixture["festival"]["slug"]},
                   "news": [news]}
    changed = f"{path}.import-{step}.json"
    with open(changed, "w", encoding="utf-8") as fh:
        json.dump(fixture, fh)
    started = time.monotonic()
    cli("import", *(["--update"] if kind == "update" else []), changed, env=service_env(url, 0, None))
    os.remove(changed)
    return time.monotonic() - started


def soak(args, url, festival_path, workdir):
    copies = os.path.join(workdir, "copies")
    os.makedirs(copies, exist_ok=True)
    key = cli("keys", "create", args.slug, env=service_env(url, 0, None)).strip().splitlines()[-1]
    log = os.path.join(workdir, "service.log")
    settings = {"RESPONSE_CACHE_SECONDS": os.environ.get("RESPONSE_CACHE_SECONDS", "5"), "LOCAL_COPY_DIR": copies,
                "LOG_LEVEL": "WARNING"}
    samples, minutes, imports = [], [], []
    with Server(service_env(url, 0, log, **settings), args.threads, log, workers=args.workers) as server:
        urls = urls_of(server.port, key)
        load = Load(server.port, key, urls, args.rate)
        load.start()
        started = time.monotonic()
        kinds = [kind for kind in args.imports.split(",") if kind]
        # Spread over the run, the first a tenth in, the last a tenth before the end.
        import_at = [args.seconds * (0.1 + 0.8 * i / max(1, len(kinds) - 1)) for i in range(len(kinds))]
        importer = None
        next_minute, last_take = started + args.report, started
        while time.monotonic() - started < args.seconds:
            at = time.monotonic() - started
            if importer is None or not importer.is_alive():
                if import_at and at >= import_at[0]:
                    import_at.pop(0)
                    step = len(imports) + 1
                    kind = kinds[step - 1]
                    importer = threading.Thread(
                        target=lambda s=step, t=at, k=kind: imports.append(
                            (k, round(t), round(run_import(festival_path, url, s, k), 1))), daemon=True)
                    importer.start()
            sample = {"t": round(at, 1), "parent": status_fields(server.process.pid),
                      "workers": {pid: status_fields(pid) for pid in children(server.process.pid)},
                      "copies_mb": round(folder_mb(copies), 1), "load1": os.getloadavg()[0]}
            samples.append(sample)
            if time.monotonic() >= next_minute:
                latencies, statuses = load.take()
                minutes.append(minute_line(at, latencies, statuses, sample, time.monotonic() - last_take))
                last_take = time.monotonic()
                print(minutes[-1]["line"], flush=True)
                next_minute += args.report
            time.sleep(args.sample)
        load.stop()
        latencies, statuses = load.take()
        minutes.append(minute_line(time.monotonic() - started, latencies, statuses, samples[-1],
                                   time.monotonic() - last_take))
        if importer is not None:
            importer.join(timeout=600)
        print(minutes[-1]["line"], flush=True)
    return {"samples": samples, "minutes": minutes, "imports": imports}


def minute_line(at, latencies, statuses, sample, seconds):
    latencies = sorted(latencies)
    p = (lambda q: 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]) if latencies else (lambda q: 0)
    workers = " ".join(f"{fields['VmRSS']:.0f}" for fields in sample["workers"].values() if fields)
    line = (f"t={at:6.0f}s  {len(latencies) / seconds:6.1f} req/s  p50 {p(0.5):6.1f} ms  p99 {p(0.99):7.1f} ms  "
            f"statuses {dict(sorted(statuses.items(), key=str))}  worker RSS MB: {workers}  "
            f"copies {sample['copies_mb']:.0f} MB  load {sample['load1']:.1f}")
    return {"t": round(at), "rps": len(latencies) / seconds, "statuses": {str(k): v for k, v in statuses.items()},
            "p50_ms": p(0.5), "p99_ms": p(0.99), "line": line}


def slope(series):
    """The least-squares slope of ``[(seconds, {VmRSS})]``, in MB a minute (0 for one sample)."""
    if len(series) < 2:
        return 0.0
    times = [t / 60 for t, _ in series]
    sizes = [fields["VmRSS"] for _, fields in series]
    mean_t, mean_s = statistics.mean(times), statistics.mean(sizes)
    spread = sum((t - mean_t) ** 2 for t in times)
    return sum((t - mean_t) * (s - mean_s) for t, s in zip(times, sizes)) / spread if spread else 0.0


def summary(result):
    """The series by worker: first sample, each minute's last, the highest."""
    lines, by_worker = [], {}
    for sample in result["samples"]:
        for pid, fields in sample["workers"].items():
            if fields:
                by_worker.setdefault(pid, []).append((sample["t"], fields))
    for pid, series in by_worker.items():
        marks = [series[0]] + [s for i, s in enumerate(series) if i + 1 == len(series)
                               or int(series[i + 1][0] // 60) > int(s[0] // 60)]
        highest = max(series, key=lambda s: s[1]["VmRSS"])
        lines.append(f"worker {pid}: RSS MB (anon/file) " + ", ".join(
            f"{t:.0f}s {f['VmRSS']:.0f} ({f['RssAnon']:.0f}/{f['RssFile']:.0f})" for t, f in marks)
            + f"; highest {highest[1]['VmRSS']:.0f} at {highest[0]:.0f}s")
        lines.append(f"worker {pid}: start {series[0][1]['VmRSS']:.0f} MB, peak {highest[1]['VmRSS']:.0f} MB, "
                     f"end {series[-1][1]['VmRSS']:.0f} MB, slope over the second half "
                     f"{slope(series[len(series) // 2:]):+.1f} MB/min")
    statuses = {}
    for minute in result["minutes"]:
        for status, count in minute["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    lines.append(f"requests by status: {statuses}; imports (kind, started at s, took s): {result['imports']}")
    lines.append(f"local copies' folder at the end: {result['samples'][-1]['copies_mb']:.0f} MB; load "
                 f"{statistics.mean(s['load1'] for s in result['samples']):.1f} on average")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", help="a PostgreSQL URL: a scratch database is made on its server")
    parser.add_argument("--database", help="a database URL that holds the festival already")
    parser.add_argument("--festival-file", help="the festival's JSON (default: generated at --scale)")
    parser.add_argument("--slug", help="the festival's slug (default: read from the festival's file)")
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--rate", type=float, default=150)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--imports", default="full,full,update",
                        help="the imports during the run, in order: full or update, comma-separated")
    parser.add_argument("--sample", type=float, default=5)
    parser.add_argument("--report", type=float, default=60)
    parser.add_argument("--quick", action="store_true", help="a few seconds at scale 1 on SQLite")
    parser.add_argument("--json", help="write every sample here")
    args = parser.parse_args()
    if args.quick:
        args.scale, args.seconds, args.rate, args.imports, args.sample, args.report = 1, 6, 40, "update", 0.5, 2
        args.postgres = args.database = None
    print(f"load before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="memory-soak-") as workdir:
        result = with_database(args, workdir)
    result["load"] = os.getloadavg()
    for line in summary(result):
        print(line, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh)


def with_database(args, workdir):
    """Run the soak on the database the arguments name (made and loaded here unless given)."""
    path = args.festival_file
    if path is None and args.scale > 1:
        path = os.path.join(workdir, f"scale-{args.scale}.json")
        subprocess.run([sys.executable, "-m", "seed.generate", "--scale", str(args.scale), "--out", path],
                       cwd=ROOT, check=True, capture_output=True)
    if path is None:  # scale 1: the bundled festivals; the imports load the biggest again
        from seed import bundled_fixtures

        path = next(p for p in bundled_fixtures() if os.path.basename(p).startswith("kalolsavam"))
    if args.slug is None:
        with open(path, encoding="utf-8") as fh:
            args.slug = json.load(fh)["festival"]["slug"]
    if args.database:
        return soak(args, args.database, path, workdir)
    if not args.postgres:
        url = f"sqlite:///{os.path.join(workdir, 'soak.db')}"
        load_festival(url, 1, workdir)
        if args.scale > 1:
            cli("import", path, env=service_env(url, 0, None))
        return soak(args, url, path, workdir)
    name = f"fds_soak_{os.getpid()}"
    with scratch_postgres(args.postgres, name) as url:
        cli("init", env=service_env(url, 0, None))
        cli("import", path, env=service_env(url, 0, None))
        return soak(args, url, path, workdir)


if __name__ == "__main__":
    main()
