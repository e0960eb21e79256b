"""The same sources build with Zensical (issue 47): every page's article text equals the MkDocs build's. .ci/run
builds both sites and names them here (KERNELBOOK_SITE_DIR, KERNELBOOK_ZENSICAL_SITE_DIR). That a stale result's
warning lands on the same pages under both: tests/test_site_from_a_stranger.py."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MKDOCS_SITE, ZENSICAL_SITE = os.environ.get("KERNELBOOK_SITE_DIR"), os.environ.get("KERNELBOOK_ZENSICAL_SITE_DIR")
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
