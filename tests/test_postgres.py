"""SQLite and PostgreSQL give the same answers (db/query.py: the text rule).

The suite runs on SQLite, or on PostgreSQL when TEST_DATABASE_URL is set; every test
here runs on whichever engine the suite runs on and checks the engine-independent rule:
A-Z fold to a-z and nothing else does, then text compares by code point (UTF-8 bytes),
then by id. The expected answers are computed here from that rule, not by the database.
"""
import re
import uuid

import peewee
import pytest

from app import create_app
from conftest import API, ON_POSTGRES, SMALL, TEST_DATABASE_URL, TEST_SETTINGS, database_copy, writable
from db.compiled.tables import PublicDownload
from db.compiler import compile_festival
from db.database import PooledPostgresDatabase, PostgresDatabase, bind_database, database, make_database
from db.read.sql import Select, contains_all, equals, pattern_any
from db.source import models as m

pytestmark = pytest.mark.postgres  # `pytest -m postgres` (db/serving/STATES.md)

# Mixed case, accented Latin, Malayalam, LIKE metacharacters, a duplicate title (tie on
# text, broken by id) and missing categories (NULLs sort last both ways).
TITLES = [
    ("apple", "Fruit"), ("Apple", "fruit"), ("APPLE pie", None), ("Apple", "FRUIT"),
    ("Banana", "Fruit"), ("banana split", None), ("Éclair", "Pâtisserie"),
    ("éclair", "pâtisserie"), ("Zebra crossing", "Road"), ("zebra", "road"),
    ("100% cotton", "Textiles"), ("under_score", "Misc"), ("under score", "Misc"),
    ("back\\slash", "Misc"), ("കഥകളി", "നൃത്തം"), ("മോഹിനിയാട്ടം", "നൃത്തം"),
    ("ഓട്ടൻ തുള്ളൽ", None), ("Ölfest", "Food"), ("[bracket]", None),
]

ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text):
    return text.translate(ASCII_FOLD)


def text_order(row, field):
    """The documented order of a text column: folded bytes, exact bytes, then id."""
    value = row[field]
    return (value is None, fold(value or "").encode(), (value or "").encode(),
            uuid.UUID(row["id"]).bytes)


@pytest.fixture(scope="module", params=["default", "icu"] if ON_POSTGRES else ["default"])
def downloads_copy(request, seeded, fixture_data, tmp_path_factory):
    """A copy of the database whose small festival has exactly the TITLES downloads.

    With ``icu`` the text columns (source and compiled) get a locale-aware ICU collation, under which PostgreSQL
    would sort "apple" < "Apple" < "Éclair" < "zebra" and LOWER() would fold "É": the
    rule must hold anyway. Yields ``(app, url, expected rows)``.
    """
    festival_id = uuid.UUID(fixture_data[SMALL]["festival"]["id"])
    rows = [{"id": uuid.uuid4(), "festival": festival_id, "title": title, "category": category,
             "description": None, "file_url": f"https://files.example/{i}.pdf", "is_public": True}
            for i, (title, category) in enumerate(TITLES)]
    previous = database.obj
    with database_copy(seeded[0], tmp_path_factory.mktemp("parity")) as url:
        with writable(url) as db:
            if request.param == "icu":
                if not db.execute_sql("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'").fetchone():
                    pytest.skip("this PostgreSQL has no ICU collations")
                for table, column in (("download", "title"), ("download", "category"),
                                      ("public_download", "category")):
                    db.execute_sql(f'ALTER TABLE {table} ALTER COLUMN {column} '
                                   f'TYPE varchar(255) COLLATE "und-x-icu"')
                db.execute_sql('ALTER TABLE public_download ALTER COLUMN search TYPE text COLLATE "und-x-icu"')
            m.Download.delete().where(m.Download.festival == festival_id).execute()
            m.Download.insert_many(rows).execute()
            compile_festival(festival_id)  # as every import does: requests read the compiled rows
        app = create_app({"DATABASE_URL": url, **TEST_SETTINGS})
        database.initialize(previous)
        yield app, url, [{"id": str(r["id"]), "title": r["title"], "category": r["category"]} for r in rows]


@pytest.fixture
def downloads_app(downloads_copy):
    """``downloads_copy`` with the models bound to it for the test."""
    previous = database.obj
    db = bind_database(downloads_copy[1], readonly=True)
    try:
        yield downloads_copy
    finally:
        db.close()
        database.initialize(previous)


def get_downloads(app, keys, **params):
    response = app.test_client().get(f"{API}/downloads", query_string={"limit": 500, **params},
                                     headers={"X-API-Key": keys[SMALL]})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["data"]


def test_the_suite_runs_on_the_engine_it_was_asked_for(app):
    assert isinstance(database.obj, PostgresDatabase if ON_POSTGRES else peewee.SqliteDatabase)


