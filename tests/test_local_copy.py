"""On PostgreSQL the service reads pages from a local SQLite copy of the compiled tables
(``LOCAL_COPY``, db/serving/local_copy.py) and learns each festival's revision from the
server's notifications (``RevisionWatch``, db/serving/revision_watch.py): a request makes no
round trip to the server.

The copy must give the server's answers, byte for byte; follow every import on the next
request; step aside (the server answers) while it is brought up to date in the background
or when its file fails; and hold nothing but the compiled tables. The watch must see every
write of a revision, whoever makes it, and while it cannot (no trigger, a lost connection)
requests ask the server.
"""
import gc
import select
import time
import copy
import os
import sqlite3
import stat
import threading

import psycopg2
import pytest

from conftest import API, BIG, ON_POSTGRES, SMALL, writable
from custom_apps import app_with  # noqa: F401  (fixture)
from db.serving import revision_watch as watch_module
from db.serving import snapshot as snapshot_module
from db.serving.local_copy import COPIED_MODELS, HELD_TABLE
from db.serving.revision_watch import RevisionWatch
from db.source import models as m
from db.source.keys import create_key
from db.source.models import FestivalRevision
from db.source.revisions import REVISION_TRIGGER, install_revision_notify
from natural_festival import SLUG as NATURAL
from natural_festival import junior_results, natural_festival
from seed.pipeline.write.importer import import_fixture
from seed.pipeline.write.update import update_fixture
from test_access_log import capture_log  # noqa: F401  (fixture)
from test_response_cache import news_queries  # noqa: F401  (fixture)

pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not ON_POSTGRES, reason="the local copy is of a PostgreSQL database")]


def get(client, key, path, **params):
    return client.get(f"{API}{path}", query_string=params, headers={"X-API-Key": key})


SETTLE_SECONDS = 60


def copied(client, key, *paths):
    """Ask for ``paths`` (the server answers, the copy is made and the revisions watched in
    the background), wait until the copy is made and the watch live, and return the copy."""
    database = client.application.extensions["front_door"].database
    for path in paths or ("/news",):
        assert get(client, key, path).status_code == 200
    assert database.copy.settled(SETTLE_SECONDS) and database.watch.wait_live(SETTLE_SECONDS)
    return database.copy


@pytest.fixture
def quiet_watch(monkeypatch):
    """Watches without a heartbeat, from their start: the heartbeat's read makes the socket
    readable too, and reads the revisions, perhaps from before the write that :func:`notified`
    waits for. Without it only a notification (or the connection's end) does either."""
    monkeypatch.setattr(RevisionWatch, "HEARTBEAT_SECONDS", 3600.0)


def notified(client, taken):
    """Wait until a notification the server sent is on the watch's socket, or taken in by its
    thread (it had ``taken`` before): the next request must see what it announced. The watch
    must be quiet (the ``quiet_watch`` fixture): with a heartbeat, a readable socket may be
    its read's answer, begun before the write."""
    watch = client.application.extensions["front_door"].database.watch
    deadline = time.monotonic() + SETTLE_SECONDS
    while watch.notifications == taken and not select.select([watch._connection], [], [], 0.001)[0]:
        assert time.monotonic() < deadline


def holds(client, festival_id, revision):
    """Wait until the watch gives ``festival_id`` at ``revision`` (it asks the server itself
    when its notification is late): the next request is made at that revision."""
    watch = client.application.extensions["front_door"].database.watch
    deadline = time.monotonic() + SETTLE_SECONDS
    while (watch.current() or {}).get(str(festival_id), (None,))[0] != revision:
        assert time.monotonic() < deadline
        time.sleep(0.01)


def another_process_writes(url, statement):
    """Run ``statement`` on a connection of its own, as another process would (this one's
    count of revisions it bumped does not move)."""
    connection = psycopg2.connect(url)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute(statement)
    finally:
        connection.close()


