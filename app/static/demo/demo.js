// Festival results page: sub-fests, today's schedule, latest results and a leaderboard,
// read from the public Festival Data API in the browser. Plain JavaScript, no build step.
//
// Configuration, for a page on any domain: ?api=https://.../public-api/v1&key=fds_... in the
// address bar (the page's form fills these in), or window.FESTIVAL_DEMO = {apiBase:
// ".../public-api/v1", festivals: [{key, name?}]} set before this script (`festival-api demo`
// serves it as demo-config.js). The address bar wins.
//
// Keeping fresh (the result-day recipe of docs/clients.md): the page loads each part once,
// then every POLL_SECONDS asks /changes?sinceRevision=N what changed after the revision it
// shows, and fetches again only the parts a change names. The browser's own cache revalidates
// its copy of an answer older than the service's max-age (If-None-Match), so an unchanged
// answer is a bodyless 304; the poll is no more frequent than that max-age (10 s by default).
"use strict";

(function () {
  const params = new URLSearchParams(window.location.search);
  const POLL_SECONDS = Math.max(1, Number(params.get("poll")) || 30);
  const config = window.FESTIVAL_DEMO || {};
  const apiBase = (params.get("api") || config.apiBase || "/public-api/v1").replace(/\/+$/, "");
  const keyInAddress = params.get("key");
  // Keys set for this page are for its own API: another address in the address bar has none.
  let festivals = params.get("api") ? [] : (config.festivals || []).filter((f) => f.key !== keyInAddress);
  if (keyInAddress) festivals = [{ key: keyInAddress }].concat(festivals);

  // revision: the data revision the page shows (context.data.revision of its answers).
  // asOf: the festival day whose end the leaderboard shows ("" for now); days: the festival's days.
  const state = { key: null, timezone: undefined, subFest: null, placeholderId: null, timer: null, revision: null,
                  asOf: "", days: "", placeholders: [] };

  // --- talking to the API ----------------------------------------------------------------

  async function api(path, query, key) {
    const url = new URL(apiBase + path, window.location.href);
    for (const [name, value] of Object.entries(query || {})) {
      if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
    }
    // The default cache mode: the browser reuses a preflight's answer for this address (with
    // "no-cache" it would send one before every request) and revalidates its copy
    // (If-None-Match) once the copy is older than the service's max-age, reusing it on a 304.
    const response = await fetch(url, { headers: { "X-API-Key": key || state.key } });
    let body = null;
    try { body = await response.json(); } catch (ignored) { /* not JSON */ }
    if (!response.ok) {
      const error = new Error((body && body.message) || "HTTP " + response.status);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  // Sort fields are per endpoint; when one is not offered (400), ask without sorting.
  async function apiSorted(path, query, sortBy, sortOrder, key) {
    try {
      return await api(path, Object.assign({}, query, { sortBy: sortBy, sortOrder: sortOrder }), key);
    } catch (error) {
      if (error.status !== 400) throw error;
      return api(path, query, key);
    }
  }

  // The sub-fests of the festival of `key` (the first answer the page asks for; the picker
  // takes each festival's name from it, and the browser's copy serves the page after it).
  function subFestsOf(key) {
    return apiSorted("/subfests", { limit: 100 }, "displayOrder", "asc", key);
  }

  // --- building the page (text only: nothing from the API is parsed as HTML) ---------------

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined || child === "") continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function show(listId, nodes, emptyText) {
    const list = document.getElementById(listId);
    list.replaceChildren(...nodes);
    if (!nodes.length) list.append(el(list.tagName === "DIV" ? "p" : "li", "empty", emptyText));
  }

  function fail(listId, error) {
    const list = document.getElementById(listId);
    list.replaceChildren(el(list.tagName === "DIV" ? "p" : "li", "error", "Could not load: " + error.message));
  }

  function nameOf(thing) {
    if (!thing) return "";
    return thing.displayName || thing.name || thing.label || thing.title || "";
  }

  // A team by its name, in the page's one language: a team's publicName may be in another
  // script (a house's Malayalam name), and a page that mixed the two would read unevenly.
  function teamName(team) {
    return team ? team.name || "" : "";
  }

  function programmeName(programme) {
    if (!programme) return "";
    const master = programme.program || programme.programme || programme.subFestProgram || {};
    return nameOf(master) || nameOf(programme);
  }

  function participantName(result) {
    const members = (result.members || []).map(nameOf).filter(Boolean).join(", ");
    return result.participantName || nameOf(result.candidate) || members || teamName(result.team) || "—";
  }

  function entrantName(entry) {
    return nameOf(entry.candidate) || teamName(entry.team) || nameOf(entry.section) || nameOf(entry.group)
      || nameOf(entry) || "—";
  }

  function ordinal(n) {
    const suffix = { 1: "st", 2: "nd", 3: "rd" }[n % 100 > 10 && n % 100 < 14 ? 0 : n % 10] || "th";
    return n + suffix;
  }

  function yearOf(date) {
    try { return new Intl.DateTimeFormat("en-US", { year: "numeric", timeZone: state.timezone }).format(date); }
    catch (ignored) { return String(date.getFullYear()); }
  }

  // A time in the festival's time zone, labelled with the zone's own name ("India Standard
  // Time", not "GMT+5:30"); dates of another year show the year.
  function formatTime(iso, withDate) {
    if (!iso) return "";
    const date = new Date(iso);
    const options = { hour: "2-digit", minute: "2-digit", timeZone: state.timezone, timeZoneName: "long" };
    if (withDate) {
      Object.assign(options, { weekday: "short", day: "numeric", month: "short" });
      if (yearOf(date) !== yearOf(new Date())) options.year = "numeric";
    }
    try { return new Intl.DateTimeFormat(undefined, options).format(date); }
    catch (ignored) { return date.toLocaleString(); }
  }

  // Start and end of today in the festival's time zone, as ISO 8601 with an offset.
  function todayRange() {
    const now = new Date();
    try {
      const parts = {};
      new Intl.DateTimeFormat("en-US", {
        timeZone: state.timezone, year: "numeric", month: "2-digit", day: "2-digit", timeZoneName: "longOffset",
      }).formatToParts(now).forEach((part) => { parts[part.type] = part.value; });
      const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName.slice(3);
      const day = parts.year + "-" + parts.month + "-" + parts.day;
      return [day + "T00:00:00" + offset, day + "T23:59:59" + offset];
    } catch (ignored) {
      const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
      return [start.toISOString(), new Date(start.getTime() + 86399999).toISOString()];
    }
  }

  // --- sections ----------------------------------------------------------------------------

  function renderContext(context) {
    if (!context || !context.festival) return;
    const festival = context.festival;
    state.timezone = festival.timezone || undefined;
    document.getElementById("festival-name").textContent = festival.name;
    document.title = festival.name + " — results";
    const dates = [festival.startDate, festival.endDate].filter(Boolean).join(" to ");
    document.getElementById("festival-meta").textContent = [festival.location, dates].filter(Boolean).join(" · ");
    fillDays(festival.startDate, festival.endDate);
    // After a 304 a body is the browser's copy, which shows the revision it was made at: the
    // page's revision only moves forward (a restore is a 409 from /changes, which starts over).
    if (context.data && (state.revision === null || context.data.revision > state.revision)) {
      state.revision = context.data.revision;
      document.body.dataset.revision = String(context.data.revision);
      document.getElementById("freshness").textContent = context.data.changedAt
        ? "Last updated " + formatTime(context.data.changedAt, true) + "." : "";
    }
  }

  // "after day N": one choice per festival day that has ended (today's is "now"), its value
  // the day's date (a date as asOf is the end of that day in the festival's time zone).
  function fillDays(start, end) {
    const today = todayRange()[0].slice(0, 10);
    if (!start || !end || state.days === start + end + today) return;
    state.days = start + end + today;
    const picker = document.getElementById("day-picker");
    const options = [el("option", null, "now")];
    options[0].value = "";
    const first = Date.parse(start + "T00:00:00Z");
    const last = Math.min(Date.parse(end + "T00:00:00Z"), Date.parse(today + "T00:00:00Z") - 86400000);
    for (let n = 1, time = first; time <= last && n <= 60; n += 1, time += 86400000) {
      const option = el("option", null, "after day " + n);
      option.value = new Date(time).toISOString().slice(0, 10);
      options.push(option);
    }
    picker.replaceChildren(...options);
    if (![...picker.options].some((o) => o.value === state.asOf)) state.asOf = "";
    picker.value = state.asOf;
    document.getElementById("day-switch").hidden = options.length < 2;
  }

  async function loadSubFests() {
    const body = await subFestsOf(state.key);
    renderContext(body.context);
    const wanted = window.location.hash.slice(1);
    const subFests = body.data || [];
    show("subfest-list", subFests.map((subFest) => {
      const button = el("button", "chip", subFest.name);
      button.type = "button";
      button.dataset.slug = subFest.slug;
      button.addEventListener("click", () => selectSubFest(subFest));
      return el("li", null, button);
    }), "No sub-fests published yet.");
    const first = subFests.find((s) => s.slug === wanted) || subFests[0];
    if (first) selectSubFest(first);
  }

  async function loadSchedule(subFest) {
    const [from, to] = todayRange();
    const only = { subFestSlug: subFest.slug };
    try {
      let body = await apiSorted("/schedules",
        Object.assign({ scheduledAtFrom: from, scheduledAtTo: to, limit: 50 }, only), "scheduledAt", "asc");
      let title = "Today's schedule";
      if (!(body.data || []).length) {
        body = await apiSorted("/schedules",
          Object.assign({ scheduledAtFrom: new Date().toISOString(), limit: 8 }, only), "scheduledAt", "asc");
        title = "Coming up";
      }
      document.getElementById("schedule-title").textContent = title;
      const withDate = title !== "Today's schedule";
      show("schedule-list", (body.data || []).map((item) => el("li", "row",
        timeElement(item.scheduledAt, withDate),
        el("span", "what", programmeName(item.subFestProgram || item.subFestProgramme || item.programme)),
        el("span", "where muted", [nameOf(item.venue), nameOf(item.subFest)].filter(Boolean).join(" · ")),
      )), "Nothing scheduled.");
    } catch (error) {
      fail("schedule-list", error);
    }
  }

  function timeElement(iso, withDate) {
    const node = el("time", "when", formatTime(iso, withDate));
    if (iso) node.dateTime = iso;
    return node;
  }

  function resultRow(result) {
    const place = result.position ? ordinal(result.position) : "";
    const details = [result.grade ? "Grade " + result.grade : "",
      teamName(result.team), result.points ? result.points + " pts" : ""].filter(Boolean).join(" · ");
    return el("li", "result" + (result.position && result.position <= 3 ? " podium p" + result.position : ""),
      el("span", "place", place), el("span", "who", participantName(result)), el("span", "muted", details));
  }

  async function loadResults(subFest) {
    try {
      const body = await apiSorted("/programme-results",
        { subFestId: subFest.id, hasResults: true, limit: 6 }, "publishedAt", "desc");
      show("results-list", (body.data || []).map((item) => {
        const programme = item.programme || {};
        const results = (item.results || []).slice().sort((a, b) =>
          (a.position || 99) - (b.position || 99) || (b.points || 0) - (a.points || 0));
        return el("article", "programme",
          el("h3", null, programmeName(programme), el("span", "code muted", programme.code)),
          el("p", "muted", [nameOf(programme.category), programme.publishedAt ? "published " + formatTime(programme.publishedAt, true) : ""].filter(Boolean).join(" · ")),
          el("ol", "results", ...results.slice(0, 5).map(resultRow)));
      }), "No results published yet.");
    } catch (error) {
      fail("results-list", error);
    }
  }

  async function loadLeaderboard(subFest) {
    try {
      const body = await apiSorted("/topper-placeholders", { subFestId: subFest.id, limit: 50 }, "displayOrder", "asc");
      const placeholders = body.data || [];
      state.placeholders = placeholders;
      const picker = document.getElementById("leaderboard-picker");
      picker.replaceChildren(...placeholders.map((p) => {
        const option = el("option", null, p.label);
        option.value = p.id;
        return option;
      }));
      document.getElementById("leaderboard-switch").hidden = placeholders.length < 2;
      if (!placeholders.some((p) => p.id === state.placeholderId)) {
        state.placeholderId = placeholders.length ? placeholders[0].id : null;
      }
      picker.value = state.placeholderId || "";
      await Promise.all([loadToppers(), loadRace()]);
    } catch (error) {
      fail("leaderboard-list", error);
    }
  }

  async function loadToppers() {
    if (!state.placeholderId) {
      show("leaderboard-list", [], "No leaderboard published yet.");
      return;
    }
    try {
      const body = await api("/toppers", { topperPlaceholderId: state.placeholderId, limit: 10, asOf: state.asOf });
      show("leaderboard-list", (body.data || []).map((entry) => el("li", "entry",
        el("span", "rank", (entry.tied ? "=" : "") + entry.rank),
        el("span", "who", entrantName(entry),
          entry.candidate && entry.team ? el("small", "muted", " " + teamName(entry.team)) : null),
        el("span", "points", entry.points + " pts"),
      )), "No points yet.");
    } catch (error) {
      fail("leaderboard-list", error);
    }
  }

  // The points race of the sub-fest's main team board (its first team leaderboard): one line
  // per team, cumulative points after each publication, drawn as a small inline SVG.
  function raceBoard() {
    return state.placeholders.find((p) => p.entityType === "team" && p.scopeType === "subfest")
      || state.placeholders.find((p) => p.entityType === "team");
  }

  async function loadRace() {
    const section = document.getElementById("race");
    const board = raceBoard();
    section.hidden = !board;
    if (!board) return;
    document.getElementById("race-title").textContent = "Points race: " + board.label;
    try {
      const body = await api("/topper-race", { topperPlaceholderId: board.id, top: 6, limit: 500 });
      drawRace(body.entries || [], body.data || []);
    } catch (error) {
      fail("race-legend", error);
    }
  }

  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawRace(entries, steps) {
    const chart = document.getElementById("race-chart");
    const [width, height, left, bottom] = [640, 240, 36, 20];
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
                              "aria-label": "Points after each publication of results" });
    root.dataset.steps = String(steps.length);
    if (!steps.length || !entries.length) {
      chart.replaceChildren();
      show("race-legend", [], "No points yet.");
      return;
    }
    const most = Math.max(1, ...steps[steps.length - 1].standings.map((s) => s.points));
    const x = (i) => left + (steps.length < 2 ? 0 : (i * (width - left - 8)) / (steps.length - 1));
    const y = (points) => height - bottom - (points * (height - bottom - 8)) / most;
    root.append(svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width, y2: height - bottom }),
                svg("line", { class: "axis", x1: left, y1: 0, x2: left, y2: height - bottom }),
                svg("text", { x: 2, y: 12 }, String(most)), svg("text", { x: 2, y: height - bottom }, "0"),
                svg("text", { x: left, y: height - 4 }, formatTime(steps[0].at, true)));
    const colours = entries.map((entry, i) => (entry.team && entry.team.colorCode) || COLOURS[i % COLOURS.length]);
    entries.forEach((entry, i) => {
      const points = steps.map((step, n) => x(n).toFixed(1) + "," + y(step.standings[i].points).toFixed(1));
      const line = svg("polyline", { class: "line", points: points.join(" "), stroke: colours[i] });
      line.append(svg("title", {}, entrantName(entry)));
      root.append(line);
    });
    chart.replaceChildren(root);
    show("race-legend", entries.map((entry, i) => {
      const swatch = el("span", "swatch");
      swatch.style.background = colours[i];
      return el("li", null, swatch, entrantName(entry) + " " + entry.points + " pts");
    }), "");
  }

  function selectSubFest(subFest) {
    state.subFest = subFest;
    for (const button of document.querySelectorAll("#subfest-list .chip")) {
      button.classList.toggle("active", button.dataset.slug === subFest.slug);
    }
    history.replaceState(null, "", "#" + subFest.slug);
    loadAll();
  }

  // Every part of the page, once (a new festival or sub-fest, or starting over).
  function loadAll() {
    clearTimeout(state.timer);
    if (state.subFest) {
      Promise.all([loadSchedule(state.subFest), loadResults(state.subFest), loadLeaderboard(state.subFest)])
        .finally(() => { document.body.dataset.loaded = "true"; });
    }
    state.timer = setTimeout(poll, POLL_SECONDS * 1000);
  }

  // Ask what changed after the revision shown; fetch again only the parts a change names.
  async function poll() {
    const subFest = state.subFest;
    try {
      if (!subFest || state.revision === null) return;
      let body;
      try {
        // the kinds the page shows (candidates' changes are for pages routed by chest number)
        body = await api("/changes", { sinceRevision: state.revision, limit: 100, kinds: "programme,leaderboard" });
      } catch (error) {
        // 409: the revision shown is ahead of the festival's (its data was loaded anew):
        // start over from what the festival has now.
        if (error.status === 409) { state.revision = null; loadSubFests(); return; }
        throw error;
      }
      const changes = body.data || [];
      const mine = changes.filter((c) => !c.subFestId || c.subFestId === subFest.id);
      const work = [];
      if (body.meta && body.meta.hasNextPage) {
        work.push(loadSchedule(subFest), loadResults(subFest), loadLeaderboard(subFest));  // too many to sort out
      } else {
        if (mine.some((c) => c.kind === "programme")) work.push(loadResults(subFest));
        if (mine.some((c) => c.kind === "programme" && c.action !== "results")) work.push(loadSchedule(subFest));
        const boards = mine.filter((c) => c.kind === "leaderboard");
        if (boards.some((c) => c.action !== "changed")) work.push(loadLeaderboard(subFest));
        else {
          // only the boards the page shows: /changes names every board that moved
          if (boards.some((c) => c.id === state.placeholderId)) work.push(loadToppers());
          const race = raceBoard();
          if (race && boards.some((c) => c.id === race.id)) work.push(loadRace());
        }
      }
      await Promise.all(work);
      renderContext(body.context);
    } catch (error) {
      document.getElementById("freshness").textContent = "Could not check for new results: " + error.message;
    } finally {
      if (state.subFest === subFest) {
        clearTimeout(state.timer);
        state.timer = setTimeout(poll, POLL_SECONDS * 1000);
      }
    }
  }

  function notice(text) {
    const node = document.getElementById("notice");
    node.textContent = text;
    node.hidden = false;
  }

  function useFestival(index) {
    state.key = festivals[index].key;
    state.subFest = null;
    state.placeholderId = null;
    state.revision = null;
    loadSubFests().catch((error) => {
      notice("The festival's data could not be loaded: " + error.message);
      if (error.status === 401 || !error.status) ask();
    });
  }

  // The picker names each festival as its own answers do (a key alone says nothing).
  function nameFestivals(picker) {
    festivals.forEach((festival, index) => {
      if (festival.name) return;
      subFestsOf(festival.key).then((body) => {
        const name = body.context && body.context.festival && body.context.festival.name;
        if (name) picker.options[index].textContent = festival.name = name;
      }).catch(() => { /* the picker keeps its placeholder */ });
    });
  }

  function ask() {
    const form = document.getElementById("connect");
    form.elements.api.value = params.get("api") || (config.apiBase && /^https?:/.test(config.apiBase) ? config.apiBase : "");
    form.hidden = false;
    document.body.dataset.loaded = "true";
  }

  function start() {
    if (!festivals.length) {
      ask();
      return;
    }
    const picker = document.getElementById("festival-picker");
    picker.replaceChildren(...festivals.map((f, i) => {
      const option = el("option", null, f.name || "Festival " + (i + 1));
      option.value = String(i);
      return option;
    }));
    document.getElementById("festival-switch").hidden = festivals.length < 2;
    if (festivals.length > 1) nameFestivals(picker);
    picker.addEventListener("change", () => useFestival(Number(picker.value)));
    document.getElementById("leaderboard-picker").addEventListener("change", (event) => {
      state.placeholderId = event.target.value;
      loadToppers();
    });
    document.getElementById("day-picker").addEventListener("change", (event) => {
      state.asOf = event.target.value;
      loadToppers();
    });
    useFestival(0);
  }

  start();
})();
