"""A Python client generated from the OpenAPI document (openapi-python-client) has readable
names, types every always-present field without ``Unset``, and calls every operation against
the bundled festival; the document itself validates (openapi-spec-validator).

CI installs both tools (the ``test`` extra); the tests skip only where one is not installed.
"""
import datetime
import importlib
import importlib.resources
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import API, BIG

# Every operation of the document, by the name a generated client calls it.
OPERATIONS = {
    "listNews", "listGallery", "listDownloads",
    "listSubFests", "listProgrammes", "getProgrammeDetail", "listCandidates", "getCandidateDetail",
    "listTeams", "listCategories", "getFilterOptions",
    "listSchedules", "listProgrammeResults", "getProgrammeResult", "getCandidateResult",
    "listCandidateRegistrations", "listTopperPlaceholders", "listToppers", "getPageToppers", "getTopperRace",
    "listChanges",
}
GROUPS = {"public_content", "festival_structure", "schedules_and_results"}
PACKAGE = "festival_data_service_client"


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.fixture(scope="module")
def document(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


def test_the_document_validates(document):
    validator = pytest.importorskip("openapi_spec_validator")
    validator.validate(document)


@pytest.fixture(scope="module")
def client_package(document, tmp_path_factory):
    """The client openapi-python-client generates from the document, imported."""
    pytest.importorskip("openapi_python_client")
    workdir = tmp_path_factory.mktemp("client")
    (workdir / "openapi.json").write_text(json.dumps(document), encoding="utf-8")
    # No post hooks: formatting the code (ruff) is not what is tested here.
    (workdir / "config.json").write_text(json.dumps({"post_hooks": []}), encoding="utf-8")
    generated = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", "openapi.json", "--meta", "none",
         "--config", "config.json", "--fail-on-warning"],
        cwd=workdir, capture_output=True, text=True, timeout=300)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    sys.path.insert(0, str(workdir))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(workdir))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def operation_modules(package):
    """{operation name as the client spells it: module} of every generated operation."""
    api = importlib.import_module(f"{PACKAGE}.api")
    found = {}
    for group in (path.name for path in importlib.resources.files(api).iterdir() if path.is_dir()):
        if group.startswith("_"):
            continue
        for path in importlib.resources.files(f"{PACKAGE}.api.{group}").iterdir():
            if path.name.endswith(".py") and not path.name.startswith("_"):
                found[(group, path.name[:-3])] = importlib.import_module(f"{PACKAGE}.api.{group}.{path.name[:-3]}")
    return found


def test_the_client_is_grouped_and_named_after_the_document(client_package):
    modules = operation_modules(client_package)
    assert {group for group, _ in modules} == GROUPS
    assert {name for _, name in modules} == {snake(op) for op in OPERATIONS}
    models = importlib.import_module(f"{PACKAGE}.models")
    # No model named after an anonymous part of a schema ("ProgrammeCategoryType1Type0").
    assert [name for name in models.__all__ if re.search(r"Type\d|Item\d|Response\d", name)] == []


def test_always_present_fields_are_never_unset(client_package, document):
    models = importlib.import_module(f"{PACKAGE}.models")
    schemas = document["components"]["schemas"]
    checked = 0
    for name, schema in schemas.items():
        if schema.get("type") != "object" or "properties" not in schema:
            continue
        optional = set(schema["properties"]) - set(schema.get("required", []))
        # Only an error's per-parameter messages may be absent (they come with a 400 alone).
        assert optional <= ({"errors"} if name == "Error" else set()), (name, optional)
        model = getattr(models, name)
        annotations = inspect.get_annotations(model)
        for prop in schema["required"]:
            attribute = snake(prop)
            attribute = attribute if attribute in annotations else attribute + "_"  # `type` is `type_`
            assert attribute in annotations, (name, prop)
            assert "Unset" not in str(annotations[attribute]), (name, prop, annotations[attribute])
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("model, attribute, annotation", [
    ("Programme", "category", "None | CategoryRef"),  # a nullable reference
    ("Registration", "topic_status", "None | RegistrationTopicStatus"),  # a nullable closed set
    ("CandidateIdentity", "gender", "CandidateIdentityGender | None"),
    ("ProgrammeSummary", "status", "ProgrammeSummaryStatus"),  # a closed set
])
def test_nullable_references_and_closed_sets_are_typed_as_such(client_package, model, attribute, annotation):
    models = importlib.import_module(f"{PACKAGE}.models")
    found = str(inspect.get_annotations(getattr(models, model))[attribute]).replace("'", "")
    assert set(found.split(" | ")) == set(annotation.split(" | ")), found


