"""`festival-api seed` is idempotent; `festival-api demo` loads, prints keys and a curl line, serves."""
import os
import re
import socket
import subprocess
import threading
import time
import urllib.request

from click.testing import CliRunner

import app.cli as cli_module
from conftest import BIG, SMALL, writable
from db.source import models as m
from db.source.keys import create_key, find_active_key, list_keys
from test_multiprocess import festival_api


def snapshot():
    """Ids of every stored row but the computed ones."""
    return {model.__name__: sorted(str(row.id) for row in model.select(model.id))
            for model in m.ALL_MODELS if model not in (m.FestivalRevision, m.TopperEntry)}


def test_seed_twice_gives_the_same_data(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/seed.db"
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(cli_module.main, ["seed"]).exit_code == 0
    with writable(url):
        first = snapshot()
    result = runner.invoke(cli_module.main, ["seed"])
    assert result.exit_code == 0, result.output
    with writable(url):
        assert snapshot() == first
        assert {f.slug for f in m.Festival.select()} == {BIG, SMALL}
    assert "subFestCandidates" in result.output, "the import shows its progress"


def test_demo_loads_prints_working_keys_and_serves(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/demo.db"
    monkeypatch.setenv("DATABASE_URL", url)
    served = {}
    monkeypatch.setattr(cli_module, "_serve", lambda host, port, threads, config=None: served.update(
        host=host, port=port, threads=threads, config=config))
    result = CliRunner().invoke(cli_module.main, ["demo", "--port", "8123"])
    assert result.exit_code == 0, result.output
    config = served.pop("config")
    assert served == {"host": "127.0.0.1", "port": 8123, "threads": 8}
    printed = dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", result.output, re.M))
    assert config["DEMO_PAGE"] is True and dict(config["DEMO_API_KEYS"]) == printed
    assert set(printed) == {BIG, SMALL}
    assert re.search(r'curl -H "X-API-Key: fds_\S+" "http://127\.0\.0\.1:8123/public-api/v1/news"',
                     result.output)
    # The README's examples need the big festival's key: it is printed first and used to try.
    assert list(printed)[0] == BIG and config["DEMO_API_KEYS"][0][0] == BIG
    assert f'X-API-Key: {printed[BIG]}"' in result.output.split("Try:")[1]
    with writable(url):
        for slug, plain in printed.items():
            _, festival = find_active_key(plain)
            assert festival.slug == slug


def test_demo_run_again_replaces_its_own_keys_and_touches_no_other_festival(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path}/demo.db"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setattr(cli_module, "_serve", lambda *args, **kwargs: None)
    runner = CliRunner()
    assert runner.invoke(cli_module.main, ["init"]).exit_code == 0
    with writable(url):
        own = m.Festival.create(slug="our-own-fest", name="Our own fest")
        website_key, website_plain = create_key(own, label="main website")

    runs = []
    for _ in range(2):
        result = runner.invoke(cli_module.main, ["demo"])
        assert result.exit_code == 0, result.output
        runs.append(dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", result.output, re.M)))
    assert set(runs[0]) == set(runs[1]) == {BIG, SMALL}

    with writable(url):
        assert all(find_active_key(plain) is None for plain in runs[0].values())  # replaced
        assert {slug: find_active_key(plain)[1].slug for slug, plain in runs[1].items()} == {BIG: BIG, SMALL: SMALL}
        active = [(k.festival.slug, re.sub(r" \(process \d+\)$", "", k.label)) for k in list_keys()
                  if k.revoked_at is None]
        assert sorted(active) == sorted([(BIG, "festival-api demo"), (SMALL, "festival-api demo"),
                                         ("our-own-fest", "main website")])
        assert find_active_key(website_plain)[0] == website_key.id
        assert m.FestivalRevision.get_or_none(m.FestivalRevision.festival == own.id) is None


class Demo:
    """`festival-api demo` as a real process: its printed keys, and its stderr as it comes."""

    def __init__(self, tmp_path, port):
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/demo.db", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(festival_api() + ["demo", "--port", str(port)], cwd=tmp_path, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=lambda s=stream, kept=lines: kept.extend(s), daemon=True).start()

    def serving(self, timeout=240):
        deadline = time.monotonic() + timeout
        while not any("Serving on" in line for line in self.err):
            assert self.process.poll() is None and time.monotonic() < deadline, "".join(self.err)
            time.sleep(0.1)
        return dict(re.findall(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", "".join(self.out), re.M))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def news_status(port, key):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/public-api/v1/news", headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_second_demo_never_takes_the_running_demos_port_data_or_keys(tmp_path):
    first_port, second_port = free_port(), free_port()
    first = Demo(tmp_path, first_port)
    try:
        keys = first.serving()
        assert news_status(first_port, keys[BIG]) == 200
        database = (tmp_path / "demo.db").stat().st_mtime_ns

        # The same port: refused before anything is written.
        again = subprocess.run(festival_api() + ["demo", "--port", str(first_port)], cwd=tmp_path, timeout=120,
                               env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/demo.db"},
                               capture_output=True, text=True)
        assert again.returncode == 2
        assert again.stderr.strip() == (f"Error: port {first_port} on 127.0.0.1 is already in use: stop what uses "
                                        "it, or choose another port with --port (or PORT)")
        assert again.stdout == "" and (tmp_path / "demo.db").stat().st_mtime_ns == database
        assert news_status(first_port, keys[BIG]) == 200

        # Another port: a second demo serves with keys of its own; the first's keep working.
        second = Demo(tmp_path, second_port)
        try:
            second_keys = second.serving()
            assert second_keys[BIG] != keys[BIG]
            assert news_status(second_port, second_keys[BIG]) == 200
            for slug, key in keys.items():
                assert news_status(first_port, key) == 200, slug
        finally:
            second.stop()
    finally:
        first.stop()
