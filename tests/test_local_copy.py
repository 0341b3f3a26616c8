"""On PostgreSQL the service reads pages from a local SQLite copy of the compiled tables
(``LOCAL_COPY``, db/compiled/local_copy.py) and asks the server only for the revision.

The copy must give the server's answers, byte for byte; follow every import on the next
request; step aside (the server answers) while it is brought up to date in the background
or when its file fails; and hold nothing but the compiled tables.
"""
import copy
import os
import sqlite3
import stat
import threading

import pytest

from conftest import API, BIG, ON_POSTGRES, SMALL, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from db.compiled.local_copy import COPIED_MODELS, HELD_TABLE
from db.source import models as m
from db.source.keys import create_key
from db.source.models import FestivalRevision
from natural_festival import SLUG as NATURAL
from natural_festival import junior_results, natural_festival
from seed.importer import import_fixture
from seed.update import update_fixture
from test_response_cache import news_queries  # noqa: F401  (fixture)

pytestmark = pytest.mark.skipif(not ON_POSTGRES, reason="the local copy is of a PostgreSQL database")


def get(client, key, path, **params):
    return client.get(f"{API}{path}", query_string=params, headers={"X-API-Key": key})


SETTLE_SECONDS = 60


def copied(client, key, *paths):
    """Ask for ``paths`` (the server answers and the copy is made in the background), wait
    until the copy is made, and return it."""
    copy_ = client.application.extensions["front_door"].database.copy
    for path in paths or ("/news",):
        assert get(client, key, path).status_code == 200
    assert copy_.settled(SETTLE_SECONDS)
    return copy_


def every_page(client, key):
    """A path -> body map of every endpoint's answers for one festival: each list (sorted two
    ways) and the single records of a sub-fest."""
    answers = {}

    def fetch(path, **params):
        response = get(client, key, path, **params)
        assert response.status_code == 200, (path, params, response.get_data(as_text=True))
        answers[(path, tuple(sorted(params.items())))] = response.get_data()
        return response.get_json()

    sub_fests = fetch("/subfests", limit=100)["data"]
    for lone in ("/schedules", "/news", "/gallery", "/downloads"):
        fetch(lone, limit=100)
    fetch("/news", limit=100, sortOrder="asc")
    for sub_fest in sub_fests:
        sid = sub_fest["id"]
        fetch("/filters", subFestId=sid)
        fetch("/teams", subFestId=sid, limit=100)
        fetch("/categories", subFestId=sid, limit=100)
        fetch("/programme-results", subFestId=sid, limit=100)
        programmes = fetch("/programmes", subFestId=sid, limit=100)["data"]
        fetch("/programmes", subFestId=sid, limit=100, sortBy="name", sortOrder="desc")
        candidates = fetch("/candidates", subFestId=sid, limit=100)["data"]
        placeholders = fetch("/topper-placeholders", subFestId=sid, limit=100)["data"]
        for programme in programmes[:10]:
            fetch("/programme-detail", subFestProgramId=programme["id"])
            fetch("/programme-result", subFestProgramId=programme["id"])
        for candidate in candidates[:10]:
            fetch("/candidate-detail", subFestCandidateId=candidate["id"])
            fetch("/candidate-result", subFestId=sid, chestNo=candidate["candidate"]["chestNo"])
            fetch("/candidate-registrations", subFestCandidateId=candidate["id"], limit=100)
        for placeholder in placeholders:
            fetch("/toppers", topperPlaceholderId=placeholder["id"], limit=100)
    return answers


@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_the_copy_gives_the_servers_answers_byte_for_byte(app_with, keys, slug):
    served = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0)
    copy_ = copied(served.test_client(), keys[slug])
    assert copy_ is not None and os.path.isfile(copy_.path) and copy_._held
    read_copy = _reads_of(copy_)
    copied_pages = every_page(served.test_client(), keys[slug])
    assert len(copied_pages) > 20 and len(read_copy) >= len(copied_pages)  # every page from the copy
    direct = every_page(app_with(LOCAL_COPY=False, RESPONSE_CACHE_SECONDS=0).test_client(), keys[slug])
    assert list(copied_pages) == list(direct)
    different = [page for page in copied_pages if copied_pages[page] != direct[page]]
    assert different == []


