"""How much of the pages' prose is template: the figures issue 45 sets goals on (tests/test_facts_site.py asserts
them; `python tests/jinja_stats.py` prints them per page)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.M | re.S)
TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
IF_BLOCK = re.compile(r"\{%-?\s*if\b")
INLINE_IF = re.compile(r"\{\{[^}]*\bif\b[^}]*\}\}")


def prose(text: str) -> str:
    """A page's Markdown without its fenced code (includes and exec blocks)."""
    return FENCE.sub("", text)


GUARD = re.compile(r"\{\{-?\s*(?:holds|needs)\(.*?\)\s*-?\}\}", re.S)  # a guard call: no words of the page


def stats(text: str) -> tuple[int, int, int]:
    """(template characters, prose characters, conditionals: {% if %} blocks and inline `x if c else y`). A guard
    call names what a sentence rests on and renders nothing where it holds: it is neither."""
    p = GUARD.sub("", prose(text))
    return (sum(len(m) for m in TEMPLATE.findall(p)), len(p),
            len(IF_BLOCK.findall(p)) + len(INLINE_IF.findall(p)))


def site() -> dict[str, tuple[int, int, int]]:
    return {md.name: stats(md.read_text()) for md in sorted(DOCS.glob("*.md"))}


if __name__ == "__main__":
    pages = site()
    names = sys.argv[1:] or list(pages)
    for name in names:
        j, n, c = pages[name if name.endswith(".md") else name + ".md"]
        print(f"{name:24} template {j / n:6.1%}   conditionals {c:4}")
    j, n, c = (sum(x[i] for x in pages.values()) for i in range(3))
    print(f"{'site':24} template {j / n:6.1%}   conditionals {c:4}")
