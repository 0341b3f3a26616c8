"""The layout tells the architecture (docs/architecture.md): read from every module's imports.

Top-level packages import each other one way only; ``db/`` imports no Flask; inside ``db/``
no room imports a room above it (infrastructure < source < compiled < compiler), the
request readers use only the compiled tables and the infrastructure, the compile step
never reaches into the readers, and the serving path (``db/serving``: revision, snapshot,
routing, the local copy, deadlines) sits above source and compiled, imported by no other
room and by ``app`` alone; inside ``app/`` the rooms are its stages (the server, the
door's steps, the views, the command line): nothing imports the command line, the views
import neither the server nor the door itself (only its parts, e.g. what a request is),
and neither the server nor the door imports the views; every module is imported by something; no two modules
import each other, even through others or from inside a function; no module imports another's
underscore name (a name shared between modules is public where it is defined). The map of
packages (docs/architecture.md) is held by tests/test_architecture.py.
"""
import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("app", "db", "schemas", "seed")

# Rooms of db/, lowest first; a module may import its own room and the rooms below it.
ROOMS = ("db", "db.source", "db.compiled", "db.compiler")
# The request readers are beside the compile step, not above it: these only.
READ_MAY_IMPORT = {"db", "db.compiled", "db.read"}
# The serving path is above source and compiled, beside the compile step and the readers.
SERVING_MAY_IMPORT = {"db", "db.source", "db.compiled", "db.serving"}
# Rooms of app/, one per stage; "app" is the factory (create_app), the settings and what
# every stage shares.
APP_ROOMS = ("app", "app.server", "app.door", "app.views", "app.cli")


def _module_name(path):
    relative = os.path.relpath(path, ROOT)[:-len(".py")].replace(os.sep, ".")
    return relative[:-len(".__init__")] if relative.endswith(".__init__") else relative


def _modules(*folders):
    """``{module name: path}`` of every Python file under ``folders``."""
    found = {}
    for folder in folders:
        for base, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith(".py"):
                    found[_module_name(os.path.join(base, name))] = os.path.join(base, name)
    return found


CODE = _modules(*PACKAGES)
EVERYTHING = {**CODE, **_modules("tests", "bench"), "wsgi": os.path.join(ROOT, "wsgi.py")}


def _package_of(module, path):
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def imports_of(module):
    """Every module ``module`` imports (at the top or inside a function), as full names.

    ``from a import b`` counts as importing ``a.b`` when that is a module, else ``a``.
    """
    path = EVERYTHING[module]
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in EVERYTHING)
    return found


IMPORTS = {module: imports_of(module) for module in EVERYTHING}


def _top(name):
    return name.partition(".")[0]


