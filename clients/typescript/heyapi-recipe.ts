// The first steps of the result-day recipe (docs/clients.md) with the SDK @hey-api/openapi-ts
// generates (./heyapi/): the client is told once where the service is and how to send the key.
//
//   node out/heyapi-recipe.js BASE_URL API_KEY
//
// prints one JSON line per step; tests/test_typescript_client.py runs it against the service.
import { client } from "./heyapi/client.gen";
import { getCandidateResult, getProgrammeResult, listProgrammeResults } from "./heyapi/sdk.gen";

const [base, key] = process.argv.slice(2);
if (!base || !key) throw new Error("usage: node heyapi-recipe.js BASE_URL API_KEY");

// The document's paths are whole (/public-api/v1/...): the base URL is the origin alone. The
// operations declare the X-API-Key scheme; `auth` gives its value.
client.setConfig({ baseUrl: base, auth: () => key });

function show(step: string, facts: Record<string, unknown>): void {
  console.log(JSON.stringify({ step, ...facts }));
}

const latest = await listProgrammeResults({
  query: { subFestSlug: "general", hasResults: true, sortBy: "publishedAt", sortOrder: "desc", limit: 6 },
});
if (!latest.data) throw new Error(`programme-results: ${JSON.stringify(latest.error)}`);
show("programme-results", {
  codes: latest.data.data.map((item) => item.programme.code),
  revision: Number(latest.response.headers.get("X-Data-Revision")),
});

const code = latest.data.data[0].programme.code;
const programme = await getProgrammeResult({ query: { programCode: code, subFestSlug: "general" } });
if (!programme.data) throw new Error(`programme-result: ${JSON.stringify(programme.error)}`);
show("programme-result", {
  code: programme.data.programme.code,
  category: programme.data.programme.category?.name ?? null,
  places: programme.data.results.map((entry) => [entry.position, entry.participantName]),
});

const chestNo = programme.data.results.find((entry) => entry.candidate !== null)?.candidate?.chestNo ?? "1001";
const person = await getCandidateResult({ query: { chestNo, subFestSlug: "general" } });
if (!person.data) throw new Error(`candidate-result: ${JSON.stringify(person.error)}`);
show("candidate-result", {
  chestNo: person.data.candidate.chestNo,
  name: person.data.candidate.name,
  programmes: person.data.results.map((entry) => entry.programme.code),
});

// An error is the service's one JSON shape, typed.
const missing = await getProgrammeResult({ query: { programCode: "NO-SUCH-CODE", subFestSlug: "general" } });
show("error", { status: missing.response.status, message: missing.error?.message ?? null });
