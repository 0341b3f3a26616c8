"""Result day as visitors see it: pages revalidated with If-None-Match while programmes are published.

Two servers run side by side, at the same time, on copies of one seeded database: this
checkout ("after") and another checkout of the code (``--before``, e.g. a git worktree of an
older commit). Every ``--publish-every`` seconds one more programme's results are published
on both (``festival-api import --update``, each side with its own code). Meanwhile
``--visitors`` visitors of each kind poll each server every ``--poll-every`` seconds,
following docs/clients.md:

- **revalidating**: a result-day page that asks again for everything it shows, each answer
  with the ETag it holds (``If-None-Match``), as a browser does once its copy is stale;
- **changes**: the browser recipe: ``/changes?sinceRevision=N`` (revalidated), then the
  latest results list when a programme changed and its page's leaderboard when a change
  names it; ``N`` moves to the festival's revision (``X-Data-Revision``, or the body's where
  the code has no such header).

Printed per side and kind, counted from the end of the first poll (every visitor has
loaded its page by then): requests and bytes received (status line, headers and body, as
sent with ``Accept-Encoding: gzip``) per visitor-minute, the share of 304s, and the client's
p50/p99 latency in ms.

    .venv/bin/python bench/revalidation.py --before /tmp/main-before --minutes 6 [--json FILE]

The clients run in this process on the same machine as both servers, so latencies include
the clients' own share of the CPU (the same for both sides). Rate limiting is off; the
response cache is on with its default seconds.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import API, FESTIVAL, cli, fetch_changed, get_json, work_folder  # noqa: E402
from result_day import Server  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUB_FEST = "general"
PUBLISHED_AT = "2026-01-18T16:00:00Z"


def programmes_to_publish(festival):
    """Visible programmes of the sub-fest whose results are all there but not yet published, in
    the bundled file's order: one is published per interval."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fixture_rules import flag, visible_programmes_with_results

    programmes, results = visible_programmes_with_results(festival, SUB_FEST)
    return [(programme, results[programme["id"]]) for programme in programmes
            if programme["status"] == "completed"
            and not any(flag(r, "is_published") for r in results[programme["id"]])]


def update_file(path, programme, results):
    with open(path, "w", encoding="utf-8") as out:
        json.dump({"formatVersion": 1, "festival": {"slug": FESTIVAL},
                   "subFestProgrammes": [{"id": programme["id"], "status": "result_published",
                                          "published_at": PUBLISHED_AT}],
                   "results": [{"id": r["id"], "is_published": True, "published_at": PUBLISHED_AT}
                               for r in results]}, out)


class Side:
    """One server and what its visitors measured."""

    def __init__(self, label, code, env, workdir, threads):
        self.label, self.code, self.env = label, code, env
        self.server = Server(env, threads, os.path.join(workdir, f"server-{label}.log"), cwd=code)
        self.records = []  # (kind, seconds since the start, status, bytes, ms)
        self.lock = threading.Lock()

    def publish(self, path):
        subprocess.run([sys.executable, "-m", "app.cli", "import", "--update", path], env=self.env, cwd=self.code,
                       check=True, capture_output=True)