def room_of(module):
    """The room of a ``db`` or ``app`` module: its sub-package, or the top-level package
    (``db`` for the infrastructure, ``app`` for the factory and the settings)."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and EVERYTHING[module].endswith("__init__.py")):
        return ".".join(parts[:2])
    return parts[0]


def test_every_package_and_room_is_known():
    assert {_top(m) for m in CODE} == set(PACKAGES)
    rooms = {room_of(m) for m in CODE if _top(m) == "db"}
    assert rooms == {*ROOMS, "db.read", "db.serving"}
    assert {room_of(m) for m in CODE if _top(m) == "app"} == set(APP_ROOMS)


def test_no_two_top_level_packages_import_each_other():
    edges = {(_top(m), _top(i)) for m in CODE for i in IMPORTS[m] if _top(i) in PACKAGES and _top(i) != _top(m)}
    # any cycle between packages has a pair of packages reachable from each other
    reach = {p: {b for a, b in edges if a == p} for p in PACKAGES}
    changed = True
    while changed:
        changed = False
        for p in PACKAGES:
            more = set().union(*(reach[q] for q in reach[p])) - reach[p]
            if more:
                reach[p] |= more
                changed = True
    assert [p for p in PACKAGES if p in reach[p]] == [], sorted(edges)


@pytest.mark.parametrize("package, forbidden", [("db", "flask"), ("db", "werkzeug"), ("schemas", "flask"),
                                                ("schemas", "db")])
def test_a_package_does_not_import(package, forbidden):
    found = sorted(f"{m} imports {i}" for m in CODE if _top(m) == package
                   for i in IMPORTS[m] if _top(i) == forbidden)
    assert found == []


def _room_imports():
    for module in CODE:
        if _top(module) != "db":
            continue
        for imported in IMPORTS[module]:
            if _top(imported) == "db":
                yield module, room_of(module), room_of(imported)


def test_no_room_of_db_imports_a_room_above_it():
    found = sorted(f"{m} ({room}) imports {other}" for m, room, other in _room_imports()
                   if room not in ("db.read", "db.serving")
                   and (other in ("db.read", "db.serving") or ROOMS.index(other) > ROOMS.index(room)))
    assert found == []


def test_only_app_imports_the_serving_path():
    """A request's database is the app's (the front door's); the importer, the compile step
    and the readers never reach into it."""
    found = sorted(f"{m} imports {i}" for m in CODE if _top(m) != "app" and not m.startswith("db.serving")
                   for i in IMPORTS[m] if i.startswith("db.serving"))
    assert found == []


@pytest.mark.parametrize("room, may_import", [
    # the serving path: the source, the compiled tables and the infrastructure only
    ("db.serving", SERVING_MAY_IMPORT),
    # the request readers: the compiled tables and the infrastructure only
    ("db.read", READ_MAY_IMPORT),
])
def test_the_request_path_rooms_use_only_what_they_may(room, may_import):
    found = sorted(f"{m} imports {other}" for m, in_room, other in _room_imports()
                   if in_room == room and other not in may_import)
    assert found == []


def test_the_compile_step_does_not_reach_into_the_request_readers():
    found = sorted(f"{m} imports {i}" for m in CODE if m.startswith("db.compiler")
                   for i in IMPORTS[m] if i.startswith("db.read"))
    assert found == []


def _app_imports():
    for module in CODE:
        if _top(module) == "app":
            for imported in IMPORTS[module]:
                if _top(imported) == "app" and imported in CODE:
                    yield module, room_of(module), imported, room_of(imported)


def test_nothing_in_app_imports_the_command_line():
    found = sorted(f"{m} imports {i}" for m, room, i, other in _app_imports() if other == "app.cli" and room != "app.cli")
    assert found == []


@pytest.mark.parametrize("room, forbidden_rooms, forbidden_modules", [
    # a view reads what a request is (app.door.request), never the steps around it
    ("app.views", {"app.server", "app.cli"}, {"app", "app.door"}),
    ("app.door", {"app.views", "app.cli"}, {"app"}),
    # the server is given the app: of the door it uses parts (the access log), not the front door
    ("app.server", {"app.views", "app.cli"}, {"app", "app.door"}),
])
def test_a_stage_of_app_does_not_import(room, forbidden_rooms, forbidden_modules):
    """``app`` as a module is the factory (``create_app``); ``app.door`` the front door itself."""
    found = sorted(f"{m} imports {i}" for m, r, i, other in _app_imports()
                   if r == room and other != room and (other in forbidden_rooms or i in forbidden_modules))
    assert found == []


def _entry_point(module):
    """Run by name: the console script, ``python -m`` modules and scripts."""
    with open(EVERYTHING[module], encoding="utf-8") as fh:
        return "__name__ == \"__main__\"" in fh.read()


def test_every_module_is_imported_by_something():
    imported = set().union(*IMPORTS.values())
    unused = sorted(m for m in CODE if m not in imported and not _entry_point(m)
                    and not EVERYTHING[m].endswith("__init__.py"))
    assert unused == []


def _imported_names(module):
    """``(module imported, name or None)`` of every import in ``module``, at the top or inside a
    function; ``from a import b`` is ``(a.b, None)`` when ``a.b`` is a module, else ``(a, "b")``."""
    path = EVERYTHING[module]
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module
            if node.level:
                base = _package_of(module, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full, None) if full in EVERYTHING else (base, alias.name)


def _cycles(graph):
    """The groups of modules that import each other (Tarjan's strongly connected components)."""
    order, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(found)


def test_no_module_imports_itself_through_others_even_from_inside_a_function():
    graph = {m: {i for i, _ in _imported_names(m) if i in CODE and i != m} for m in CODE}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_three_modules():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_an_underscore_name_of_another():
    found = sorted(f"{m} imports {i}.{name}" for m in CODE for i, name in _imported_names(m)
                   if name and name.startswith("_") and not name.startswith("__") and i in CODE and i != m)
    assert found == []


def test_no_two_modules_of_db_define_the_same_public_name_for_different_things():
    """The source loaders and the request readers share no names (``list_schedules`` was once
    both a source query and a compiled reader)."""
    def names(module):
        with open(EVERYTHING[module], encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        found = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.Assign):
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        return {n for n in found if not n.startswith("_")}

    source = set().union(*(names(m) for m in CODE if room_of(m) == "db.source" if _top(m) == "db"))
    read = set().union(*(names(m) for m in CODE if _top(m) == "db" and room_of(m) == "db.read"))
    assert sorted(source & read) == []


@pytest.mark.parametrize("schema_names, reader_table", [
    ("schemas.programmes.PROGRAMME_SORT_NAMES", "db.read.programmes.PROGRAMME_SORTS"),
    ("schemas.candidates.CANDIDATE_SORT_NAMES", "db.read.candidates.CANDIDATE_SORTS"),
    ("schemas.categories.CATEGORY_SORT_NAMES", "db.read.categories.CATEGORY_SORTS"),
    ("schemas.downloads.DOWNLOAD_SORT_NAMES", "db.read.downloads.DOWNLOAD_SORTS"),
    ("schemas.gallery.IMAGE_SORT_NAMES", "db.read.gallery.IMAGE_SORTS"),
    ("schemas.news.NEWS_SORT_NAMES", "db.read.news.NEWS_SORTS"),
    ("schemas.registrations.REGISTRATION_SORT_NAMES", "db.read.registrations.REGISTRATION_SORTS"),
    ("schemas.schedules.SCHEDULE_SORT_NAMES", "db.read.schedules.SCHEDULE_SORTS"),
    ("schemas.subfests.SUB_FEST_SORT_NAMES", "db.read.subfests.SUB_FEST_SORTS"),
    ("schemas.teams.TEAM_SORT_NAMES", "db.read.teams.TEAM_SORTS"),
    ("schemas.toppers.PLACEHOLDER_SORT_NAMES", "db.read.toppers.PLACEHOLDER_SORTS"),
    ("schemas.toppers.ENTRY_SORT_NAMES", "db.read.toppers.ENTRY_SORTS"),
    ("schemas.enums.CHANGE_KINDS", "db.compiled.kinds.CHANGE_KINDS"),
    ("schemas.enums.CHANGE_ACTIONS", "db.compiled.kinds.CHANGE_ACTIONS"),
])
def test_the_public_names_of_schemas_are_the_ones_db_knows(schema_names, reader_table):
    """schemas/ names the sort fields and change kinds a request may send (and the OpenAPI
    document lists); db/ maps each to a column or writes it. Neither imports the other."""
    import importlib

    def value(dotted):
        module, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module), name)

    assert tuple(value(schema_names)) == tuple(value(reader_table))


SERVING_STATES = os.path.join(ROOT, "db", "serving", "STATES.md")


def test_every_test_the_serving_states_name_exists():
    """db/serving/STATES.md names the test that holds each transition: each is there."""
    with open(SERVING_STATES, encoding="utf-8") as fh:
        named = set(re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", fh.read()))
    assert len(named) > 20
    missing = []
    for path, name in sorted(named):
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            text = fh.read()
        if not re.search(rf"^def {name}\(", text, re.MULTILINE):
            missing.append(f"{path}::{name}")
    assert missing == []
