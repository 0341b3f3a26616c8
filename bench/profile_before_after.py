"""CPU a request in process, the code before a change against the code after, side by side.

    .venv/bin/python bench/profile_before_after.py --before DIR [--rounds 7] [-n 3000]
        [--setting NAME=VALUE ...] [--after-setting NAME=VALUE ...]

``DIR`` is a checkout of the earlier code. Each round runs ``bench/profile_request.py --cpu
--log`` (this checkout's script) once on each code, in turn, on one bundled SQLite database:
every request passes the whole WSGI app, access line included, with no server and no network,
so the figure is the app's own CPU time a request, which wrk's figures under a shared
machine's load blur. Rows: a list made by its view (response cache off) and the same list
from the response cache, with rate limits on (``--setting`` applies to both codes,
``--after-setting`` to the code after alone: ``--before .`` then compares a setting against
the defaults). It prints the medians and after ÷ before.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_model import load_festival, service_env  # noqa: E402
from harness import cli  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATH = "/public-api/v1/programmes?subFestSlug=general&limit=20"
ROWS = {  # name: settings
    "list, made by the view": ["RESPONSE_CACHE_SECONDS=0"],
    "list, from the response cache": ["RESPONSE_CACHE_SECONDS=600"],
}
LINE = re.compile(r"^\s*([0-9.]+) us\s+(\d+)")


def run(folder, env, key, settings, n):
    """CPU microseconds a request of ``PATH`` for the code in ``folder``."""
    script = os.path.join(folder, "bench", "profile_request_now.py")
    shutil.copy(os.path.join(HERE, "profile_request.py"), script)
    try:
        done = subprocess.run([sys.executable, script, key, "--path", PATH, "-n", str(n), "--cpu", "--log",
                               *(f"--setting={s}" for s in settings)],
                              cwd=folder, env={**env, "PYTHONPATH": folder}, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, check=True)
    finally:
        os.remove(script)
    match = LINE.match(done.stdout.splitlines()[0])
    assert match.group(2) == "200", done.stdout
    return float(match.group(1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("-n", type=int, default=3000)
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--after-setting", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    before = os.path.abspath(args.before)
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as workdir:
        url = f"sqlite:///{workdir}/festival.db"
        slug, _ = load_festival(url, 1, workdir)
        env = service_env(url, 0, None)
        key = cli("keys", "create", slug, "--label", "bench", env=env).strip().splitlines()[-1]
        env = {**env, "RATELIMIT_DEFAULT": ""}
        figures = {}
        for _ in range(args.rounds):
            for row, settings in ROWS.items():
                base = [*settings, "RATELIMIT_DEFAULT=1000000 per minute", *args.setting]
                figures.setdefault((row, "before"), []).append(run(before, env, key, base, args.n))
                figures.setdefault((row, "after"), []).append(
                    run(ROOT, env, key, [*base, *args.after_setting], args.n))
    print(f"\n{'row':<32} {'CPU us before':>13} {'after':>8} {'ratio':>6}   (runs before; after)")
    for row in ROWS:
        medians = [statistics.median(figures[(row, side)]) for side in ("before", "after")]
        print(f"{row:<32} {medians[0]:>13.1f} {medians[1]:>8.1f} {medians[1] / medians[0]:>6.3f}   "
              f"{sorted(round(f) for f in figures[(row, 'before')])}; "
              f"{sorted(round(f) for f in figures[(row, 'after')])}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
