"""What a run records as its code covers what the experiment imports.

The runner records the modules an experiment's processes loaded (runner.py). This test reads the same thing
statically, as a second witness: every module the experiment's entry module imports at module level, transitively,
and every module it runs in another process (`-m kernelbook.x`, or `-c "from kernelbook.x import ..."`), must be among
the files its newest stored run hashed. A run of the decode chapters from before the runner recorded imports names a
hand-written list instead; the same check holds that list to the imports. Imports inside functions are left out of
the static reading (they run only when their function does; the runner sees those).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kernelbook import runner, store
from kernelbook.registry import EXPERIMENTS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MODULE = re.compile(r"kernelbook(?:\.[A-Za-z_]\w*)+")
CODE_IMPORT = re.compile(r"(?:^|[;\n])\s*(?:from|import)\s+(kernelbook(?:\.\w+)*)")


def module_file(name: str) -> Path | None:
    p = SRC.joinpath(*name.split("."))
    for f in (p / "__init__.py", p.with_suffix(".py")):
        if f.is_file():
            return f
    return None


def imported_names(file: Path) -> set[str]:
    """kernelbook modules a file imports at module level, or runs as a process (-m / -c strings anywhere)."""
    tree = ast.parse(file.read_text())
    out: set[str] = set()
    for node in tree.body:  # module level only
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if MODULE.fullmatch(text):
                out.add(text)
            out |= set(CODE_IMPORT.findall(text))
    return {n for n in out if n == "kernelbook" or n.startswith("kernelbook.")}


def _trivial(file: Path) -> bool:
    """A package __init__ that holds only its docstring cannot change what runs."""
    body = ast.parse(file.read_text()).body
    return file.name == "__init__.py" and all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                                              for n in body)


def static_closure(module: str) -> set[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        parts = todo.pop().split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            file = module_file(name)
            if file is None or name in seen:
                continue
            seen.add(name)
            todo += sorted(imported_names(file))
    files = {module_file(n) for n in seen if n not in runner.ENGINE}
    return {str(f.relative_to(ROOT)) for f in files if f is not None and not _trivial(f)}


def test_the_static_reading_sees_imports_and_processes(tmp_path):
    assert "src/kernelbook/copy_ceiling.py" in static_closure("kernelbook.chapters.machine.ceilings")
    assert "src/kernelbook/chapters/allocator/demos.py" in static_closure("kernelbook.chapters.allocator.experiments")
    assert "src/kernelbook/runner.py" not in static_closure("kernelbook.chapters.machine.ceilings")


@pytest.mark.parametrize("exp", EXPERIMENTS, ids=lambda e: e.name)
def test_the_stored_run_recorded_every_module_the_experiment_imports(exp):
    res = store.load(exp.name)
    recorded = set(res.provenance["source_hashes"])
    missing = static_closure(exp.entry.split(":")[0]) - recorded
    kind = "recorded imports" if "imported" in res.provenance else "declared sources (a run from before imports " \
                                                                     "were recorded)"
    assert not missing, f"{res.path.name}: its {kind} miss {sorted(missing)}; re-measure {exp.name}"
