"""A festival website on another origin, in a real Chromium: `festival-api serve` on one port,
a page on another, and the page calls every operation of the API with `X-API-Key` by
`fetch` in the default cache mode.

Every call needs a CORS preflight (the key is a header no simple request may carry); the
browser refuses the call unless the preflight's answer is right. What the server receives is
read from its access log: the preflights, the data answers, and the 304s of the browser's
own cache revalidating a repeat. docs/clients.md quotes the preflight counts measured here.
"""
import contextlib
import http.server
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

from conftest import API, BIG, SMALL, stop_processes
from fixture_rules import publication
from test_demo_page import CHROMIUM, CHROMIUM_ARGS
from test_multiprocess import festival_api, fetch, free_port, wait_until_serving

# Short, so that a repeat after it is revalidated (a fresh copy is reused without asking).
MAX_AGE = 1
REPEATS = 5

# The website: a page whose `call` fetches one URL of the API and reports what the page sees.
PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>A festival site</title></head>
<body><script>
window.call = async function (url, key, mode) {
  const init = key ? { headers: { "X-API-Key": key } } : {};
  if (mode) init.cache = mode;
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let body = null;
    try { body = JSON.parse(text); } catch (ignored) { /* not JSON */ }
    return { status: response.status, body: body, text: text,
             etag: response.headers.get("ETag"), retryAfter: response.headers.get("Retry-After"),
             revision: response.headers.get("X-Data-Revision"),
             remaining: response.headers.get("X-RateLimit-Remaining") };
  } catch (error) {
    return { failed: String(error) };
  }
};
</script></body></html>
"""


class PageHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


class Service:
    """`festival-api serve` on a port, and what its access log says it received."""

    def __init__(self, url, tmp_path, name, **settings):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}{API}"
        self.log = tmp_path / f"{name}.log"
        env = {**os.environ, "DATABASE_URL": url, "DATABASE_READONLY": "true", "LOG_LEVEL": "INFO",
               "CACHE_MAX_AGE": str(MAX_AGE), **{k: str(v) for k, v in settings.items()}}
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                festival_api() + ["serve", "--host", "127.0.0.1", "--port", str(self.port), "--threads", "4"],
                env=env, stdout=out, stderr=subprocess.STDOUT)

    def requests(self):
        """(method, path, status) of every request the access log holds, in order."""
        found = []
        for line in self.log.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("logger") == "festival_api.access":
                found.append((entry["method"], entry["path"][len(API):], entry["status"]))
        return found

    def requests_after(self, count, at_least):
        """The requests logged after the first ``count``, once there are ``at_least`` of them
        (a line is written once its answer is sent)."""
        deadline = time.monotonic() + 10
        while True:
            new = self.requests()[count:]
            if len(new) >= at_least or time.monotonic() > deadline:
                time.sleep(0.3)  # and nothing more comes
                return self.requests()[count:]
            time.sleep(0.05)

    def stop(self):
        stop_processes(self.process)


def get_json(base, path, key, **params):
    status, _, body = fetch(int(base.split(":")[2].split("/")[0]), f"{path}?{urllib.parse.urlencode(params)}", key)
    assert status == 200, (path, params, body[:300])
    return json.loads(body)


def every_operation(base, key):
    """[(path, params)]: one call of each operation, with parameters of the bundled festival."""
    general = next(s for s in get_json(base, "/subfests", key)["data"] if s["slug"] == "general")
    programme = get_json(base, "/programmes", key, subFestSlug="general", hasResults="true")["data"][0]
    candidate = get_json(base, "/candidates", key, subFestId=general["id"], hasRegistration="true")["data"][0]
    placeholder = get_json(base, "/topper-placeholders", key, subFestSlug="general")["data"][0]
    return [
        ("/subfests", {}), ("/news", {}), ("/gallery", {}), ("/downloads", {}), ("/filters", {}),
        ("/teams", {"subFestId": general["id"]}),
        ("/categories", {"subFestId": general["id"]}),
        ("/schedules", {"subFestSlug": "general"}),
        ("/programmes", {"subFestSlug": "general", "hasResults": "true"}),
        ("/programme-detail", {"subFestProgramId": programme["id"]}),
        ("/programme-results", {"subFestId": general["id"], "hasResults": "true"}),
        ("/programme-result", {"programCode": programme["code"], "subFestSlug": "general"}),
        ("/candidates", {"subFestId": general["id"], "hasRegistration": "true"}),
        ("/candidate-detail", {"subFestCandidateId": candidate["id"]}),
        ("/candidate-result", {"chestNo": candidate["candidate"]["chestNo"], "subFestSlug": "general"}),
        ("/candidate-registrations", {"subFestCandidateId": candidate["id"]}),
        ("/topper-placeholders", {"subFestSlug": "general"}),
        ("/toppers", {"topperPlaceholderId": placeholder["id"]}),
        ("/page-toppers", {"pageSlug": "results"}),
        ("/topper-race", {"topperPlaceholderId": placeholder["id"]}),
        ("/changes", {"sinceRevision": 0}),
    ]


@pytest.fixture(scope="module")
def site(seeded, keys, tmp_path_factory):
    """(the service, a service with a budget of 2 requests a minute, the page's address, a
    Chromium browser)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Debian's chromium package at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    tmp_path = tmp_path_factory.mktemp("cross-origin")
    services = [Service(seeded[0], tmp_path, "service"),
                Service(seeded[0], tmp_path, "limited", RATELIMIT_DEFAULT="2 per minute")]
    page_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PageHandler)
    threading.Thread(target=page_server.serve_forever, daemon=True).start()
    try:
        for service in services:
            wait_until_serving(service.process, service.port, keys[BIG], service.log)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield services[0], services[1], f"http://127.0.0.1:{page_server.server_port}/", browser
            finally:
                browser.close()
    finally:
        page_server.shutdown()
        page_server.server_close()
        for service in services:
            service.stop()


