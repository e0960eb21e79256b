"""The chapter notebooks are in step with the chapters: each snippet a chapter executes, and its prose between them,
rendered from the stored results and re-rendered with the reader's own once run."""

from __future__ import annotations

import json
import re

import pytest

from kernelbook import notebooks, paths


def test_committed_notebooks_are_up_to_date():
    rendered = notebooks.render_all()
    committed = set((paths.root() / "docs" / "notebooks").glob("*.ipynb"))
    assert committed <= set(rendered), f"notebooks of no chapter: {sorted(p.name for p in committed - set(rendered))}"
    for path, text in rendered.items():
        assert path.is_file(), f"{path.name} missing: run `python -m kernelbook notebooks`"
        assert path.read_text() == text, f"{path.name} is out of date: run `python -m kernelbook notebooks`"


def _cells(stem: str) -> list[dict]:
    return json.loads(next(t for p, t in notebooks.render_all().items() if p.stem == stem))["cells"]


def test_machine_notebook_measures_then_runs_each_snippet():
    code = ["".join(c["source"]) for c in _cells("machine") if c["cell_type"] == "code"]
    assert 'os.environ["KERNELBOOK_MODE"] = "auto"' in code[0]
    assert any('page.result("machine.ceilings")' in c for c in code[1:])
    compile("\n".join(code), "machine.ipynb", "exec")  # every cell is valid Python


@pytest.mark.parametrize("stem", ["fusing-by-hand", "speed-of-light"])
def test_prose_cells_hold_the_pages_sentences_with_the_stored_numbers(stem):
    text = (paths.root() / "docs" / f"{stem}.md").read_text()
    stretches, snippets = notebooks.parts(text)
    cells = _cells(stem)
    prose = [c for c in cells if notebooks.PROSE_TAG in c["metadata"].get("tags", [])]
    assert len(prose) == sum(1 for s in stretches if s.strip()) and len(snippets) >= 1
    for c in prose:
        i = int("".join(c["source"])[len("prose("):-1])
        shown = "".join(c["outputs"][0]["data"]["text/markdown"])
        assert shown == notebooks.prose(stem, i) and "{{" not in shown and "{%" not in shown
        links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", shown, flags=re.S))
        assert all(link.startswith(("../", "http")) for link in links), links  # out of notebooks/, to the pages


def test_a_code_include_in_the_prose_is_expanded():
    out = notebooks.prose("fusing-by-hand", 0)
    assert "--8<--" not in out and "def add_rmsnorm_ref(" in out


def test_a_figure_caption_reads_as_one_italic_paragraph_in_the_notebook():
    page = (paths.root() / "docs" / "machine.md").read_text()
    assert "{ .kb-caption }" in page  # the page styles its caption with attr_list ...
    stretches, _ = notebooks.parts(page)
    i = next(i for i, s in enumerate(stretches) if "{ .kb-caption }" in s)
    out = notebooks.prose("machine", i)
    assert "kb-caption" not in out  # ... which a notebook's Markdown would print as text
    caption = next(line for line in out.splitlines() if line.startswith("*"))
    assert caption.endswith("*") and "roofline" in caption and "{{" not in caption
    assert notebooks.CAPTION.sub("", "a line\n\nplain text\n") == "a line\n\nplain text\n"  # no caption, no change


def test_a_folded_block_reads_in_a_notebook_and_its_snippet_runs_as_a_cell():
    """A page folds its method (`??? note "…"`, body indented): the notebook shows the title in bold, the body
    dedented (not as code), and the snippet run inside the fold as a cell of its own."""
    text = ('Intro.\n\n??? note "How this was measured"\n    Folded text.\n\n'
            '    ```python exec="on" source="tabbed-right"\n    --8<-- "snippets/machine/launch.py"\n    ```\n\n'
            '    More folded text.\n\nAfter.\n')
    stretches, snippets = notebooks.parts(notebooks._unboxed(text))
    assert snippets == ["snippets/machine/launch.py"]
    assert "**How this was measured**\nFolded text." in stretches[0]
    assert "\nMore folded text." in stretches[1] and "    More" not in stretches[1]
    assert notebooks._unboxed("!!! abstract\n    Body.\n") == "\nBody.\n"  # a box without a title


def test_a_content_tab_reads_in_a_notebook_with_its_code_include_expanded():
    """speed-of-light shows three kernels in tabs (`=== "Persistent"`, the include indented under it): the notebook
    showed the tab marker and the unexpanded include as code."""
    assert notebooks._unboxed('=== "Persistent"\n\n    ```python\n    x = 1\n    ```\n') == \
        "**Persistent**\n\n```python\nx = 1\n```\n"
    for nb in sorted((paths.root() / "docs" / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                assert "--8<--" not in text and '=== "' not in text, (nb.name, text[:200])