def _reads_of(copy_):
    """A list that gets an entry for each snapshot of the copy a request opens from now on."""
    opened = []
    real_open_at = copy_.open_at

    def open_at(*args):
        found = real_open_at(*args)
        if found:
            opened.append(args)
        return found

    copy_.open_at = open_at
    return opened


def test_pages_are_read_from_the_copy_and_the_server_is_asked_only_the_revision(app_with, keys, query_count):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0, API_KEY_CACHE_SECONDS=60).test_client()
    door = client.application.extensions["front_door"]
    copied(client, keys[BIG])
    statements, sent = [], []  # statements on the service's connection; revisions on its own
    real_cursor, real_send = door.database.db.cursor, door.database.revisions.send

    def cursor(*args, **kwargs):
        return _Counted(real_cursor(*args, **kwargs), statements)

    def send(connection):
        sent.append(connection)
        return real_send(connection)

    door.database.db.cursor, door.database.revisions.send = cursor, send
    try:
        with query_count() as counter:
            response = get(client, keys[BIG], "/news", limit=5)
    finally:
        del door.database.db.cursor, door.database.revisions.send
    assert response.status_code == 200 and len(response.get_json()["data"]) == 5
    assert statements == [] and len(sent) == 1 and sent[0].async_
    assert counter.count >= 1  # the page's statement ran, on the copy


class _Counted:
    """A cursor that notes each statement it executes."""

    def __init__(self, real, statements):
        self._real, self._statements = real, statements

    def execute(self, sql, *params):
        self._statements.append(sql)
        return self._real.execute(sql, *params)

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_an_import_is_in_the_copy_on_the_next_request(fresh_app, app_with, keys, fixture_data, news_queries):
    """The copy is at the earlier revision when the request comes: its answer is made there
    while the server's revision travels, then made again at the server's, which is sent."""
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[SMALL])
    before = get(client, keys[SMALL], "/news", limit=100).get_json()
    festival_id = str(m.Festival.get(m.Festival.slug == SMALL).id)
    held_before = copy_._held[festival_id]

    changed = copy.deepcopy(fixture_data[SMALL])
    target = next(n for n in changed["news"] if n["id"] == before["data"][0]["id"])
    target["title"] = "The copy follows the server"
    with writable(url):
        import_fixture(changed)

    pages = len(news_queries)
    body = get(client, keys[SMALL], "/news", limit=100).get_json()
    assert body["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1
    assert {n["id"]: n["title"] for n in body["data"]}[target["id"]] == "The copy follows the server"
    assert len(news_queries) == pages + 2  # at the copy's revision, then at the server's
    assert copy_.settled(SETTLE_SECONDS)
    assert copy_._held[festival_id][0] == held_before[0] + 1  # brought up to date in the background
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == body
    assert len(news_queries) == pages + 3  # the copy holds the server's revision: made once


def test_while_the_copy_is_brought_up_to_date_the_server_answers(fresh_app, app_with, keys, fixture_data):
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[SMALL])
    before = get(client, keys[SMALL], "/news", limit=100).get_json()
    changed = copy.deepcopy(fixture_data[SMALL])
    target = next(n for n in changed["news"] if n["id"] == before["data"][0]["id"])
    target["title"] = "Read from the server meanwhile"
    with writable(url):
        import_fixture(changed)

    go_on, real_update = threading.Event(), copy_._update

    def slow_update(*args):
        assert go_on.wait(SETTLE_SECONDS)
        return real_update(*args)

    copy_._update = slow_update  # the copy is being brought up to date
    read_copy = _reads_of(copy_)
    festival_id = str(m.Festival.get(m.Festival.slug == SMALL).id)
    answers = [get(client, keys[SMALL], "/news", limit=100).get_json() for _ in range(3)]
    assert copy_._held[festival_id][0] == before["context"]["data"]["revision"]  # still behind
    go_on.set()
    body = answers[0]
    assert answers == [body] * 3
    assert body["context"]["data"]["revision"] == before["context"]["data"]["revision"] + 1
    assert {n["id"]: n["title"] for n in body["data"]}[target["id"]] == "Read from the server meanwhile"
    assert copy_.settled(SETTLE_SECONDS)
    assert copy_._held[festival_id][0] == body["context"]["data"]["revision"]
    served_by_copy = len(read_copy)
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == body  # now from the copy
    assert len(read_copy) == served_by_copy + 1


