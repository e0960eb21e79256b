"""Every snippet the pages include runs against fixture results and prints something; every include resolves."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = sorted((ROOT / "snippets").rglob("*.py"))
INCLUDE = re.compile(r'--8<--\s+"([^"]+)"')


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: str(p.relative_to(ROOT / "snippets")))
def test_snippet_runs(path, fixture_results, capsys):
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert out.strip(), f"{path} printed nothing"
    assert "Traceback" not in out


def test_every_include_exists_and_every_snippet_is_used():
    used = set()
    for md in (ROOT / "docs").rglob("*.md"):
        for ref in INCLUDE.findall(md.read_text()):
            file = ref.split(":")[0]
            assert (ROOT / file).is_file(), f"{md.name} includes missing {file}"
            used.add((ROOT / file).resolve())
    unused = [str(p.relative_to(ROOT)) for p in SNIPPETS if p.resolve() not in used]
    assert not unused, f"snippets no page includes: {unused}"
