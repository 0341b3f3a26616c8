"""Several `festival-api serve` processes on one database (docs/deployment.md, docs/nginx.conf.example).

Two real server processes on loopback ports share one database (the SQLite file, or the
PostgreSQL database when TEST_DATABASE_URL is set). They answer identically, and after
`festival-api import` of a changed festival file both serve the new data, with the new
revision in `context`, on the very next request — with the response cache switched ON
(a long RESPONSE_CACHE_SECONDS), because the cache keys on the data revision.
"""
import contextlib
import copy
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import API, BIG, SMALL, stop_processes
from fixture_rules import visible_news

START_TIMEOUT = 30
REQUEST_TIMEOUT = 10
PATHS = ["/subfests", "/news", "/downloads", "/gallery", "/news?limit=2&page=2", "/downloads?search=rules"]
NEW_TITLE = "Results of day one are out"


def festival_api():
    """The `festival-api` console script of this environment (or the module behind it)."""
    script = Path(sys.executable).with_name("festival-api")
    found = str(script) if script.exists() else shutil.which("festival-api")
    return [found] if found else [sys.executable, "-m", "app.cli"]


def free_port():
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_env(url):
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": url,
        "DATABASE_READONLY": "true",
        # The caches stay on, and long: an import must still show on the next request.
        "RESPONSE_CACHE_SECONDS": "60",
        "API_KEY_CACHE_SECONDS": "60",
    })
    return env


def fetch(port, path, key):
    """``(status, ETag, body bytes)`` of one GET."""
    status, headers, body = fetch_url(f"http://127.0.0.1:{port}{API}{path}", key)
    return status, headers.get("ETag"), body


def fetch_url(url, key=None, context=None):
    """``(status, headers, body bytes)`` of one GET; redirects are not followed."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))
    request = urllib.request.Request(url, headers={"X-API-Key": key} if key else {})
    try:
        with opener.open(request, timeout=REQUEST_TIMEOUT) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def wait_until_serving(process, port, key, log):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server on port {port} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if fetch(port, "/subfests", key)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    pytest.fail(f"server on port {port} did not answer within {START_TIMEOUT}s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def servers(url, key, tmp_path, count=2):
    """Start ``count`` `festival-api serve` processes on ``url``; yield their ports; stop them."""
    processes = []
    try:
        for i in range(count):
            port = free_port()
            log = tmp_path / f"serve-{i}.log"
            with open(log, "wb") as out:
                process = subprocess.Popen(
                    festival_api() + ["serve", "--host", "127.0.0.1", "--port", str(port), "--threads", "4"],
                    env=process_env(url), stdout=out, stderr=subprocess.STDOUT)
            processes.append((process, port, log))
        for process, port, log in processes:
            wait_until_serving(process, port, key, log)
        yield [port for _, port, _ in processes]
    finally:
        stop_processes(*(process for process, _, _ in processes))


def answers(ports, key):
    """Every port's answer to every path, with the JSON bodies parsed."""
    result = {}
    for port in ports:
        for path in PATHS:
            status, etag, body = fetch(port, path, key)
            result[port, path] = (status, etag, json.loads(body))
    return result


