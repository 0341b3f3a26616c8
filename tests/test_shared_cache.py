"""A shared cache in front of a real service: docs/nginx.conf.example's `proxy_cache` block, run by
a real nginx, in front of a real `festival-api serve`, on URLs that name their festival
(`festival=`, docs/http.md "Caches"; docs/deployment.md "A CDN in front").

- The service killed: visitors keep getting the last answers (`stale-if-error`, nginx's
  `proxy_cache_use_stale error`), the same bodies with a `200`.
- After an import, every URL is fresh (the service's current `ETag`) within `s-maxage` plus one
  revalidation.
- 500 visitors at once on a cold URL: one request reaches the service (its access log).
"""
import contextlib
import copy
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import threading
import time

import pytest

from conftest import API, BIG, SMALL, stop_processes
from fixture_rules import visible_news
from test_multiprocess import fetch_url, festival_api, free_port, nginx, process_env, wait_until_serving  # noqa: F401

SHARED_MAX_AGE = 2
# The import test's: longer than an import takes, so the copies are still fresh after it.
IMPORT_SHARED_MAX_AGE = 20
# Time one revalidation may take on a loaded machine (nginx asks, the service answers).
REVALIDATION = 5.0
VISITORS = 500
# nginx caps a visitor address at 100 connections (limit_conn): the visitors come from several
# loopback addresses, as they would from many homes.
VISITOR_ADDRESSES = [f"127.0.0.{i}" for i in range(2, 12)]
EVENTS = "worker_connections 4096;"


def insecure():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@contextlib.contextmanager
def service(url, key, tmp_path, **settings):
    """One `festival-api serve` on ``url`` with ``settings``; yields ``(process, port, log)``."""
    port, log = free_port(), tmp_path / "serve.log"
    env = {**process_env(url), "CACHE_SHARED_MAX_AGE": str(SHARED_MAX_AGE), "LOG_LEVEL": "INFO",
           **{name: str(value) for name, value in settings.items()}}
    with open(log, "wb") as out:
        process = subprocess.Popen(festival_api() + ["serve", "--host", "127.0.0.1", "--port", str(port),
                                                     "--threads", "8"],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, port, key, log)
        yield process, port, log
    finally:
        stop_processes(process)


def access_lines(log, path):
    """The service's access lines for ``path`` (under the API prefix)."""
    lines = []
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if entry.get("logger") == "festival_api.access" and entry.get("path") == API + path:
                lines.append(entry)
    return lines


def test_a_killed_service_leaves_the_last_answers_with_the_visitors(seeded, keys, nginx, tmp_path):
    urls = [f"/news?festival={BIG}", f"/subfests?festival={BIG}",
            f"/programmes?festival={BIG}&subFestSlug=general&limit=50"]
    with service(seeded[0], keys[BIG], tmp_path) as (process, port, _):
        _, https_port = nginx([port])
        base = f"https://127.0.0.1:{https_port}{API}"
        first = {}
        for url in urls:
            status, headers, body = fetch_url(base + url, keys[BIG], context=insecure())
            assert status == 200 and headers["X-Cache-Status"] == "MISS", (url, status, body[:300])
            assert f"s-maxage={SHARED_MAX_AGE}" in headers["Cache-Control"]
            assert "stale-if-error=" in headers["Cache-Control"]
            first[url] = body

        # A key of another festival on these URLs is refused, and the refusal is never kept.
        for _ in range(2):
            status, headers, _ = fetch_url(base + urls[0], keys[SMALL], context=insecure())
            assert (status, headers["Cache-Control"]) == (403, "no-store")
            assert headers["X-Cache-Status"] != "HIT"

        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        time.sleep(SHARED_MAX_AGE + 0.5)  # every copy is stale now: only stale-if-error serves it

        served = []
        until = time.monotonic() + 2 * SHARED_MAX_AGE  # past s-maxage again, and again
        while time.monotonic() < until:
            for url in urls:
                status, headers, body = fetch_url(base + url, keys[BIG], context=insecure())
                assert (status, body) == (200, first[url]), (url, status, body[:300])
                served.append(headers["X-Cache-Status"])
            time.sleep(0.2)
        # From the cache every time (nginx marks a copy past its s-maxage STALE; after a failed
        # revalidation in the background it may hand it out as a HIT for a while).
        print("served from the cache:", " ".join(served))
        assert set(served) <= {"STALE", "UPDATING", "HIT"} and "STALE" in served, served
        # What the cache never held cannot be served: the visitor gets nginx's 502.
        assert fetch_url(base + f"/downloads?festival={BIG}", keys[BIG], context=insecure())[0] == 502


