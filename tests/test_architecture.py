"""docs/architecture.md is a map that cannot drift: one screen (at most 300 words and one
picture), a line for every package, and every path and name it gives still there; the
other pages of the house (the glossary, the mechanisms, the figures) name only paths that
exist; and no two packages import each other, even through others, counting imports made
inside functions and those of a package's ``__init__``."""
import importlib.util
import os
import re

import pytest

from test_layout import CODE, EVERYTHING, IMPORTS, ROOT, _cycles

DOCS = os.path.join(ROOT, "docs")
MAP = os.path.join(DOCS, "architecture.md")
PAGES = ["architecture.md", "glossary.md", "mechanisms.md", "performance.md"]
PATH = re.compile(r"^(?:app|db|seed|schemas|tests|bench|docs|clients|\.ci)(?:/[\w.-]+)*/?$|^[\w-]+\.(?:py|cfg|md|txt)$")
NAME = re.compile(r"^[A-Za-z_]\w*$")
DOTTED = re.compile(r"^(?:app|db|seed|schemas)(?:\.\w+)+$")


def _read(name):
    with open(os.path.join(DOCS, name), encoding="utf-8") as fh:
        return fh.read()


def _prose(text):
    """The page without its fenced pictures."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def _items(text):
    """Paragraphs and list items: the unit in which a name is looked for in the paths beside it."""
    items, current = [], []
    for line in _prose(text).splitlines():
        if not line.strip() or line.startswith(("- ", "| ", "#")):
            if current:
                items.append(" ".join(current))
            current = [line] if line.strip() else []
        else:
            current.append(line)
    if current:
        items.append(" ".join(current))
    return items


def _quoted(text):
    return re.findall(r"`([^`\n]+)`", text)


def package_of(module):
    return module if EVERYTHING[module].endswith("__init__.py") else module.rpartition(".")[0]


PACKAGES = sorted({package_of(m) for m in CODE})


def test_the_map_is_one_screen_one_picture():
    text = _read("architecture.md")
    assert text.count("```") == 2
    assert len(_prose(text).split()) <= 300


def test_the_map_has_a_line_for_every_package():
    text = _read("architecture.md")
    lines = {line.split("`")[1] for line in text.splitlines() if line.startswith("- `")}
    assert sorted(p for p in PACKAGES if p.replace(".", "/") + "/" not in lines) == []
    assert sorted(line for line in lines if line.endswith("/") and line.rstrip("/").replace("/", ".") not in PACKAGES) == []


@pytest.mark.parametrize("page", PAGES)
def test_every_path_a_page_names_exists(page):
    named = {q for q in _quoted(_prose(_read(page))) if PATH.match(q.split("::")[0].split(" ")[0])}
    assert len(named) > 2
    missing = sorted(p for p in named if not os.path.exists(os.path.join(ROOT, p.split("::")[0].split(" ")[0])))
    assert missing == []


def _sources(paths):
    """The Python files a list of paths names (a folder: every one under it)."""
    for path in paths:
        full = os.path.join(ROOT, path)
        if full.endswith(".py") and os.path.isfile(full):
            yield full
        elif os.path.isdir(full):
            for base, _, files in os.walk(full):
                yield from (os.path.join(base, f) for f in files if f.endswith(".py"))


@pytest.mark.parametrize("page", ["architecture.md", "glossary.md"])
def test_every_name_a_page_gives_is_in_the_code_it_points_to(page):
    """A name in backticks (``FrontDoor``, ``Recompile``) is in one of the files or folders
    the same paragraph or list item names; a dotted module name is a module."""
    missing = []
    for item in _items(_read(page)):
        quoted = _quoted(item)
        paths = [q for q in quoted if PATH.match(q)]
        text = "".join(open(f, encoding="utf-8").read() for f in _sources(paths))
        for name in quoted:
            if DOTTED.match(name):
                if importlib.util.find_spec(name) is None:
                    missing.append(name)
            elif NAME.match(name) and text and not re.search(rf"\b{re.escape(name)}\b", text):
                missing.append(f"{name} (in {', '.join(paths)})")
    assert missing == []


def _package_graph():
    graph = {p: set() for p in PACKAGES}
    for module in CODE:
        for imported in IMPORTS[module]:
            if imported in CODE and package_of(imported) != package_of(module):
                graph[package_of(module)].add(package_of(imported))
    return graph


def test_no_two_packages_import_each_other_even_through_others():
    assert _cycles(_package_graph()) == []


def test_the_package_graph_sees_an_import_made_inside_a_function():
    """``app.cli`` imports the import pipeline only inside its commands: the edge is counted."""
    assert "seed.pipeline.write" in _package_graph()["app.cli"]
