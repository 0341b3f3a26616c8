"""bench/update_speed.py runs (at scale 1, two updates), so that it cannot rot.

Speed is judged by the benchmark itself (docs/performance.md), never here.
"""
import os
import subprocess
import sys

import pytest

from conftest import ON_POSTGRES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(ON_POSTGRES, reason="the update benchmark makes its own SQLite database: it runs once, "
                                        "in the SQLite run")
def test_the_update_benchmark_runs_at_scale_one():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "update_speed.py"), "--scale", "1",
                           "--runs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("  published ") == 2
    assert "| full import / `--update` |" in done.stdout
