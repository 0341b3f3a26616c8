"""The demo results page: `festival-api demo` serves it, and in a real headless Chromium it shows
the festival's sub-fests, latest results and a leaderboard read from the API, at a phone's width
and a laptop's, and keeps them fresh by polling /changes."""
import datetime
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import BIG, SMALL
from custom_apps import app_with  # noqa: F401  (fixture)
from fixture_rules import flag, private_values, publication, visible_programme_ids, visible_sub_fests

CHROMIUM = "/usr/bin/chromium"
# The festival the page opens on: the first key `festival-api demo` prints, the README's.
SHOWN = BIG
WIDTHS = (390, 1280)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_the_page_and_its_keys_exist_only_in_demo_mode(app_with, keys):
    production = app_with().test_client()
    assert production.get("/").status_code == 404
    assert production.get("/demo-config.js").status_code == 404
    assert production.get("/static/demo/demo.js").status_code == 404

    page_only = app_with(DEMO_PAGE=True).test_client()
    assert page_only.get("/").status_code == 200
    assert page_only.get("/demo/demo.js").status_code == 200
    assert page_only.get("/demo-config.js").status_code == 404  # no key without `festival-api demo`

    demo = app_with(DEMO_PAGE=True, DEMO_API_KEYS=[(SMALL, keys[SMALL])]).test_client()
    script = demo.get("/demo-config.js")
    assert script.status_code == 200 and script.headers["Cache-Control"] == "no-store"
    assert json.loads(script.get_data(as_text=True).split("=", 1)[1].rstrip(";\n")) == {
        "apiBase": "/public-api/v1", "festivals": [{"slug": SMALL, "key": keys[SMALL]}]}


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module's tests; each page is opened in a context of its own."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"needs Debian's chromium package at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def new_page(browser):
    """``new_page(width, height=844, **context options)``: a page in a new context, closed at the test's end."""
    contexts = []

    def open_page(width, height=844, **options):
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        return context.new_page()

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """`festival-api demo` on a loopback port with its own new database: (base url, {slug: key})."""
    workdir = tmp_path_factory.mktemp("demo")
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir}/demo.db", "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "demo", "--port", str(port)], cwd=workdir, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        printed = {}
        for line in process.stdout:
            found = re.match(r"^\s+([a-z0-9-]+)\s+(fds_\S+)$", line)
            if found:
                printed[found[1]] = found[2]
            if line.startswith("Demo results page"):
                break
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("festival-api demo did not start")
                time.sleep(0.1)
        yield base, printed, env["DATABASE_URL"]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def page_text(request, browser, tmp_path_factory):
    """The demo page after its first load in headless Chromium: text of each part of the page."""
    base, _, _ = request.getfixturevalue("demo_server")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{base}/")
        page.wait_for_selector("body[data-loaded=true]", timeout=20_000)
        page.screenshot(path=str(tmp_path_factory.mktemp("screens") / "demo.png"), full_page=True)
        return {
            "body": page.inner_text("body"),
            "festival": page.inner_text("#festival-name"),
            "sub_fests": page.locator("#subfest-list .chip").all_inner_texts(),
            "active": page.inner_text("#subfest-list .chip.active"),
            "programmes": page.locator("#results-list h3").evaluate_all(
                "nodes => nodes.map(n => n.firstChild.textContent)"),
            "participants": page.locator("#results-list .who").all_inner_texts(),
            "toppers": page.locator("#leaderboard-list .entry .who").evaluate_all(
                "nodes => nodes.map(n => n.firstChild.textContent)"),
            "errors": page.locator(".error").all_inner_texts(),
        }
    finally:
        context.close()


def first_sub_fest(data):
    return min(visible_sub_fests(data), key=lambda s: s["display_order"])


def test_demo_page_shows_the_festival_and_its_sub_fests(page_text, fixture_data):
    data = fixture_data[SHOWN]
    assert page_text["errors"] == []
    assert page_text["festival"] == data["festival"]["name"]
    assert page_text["sub_fests"] == [s["name"] for s in sorted(visible_sub_fests(data), key=lambda s: s["display_order"])]
    assert page_text["active"] == first_sub_fest(data)["name"]


