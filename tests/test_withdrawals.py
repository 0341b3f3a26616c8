"""Safe re-imports: nothing published is taken from the public unless the operator says so."""
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import API, after_writing, writable
from db.database import is_postgres
from db.source import models as m
from db.source.keys import create_key
from db.source.revisions import current_revision
from natural_festival import SLUG, junior_results, natural_festival, update
from seed.pipeline.write.importer import import_file, import_fixture
from seed.pipeline.write.update import update_fixture
from seed.pipeline.guard.withdrawals import WithdrawalRefused

def stored():
    """What a refused import must leave as it was: every row of every table, and the revision."""
    festival = m.Festival.get(m.Festival.slug == SLUG)
    rows = {model.__name__: every_row(model) for model in m.ALL_MODELS if model is not m.Festival}
    return rows, current_revision(festival.id)[0]


def every_row(model):
    """The table's rows as the driver reads them, ordered by every column (read without the
    models' conversions: a refused import must leave every stored value as it was). On
    PostgreSQL the server sums them up instead: their count and an MD5 of every row's text in
    order (each value as PostgreSQL writes it out, so any change to one changes the sum); the
    driver's conversion of the thousands of rows cost four times SQLite's reading them."""
    table = model._meta.table_name
    if is_postgres():
        return model._meta.database.execute_sql(
            f"SELECT count(*), md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM \"{table}\" AS t").fetchone()
    columns = len(model._meta.sorted_fields)
    order = ", ".join(str(n) for n in range(1, columns + 1))
    return model._meta.database.execute_sql(f'SELECT * FROM "{table}" ORDER BY {order}').fetchall()


def morning_folder():
    """The festival as imported in the morning; since then P1's results were published
    with --update (see ``afternoon``), which this document does not know."""
    data = natural_festival()
    data["news"].append({"title": "Day two", "status": "published", "published_at": "2026-01-02T00:00:00Z"})
    return data


@pytest.fixture
def morning(natural):
    """``(app, url)`` after the morning's full import."""
    return after_writing(natural, import_fixture, morning_folder())


@pytest.fixture
def afternoon(morning):
    """``(app, url)`` after the morning's full import and the afternoon's update, which
    publishes junior P1's result."""
    return after_writing(morning, update_fixture, junior_results())


def test_what_a_refused_import_is_held_to_sees_one_value_changed(afternoon):
    """``stored()``, the check every refused import must pass, notices a single stored value
    moved, however little (a microsecond, a letter's case, a 1,024th of a point, which a
    score stored as PostgreSQL's ``real`` keeps), and is equal again once it is put back."""
    _, url = afternoon
    with writable(url):
        result = m.Result.get(m.Result.published_at.is_null(False) & m.Result.score.is_null(False))
        candidate = m.Candidate.get(m.Candidate.festival == m.Festival.get(m.Festival.slug == SLUG).id)
        before = stored()
        for model, row_id, field, moved, kept in (
                (m.Result, result.id, m.Result.published_at, result.published_at + timedelta(microseconds=1),
                 result.published_at),
                (m.Result, result.id, m.Result.score, result.score + 1 / 1024, result.score),
                (m.Candidate, candidate.id, m.Candidate.name, candidate.name.swapcase(), candidate.name)):
            model.update({field: moved}).where(model.id == row_id).execute()
            assert stored() != before, field
            model.update({field: kept}).where(model.id == row_id).execute()
            assert stored() == before, field


def test_a_full_import_that_would_undo_a_published_result_is_refused_and_writes_nothing(afternoon):
    _, url = afternoon
    with writable(url):
        before = stored()
        with pytest.raises(WithdrawalRefused) as refused:
            import_fixture(morning_folder())
        assert stored() == before
    assert refused.value.lines() == ["published result junior P1 chest 101, position 1: left out or deleted"]


def test_every_kind_of_published_record_that_would_go_is_listed(morning):
    _, url = morning
    data = morning_folder()
    next(p for p in data["subFestProgrammes"] if p["programme_code"] == "GS")["is_public"] = False
    data["news"] = [n for n in data["news"] if n["title"] != "Day two"]
    next(r for r in data["results"] if r["chest_no"] == "102")["is_published"] = False
    with writable(url):
        with pytest.raises(WithdrawalRefused) as refused:
            import_fixture(data)
    assert refused.value.lines() == [
        "published programme main G1: would be hidden",
        "published result main P1 chest 102, position 2: would be unpublished",
        "published news 'Day two': left out",
    ]


def test_the_flag_lets_a_full_import_withdraw_and_says_what_went(afternoon):
    app, url = afternoon
    with writable(url):
        key = create_key(m.Festival.get(m.Festival.slug == SLUG), label="t")[1]
        summary = import_fixture(morning_folder(), allow_withdrawals=True)
    assert [w.line() for w in summary.withdrawals] == [
        "published result junior P1 chest 101, position 1: left out or deleted"]
    body = app.test_client().get(f"{API}/candidate-result", headers={"X-API-Key": key},
                                 query_string={"chestNo": "101", "subFestSlug": "junior"}).get_json()
    assert body["results"] == []


def test_a_row_that_withdraws_or_deletes_its_own_record_is_enough(morning):
    _, url = morning
    data = morning_folder()
    next(r for r in data["results"] if r["chest_no"] == "102")["withdrawn"] = True
    next(n for n in data["news"] if n["title"] == "Day two")["deleted"] = True
    with writable(url):
        summary = import_fixture(data)
    assert summary.withdrawals == []


