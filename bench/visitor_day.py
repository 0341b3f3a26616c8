"""A result day replayed: 30 publications, visitors polling as docs/clients.md says; bytes and full answers.

    .venv/bin/python bench/visitor_day.py [--before DIR] [--visitors 40] [--json FILE]

In one process per code (this checkout, and with ``--before`` another checkout, e.g. a git
worktree of an older commit), through the WSGI app, on a virtual clock, so the figures do not
depend on the machine's load: the bundled festival is seeded, the results of 23 of its
published programmes of the sub-fest ``general`` are withdrawn (before the day), then every
``--publish-every`` virtual seconds one publication is imported with ``festival-api import
--update``: a programme's results published (24 of them), or every fifth a result's score
corrected without moving points (6). Meanwhile ``--visitors`` visitors of each kind poll every
``--poll-every`` virtual seconds, each from its own moment, with a browser's cache (an answer
is held with its ETag and revalidated with ``If-None-Match``: at a poll every 30 s every copy
is stale, ``CACHE_MAX_AGE`` being 10 s):

- **page**: a result-day page that asks again for everything it shows: the latest results,
  its leaderboard (``/toppers``), the page of leaderboards (``/page-toppers``), the race
  (``/topper-race``), the menus (``/filters``), ``/subfests``, ``/news``, ``/schedules``;
- **changes**: the browser recipe of docs/clients.md: ``/changes?sinceRevision=N`` (kinds
  ``programme`` and ``leaderboard``), then the latest results when a programme changed and
  its page's leaderboard when a change names it; ``N`` moves to ``X-Data-Revision``.

Each code replays the day with its own visitors (its ``bench/visitor_day.py``, this one's
when it has none), so that before and after compare the service and the recipe of each.

Printed per code and kind, counted over the day (every visitor has loaded its page before
the first publication): requests, full (``200``) answers and bytes received (status line,
headers and body, with ``Accept-Encoding: gzip``) per visitor-minute, and which paths the
``200``s after the first load were of. The response cache is on with its default seconds;
rate limiting is off.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness import API, FESTIVAL, fetch_changed, work_folder  # noqa: E402

SUB_FEST = "general"
WITHDRAWN = 23  # published programmes withdrawn before the day, published again during it
PUBLICATIONS = 30  # a day's (``--publications``: fewer for a smoke run)


def day_plan(festival, publications=PUBLICATIONS):
    """``(before the day, [publication])``: update files (as dicts). The day publishes the
    programmes whose results are all there (the completed ones, then those withdrawn before
    the day); every fifth publication corrects a published result's score (no points move)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fixture_rules import flag, visible_programmes_with_results

    mine, results = visible_programmes_with_results(festival, SUB_FEST)
    completed = [p for p in mine if p["status"] == "completed"
                 and not any(flag(r, "is_published") for r in results[p["id"]])]
    published = [p for p in mine if p["status"] == "result_published"
                 and all(flag(r, "is_published") and flag(r, "is_public") for r in results[p["id"]])]
    withdrawn = published[:WITHDRAWN]
    scored = [r for p in published[WITHDRAWN:] for r in results[p["id"]] if r.get("score") is not None]

    def update(**sections):
        return {"formatVersion": 1, "festival": {"slug": FESTIVAL}, **sections}

    before = update(subFestProgrammes=[{"id": p["id"], "status": "completed"} for p in withdrawn],
                    results=[{"id": r["id"], "withdrawn": True} for p in withdrawn for r in results[p["id"]]])
    to_publish = completed + withdrawn
    day = []
    for number in range(publications):
        at = f"2026-01-18T{9 + number // 6:02d}:{number % 6 * 10:02d}:00Z"
        if number % 5 == 4:
            result = scored[number // 5]
            day.append(update(results=[{"id": result["id"], "score": result["score"] + 0.5}]))
            continue
        programme = to_publish.pop(0)
        day.append(update(
            subFestProgrammes=[{"id": programme["id"], "status": "result_published", "published_at": at}],
            results=[{"id": r["id"], "is_published": True, "published_at": at} for r in results[programme["id"]]]))
    return before, day


def replay(args, workdir):
    """The day in this process, with the code on ``sys.path``; returns the figures."""
    from click.testing import CliRunner

    from app import create_app
    from app.cli import main as cli

    os.environ.update(DATABASE_URL=f"sqlite:///{workdir}/day.db", RATELIMIT_DEFAULT="", LOG_LEVEL="WARNING")

    def run(*words):
        done = CliRunner().invoke(cli, list(words), catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done.output

    run("seed")
    key = run("keys", "create", FESTIVAL, "--label", "bench").strip().splitlines()[-1]
    with open(os.path.join(ROOT, "seed", "fixtures", f"{FESTIVAL}.json"), encoding="utf-8") as fixture:
        before, day = day_plan(json.load(fixture), args.publications)

    def publish(update, name):
        path = os.path.join(workdir, f"{name}.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(update, out)
        run("import", "--update", path)

    publish(before, "before-the-day")
    client = create_app({"RATELIMIT_DEFAULT": ""}).test_client()
    records = []  # (kind, visitor, virtual second, path, status, bytes)

    class Visitor:
        def __init__(self, kind, number, pages):
            self.kind, self.number, self.pages = kind, number, pages
            self.held = {}  # url -> (ETag, answer)
            self.revision = 0
            self.now = 0.0

        def get(self, path, **params):
            url = (path, tuple(sorted((k, str(v)) for k, v in params.items())))
            headers = {"X-API-Key": key, "Accept-Encoding": "gzip"}
            if url in self.held:
                headers["If-None-Match"] = self.held[url][0]
            response = client.get(API + path, query_string=params, headers=headers)
            size = len(f"HTTP/1.1 {response.status}\r\n") + len(response.data) + 2 + sum(
                len(name) + len(value) + 4 for name, value in response.headers.items())
            records.append((self.kind, self.number, self.now, path, response.status_code, size))
            if response.status_code == 200:
                body = response.data
                if response.headers.get("Content-Encoding") == "gzip":
                    import gzip
                    body = gzip.decompress(body)
                self.held[url] = (response.headers["ETag"], json.loads(body))
            elif response.status_code != 304:
                raise RuntimeError(f"{path} {params} answered {response.status_code}")
            self.revision = int(response.headers["X-Data-Revision"])
            return self.held[url][1]

        def load(self):
            for path, params in self.pages:
                self.get(path, **params)

        def poll(self):
            if self.kind == "page":
                self.load()
                return
            changes = self.get("/changes", sinceRevision=self.shown, limit=100, kinds=["programme", "leaderboard"])
            revision = self.revision
            fetch_changed(self.get, changes, self.pages)
            self.shown = revision

    boards = client.get(f"{API}/topper-placeholders", query_string={"subFestSlug": SUB_FEST},
                        headers={"X-API-Key": key}).get_json()["data"]
    pages = client.get(f"{API}/filters", headers={"X-API-Key": key}).get_json()  # noqa: F841
    page_slug = "results"
    latest = ("/programme-results", {"subFestSlug": SUB_FEST, "hasResults": "true", "sortBy": "publishedAt",
                                     "sortOrder": "desc", "limit": 6})
    visitors = []
    for number in range(args.visitors):
        board = boards[number % len(boards)]["id"]
        visitors.append(Visitor("page", number, [
            latest, ("/toppers", {"topperPlaceholderId": board}), ("/page-toppers", {"pageSlug": page_slug}),
            ("/topper-race", {"topperPlaceholderId": board}), ("/filters", {}), ("/subfests", {}),
            ("/news", {"limit": 10}), ("/schedules", {"subFestSlug": SUB_FEST, "limit": 20})]))
        visitors.append(Visitor("changes", number, [latest, ("/toppers", {"topperPlaceholderId": board})]))
    # Each visitor loads its page before the first publication, then polls from its own moment.
    events = []
    for n, visitor in enumerate(visitors):
        offset = (n * 7.919) % args.poll_every
        visitor.now = offset - args.poll_every
        events.append((visitor.now, 1, n, "load"))
        at = offset
        while at < args.publications * args.publish_every:
            events.append((at, 1, n, "poll"))
            at += args.poll_every
    events += [(number * args.publish_every + args.publish_every / 2, 0, number, "publish")
               for number in range(args.publications)]
    for at, _, n, what in sorted(events):
        if what == "publish":
            publish(day[n], f"publication-{n}")
            continue
        visitor = visitors[n]
        visitor.now = at
        if what == "load":
            visitor.load()
            visitor.shown = visitor.revision
        else:
            visitor.poll()
    minutes = args.publications * args.publish_every / 60
    figures = {"visitors": args.visitors, "minutes": minutes, "publications": args.publications,
               "poll_every": args.poll_every, "publish_every": args.publish_every, "kinds": {}}
    for kind in ("page", "changes"):
        rows = [r for r in records if r[0] == kind and r[2] >= 0]
        full = [r for r in rows if r[4] == 200]
        by_path = {}
        for r in full:
            by_path[r[3]] = by_path.get(r[3], 0) + 1
        figures["kinds"][kind] = {
            "requests_per_visitor_minute": len(rows) / (args.visitors * minutes),
            "full_per_visitor_minute": len(full) / (args.visitors * minutes),
            "bytes_per_visitor_minute": sum(r[5] for r in rows) / (args.visitors * minutes),
            "full_by_path": {path: count / (args.visitors * minutes) for path, count in sorted(by_path.items())}}
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a checkout of the code to compare with")
    parser.add_argument("--visitors", type=int, default=40, help="visitors of each kind (default 40)")
    parser.add_argument("--publications", type=int, default=PUBLICATIONS, help="publications (default 30)")
    parser.add_argument("--publish-every", type=float, default=20, help="virtual seconds between publications")
    parser.add_argument("--poll-every", type=float, default=30, help="virtual seconds between a visitor's polls")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--before-only", action="store_true", help="run the --before code alone")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        with work_folder("festival-visitor-day-") as workdir:
            print(json.dumps(replay(args, workdir)))
        return
    codes = {"before": os.path.abspath(args.before)} if args.before else {}
    if not args.before_only:
        codes["after"] = ROOT
    figures = {}
    for label, code in codes.items():
        own = os.path.join(code, "bench", "visitor_day.py")
        script = own if os.path.exists(own) else os.path.abspath(__file__)
        done = subprocess.run([sys.executable, script, "--inner", "--visitors", str(args.visitors),
                               "--publications", str(args.publications),
                               "--publish-every", str(args.publish_every), "--poll-every", str(args.poll_every)],
                              cwd=code, env={**os.environ, "PYTHONPATH": code}, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{label}: {done.stderr[-3000:]}")
        figures[label] = json.loads(done.stdout.strip().splitlines()[-1])
    first = next(iter(figures.values()))
    print(f"{first['publications']} publications every {first['publish_every']:g} s, {first['visitors']} visitors "
          f"of each kind polling every {first['poll_every']:g} s, {first['minutes']:g} min (virtual)")
    print(f"{'code':<7} {'visitors':<8} {'req/visitor-min':>16} {'200s/visitor-min':>17} {'bytes/visitor-min':>18}")
    for label, day in figures.items():
        for kind, run in day["kinds"].items():
            print(f"{label:<7} {kind:<8} {run['requests_per_visitor_minute']:>16.2f} "
                  f"{run['full_per_visitor_minute']:>17.2f} {run['bytes_per_visitor_minute']:>18.0f}")
    for label, day in figures.items():
        for kind, run in day["kinds"].items():
            paths = ", ".join(f"{path} {count:.2f}" for path, count in run["full_by_path"].items())
            print(f"200s/visitor-min by path, {label} {kind}: {paths}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
