"""The result day on one box: visitors through nginx's cache at the service while results are published.

One `festival-api serve` (SQLite, seeded) behind a real nginx running `docs/nginx.conf.example`
(its HTTPS server and `proxy_cache` block, `worker_processes auto`), all on this machine. The
visitors ask for the URLs of a result-day page, each naming its festival (`festival=`, so the
answers are shared: `s-maxage`), through nginx, with wrk (keep-alive, HTTPS, `--connections`
at a time, each as fast as it is answered). Every `--publish-every` seconds one more
programme's results are published (`festival-api import --update`, as `bench/revalidation.py`
does). Meanwhile one more visitor polls `/changes` through nginx every 0.1 s and notes when it
first sees each publication's revision.

Printed, per number of connections: requests/s served, p50/p99 latency, and the visitors'
requests that reached the service (its access log) in all and per second; the most requests/s served
with p99 at most 50 ms; and the seconds from each publication (when the service first
answers its revision, asked every 20 ms) to the first visitor who sees it, p50/p99 over the publications. The load
average before and after is printed too: the machine may be shared.

    .venv/bin/python bench/shared_cache.py [--connections 4,8,16,32,64] [--seconds 15] [--json FILE]

wrk, nginx, the service, the importer and the watcher share the machine's CPUs, so the
figures are what one box does with all of them on it. Rate limiting is off (every visitor
comes from 127.0.0.1); the service's caches keep their defaults.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness import API, FESTIVAL, cli, free_port, get_json, work_folder  # noqa: E402
from result_day import Server  # noqa: E402
from revalidation import SUB_FEST, programmes_to_publish, update_file  # noqa: E402

EXAMPLE = os.path.join(ROOT, "docs", "nginx.conf.example")
P99_TARGET_MS = 50
WATCH_EVERY = 0.1
# Longest wait, after the runs, for the watcher to see the last publication.
LAST_WAIT = 15
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_config(workdir, upstream_port, https_port):
    """docs/nginx.conf.example for this run: its one upstream, ports, certificate and folders."""
    with open(EXAMPLE, encoding="utf-8") as fh:
        site = fh.read()
    site = re.sub(r"(?m)^    server 127\.0\.0\.1:\d+ [^\n]*\n(?:    server 127[^\n]*\n)*",
                  f"    server 127.0.0.1:{upstream_port} max_fails=3 fail_timeout=10s;\n", site, count=1)
    for pattern, replacement in [
        (r"(?m)^\s*listen \[::\]:\d+[^;]*;\n", ""),
        (r"listen 80;", f"listen 127.0.0.1:{free_port()};"),
        (r"listen 443 ", f"listen 127.0.0.1:{https_port} "),
        (r"/etc/letsencrypt/live/api\.festival\.example/fullchain\.pem", f"{workdir}/cert.pem"),
        (r"/etc/letsencrypt/live/api\.festival\.example/privkey\.pem", f"{workdir}/key.pem"),
        (r"/var/cache/nginx/festival-api", f"{workdir}/cache"),
        (r"/var/log/nginx/", f"{workdir}/"),
    ]:
        site, count = re.subn(pattern, replacement, site)
        if not count:
            raise RuntimeError(f"docs/nginx.conf.example no longer contains {pattern!r}")
    with open(f"{workdir}/site.conf", "w") as fh:
        fh.write(site)
    temp_dirs = "".join(f"    {name}_temp_path {workdir}/{name};\n"
                        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    with open(f"{workdir}/nginx.conf", "w") as fh:
        fh.write(("user root;\n" if os.geteuid() == 0 else "") + "worker_processes auto;\n"
                 + f"pid {workdir}/nginx.pid;\nerror_log {workdir}/error.log;\n"
                 + "events { worker_connections 4096; }\n"
                 + f"http {{\n{temp_dirs}    include {workdir}/site.conf;\n}}\n")


class Nginx:
    """nginx with the example's configuration in front of ``upstream_port``, stopped on exit."""

    def __init__(self, workdir, upstream_port):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=api.festival.example", "-keyout", f"{workdir}/key.pem",
                        "-out", f"{workdir}/cert.pem"], check=True, capture_output=True)
        self.port = free_port()
        nginx_config(workdir, upstream_port, self.port)
        self.process = subprocess.Popen([NGINX, "-p", workdir, "-c", f"{workdir}/nginx.conf", "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                get(self.port, "/healthz", None)
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start; see {workdir}/error.log") from None
                time.sleep(0.1)

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def get(port, path, key):
    """``(status, headers, body)`` of one GET through nginx's HTTPS port."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
    try:
        connection.request("GET", path, headers={"X-API-Key": key} if key else {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def page_urls(server_port, key):
    """The URLs of a result-day page (docs/clients.md), each naming the festival."""
    placeholders = get_json(server_port, key, "/topper-placeholders", subFestSlug=SUB_FEST, limit=5)["data"]
    programmes = get_json(server_port, key, "/programmes", subFestSlug=SUB_FEST, limit=40)["data"]
    pages = [
        ("/programme-results", {"subFestSlug": SUB_FEST, "hasResults": "true", "sortBy": "publishedAt",
                                "sortOrder": "desc", "limit": 6}),
        ("/subfests", {}),
        ("/news", {"limit": 10}),
        ("/schedules", {"subFestSlug": SUB_FEST, "limit": 20}),
        *[("/toppers", {"topperPlaceholderId": p["id"], "limit": 10}) for p in placeholders],
        *[("/programme-result", {"subFestProgramId": p["id"]}) for p in programmes],
    ]
    return [f"{API}{path}?{urllib.parse.urlencode({'festival': FESTIVAL, **params})}" for path, params in pages]


def wrk(port, paths, seconds, connections, key, workdir):
    """wrk over ``paths`` through nginx; its figures (bench/wrk_report.lua)."""
    paths_file, headers_file = f"{workdir}/paths.txt", f"{workdir}/headers.txt"
    with open(paths_file, "w") as fh:
        fh.write("\n".join(paths) + "\n")
    with open(headers_file, "w") as fh:
        fh.write(f"X-API-Key: {key}\nAccept-Encoding: gzip\n")
    done = subprocess.run(["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
                           "-s", os.path.join(HERE, "wrk_report.lua"), f"https://127.0.0.1:{port}"],
                          env={**os.environ, "WRK_PATHS": paths_file, "WRK_HEADERS": headers_file},
                          capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["rps"] = figures["requests"] / figures["seconds"] if figures["seconds"] else 0.0
    return figures


def reached(log_path):
    """How many visitors' requests (their URLs name the festival) the service's access log holds."""
    count = 0
    with open(log_path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("logger") == "festival_api.access" and "festival" in (entry.get("query") or ()):
                count += 1
    return count


def revision_now(server_port, key):
    """The festival's revision, asked of the service itself (not through nginx)."""
    connection = http.client.HTTPConnection("127.0.0.1", server_port, timeout=30)
    try:
        connection.request("GET", f"{API}/subfests?limit=1", headers={"X-API-Key": key})
        response = connection.getresponse()
        response.read()
        return int(response.getheader("X-Data-Revision"))
    finally:
        connection.close()


class Publisher(threading.Thread):
    """Publishes one more programme every ``every`` seconds. A publication's time is when the
    service first answers its revision (asked every 20 ms while the import runs)."""

    def __init__(self, env, key, server_port, queue, every, workdir):
        super().__init__(daemon=True)
        self.env, self.key, self.server_port, self.queue = env, key, server_port, queue
        self.every, self.workdir = every, workdir
        self.published = []  # (revision, time.monotonic() it was first served)
        self.stop = threading.Event()
        self.error = None

    def run(self):
        started = time.monotonic()
        try:
            for index, (programme, results) in enumerate(self.queue):
                # One publication starts every ``every`` seconds (or as soon as the last is done).
                if self.stop.wait(max(0.0, started + (index + 1) * self.every - time.monotonic())):
                    return
                path = f"{self.workdir}/publish-{index}.json"
                update_file(path, programme, results)
                before = revision_now(self.server_port, self.key)
                importing = subprocess.Popen([sys.executable, "-m", "app.cli", "import", "--update", path],
                                             env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE)
                while True:
                    revision = revision_now(self.server_port, self.key)
                    if revision > before:
                        self.published.append((revision, time.monotonic()))
                        break
                    if importing.poll() is not None:
                        break
                    time.sleep(0.02)
                _, stderr = importing.communicate(timeout=300)
                if importing.returncode != 0:
                    raise RuntimeError(f"import --update failed: {stderr.decode()[-500:]}")
        except Exception as error:  # noqa: BLE001 (reported, and the run fails)
            self.error = error


class Watcher(threading.Thread):
    """A visitor polling ``/changes`` through nginx every 0.1 s: when each revision is first seen."""

    def __init__(self, port, key, since):
        super().__init__(daemon=True)
        self.port, self.key = port, key
        self.url = f"{API}/changes?{urllib.parse.urlencode({'festival': FESTIVAL, 'sinceRevision': since})}"
        self.first_seen = {}  # revision -> monotonic time
        self.stop = threading.Event()
        self.statuses = {}

    def run(self):
        while not self.stop.wait(WATCH_EVERY):
            try:
                status, _, body = get(self.port, self.url, self.key)
            except OSError:
                status, body = "error", b""
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == 200:
                revision = json.loads(body)["context"]["data"]["revision"]
                self.first_seen.setdefault(revision, time.monotonic())


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", default="4,8,16,32,64",
                        help="wrk connections, one run each (default 4,8,16,32,64)")
    parser.add_argument("--seconds", type=float, default=15, help="seconds of each run (default 15)")
    parser.add_argument("--publish-every", type=float, default=10, help="seconds between publications (default 10)")
    parser.add_argument("--threads", type=int, default=8, help="waitress threads of the service (default 8)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (database, logs)")
    args = parser.parse_args()
    for tool in ("wrk", "openssl"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is needed")
    if not os.path.exists(NGINX):
        sys.exit("nginx is needed")
    with work_folder("festival-shared-cache-", args.keep) as workdir:
        figures = run(args, workdir)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(figures, fh, indent=1)


def run(args, workdir):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/festival.db", "RATELIMIT_DEFAULT": "",
           "CONNECTIONS_PER_ADDRESS": "0", "THREADS_PER_ADDRESS": "256",  # every visitor from one address
           "LOG_LEVEL": "INFO", "TRUSTED_PROXIES": "1"}
    print(f"Seeding {workdir}/festival.db ...", flush=True)
    cli("seed", env=env)
    key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]
    with open(os.path.join(ROOT, "seed", "fixtures", f"{FESTIVAL}.json"), encoding="utf-8") as fixture:
        queue = programmes_to_publish(json.load(fixture))
    load_before = os.getloadavg()
    log_path = f"{workdir}/server.log"
    server = Server(env, args.threads, log_path)
    proxy = None
    try:
        proxy = Nginx(workdir, server.port)
        paths = page_urls(server.port, key)
        for path in paths:  # the page loaded once: every URL in the cache
            get(proxy.port, path, key)
        status, headers, _ = get(proxy.port, paths[0], key)
        cache_control = headers.get("Cache-Control")
        watcher = Watcher(proxy.port, key, int(headers["X-Data-Revision"]))
        publisher = Publisher(env, key, server.port, queue, args.publish_every, workdir)
        watcher.start()
        publisher.start()
        runs = []
        for connections in [int(c) for c in args.connections.split(",")]:
            before = reached(log_path)
            figures = wrk(proxy.port, paths, args.seconds, connections, key, workdir)
            time.sleep(0.5)  # the service writes its access lines once the answers are sent
            figures["connections"] = connections
            figures["reached_service"] = reached(log_path) - before
            figures["reached_per_second"] = figures["reached_service"] / figures["seconds"]
            runs.append(figures)
            print(f"  {connections} connections: {figures['rps']:.0f} req/s, p99 {figures['p99_ms']:.1f} ms, "
                  f"{figures['reached_service']} reached the service", flush=True)
        publisher.stop.set()
        publisher.join(timeout=300)
        # The last publication reaches the watcher within s-maxage and a revalidation.
        last = max((revision for revision, _ in publisher.published), default=0)
        deadline = time.monotonic() + LAST_WAIT
        while not any(seen >= last for seen in list(watcher.first_seen)) and time.monotonic() < deadline:
            time.sleep(0.1)
        watcher.stop.set()
        watcher.join(timeout=30)
        if publisher.error is not None:
            raise RuntimeError(f"publishing failed: {publisher.error}")
    finally:
        if proxy is not None:
            proxy.close()
        server.close()
    load_after = os.getloadavg()

    delays = []
    for revision, at in publisher.published:
        seen = [when for seen_revision, when in watcher.first_seen.items() if seen_revision >= revision]
        if seen:
            delays.append(max(0.0, min(seen) - at))
    unseen = len(publisher.published) - len(delays)
    within = [run for run in runs if run["p99_ms"] <= P99_TARGET_MS and run["errors"] == 0
              and run["non_2xx_3xx"] == 0]
    best = max(within, key=lambda run: run["rps"]) if within else None

    print(f"\nnginx cache (docs/nginx.conf.example) in front of one `festival-api serve` ({args.threads} threads), "
          f"{os.cpu_count()} CPUs; {len(paths)} URLs naming the festival; Cache-Control: {cache_control}")
    print(f"{'conn':>5} {'requests':>9} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>7} "
          f"{'non-2xx':>8} {'to service':>11} {'/s':>6}")
    for run in runs:
        print(f"{run['connections']:>5} {run['requests']:>9} {run['rps']:>8.0f} {run['p50_ms']:>7.1f} "
              f"{run['p99_ms']:>7.1f} {run['errors']:>7} {run['non_2xx_3xx']:>8} {run['reached_service']:>11} "
              f"{run['reached_per_second']:>6.1f}")
    if best:
        print(f"served at p99 <= {P99_TARGET_MS} ms: {best['rps']:.0f} req/s ({best['connections']} connections), "
              f"{best['reached_per_second']:.1f} req/s reached the service")
    else:
        print(f"served at p99 <= {P99_TARGET_MS} ms: none of the runs")
    print(f"publication -> first visitor who sees it: p50 {percentile(delays, 0.5):.2f} s, "
          f"p99 {percentile(delays, 0.99):.2f} s, max {max(delays, default=float('nan')):.2f} s "
          f"({len(delays)} publications every {args.publish_every:g} s; {unseen} not seen; "
          f"watcher every {WATCH_EVERY:g} s)")
    print("load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(*load_before, *load_after))
    return {"runs": runs, "best": best, "delays": delays, "published": len(publisher.published), "unseen": unseen,
            "cache_control": cache_control, "watcher_statuses": {str(k): v for k, v in watcher.statuses.items()},
            "load_before": load_before, "load_after": load_after}


if __name__ == "__main__":
    main()
