"""Result day's one step: publishing one programme's results with ``import --update``, against
a full import of the same festival, side by side.

Writes the Kalolsavam ``--scale`` times its size (``python -m seed.generate --scale N``) to a
temporary folder, imports it into a fresh SQLite database (the full import, timed), then
publishes the results of one programme that has entries and no results yet with
``import --update`` of a small CSV folder (timed), as an operator would run them. The full
import is timed as the whole command (``festival-api ...`` in a child process, Python's start
included) and as the import alone (in this process); the updates alternate between the two,
each publishing another programme, and the medians are shown. Wall time and CPU time are
both given: on a shared machine the wall time follows the other load, the CPU time much less.

    .venv/bin/python bench/update_speed.py --scale 20 [--runs 6] [--profile update.prof]
"""
import argparse
import contextlib
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cli(env, *args):
    """Run ``festival-api ARGS``; return ``(wall seconds, CPU seconds)`` of the command."""
    start, used = time.perf_counter(), _children_cpu()
    subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start, _children_cpu() - used


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pick_programme(data, done=()):
    """``(sub-fest slug, programme code, chest numbers)`` of the programme with the most
    individual entries and no result yet (and not in ``done``)."""
    results = {r["registration"] for r in data["results"]}
    sub_fests = {s["id"]: s["slug"] for s in data["subFests"]}
    chests = {c["id"]: c["chest_no"] for c in data["subFestCandidates"]}
    entries = {}
    for r in data["registrations"]:
        if r["id"] not in results and r["is_active"] and r["type"] == "individual":
            entries.setdefault(r["sub_fest_programme"], []).append(chests[r["sub_fest_candidate"]])
    with_results = {r["sub_fest_programme"] for r in data["results"]}
    candidates = [p for p in data["subFestProgrammes"]
                  if p["id"] in entries and p["id"] not in with_results and p["status"] != "cancelled"
                  and p["id"] not in done]
    programme = max(candidates, key=lambda p: (len(entries[p["id"]]), p["code"]))
    return programme["id"], sub_fests[programme["sub_fest"]], programme["code"], sorted(entries[programme["id"]])


def write_update(folder, slug, sub_fest, code, chests, published_at="2026-01-18T12:00:00+05:30"):
    folder.mkdir(parents=True, exist_ok=True)

    def sheet(name, header, rows):
        with open(folder / name, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            writer.writerows(rows)

    sheet("festival.csv", ["slug"], [[slug]])
    sheet("subFestProgrammes.csv", ["sub_fest_slug", "code", "status", "published_at"],
          [[sub_fest, code, "result_published", published_at]])
    sheet("results.csv", ["sub_fest_slug", "sub_fest_programme_code", "chest_no", "position", "is_published",
                          "published_at"],
          [[sub_fest, code, chest, n + 1 if n < 3 else "", "yes", published_at] for n, chest in enumerate(chests)])


def in_process(database_url, action):
    """Time ``action()`` (an import) against ``database_url``, in this process: ``(wall
    seconds, CPU seconds)``."""
    os.environ["DATABASE_URL"] = database_url
    from db.database import bind_database, database

    bind_database(database_url)
    try:
        start, used = time.perf_counter(), time.process_time()
        action()
        return time.perf_counter() - start, time.process_time() - used
    finally:
        database.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--runs", type=int, default=6, help="updates timed (each publishes another programme)")
    parser.add_argument("--profile", help="write a cProfile of one in-process update to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="update-speed-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'festival.db'}", "PYTHONPATH": str(ROOT)}
    fixture = tmp / "festival.json"
    subprocess.run([sys.executable, "-m", "seed.generate", "--scale", str(args.scale), "--out", str(fixture)],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    data = json.loads(fixture.read_text(encoding="utf-8"))
    slug = data["festival"]["slug"]
    rows = sum(len(v) for v in data.values() if isinstance(v, list))
    print(f"{slug}: {rows:,} rows; load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")

    cli(env, "init")
    full_cli = cli(env, "import", str(fixture))
    from seed.pipeline.write.importer import import_file
    from seed.pipeline.write.update import update_file

    full = in_process(env["DATABASE_URL"], lambda: import_file(fixture))
    updates, updates_cli, done = [], [], set()
    for run in range(args.runs):
        programme_id, sub_fest, code, chests = pick_programme(data, done)
        done.add(programme_id)
        folder = tmp / f"update-{run}"
        write_update(folder, slug, sub_fest, code, chests)
        if run % 2 == 0:
            updates_cli.append(cli(env, "import", "--update", str(folder)))
        else:
            profile = args.profile if run == 1 else None
            updates.append(in_process(env["DATABASE_URL"], _profiled(lambda: update_file(folder), profile)))
        print(f"  published {sub_fest}/{code} ({len(chests)} results)")

    def median(times, n):
        return statistics.median(t[n] for t in times)

    print()
    print("| step | whole command: wall (s) | CPU (s) | import alone: wall (s) | CPU (s) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| full import (whole command: into the empty database; alone: the same file again) "
          f"| {full_cli[0]:.2f} | {full_cli[1]:.2f} | {full[0]:.2f} | {full[1]:.2f} |")
    print(f"| `--update`, one programme's results (median of {len(updates_cli)} and {len(updates)}) "
          f"| {median(updates_cli, 0):.2f} | {median(updates_cli, 1):.2f} "
          f"| {median(updates, 0):.2f} | {median(updates, 1):.2f} |")
    print(f"| full import / `--update` | {full_cli[0] / median(updates_cli, 0):.1f}x "
          f"| {full_cli[1] / median(updates_cli, 1):.1f}x | {full[0] / median(updates, 0):.1f}x "
          f"| {full[1] / median(updates, 1):.1f}x |")
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    if not args.keep:
        import shutil
        shutil.rmtree(tmp)
    else:
        print(f"kept {tmp}")


def _profiled(action, path):
    if not path:
        return action

    def run():
        import cProfile
        with contextlib.closing(open(path, "wb")):
            pass
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            action()
        finally:
            profiler.disable()
            profiler.dump_stats(path)
    return run


if __name__ == "__main__":
    main()
