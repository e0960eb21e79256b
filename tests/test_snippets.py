"""Every snippet the pages include runs against fixture results and prints something; every include resolves."""

from __future__ import annotations

import json
import re
import runpy
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = sorted((ROOT / "snippets").rglob("*.py"))
INCLUDE = re.compile(r'--8<--\s+"([^"]+)"')


# the snippets that show a stored string in a table cell, a code fence or a box: their output must hold it, as text
SHOW_TEXT = {"graph_breaks", "recompiles", "constraints", "oom_message"}  # (highlighted code splits it in tokens)


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    """The fixtures with markup (test_trust.MARK: a tag, a code span, a fence line) in every string of every record's
    data its schema allows, but the identifiers code looks up: a stranger's results."""
    from test_trust import mark_data_strings

    d = tmp_path_factory.mktemp("marked") / "results"
    shutil.copytree(FIXTURES, d)
    for path in d.glob("*/*/*.json"):
        rec = json.loads(path.read_text())
        mark_data_strings(rec)
        path.write_text(json.dumps(rec))
    return d


@pytest.fixture
def marked_results(marked, fixture_results):
    """fixture_results (the published records too), its H200 runs the marked ones."""
    shutil.rmtree(fixture_results / "nvidia-h200")
    shutil.copytree(marked / "nvidia-h200", fixture_results / "nvidia-h200")
    return fixture_results


BLOCK = re.compile(r'^```python exec="on"[^\n]*\n(.*?)^```', re.M | re.S)


def calls_after(path: Path) -> list[str]:
    """What the pages' exec blocks run after including `path` (the claims ledger: `show("Step 1 · …")`), one per
    block: a snippet that defines what its blocks call prints only once called."""
    rel = str(path.relative_to(ROOT))
    found = []
    for md in sorted((ROOT / "docs").glob("*.md")):
        for body in BLOCK.findall(md.read_text()):
            lines = body.splitlines()
            if any(INCLUDE.search(ln) and INCLUDE.search(ln)[1] == rel for ln in lines):
                rest = "\n".join(ln for ln in lines if not INCLUDE.search(ln)).strip()
                if rest:
                    found.append(rest)
    return found


def as_html(markdown_text: str) -> str:
    """A snippet's Markdown as the site renders it (the extensions of mkdocs.yml that decide what is markup)."""
    import markdown

    return markdown.markdown(markdown_text, extensions=["admonition", "attr_list", "md_in_html", "tables",
                                                        "pymdownx.details", "pymdownx.superfences"])


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: str(p.relative_to(ROOT / "snippets")))
def test_snippet_runs(path, marked_results, capsys):
    """Each snippet runs over results whose every string carries markup, and the HTML its output becomes holds no
    tag from them: page.table, page.code and page.code_block escape what they are given (issue 58: a Dynamo reason
    went raw into a table cell, a line of ``` in a log ended its fence)."""
    namespace = runpy.run_path(str(path), run_name="__main__")
    for code in calls_after(path):  # as the page's blocks call it
        exec(code, dict(namespace))  # noqa: S102 - the page's own block, from docs/
    out = capsys.readouterr().out
    assert out.strip(), f"{path} printed nothing"
    assert "Traceback" not in out
    html = as_html(out)
    assert "<kbx" not in html, html[html.index("<kbx") - 300:][:600]
    if path.stem in SHOW_TEXT:
        assert "&lt;kbx onerror=alert(1)&gt;" in html, html[:3000]


def test_every_include_exists_and_every_snippet_is_used():
    used = set()
    for md in (ROOT / "docs").rglob("*.md"):
        for ref in INCLUDE.findall(md.read_text()):
            file = ref.split(":")[0]
            assert (ROOT / file).is_file(), f"{md.name} includes missing {file}"
            used.add((ROOT / file).resolve())
    unused = [str(p.relative_to(ROOT)) for p in SNIPPETS if p.resolve() not in used]
    assert not unused, f"snippets no page includes: {unused}"