def open_site(browser, address):
    """A page of the site in a browser context of its own: its own HTTP and preflight caches."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(address)
    return context, page


def call(page, url, key=None, mode=None):
    return page.evaluate("([url, key, mode]) => window.call(url, key, mode)", [url, key, mode])


def address(base, path, params):
    return f"{base}{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")


def test_the_page_is_on_another_origin(site):
    service, _, page_address, _ = site
    assert urllib.parse.urlsplit(page_address).port != service.port


def test_a_page_on_another_origin_calls_every_operation_and_its_cache_revalidates(site, keys, app):
    service, _, page_address, browser = site
    operations = every_operation(service.base, keys[BIG])
    spec = app.test_client().get(f"{API}/openapi.json").get_json()
    assert {path for path, _ in operations} == {path[len(API):] for path, item in spec["paths"].items() if "get" in item}

    context, page = open_site(browser, page_address)
    try:
        before = len(service.requests())
        first = [call(page, address(service.base, path, params), keys[BIG]) for path, params in operations]
        for (path, _), seen in zip(operations, first):
            assert "failed" not in seen, (path, seen)  # a refused preflight is "Failed to fetch"
            assert seen["status"] == 200 and seen["etag"], (path, seen)
            assert seen["revision"] == str(seen["body"]["context"]["data"]["revision"]), path  # exposed
            assert seen["body"]["context"]["festival"]["slug"] == BIG, path
        received = service.requests_after(before, 2 * len(operations))
        # One preflight per URL, then the call itself.
        assert received == [entry for path, _ in operations for entry in (("OPTIONS", path, 200), ("GET", path, 200))]

        time.sleep(MAX_AGE + 0.5)  # the browser's copies are stale now: a repeat revalidates them
        before = len(service.requests())
        again = [call(page, address(service.base, path, params), keys[BIG]) for path, params in operations]
        received = service.requests_after(before, len(operations))
        # No preflight (the browser keeps the first one's answer), and each answer a 304 the
        # browser's cache turns into its copy: the page sees a 200 with the same data.
        assert received == [("GET", path, 304) for path, _ in operations]
        for (path, _), seen, was in zip(operations, again, first):
            assert seen["status"] == 200 and seen["body"] == was["body"] and seen["etag"] == was["etag"], path
            assert seen["revision"] == was["revision"], path  # read from the 304's headers too
    finally:
        context.close()


ERRORS = {
    # name: (path, params, key (None: no key at all), status)
    "400": ("/news", {"limit": 0}, BIG, 400),
    "401 without a key": ("/news", {}, None, 401),
    "401 of a wrong key": ("/news", {}, "fds_not_a_key_of_this_service", 401),
    "404": ("/programme-detail", {"programCode": "NO-SUCH-CODE", "subFestSlug": "general"}, BIG, 404),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_reach_a_page_on_another_origin_as_readable_json(site, keys, case):
    service, _, page_address, browser = site
    path, params, key, status = ERRORS[case]
    context, page = open_site(browser, page_address)
    try:
        seen = call(page, address(service.base, path, params), keys.get(key, key))
    finally:
        context.close()
    assert "failed" not in seen, seen
    assert seen["status"] == status and seen["body"]["code"] == status and seen["body"]["message"], seen


def test_a_429_reaches_a_page_on_another_origin_with_its_retry_after(site, keys):
    _, limited, page_address, browser = site
    context, page = open_site(browser, page_address)
    try:
        url = address(limited.base, "/news", {})
        seen = [call(page, url, keys[SMALL], "no-store") for _ in range(3)]
    finally:
        context.close()
    assert [s.get("status") for s in seen] == [200, 200, 429], seen
    over = seen[-1]
    assert over["body"]["code"] == 429 and over["body"]["message"]
    assert int(over["retryAfter"]) > 0 and over["remaining"] == "0"


def preflights_for_repeats(site, key, mode):
    """(preflights, requests) the server received for REPEATS calls of one URL in ``mode``,
    each after the browser's copy went stale."""
    service, _, page_address, browser = site
    url = address(service.base, "/subfests", {"limit": 7})
    context, page = open_site(browser, page_address)
    try:
        before = len(service.requests())
        for _ in range(REPEATS):
            assert call(page, url, key, mode)["status"] == 200
            time.sleep(MAX_AGE + 0.2)
        received = service.requests_after(before, REPEATS)
    finally:
        context.close()
    return sum(method == "OPTIONS" for method, _, _ in received), received


