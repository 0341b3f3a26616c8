"""CPU time per test, steadier than wall time on a shared machine: a pytest plugin, and its report.

    PYTHONPATH=bench .venv/bin/pytest -p cpu_per_test tests/...      # writes cpu-per-test.tsv
    .venv/bin/python bench/cpu_per_test.py cpu-per-test.tsv --most 40

Each test's line: its id, the CPU seconds of the process that ran it (user + system) and of
the children it waited for (servers, commands), and its wall seconds. Under pytest-xdist
every worker appends to the same file (``CPU_PER_TEST_OUT`` names another). A session
fixture's cost falls on the first test that uses it.
"""
import argparse
import os
import resource
import time

import pytest

OUT = os.environ.get("CPU_PER_TEST_OUT", "cpu-per-test.tsv")


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, children, started = *_cpu(), time.monotonic()
    yield
    own_after, children_after = _cpu()
    with open(OUT, "a", encoding="utf-8") as fh:
        fh.write(f"{item.nodeid}\t{own_after - own:.3f}\t{children_after - children:.3f}\t"
                 f"{time.monotonic() - started:.3f}\n")


def main():
    parser = argparse.ArgumentParser(description="The tests that took the most CPU, and the total.")
    parser.add_argument("file", nargs="?", default=OUT)
    parser.add_argument("--most", type=int, default=40)
    parser.add_argument("--by-file", action="store_true", help="sum per test file instead")
    args = parser.parse_args()
    rows = []
    with open(args.file, encoding="utf-8") as fh:
        for line in fh:
            nodeid, own, children, wall = line.rstrip("\n").split("\t")
            rows.append((nodeid.split("::")[0] if args.by_file else nodeid, float(own) + float(children), float(wall)))
    totals = {}
    for name, cpu, wall in rows:
        cpu_sum, wall_sum = totals.get(name, (0.0, 0.0))
        totals[name] = (cpu_sum + cpu, wall_sum + wall)
    print(f"{len(rows)} tests, {sum(c for c, _ in totals.values()):.1f} s CPU in all")
    for name, (cpu, wall) in sorted(totals.items(), key=lambda item: -item[1][0])[:args.most]:
        print(f"{cpu:8.2f} s CPU {wall:8.2f} s wall  {name}")


if __name__ == "__main__":
    main()