def test_a_revision_that_goes_back_is_copied_again(fresh_app, app_with, keys):
    """A database restored from a backup may hold an earlier revision than the copy: the copy
    serves only the exact revision (and time) the server gives."""
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[SMALL])
    first = get(client, keys[SMALL], "/news", limit=100).get_json()
    with writable(url):
        festival = m.Festival.get(m.Festival.slug == SMALL)
        row = FestivalRevision.get(FestivalRevision.festival == festival.id)
        FestivalRevision.update(revision=row.revision + 7).where(FestivalRevision.festival == festival.id).execute()
    assert get(client, keys[SMALL], "/news", limit=100).get_json()["context"]["data"]["revision"] == row.revision + 7
    assert copy_.settled(SETTLE_SECONDS) and copy_._held[str(festival.id)][0] == row.revision + 7
    with writable(url):
        FestivalRevision.update(revision=row.revision).where(FestivalRevision.festival == festival.id).execute()
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == first  # the server's
    assert copy_.settled(SETTLE_SECONDS) and copy_._held[str(festival.id)][0] == row.revision  # copied again
    read_copy = _reads_of(copy_)
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == first
    assert len(read_copy) == 1


def test_a_failing_copy_is_left_for_the_server_and_made_again_after_a_rest(app_with, keys, caplog):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[BIG])
    now = [1000.0]
    copy_.clock = lambda: now[0]
    expected = get(client, keys[BIG], "/news", limit=100).get_data()

    def broken(*args):
        raise sqlite3.OperationalError("disk I/O error")

    copy_.open_at = broken  # the copy's file fails
    try:
        response = get(client, keys[BIG], "/news", limit=100)
    finally:
        del copy_.open_at
    assert response.status_code == 200 and response.get_data() == expected
    assert "the local copy failed; reading from PostgreSQL for 30 s" in caplog.text
    assert copy_._held == {}  # forgotten
    now[0] += 29
    assert get(client, keys[BIG], "/news", limit=100).get_data() == expected
    assert copy_._held == {}  # still resting: read from the server
    now[0] += 2
    assert get(client, keys[BIG], "/news", limit=100).get_data() == expected
    assert copy_.settled(SETTLE_SECONDS)
    assert copy_._held != {}  # made again


