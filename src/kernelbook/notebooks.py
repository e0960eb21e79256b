"""Each chapter as a Jupyter notebook that re-runs the chapter's measurements on the reader's own GPU.

`python -m kernelbook notebooks` writes docs/notebooks/<chapter>.ipynb from docs/<chapter>.md: one code cell per
snippet the chapter executes, in page order, after a setup cell that points the page API at this GPU in measure
mode. mkdocs-jupyter renders them on the site with a download button. A test keeps them in step with the pages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kernelbook import paths

EXEC_INCLUDE = re.compile(r'```python exec="on"[^\n]*\n--8<-- "(snippets/[^"]+\.py)"\n```')
TITLE = re.compile(r"^# (.+)$", re.M)
NOT_CHAPTERS = {"index", "claims", "takeaways", "machines"}  # summaries of the chapters, not chapters

SETUP = '''\
# Run this chapter's measurements on this machine's GPU, store them under results/<this-gpu>/ and render them here.
# Needs the repository (git clone ... && pip install -e ".[docs]") and a CUDA GPU; run from the repository root.
import os

from IPython.display import Markdown, display

from kernelbook.cli import _gpu_slug

gpu = _gpu_slug()
assert gpu, "no CUDA GPU visible: this notebook measures; the site itself replays stored results"
os.environ["KERNELBOOK_MACHINE"] = gpu  # show this GPU's results ...
os.environ["KERNELBOOK_MODE"] = "auto"  # ... measuring each experiment the first time a cell asks for it


def print(*parts):  # the snippets print Markdown: render it
    display(Markdown(" ".join(map(str, parts))))
'''


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def notebook(page: Path) -> dict | None:
    """The notebook for one chapter page, or None if the page executes no snippet."""
    text = page.read_text()
    snippets = EXEC_INCLUDE.findall(text)
    if not snippets:
        return None
    title = TITLE.search(text)
    cells = [_cell("markdown", f"# {title.group(1) if title else page.stem}: measured on your GPU\n\n"
                               f"The code of [this chapter](../{page.stem}.md), cell by cell.")]
    cells.append(_cell("code", SETUP))
    for rel in snippets:
        cells.append(_cell("markdown", f"`{rel}`"))
        cells.append(_cell("code", (paths.root() / rel).read_text()))
    for i, cell in enumerate(cells):
        cell["id"] = f"{page.stem}-{i}"  # nbformat 4.5 wants an id on every cell; stable ones keep diffs small
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def render_all() -> dict[Path, str]:
    """{notebook path: JSON text} for every chapter in docs/."""
    docs = paths.root() / "docs"
    out = {}
    for page in sorted(docs.glob("*.md")):
        if page.stem in NOT_CHAPTERS:
            continue
        nb = notebook(page)
        if nb is not None:
            out[docs / "notebooks" / f"{page.stem}.ipynb"] = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    return out


def write_all() -> list[Path]:
    written = []
    for path, text in render_all().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written
