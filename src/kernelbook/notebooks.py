"""Each chapter as a Jupyter notebook that re-runs the chapter's measurements on the reader's own GPU.

`python -m kernelbook notebooks` writes docs/notebooks/<chapter>.ipynb from docs/<chapter>.md, in page order: a
setup cell that points the page API at this GPU in auto mode, then each stretch of the page's prose and each snippet
the page executes. A prose cell is `prose(i)`: it renders stretch i of the page with the chapter's facts for the GPU
at hand, so once the reader has measured, the sentences read the reader's numbers. Its stored output is the same
stretch rendered from the stored results of the primary machine, which is what the site shows (mkdocs-jupyter does
not execute, and hides the input of cells tagged `kb-prose`). A test keeps the notebooks in step with the pages.
"""

from __future__ import annotations

import errno
import json
import os
import re
import tempfile
import textwrap
from pathlib import Path

from kernelbook import macros, paths

# an executed snippet, also inside a folded block (indented): split off with its indent, which the prose drops
EXEC_INCLUDE = re.compile(r'^[ \t]*```python exec="on"[^\n]*\n[ \t]*--8<-- "(snippets/[^"]+\.py)"\n[ \t]*```[ \t]*$',
                          re.M)
# a box or folded block (`!!! note "Title"`, `??? note "Title"`): in a notebook, its title in bold, its text dedented
# a box or fold (`!!! note "Title"`, `??? note`), or a content tab (`=== "Title"`): its body is indented 4
BOX = re.compile(r'^(?:(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+"([^"]*)")?|===[ \t]+"([^"]*)")[ \t]*$', re.M)
IMAGE_ATTRS = re.compile(r"(!\[[^\]]*\]\([^)]*\))\{[^}\n]*\}")  # `![a](x.svg){ width="600" }`: Jupyter shows braces
INCLUDE = re.compile(r'^--8<-- "([^":]+)(?::([\w-]+))?"$', re.M)
PAGE_LINK = re.compile(r"\]\((?!https?:|#|/|\.\./)([\w-]+\.md(?:#[\w-]*)?)\)")  # a link to a sibling page
TITLE = re.compile(r"^# (.+)$", re.M)
# a figure's caption on a page: its paragraph, then `{ .kb-caption }` (attr_list), which a notebook would print
CAPTION = re.compile(r"^((?:[^\n]+\n)+)\{ \.kb-caption \}[ \t]*$", re.M)
NOT_CHAPTERS = {"index", "claims", "takeaways", "machines", "stability"}  # summaries of the chapters, not chapters
PROSE_TAG = "kb-prose"

SETUP = '''\
# Run this chapter's measurements on this machine's GPU, store them under results/<this-gpu>/ and render them here.
# Needs the repository (git clone ... && pip install -e ".[docs]") and a CUDA GPU; run from the repository root.
import os

from IPython.display import Markdown, display

from kernelbook import notebooks
from kernelbook.runner import gpu_slug

gpu = gpu_slug()
assert gpu, "no CUDA GPU visible: this notebook measures; the site itself replays stored results"
os.environ["KERNELBOOK_MACHINE"] = gpu  # show this GPU's results ...
os.environ["KERNELBOOK_MODE"] = "auto"  # ... measuring each experiment the first time a cell asks for it


def prose(part):  # the page's sentences, with this GPU's numbers in them
    display(Markdown(notebooks.prose("{page}", part, gpu)))


def print(*parts):  # the snippets print Markdown: render it
    display(Markdown(" ".join(map(str, parts))))
'''


def parts(text: str) -> tuple[list[str], list[str]]:
    """A page split at its exec blocks: (prose stretches, snippet paths), len(prose) == len(snippets) + 1."""
    return EXEC_INCLUDE.split(text)[::2], EXEC_INCLUDE.findall(text)


def _section(rel: str, name: str | None) -> str:
    """What `--8<-- "rel:name"` includes: the file, or the lines between its start and end markers, dedented."""
    text = (paths.root() / rel).read_text()
    if name is None:
        return text.rstrip("\n")
    m = re.search(rf"^[^\n]*--8<-- \[start:{re.escape(name)}\]\n(.*?)^[^\n]*--8<-- \[end:{re.escape(name)}\]",
                  text, re.M | re.S)
    if not m:
        raise ValueError(f"{rel} has no section {name!r}")
    return textwrap.dedent(m.group(1)).rstrip("\n")