def test_demo_page_shows_published_results_of_the_sub_fest(page_text, fixture_data):
    data = fixture_data[SHOWN]
    sub_fest = first_sub_fest(data)
    names = {p["id"]: p["name"] for p in data["programmes"]}
    visible = visible_programme_ids(data)
    with_results = {
        names[sp["programme"]] for sp in data["subFestProgrammes"]
        if sp["id"] in visible and sp["sub_fest"] == sub_fest["id"]
        and any(r["sub_fest_programme"] == sp["id"] and flag(r, "is_published") and flag(r, "is_public")
                for r in data["results"])
    }
    assert page_text["programmes"] and set(page_text["programmes"]) <= with_results
    people = ({c["name"] for c in data["candidates"]} | {t["name"] for t in data["teams"]}
              | {r["group_name"] for r in data["registrations"] if r.get("group_name")})
    assert any(name in people for name in page_text["participants"])


def test_demo_page_shows_a_leaderboard_from_the_api(page_text, demo_server, fixture_data):
    data = fixture_data[SHOWN]
    base, printed, _ = demo_server
    key = printed[SHOWN]

    def api(path):
        request = urllib.request.Request(f"{base}/public-api/v1{path}", headers={"X-API-Key": key})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    placeholders = api(f"/topper-placeholders?subFestId={first_sub_fest(data)['id']}&limit=50")["data"]
    first = min(placeholders, key=lambda p: p["displayOrder"])
    entries = api(f"/toppers?topperPlaceholderId={first['id']}&limit=10")["data"]
    assert page_text["toppers"] and len(page_text["toppers"]) == len(entries)
    known = ({c["name"] for c in data["candidates"]} | {t["name"] for t in data["teams"]}
             | {s["name"] for s in data["sections"]})
    assert page_text["toppers"][0].strip() in known


def test_demo_page_shows_nothing_hidden_or_private(page_text, fixture_data):
    text = page_text["body"]
    assert "HIDDEN" not in text
    assert not [value for value in private_values(fixture_data[SHOWN]) if value in text]


@pytest.fixture
def browser_page(demo_server, new_page):
    """``open(width, query="")``: the demo page loaded in headless Chromium at that width."""
    base, _, _ = demo_server

    def open_page(width, query="", before=None):
        page = new_page(width)
        if before:
            before(page)
        page.goto(f"{base}/{query}")
        page.wait_for_selector("body[data-loaded=true]", timeout=20_000)
        return page

    return open_page


# Elements that reach past the viewport, or past the page's own content box (the body
# inside its padding), and the document's scroll width.
WIDEST = """() => {
  const width = document.documentElement.clientWidth;
  const body = document.body.getBoundingClientRect();
  const style = getComputedStyle(document.body);
  const left = Math.max(0, body.left + parseFloat(style.paddingLeft));
  const right = Math.min(width, body.right - parseFloat(style.paddingRight));
  const over = [...document.querySelectorAll("body *")]
    .map((node) => [node, node.getBoundingClientRect()])
    .filter(([, box]) => box.width > 0 && (box.right > right + 0.5 || box.left < left - 0.5))
    .map(([node, box]) => `${node.tagName.toLowerCase()}.${node.className} ${Math.round(box.left)}..${Math.round(box.right)}`);
  return {width, page: [Math.round(left), Math.round(right)], scrollWidth: document.documentElement.scrollWidth, over};
}"""


def test_at_phone_width_no_element_is_wider_than_the_page(browser_page, demo_server, fixture_data):
    _, printed, _ = demo_server
    page = browser_page(390, f"?key={printed[BIG]}")  # the big festival: long names, many results
    page.wait_for_selector("#results-list .programme", timeout=20_000)
    assert page.inner_text("#festival-name") == fixture_data[BIG]["festival"]["name"]
    measured = page.evaluate(WIDEST)
    assert measured["width"] == 390
    assert measured["over"] == [] and measured["scrollWidth"] <= 390, measured


