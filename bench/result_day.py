"""Result-day load: many clients asking for the same few URLs, response cache off vs on.

Starts the real server (``festival-api serve``, waitress) on a seeded temporary database and a
loopback port, drives ``--clients`` concurrent keep-alive clients at the heavy result-day URLs
for ``--seconds``, and prints requests/s and latency percentiles for the response cache
off and on, measured one after the other in the same run, and their ratio.

    .venv/bin/python bench/result_day.py --clients 32 --seconds 10 [--keep]

The clients run in this process (threads + http.client) on the same machine as the server, so
the figures are a lower bound of what the server alone can do. Rate limiting is switched off
for the run; the access log stays on (written to a file), as in production.

With ``--postgres URL`` (a server on which a scratch database may be made): what the local
copy buys on a result day. Four servers up at once on one scratch PostgreSQL database: the
local copy on and off (``LOCAL_COPY``), each with the response cache off and on. While each
is measured a result is corrected every ``--publish-every`` seconds (``festival-api import
--update`` in another process: the revision moves, the response cache starts again, the
copy is behind until its update), as on a result day. The four run in turn, ``--repeat``
times over, and are compared by medians: requests/s, p50/p99, and CPU a request (the service
process and its PostgreSQL backends, from /proc; the clients and the importer not counted).

    .venv/bin/python bench/result_day.py --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import API, FESTIVAL, cli, free_port, scratch_postgres, work_folder  # noqa: E402


class Server:
    """``festival-api serve`` in a child process, stopped on exit."""

    def __init__(self, env, threads, log_path, workers=1, cwd=None):
        self.port = free_port()
        self.log = open(log_path, "ab")
        # cwd: the checkout whose code serves (``python -m`` imports from the working folder first)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(self.port), "--threads", str(threads),
             "--workers", str(workers)],
            env=env, stdout=subprocess.DEVNULL, stderr=self.log, cwd=cwd)
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _ = request(self.port, "/healthz", None)
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError(f"server did not start; see {log_path}")
            time.sleep(0.1)

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def request(port, path, key, connection=None, gzip=True):
    """GET ``path``; return ``(status, body bytes)``."""
    conn = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"X-API-Key": key} if key else {}
    if gzip:
        headers["Accept-Encoding"] = "gzip"
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    if connection is None:
        conn.close()
    return response.status, body


def result_day_urls(port, key):
    """The URLs a result-day website polls, found from the festival's own data; 404 routes skipped."""

    def get_json(path, **params):
        status, body = request(port, f"{API}{path}?{urllib.parse.urlencode(params)}", key, gzip=False)
        return status, (json.loads(body) if status == 200 else None)

    _, subfests = get_json("/subfests", limit=1)
    sub_fest = subfests["data"][0]["id"]
    candidates = [
        ("/programme-results", {"subFestId": sub_fest, "hasResults": "true", "limit": 20}),
        ("/candidates", {"subFestId": sub_fest, "limit": 50}),
        ("/news", {"limit": 10}),
        ("/schedules", {"limit": 20}),
    ]
    status, placeholders = get_json("/topper-placeholders", subFestId=sub_fest, limit=5)
    if status == 200 and placeholders["data"]:
        candidates.append(("/toppers", {"topperPlaceholderId": placeholders["data"][0]["id"], "limit": 10}))
    else:
        candidates.append(("/toppers", {}))
    urls, skipped = [], []
    for path, params in candidates:
        status, _ = get_json(path, **params)
        if status == 200:
            urls.append(f"{API}{path}?{urllib.parse.urlencode(params)}")
        else:
            skipped.append(f"{path} ({status})")
    return urls, skipped