def revision_reads(monkeypatch):
    """A list that gets an entry each time a request (on this thread, as the test client
    runs them) reads the revisions from the server; the watch's own reads, on its thread,
    are not counted."""
    reads = []
    real = snapshot_module.read_revisions
    requests = threading.current_thread()

    def read(cursor):
        if threading.current_thread() is requests:
            reads.append(cursor)
        return real(cursor)

    for module in (snapshot_module, watch_module):
        monkeypatch.setattr(module, "read_revisions", read)
    return reads


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
        # searches: the copy's text index (SQLite) against the server's LIKE, a full page and a last one
        for candidate in candidates[:3]:
            name = candidate["candidate"]["name"]
            for term in (name, name[:3], name.split()[0], candidate["candidate"]["chestNo"]):
                fetch("/candidates", subFestId=sid, limit=5, search=term)
                fetch("/candidates", subFestId=sid, limit=5, page=2, search=term, sortBy="name", sortOrder="desc")
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


def test_pages_are_read_from_the_copy_and_the_server_is_not_asked(app_with, keys, query_count, monkeypatch):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0, API_KEY_CACHE_SECONDS=60).test_client()
    door = client.application.extensions["front_door"]
    copied(client, keys[BIG])
    assert get(client, keys[BIG], "/news", limit=5).status_code == 200  # the key is cached
    statements = []  # statements on the service's connection
    real_cursor = door.database.db.cursor

    def cursor(*args, **kwargs):
        return _Counted(real_cursor(*args, **kwargs), statements)

    door.database.db.cursor = cursor
    reads = revision_reads(monkeypatch)
    try:
        with query_count() as counter:
            responses = [get(client, keys[BIG], "/news", limit=5) for _ in range(3)]
    finally:
        del door.database.db.cursor
    assert [r.status_code for r in responses] == [200] * 3 and len(responses[0].get_json()["data"]) == 5
    assert statements == [] and reads == []
    assert counter.count >= 3  # the pages' statements ran, on the copy


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
    """An import in this process: the next request reads the revisions again without waiting
    for the notification, finds the copy behind, and reads the server; then the copy."""
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
    assert len(news_queries) == pages + 1  # made once, at the server's revision
    assert copy_.settled(SETTLE_SECONDS)
    assert copy_._held[festival_id][0] == held_before[0] + 1  # brought up to date in the background
    read_copy = _reads_of(copy_)
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == body
    assert len(news_queries) == pages + 2 and len(read_copy) == 1


def test_a_write_by_another_process_is_seen_by_the_next_request_after_its_notification(
        fresh_app, app_with, keys, quiet_watch):
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[SMALL])
    before = get(client, keys[SMALL], "/news", limit=100).get_json()["context"]["data"]["revision"]
    watch = client.application.extensions["front_door"].database.watch
    for step in range(1, 4):
        taken = watch.notifications
        another_process_writes(url.replace("+pool", ""), "UPDATE festival_revision SET revision = revision + 1")
        notified(client, taken)  # on the socket, or read by the watch's thread
        seen = get(client, keys[SMALL], "/news", limit=100).get_json()["context"]["data"]["revision"]
        assert seen == before + step
    assert copy_.settled(SETTLE_SECONDS)
    assert copy_._held[str(m.Festival.get(m.Festival.slug == SMALL).id)][0] == before + 3


def test_a_notification_taken_in_by_the_watchs_thread_while_a_request_looks_is_seen_by_it(
        fresh_app, app_with, keys, quiet_watch, monkeypatch):
    """The notification is in the process when the request comes; the watch's thread takes it
    in and reads what it announced while the request looks at the socket, which it finds empty:
    the request still gets the new revision."""
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copied(client, keys[SMALL])
    before = get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"]
    watch = client.application.extensions["front_door"].database.watch
    real_readable, looked = watch_module._readable, []

    def thread_takes_it_in_meanwhile(connection):
        if not looked:
            looked.append(connection)
            taken = watch.notifications
            watch._lock.release()  # the thread takes the notification in now
            deadline = time.monotonic() + SETTLE_SECONDS
            while watch.notifications == taken or watch._catching_up:
                assert time.monotonic() < deadline
                time.sleep(0.001)
        return real_readable(connection)

    watch._lock.acquire()  # the thread, woken by the notification, waits for this
    try:
        another_process_writes(url.replace("+pool", ""), "UPDATE festival_revision SET revision = revision + 1")
        deadline = time.monotonic() + SETTLE_SECONDS
        while not select.select([watch._connection], [], [], 0.01)[0]:
            assert time.monotonic() < deadline  # until the notification is on the socket
        monkeypatch.setattr(watch_module, "_readable", thread_takes_it_in_meanwhile)
        answer = get(client, keys[SMALL], "/news").get_json()
    finally:
        if not looked:
            watch._lock.release()
    assert looked and not real_readable(looked[0])  # the request found the socket empty
    assert answer["context"]["data"]["revision"] == before + 1


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
    holds(client, festival.id, row.revision + 7)
    assert get(client, keys[SMALL], "/news", limit=100).get_json()["context"]["data"]["revision"] == row.revision + 7
    assert copy_.settled(SETTLE_SECONDS) and copy_._held[str(festival.id)][0] == row.revision + 7
    with writable(url):
        FestivalRevision.update(revision=row.revision).where(FestivalRevision.festival == festival.id).execute()
    holds(client, festival.id, row.revision)
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == first  # the server's
    assert copy_.settled(SETTLE_SECONDS) and copy_._held[str(festival.id)][0] == row.revision  # copied again
    read_copy = _reads_of(copy_)
    assert get(client, keys[SMALL], "/news", limit=100).get_json() == first
    assert len(read_copy) == 1


