"""The engine reads top to bottom (issue 59): each module of src/kernelbook/ imports only modules of its own layer or
below, at module level and inside functions, and the imports make no circle. Read from the source (ast), nothing run.

    site       macros, hooks, mdext, buildcache, prefill, notebooks, cli; a chapter's module that imports the page
    page       page                         the page API: what a snippet calls
    facts      factbook, factview, guards, across, the chapters' facts, guards and figures
    read       read                         a stored result as a page or a facts module reads it
    results    store, provenance, runner,   the stored runs, the runner that makes them, and the process it starts
               child
    base       the rest: paths, registry, schema, timing, the kernels, the decode model, ...
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
LAYERS = {"site": 5, "page": 4, "facts": 3, "read": 2, "results": 1, "base": 0}
NAMED = {"kernelbook.macros": "site", "kernelbook.hooks": "site", "kernelbook.mdext": "site",
         "kernelbook.buildcache": "site", "kernelbook.prefill": "site", "kernelbook.notebooks": "site",
         "kernelbook.cli": "site", "kernelbook.__main__": "site", "kernelbook.page": "page",
         "kernelbook.factbook": "facts", "kernelbook.factview": "facts", "kernelbook.guards": "facts",
         "kernelbook.across": "facts", "kernelbook.read": "read", "kernelbook.store": "results",
         "kernelbook.provenance": "results", "kernelbook.runner": "results", "kernelbook.child": "results",
         "kernelbook": "results"}  # the package's face: in a process the runner started, it records the imports
# the one import that runs back up, and why: the fusing-by-hand page quotes the claims ledger's verdict on the
# article's claim about its own kernels, and the ledger reads every chapter's facts, this one's among them; the
# import waits inside facts() until the facts are asked for
BACK_UP = {("kernelbook.chapters.fusing_by_hand.facts", "kernelbook.chapters.claims.ledger")}


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted((SRC / "kernelbook").rglob("*.py")):
        parts = p.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every kernelbook module `path` imports, wherever the import stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kernelbook")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kernelbook"):
            for a in node.names:
                found.add(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module)
    return {m for m in found if m in modules}


MODULES = _modules()
GRAPH = {m: _imports(p, MODULES) for m, p in MODULES.items()}


def layer(module: str) -> int:
    if module in NAMED:
        return LAYERS[NAMED[module]]
    if module.startswith("kernelbook.chapters."):
        if "kernelbook.page" in GRAPH[module] or "kernelbook.macros" in GRAPH[module]:
            return LAYERS["site"]  # a chapter's tables and figures for its snippets
        return LAYERS["facts"]
    return LAYERS["base"]


def test_no_module_imports_a_layer_above_its_own():
    up = sorted((m, d) for m, ds in GRAPH.items() for d in ds if layer(d) > layer(m) and (m, d) not in BACK_UP)
    assert not up, "imports that run back up: " + "; ".join(f"{m} -> {d}" for m, d in up)


def test_the_one_import_back_up_is_still_needed():
    for m, d in BACK_UP:
        assert d in GRAPH[m], f"{m} no longer imports {d}: drop it from BACK_UP"


def test_the_imports_make_no_circle():
    seen: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(m: str, path: list[str]) -> None:
        seen[m] = 1
        for d in sorted(GRAPH[m]):
            if (m, d) in BACK_UP or d == m:
                continue
            assert seen.get(d) != 1, "a circle: " + " -> ".join([*path[path.index(d):], d])
            if d not in seen:
                walk(d, [*path, d])
        seen[m] = 2

    for m in sorted(GRAPH):
        if m not in seen:
            walk(m, [m])


def test_the_engine_reads_no_private_module_of_another_package():
    for m, p in MODULES.items():
        if m == "kernelbook.buildcache":
            continue  # block_ids: the one adapter to markdown-exec (tests/test_buildcache.py)
        assert "_internal" not in p.read_text(), f"{m} imports another package's private module"
