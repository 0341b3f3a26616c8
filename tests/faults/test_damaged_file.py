"""A partly damaged SQLite file: `serve` refuses it, and ``/healthz`` notices damage that
appears while the service runs (512 KB of garbage written into the middle of the file)."""
import os
import subprocess
import time

from conftest import API, BIG
from db.database import sqlite_path
from test_multiprocess import festival_api, free_port

from .conftest import request

GARBAGE = 512 * 1024
HEALTH_SECONDS = 10
PER_SUB_FEST = ["/candidates", "/programmes", "/teams", "/categories", "/topper-placeholders", "/schedules"]
WHOLE_FESTIVAL = ["/news", "/gallery", "/downloads", "/changes?sinceRevision=0"]
MAX_PAGES = 20


def every_page(api):
    """Every page (of 500) of the lists a website reads, and a few candidates' results: the
    paths, found in-process on the seeded database (a server's connection would cache pages)."""
    paths = []
    sub_fests = [item["slug"] for item in api.ok("/subfests")["data"]]
    lists = [f"{path}?subFestSlug={slug}" for slug in sub_fests for path in PER_SUB_FEST] + WHOLE_FESTIVAL
    for path in lists:
        for page in range(1, MAX_PAGES + 1):
            joined = f"{path}{'&' if '?' in path else '?'}limit=500&page={page}"
            body = api.client.get(API + joined, headers={"X-API-Key": api.keys[BIG]}).get_json()
            paths.append(joined)
            if path.startswith("/candidates") and page == 1:
                paths += [f"/candidate-result?chestNo={c['candidate']['chestNo']}&subFestSlug={path.split('=')[1]}"
                          for c in body["data"][:: max(1, len(body["data"]) // 20)]]
            if not body["meta"]["hasNextPage"]:
                break
    return paths + boards_of_the_past(api, sub_fests)


def boards_of_the_past(api, sub_fests):
    """Each leaderboard's race and its board after each step: between them, every row of the
    compiled histories (their tables are a third of the file)."""
    paths = []
    for slug in sub_fests:
        for placeholder in api.ok("/topper-placeholders", subFestSlug=slug, limit=500)["data"]:
            race = f"/topper-race?topperPlaceholderId={placeholder['id']}&top=50&limit=500"
            paths.append(race)
            for step in api.client.get(API + race, headers={"X-API-Key": api.keys[BIG]}).get_json()["data"]:
                paths.append(f"/toppers?topperPlaceholderId={placeholder['id']}&asOf={step['at']}&limit=500")
    return paths


def damage(path):
    """Write ``GARBAGE`` bytes of garbage into the middle of the file, in place."""
    size = os.path.getsize(path)
    assert size > 2 * GARBAGE
    with open(path, "r+b") as fh:
        fh.seek(size // 2 - GARBAGE // 2)
        fh.write(os.urandom(GARBAGE))


def test_serve_refuses_a_damaged_file_and_health_notices_damage_while_serving(sqlite_database, serve, keys):
    path = sqlite_path(sqlite_database)
    pristine = open(path, "rb").read()

    damage(path)
    started = time.monotonic()
    refused = subprocess.run(festival_api() + ["serve", "--port", str(free_port())],
                             env={**os.environ, "DATABASE_URL": sqlite_database},
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "damaged" in lines[0] and "quick_check" in lines[0], refused.stderr
    assert time.monotonic() - started < 10

    with open(path, "wb") as fh:
        fh.write(pristine)
    server = serve(sqlite_database)
    assert server.get("/healthz").status == 200
    damage(path)
    deadline = time.monotonic() + HEALTH_SECONDS
    while True:
        answer = server.get("/healthz")
        assert answer.seconds < 1
        if answer.status == 503:
            break
        assert time.monotonic() < deadline, "/healthz still says ok about a damaged file"
        time.sleep(0.2)
    assert answer.json()["message"].startswith("The database file is damaged")
    assert str(path) not in answer.body.decode()
    assert "quick_check" in server.log()  # what SQLite found, for the operator


def test_an_endpoint_meeting_a_damaged_page_answers_503_and_marks_the_node_unhealthy(sqlite_database, serve, keys,
                                                                                     api):
    path = sqlite_path(sqlite_database)
    paths = every_page(api)
    # The probe runs rarely: the request, not the probe, must find this damage.
    server = serve(sqlite_database)
    damage(path)
    statuses = {item: server.get(item, keys[BIG]).status for item in paths}
    assert 500 not in statuses.values(), statuses
    assert 503 in statuses.values(), statuses  # the garbage is where some endpoint reads
    assert server.get("/healthz").status == 503