def test_a_failing_copy_is_left_for_the_server_and_made_again_after_a_rest(app_with, keys, capture_log):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    logged = capture_log(client.application.logger.name)
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
    assert any("the local copy failed; reading from PostgreSQL for 30 s" in line["message"] for line in logged())
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
    # and the text index of candidate search: an FTS5 table and the tables it keeps its index in
    from db.compiled.text_index import INDEX

    text_index = {name for name in tables if name == INDEX or name.startswith(f"{INDEX}_")}
    assert INDEX in text_index
    assert tables - text_index == {model._meta.table_name for model in COPIED_MODELS} | {HELD_TABLE}
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
    updates = []
    real_replace_recompiled = copy_._replace_recompiled

    def replace_recompiled(server, copy, festival_id, recompiled, since, until):
        updates.append((recompiled, since, until))
        return real_replace_recompiled(server, copy, festival_id, recompiled, since, until)

    copy_._replace_recompiled = replace_recompiled
    with writable(url):
        update_fixture(junior_results())  # junior P1, the sub-fest's one programme
        programme = m.SubFestProgramme.select().join(m.SubFest).where(
            (m.SubFest.slug == "junior") & (m.SubFest.festival == festival.id)).first()

    assert get(client, key, "/news").status_code == 200  # the server's answer; the copy is updated
    assert copy_.settled(SETTLE_SECONDS)
    read_copy = _reads_of(copy_)
    copied_pages = every_page(client, key)
    assert len(read_copy) >= len(copied_pages)  # every page from the copy
    assert len(updates) == 1  # brought up to date by what the compile wrote again, not whole
    recompiled, since, until = updates[0]
    assert until == since + 1 and recompiled["programme_ids"] == {str(programme.id)} and recompiled["candidate_ids"]
    direct = every_page(app_with(database_url=url, LOCAL_COPY=False, RESPONSE_CACHE_SECONDS=0).test_client(), key)
    assert list(copied_pages) == list(direct)
    assert [page for page in copied_pages if copied_pages[page] != direct[page]] == []
    result = get(client, key, "/candidate-result", chestNo="101", subFestSlug="junior").get_json()
    assert [r["points"] for r in result["results"]] == [7]


def test_a_copy_past_the_statement_deadline_leaves_requests_to_the_server(app_with, keys, capture_log):
    """A festival too big to copy within ``DATABASE_STATEMENT_TIMEOUT_MS``: no request waits
    for it or fails; they read the server while the copy rests."""
    import psycopg2.errors

    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    logged = capture_log(client.application.logger.name)
    copy_ = client.application.extensions["front_door"].database.copy

    def too_slow(*args):
        raise psycopg2.errors.QueryCanceled("canceling statement due to statement timeout")

    copy_._update = too_slow
    first = get(client, keys[BIG], "/news", limit=100)
    assert first.status_code == 200
    assert copy_.settled(SETTLE_SECONDS) and copy_._held == {} and copy_.held(copy_) is None
    assert any("the local copy failed; reading from PostgreSQL for 30 s: canceling statement" in line["message"]
               for line in logged())
    assert get(client, keys[BIG], "/news", limit=100).get_data() == first.get_data()


def test_warm_makes_every_festivals_copy_before_the_first_request(app_with, keys):
    """What `serve` does as it starts (`app/cli/__init__.py`): the first requests find the copy made."""
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