def prose(page: str, part: int, machine: str | None = None) -> str:
    """Stretch `part` of docs/<page>.md rendered with its chapter's facts on `machine`, code includes expanded."""
    text = _unboxed((paths.root() / "docs" / f"{page}.md").read_text())
    out = macros.render(parts(text)[0][part], macros.chapter_of(page), machine)
    out = IMAGE_ATTRS.sub(r"\1", out)
    out = out.replace("](assets/", "](../assets/")  # the page's images, one folder up
    out = PAGE_LINK.sub(r"](../\1)", out)  # the notebooks sit one folder below the pages
    out = out.replace("](#", f"](../{page}.md#")  # a heading of the page: on the page
    out = CAPTION.sub(lambda m: "*" + " ".join(m.group(1).split()) + "*", out)  # in italics instead
    return INCLUDE.sub(lambda m: _section(m.group(1), m.group(2)), out).strip("\n")


def _unboxed(text: str) -> str:
    """Boxes, folded blocks and content tabs as Jupyter can show them: the title in bold, the body (indented 4)
    dedented, so that a code include inside a tab is expanded like any other."""
    out, inside = [], False
    for line in text.split("\n"):
        m = BOX.match(line)
        if m:
            title = m.group(1) or m.group(2)
            out.append(f"**{title}**" if title else "")
            inside = True
        elif inside and (line.startswith("    ") or not line.strip()):
            out.append(line[4:])
        else:
            inside = False
            out.append(line)
    return "\n".join(out)


def _cell(kind: str, source: str, tags: list[str] | None = None, markdown: str | None = None) -> dict:
    cell = {"cell_type": kind, "metadata": {"tags": tags} if tags else {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        outputs = [] if markdown is None else [{"output_type": "display_data", "metadata": {},
                                                "data": {"text/markdown": markdown.splitlines(keepends=True)}}]
        cell.update(execution_count=None, outputs=outputs)
    return cell


def notebook(page: Path) -> dict | None:
    """The notebook for one chapter page, or None if the page executes no snippet."""
    text = _unboxed(page.read_text())
    stretches, snippets = parts(text)
    if not snippets:
        return None
    title = TITLE.search(text)
    cells = [_cell("markdown", f"# {title.group(1) if title else page.stem}: measured on your GPU\n\n"
                               f"The code of [this chapter](../{page.stem}.md), cell by cell. The prose cells show "
                               f"the numbers stored for the site until you run them; then they show yours.")]
    cells.append(_cell("code", SETUP.replace("{page}", page.stem)))
    for i, stretch in enumerate(stretches):
        if stretch.strip():
            rendered = prose(page.stem, i)
            if rendered:
                cells.append(_cell("code", f"prose({i})", [PROSE_TAG], rendered))
        if i < len(snippets):
            cells.append(_cell("markdown", f"`{snippets[i]}`"))
            cells.append(_cell("code", (paths.root() / snippets[i]).read_text()))
    for i, cell in enumerate(cells):
        cell["id"] = f"{page.stem}-{i}"  # nbformat 4.5 wants an id on every cell; stable ones keep diffs small
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}}


def render_all() -> dict[Path, str]:
    """{notebook path: JSON text} for every chapter in docs/, its prose rendered from the stored results."""
    docs = paths.root() / "docs"
    out = {}
    for page in sorted(docs.glob("*.md")):
        if page.stem in NOT_CHAPTERS:
            continue
        nb = notebook(page)
        if nb is not None:
            out[docs / "notebooks" / f"{page.stem}.ipynb"] = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    return out


class NotebookError(RuntimeError):
    """A notebook that cannot be written; the message names it, and no notebook was changed."""


def write_all() -> list[Path]:
    """Write the notebooks that changed, all or none: each to a temp file beside its target first, then every target
    checked and every temp file renamed into place, so a target that cannot be written (a folder in its place, a
    read-only folder) leaves every notebook as it was, and one interrupted never leaves half a file."""
    changed = {path: text for path, text in render_all().items() if not path.is_file() or path.read_text() != text}
    temps: dict[Path, Path] = {}
    try:
        for path, text in changed.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps[path] = Path(tmp)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            if path.exists() and (path.is_symlink() or not path.is_file()):
                raise IsADirectoryError(errno.EISDIR, "not a plain file", str(path))
    except OSError as e:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        raise NotebookError(f"cannot write {paths.display(path)} ({e.strerror}); no notebook "
                            f"was changed") from e
    for path, tmp in temps.items():
        os.replace(tmp, path)
    return list(changed)
