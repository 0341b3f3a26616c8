"""A festival as a folder (or .zip) of CSV files: the example folder, encodings, bad rows."""
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main as cli
from conftest import API, writable
from db.source import models as m
from db.source.keys import create_key
from seed.pipeline.read.csv_folder import read_folder
from seed.pipeline.write.importer import FixtureError, import_file

EXAMPLE = Path(__file__).resolve().parent.parent / "seed" / "examples" / "district-fest-csv"
SLUG = "district-fest-2026"


def test_the_example_folder_has_no_ids_and_a_few_hundred_rows():
    text = "".join(path.read_text(encoding="utf-8-sig") for path in EXAMPLE.glob("*.csv"))
    assert "id," not in text.replace("_id,", "") and ",id" not in text
    rows = sum(len(path.read_text(encoding="utf-8-sig").splitlines()) - 1 for path in EXAMPLE.glob("*.csv"))
    assert 300 <= rows <= 1000


def test_the_example_folder_imports_and_the_api_serves_it(fresh_app, monkeypatch):
    app, url = fresh_app
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["import", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert f"Imported {SLUG}" in result.output
    with writable(url):
        key = create_key(m.Festival.get(m.Festival.slug == SLUG), label="test")[1]
    client = app.test_client()
    headers = {"X-API-Key": key}
    sub_fests = client.get(f"{API}/subfests", headers=headers).get_json()["data"]
    assert [(s["slug"], s["nameLocal"]) for s in sub_fests] == [("general", "ജനറൽ"), ("arabic", "അറബിക് കലോത്സവം")]
    body = client.get(f"{API}/candidate-result", headers=headers,
                      query_string={"chestNo": "1001", "subFestSlug": "general"}).get_json()
    assert body["candidate"]["chestNo"] == "1001"
    assert body["candidate"]["nameLocal"], "the Malayalam name is served"
    # results.csv gives score and position only: grade and points follow the criteria
    assert [(r["score"], r["grade"], r["position"], r["points"]) for r in body["results"]] == [(78, "B", None, 3)]
    news = client.get(f"{API}/news", headers=headers).get_json()["data"]
    assert sorted(n["title"] for n in news) == ["First results are out", "Kalolsavam begins at Town Hall"]
    toppers = client.get(f"{API}/page-toppers", headers=headers, query_string={"pageSlug": "championship"})
    assert toppers.status_code == 200, toppers.get_data(as_text=True)


def test_a_zip_of_the_folder_imports_the_same(fresh_app, tmp_path):
    _, url = fresh_app
    archive = tmp_path / "fest.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in EXAMPLE.glob("*.csv"):
            zf.write(path, f"district-fest-csv/{path.name}")
    with writable(url):
        summary = import_file(archive)
        assert summary.festival.slug == SLUG
        assert m.Result.select().join(m.SubFestProgramme).join(m.SubFest).where(
            m.SubFest.festival == summary.festival).count() == len(
            (EXAMPLE / "results.csv").read_text(encoding="utf-8").splitlines()) - 1


def write_folder(tmp_path, files, bom=False):
    folder = tmp_path / "fest"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8-sig" if bom else "utf-8")
    return folder


def import_problems(url, folder):
    """The problems importing ``folder`` raises."""
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
    return caught.value


MINIMAL = {
    "festival.csv": "slug,name,name_local,timezone\nmini-fest,Mini Fest,മിനി ഫെസ്റ്റ്,Asia/Kolkata\n",
    "subFests.csv": "slug,name,name_local,is_public\nmain,Main,പ്രധാനം,yes\n",
    "news.csv": "title,status,published_at,tags\nഫലങ്ങൾ,published,2026-01-01T00:00:00Z,results;day-1\n",
}


@pytest.mark.parametrize("bom", [False, True])
def test_utf8_with_or_without_bom_and_malayalam(fresh_app, tmp_path, bom):
    _, url = fresh_app
    folder = write_folder(tmp_path, MINIMAL, bom=bom)
    with writable(url):
        summary = import_file(folder)
        festival = summary.festival
        assert festival.name_local == "മിനി ഫെസ്റ്റ്"
        news = m.News.get(m.News.festival == festival)
        assert news.title == "ഫലങ്ങൾ"
        assert sorted(link.tag for link in news.tag_links) == ["day-1", "results"]


def test_cells_are_typed_by_the_format():
    source = read_folder(EXAMPLE)
    assert source.data["festival"]["slug"] == SLUG
    first = source.data["subFestProgrammes"][0]
    assert isinstance(first["display_order"], int) and isinstance(first["judge_names"], list)
    assert source.data["positionCriteria"][0]["points"] == {"1": 5, "2": 3, "3": 1}
    assert source.data["results"][0]["is_published"] in (True, False)


def test_bad_rows_are_named_by_file_line_and_column_all_at_once(fresh_app, tmp_path):
    _, url = fresh_app
    files = dict(MINIMAL)
    files["subFests.csv"] = "slug,name,is_public\nmain,Main,yes\nsecond,Second,maybe\n\n\"third\",\"Third\nfest\",no\n"
    files["categories.csv"] = "sub_fest_slug,name,display_order\nmain,Senior,1\nnowhere,Junior,2\nmain,HS,first\n"
    folder = write_folder(tmp_path, files)
    with writable(url):
        with pytest.raises(FixtureError) as caught:
            import_file(folder)
        assert not m.Festival.select().where(m.Festival.slug == "mini-fest").exists()
    located = caught.value.located()
    assert ("subFests.csv line 3, column is_public", "'maybe' is not a boolean (true/false/yes/no/1/0)") in located
    assert any(where == "categories.csv line 4, column display_order" for where, _ in located), located


def test_unknown_references_in_csv_name_the_line(fresh_app, tmp_path):
    _, url = fresh_app
    files = dict(MINIMAL)
    files["subFests.csv"] = "slug,name\nmain,Main\n"
    # a multi-line cell: the next row starts on line 4
    files["categories.csv"] = "sub_fest_slug,name,description\nmain,Senior,\"two\nlines\"\nnowhere,Junior,\n"
    error = import_problems(url, write_folder(tmp_path, files))
    assert error.located() == [("categories.csv line 4, column sub_fest_slug",
                                       "no sub_fest with slug 'nowhere'")]


def test_unknown_columns_and_files_are_reported(fresh_app, tmp_path):
    _, url = fresh_app
    files = dict(MINIMAL)
    files["subFests.csv"] = "slug,name,colour\nmain,Main,red\n"
    files["notes.csv"] = "a\nb\n"
    lines = import_problems(url, write_folder(tmp_path, files)).lines()
    assert any("subFests.csv line 1" in line and "'colour'" in line for line in lines), lines
    assert any("notes.csv" in line for line in lines), lines


def test_at_most_fifty_problems_are_listed_with_the_total(fresh_app, tmp_path, monkeypatch):
    _, url = fresh_app
    files = dict(MINIMAL)
    files["subFests.csv"] = "slug,name,is_public\n" + "".join(f"s{i},S{i},maybe\n" for i in range(80))
    folder = write_folder(tmp_path, files)
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(cli, ["import", str(folder)])
    assert result.exit_code == 1
    assert "(80 problem(s)); nothing was written" in result.output
    assert result.output.count("column is_public") == 50
    assert "… and 30 more problem(s)" in result.output


def test_the_json_error_names_the_file(fresh_app, tmp_path):
    _, url = fresh_app
    folder = tmp_path / "copy"
    shutil.copytree(EXAMPLE, folder)
    (folder / "results.csv").write_text("sub_fest_slug,sub_fest_programme_code,chest_no,score\n"
                                        "general,UP-LM,1001,abc\n", encoding="utf-8")
    assert import_problems(url, folder).located() == [("results.csv line 2, column score", "'abc' is not a number")]


DOCS = Path(__file__).resolve().parent.parent / "docs"


def result_day_files():
    """The update folder of "Result day" in docs/spreadsheets.md: ``{file name: text}``."""
    text = (DOCS / "spreadsheets.md").read_text(encoding="utf-8").split("## Result day", 1)[1].split("\n##", 1)[0]
    return dict(re.findall(r"^`(\w+\.csv)`\n```text\n(.*?)^```", text, re.MULTILINE | re.DOTALL))


def test_the_documented_result_day_update_works_on_the_example(fresh_app, tmp_path, monkeypatch):
    _, url = fresh_app
    files = result_day_files()
    assert sorted(files) == ["festival.csv", "results.csv", "subFestProgrammes.csv"]
    folder = write_folder(tmp_path, files)
    monkeypatch.setenv("DATABASE_URL", url)
    assert CliRunner().invoke(cli, ["import", str(EXAMPLE)]).exit_code == 0
    result = CliRunner().invoke(cli, ["import", "--update", str(folder)])
    assert result.exit_code == 0, result.output
    assert "results: 0 added, 2 changed, 0 withdrawn" in result.output
    with writable(url):
        programme = (m.SubFestProgramme.select().join(m.SubFest).join(m.Festival)
                     .where(m.Festival.slug == SLUG, m.SubFestProgramme.code == "HS-LM").get())
        assert programme.status == "result_published"
        published = [r.points for r in programme.results.where(m.Result.is_published).order_by(m.Result.position)]
    assert published == [10, 8]  # 1st + A, 2nd + A


def test_every_alias_and_example_file_is_documented():
    from seed.pipeline.read.fixture_format import json_schema

    format_doc = (DOCS / "fixture-format.md").read_text(encoding="utf-8")
    spreadsheets = (DOCS / "spreadsheets.md").read_text(encoding="utf-8")
    schema = json_schema()["properties"]
    columns = {name for key, prop in schema.items() if key not in ("formatVersion", "festival")
               for name in prop["items"]["properties"]}
    assert {name for name in columns if f"`{name}`" not in format_doc} == set()
    assert {p.name for p in EXAMPLE.glob("*.csv") if f"`{p.name}`" not in spreadsheets} == set()