def drive(port, key, urls, clients, seconds, gzip):
    """``clients`` threads requesting ``urls`` round robin for ``seconds``; latencies in ms."""
    latencies, failures, lock = [], [], threading.Lock()
    stop_at = time.monotonic() + seconds
    start = threading.Barrier(clients)

    def client(index):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine, bad, turn = [], 0, index
        start.wait()
        while time.monotonic() < stop_at:
            path = urls[turn % len(urls)]
            turn += 1
            began = time.perf_counter()
            try:
                status, _ = request(port, path, key, connection, gzip)
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status = None
            mine.append((time.perf_counter() - began) * 1000)
            bad += status != 200
        connection.close()
        with lock:
            latencies.extend(mine)
            failures.append(bad)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "requests": len(latencies),
        "errors": sum(failures),
        "rps": len(latencies) / elapsed,
        "p50": cuts[49], "p95": cuts[94], "p99": cuts[98],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--seconds", type=float, default=10, help="duration of each measurement (default 10)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads (default 8)")
    parser.add_argument("--cache-seconds", type=float, default=5, help="RESPONSE_CACHE_SECONDS when on (default 5)")
    parser.add_argument("--no-gzip", dest="gzip", action="store_false", help="do not send Accept-Encoding: gzip")
    parser.add_argument("--keep", action="store_true", help="keep the database and the server log")
    parser.add_argument("--postgres", help="a PostgreSQL server URL to make a scratch database on: the local "
                                           "copy on and off, each with the cache off and on")
    parser.add_argument("--repeat", type=int, default=3, help="with --postgres: rounds of the four (default 3)")
    parser.add_argument("--publish-every", type=float, default=5,
                        help="with --postgres: seconds between result corrections (default 5; 0: none)")
    parser.add_argument("--json", help="with --postgres: also write the figures to this file")
    args = parser.parse_args()

    with work_folder("festival-bench-", args.keep, " (festival.db, server.log)") as workdir:
        (run_postgres if args.postgres else run)(args, workdir)