class Visitor:
    """One visitor of one side: a keep-alive connection and the answers it holds."""

    def __init__(self, side, kind, key, pages, started):
        self.side, self.kind, self.key, self.pages, self.started = side, kind, key, pages, started
        self.held = {}  # url -> (ETag, body)
        self.revision = 0
        self.connection = None

    def get(self, path, **params):
        url = f"{API}{path}?{urllib.parse.urlencode(params)}"
        headers = {"X-API-Key": self.key, "Accept-Encoding": "gzip"}
        if url in self.held:
            headers["If-None-Match"] = self.held[url][0]
        began = time.perf_counter()
        for attempt in (1, 2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection("127.0.0.1", self.side.server.port, timeout=30)
                self.connection.request("GET", url, headers=headers)
                response = self.connection.getresponse()
                body = response.read()
                break
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        elapsed = (time.perf_counter() - began) * 1000
        size = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + len(body) + 2 + sum(
            len(name) + len(value) + 4 for name, value in response.getheaders())
        with self.side.lock:
            self.side.records.append((self.kind, time.monotonic() - self.started, response.status, size, elapsed))
        if response.status == 200:
            if response.getheader("Content-Encoding") == "gzip":
                import gzip
                body = gzip.decompress(body)
            answer = json.loads(body)
            self.held[url] = (response.getheader("ETag"), answer)
        elif response.status == 304:
            answer = self.held[url][1]
        else:
            raise RuntimeError(f"{self.side.label}: {url} answered {response.status}")
        # The festival's revision now: the header, or (code without it) a fresh body's.
        revision = response.getheader("X-Data-Revision")
        if revision is not None:
            self.revision = int(revision)
        elif response.status == 200:
            self.revision = max(self.revision, answer["context"]["data"]["revision"])
        return answer

    def load(self):
        for path, params in self.pages:
            self.get(path, **params)

    def poll(self):
        if self.kind == "revalidating":
            self.load()
            return
        changes = self.get("/changes", sinceRevision=self.revision, limit=100)
        revision = self.revision
        fetch_changed(self.get, changes, self.pages)
        self.revision = revision


def visitor_pages(port, key, index):
    """What a visitor's page shows: the latest results first, then the rest of the page."""
    published = get_json(port, key, "/programme-results", subFestSlug=SUB_FEST, hasResults="true",
                         limit=100)["data"]
    placeholders = get_json(port, key, "/topper-placeholders", subFestSlug=SUB_FEST, limit=5)["data"]
    shown = [published[(index + turn) % len(published)]["programme"]["id"] for turn in (0, 7)]
    return [
        ("/programme-results", {"subFestSlug": SUB_FEST, "hasResults": "true", "sortBy": "publishedAt",
                                "sortOrder": "desc", "limit": 6}),
        ("/subfests", {}),
        ("/news", {"limit": 10}),
        ("/schedules", {"subFestSlug": SUB_FEST, "limit": 20}),
        ("/toppers", {"topperPlaceholderId": placeholders[index % len(placeholders)]["id"], "limit": 10}),
        *[("/programme-result", {"subFestProgramId": programme}) for programme in shown],
    ]


def run(args, workdir):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/seed.db", "RATELIMIT_DEFAULT": "", "LOG_LEVEL": "WARNING"}
    env.pop("RESPONSE_CACHE_SECONDS", None)
    print(f"Seeding {workdir}/seed.db ...", flush=True)
    cli("seed", env=env)
    key = cli("keys", "create", FESTIVAL, "--label", "bench", env=env).strip().splitlines()[-1]
    with open(os.path.join(ROOT, "seed", "fixtures", f"{FESTIVAL}.json"), encoding="utf-8") as fixture:
        queue = programmes_to_publish(json.load(fixture))
    codes = {"before": os.path.abspath(args.before or ROOT), "after": ROOT}
    sides = []
    try:
        for label, code in codes.items():
            shutil.copy(f"{workdir}/seed.db", f"{workdir}/{label}.db")
            side_env = {**env, "DATABASE_URL": f"sqlite:///{workdir}/{label}.db"}
            sides.append(Side(label, code, side_env, workdir, args.threads))
        measure(args, sides, key, queue, workdir)
    finally:
        for side in sides:
            side.server.close()
    return report(args, sides)


def measure(args, sides, key, queue, workdir):
    started = time.monotonic()
    window = (args.poll_every, args.poll_every + args.minutes * 60)
    stop = threading.Event()
    failures = []
    pages = [visitor_pages(sides[0].server.port, key, index) for index in range(args.visitors)]
    rng = random.Random(7)
    offsets = [rng.uniform(0, args.poll_every) for _ in range(args.visitors)]

    def visit(visitor, offset):
        try:
            if stop.wait(offset):
                return
            visitor.load()
            turn = 1
            while not stop.wait(max(0.0, started + offset + turn * args.poll_every - time.monotonic())):
                visitor.poll()
                turn += 1
        except Exception as error:  # noqa: BLE001 (reported, and the run fails)
            failures.append(f"{visitor.side.label} {visitor.kind}: {error}")
        finally:
            if visitor.connection is not None:
                visitor.connection.close()

    threads = [threading.Thread(target=visit, args=(Visitor(side, kind, key, pages[index], started), offsets[index]),
                                daemon=True)
               for side in sides for kind in ("revalidating", "changes") for index in range(args.visitors)]
    for thread in threads:
        thread.start()
    print(f"{len(threads)} visitors; publishing a programme every {args.publish_every:g} s for "
          f"{args.minutes:g} min ...", flush=True)
    published = 0
    while time.monotonic() - started < window[1]:
        due = started + window[0] + (published + 0.5) * args.publish_every
        if time.monotonic() >= due and published < len(queue):
            path = os.path.join(workdir, f"publish-{published}.json")
            update_file(path, *queue[published])
            for side in sides:
                side.publish(path)
            published += 1
        time.sleep(0.05)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    if failures:
        raise RuntimeError("visitors failed: " + "; ".join(failures[:5]))
    args.published = published
    args.window = window


def report(args, sides):
    start, end = args.window
    minutes = (end - start) / 60
    figures = {"visitors": args.visitors, "minutes": minutes, "published": args.published,
               "poll_every": args.poll_every, "publish_every": args.publish_every, "runs": []}
    print(f"\n{args.published} programmes published, {args.visitors} visitors of each kind per side, "
          f"poll every {args.poll_every:g} s, {minutes:.2f} min counted")
    print(f"{'side':<7} {'visitors':<13} {'req/visitor-min':>16} {'bytes/visitor-min':>18} {'304s':>6} "
          f"{'p50 ms':>7} {'p99 ms':>7}")
    for side in sides:
        for kind in ("revalidating", "changes"):
            rows = [r for r in side.records if r[0] == kind and start <= r[1] < end]
            latencies = [r[4] for r in rows]
            cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [latencies[0]] * 99
            run = {"side": side.label, "kind": kind, "requests": len(rows),
                   "requests_per_visitor_minute": len(rows) / (args.visitors * minutes),
                   "bytes_per_visitor_minute": sum(r[3] for r in rows) / (args.visitors * minutes),
                   "not_modified": sum(r[2] == 304 for r in rows) / len(rows),
                   "p50": cuts[49], "p99": cuts[98]}
            figures["runs"].append(run)
            print(f"{side.label:<7} {kind:<13} {run['requests_per_visitor_minute']:>16.1f} "
                  f"{run['bytes_per_visitor_minute']:>18.0f} {run['not_modified']:>6.0%} "
                  f"{run['p50']:>7.1f} {run['p99']:>7.1f}")
    runs = {(run["side"], run["kind"]): run for run in figures["runs"]}
    for kind in ("revalidating", "changes"):
        before, after = runs["before", kind], runs["after", kind]
        print(f"after / before, {kind}: bytes {after['bytes_per_visitor_minute'] / before['bytes_per_visitor_minute']:.2f}x, "
              f"p99 {after['p99'] / before['p99']:.2f}x")
    print(f"(the two servers and the visitors share {os.cpu_count()} CPUs; before = {args.before or 'this checkout'})")
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a checkout of the code to compare with (default: this one)")
    parser.add_argument("--visitors", type=int, default=50, help="visitors of each kind per side (default 50)")
    parser.add_argument("--minutes", type=float, default=6, help="minutes counted (default 6)")
    parser.add_argument("--publish-every", type=float, default=60, help="seconds between publications (default 60)")
    parser.add_argument("--poll-every", type=float, default=30, help="seconds between a visitor's polls (default 30)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads per server (default 8)")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the databases and the server logs")
    args = parser.parse_args()
    with work_folder("festival-revalidation-", args.keep) as workdir:
        figures = run(args, workdir)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