@pytest.mark.parametrize("field", ["title", "category"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_text_sorts_by_the_engine_independent_rule(downloads_app, keys, field, order):
    app, _, rows = downloads_app
    expected = sorted(rows, key=lambda row: text_order(row, field), reverse=(order == "desc"))
    if order == "desc":  # NULLs stay last in both directions
        expected = [r for r in expected if r[field] is not None] + [r for r in expected if r[field] is None]
    got = get_downloads(app, keys, sortBy=field, sortOrder=order)
    assert [(d["id"], d[field]) for d in got] == [(r["id"], r[field]) for r in expected]


def test_the_rule_puts_case_variants_together_and_non_ascii_after_ascii(downloads_app, keys):
    app, _, _ = downloads_app
    titles = [d["title"] for d in get_downloads(app, keys, sortBy="title", sortOrder="asc")]
    assert titles.index("APPLE pie") < titles.index("Banana") < titles.index("banana split")
    assert titles.index("Apple") < titles.index("apple")  # same letters: exact text decides
    assert titles.index("zebra") < titles.index("Éclair") < titles.index("éclair") < titles.index("കഥകളി")


@pytest.mark.parametrize("term", [
    "apple", "APPLE", "aPpLe PiE", "éclair", "ÉCLAIR", "Éclair", "ölfest", "Ölfest",
    "കഥ", "ഓട്ടൻ", "നൃത്തം", "100%", "%", "_", "under_", "\\", "[b", "zebra cross",
])
def test_search_is_ascii_case_insensitive_and_exact_elsewhere(downloads_app, keys, term):
    app, _, rows = downloads_app
    expected = {r["id"] for r in rows
                if any(fold(term) in fold(r[f] or "") for f in ("title", "category"))}
    got = {d["id"] for d in get_downloads(app, keys, search=term)}
    assert got == expected


@pytest.mark.parametrize("term, titles", [
    ("APPLE", {"apple", "Apple", "APPLE pie"}),
    ("ÉCLAIR", {"Éclair"}),  # É is not an ASCII letter: it matches only itself
    ("éclair", {"éclair"}),
    ("%", {"100% cotton"}),
    ("_", {"under_score"}),
    ("കഥകളി", {"കഥകളി"}),
])
def test_search_examples_of_the_rule(downloads_app, keys, term, titles):
    app, _, _ = downloads_app
    assert {d["title"] for d in get_downloads(app, keys, search=term)} == titles


@pytest.mark.parametrize("category", ["fruit", "FRUIT", "Pâtisserie", "PÂTISSERIE", "നൃത്തം"])
def test_category_filter_follows_the_same_rule(downloads_app, keys, category):
    app, _, rows = downloads_app
    expected = {r["id"] for r in rows if r["category"] is not None and fold(r["category"]) == fold(category)}
    assert {d["id"] for d in get_downloads(app, keys, category=category)} == expected


def compiled_download_ids(festival_id, fragment):
    """Ids of the festival's compiled downloads matching a reader's SQL fragment."""
    select = Select(PublicDownload).where(*equals(PublicDownload.festival, festival_id)).where(*fragment)
    return {str(PublicDownload.id.python_value(row_id)) for (row_id,) in select.rows(PublicDownload.id)}


@pytest.mark.parametrize("pattern", ["f*t", "FR*", "*ത*", "m*sc", "*o*", "*%*", "pâ*", "PÂ*"])
def test_star_patterns_follow_the_same_rule(downloads_app, fixture_data, pattern):
    """A ``*Pattern`` parameter (``db.read.sql.pattern_any``) on a compiled, A-Z folded column."""
    _, _, rows = downloads_app
    regex = re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in fold(pattern)), re.S)
    expected = {r["id"] for r in rows if r["category"] is not None and regex.fullmatch(fold(r["category"]))}
    festival_id = uuid.UUID(fixture_data[SMALL]["festival"]["id"])
    assert compiled_download_ids(festival_id, pattern_any((PublicDownload.category,), [pattern])) == expected


def test_several_search_terms_must_all_match(downloads_app, fixture_data):
    """Search terms (``db.read.sql.contains_all``) on a compiled ``search`` column."""
    _, _, rows = downloads_app
    festival_id = uuid.UUID(fixture_data[SMALL]["festival"]["id"])
    got = compiled_download_ids(festival_id, contains_all(PublicDownload.search, ["APPLE", "fruit"]))
    expected = {r["id"] for r in rows
                if all(any(fold(t) in fold(r[f] or "") for f in ("title", "category"))
                       for t in ("APPLE", "fruit"))}
    assert got == expected and len(got) == 3


def test_the_service_connection_refuses_writes(app, seeded):
    """DATABASE_READONLY: SQLite opens the file read-only, PostgreSQL makes the session read-only."""
    db = make_database(seeded[0], readonly=True)
    db.connect()
    try:
        with pytest.raises(peewee.DatabaseError, match="(?i)read.?only"):
            db.execute_sql("UPDATE festival SET name = name")
    finally:
        db.close()


@pytest.mark.parametrize("url, cls", [
    ("postgresql://u@h:5432/fest", PostgresDatabase),
    ("postgres://u@h/fest", PostgresDatabase),
    ("postgresql+pool://u@h/fest?max_connections=8", PooledPostgresDatabase),
])
def test_postgres_urls_make_postgres_databases(url, cls):
    db = make_database(url, readonly=True)
    assert type(db) is cls
    assert db.database == "fest"
    assert "default_transaction_read_only=on" in db.connect_params["options"]


def test_read_only_option_keeps_options_of_the_url():
    db = make_database("postgresql://u@h/fest?options=-c%20statement_timeout%3D5000", readonly=True)
    assert db.connect_params["options"] == "-c statement_timeout=5000 -c default_transaction_read_only=on"
    assert "options" not in make_database("postgresql://u@h/fest").connect_params


def test_other_database_schemes_are_refused():
    with pytest.raises(ValueError, match="sqlite:/// or postgresql://"):
        make_database("mysql://u@h/fest")


@pytest.mark.skipif(not ON_POSTGRES, reason="needs TEST_DATABASE_URL (PostgreSQL)")
def test_postgres_session_database_is_the_one_named_by_test_database_url(app, api):
    assert database.obj.database == TEST_DATABASE_URL.rsplit("/", 1)[1].split("?")[0]
    assert api.ok("/news")["data"]  # and the API answers from it