def run(args, workdir):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/festival.db", "RATELIMIT_DEFAULT": "",
           "LOG_LEVEL": "INFO", "CONNECTIONS_PER_ADDRESS": "0",  # every client from one address
           "THREADS_PER_ADDRESS": "256"}
    print(f"Seeding {workdir}/festival.db ...", flush=True)
    cli("seed", env=env)
    key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]

    results, logs = {}, {}
    for label, cache_seconds in (("cache off", 0), ("cache on", args.cache_seconds)):
        server_env = {**env, "RESPONSE_CACHE_SECONDS": str(cache_seconds)}
        logs[label] = f"{workdir}/server-{label.split()[-1]}.log"
        with Server(server_env, args.threads, logs[label]) as server:
            if not results:
                urls, skipped = result_day_urls(server.port, key)
                print("URLs:", *urls, sep="\n  ")
                if skipped:
                    print("Skipped (not 200):", ", ".join(skipped))
            for url in urls:  # warm up: connections, SQLite page cache, the response cache
                request(server.port, url, key, gzip=args.gzip)
            print(f"{label}: {args.clients} clients for {args.seconds:g} s ...", flush=True)
            results[label] = drive(server.port, key, urls, args.clients, args.seconds, args.gzip)

    print(f"\n{'':<10} {'requests':>9} {'errors':>7} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for label, r in results.items():
        print(f"{label:<10} {r['requests']:>9} {r['errors']:>7} {r['rps']:>8.0f} "
              f"{r['p50']:>8.1f} {r['p95']:>8.1f} {r['p99']:>8.1f}")
    off, on = results["cache off"], results["cache on"]
    print(f"\ncache on / off: {on['rps'] / off['rps']:.1f}x requests/s, "
          f"p50 {off['p50'] / on['p50']:.1f}x lower, p99 {off['p99'] / on['p99']:.1f}x lower")
    print(f"({args.threads} waitress threads, {os.cpu_count()} CPUs shared by server and clients, "
          f"gzip {'on' if args.gzip else 'off'})")

    print("\nServer-side median per URL, from the access log (ms; bytes sent):")
    medians = {label: server_medians(path) for label, path in logs.items()}
    for path in sorted(medians["cache off"]):
        (off_ms, sent), (on_ms, _) = medians["cache off"][path], medians["cache on"].get(path, (float("nan"), 0))
        print(f"  {path:<40} off {off_ms:7.1f}   on {on_ms:5.1f}   {sent:>7} bytes")


def server_medians(log_path):
    """``{path: (median duration_ms, bytes)}`` of the API requests in an access log."""
    durations, sizes = {}, {}
    with open(log_path, encoding="utf-8") as log:
        for line in log:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("logger") == "festival_api.access" and entry["path"].startswith(API):
                durations.setdefault(entry["path"], []).append(entry["duration_ms"])
                sizes[entry["path"]] = entry["bytes"]
    return {path: (statistics.median(values), sizes[path]) for path, values in durations.items()
            if len(values) > 1}


# The four servers of --postgres: (label, LOCAL_COPY, the response cache on).
COPY_AND_CACHE = (("copy on, cache off", "true", False), ("copy off, cache off", "false", False),
                  ("copy on, cache on", "true", True), ("copy off, cache on", "false", True))
# A published result of the bundled Kalolsavam, corrected back and forth (its grade holds).
CORRECTED_RESULT = "77369123-af11-556a-9cb7-6459c9c7d9c5"
CORRECTED_SCORES = (51, 50)


def run_postgres(args, workdir):
    """The local copy on and off, each with the response cache off and on (module doc)."""
    import contextlib

    name = f"fds_bench_result_day_{os.getpid()}"
    with scratch_postgres(args.postgres, name) as url:
        env = {**os.environ, "DATABASE_URL": url, "RATELIMIT_DEFAULT": "", "LOG_LEVEL": "INFO",
               "CONNECTIONS_PER_ADDRESS": "0", "THREADS_PER_ADDRESS": "256"}
        print(f"Seeding PostgreSQL database {name} ...", flush=True)
        cli("seed", env=env)
        key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]
        pooled = url.replace("postgresql", "postgresql+pool", 1)
        runs = {label: [] for label, _, _ in COPY_AND_CACHE}
        with contextlib.ExitStack() as stack:
            servers = {}
            for label, copy, cached in COPY_AND_CACHE:
                server_env = {**env, "DATABASE_URL": pooled, "LOCAL_COPY": copy,
                              "RESPONSE_CACHE_SECONDS": str(args.cache_seconds if cached else 0)}
                log = os.path.join(workdir, f"server-{label.replace(', ', '-').replace(' ', '_')}.log")
                servers[label] = stack.enter_context(Server(server_env, args.threads, log))
            urls, skipped = result_day_urls(servers[COPY_AND_CACHE[0][0]].port, key)
            print("URLs:", *urls, sep="\n  ")
            if skipped:
                print("Skipped (not 200):", ", ".join(skipped))
            load = os.getloadavg()
            for round_ in range(args.repeat):
                for label, _, _ in COPY_AND_CACHE:
                    server = servers[label]
                    drive(server.port, key, urls, args.clients, 1, args.gzip)  # connections, pages, the copy
                    print(f"round {round_ + 1}, {label}: {args.clients} clients for {args.seconds:g} s ...",
                          flush=True)
                    runs[label].append(measured(args, server, key, urls, url, env, workdir))
        report_postgres(args, runs, load, os.getloadavg())


def _cpu_seconds(pids):
    """``{pid: user + system CPU seconds}`` of the processes still running (/proc/PID/stat)."""
    ticks, found = os.sysconf("SC_CLK_TCK"), {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return found


def _processes(server, url):
    """The service process (and any children) and the PostgreSQL backends of the database."""
    import psycopg2

    pids = [server.process.pid]
    try:
        for task in os.listdir(f"/proc/{server.process.pid}/task"):
            with open(f"/proc/{server.process.pid}/task/{task}/children", encoding="ascii") as fh:
                pids += [int(pid) for pid in fh.read().split()]
    except OSError:
        pass
    connection = psycopg2.connect(url)
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                        "AND pid <> pg_backend_pid()")
            backends = [row[0] for row in cur.fetchall()]
    finally:
        connection.close()
    return pids, backends


