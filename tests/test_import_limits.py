"""Files are bounded before they are read: real crafted files (a zip bomb made into a
workbook, an archive whose entry lies about its size, a CSV file of 210,000 rows) are each
refused in one line naming the file and the cap, never a traceback; ``follow`` says it once."""
import io
import json
import zipfile

import pytest
from click.testing import CliRunner
from openpyxl import Workbook

from app.cli import main as cli
from app.config import SETTINGS
from conftest import writable
from natural_festival import SLUG, natural_festival
from seed.pipeline.follow import FileSource, Follower
from seed.pipeline.read.limits import DEFAULTS
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.write.importer import import_file
from seed.pipeline.write.update import update_source

# 30 MB of a sheet's XML that deflate packs to well under 1/100 of it.
BOMB_MB = 30


def small_workbook():
    book = Workbook()
    book.active.title = "festival"
    book.active.append(["slug", "name", "timezone"])
    book.active.append([SLUG, "Natural Fest", "Asia/Kolkata"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def with_entry(archive_bytes, name, data):
    """``archive_bytes`` (a zip) with one more entry, deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive_bytes)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in source.infolist():
            zf.writestr(info, source.read(info))
        zf.writestr(name, data)
    return out.getvalue()


def bomb_sheet():
    row = b'<row><c t="inlineStr"><is><t>x</t></is></c></row>'
    return b"<worksheet><sheetData>" + row * (BOMB_MB * (1 << 20) // len(row)) + b"</sheetData></worksheet>"


@pytest.fixture(scope="module")
def bomb_xlsx(tmp_path_factory):
    """A real workbook with a sheet that unpacks to 30 MB from a few tens of kB."""
    path = tmp_path_factory.mktemp("bomb") / "results.xlsx"
    path.write_bytes(with_entry(small_workbook(), "xl/worksheets/sheet9.xml", bomb_sheet()))
    return path


def lying_zip(path, said=1000, real_mb=40):
    """A .zip of CSV files whose results.csv says it unpacks to ``said`` bytes but unpacks
    to ``real_mb`` MB: its size fields (local header and central directory) are rewritten."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("festival.csv", f"slug,name,timezone\n{SLUG},Natural Fest,Asia/Kolkata\n")
        zf.writestr("results.csv", b"sub_fest_slug\n" + b"main\n" * (real_mb * (1 << 20) // 5))
    data = bytearray(out.getvalue())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + 11] == b"results.csv":
                data[start + offset:start + offset + 4] = said.to_bytes(4, "little")
            start += 4
    path.write_bytes(bytes(data))
    return path


def refusal(path):
    with pytest.raises(FixtureError) as caught:
        import_file(path)
    lines = caught.value.lines()
    assert len(lines) == 1, lines
    return lines[0]


def test_the_defaults_are_the_settings():
    assert {name: int(SETTINGS[name][0]) for name in DEFAULTS} == DEFAULTS


def test_a_zip_bomb_workbook_is_refused_from_its_list_of_entries_in_one_line(fresh_app, bomb_xlsx):
    assert bomb_xlsx.stat().st_size < BOMB_MB * (1 << 20) / 100
    with writable(fresh_app[1]):
        line = refusal(bomb_xlsx)
    assert line.startswith(f"{bomb_xlsx}: xl/worksheets/sheet9.xml unpacks to ")
    assert line.endswith("times its packed size, over the cap of 100 times (IMPORT_MAX_RATIO); nothing was imported")


def test_an_archive_past_the_size_cap_is_refused_before_it_is_unpacked(fresh_app, bomb_xlsx, monkeypatch):
    monkeypatch.setenv("IMPORT_MAX_RATIO", "100000")
    monkeypatch.setenv("IMPORT_MAX_MB", "20")
    with writable(fresh_app[1]):
        line = refusal(bomb_xlsx)
    assert line.startswith(f"{bomb_xlsx}: its contents unpacked holds 30.")
    assert line.endswith("MB, over the cap of 20 MB (IMPORT_MAX_MB); nothing was imported")


def test_an_entry_that_unpacks_to_more_than_it_says_stops_there(fresh_app, tmp_path):
    path = lying_zip(tmp_path / "fest.zip")
    with writable(fresh_app[1]):
        line = refusal(path)
    assert line.startswith(f"{path}: not a .zip of CSV files that can be read (BadZipFile: Bad CRC-32")


def test_a_csv_file_past_the_row_cap_is_refused_as_it_is_read(fresh_app, tmp_path):
    folder = tmp_path / "fest"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"slug,name,timezone\n{SLUG},Natural Fest,Asia/Kolkata\n", encoding="utf-8")
    with open(folder / "results.csv", "w", encoding="utf-8") as fh:
        fh.write("sub_fest_slug,sub_fest_programme_code,chest_no,position\n")
        fh.writelines(f"main,P1,{n},1\n" for n in range(210_000))
    with writable(fresh_app[1]):
        line = refusal(folder)
    assert line == (f"{folder}: results.csv has more than 200,000 rows, over the cap of 200,000 (IMPORT_MAX_ROWS); "
                    "nothing was imported")


def test_a_sheet_past_the_row_cap_is_refused(fresh_app, tmp_path, monkeypatch):
    monkeypatch.setenv("IMPORT_MAX_ROWS", "50")
    book = Workbook()
    book.active.title = "festival"
    book.active.append(["slug", "name", "timezone"])
    book.active.append([SLUG, "Natural Fest", "Asia/Kolkata"])
    sheet = book.create_sheet("results")
    sheet.append(["sub_fest_slug", "sub_fest_programme_code", "chest_no"])
    for n in range(51):
        sheet.append(["main", "P1", str(n)])
    book.save(tmp_path / "fest.xlsx")
    with writable(fresh_app[1]):
        line = refusal(tmp_path / "fest.xlsx")
    assert line == f"{tmp_path / 'fest.xlsx'}: sheet results has more than 50 rows, over the cap of 50 (IMPORT_MAX_ROWS); " \
                   "nothing was imported"


def test_a_json_file_past_the_size_cap_is_refused_unread(fresh_app, tmp_path, monkeypatch):
    monkeypatch.setenv("IMPORT_MAX_MB", "1")
    data = natural_festival()
    data["news"] = [{"title": f"n{n}", "summary": "x" * 1000} for n in range(1200)]
    path = tmp_path / "fest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with writable(fresh_app[1]):
        line = refusal(path)
    assert line.startswith(f"{path}: the file holds 1.") and "(IMPORT_MAX_MB)" in line


def test_the_problems_listed_are_capped_and_the_rest_counted(fresh_app, tmp_path, monkeypatch):
    monkeypatch.setenv("IMPORT_MAX_PROBLEMS", "5")
    data = natural_festival()
    for row in data["results"]:
        row["position"] = "first"
    data["news"] = [{"title": f"n{n}", "status": "bogus"} for n in range(10)]
    path = tmp_path / "fest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with writable(fresh_app[1]):
        with pytest.raises(FixtureError) as caught:
            import_file(path)
    lines = caught.value.lines()
    assert len(lines) == 6 and caught.value.total > 5
    assert lines[-1] == f"… and {caught.value.total - 5} more problem(s) (IMPORT_MAX_PROBLEMS lists 5)"


def test_the_command_refuses_in_one_line_without_a_traceback(fresh_app, bomb_xlsx, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", fresh_app[1])
    done = CliRunner().invoke(cli, ["import", str(bomb_xlsx)])
    assert done.exit_code == 1 and "Traceback" not in done.output and done.exception is not None
    assert "(IMPORT_MAX_RATIO); nothing was imported" in done.output
    monkeypatch.setenv("IMPORT_MAX_ROWS", "many")
    wrong = CliRunner().invoke(cli, ["import", str(bomb_xlsx)])
    assert wrong.exit_code == 2 and "IMPORT_MAX_ROWS" in wrong.output


def test_follow_says_it_once_until_the_file_changes(fresh_app, bomb_xlsx, tmp_path):
    path = tmp_path / "live.xlsx"
    path.write_bytes(bomb_xlsx.read_bytes())
    said = []
    with writable(fresh_app[1]):
        follower = Follower(FileSource(path), said.append, update_source)
        for _ in range(3):
            follower.turn()
        assert len(said) == 1 and "(IMPORT_MAX_RATIO)" in said[0], said
        path.write_bytes(with_entry(small_workbook(), "xl/worksheets/sheet8.xml", bomb_sheet()))
        follower.turn()
        follower.turn()
    assert len(said) == 2 and "sheet8.xml" in said[1], said


def test_follow_leaves_a_csv_file_past_the_size_cap_unread_and_says_it_once(fresh_app, tmp_path, monkeypatch):
    from seed.pipeline.follow import FolderSource

    monkeypatch.setenv("IMPORT_MAX_MB", "1")
    folder = tmp_path / "fest"
    folder.mkdir()
    (folder / "festival.csv").write_text(f"slug\n{SLUG}\n", encoding="utf-8")
    (folder / "news.csv").write_text("title\n" + "".join(f"news {n}\n" for n in range(200_000)), encoding="utf-8")
    said = []
    with writable(fresh_app[1]):
        follower = Follower(FolderSource(folder), said.append, update_source)
        for _ in range(3):
            follower.turn()
    assert len(said) == 1, said
    assert "news.csv holds 2." in said[0] and "over the cap of 1 MB (IMPORT_MAX_MB)" in said[0]


def test_the_counting_stream_stops_past_the_cap(monkeypatch):
    """What a .zip's CSV files are read through, whatever their entry says."""
    from seed.pipeline.read.limits import TooBig, text_stream

    monkeypatch.setenv("IMPORT_MAX_MB", "1")
    stream = text_stream(io.BytesIO(b"a,b\n" * (1 << 19)), "fest.zip", "results.csv")
    with pytest.raises(TooBig) as caught:
        stream.read()
    assert caught.value.lines() == ["fest.zip: results.csv unpacks to more than it says, over the cap of 1 MB "
                                    "(IMPORT_MAX_MB); nothing was imported"]
    assert text_stream(io.BytesIO(b"a,b\n" * 1000), "fest.zip", "results.csv").read() == "a,b\n" * 1000
