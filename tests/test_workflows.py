"""The GitHub workflows: valid against GitHub's schema, clean under zizmor, and the GPU one never runs on PRs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed (it comes with the test extra: pip install -e '.[test]')")
    return str(path)


def test_two_workflows():
    assert {p.name for p in WORKFLOWS} == {"ci.yml", "gpu.yml"}


def test_schema():
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                          *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_zizmor_offline_has_no_findings():
    out = subprocess.run([tool("zizmor"), "--offline", "--no-progress", str(ROOT / ".github" / "workflows")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No findings" in out.stdout


def test_gpu_workflow_runs_only_on_push_to_main_and_dispatch():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "gpu.yml").read_text())
    on = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads a bare `on:` key as True
    assert set(on) == {"push", "workflow_dispatch"}
    assert on["push"]["branches"] == ["main"]
    assert wf["permissions"] == {}
    assert "self-hosted" in wf["jobs"]["measure"]["runs-on"]
    assert wf["jobs"]["measure"]["permissions"] == {"contents": "read"}