def measured(args, server, key, urls, url, env, workdir):
    """One measurement of ``server`` while results are corrected; its figures and CPU a request.

    The service's CPU is its process's; PostgreSQL's is that of the backends open both before
    and after (every server's, since its connections serve it; the importer's come and go)."""
    service, backends = _processes(server, url)
    before = _cpu_seconds(service), _cpu_seconds(backends)
    stop, published = threading.Event(), []

    def publish():
        while not stop.wait(args.publish_every / 2 if not published else args.publish_every):
            path = os.path.join(workdir, f"correction-{len(published)}.json")
            with open(path, "w", encoding="utf-8") as out:
                json.dump({"formatVersion": 1, "festival": {"slug": FESTIVAL},
                           "results": [{"id": CORRECTED_RESULT,
                                        "score": CORRECTED_SCORES[len(published) % 2]}]}, out)
            cli("import", "--update", path, env=env)
            published.append(path)

    publisher = threading.Thread(target=publish, daemon=True)
    if args.publish_every:
        publisher.start()
    figures = drive(server.port, key, urls, args.clients, args.seconds, args.gzip)
    stop.set()
    if args.publish_every:
        publisher.join()
    after = _cpu_seconds(service), _cpu_seconds(backends)
    service_cpu = sum(after[0][pid] - before[0][pid] for pid in after[0] if pid in before[0])
    postgres_cpu = sum(after[1][pid] - before[1][pid] for pid in after[1] if pid in before[1])
    requests = max(1, figures["requests"])
    return {**figures, "published": len(published), "service_cpu_ms": 1000 * service_cpu / requests,
            "postgres_cpu_ms": 1000 * postgres_cpu / requests}


def report_postgres(args, runs, load_before, load_after):
    def median(label, figure):
        return statistics.median(run[figure] for run in runs[label])

    print(f"\nmedians of {args.repeat} rounds; {args.clients} clients, {args.seconds:g} s each, a result "
          f"corrected every {args.publish_every:g} s; {args.threads} waitress threads, {os.cpu_count()} CPUs "
          f"shared by the servers, PostgreSQL, the importer and the clients")
    print(f"{'':<20} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'CPU ms a request':>17}"
          f" {'(service':>9} {'+ PG)':>6} {'published':>9}")
    figures = {}
    for label in runs:
        row = {figure: median(label, figure) for figure in ("rps", "p50", "p99", "errors", "service_cpu_ms",
                                                             "postgres_cpu_ms", "published")}
        row["cpu_ms"] = row["service_cpu_ms"] + row["postgres_cpu_ms"]
        figures[label] = row
        print(f"{label:<20} {row['rps']:>7.0f} {row['p50']:>7.1f} {row['p99']:>7.1f} {row['errors']:>6.0f} "
              f"{row['cpu_ms']:>17.2f} {row['service_cpu_ms']:>9.2f} {row['postgres_cpu_ms']:>6.2f} "
              f"{row['published']:>9.0f}")
    print("each round (req/s, errors; CPU ms a request):")
    for label in runs:
        print(f"  {label:<20} " + "; ".join(f"{run['rps']:.0f}, {run['errors']}; "
                                            f"{run['service_cpu_ms'] + run['postgres_cpu_ms']:.2f}"
                                            for run in runs[label]))
    print("\nthe copy on / off (same run):")
    for cache in ("cache off", "cache on"):
        on, off = figures[f"copy on, {cache}"], figures[f"copy off, {cache}"]
        print(f"  {cache}: {on['rps'] / off['rps']:.2f}x requests/s, CPU a request {on['cpu_ms'] / off['cpu_ms']:.2f}x "
              f"(PostgreSQL's {on['postgres_cpu_ms'] / max(off['postgres_cpu_ms'], 1e-9):.2f}x), "
              f"p50 {on['p50'] / off['p50']:.2f}x, p99 {on['p99'] / off['p99']:.2f}x")
    print(f"load average (1, 5, 15 min) before {' '.join(f'{v:.2f}' for v in load_before)}, "
          f"after {' '.join(f'{v:.2f}' for v in load_after)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"figures": figures, "runs": runs, "load_before": load_before, "load_after": load_after,
                       "clients": args.clients, "seconds": args.seconds, "repeat": args.repeat,
                       "publish_every": args.publish_every}, out, indent=1)


if __name__ == "__main__":
    main()
