"""Peak memory of one ``festival-api import``: a big festival, a zip bomb, a 1 M-row sheet.

Each import is the whole command in a child process, into a fresh SQLite database; its peak
resident memory (the child's ``ru_maxrss`` from ``os.wait4``), its wall time and the first
line of what it says are printed, one line per file:

- the Kalolsavam ``--scale`` times its size as JSON (``python -m seed.generate``), then as the
  CSV folder and the .xlsx workbook ``festival-api export`` makes of it;
- a 1 MB .zip of CSV files that unpacks about 300 times (refused: ``IMPORT_MAX_RATIO``), the
  same with the ratio cap lifted (refused by ``IMPORT_MAX_MB`` from its list of entries), and
  with both lifted (its 300 MB read as a stream, refused at ``IMPORT_MAX_ROWS``);
- a folder whose results.csv has 1,000,000 rows (refused at ``IMPORT_MAX_ROWS``).

    .venv/bin/python bench/import_memory.py [--scale 20] [--keep FOLDER] [--refusals-only]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(env, *args):
    """``festival-api ARGS`` as a child: ``(peak RSS in MB, wall seconds, exit code, last line said)``."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "app.cli", *args], env=env, cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    refused = [line for line in lines if "over the cap" in line]
    return usage.ru_maxrss / 1024, time.perf_counter() - start, child.returncode, (refused or lines or [""])[-1]


def fresh_env(folder, name, **settings):
    database = folder / f"{name}.sqlite3"
    database.unlink(missing_ok=True)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", **settings}
    subprocess.run([sys.executable, "-m", "app.cli", "init"], env=env, cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return env


def bomb(path, ratio=300, packed_mb=1):
    """A .zip of CSV files whose results.csv unpacks to about ``ratio`` times its packed size:
    rows that repeat, with a changing number every ``period`` rows."""
    row = b"general,HS-LM,1013,95,1,yes,2026-11-16 10:30\n"
    target = ratio * packed_mb * (1 << 20)
    period = 1
    while True:  # find the period whose first 4 MB pack at the ratio asked for
        sample = b"".join(row if n % period else f"general,HS-LM,{n},95,1\n".encode() for n in range(100_000))
        if len(sample) / len(zlib.compress(sample, 6)) >= ratio or period > 4096:
            break
        period *= 2
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("festival.csv", "slug,name,timezone\nbomb-fest,Bomb,Asia/Kolkata\n")
        with zf.open("results.csv", "w", force_zip64=True) as out:
            out.write(b"sub_fest_slug,sub_fest_programme_code,chest_no,score,position,is_published,published_at\n")
            written = 0
            while written < target:
                out.write(sample)
                written += len(sample)
    info = zipfile.ZipFile(path).getinfo("results.csv")
    return info.file_size / info.compress_size


def million_rows(folder):
    folder.mkdir(exist_ok=True)
    (folder / "festival.csv").write_text("slug,name,timezone\nrows-fest,Rows,Asia/Kolkata\n", encoding="utf-8")
    with open(folder / "results.csv", "w", encoding="utf-8") as fh:
        fh.write("sub_fest_slug,sub_fest_programme_code,chest_no,score,position,is_published,published_at\n")
        fh.writelines(f"general,HS-LM,{n},95,1,yes,2026-11-16 10:30\n" for n in range(1_000_000))


def report(what, size, figures):
    rss, wall, code, line = figures
    print(f"{what:<44} {size:>9} peak {rss:7.0f} MB  {wall:6.1f} s  exit {code}  {line[:200]}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--keep", help="folder for the files and databases (default: a temporary one, removed)")
    parser.add_argument("--refusals-only", action="store_true", help="only the files that are refused")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="import-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} on {os.cpu_count()} CPUs")
    try:
        big = folder / f"x{args.scale}.json"
        if not args.refusals_only:
            festival(args, folder, big)
        refusals(folder)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")


def festival(args, folder, big):
    """The Kalolsavam at ``--scale``: as JSON, then as the CSV folder and the workbook of its export."""
    if not big.exists():
        subprocess.run([sys.executable, "-m", "seed.generate", "--scale", str(args.scale), "--out", str(big)],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    env = fresh_env(folder, "json")
    report(f"scale {args.scale}, JSON", f"{big.stat().st_size / (1 << 20):.0f} MB", run(env, "import", str(big)))
    slug = f"kalolsavam-2026-x{args.scale}"
    shutil.rmtree(folder / "csv", ignore_errors=True)
    (folder / "x.xlsx").unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "app.cli", "export", slug, str(folder / "csv")], env=env, cwd=ROOT,
                   check=True, stderr=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-m", "app.cli", "export", slug, str(folder / "x.xlsx")], env=env, cwd=ROOT,
                   check=True, stderr=subprocess.DEVNULL)
    size = sum(p.stat().st_size for p in (folder / "csv").glob("*.csv"))
    report(f"scale {args.scale}, CSV folder", f"{size / (1 << 20):.0f} MB",
           run(fresh_env(folder, "csv"), "import", str(folder / "csv")))
    report(f"scale {args.scale}, .xlsx", f"{(folder / 'x.xlsx').stat().st_size / (1 << 20):.0f} MB",
           run(fresh_env(folder, "xlsx"), "import", str(folder / "x.xlsx")))


def refusals(folder):
    """A zip bomb (with the ratio cap and without) and a results.csv of 1,000,000 rows."""
    zipped = folder / "bomb.zip"
    ratio = bomb(zipped)
    size = f"{zipped.stat().st_size / (1 << 20):.1f} MB"
    report(f".zip unpacking {ratio:.0f} times", size, run(fresh_env(folder, "bomb"), "import", str(zipped)))
    report(f".zip unpacking {ratio:.0f} times, ratio cap lifted", size,
           run(fresh_env(folder, "bomb2", IMPORT_MAX_RATIO="100000"), "import", str(zipped)))
    report(f".zip unpacking {ratio:.0f} times, both caps lifted", size,
           run(fresh_env(folder, "bomb3", IMPORT_MAX_RATIO="100000", IMPORT_MAX_MB="1000"), "import", str(zipped)))
    rows = folder / "rows"
    million_rows(rows)
    size = f"{(rows / 'results.csv').stat().st_size / (1 << 20):.0f} MB"
    report("results.csv of 1,000,000 rows", size, run(fresh_env(folder, "rows"), "import", str(rows)))


if __name__ == "__main__":
    main()
