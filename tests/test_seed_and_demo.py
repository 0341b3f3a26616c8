"""`festival-api seed` is idempotent; `festival-api demo` loads, prints keys and a curl line, serves."""
import re

from click.testing import CliRunner

import app.cli as cli_module
from conftest import BIG, SMALL, writable
from db.source import models as m
from db.source.keys import create_key, find_active_key, list_keys


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
        active = [(k.festival.slug, k.label) for k in list_keys() if k.revoked_at is None]
        assert sorted(active) == sorted([(BIG, "festival-api demo"), (SMALL, "festival-api demo"),
                                         ("our-own-fest", "main website")])
        assert find_active_key(website_plain)[0] == website_key.id
        assert m.FestivalRevision.get_or_none(m.FestivalRevision.festival == own.id) is None
