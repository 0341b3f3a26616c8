"""TypeScript clients generated from the live OpenAPI document (clients/typescript/): the types of
openapi-typescript, the SDK of @hey-api/openapi-ts and orval's fetch client compile with
``tsc --strict``, and the result-day recipe (clients/typescript/recipe.ts, openapi-fetch) runs
with node against the service on a port: results listed, a programme's and a candidate's
results, the toppers, and a revalidation whose 304 hands back the answer held.

The packages are the versions in clients/typescript/package-lock.json, installed with
``npm ci`` once per lock file into a cache folder (``FDS_NODE_MODULES_CACHE``, else
``~/.cache/festival-data-service``). The tests skip where npm is missing; CI requires them.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import API, BIG
from test_multiprocess import festival_api, free_port, wait_until_serving

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "typescript"
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "recipe.ts", "heyapi-check.ts", "heyapi-recipe.ts",
           "orval-recipe.ts", "orval-fetch.ts", "orval.config.ts", "extensionless.mjs")


def run(command, cwd, timeout=300):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def node_modules():
    """The packages of clients/typescript/package-lock.json, installed once per lock file."""
    lock = (CLIENT / "package-lock.json").read_bytes()
    cache = Path(os.environ.get("FDS_NODE_MODULES_CACHE") or Path.home() / ".cache" / "festival-data-service")
    installed = cache / f"typescript-client-{hashlib.sha256(lock).hexdigest()[:16]}"
    if not (installed / "node_modules" / ".package-lock.json").exists():
        cache.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(dir=cache))
        for name in ("package.json", "package-lock.json"):
            shutil.copy(CLIENT / name, fresh / name)
        run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=fresh, timeout=600)
        try:
            fresh.rename(installed)  # all at once: a run beside this one sees all or nothing
        except OSError:  # another run installed the same lock file meanwhile: use its copy
            shutil.rmtree(fresh, ignore_errors=True)
    return installed / "node_modules"


@pytest.fixture(scope="module")
def served(seeded, keys, tmp_path_factory):
    """`festival-api serve` on a loopback port over the bundled festivals: its base URL."""
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {**os.environ, "DATABASE_URL": seeded[0], "LOG_LEVEL": "WARNING"}
    with open(log, "wb") as out:
        process = subprocess.Popen(festival_api() + ["serve", "--port", str(port), "--threads", "4"],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, port, keys[BIG], log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def compiled(served, tmp_path_factory):
    """A work folder with the live document, both generators' output and the compiled recipe;
    the generators' and the compiler's output."""
    if not shutil.which("npm") or not shutil.which("node"):
        pytest.skip("node and npm are not installed")
    work = tmp_path_factory.mktemp("typescript")
    for name in SOURCES:
        shutil.copy(CLIENT / name, work / name)
    (work / "node_modules").symlink_to(node_modules(), target_is_directory=True)
    with urllib.request.urlopen(f"{served}{API}/openapi.json", timeout=30) as response:
        (work / "openapi.json").write_bytes(response.read())
    bin_ = work / "node_modules" / ".bin"
    output = {
        "openapi-typescript": run([str(bin_ / "openapi-typescript"), "openapi.json", "-o", "generated/schema.ts"],
                                  cwd=work),
        "openapi-ts": run([str(bin_ / "openapi-ts"), "-i", "openapi.json", "-o", "heyapi",
                           "-c", "@hey-api/client-fetch"], cwd=work),
        # orval 7 (the last to run on node 20), its fetch client calling orval-fetch.ts (the
        # service's origin and key): no other package needed.
        "orval": run([str(bin_ / "orval"), "--config", "orval.config.ts"], cwd=work),
        # One strict compile of the recipe (emitted, to run), of openapi-typescript's types (a .ts
        # file, not a .d.ts, so that skipLibCheck leaves them checked), the whole @hey-api SDK and
        # orval's client; the packages' own declarations are not checked (skipLibCheck, as
        # `tsc --init` sets it).
        "tsc": run([str(bin_ / "tsc"), "-p", "tsconfig.json", "--strict"], cwd=work),
    }
    return work, output


def api_get(base, key, path, **params):
    request = urllib.request.Request(f"{base}{API}{path}?{urllib.parse.urlencode(params)}",
                                     headers={"X-API-Key": key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def current_revision(base, key):
    request = urllib.request.Request(f"{base}{API}/subfests", headers={"X-API-Key": key})
    with urllib.request.urlopen(request, timeout=30) as response:
        return int(response.headers["X-Data-Revision"])


def test_the_generated_clients_compile_strictly_without_errors(compiled):
    work, output = compiled
    assert (work / "generated" / "schema.ts").stat().st_size > 10_000
    assert (work / "heyapi" / "sdk.gen.ts").exists() and (work / "heyapi" / "types.gen.ts").exists()
    for tool, printed in output.items():
        assert "error" not in printed.lower(), (tool, printed[-2000:])
        assert "warn" not in printed.lower(), (tool, printed[-2000:])
    # Nullable references as `X | null`, in each generator's own words.
    schema = (work / "generated" / "schema.ts").read_text(encoding="utf-8")
    assert 'category: components["schemas"]["CategoryRef"] | null;' in schema
    assert "| (never | null)" not in schema
    types = (work / "heyapi" / "types.gen.ts").read_text(encoding="utf-8")
    assert "category: CategoryRef | null;" in types and "topicStatus: RegistrationTopicStatus | null;" in types
    orval = (work / "orval" / "api.ts").read_text(encoding="utf-8")
    assert "export type CandidateCategory = CategoryRef | null;" in orval
    assert "export type RegistrationTopicStatusProperty = RegistrationTopicStatus | null;" in orval
    assert (work / "out" / "recipe.js").exists()


def test_the_typescript_recipe_runs_against_the_live_service(compiled, served, keys):
    work, _ = compiled
    key = keys[BIG]
    done = subprocess.run(["node", "out/recipe.js", served, key], cwd=work, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = {line["step"]: line for line in map(json.loads, done.stdout.splitlines())}

    latest = api_get(served, key, "/programme-results", subFestSlug="general", hasResults="true",
                     sortBy="publishedAt", sortOrder="desc", limit=6)
    assert steps["programme-results"]["codes"] == [item["programme"]["code"] for item in latest["data"]]
    assert len(steps["programme-results"]["codes"]) == 6
    revision = current_revision(served, key)
    assert steps["programme-results"]["revision"] == revision == latest["context"]["data"]["revision"]

    code = latest["data"][0]["programme"]["code"]
    result = api_get(served, key, "/programme-result", programCode=code, subFestSlug="general")
    assert steps["programme-result"] == {
        "step": "programme-result", "code": code, "category": result["programme"]["category"]["name"],
        "places": [[entry["position"], entry["participantName"]] for entry in result["results"]]}

    chest_no = next(entry["candidate"]["chestNo"] for entry in result["results"] if entry["candidate"])
    person = api_get(served, key, "/candidate-result", chestNo=chest_no, subFestSlug="general")
    assert steps["candidate-result"] == {
        "step": "candidate-result", "chestNo": chest_no, "name": person["candidate"]["name"],
        "programmes": [entry["programme"]["code"] for entry in person["results"]]}

    board = api_get(served, key, "/topper-placeholders", subFestSlug="general", limit=1)["data"][0]
    toppers = api_get(served, key, "/toppers", topperPlaceholderId=board["id"], limit=3)
    assert steps["toppers"] == {"step": "toppers", "label": board["label"],
                                "ranks": [entry["rank"] for entry in toppers["data"]]}

    # The repeated list was a 304, answered from the copy held; the raw poll saw its 304 too.
    assert steps["revalidated"] == {"step": "revalidated", "notModified": 1, "same": True, "revision": revision}
    assert steps["changes"] == {"step": "changes", "changed": 0, "notModified": True}
    assert steps["types"] == {"step": "types", "nullableCategory": True, "nullableTopicStatus": True}


@pytest.mark.parametrize("recipe", ["heyapi-recipe", "orval-recipe"])
def test_the_heyapi_and_orval_recipes_run_in_node_against_the_live_service(compiled, served, keys, recipe):
    """docs/clients.md's recipes for the two other generators: the client told once where the
    service is and which key to send, its answers and its errors typed."""
    work, _ = compiled
    key = keys[BIG]
    done = subprocess.run(["node", "--import", "./extensionless.mjs", f"out/{recipe}.js", served, key], cwd=work,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = {line["step"]: line for line in map(json.loads, done.stdout.splitlines())}
    latest = api_get(served, key, "/programme-results", subFestSlug="general", hasResults="true",
                     sortBy="publishedAt", sortOrder="desc", limit=6)
    assert steps["programme-results"] == {"step": "programme-results", "revision": current_revision(served, key),
                                          "codes": [item["programme"]["code"] for item in latest["data"]]}
    code = latest["data"][0]["programme"]["code"]
    result = api_get(served, key, "/programme-result", programCode=code, subFestSlug="general")
    assert steps["programme-result"]["places"] == [[entry["position"], entry["participantName"]]
                                                   for entry in result["results"]]
    chest_no = steps["candidate-result"]["chestNo"]
    person = api_get(served, key, "/candidate-result", chestNo=chest_no, subFestSlug="general")
    assert steps["candidate-result"]["programmes"] == [entry["programme"]["code"] for entry in person["results"]]
    assert steps["error"] == {"step": "error", "status": 404, "message": "Programme not found."}