def schedule_answer(*moments):
    item = {"durationMinutes": 30, "venue": {"id": "0" * 32, "name": "Main stage"},
            "subFest": {"id": "1" * 32, "name": "Arts", "slug": "arts"},
            "subFestProgram": {"id": "2" * 32, "name": "Test programme", "code": "T-01"}}
    data = [{**item, "id": f"{i:032d}", "scheduledAt": moment} for i, moment in enumerate(moments)]
    meta = {"page": 1, "limit": 8, "total": len(data), "totalPages": 1, "hasNextPage": False,
            "hasPreviousPage": False}
    return json.dumps({"data": data, "meta": meta, "context": {}})


def test_coming_up_is_of_the_chosen_sub_fest_with_its_year_and_time_zone(browser_page, fixture_data):
    """Nothing is scheduled today, so the page lists what comes next (answers made up here)."""
    asked = []
    later = f"{datetime.date.today().year + 4}-02-19T04:30:00Z"

    def schedules(route):
        asked.append(route.request.url)
        today = "scheduledAtTo" in route.request.url
        route.fulfill(status=200, content_type="application/json",
                      body=schedule_answer() if today else schedule_answer(later))

    page = browser_page(1280, before=lambda page: page.route("**/public-api/v1/schedules?*", schedules))
    page.wait_for_function("document.querySelectorAll('#schedule-list time').length > 0")
    sub_fest = first_sub_fest(fixture_data[SHOWN])
    assert len(asked) == 2
    assert all(f"subFestSlug={sub_fest['slug']}" in url for url in asked), asked
    assert page.text_content("#schedule-title") == "Coming up"
    shown = page.inner_text("#schedule-list time")
    assert str(datetime.date.today().year + 4) in shown  # another year: shown
    assert "India Standard Time" in shown and "GMT" not in shown  # the festival's zone (Asia/Kolkata), by its name
    assert "10:00" in shown  # 04:30 UTC in that zone


# --- the page at a phone's width and a laptop's, for each bundled festival -------------------

# What a reader sees of each card: whether anything sticks out of a card or the page, the
# places shown per programme, and the text of the result and leaderboard cards.
MEASURE = """() => {
  const width = document.documentElement.clientWidth;
  const outside = (box, outer) => box.width > 0 && (box.right > outer.right + 0.5 || box.left < outer.left - 0.5);
  const clipped = [];
  for (const card of document.querySelectorAll(".card")) {
    const inner = card.getBoundingClientRect();
    for (const node of card.querySelectorAll("*")) {
      const box = node.getBoundingClientRect();
      if (outside(box, inner) || box.right > width) clipped.push(`${card.id}: ${node.tagName.toLowerCase()}#${node.id}`);
    }
  }
  const places = [...document.querySelectorAll("#results-list .programme")].map((card) => [
    card.querySelector(".code").textContent,
    [...card.querySelectorAll(".place")].map((n) => parseInt(n.textContent, 10)).filter((n) => n > 0)]);
  return {
    width, clipped, places, scrollWidth: document.documentElement.scrollWidth,
    festival: document.getElementById("festival-name").textContent,
    firstFestival: document.querySelector("#festival-picker option").textContent,
    cards: [...document.querySelectorAll("#results-list, #leaderboard-list")].map((n) => n.innerText).join("\\n"),
    pickerWidth: document.getElementById("leaderboard-picker").getBoundingClientRect().width,
  };
}"""
MALAYALAM = re.compile("[\u0d00-\u0d7f]")