def test_without_the_trigger_each_request_asks_the_server_until_init_makes_it(
        fresh_app, app_with, keys, capture_log, monkeypatch):
    """A database made by an older version has no trigger to notify the watch: requests read
    the revisions from the server (and see every import) until ``festival-api init``."""
    _, url = fresh_app
    another_process_writes(url.replace("+pool", ""), f'DROP TRIGGER "{REVISION_TRIGGER}" ON festival_revision')
    monkeypatch.setattr(RevisionWatch, "NO_TRIGGER_SECONDS", 0.2)
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    logged = capture_log(client.application.logger.name)
    database = client.application.extensions["front_door"].database
    assert get(client, keys[SMALL], "/news").status_code == 200
    assert database.copy.settled(SETTLE_SECONDS)
    time.sleep(0.5)  # the watch has looked more than once
    assert not database.watch.live
    assert sum(f"the database has no {REVISION_TRIGGER} trigger" in line["message"] for line in logged()) == 1
    reads = revision_reads(monkeypatch)
    before = get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"]
    another_process_writes(url.replace("+pool", ""), "UPDATE festival_revision SET revision = revision + 1")
    assert get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"] == before + 1
    assert len(reads) == 2  # one read per request
    with writable(url):
        install_revision_notify()
    assert database.watch.wait_live(SETTLE_SECONDS)
    assert database.copy.settled(SETTLE_SECONDS)
    reads.clear()
    assert get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"] == before + 1
    assert reads == []


def test_a_lost_watch_leaves_requests_to_the_server_until_it_is_back(fresh_app, app_with, keys, capture_log,
                                                                    quiet_watch):
    """The server ends the watch's connection (a restart, ``pg_terminate_backend``): no request
    fails or reads an old revision, and the watch connects again by itself."""
    _, url = fresh_app
    plain_url = url.replace("+pool", "")
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    logged = capture_log(client.application.logger.name)
    copied(client, keys[SMALL])
    watch = client.application.extensions["front_door"].database.watch
    before = get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"]
    for step in (1, 2):
        backend = watch._connection.get_backend_pid()
        another_process_writes(plain_url, f"SELECT pg_terminate_backend({backend})")
        another_process_writes(plain_url, "UPDATE festival_revision SET revision = revision + 1")
        response = get(client, keys[SMALL], "/news")
        assert response.status_code == 200
        assert response.get_json()["context"]["data"]["revision"] == before + step
        assert watch.wait_live(SETTLE_SECONDS)
        assert watch._connection.get_backend_pid() != backend
    assert any("watching PostgreSQL for new revisions failed" in line["message"] for line in logged())
    taken = watch.notifications
    another_process_writes(plain_url, "UPDATE festival_revision SET revision = revision + 1")
    notified(client, taken)
    assert get(client, keys[SMALL], "/news").get_json()["context"]["data"]["revision"] == before + 3


def test_the_watch_stops_when_its_app_is_gone(app_with, keys):
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copied(client, keys[BIG])
    watch = client.application.extensions["front_door"].database.watch
    thread, connection = watch._thread, watch._connection
    assert thread.is_alive() and not connection.closed
    del client
    gc.collect()
    thread.join(5)
    assert not thread.is_alive() and connection.closed and not watch.live


def test_a_closed_app_stops_its_watch_removes_its_copy_and_copies_nothing_more(app_with, keys, capture_log):
    """``FrontDoor.close`` (what a test's app, or a process done with its app, calls): the
    watch's thread ends, the copy's folder goes, and a request that still arrives reads the
    server, with nothing copied or logged as a failure."""
    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    logged = capture_log(client.application.logger.name)
    copied(client, keys[BIG])
    door = client.application.extensions["front_door"]
    watch, local = door.database.watch, door.database.copy
    thread = watch._thread
    door.close()
    thread.join(5)
    assert not thread.is_alive() and not os.path.exists(local.directory)
    festival_id = str(m.Festival.get(m.Festival.slug == BIG).id)
    assert local.held(festival_id) is None and not local.begin(festival_id, (1, None))
    local.want()
    assert local.settled(5)
    assert get(client, keys[BIG], "/news").status_code == 200  # from the server
    assert local.settled(5) and not os.path.exists(local.directory)
    messages = [line["message"] for line in logged()]
    assert any("the local copy holds" in m for m in messages)  # the capture hears the copy
    assert not any("the local copy failed" in m for m in messages)


