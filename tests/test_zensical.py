"""The same sources build with Zensical (issue 47): every page's article text equals the MkDocs build's, and a stale
result puts its warning on the same pages under both. .ci/run builds both sites and names them here
(KERNELBOOK_SITE_DIR, KERNELBOOK_ZENSICAL_SITE_DIR); the stale-warning pair is built here."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MKDOCS_SITE, ZENSICAL_SITE = os.environ.get("KERNELBOOK_SITE_DIR"), os.environ.get("KERNELBOOK_ZENSICAL_SITE_DIR")
ZENSICAL = shutil.which("zensical", path=str(Path(sys.executable).parent)) or shutil.which("zensical")
PAGES = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
DROP = re.compile(r"<(script|style|svg)\b[^>]*>.*?</\1>", re.S)

pytestmark = pytest.mark.slow


def article_text(site: Path, stem: str) -> str:
    """What a reader reads on the page: its article's text, whitespace folded (markup, ids and links aside)."""
    path = site / ("index.html" if stem == "index" else f"{stem}/index.html")
    body = re.search(r"<article\b[^>]*>(.*)</article>", path.read_text(), re.S)
    assert body, f"{path}: no article"
    text = html.unescape(re.sub(r"<[^>]+>", " ", DROP.sub(" ", body.group(1))))
    return " ".join(text.replace("¶", " ").split())


def first_difference(a: str, b: str) -> str:
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at {i}: MkDocs …{a[max(0, i - 80):i + 80]}… Zensical …{b[max(0, i - 80):i + 80]}…"


@pytest.mark.skipif(not (MKDOCS_SITE and ZENSICAL_SITE), reason="set KERNELBOOK_SITE_DIR and "
                    "KERNELBOOK_ZENSICAL_SITE_DIR to the two builds (.ci/run does)")
@pytest.mark.parametrize("stem", PAGES)
def test_each_page_reads_the_same_under_both(stem):
    a, b = article_text(Path(MKDOCS_SITE), stem), article_text(Path(ZENSICAL_SITE), stem)
    assert a == b, f"{stem}: {first_difference(a, b)}"


@pytest.mark.skipif(not ZENSICAL_SITE, reason="set KERNELBOOK_ZENSICAL_SITE_DIR (.ci/run does)")
def test_the_notebooks_are_reachable_under_zensical():
    site = Path(ZENSICAL_SITE)
    for nb in (ROOT / "docs" / "notebooks").glob("*.ipynb"):
        assert json.loads((site / "notebooks" / nb.name).read_text())["cells"], nb.name
        page = (site / nb.stem / "index.html").read_text()
        assert f'href="../notebooks/{nb.name}"' in page, f"{nb.stem}: its page does not offer its notebook"


STALE = "fusing_by_hand.exactness"


def _stale_results(tmp: Path) -> Path:
    """The committed results with every run of STALE made stale (one source hash changed)."""
    results = tmp / "results"
    shutil.copytree(ROOT / "results", results)
    for path in results.glob(f"nvidia-h200/{STALE}/2*.json"):
        rec = json.loads(path.read_text())
        hashes = rec["provenance"]["source_hashes"]
        hashes[next(iter(hashes))] = "0" * 16
        path.write_text(json.dumps(rec))
    return results


@pytest.mark.skipif(not ZENSICAL, reason="zensical is not installed (.ci/run installs it)")
def test_a_stale_result_warns_on_the_same_pages_under_both(tmp_path):
    results = _stale_results(tmp_path)
    env = {**os.environ, "KERNELBOOK_RESULTS": str(results), "KERNELBOOK_MODE": "replay", "NO_MKDOCS_2_WARNING": "1",
           "KERNELBOOK_CACHE": "0"}
    mk = tmp_path / "mk"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(mk)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    work = tmp_path / "z"  # Zensical builds into the config's site_dir, inside the project: a copy of the project
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(".venv", ".git", ".cache", "site", "artifacts",
                                                               "__pycache__"))
    out = subprocess.run([ZENSICAL, "build", "-f", "mkdocs.yml", "-c"], cwd=work,
                         env={**env, "PYTHONPATH": str(work / "src")}, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]

    def warned(site: Path) -> set[str]:
        return {stem for stem in PAGES if f"<code>{STALE}</code>" in (
            site / ("index.html" if stem == "index" else f"{stem}/index.html")).read_text()}

    on_mkdocs = warned(mk)
    assert on_mkdocs and "fusing-by-hand" in on_mkdocs
    assert warned(work / "site") == on_mkdocs