def test_after_an_import_every_url_is_fresh_within_s_maxage_and_one_revalidation(fresh_app, keys, fixture_data,
                                                                                  nginx, tmp_path):
    _, database_url = fresh_app
    key = keys[SMALL]
    changed = copy.deepcopy(fixture_data[SMALL])
    new_title = "Results of the final day are out"
    visible_news(changed)[0]["title"] = new_title
    urls = [f"/news?festival={SMALL}", f"/subfests?festival={SMALL}", f"/downloads?festival={SMALL}",
            f"/gallery?festival={SMALL}", f"/programmes?festival={SMALL}&subFestSlug=arts",
            f"/changes?festival={SMALL}&sinceRevision=0"]
    with service(database_url, key, tmp_path, CACHE_SHARED_MAX_AGE=IMPORT_SHARED_MAX_AGE) as (_, port, _):
        _, https_port = nginx([port])
        base = f"https://127.0.0.1:{https_port}{API}"

        def through_cache(url):
            return fetch_url(base + url, key, context=insecure())

        def from_service(url):
            return fetch_url(f"http://127.0.0.1:{port}{API}{url}", key)

        before = {url: through_cache(url) for url in urls}
        filled = time.monotonic()
        assert all(answer[0] == 200 for answer in before.values())
        assert new_title not in before[urls[0]][2].decode()

        path = tmp_path / "changed.json"
        path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
        imported = subprocess.run(festival_api() + ["import", str(path)], env=process_env(database_url),
                                  capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        published = time.monotonic()
        # The copies are younger than s-maxage: the cache still hands out the old answers.
        assert published - filled < IMPORT_SHARED_MAX_AGE - 1, f"the import took {published - filled:.1f}s"
        held = through_cache(urls[0])
        assert (held[1]["X-Cache-Status"], held[2]) == ("HIT", before[urls[0]][2])
        current = {url: from_service(url)[1]["ETag"] for url in urls}
        assert current[urls[0]] != before[urls[0]][1]["ETag"]  # /news changed; the others need not

        fresh_after, stale_seen = {}, {url: 0 for url in urls}
        deadline = filled + IMPORT_SHARED_MAX_AGE + REVALIDATION
        while len(fresh_after) < len(urls) and time.monotonic() < deadline:
            for url in urls:
                if url in fresh_after:
                    continue
                status, headers, body = through_cache(url)
                assert status == 200, (url, status)
                if headers["ETag"] == current[url]:
                    fresh_after[url] = time.monotonic() - published
                elif time.monotonic() > filled + IMPORT_SHARED_MAX_AGE:
                    stale_seen[url] += 1  # served while nginx revalidates it
            time.sleep(0.1)
        assert set(fresh_after) == set(urls), f"not fresh within s-maxage and one revalidation: {fresh_after}"
        assert new_title in through_cache(urls[0])[2].decode()
        for url in urls:  # once fresh, the cache keeps the current answer
            status, headers, body = through_cache(url)
            assert (status, headers["ETag"]) == (200, current[url]), url
        print(f"fresh after (s): {fresh_after}; old answers past s-maxage: {stale_seen}")


def test_500_visitors_on_a_cold_url_send_one_request_to_the_service(seeded, keys, nginx, tmp_path):
    cold = f"/programmes?festival={BIG}&subFestSlug=general&limit=37"
    with service(seeded[0], keys[BIG], tmp_path) as (_, port, log):
        _, https_port = nginx([port], events=EVENTS)
        assert access_lines(log, "/programmes") == []

        context = insecure()
        start = threading.Barrier(VISITORS)
        answers = [None] * VISITORS

        def visit(i):
            connection = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=60, context=context,
                                                     source_address=(VISITOR_ADDRESSES[i % len(VISITOR_ADDRESSES)], 0))
            connection.connect()  # the handshakes first (within nginx's client_header_timeout):
            start.wait(timeout=60)  # then every request leaves at once
            connection.request("GET", API + cold, headers={"X-API-Key": keys[BIG]})
            response = connection.getresponse()
            answers[i] = (response.status, response.getheader("X-Cache-Status"), response.read())
            connection.close()

        threads = [threading.Thread(target=visit, args=(i,)) for i in range(VISITORS)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        print(f"{VISITORS} visitors answered in {time.monotonic() - started:.1f}s (handshakes included)")
        assert all(answer is not None for answer in answers)
        assert {answer[0] for answer in answers} == {200}, {answer[0] for answer in answers}
        assert len({answer[2] for answer in answers}) == 1
        assert sum(answer[1] == "MISS" for answer in answers) == 1

        deadline = time.monotonic() + 10  # the access line is written once the answer is sent
        while not access_lines(log, "/programmes") and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        reached = access_lines(log, "/programmes")
        assert len(reached) == 1, reached
        assert reached[0]["status"] == 200 and sorted(reached[0]["query"]) == ["festival", "limit", "subFestSlug"]
