"""Saving is publishing: seconds from a saved workbook to the API serving the change.

A temporary SQLite database holds the bundled Kalolsavam (``festival-api seed``), or with
``--scale N`` the Kalolsavam N times its size (``python -m seed.generate --scale N``). The
festival is exported as one .xlsx workbook (``festival-api export SLUG office/FILE.xlsx``:
a sheet per CSV file, written by openpyxl) and a real ``festival-api follow`` process
follows it at its default settings, beside a real ``festival-api serve`` on a loopback port.

Each of ``--saves`` times the workbook is opened with openpyxl, one published result's
score is changed (by half a mark, and back), and it is saved as an office program saves: a temporary file in the same
folder, renamed over the workbook. The clock starts when the rename is done and stops when
``/programme-result`` of that programme answers the new score (asked every 20 ms), as a
website beside the workbook would see it. Prints each figure, the median and the largest,
the CPU seconds the follow process used for each save (what the machine's other load does
not change), and the machine's load.

    .venv/bin/python bench/save_to_served.py [--saves 5] [--scale N] [--keep]
"""
import argparse
import contextlib
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import API, FESTIVAL, cli, free_port, work_folder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The longest a save may take to be served before the run gives up on it.
GIVE_UP_SECONDS = 300


def get(port, path, key):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"X-API-Key": key} if key else {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Process:
    """A ``festival-api`` command running beside the run; its stderr lines are kept."""

    def __init__(self, env, *args):
        self.process = subprocess.Popen([sys.executable, "-m", "app.cli", *args], env=env, cwd=ROOT,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(re.search(pattern, line) for line in self.lines):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"no line matching {pattern!r}:\n" + "\n".join(self.lines[-20:]))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=5)


def wait_serving(port, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if get(port, "/healthz", None)[0] == 200:
                return
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


def published_result(path):
    """``(row number, score column, sub-fest slug, programme code, chest no, score)`` of the
    first published result with a score in the workbook's ``results`` sheet."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True)
    try:
        rows = book["results"].iter_rows(values_only=True)
        header = list(next(rows))
        column = {name: header.index(name) for name in header if name}
        for number, row in enumerate(rows, start=2):
            if str(row[column["is_published"]]).lower() in ("true", "yes") and \
                    str(row[column["is_public"]]).lower() in ("true", "yes") and \
                    isinstance(row[column["score"]], (int, float)) and 20 <= row[column["score"]] <= 80:
                return (number, column["score"] + 1, row[column["sub_fest_slug"]],
                        row[column["sub_fest_programme_code"]], str(row[column["chest_no"]]),
                        row[column["score"]])
    finally:
        book.close()
    raise RuntimeError("no published result with a score in the workbook")


def save_as_an_office_program(path, row, column, score):
    """Open the workbook, change one cell, write a temporary file beside it and rename it over."""
    from openpyxl import load_workbook

    book = load_workbook(path)
    book["results"].cell(row=row, column=column).value = score
    temporary = path.with_name(f".~lock-{path.name}.tmp")
    book.save(temporary)
    os.replace(temporary, path)  # the save is done here: the clock starts


def served_score(port, key, sub_fest, code, chest):
    query = urllib.parse.urlencode({"subFestSlug": sub_fest, "programCode": code})
    status, body = get(port, f"{API}/programme-result?{query}", key)
    if status != 200:
        return None
    for result in json.loads(body).get("results") or []:
        if str((result.get("candidate") or {}).get("chestNo")) == chest:
            return result.get("score")
    return None


def cpu_seconds(pid):
    """User and system CPU seconds a process has used (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5, help="saves measured (default 5)")
    parser.add_argument("--scale", type=int, default=1,
                        help="the Kalolsavam N times its size (default: the bundled one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print it")
    args = parser.parse_args()
    with work_folder("save-to-served-", args.keep) as workdir:
        run(args, Path(workdir))


def run(args, workdir):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/festival.db", "RATELIMIT_DEFAULT": "",
           "PYTHONUNBUFFERED": "1"}
    slug = FESTIVAL
    print(f"Before: {load()}", flush=True)
    if args.scale > 1:
        cli("init", env=env, cwd=ROOT)
        out = subprocess.run(
            [sys.executable, "-m", "seed.generate", "--scale", str(args.scale), "--out", str(workdir)],
            cwd=ROOT, check=True, capture_output=True, text=True).stdout
        fixture = re.search(r"wrote (\S+)", out)[1]
        cli("import", fixture, env=env, cwd=ROOT)
        slug = f"{FESTIVAL}-x{args.scale}"
    else:
        cli("seed", env=env, cwd=ROOT)
    key = cli("keys", "create", slug, "--label", "bench", env=env, cwd=ROOT).strip().splitlines()[-1]
    (workdir / "office").mkdir()
    workbook = workdir / "office" / f"{slug}.xlsx"
    cli("export", slug, str(workbook), env=env, cwd=ROOT)
    row, column, sub_fest, code, chest, score = published_result(workbook)
    print(f"{slug}: {workbook.stat().st_size:,} bytes of workbook; the score of chest {chest} in "
          f"{sub_fest} {code} (sheet results row {row}) is changed each save", flush=True)

    port = free_port()
    server = Process({**env, "LOG_LEVEL": "WARNING"}, "serve", "--port", str(port))
    follow = Process(env, "follow", str(workbook))
    figures, cpu = [], []
    try:
        wait_serving(port)
        follow.wait_for(r"no changes|published", timeout=GIVE_UP_SECONDS * args.scale)  # the whole workbook, once
        print(follow.lines[0], flush=True)
        for n in range(1, args.saves + 1):
            new = score + 0.5 if n % 2 else score  # within the result's grade band
            used = cpu_seconds(follow.process.pid)
            save_as_an_office_program(workbook, row, column, new)
            saved = time.monotonic()
            while served_score(port, key, sub_fest, code, chest) != new:
                if time.monotonic() - saved > GIVE_UP_SECONDS:
                    raise RuntimeError("the change was not served:\n" + "\n".join(follow.lines[-10:]))
                time.sleep(0.02)
            figures.append(time.monotonic() - saved)
            cpu.append(cpu_seconds(follow.process.pid) - used)
            print(f"  save {n}: score {new} served {figures[-1]:.2f} s after the save; follow's CPU "
                  f"{cpu[-1]:.2f} s ({load()})", flush=True)
            time.sleep(1)  # the office types the next result
    finally:
        follow.stop()
        server.stop()
    published = sum(1 for line in follow.lines if re.search(r": published ", line))
    print(f"save -> served, {len(figures)} saves: p50 {statistics.median(figures):.2f} s, "
          f"max {max(figures):.2f} s; follow's CPU a save p50 {statistics.median(cpu):.2f} s; follow published "
          f"{published} time(s) ({load()}, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