def test_the_default_cache_mode_sends_one_preflight_where_no_cache_sends_one_per_request(site, keys):
    """The figures docs/clients.md quotes: the same URL called 5 times, each after the copy
    went stale, sends 1 preflight in the default cache mode and 5 with `cache: "no-cache"`."""
    default, received = preflights_for_repeats(site, keys[BIG], None)
    assert default == 1, received
    assert [status for method, _, status in received if method == "GET"] == [200] + [304] * (REPEATS - 1)
    no_cache, received = preflights_for_repeats(site, keys[BIG], "no-cache")
    assert no_cache == REPEATS, received
    doc = " ".join((Path(__file__).resolve().parent.parent / "docs" / "clients.md").read_text(encoding="utf-8").split())
    assert f"{REPEATS} calls of one address send {default} preflight" in doc
    assert f'`cache: "no-cache"` sends {no_cache}' in doc


@contextlib.contextmanager
def service_on_a_copy(seeded, keys, tmp_path, name):
    """``(service, database URL)``: `festival-api serve` over a private writable copy of the
    database."""
    from conftest import database_copy

    with database_copy(seeded[0], tmp_path) as url:
        service = Service(url, tmp_path, name)
        try:
            wait_until_serving(service.process, service.port, keys[BIG], service.log)
            yield service, url
        finally:
            service.stop()