def test_withdrawing_an_entry_with_a_published_result_is_refused_with_the_way_to_say_so(natural):
    _, url = natural
    withdraw_entry = {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "withdrawn": True}
    with writable(url):
        before = stored()
        with pytest.raises(WithdrawalRefused) as refused:
            update_fixture(update(registrations=[withdraw_entry]))
        assert stored() == before
        assert refused.value.lines() == [
            "published result main P1 chest 101, position 1: its entry is withdrawn "
            "(to withdraw the result as well, add a results row for it with withdrawn = yes)"]
        summary = update_fixture(update(registrations=[withdraw_entry], results=[
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "withdrawn": True}]))
    assert summary.withdrawals == []
    assert (summary.row_diff.withdrawn["registrations"], summary.row_diff.withdrawn["results"]) == (1, 1)


def test_a_dry_run_lists_what_would_go_and_writes_nothing(natural):
    _, url = natural
    with writable(url):
        before = stored()
        summary = update_fixture(update(registrations=[
            {"sub_fest_slug": "main", "sub_fest_programme_code": "P1", "chest_no": "101", "withdrawn": True}]),
            dry_run=True)
        assert stored() == before
    assert [w.kind for w in summary.withdrawals] == ["result"]


def test_the_cli_refuses_names_the_flag_and_the_flag_is_in_help(natural, tmp_path, monkeypatch):
    _, url = natural
    monkeypatch.setenv("DATABASE_URL", url)
    folder = tmp_path / "withdraw"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"slug\n{SLUG}\n", encoding="utf-8")
    (folder / "registrations.csv").write_text(
        "sub_fest_slug,sub_fest_programme_code,chest_no,withdrawn\nmain,P1,101,yes\n", encoding="utf-8")
    runner = CliRunner()
    refused = runner.invoke(cli, ["import", "--update", str(folder)])
    assert refused.exit_code == 1
    assert "published result main P1 chest 101, position 1: its entry is withdrawn" in refused.output
    assert "nothing was written" in refused.output and "--allow-withdrawals" in refused.output
    dry = runner.invoke(cli, ["import", "--update", "--dry-run", str(folder)])
    assert dry.exit_code == 0
    assert "published result main P1 chest 101, position 1: its entry is withdrawn" in dry.output
    assert "Without --allow-withdrawals, this import will be refused." in dry.output
    allowed = runner.invoke(cli, ["import", "--update", "--allow-withdrawals", str(folder)])
    assert allowed.exit_code == 0, allowed.output
    assert "1 published record(s) were taken away from the public" in allowed.output
    assert "--allow-withdrawals" in runner.invoke(cli, ["import", "--help"]).output


def subfolder(tmp_path, name):
    (tmp_path / name).mkdir()
    return tmp_path / name


def test_the_guides_withdrawal_of_an_entry_with_its_result_works_on_the_example(fresh_app, tmp_path, monkeypatch):
    """docs/spreadsheets.md, "Withdrawing an entry that already has a published result"."""
    from test_csv_import import DOCS, EXAMPLE, result_day_files, write_folder

    _, url = fresh_app
    text = (DOCS / "spreadsheets.md").read_text(encoding="utf-8")
    section = text.split("### Withdrawing an entry that already has a published result", 1)[1].split("\n##", 1)[0]
    files = dict(re.findall(r"^`(\w+\.csv)`\n```text\n(.*?)^```", section, re.MULTILINE | re.DOTALL))
    assert sorted(files) == ["registrations.csv", "results.csv"]
    monkeypatch.setenv("DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(cli, ["import", str(EXAMPLE)]).exit_code == 0
    publish = write_folder(subfolder(tmp_path, "publish"), result_day_files())
    assert runner.invoke(cli, ["import", "--update", str(publish)]).exit_code == 0
    festival_csv = "slug\ndistrict-fest-2026\n"
    entry_only = write_folder(subfolder(tmp_path, "entry"), {"festival.csv": festival_csv,
                                                   "registrations.csv": files["registrations.csv"]})
    refused = runner.invoke(cli, ["import", "--update", str(entry_only)])
    assert refused.exit_code == 1
    assert "published result general HS-LM chest 1013, position 1: its entry is withdrawn" in refused.output
    both = write_folder(subfolder(tmp_path, "both"), {"festival.csv": festival_csv, **files})
    done = runner.invoke(cli, ["import", "--update", str(both)])
    assert done.exit_code == 0, done.output
    again = runner.invoke(cli, ["import", str(EXAMPLE)])
    assert again.exit_code == 1, "re-importing the morning's folder would unpublish HS-LM's 2nd place"
    assert "published result general HS-LM chest 1023, position 2: would be unpublished" in again.output


def test_a_teams_own_published_result_is_named_by_the_team(fresh_app, tmp_path):
    from test_csv_import import EXAMPLE

    _, url = fresh_app
    folder = tmp_path / "fest"
    folder.mkdir()
    for path in EXAMPLE.glob("*.csv"):
        text = path.read_text(encoding="utf-8")
        if path.name == "results.csv":
            # the third place: leaving out the second would leave a gap (1, 3), refused first
            text = "".join(line for line in text.splitlines(keepends=True) if "Don Bosco HSS" not in line)
        (folder / path.name).write_text(text, encoding="utf-8")
    with writable(url):
        import_file(EXAMPLE)
        with pytest.raises(WithdrawalRefused) as refused:
            import_file(folder)
    assert refused.value.lines() == [
        "published result general HS-GS team 'Don Bosco HSS', position 3: left out or deleted"]
