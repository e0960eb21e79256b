"""Each stored measurement names the commit it was measured at, and hashes the sources it ran. The named commit must
hold exactly those sources: a record that names the wrong commit (say, from a copy whose .git lagged behind its
working tree) sends a reader to code that did not produce it. Skipped where the commit is not in this clone."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                                reason="needs git and a clone of the repository")
MEASURED = [p for p in sorted((ROOT / "results").glob("*/*/2*.json"))
            if json.loads(p.read_text())["kind"] == "measured"]


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)


def test_there_are_measured_records_to_check():
    assert len(MEASURED) >= 21, [p.name for p in MEASURED]


@pytest.mark.parametrize("path", MEASURED, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_the_named_commit_holds_the_measured_sources(path):
    prov = json.loads(path.read_text())["provenance"]
    if prov["git"]["dirty"]:
        pytest.skip("measured from a tree with uncommitted changes: no commit holds that code")
    commit = prov["git"]["commit"]
    if _git("cat-file", "-e", f"{commit}^{{commit}}").returncode:
        pytest.skip(f"commit {commit} is not in this clone (a shallow checkout?)")
    assert prov["source_hashes"], f"{path.name}: no source hashes"
    for rel, measured in prov["source_hashes"].items():
        blob = _git("show", f"{commit}:{rel}")
        assert blob.returncode == 0, f"{path.name}: {rel} does not exist at {commit[:8]}"
        at_commit = hashlib.sha256(blob.stdout).hexdigest()[:16]  # as store.file_hashes hashes a source
        assert at_commit == measured, f"{path.name}: {rel} at {commit[:8]} is not the code that was measured"