def publish(url, tmp_path, programme, results, at):
    """Publish ``programme``'s ``results`` at ``at`` with `festival-api import --update`."""
    update = tmp_path / "publish.json"
    update.write_text(json.dumps(publication(BIG, programme, results, at)), encoding="utf-8")
    imported = subprocess.run(festival_api() + ["import", "--update", str(update)], timeout=120,
                              env={**os.environ, "DATABASE_URL": url}, capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr


def test_after_an_import_the_browsers_revalidated_copy_reads_the_new_revision(site, seeded, keys, fixture_data,
                                                                             tmp_path):
    """One programme's results are published: the page's repeat of an answer that did not
    change is still a 304 to the browser, which hands the page its copy with the festival's
    new revision in X-Data-Revision (read from the 304's headers)."""
    import datetime

    from test_demo_page import unpublished_programme

    _, _, page_address, browser = site
    programme, results = unpublished_programme(fixture_data[BIG])
    with service_on_a_copy(seeded, keys, tmp_path, "writable") as (service, url):
        context, page = open_site(browser, page_address)
        try:
            news = address(service.base, "/news", {"limit": 5})
            first = call(page, news, keys[BIG])
            assert first["status"] == 200

            now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            publish(url, tmp_path, programme, results, now)

            time.sleep(MAX_AGE + 0.5)
            before = len(service.requests())
            again = call(page, news, keys[BIG])
            assert service.requests_after(before, 1) == [("GET", "/news", 304)]
            assert again["status"] == 200 and again["body"] == first["body"]
            assert int(again["revision"]) > int(first["revision"]) == first["body"]["context"]["data"]["revision"]
        finally:
            context.close()

DOC = (Path(__file__).resolve().parent.parent / "docs" / "clients.md").read_text(encoding="utf-8")


def browser_recipe(base, key):
    """docs/clients.md's browser recipe as printed, calling the service at ``base`` with ``key``."""
    code = next(block for block in re.findall(r"```js\n(.*?)```", DOC, re.S) if "async function poll" in block)
    for placeholder in ('"https://api.example.org/public-api/v1"', '"fds_..."'):
        assert code.count(placeholder) == 1, placeholder
    return code.replace('"https://api.example.org/public-api/v1"', json.dumps(base)).replace('"fds_..."', json.dumps(key))


# What the recipe leaves to the page: how it renders (here: what it was given), and its timer
# (here: the test polls).
RECIPE_PAGE = """
window.rendered = [];
window.render = (items) => window.rendered.push(["results", items.length]);
window.renderLeaderboard = (answer) => window.rendered.push(["board", answer.placeholder.id]);
window.setTimeout = () => 0;
"""


def test_the_browser_recipe_fetches_again_only_the_boards_its_page_shows(site, seeded, keys, fixture_data, tmp_path):
    """docs/clients.md's recipe in a page on another origin: it loads the latest results and
    its board; a poll while nothing changed asks /changes alone; after `import --update`
    publishes a programme's results, which moves several boards, the poll fetches the latest
    results and the page's own board again, and no other board."""
    from test_demo_page import unpublished_programme

    _, _, page_address, browser = site
    programme, results = unpublished_programme(fixture_data[BIG])
    with service_on_a_copy(seeded, keys, tmp_path, "recipe") as (service, url):
        context, page = open_site(browser, page_address)
        try:
            page.add_script_tag(content=RECIPE_PAGE)
            page.add_script_tag(content=browser_recipe(service.base, keys[BIG]))
            page.wait_for_function("window.rendered.length === 1 + BOARDS.length")
            shown = page.evaluate("BOARDS")
            assert len(shown) == 1 and sorted(page.evaluate("window.rendered")) == [["board", shown[0]], ["results", 6]]
            start = page.evaluate("revision")

            time.sleep(MAX_AGE + 0.5)
            before = len(service.requests())
            page.evaluate("() => poll()")
            asked = [r for r in service.requests_after(before, 2) if r[0] == "GET"]  # a new address: preflight
            assert asked == [("GET", "/changes", 200)]

            publish(url, tmp_path, programme, results, "2026-01-18T16:00:00Z")
            named = {c["id"] for c in get_json(service.base, "/changes", keys[BIG], sinceRevision=start,
                                               kinds="leaderboard", limit=100)["data"]}
            assert shown[0] in named and len(named - set(shown)) >= 2  # other boards moved too

            time.sleep(MAX_AGE + 0.5)
            page.evaluate("window.rendered = []")
            before = len(service.requests())
            page.evaluate("() => poll()")
            asked = sorted(r for r in service.requests_after(before, 3) if r[0] == "GET")
            assert asked == [("GET", "/changes", 200), ("GET", "/programme-results", 200), ("GET", "/toppers", 200)]
            assert sorted(page.evaluate("window.rendered")) == [["board", shown[0]], ["results", 6]]
            assert page.evaluate("revision") == start + 1
        finally:
            context.close()
