"""Every page's Markdown renders with its chapter's facts, down every branch it has.

Each page is rendered outside MkDocs (macros.render, the same filters and strict fields as the site) on the fixture
results, then once more for each boolean or verdict field its conditionals read, with that field set to each of its
other values: a branch that names a field that does not exist, or a filter that fails on it, fails here even if no
stored result takes that branch today. The facts tests (test_facts_*.py) check that the data decides the fields.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest

from kernelbook import macros

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))
EXEC = re.compile(r'^```python exec="on".*?^```$', re.M | re.S)
FIELD = re.compile(r"\bf\.([a-z_][a-z0-9_]*)")
ALIAS = re.compile(r'{%-?\s*set\s+(\w+)\s*=\s*facts\("(\w+)"\)\s*-?%}')  # {% set c = facts("claims") %}


def _chapter(page: Path) -> str:
    return macros.chapter_of(page.name)


def _branches(text: str, alias: str = "f") -> set[str]:
    """The fields of `alias` (f, or a name set to another chapter's facts) that a {% if %} or {% elif %} tests."""
    field = FIELD if alias == "f" else re.compile(rf"\b{alias}\.([a-z_][a-z0-9_]*)")
    return {name for block in re.findall(r"{%-?\s*(?:el)?if\b(.*?)%}", text, re.S) for name in field.findall(block)}


def _values(facts: object, name: str) -> list[object]:
    """Every value a boolean or Literal field can take."""
    hints = typing.get_type_hints(type(facts))
    kind = hints[name]
    if kind is bool:
        return [True, False]
    if typing.get_origin(kind) is typing.Literal:
        return list(typing.get_args(kind))
    raise AssertionError(f"{type(facts).__module__}.{name} is tested by a conditional but is {kind}, not a bool "
                         f"or a verdict (Literal): compute the condition in the facts")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_page_renders_down_every_branch(page, fixture_results):
    text = page.read_text()
    chapter = _chapter(page)
    macros._cache.clear()
    out = macros.render(text, chapter)
    assert "{{" not in EXEC.sub("", out) and "{%" not in EXEC.sub("", out)
    branches = _branches(text)
    if not macros.has_facts(chapter):
        assert not branches and not FIELD.search(text), f"{page.name} reads f. but has no facts module"
        return
    facts = macros.facts(chapter)
    assert dataclasses.is_dataclass(facts)
    for name in sorted(branches):
        for value in _values(facts, name):
            macros.render(text, chapter, overrides={name: value})


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_branch_on_another_chapters_facts_renders(page, fixture_results):
    """A page that names another chapter's facts ({% set c = facts("claims") %}) is driven down every branch of
    those too: each field its conditionals test is set to each of its values in turn."""
    text = page.read_text()
    for alias, chapter in sorted(set(ALIAS.findall(text))):
        macros._cache.clear()
        macros.render(text, _chapter(page))
        key = next(k for k in macros._cache if k[0] == chapter)
        base, read = macros._cache[key]
        for name in sorted(_branches(text, alias)):
            for value in _values(base, name):
                macros._cache[key] = (dataclasses.replace(base, **{name: value}), read)
                macros.render(text, _chapter(page))
        macros._cache[key] = (base, read)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_conditional_spans_an_exec_block(page, fixture_results):
    """Each stretch of prose between two exec blocks renders on its own: the notebooks show them one by one."""
    chapter = _chapter(page)
    macros._cache.clear()
    for part in EXEC.split(page.read_text()):
        macros.render(part, chapter)


def test_code_in_a_page_is_never_templated(fixture_results):
    text = 'A {{ 1 + 1 }}.\n\n```python\nprint("{{ not a field }}")\n```\n\n~~~\n{% if x %}\n~~~\n'
    out = macros.render(text, "no_such_chapter")
    assert out.startswith("A 2.") and '"{{ not a field }}"' in out and "{% if x %}" in out
