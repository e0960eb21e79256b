"""Each stored measurement names the commit it was measured at, and hashes the sources it ran. The repository's
history must bear that out (kernelbook.provenance.git_problems): the commit is in it, the tree was clean, the commit
holds exactly those sources, the run started after that commit was made and before the commit that added its file,
and no fixture sits among the results. A record that names the wrong commit (say, from a copy whose .git lagged
behind its working tree) sends a reader to code that did not produce it. A commit missing from a shallow clone is
skipped (nothing can be told there); in a full clone it fails.

What this cannot prove: that the numbers were measured at all. Copying a real run's provenance under other data
passes every check here; see the README ("What CI can prove about a result")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelbook import paths, provenance

ROOT = Path(__file__).parents[1]
pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                                reason="needs git and a clone of the repository")
# the results the store reads: results/, or the folders KERNELBOOK_RESULTS names (the GPU workflow's merged ones)


def measured_files() -> list[Path]:
    """Every file in an experiment's folder but the published records, whatever its name or content says of it: a
    run named 9999…, or one that calls itself a fixture, is read as the store reads it."""
    return [p for d in paths.results_dirs() for p in sorted(d.glob("*/*/*")) if p.name != "published.json"]


MEASURED = measured_files()


@pytest.fixture(scope="module")
def added():
    return provenance.added_times(ROOT)


def test_there_are_measured_records_to_check():
    assert len(MEASURED) >= 21, [p.name for p in MEASURED]


@pytest.mark.parametrize("path", MEASURED, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_the_history_bears_out_the_record(path, added):
    rel = paths.display(path)  # relative to the repository where it lies in it: how git names a committed file
    problems, skip = provenance.git_problems(json.loads(path.read_text()), ROOT, added.get(rel))
    if skip:
        pytest.skip(skip)
    assert not problems, f"{rel}: " + "; ".join(problems)