@pytest.fixture(scope="module")
def screens(request, browser, demo_server):
    """{(width, festival slug): what MEASURE saw}, each page opened anew; the first key printed
    is the default, the other festival is opened by its key in the address."""
    from playwright.sync_api import expect

    base, printed, _ = demo_server
    seen = {}
    for width in WIDTHS:
        for slug in printed:
            context = browser.new_context(viewport={"width": width, "height": 844})
            try:
                page = context.new_page()
                page.goto(f"{base}/" + ("" if slug == next(iter(printed)) else f"?key={printed[slug]}"))
                page.wait_for_selector("body[data-loaded=true]", timeout=20_000)
                page.wait_for_selector("#leaderboard-list .entry", timeout=20_000)
                # The picker names each festival once its first answer is in.
                expect(page.locator("#festival-picker option").first).not_to_have_text(
                    re.compile(r"^Festival \d"), timeout=20_000)
                seen[width, slug] = page.evaluate(MEASURE)
            finally:
                context.close()
    return seen


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_no_card_clips_its_content(screens, width, slug):
    """The leaderboard's "Ranking" select (a long label) stays inside its card."""
    seen = screens[width, slug]
    assert seen["width"] == width and seen["scrollWidth"] <= width
    assert seen["clipped"] == [], seen["clipped"]
    assert seen["pickerWidth"] > 100


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_opens_on_the_festival_of_the_first_key_printed(screens, demo_server, fixture_data, width):
    _, printed, _ = demo_server
    assert list(printed)[0] == BIG  # the README's festival, whose key the `Try:` line uses
    seen = screens[width, BIG]
    name = fixture_data[BIG]["festival"]["name"]
    assert seen["firstFestival"] == name and seen["festival"] == name  # the picker shows names, not slugs


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_places_shown_start_at_first(screens, width, slug):
    seen = screens[width, slug]
    assert seen["places"]
    for code, places in seen["places"]:
        assert all(place <= ahead + 1 for ahead, place in enumerate(sorted(places))), (code, places)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("slug", [BIG, SMALL])
def test_group_and_individual_cards_name_teams_in_one_language(screens, fixture_data, width, slug):
    """Teams appear by their (English) name on every card: a group's and a school's alike."""
    text = screens[width, slug]["cards"]
    assert not MALAYALAM.search(text), MALAYALAM.findall(text)[:10]
    teams = {t["name"] for t in fixture_data[slug]["teams"]}
    assert any(team in text for team in teams)


