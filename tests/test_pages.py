"""Every page renders on the stored results, and every guard it names is real and bites.

Pages are written for the primary machine's data (issue 45), so they are rendered on the committed results, not
down every branch on fixtures (macros.render: the same filters and strict fields as the site). Each guard a page
names must exist in its chapter's GUARDS and hold on the committed results; turned (its test made to fail) it stops
the page on the primary machine with a line naming the page and the paragraph, and flags the paragraph elsewhere.
The facts tests (test_facts_*.py) drive each guard's test both ways on data.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from kernelbook import guards, macros

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))
EXEC = re.compile(r'^```python exec="on".*?^```$', re.M | re.S)
GUARDED = [(page, name) for page in PAGES for _, names in guards.calls(page.read_text()) for name in names]


def _chapter(page: Path) -> str:
    return macros.chapter_of(page.name)


def _render(page: Path) -> str:
    return macros.render(page.read_text(), _chapter(page), src=page.name)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_page_renders_on_the_stored_results(page):
    out = EXEC.sub("", _render(page))
    assert "{{" not in out and "{%" not in out
    assert 'class="kb-flag"' not in out  # on the primary machine a guard that fails stops the page instead


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_conditional_spans_an_exec_block(page):
    """Each stretch of prose between two exec blocks renders on its own: the notebooks show them one by one."""
    for part in EXEC.split(page.read_text()):
        macros.render(part, _chapter(page), src=page.name)


def _turned(monkeypatch, page: Path, name: str) -> str:
    """`name` (as `page` names it) made to fail: its full name."""
    chapter, _, short = name.rpartition(".") if "." in name else (_chapter(page), ".", name)
    declared = dict(guards.declared(chapter))
    says, _ = declared[short]
    declared[short] = (says, lambda f: False)
    monkeypatch.setattr(importlib.import_module(guards.module_of(chapter)), "GUARDS", declared)
    return f"{chapter}.{short}"


@pytest.mark.parametrize("page, name", GUARDED, ids=[f"{p.stem}:{n}" for p, n in GUARDED])
def test_each_guard_holds_and_a_turned_one_stops_its_page(page, name, monkeypatch):
    assert guards.evaluate(name, _chapter(page)).holds, f"{page.name}: {name} does not hold on the stored results"
    full = _turned(monkeypatch, page, name)
    with pytest.raises(guards.GuardError) as err:
        _render(page)
    line = str(err.value)
    assert line.startswith(f"docs/{page.name}, ") and full in line and "does not hold" in line
    assert '"?"' not in line  # the paragraph was found and named


@pytest.mark.parametrize("page, name", GUARDED[:3] + GUARDED[-3:], ids=lambda x: getattr(x, "stem", x))
def test_elsewhere_a_turned_guard_flags_its_paragraph_and_the_top_box(page, name, monkeypatch):
    monkeypatch.setenv("KERNELBOOK_GUARDS", "flag")
    full = _turned(monkeypatch, page, name)
    out = _render(page)
    assert "kb-flag" in out or "This section rests on" in out
    assert "kb-flags" in macros.flag_box() and f'href="#{macros.flag_id(full)}"' in macros.flag_box()


def test_a_guard_that_no_chapter_declares_is_named(tmp_path):
    with pytest.raises(guards.UnknownGuard, match="no guard 'no_such_guard' in kernelbook/chapters/machine"):
        macros.render('{{ holds("no_such_guard") }}\nA sentence.\n', "machine", src="machine.md")


def test_another_machine_is_not_strict(monkeypatch):
    assert guards.strict("nvidia-h200")
    assert not guards.strict("nvidia-geforce-rtx-4090")
    monkeypatch.setenv("KERNELBOOK_GUARDS", "flag")
    assert not guards.strict("nvidia-h200")


def test_kernelbook_check_names_a_guard_that_fails(monkeypatch):
    page, name = next((p, n) for p, n in GUARDED if "." not in n)
    full = _turned(monkeypatch, page, name)
    lines = guards.check_pages()
    assert any(line.startswith(f"docs/{page.name}, paragraph \"") and full in line for line in lines), lines


def test_code_in_a_page_is_never_templated():
    text = 'A {{ 1 + 1 }}.\n\n```python\nprint("{{ not a field }}")\n```\n\n~~~\n{% if x %}\n~~~\n'
    out = macros.render(text, "no_such_chapter")
    assert out.startswith("A 2.") and '"{{ not a field }}"' in out and "{% if x %}" in out


class _Env:
    """What a macros plugin hands define_env: Zensical's once per page, with the page set (mkdocs-macros once per
    build, without one, then on_pre_page_macros per page)."""

    def __init__(self, src: str | None, markdown: str = "") -> None:
        self.page = None if src is None else type("Page", (), {"file": type("File", (), {"src_path": src})()})()
        self.markdown, self.variables, self.filters, self.macros = markdown, {}, {}, {}

    def filter(self, fn, name):
        self.filters[name] = fn

    def macro(self, fn, name):
        self.macros[name] = fn


def test_define_env_sets_the_pages_facts_where_zensical_calls_it_per_page():
    env = _Env("fusing-by-hand.md", "A {{ f.gpu }}.\n\n```python\n{{ not templated }}\n```\n")
    macros.define_env(env)
    assert isinstance(env.variables["f"], macros.FactsView) and {"holds", "needs", "facts"} <= set(env.macros)
    assert "{% raw %}```python" in env.markdown  # code protected here too: Zensical never calls on_pre_page_macros
    plugin = _Env(None)  # mkdocs-macros: no page yet; the hook sets it
    macros.define_env(plugin)
    assert "f" not in plugin.variables and "pick" in plugin.filters


def test_a_guard_whose_fields_are_missing_does_not_hold(monkeypatch):
    """On a machine whose results lack a figure (None), a guard that reads it is not true there: flagged, not a
    crash."""
    monkeypatch.setattr(importlib.import_module(guards.module_of("machine")), "GUARDS",
                        {"needs_none": ("a sum of a missing figure", lambda f: f.gpu + None)})
    out = guards.evaluate("needs_none", "machine")
    assert not out.holds and out.read[-1][0] == "error" and "TypeError" in out.what_changed()


def test_every_declared_guard_is_named_by_a_page():
    """A guard no paragraph rests on guards nothing: each one a chapter declares is named on some page."""
    named = {n if "." in n else f"{_chapter(p)}.{n}" for p, n in GUARDED}
    chapters = sorted(p.parent.name for p in (ROOT / "src" / "kernelbook" / "chapters").glob("*/facts.py"))
    unused = [f"{c}.{g}" for c in chapters for g in guards.declared(c) if f"{c}.{g}" not in named]
    assert not unused, unused


@pytest.mark.parametrize("kind, lead, listed", [("absent", "Not measured on the", "rests on what this GPU"),
                                                ("instead", "Not so on the", "does not hold here")])
def test_a_paragraph_gives_way_as_not_measured_or_as_a_finding(kind, lead, listed, monkeypatch):
    """`absent`: the machine did not measure it; `instead`: it measured something that leaves the paragraph's fields
    empty. Either way the paragraph gives way to one sentence; only the first says "not measured"."""
    monkeypatch.setenv("KERNELBOOK_GUARDS", "flag")
    guard = guards.Guard("a figure was measured", lambda f: False, states=("A first",),
                         found=lambda f: "the figure was 2", **{kind: (lambda f: True, "no shape was undecided")})
    monkeypatch.setattr(importlib.import_module(guards.module_of("machine")), "GUARDS", {"gone": guard})
    out = macros.render('{{ holds("gone") }}\nA first line with {{ 1 + 1 }}.\nA second line.\n\nNext paragraph.\n',
                        "machine", src="machine.md")
    assert f"{lead} " in out and ": no shape was undecided. This paragraph" in out
    assert "A first line" not in out and "A second line" not in out and "Next paragraph." in out
    box = macros.flag_box()
    assert listed in box and "no shape was undecided" in box and "the figure was 2" not in box