def test_candidate_searchs_kept_counts_in_the_copy_are_the_servers_counts(fresh_app, app_with, keys, fixture_data,
                                                                         monkeypatch):
    """The copy's text index keeps the number of candidates each common term finds
    (db/compiled/text_index.py; here every word beginning found twice): a full page of such
    a term reads its total there, and it is the server's count, before and after an import
    that renames, adds and hides candidates."""
    from db.compiled import text_index
    from test_candidate_search_index import kept_counts_are_the_rules

    monkeypatch.setattr(text_index, "KEPT_FROM", 2)
    _, url = fresh_app
    client = app_with(database_url=url, LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    direct = app_with(database_url=url, LOCAL_COPY=False, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[SMALL])
    festival_id = m.Festival.get(m.Festival.slug == SMALL).id

    def compared():
        assert copy_.settled(SETTLE_SECONDS)
        with sqlite3.connect(copy_.path) as connection:
            found = {}
            for sub_fest, candidate, search in connection.execute(
                    "SELECT sub_fest, id, search FROM public_candidate WHERE festival = ?", (festival_id.hex,)):
                found.setdefault(sub_fest, {})[candidate] = search
            assert kept_counts_are_the_rules(connection.execute, found, festival_id) > 20
            terms = sorted({term for (term,) in connection.execute(f'SELECT term FROM "{text_index.COUNTS}"')})
        read_copy = _reads_of(copy_)
        answers = {}
        for which, app_client in (("copy", client), ("server", direct)):
            for sub_fest in get(app_client, keys[SMALL], "/subfests", limit=100).get_json()["data"]:
                for term in terms:
                    for limit in (1, 5):
                        response = get(app_client, keys[SMALL], "/candidates", subFestId=sub_fest["id"],
                                       limit=limit, search=term)
                        assert response.status_code == 200
                        answers.setdefault((sub_fest["id"], term, limit), {})[which] = response.get_data()
        assert len(read_copy) >= len(answers)  # the copy's answers were the copy's
        assert [key for key, both in answers.items() if both["copy"] != both["server"]] == []
        return terms

    def imported(data):
        """Import ``data``; wait until the watch gives its revision (its notification may be
        late), then a request brings the copy to it (``compared`` waits for that)."""
        with writable(url):
            import_fixture(data)
            revision = FestivalRevision.get(FestivalRevision.festival == festival_id).revision
        holds(client, festival_id, revision)
        assert get(client, keys[SMALL], "/news").status_code == 200

    terms = compared()
    changed = copy.deepcopy(fixture_data[SMALL])
    people = changed["candidates"]
    common = people[0]["name"].split()[0]
    assert common.lower() in terms
    people[1]["name"] = f"{common} Zyxwv"  # renamed
    entry = next(e for e in changed["subFestCandidates"] if e["candidate"] == people[0]["id"])
    for number in (1, 2):  # added
        person = {**people[0], "id": f"00000000-0000-4000-8000-00000000c0d{number}",
                  "name": f"{common} Added{number}", "admission_number": f"ADM-ADDED-{number}"}
        people.append(person)
        changed["subFestCandidates"].append({**entry, "id": f"00000000-0000-4000-8000-00000000e0d{number}",
                                             "candidate": person["id"], "chest_no": f"99{number}", "sections": []})
    imported(changed)
    assert "added" in compared()  # begins two words now
    people[-1]["is_public"] = False  # hidden (one without entries: the withdrawal guard allows it)
    imported(changed)
    assert "added" not in compared()  # one word


def test_after_an_update_the_copy_s_wal_is_emptied(app_with, keys):
    """A whole festival's rows go through the copy's WAL (the first copy is whole); after the
    update they are put in the file and the WAL emptied, not left beside it at its largest
    (a second copy of the festival)."""
    from db.serving.local_copy import WAL_LIMIT_BYTES

    client = app_with(LOCAL_COPY=True, RESPONSE_CACHE_SECONDS=0).test_client()
    copy_ = copied(client, keys[BIG], "/news")
    wal = copy_.path + "-wal"
    size = os.path.getsize(copy_.path)
    assert size > 1_000_000
    assert not os.path.exists(wal) or os.path.getsize(wal) < min(size / 10, WAL_LIMIT_BYTES)
