"""The benchmark in bench/ runs (about a second per measurement at scale 1), so it cannot rot.

Speed is judged by the benchmark itself, side by side with bare baselines, never here:
this only checks that every measurement ran and answered without errors.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ON_POSTGRES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk (Debian's wrk package)")
@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite databases (its PostgreSQL rows take "
                                        "--postgres): it runs once, in the SQLite run")
def test_the_benchmark_runs_at_scale_one(tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "read_model.py"), "--quick",
                           "--seconds", "1", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    labels = {run["label"] for run in figures["runs"]}
    assert {"bare hello", "bare rows (20 joined + count)", "/programmes", "/candidate-result (long tail)",
            "304 revalidation (cache on)"} <= labels
    for run in figures["runs"]:
        assert run["requests"] > 0 and run["errors"] == 0 and run["non_2xx_3xx"] == 0, run
    assert "% of bare rows" in done.stdout and "% of bare hello" in done.stdout


@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite databases: it runs once, in the SQLite run")
def test_the_revalidation_benchmark_runs(tmp_path):
    """bench/revalidation.py in small: two visitors of each kind polling every second for four
    seconds, one publication in the middle."""
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "revalidation.py"), "--visitors", "2",
                           "--minutes", "0.05", "--publish-every", "2", "--poll-every", "1", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["published"] >= 1
    runs = {(run["side"], run["kind"]): run for run in figures["runs"]}
    assert set(runs) == {(side, kind) for side in ("before", "after") for kind in ("revalidating", "changes")}
    for run in runs.values():
        assert run["requests"] > 0 and run["bytes_per_visitor_minute"] > 0 and run["p99"] > 0, run
    assert runs["after", "revalidating"]["not_modified"] > 0.5  # what a publication did not change: 304
    assert "req/visitor-min" in done.stdout and "after / before" in done.stdout


@pytest.mark.skipif(ON_POSTGRES, reason="the soak's smoke run makes its own SQLite database: it runs once, in the "
                                        "SQLite run")
def test_the_memory_soak_runs_for_a_few_seconds(tmp_path):
    out = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "memory_soak.py"), "--quick",
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    workers = {pid for sample in result["samples"] for pid, fields in sample["workers"].items() if fields}
    assert len(workers) == 2 and len(result["samples"]) >= 5
    assert all(fields["VmRSS"] > 10 for sample in result["samples"] for fields in sample["workers"].values() if fields)
    statuses = {}
    for minute in result["minutes"]:
        for status, count in minute["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    assert set(statuses) == {"200"} and statuses["200"] > 50, statuses
    assert len(result["imports"]) == 1
    assert "worker" in done.stdout and "RSS MB" in done.stdout


@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite database: it runs once, in the SQLite run")
def test_the_save_to_served_benchmark_runs(tmp_path):
    """bench/save_to_served.py in small: one save of the bundled festival's workbook."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "save_to_served.py"), "--saves", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "  save 1: score " in done.stdout and "served " in done.stdout
    assert "save -> served, 1 saves: p50 " in done.stdout and "follow published 1 time(s)" in done.stdout


@pytest.mark.skipif(shutil.which("wrk") is None or shutil.which("openssl") is None
                    or not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")),
                    reason="needs wrk, openssl and nginx (Debian's wrk, openssl and nginx-light packages)")
@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite database: it runs once, in the SQLite run")
def test_the_shared_cache_benchmark_runs(tmp_path):
    """bench/shared_cache.py in small: nginx's cache in front of the service, one wrk run of 3 s with
    2 connections, a publication every second."""
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "shared_cache.py"), "--connections", "2",
                           "--seconds", "3", "--publish-every", "1", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    [run] = figures["runs"]
    assert run["requests"] > 0 and run["errors"] == 0 and run["non_2xx_3xx"] == 0, run
    assert run["reached_service"] < run["requests"]  # the cache answered the rest
    assert "s-maxage=" in figures["cache_control"]
    assert figures["published"] >= 1 and len(figures["delays"]) + figures["unseen"] == figures["published"]
    assert set(figures["watcher_statuses"]) == {"200"}, figures["watcher_statuses"]
    assert "publication -> first visitor who sees it" in done.stdout and "load average" in done.stdout


@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite databases: it runs once, in the SQLite run")
def test_the_visitor_day_replays_publications(tmp_path):
    """bench/visitor_day.py in small: one visitor of each kind, two publications (a
    programme's results, then another's); both kinds load, poll and see the changes."""
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "visitor_day.py"), "--visitors", "1",
                           "--publications", "2", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    kinds = json.loads(out.read_text())["after"]["kinds"]
    assert set(kinds) == {"page", "changes"}
    page, changes = kinds["page"], kinds["changes"]
    assert page["requests_per_visitor_minute"] > page["full_per_visitor_minute"] > 0, page  # 304s
    # The recipe asks for what /changes names alone: the latest results, and its own board at
    # most once a publication.
    assert changes["requests_per_visitor_minute"] >= changes["full_per_visitor_minute"] > 0, changes
    fetched = changes["full_by_path"]
    assert "/programme-results" in fetched  # a publication named, fetched again
    assert fetched.get("/toppers", 0) <= fetched["/programme-results"], fetched
    assert "200s/visitor-min" in done.stdout


@pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk (Debian's wrk package)")
@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite databases: it runs once, in the SQLite run")
def test_the_304_benchmark_runs_beside_bare_hello(tmp_path):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "revalidation_304.py"), "--seconds", "1",
                           "--rounds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "after: 304 ÷ bare hello" in done.stdout


@pytest.mark.skipif(ON_POSTGRES, reason="the benchmark makes its own SQLite database: it runs once, in the SQLite run")
def test_the_attacks_benchmark_runs():
    """bench/attacks.py in small: the visitor alone, beside slow readers and beside a key
    guesser, a second each (the crowds of 2,500 connections run in tests/faults/test_fairness.py,
    shortened)."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "attacks.py"), "--seconds", "1",
                           "--only", "none,slow readers,wrong keys"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for name in ("none", "slow readers", "wrong keys"):
        page = next(line for line in lines if line.startswith(name))
        answered, asked = page.split("page")[1].split()[0].split("/")
        assert int(answered) == int(asked) > 0, page
    assert "right key at the guesser's address" in done.stdout and "load" in lines[-1]