@pytest.fixture(scope="module")
def client(client_package, app, keys):
    import httpx

    authenticated = importlib.import_module(f"{PACKAGE}.client").AuthenticatedClient
    return authenticated(base_url="http://festival.test", token=keys[BIG], prefix="", auth_header_name="X-API-Key",
                         raise_on_unexpected_status=True,
                         httpx_args={"transport": httpx.WSGITransport(app=app)})


def test_every_operation_answers_the_bundled_festival(client_package, client):
    modules = {name: module for (_, name), module in operation_modules(client_package).items()}
    called = set()

    def call(operation, **arguments):
        response = modules[snake(operation)].sync_detailed(client=client, **arguments)
        assert response.status_code == 200, (operation, arguments, response.content[:300])
        assert response.parsed is not None and type(response.parsed).__name__ != "Error", operation
        called.add(operation)
        return response.parsed

    for operation in ("listNews", "listGallery", "listDownloads", "getFilterOptions"):
        call(operation)
    sub_fest = next(s for s in call("listSubFests").data if s.slug == "general")
    for operation in ("listTeams", "listCategories", "listProgrammeResults", "listTopperPlaceholders"):
        assert call(operation, sub_fest_id=sub_fest.id).data, operation
    assert call("listSchedules", sub_fest_slug="general").data

    programme = call("listProgrammes", sub_fest_slug="general", has_results=True).data[0]
    assert call("getProgrammeDetail", sub_fest_program_id=programme.id).id == programme.id
    by_code = call("getProgrammeResult", program_code=programme.code, sub_fest_slug="general")
    assert by_code.programme.id == programme.id and by_code.results

    candidate = call("listCandidates", sub_fest_id=sub_fest.id, has_registration=[True]).data[0]
    detail = call("getCandidateDetail", sub_fest_candidate_id=candidate.id)
    assert detail.candidate.chest_no == candidate.candidate.chest_no
    assert call("getCandidateResult", chest_no=candidate.candidate.chest_no, sub_fest_slug="general").candidate
    assert call("listCandidateRegistrations", sub_fest_candidate_id=candidate.id).data

    placeholder = call("listTopperPlaceholders", sub_fest_slug="general").data[0]
    assert call("listToppers", topper_placeholder_id=placeholder.id).placeholder.id == placeholder.id
    assert call("getPageToppers", page_slug="results").toppers
    past = call("listToppers", topper_placeholder_id=placeholder.id, as_of=datetime.date(2026, 1, 15))
    assert past.context.as_of.requested and past.data
    race = call("getTopperRace", topper_placeholder_id=placeholder.id, top=3)
    assert len(race.entries) == 3 and race.data[-1].standings[0].entity_id == race.entries[0].entity_id
    changes = call("listChanges", since_revision=0)
    assert changes.data and changes.context.data.revision >= changes.data[0].revision

    assert called == OPERATIONS


def test_no_generated_name_shadows_an_import_or_a_builtin(client_package):
    """A field or parameter named like a module the generated code imports (``datetime``,
    ``httpx``, ``UUID``, a model class) or a builtin (``type``, ``id`` is fine as an attribute)
    would shadow it in the generated functions: every argument and field name is checked."""
    import ast
    import builtins

    shadowing = []
    root = Path(client_package.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        for node in ast.walk(tree):
            names = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [arg.arg for arg in (*node.args.args, *node.args.kwonlyargs)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            shadowing += [(path.relative_to(root).as_posix(), name) for name in names
                          if name in imported or (name in dir(builtins) and name not in ("id", "format"))]
    assert shadowing == []
