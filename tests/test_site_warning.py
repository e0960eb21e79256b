"""The stale warning on the built site: on every page that shows a number from a stale result, inline fields
included, and on no other page. One strict build over the fixtures with every run made fresh but one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelbook import registry, store

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # a whole-site build of its own (.ci/run runs it)
STALE = "fusing_by_hand.exactness"  # shown by its chapter's table and facts, and by the claims ledger


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("warning")
    results = tmp / "results"
    shutil.copytree(ROOT / "tests" / "fixtures" / "results", results)
    shutil.copytree(ROOT / "results" / "nvidia-geforce-rtx-4060-laptop-gpu",
                    results / "nvidia-geforce-rtx-4060-laptop-gpu")
    for path in results.glob("nvidia-h200/*/*.json"):
        if path.parent.name != STALE:
            rec = json.loads(path.read_text())
            declared = registry.get(path.parent.name).declared
            rec["provenance"]["source_hashes"] = store.file_hashes(["src/kernelbook/timing.py", *declared])
            path.write_text(json.dumps(rec))
    env = {**os.environ, "KERNELBOOK_RESULTS": str(results), "KERNELBOOK_MODE": "replay",
           "NO_MKDOCS_2_WARNING": "1", "KERNELBOOK_GUARDS": "flag"}  # fixtures: the pages' words are not theirs
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp / "site")], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return tmp / "site"


def _warned(site: Path, page: str) -> bool:
    html = (site / page / "index.html" if page else site / "index.html").read_text()
    return "kb-stale" in html and f"<code>{STALE}</code>" in html


def test_the_pages_that_show_the_stale_result_say_so(site):
    assert _warned(site, "fusing-by-hand") and _warned(site, "claims")


def test_pages_that_do_not_show_it_carry_no_warning(site):
    for page in ("machine", "allocator", "decode-far"):
        assert "kb-stale" not in (site / page / "index.html").read_text(), page