@pytest.mark.parametrize("width", WIDTHS)
def test_docs_page_has_an_icon_and_explains_the_key_envelope_and_errors(demo_server, new_page, width):
    base, _, _ = demo_server
    page = new_page(width)
    failed = []
    page.on("response", lambda response: response.status >= 400 and failed.append(response.url))
    page.goto(f"{base}/public-api/v1/docs")
    page.wait_for_selector("text=The envelope.", timeout=20_000)
    icon = page.get_attribute('link[rel="icon"]', "href")
    assert page.request.get(f"{base}{icon}").status == 200
    info = page.inner_text(".information-container")
    assert failed == []
    assert all(words in info for words in ("X-API-Key", '"data"', '"meta"', '"context"', '"message"', "401"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# --- result day: a published result appears without a reload --------------------------------

def unpublished_programme(data):
    """A visible programme of the page's first sub-fest whose results are all still unpublished."""
    sub_fest = first_sub_fest(data)
    visible = visible_programme_ids(data)
    results = {}
    for result in data["results"]:
        results.setdefault(result["sub_fest_programme"], []).append(result)
    return next((p, results[p["id"]]) for p in data["subFestProgrammes"]
                if p["id"] in visible and p["sub_fest"] == sub_fest["id"] and p["status"] == "completed"
                and results.get(p["id"]) and not any(flag(r, "is_published") for r in results[p["id"]]))


def test_a_published_result_appears_without_a_reload(browser_page, demo_server, fixture_data, tmp_path):
    """The page polls /changes (nothing else while nothing changes); `import --update`
    publishes a programme's results, and the page shows them, the page never reloaded."""
    _, _, database_url = demo_server
    programme, results = unpublished_programme(fixture_data[SHOWN])
    page = browser_page(1280, "?poll=1")
    page.evaluate("window.notReloaded = true")
    asked = []
    page.on("request", lambda request: "/public-api/v1/" in request.url and asked.append(request.url))
    page.wait_for_timeout(2500)
    polled = [url.split("/public-api/v1")[1].split("?")[0] for url in asked]
    assert polled and set(polled) == {"/changes"}, polled
    assert programme["code"] not in page.inner_text("#results-list")

    now = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    update = tmp_path / "publish.json"
    update.write_text(json.dumps(publication(SHOWN, programme, results, now)), encoding="utf-8")
    asked.clear()
    imported = subprocess.run([sys.executable, "-m", "app.cli", "import", "--update", str(update)],
                              env={**os.environ, "DATABASE_URL": database_url}, capture_output=True, text=True,
                              timeout=120)
    assert imported.returncode == 0, imported.stderr
    from playwright.sync_api import expect

    # Waiting by selector, not by a script: the page's Content-Security-Policy forbids eval.
    expect(page.locator("#results-list .programme .code").first).to_have_text(programme["code"], timeout=20_000)
    assert page.evaluate("window.notReloaded") is True
    fetched = {url.split("/public-api/v1")[1].split("?")[0] for url in asked}
    assert "/programme-results" in fetched and "/subfests" not in fetched, fetched
    first = page.locator("#results-list .programme").first
    assert first.locator(".place").first.inner_text() == "1st"


def test_a_revision_ahead_of_the_festival_makes_the_page_start_over(browser_page):
    """/changes answering 409 (the festival's data was loaded anew, so the revision shown is
    ahead of it): the page loads its parts again, without a reload, and polls on."""
    answered = []

    def conflict(route):
        if not answered:
            answered.append(route.request.url)
            route.fulfill(status=409, content_type="application/json", body=json.dumps({
                "code": 409, "status": "Conflict", "message": "sinceRevision is ahead of the festival's revision."}))
        else:
            route.continue_()

    page = browser_page(1280, "?poll=1")
    page.evaluate("window.notReloaded = true")
    asked = []
    page.on("request", lambda request: "/public-api/v1/" in request.url and asked.append(request.url))
    page.route("**/public-api/v1/changes?*", conflict)
    page.wait_for_timeout(3500)
    paths = [url.split("/public-api/v1")[1].split("?")[0] for url in asked]
    assert answered and "/subfests" in paths and "/programme-results" in paths, paths
    assert paths.count("/changes") >= 2  # polling goes on after starting over
    assert page.evaluate("window.notReloaded") is True


# --- the page as a festival's own site ---------------------------------------------------------

DEMO_FILES = Path(__file__).resolve().parent.parent / "app" / "static" / "demo"


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory):
    """The page's three files copied onto another web server (another origin): its address."""
    root = tmp_path_factory.mktemp("festival-site")
    (root / "demo").mkdir()
    shutil.copy(DEMO_FILES / "index.html", root / "index.html")
    for name in ("demo.js", "demo.css"):
        shutil.copy(DEMO_FILES / name, root / "demo" / name)
    handler = functools.partial(QuietFiles, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def chromium(new_page):
    """``open(url, width, **context options)``: a page in headless Chromium, in a context of its own."""

    def open_page(url, width=1280, **options):
        page = new_page(width, **options)
        page.goto(url)
        page.wait_for_selector("body[data-loaded=true]", timeout=20_000)
        return page

    return open_page


def test_the_page_on_another_origin_works_given_the_address_and_key(chromium, elsewhere, demo_server, fixture_data):
    base, printed, _ = demo_server
    assert urllib.parse.urlsplit(elsewhere).port != urllib.parse.urlsplit(base).port
    query = urllib.parse.urlencode({"api": f"{base}/public-api/v1", "key": printed[SMALL]})
    page = chromium(f"{elsewhere}?{query}")
    page.wait_for_selector("#leaderboard-list .entry", timeout=20_000)
    assert page.inner_text("#festival-name") == fixture_data[SMALL]["festival"]["name"]
    assert page.locator("#results-list .programme").count() > 0
    assert page.locator(".error").all_inner_texts() == []
    assert page.is_hidden("#connect")


def test_the_page_on_another_origin_asks_for_the_address_and_key(chromium, elsewhere, demo_server, fixture_data):
    base, printed, _ = demo_server
    page = chromium(elsewhere)
    assert page.is_visible("#connect")
    page.fill("#connect input[name=api]", f"{base}/public-api/v1")
    page.fill("#connect input[name=key]", printed[BIG])
    page.click("#connect button")
    page.wait_for_selector("#leaderboard-list .entry", timeout=20_000)
    assert page.inner_text("#festival-name") == fixture_data[BIG]["festival"]["name"]
    assert page.is_hidden("#connect")


# Where the leaderboard is, in the page and in the window, and where the link to it is.
WHERE = """() => {
  const board = document.querySelector("#leaderboard h2").getBoundingClientRect();
  const entry = document.querySelector("#leaderboard-list .entry").getBoundingClientRect();
  const link = document.querySelector('.jump a[href="#leaderboard"]').getBoundingClientRect();
  return {inPage: Math.round(board.top + window.scrollY), top: Math.round(board.top),
          entryBottom: Math.round(entry.bottom), link: [Math.round(link.top), Math.round(link.bottom)],
          height: window.innerHeight, pageHeight: document.documentElement.scrollHeight};
}"""


def test_at_phone_width_the_leaderboard_is_one_tap_away(chromium, demo_server):
    base, _, _ = demo_server
    page = chromium(f"{base}/", 390, has_touch=True, is_mobile=True)
    page.wait_for_selector("#leaderboard-list .entry", timeout=20_000)
    before = page.evaluate(WHERE)
    assert before["inPage"] > before["height"], before  # the last card, far below the first screen
    assert 0 <= before["link"][0] and before["link"][1] <= before["height"], before  # its link on the first
    page.tap('.jump a[href="#leaderboard"]')
    after = page.evaluate(WHERE)
    if os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=str(Path(os.environ["SCREENSHOT_DIR"]) / "demo-390-after-one-tap.png"))
    print("leaderboard at 390 px:", before, after)
    # One tap: the leaderboard's heading and first entry are on the screen, below the links.
    assert before["link"][1] - before["link"][0] <= after["top"] < after["height"], (before, after)
    assert after["entryBottom"] <= after["height"], (before, after)


def test_the_picker_names_the_festivals_and_the_footer_speaks_to_visitors(chromium, demo_server, fixture_data):
    from playwright.sync_api import expect

    base, printed, _ = demo_server
    page = chromium(f"{base}/")
    names = [fixture_data[slug]["festival"]["name"] for slug in printed]
    expect(page.locator("#festival-picker option")).to_have_text(names, timeout=20_000)
    footer = page.inner_text("footer")
    assert "updates itself" in footer
    assert not [word for word in ("/public-api", "/changes", "revision", "API", "seconds") if word in footer], footer


def test_something_is_coming_up_in_the_demo(chromium, demo_server, fixture_data):
    """`festival-api demo` dates the festivals around today: the page's schedule is not empty,
    and programmes have a next schedule."""
    base, printed, _ = demo_server
    sub_fest = first_sub_fest(fixture_data[SHOWN])

    def api(path):
        request = urllib.request.Request(f"{base}/public-api/v1{path}", headers={"X-API-Key": printed[SHOWN]})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert api(f"/schedules?subFestSlug={sub_fest['slug']}&scheduledAtFrom={now}&limit=5")["data"]
    programmes = api(f"/programmes?subFestSlug={sub_fest['slug']}&limit=100")["data"]
    assert any(p["nextSchedule"] for p in programmes)
    page = chromium(f"{base}/")
    page.wait_for_selector("#schedule-list time", timeout=20_000)
    assert page.locator("#schedule-list .empty").count() == 0
    assert "India Standard Time" in page.inner_text("#schedule-list")


@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_of_the_site(chromium, demo_server, width, tmp_path):
    """The page as a visitor sees it (saved to SCREENSHOT_DIR when set, to look at)."""
    base, _, _ = demo_server
    page = chromium(f"{base}/", width)
    page.wait_for_selector("#leaderboard-list .entry", timeout=20_000)
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"demo-{width}.png"), full_page=True)
    page.screenshot(path=str(folder / f"demo-{width}-first-screen.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_points_race_is_drawn_and_the_day_picker_moves_the_board(browser_page, demo_server):
    """The race of the main team board is an inline SVG line per team; "after day 1" shows
    the leaderboard as it stood at the end of the festival's first day (/toppers?asOf=)."""
    base, printed, _ = demo_server
    key = printed[SHOWN]

    def api(path, **query):
        request = urllib.request.Request(f"{base}/public-api/v1{path}?{urllib.parse.urlencode(query)}",
                                         headers={"X-API-Key": key})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    page = browser_page(1280)
    page.wait_for_selector("#race-chart svg polyline", timeout=20_000)
    general = api("/subfests")["data"][0]
    boards = api("/topper-placeholders", subFestId=general["id"], limit=50, sortBy="displayOrder")["data"]
    team_board = next(b for b in boards if b["entityType"] == "team" and b["scopeType"] == "subfest")
    race = api("/topper-race", topperPlaceholderId=team_board["id"], top=6, limit=500)
    assert len(race["data"]) > 1
    chart = page.locator("#race-chart svg")
    assert chart.get_attribute("data-steps") == str(len(race["data"]))
    drawn = chart.bounding_box()
    assert drawn["width"] >= 900 and drawn["height"] >= 300, drawn  # the page's width, not a column's
    assert page.locator("#race-chart svg polyline").count() == len(race["entries"]) == 6
    # each line has a point per step, and rises to the team's current points at the right edge
    points = page.locator("#race-chart polyline").first.get_attribute("points").split()
    assert len(points) == len(race["data"])
    assert page.locator("#race-legend li").all_inner_texts()[0].endswith(f"{race['entries'][0]['points']:g} pts")

    shown = boards[0]
    now = [e["rank"] for e in api("/toppers", topperPlaceholderId=shown["id"], limit=10)["data"]]
    festival = api("/subfests")["context"]["festival"]
    first_day = festival["startDate"]
    then = api("/toppers", topperPlaceholderId=shown["id"], limit=10, asOf=first_day)
    assert then["context"]["asOf"]["requested"]
    names_then = [entry["candidate"]["name"] if entry["candidate"] else entry["name"] for entry in then["data"]]

    def listed():
        return page.locator("#leaderboard-list .entry .who").evaluate_all(
            "nodes => nodes.map(n => n.firstChild.textContent)")

    before = listed()
    assert len(before) == len(now)
    page.select_option("#day-picker", first_day)
    assert page.locator("#day-picker option").nth(1).inner_text() == "after day 1"
    # the demo's middle day is today: the days offered are those that have ended, before it
    offered = page.locator("#day-picker option").evaluate_all("nodes => nodes.map(n => n.value)")[1:]
    today = page.evaluate("() => new Intl.DateTimeFormat('en-CA', {timeZone: %r}).format(new Date())"
                          % festival["timezone"])
    assert offered and all(day < today for day in offered), (offered, today)
    assert len(offered) < (datetime.date.fromisoformat(festival["endDate"])
                           - datetime.date.fromisoformat(first_day)).days + 1
    page.wait_for_function("want => [...document.querySelectorAll('#leaderboard-list .entry .who')]"
                           ".map(n => n.firstChild.textContent).join('|') === want",
                           arg="|".join(names_then) if names_then else "", timeout=10_000) \
        if names_then else page.wait_for_selector("#leaderboard-list .empty", timeout=10_000)
    assert listed() != before
    page.select_option("#day-picker", "")
    page.wait_for_function("want => [...document.querySelectorAll('#leaderboard-list .entry .who')]"
                           ".map(n => n.firstChild.textContent).join('|') === want", arg="|".join(before),
                           timeout=10_000)