def test_the_copy_holds_only_the_compiled_tables_in_a_private_folder(app_with, keys):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[BIG])
    assert stat.S_IMODE(os.stat(copy_.directory).st_mode) == 0o700
    with sqlite3.connect(copy_.path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {model._meta.table_name for model in COPIED_MODELS} | {HELD_TABLE}
    assert not tables & {model._meta.table_name for model in m.ALL_MODELS}
    copy_.close()
    assert not os.path.exists(copy_.directory)


def test_requests_of_many_threads_share_one_update_and_none_waits_for_it(app_with, keys):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = client.application.extensions["front_door"].database.copy
    updates = []
    real_update = copy_._update

    def counted(*args):
        if real_update(*args):
            updates.append(args)
            return True
        return False

    copy_._update = counted
    expected = get(client.application.test_client(), keys[BIG], "/news", limit=100).get_data()
    answers = []

    def ask():
        answers.append(get(client.application.test_client(), keys[BIG], "/news", limit=100).get_data())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [expected] * 8
    assert copy_.settled(SETTLE_SECONDS)
    assert len(updates) == 1


def test_without_the_copy_every_read_goes_to_the_server(app_with, keys):
    client = app_with(LOCAL_COPY=False, RESPONSE_CACHE_SECONDS=0).test_client()
    assert get(client, keys[BIG], "/news").status_code == 200
    assert client.application.extensions["front_door"].database.copy is None


def test_an_update_copies_only_what_its_compile_wrote_and_gives_the_servers_answers(fresh_app, app_with):
    """Result day's step, ``import --update`` of one programme's results: the copy replaces
    the rows of that programme and its participants and the small lists, and then gives
    what the server gives, page for page."""
    _, url = fresh_app
    with writable(url):
        import_fixture(natural_festival())
        festival = m.Festival.get(m.Festival.slug == NATURAL)
        key = create_key(festival, label="t")[1]
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, key)
    scopes = []
    real_replace_scope = copy_._replace_scope

    def replace_scope(server, copy, festival_id, scope, since, until):
        scopes.append((scope, since, until))
        return real_replace_scope(server, copy, festival_id, scope, since, until)

    copy_._replace_scope = replace_scope
    with writable(url):
        update_fixture(junior_results())  # junior P1, the sub-fest's one programme
        programme = m.SubFestProgramme.select().join(m.SubFest).where(
            (m.SubFest.slug == "junior") & (m.SubFest.festival == festival.id)).first()

    assert get(client, key, "/news").status_code == 200  # the server's answer; the copy is updated
    assert copy_.settled(SETTLE_SECONDS)
    read_copy = _reads_of(copy_)
    copied_pages = every_page(client, key)
    assert len(read_copy) >= len(copied_pages)  # every page from the copy
    assert len(scopes) == 1  # brought up to date by the compile's scope, not whole
    scope, since, until = scopes[0]
    assert until == since + 1 and scope["programme_ids"] == {str(programme.id)} and scope["candidate_ids"]
    direct = every_page(app_with(database_url=url, LOCAL_COPY=False, RESPONSE_CACHE_SECONDS=0).test_client(), key)
    assert list(copied_pages) == list(direct)
    assert [page for page in copied_pages if copied_pages[page] != direct[page]] == []
    result = get(client, key, "/candidate-result", chestNo="101", subFestSlug="junior").get_json()
    assert [r["points"] for r in result["results"]] == [7]


def test_a_copy_past_the_statement_deadline_leaves_requests_to_the_server(app_with, keys, caplog):
    """A festival too big to copy within ``DATABASE_STATEMENT_TIMEOUT_MS``: no request waits
    for it or fails; they read the server while the copy rests."""
    import psycopg2.errors

    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = client.application.extensions["front_door"].database.copy

    def too_slow(*args):
        raise psycopg2.errors.QueryCanceled("canceling statement due to statement timeout")

    copy_._update = too_slow
    first = get(client, keys[BIG], "/news", limit=100)
    assert first.status_code == 200
    assert copy_.settled(SETTLE_SECONDS) and copy_._held == {} and copy_.held(copy_) is None
    assert "the local copy failed; reading from PostgreSQL for 30 s: canceling statement" in caplog.text
    assert get(client, keys[BIG], "/news", limit=100).get_data() == first.get_data()


def test_warm_makes_every_festivals_copy_before_the_first_request(app_with, keys):
    """What `serve` does as it starts (`app/cli.py`): the first requests find the copy made."""
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    database = client.application.extensions["front_door"].database
    database.warm()
    assert database.copy.settled(SETTLE_SECONDS)
    festivals = {str(f.id) for f in m.Festival.select()}
    assert set(database.copy._held) == festivals
    read_copy = _reads_of(database.copy)
    assert get(client, keys[BIG], "/news").status_code == 200
    assert get(client, keys[SMALL], "/news").status_code == 200
    assert len(read_copy) == 2  # the first requests read the copy
