"""A guard states what its sentence states, no more and no less, and on another measured GPU its flag says what
fails there, with the values, where the page makes the claim (issue 61).

The mapping from guard to words is explicit: each guard lists in `states` one phrase per clause of its test (or a
tuple of alternatives), and each phrase must stand in the Markdown the call guards: from the call to the next call
or the end of its paragraph or list item. A call on a line of its own stands above a paragraph, never above a list,
a table, an admonition or a heading (its flag would break them): a list item's guard goes inside the item.

The second half renders every page on each measured machine's stored results that the pages are not written for
(the H100 beside the H200): no empty field in a sentence, no list broken by a flag, no machine slug, and every flag
in a reader's words with the values.

`python tests/test_guard_words.py [page...]` prints, per page, each call's guards and the phrases it lacks, and the
flags each other measured machine puts on it.
"""

from __future__ import annotations

import html
import importlib
import os
import re
import sys
from pathlib import Path

import pytest

from kernelbook import guards, macros, store

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))
BLOCK_START = re.compile(r"^[ \t]*(?:[-*+][ \t]|\d+\.[ \t]|\||!!!|\?\?\?|#|```|~~~|<)")
ITEM_OR_BLANK = re.compile(r"\n[ \t]*\n|\n[ \t]*(?:[-*+]|\d+\.)[ \t]")


def _measured_others() -> list[str]:
    """The book's other measured GPUs (pyproject's also-measured, with a fresh run of every experiment); a reader's
    folder is built by tests/test_site_from_a_stranger.py."""
    from kernelbook.chapters.machines import carry

    return carry.measured()


OTHERS = _measured_others()


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


def guarded(markdown: str) -> list[tuple[str, str, tuple[str, ...], str]]:
    """Each call on a page: (kind, the line it stands on, its guard names, the Markdown it guards)."""
    out = []
    matches = list(guards.CALL.finditer(markdown))
    for i, m in enumerate(matches):
        j = i + 1  # calls side by side guard the same words: up to the first call after some words
        while j < len(matches) and not markdown[matches[j - 1].end():matches[j].start()].strip():
            j += 1
        end = matches[j].start() if j < len(matches) else len(markdown)
        rest = re.sub(guards.CALL, "", markdown[m.end():end])
        lead = rest.lstrip("\n") if rest.startswith("\n") else rest
        stop = ITEM_OR_BLANK.search(lead)
        text = lead[:stop.start()] if stop else lead
        line_start = markdown.rfind("\n", 0, m.start()) + 1
        line_end = markdown.find("\n", m.end())
        out.append((m[1], markdown[line_start:line_end if line_end >= 0 else None], guards.NAME.findall(m[2]), text))
    return out


def _guard(page: Path, name: str) -> tuple[str, guards.Guard]:
    chapter, _, short = name.rpartition(".") if "." in name else (macros.chapter_of(page.name), ".", name)
    return chapter, guards.declared(chapter)[short]


def _calls():
    return [(page, kind, line, name, text) for page in PAGES for kind, line, names, text in guarded(page.read_text())
            for name in names]


CALLS = _calls()


def missing_phrases(guard: guards.Guard, text: str) -> list[str]:
    said = _norm(text)
    return [" | ".join(c) if isinstance(c, tuple) else c for c in guard.states
            if not any(_norm(p) in said for p in (c if isinstance(c, tuple) else (c,)))]


def code_names(chapter: str, words: str) -> list[str]:
    """Names of code in a reader's words: a snake_case field or one of the facts module's constants."""
    module = importlib.import_module(f"kernelbook.chapters.{chapter}.facts")
    consts = {k for k in vars(module) if k.isupper() and len(k) > 2}
    return re.findall(r"\b[a-z0-9]+_[a-z0-9_]+\b", words) + [w for w in re.findall(r"\b[A-Z_]{3,}\b", words)
                                                             if w in consts]


@pytest.mark.parametrize("page, kind, line, name, text", CALLS, ids=[f"{c[0].stem}:{c[3]}" for c in CALLS])
def test_each_guard_names_what_its_words_state(page, kind, line, name, text):
    chapter, guard = _guard(page, name)
    assert guard.states, f"{page.name}: {name} lists no phrase of the page in `states`"
    lacking = missing_phrases(guard, text)
    assert not lacking, f"{page.name}: {name} tests clauses its words do not state: {lacking}"
    assert guard.found is not None, f"{name}: no `found`: a flag would not say what the data shows"
    assert not code_names(chapter, guard.says), f"{name}'s words name code: {code_names(chapter, guard.says)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_a_call_on_its_own_line_stands_above_a_paragraph(page):
    lines = page.read_text().split("\n")
    for i, ln in enumerate(lines):
        if guards.CALL.fullmatch(ln.strip()) and i + 1 < len(lines):
            nxt = lines[i + 1]
            assert nxt.strip() and not BLOCK_START.match(nxt), (
                f"{page.name}:{i + 1}: {ln.strip()} stands above {nxt.strip()[:40]!r}: put it inside the item, or "
                "above a paragraph")


def test_no_page_types_a_machine_name():
    """The machines the pages name come from facts: a page's words hold on the GPU they are rendered for."""
    labels = {store.machine_label(m) for m in store.machine_folders()} - {"RTX 4060 Laptop"}
    for page in PAGES:
        prose = macros.FENCE.sub("", page.read_text())
        for label in labels:
            assert label not in prose, f"{page.name} types {label!r}: take it from the facts ({{{{ f.gpu }}}})"