def test_two_processes_answer_alike_and_both_see_an_import(fresh_app, keys, fixture_data, tmp_path):
    _, url = fresh_app
    key = keys[SMALL]
    changed = copy.deepcopy(fixture_data[SMALL])
    visible_news(changed)[0]["title"] = NEW_TITLE  # visible by the servers' real clock

    with servers(url, key, tmp_path) as ports:
        before = answers(ports, key)
        again = answers(ports, key)  # the second round comes from the response cache
        assert before == again
        for path in PATHS:
            first, second = (before[port, path] for port in ports)
            assert first[0] == 200, first
            assert first == second, path  # same status, ETag and body from both processes
        revision = before[ports[0], "/news"][2]["context"]["data"]["revision"]
        assert all(b[2]["context"]["data"]["revision"] == revision for b in before.values())
        assert NEW_TITLE not in {n["title"] for n in before[ports[0], "/news"][2]["data"]}

        path = tmp_path / "changed.json"
        path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
        imported = subprocess.run(festival_api() + ["import", str(path)], env=process_env(url),
                                  capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr

        after = answers(ports, key)
        for port in ports:
            body = after[port, "/news"][2]
            assert body["context"]["data"]["revision"] == revision + 1
            assert NEW_TITLE in {n["title"] for n in body["data"]}
            assert all(a[2]["context"]["data"]["revision"] == revision + 1
                       for (p, _), a in after.items() if p == port)
        for path in PATHS:
            assert after[ports[0], path] == after[ports[1], path], path


# --- the nginx example in front of two processes ----------------------------------------------

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "nginx.conf.example"


def nginx_site(example, tmp_path, upstream_ports, http_port, https_port, cert, cert_key):
    """docs/nginx.conf.example with this test's ports, certificate and directories."""
    servers = "".join(f"    server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;\n" for port in upstream_ports)
    site, count = re.subn(r"(?m)^    server 127\.0\.0\.1:\d+ [^\n]*\n(?:    server 127[^\n]*\n)*", servers, example)
    assert count == 1, "the example's upstream block changed shape"
    replacements = [
        (r"(?m)^\s*listen \[::\]:\d+[^;]*;\n", ""),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen 443 ", f"listen 127.0.0.1:{https_port} "),
        (r"/etc/letsencrypt/live/api\.festival\.example/fullchain\.pem", str(cert)),
        (r"/etc/letsencrypt/live/api\.festival\.example/privkey\.pem", str(cert_key)),
        (r"/var/cache/nginx/festival-api", str(tmp_path / "cache")),
        (r"/var/log/nginx/", f"{tmp_path}/"),
    ]
    for pattern, replacement in replacements:
        site, count = re.subn(pattern, replacement, site)
        assert count >= 1, f"the example no longer contains {pattern!r}"
    return site


@pytest.fixture
def nginx(tmp_path):
    """``start(upstream ports, events="") -> (http port, https port)``: the example config,
    running (``events``: the body of nginx's ``events`` block)."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binary is None or shutil.which("openssl") is None:
        pytest.skip("nginx and openssl are needed to run docs/nginx.conf.example")
    processes = []

    def start(upstream_ports, events=""):
        cert, cert_key = tmp_path / "cert.pem", tmp_path / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=api.festival.example", "-keyout", str(cert_key), "-out", str(cert)],
                       check=True, capture_output=True, timeout=60)
        http_port, https_port = free_port(), free_port()
        site = nginx_site(EXAMPLE.read_text(), tmp_path, upstream_ports, http_port, https_port, cert, cert_key)
        (tmp_path / "site.conf").write_text(site)
        temp_dirs = "".join(f"    {name}_temp_path {tmp_path}/{name};\n"
                            for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (tmp_path / "nginx.conf").write_text(
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{{events}}}\n"
            + f"http {{\n{temp_dirs}    include {tmp_path}/site.conf;\n}}\n")
        checked = subprocess.run([binary, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                                 capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
        log = tmp_path / "nginx.out"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [binary, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
                stdout=out, stderr=subprocess.STDOUT)
        processes.append(process)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", https_port), timeout=1):
                return http_port, https_port
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"nginx did not start:\n{log.read_text()}\n{(tmp_path / 'error.log').read_text()}")
            time.sleep(0.1)

    yield start
    stop_processes(*processes)


def test_nginx_example_logs_no_query_string(seeded, keys, nginx, tmp_path):
    """A query can hold a private value (admNoPattern): nginx's access log keeps the path only."""
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    secret = "ADM-2026-0001"
    with servers(seeded[0], keys[BIG], tmp_path) as ports:
        http_port, https_port = nginx(ports)
        guessed = fetch_url(f"https://127.0.0.1:{https_port}{API}/candidates?subFestSlug=general&admNoPattern={secret}",
                            keys[BIG], context=insecure)
        assert guessed[0] == 400 and guessed[1]["Cache-Control"] == "private, no-store"
        fetch_url(f"http://127.0.0.1:{http_port}{API}/candidates?admNoPattern={secret}", keys[BIG])
    # The service is down: nginx's error log would write the request line, query and all.
    down = fetch_url(f"https://127.0.0.1:{https_port}{API}/candidates?subFestSlug=general&admNoPattern={secret}",
                     keys[BIG], context=insecure)
    assert down[0] in (502, 504)
    # nginx writes a request's access line once it has sent the answer: it may come a moment later.
    access_log, deadline = tmp_path / "festival-api.access.log", time.monotonic() + 5
    while f'"GET {API}/candidates HTTP/1.1" {down[0]} ' not in access_log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    logged = access_log.read_text()
    assert f'"GET {API}/candidates HTTP/1.1" {down[0]} ' in logged
    for log in tmp_path.glob("*error.log"):
        assert secret not in log.read_text() and "admNoPattern" not in log.read_text(), log.name
    assert f'"GET {API}/candidates HTTP/1.1" 400 ' in logged
    assert f'"GET {API}/candidates HTTP/1.1" 301 ' in logged
    assert secret not in logged and "admNoPattern" not in logged
    for i in range(len(ports)):
        assert secret not in (tmp_path / f"serve-{i}.log").read_text()


def test_nginx_example_balances_caches_per_key_and_redirects_to_https(seeded, keys, nginx, tmp_path):
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    with servers(seeded[0], keys[BIG], tmp_path) as ports:
        http_port, https_port = nginx(ports)
        base = f"https://127.0.0.1:{https_port}{API}"

        def get(path, key):
            return fetch_url(base + path, key, context=insecure)

        direct = fetch(ports[0], "/news", keys[BIG])
        first, second = get("/news", keys[BIG]), get("/news", keys[BIG])
        assert (first[0], first[2]) == (200, direct[2])
        assert first[1]["X-Cache-Status"] == "MISS" and second[1]["X-Cache-Status"] == "HIT"
        assert second[2] == direct[2]

        # The same URL with another festival's key is that festival's answer, not the cached one.
        other = get("/news", keys[SMALL])
        assert other[0] == 200 and other[1]["X-Cache-Status"] == "MISS"
        assert json.loads(other[2])["context"]["festival"]["slug"] == SMALL
        assert json.loads(second[2])["context"]["festival"]["slug"] == BIG

        # Errors are never cached.
        for _ in range(2):
            refused = get("/news", keys["revoked"])
            assert refused[0] == 401 and refused[1]["X-Cache-Status"] != "HIT"

        # Requests that miss the cache are spread over both processes (their access logs).
        for i in range(6):
            assert get(f"/downloads?cacheBuster={i}", keys[BIG])[0] == 200
        for i in range(len(ports)):
            assert '"/public-api/v1/downloads"' in (tmp_path / f"serve-{i}.log").read_text()

        # /healthz needs no key; plain HTTP is redirected to HTTPS.
        assert fetch_url(f"https://127.0.0.1:{https_port}/healthz", context=insecure)[0] == 200
        assert fetch_url(f"http://127.0.0.1:{http_port}{API}/news", keys[BIG])[0] == 301
