// The result-day recipe of docs/clients.md with a typed client: the types openapi-typescript
// generates from the service's OpenAPI document (./generated/schema.ts) and openapi-fetch.
//
//   node out/recipe.js BASE_URL API_KEY
//
// prints one JSON line per step; tests/test_typescript_client.py runs it against the service.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];
// A nullable reference is the schema or null: `Programme["category"]` is `CategoryRef | null`.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const nullableCategory: Same<Schemas["Programme"]["category"], Schemas["CategoryRef"] | null> = true;
const nullableTopicStatus: Same<Schemas["Registration"]["topicStatus"],
  Schemas["RegistrationTopicStatus"] | null> = true;

const [base, key] = process.argv.slice(2);
if (!base || !key) throw new Error("usage: node recipe.js BASE_URL API_KEY");

function show(step: string, facts: Record<string, unknown>): void {
  console.log(JSON.stringify({ step, ...facts }));
}

// Answers kept by URL with their ETag. A repeated request sends the ETag as If-None-Match; a
// 304 (no body) is answered with the kept answer and the 304's own headers (its
// X-Data-Revision is the current revision), so every call below gets typed `data`.
const kept = new Map<string, { etag: string; body: string; headers: Headers }>();
let notModified = 0;
const revalidate: Middleware = {
  onRequest({ request }) {
    const held = kept.get(request.url);
    if (!held) return undefined;
    const headers = new Headers(request.headers);
    headers.set("If-None-Match", held.etag);
    return new Request(request, { headers });
  },
  async onResponse({ request, response }) {
    const held = kept.get(request.url);
    if (response.status === 304 && held) {
      notModified += 1;
      const headers = new Headers(held.headers);
      response.headers.forEach((value, name) => headers.set(name, value));
      return new Response(held.body, { status: 200, headers });
    }
    const etag = response.headers.get("ETag");
    if (response.ok && etag) {
      kept.set(request.url, { etag, body: await response.clone().text(), headers: response.headers });
    }
    return undefined;
  },
};

const api = createClient<paths>({ baseUrl: base, headers: { "X-API-Key": key } });
api.use(revalidate);

function required<T>(data: T | undefined, error: unknown, what: string): T {
  if (data === undefined) throw new Error(`${what}: ${JSON.stringify(error)}`);
  return data;
}

// 1. The latest results of the sub-fest.
async function latestResults() {
  const { data, error, response } = await api.GET("/public-api/v1/programme-results", {
    params: { query: { subFestSlug: "general", hasResults: true, sortBy: "publishedAt", sortOrder: "desc", limit: 6 } },
  });
  return { list: required(data, error, "programme-results"), revision: revisionOf(response) };
}

const { list: latest, revision } = await latestResults();
show("programme-results", {
  codes: latest.data.map((item) => item.programme.code),
  revision,
});

// 2. One programme's results, by its code.
const code = latest.data[0].programme.code;
const programme = await api.GET("/public-api/v1/programme-result", {
  params: { query: { programCode: code, subFestSlug: "general" } },
});
const result = required(programme.data, programme.error, "programme-result");
show("programme-result", {
  code: result.programme.code,
  category: result.programme.category?.name ?? null,
  places: result.results.map((entry) => [entry.position, entry.participantName]),
});

// 3. A candidate's results, by chest number (the first placed individual of that programme).
const placed = result.results.find((entry) => entry.candidate !== null);
const chestNo = placed?.candidate?.chestNo ?? "1001";
const candidate = await api.GET("/public-api/v1/candidate-result", {
  params: { query: { chestNo, subFestSlug: "general" } },
});
const person = required(candidate.data, candidate.error, "candidate-result");
show("candidate-result", {
  chestNo: person.candidate.chestNo,
  name: person.candidate.name,
  programmes: person.results.map((entry) => entry.programme.code),
});

// 4. The sub-fest's first leaderboard.
const boards = await api.GET("/public-api/v1/topper-placeholders", {
  params: { query: { subFestSlug: "general", limit: 1 } },
});
const board = required(boards.data, boards.error, "topper-placeholders").data[0];
const toppers = await api.GET("/public-api/v1/toppers", {
  params: { query: { topperPlaceholderId: board.id, limit: 3 } },
});
const ranked = required(toppers.data, toppers.error, "toppers");
show("toppers", { label: ranked.placeholder.label, ranks: ranked.data.map((entry) => entry.rank) });

// 5. Later: the same list again is revalidated; the 304 hands back the kept answer.
const again = await latestResults();
show("revalidated", {
  notModified,
  same: JSON.stringify(again.list) === JSON.stringify(latest),
  revision: again.revision,
});

// 6. The poll, without the middleware.
const raw = createClient<paths>({ baseUrl: base, headers: { "X-API-Key": key } });

// The festival's current revision: the X-Data-Revision header of every answer (a body's
// context.data.revision is the revision it was made at, older after a 304 when other things
// changed since).
function revisionOf(response: Response): number {
  return Number(response.headers.get("X-Data-Revision"));
}

// A 304 is neither `data` nor a readable `error`: look at the status first.
async function poll(sinceRevision: number, etag: string | null) {
  const { data, error, response } = await raw.GET("/public-api/v1/changes", {
    params: { query: { sinceRevision, limit: 100 }, header: etag ? { "If-None-Match": etag } : {} },
  });
  const revision = revisionOf(response); // the next sinceRevision
  if (response.status === 304) return { changes: null, etag, revision }; // nothing changed: keep what you show
  if (!data) throw new Error(error?.message ?? `/changes answered ${response.status}`);
  return { changes: data.data, etag: response.headers.get("ETag"), revision };
}

const firstPoll = await poll(revision, null);
const nextPoll = await poll(firstPoll.revision, firstPoll.etag);
show("changes", { changed: firstPoll.changes?.length ?? null, notModified: nextPoll.changes === null });

show("types", { nullableCategory, nullableTopicStatus });