# ---- on the other measured machines ---------------------------------------------------------------------------

EMPTY_FIELD = re.compile(r'<span class="kb-fact"[^>]*>(?:|—|None|nan)</span>')
SPAN = re.compile(r"<[^>]+>")


def _render_on(machine: str, page: Path, monkeypatch) -> tuple[str, str]:
    monkeypatch.setenv("KERNELBOOK_MACHINE", machine)
    out = macros.render(page.read_text(), macros.chapter_of(page.name), machine=machine, src=page.name)
    return out, macros.flag_box()


def _prose(markdown: str) -> list[str]:
    """The paragraphs and list items of rendered Markdown: no code, table, exec block or HTML block."""
    text = re.sub(r'^```.*?^```$', "", macros.FENCE.sub("", markdown), flags=re.M | re.S)
    blocks = re.split(r"\n[ \t]*\n", text)
    return [b for b in blocks if b.strip() and not b.lstrip().startswith(("|", "<div", "<table", "#"))]


@pytest.mark.skipif(not OTHERS, reason="no other measured machine in results/")
@pytest.mark.parametrize("machine", OTHERS)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_on_another_gpu_every_flag_names_its_values_and_breaks_nothing(machine, page, monkeypatch):
    out, box = _render_on(machine, page, monkeypatch)
    here, written_for = macros.gpu_names(machine)
    assert machine not in SPAN.sub("", out) and machine not in SPAN.sub("", box), f"{page.name}: the slug {machine}"
    for block in _prose(out):
        if "kb-flag" in block:  # a flag's own words stand for the paragraph it flags
            assert f"on the {here}" in block
            assert "not so:" not in block, f"{page.name}: a flag with no values: {SPAN.sub('', block)[:200]}"
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if lines and lines[0].lstrip().startswith("<span class=\"kb-flag"):
            assert not any(re.match(r"[ \t]*[-*+][ \t]", ln) for ln in lines[1:]), (
                f"{page.name}: a flag above a list turns it into a paragraph: {block[:200]}")
        empty = [m[0] for m in EMPTY_FIELD.finditer(block)]
        assert not empty, f"{page.name} on {here}: a sentence with an empty field: {SPAN.sub('', block)[:300]}"
    if box:
        names = re.findall(r'href="#(kb-flag-[^"]+)"', box)
        assert len(names) == len(set(names)), f"{page.name}: the top box lists a guard twice"
        for name in names:
            assert f'id="{name}"' in out, f"{page.name}: the top box links {name}, which no flag carries"


def main(argv: list[str]) -> None:
    """Print each page's calls, the phrases they lack, and the flags on the other measured machines."""
    want = [p for p in PAGES if not argv or p.stem in argv]
    for page in want:
        print(f"== {page.name}")
        for _kind, _line, names, text in guarded(page.read_text()):
            for name in names:
                _chapter, guard = _guard(page, name)
                lack = missing_phrases(guard, text)
                print(f"  {name}: " + ("ok" if guard.states and not lack else f"LACKS {lack or 'states'}")
                      + ("" if guard.found else " | NO found"))
        for machine in OTHERS:
            os.environ["KERNELBOOK_MACHINE"] = machine
            out = macros.render(page.read_text(), macros.chapter_of(page.name), machine=machine, src=page.name)
            for m in re.finditer(r'<span class="kb-flag[^"]*"[^>]*>(.*?)</span>', out):
                print(f"  ⚑ {html.unescape(m[1])}")
            for block in _prose(out):
                if EMPTY_FIELD.search(block):
                    print(f"  EMPTY FIELD: {SPAN.sub('', block)[:160]}")
            os.environ.pop("KERNELBOOK_MACHINE")


if __name__ == "__main__":
    main(sys.argv[1:])


OTHER_SITE = os.environ.get("KERNELBOOK_OTHER_SITE_DIR")  # .ci/run: the strict build for the H100 (KERNELBOOK_MACHINE)


@pytest.mark.slow
@pytest.mark.skipif(not OTHER_SITE, reason="needs the other GPU's built site (.ci/run sets KERNELBOOK_OTHER_SITE_DIR)")
def test_the_other_gpus_built_site_names_it_and_breaks_no_block():
    machine = OTHERS[0]
    here, _ = macros.gpu_names(machine)
    pages = sorted(p for p in Path(OTHER_SITE).glob("*/index.html") if p.parent.name != "notebooks")
    assert len(pages) >= len(PAGES) - 1
    flagged = 0
    for p in pages:
        page_html = p.read_text()
        body = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", page_html, flags=re.S)
        text = SPAN.sub("", body)
        assert machine not in text, f"{p.parent.name}: the slug {machine} on the page"
        assert not re.search(r"<p>\s*-\s", body), f"{p.parent.name}: a list rendered as a paragraph of '- '"
        for block in re.findall(r"<(?:p|li)>(.*?)</(?:p|li)>", body, re.S):
            assert not EMPTY_FIELD.search(block), f"{p.parent.name}: an empty field in {SPAN.sub('', block)[:200]}"
        for flag in re.findall(r'<span class="kb-flag[^"]*"[^>]*>(.*?)</span>', body, re.S):
            flagged += 1
            assert re.match(f"⚑ Not (so|measured) on the {re.escape(here)}", html.unescape(flag)), flag
            assert "not so:" not in flag, f"{p.parent.name}: a flag without values: {flag}"
    assert flagged > 0  # the H100 differs from the H200 somewhere, and says so
