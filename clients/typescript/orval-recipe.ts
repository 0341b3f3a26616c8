// The first steps of the result-day recipe (docs/clients.md) with orval's fetch client
// (./orval/, made by orval.config.ts): its calls go through festivalFetch (orval-fetch.ts),
// told once where the service is and which key to send.
//
//   node out/orval-recipe.js BASE_URL API_KEY
//
// prints one JSON line per step; tests/test_typescript_client.py runs it against the service.
import { getCandidateResult, getProgrammeResult, listProgrammeResults } from "./orval/api";
import { useFestival } from "./orval-fetch";

const [base, key] = process.argv.slice(2);
if (!base || !key) throw new Error("usage: node orval-recipe.js BASE_URL API_KEY");
useFestival(base, key);

function show(step: string, facts: Record<string, unknown>): void {
  console.log(JSON.stringify({ step, ...facts }));
}

const latest = await listProgrammeResults({
  subFestSlug: "general", hasResults: true, sortBy: "publishedAt", sortOrder: "desc", limit: 6,
});
if (latest.status !== 200) throw new Error(`programme-results: ${JSON.stringify(latest.data)}`);
show("programme-results", {
  codes: latest.data.data.map((item) => item.programme.code),
  revision: Number(latest.headers.get("X-Data-Revision")),
});

const code = latest.data.data[0].programme.code;
const programme = await getProgrammeResult({ programCode: code, subFestSlug: "general" });
if (programme.status !== 200) throw new Error(`programme-result: ${JSON.stringify(programme.data)}`);
show("programme-result", {
  code: programme.data.programme.code,
  category: programme.data.programme.category?.name ?? null,
  places: programme.data.results.map((entry) => [entry.position, entry.participantName]),
});

const chestNo = programme.data.results.find((entry) => entry.candidate !== null)?.candidate?.chestNo ?? "1001";
const person = await getCandidateResult({ chestNo, subFestSlug: "general" });
if (person.status !== 200) throw new Error(`candidate-result: ${JSON.stringify(person.data)}`);
show("candidate-result", {
  chestNo: person.data.candidate.chestNo,
  name: person.data.candidate.name,
  programmes: person.data.results.map((entry) => entry.programme.code),
});

// An error is the service's one JSON shape, typed by its status.
const missing = await getProgrammeResult({ programCode: "NO-SUCH-CODE", subFestSlug: "general" });
show("error", { status: missing.status, message: missing.status === 404 ? missing.data.message : null });
