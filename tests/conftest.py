"""Shared test setup. Page and snippet tests render from tests/fixtures/results (synthetic, clearly marked)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "results"
PUBLISHED = ROOT / "results" / "nvidia-geforce-rtx-4060-laptop-gpu"

os.environ.setdefault("MPLBACKEND", "Agg")

# Without a GPU, Triton kernels run under its interpreter (fp32 logic only: its bf16 is not faithful). The flag is
# read when a kernel is decorated, so it is set here, before any test imports a kernel module, and only here: a
# test module that set it unconditionally would turn the GPU tests of a later module into interpreter runs.
try:
    import torch

    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"
except ImportError:
    pass


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject's addopts): a worker per core on a machine without a GPU; on a GPU machine one process,
    as its tests share one GPU and some need it to themselves (PYTEST_XDIST_AUTO_NUM_WORKERS overrides either)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return 0 if os.environ.get("TRITON_INTERPRET") != "1" else os.cpu_count() or 1


@pytest.fixture
def fixture_results(tmp_path, monkeypatch):
    """A results folder holding the synthetic fixtures plus the committed published (article) records."""
    d = tmp_path / "results"
    shutil.copytree(FIXTURES, d)
    if PUBLISHED.is_dir():
        shutil.copytree(PUBLISHED, d / PUBLISHED.name)
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(d))
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")
    monkeypatch.setenv("KERNELBOOK_GUARDS", "flag")  # the pages' words are the H200's, not the fixtures'
    return d


@pytest.fixture
def toy_schema(tmp_path, monkeypatch):
    """The schemas folder with one more: toy.exp, whose data may be any object (for tests with a toy experiment)."""
    from kernelbook import schema

    d = tmp_path / "schemas"
    shutil.copytree(schema.HERE, d)
    (d / "toy.exp.json").write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", '
                                    '"$defs": {"published": {"type": "object"}}}')
    monkeypatch.setattr(schema, "SCHEMAS", d)
    return d


def run_file(results: Path, name: str, machine: str = "nvidia-h200") -> Path:
    """The newest stored run of experiment `name` in a results folder (the fixtures hold one per experiment)."""
    runs = sorted((results / machine / name).glob("2*.json"))
    assert runs, f"no run of {name} on {machine} in {results}"
    return runs[-1]


def covering(first, second, ids=str):
    """Every pair of first x second as parameters. Under Triton's interpreter the default run takes one pair per
    value of `first` (the values of `second` in turn, so each appears too) and marks the rest slow: the full product
    runs in .ci/run. On a GPU every pair runs by default."""
    slow = pytest.mark.slow if os.environ.get("TRITON_INTERPRET") == "1" else ()
    return [pytest.param(a, b, id=f"{ids(a)}-{ids(b)}", marks=() if j == i % len(second) else slow)
            for i, a in enumerate(first) for j, b in enumerate(second)]


def _interpreted(mod) -> bool:
    return all(type(v).__name__ != "JITFunction" for v in vars(mod).values())


@pytest.fixture
def kernel():
    """kernel("swiglu") -> kernelbook.kernels.swiglu, re-imported under Triton's interpreter if something imported
    it before TRITON_INTERPRET was set (matvec first: the other decode kernels import its jit helpers)."""
    def load(name: str):
        mod = importlib.import_module(f"kernelbook.kernels.{name}")
        if os.environ.get("TRITON_INTERPRET") == "1" and not _interpreted(mod):
            importlib.reload(importlib.import_module("kernelbook.kernels.matvec"))
            mod = importlib.reload(mod)
        return mod
    return load


def compile_in_child(script: str, *args: str, timeout: int = 600) -> str:
    """Run `script` (python -c) in a child process without Triton's interpreter and return the last line it prints:
    under TRITON_INTERPRET, set for the tests without a GPU, kernels cannot be compiled for sm_90 (Triton ships
    ptxas, so they can be without a GPU)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    run = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site built once per session, strictly, from the committed results (or the one KERNELBOOK_SITE_DIR names,
    as .ci/run builds it)."""
    if os.environ.get("KERNELBOOK_SITE_DIR"):
        return Path(os.environ["KERNELBOOK_SITE_DIR"])
    site = tmp_path_factory.mktemp("built") / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELBOOK_")}
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                         cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=900,
                         env={**env, "KERNELBOOK_MODE": "replay", "NO_MKDOCS_2_WARNING": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    return site
