"""The Markdown side of the page API: mkdocs-macros fills each page's inline fields from its chapter's facts.

A page writes its sentences in Markdown and takes every number and verdict inside them from facts:

    Fusion made add + RMSNorm **{{ f.add_rmsnorm_speedup | times }}** faster{% if f.faster_than_laptop %},
    more than the laptop's {{ f.laptop_speedup | times }}{% endif %}.

`f` is the page's own chapter (docs/fusing-by-hand.md -> kernelbook.chapters.fusing_by_hand.facts), loaded on first
use; `facts("decode")` is any other chapter's. Each chapter's facts are computed once per build and count as shown
on every page that uses them, so a stale result behind an inline field puts the warning on that page too (hooks.py).
Fenced code is wrapped in `{% raw %}` before rendering: code blocks written in a page are never templated, and code
included with `--8<--` or printed by exec blocks is added after this step, so it never is either.

mkdocs-macros loads this module by `module_name` (mkdocs.yml); Zensical's macros extension loads the same
`define_env(env)`.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from kernelbook import page, paths, store

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[^\n]*\n.*?^(?P=indent)(?P=fence)[ \t]*$",
                   re.M | re.S)
_cache: dict[tuple[str, str, tuple], tuple[Any, list[store.Result]]] = {}


def chapter_of(src_path: str) -> str:
    """'speed-of-light.md' -> 'speed_of_light'."""
    return Path(src_path).stem.replace("-", "_")


def has_facts(chapter: str) -> bool:
    return (paths.root() / "src" / "kernelbook" / "chapters" / chapter / "facts.py").is_file()


def facts(chapter: str, machine: str | None = None) -> Any:
    """The facts of `chapter` on `machine` (default: the primary), computed once per build; every call counts the
    results behind them as shown on the page being built."""
    machine = paths.primary_machine() if machine is None else machine
    key = (chapter, machine, tuple(paths.results_dirs()))  # another results folder is another store
    if key not in _cache:
        module = importlib.import_module(f"kernelbook.chapters.{chapter}.facts")
        with page.reading() as read:
            value = module.facts(machine)
        _cache[key] = (value, read)
    value, read = _cache[key]
    for res in read:
        page.note(res)
    return value


class PageFacts:
    """The page's own chapter facts, loaded at the first field the page reads; `overrides` replaces some fields
    (the tests render every branch of a page this way)."""

    def __init__(self, chapter: str, machine: str | None = None, overrides: dict[str, Any] | None = None) -> None:
        self._chapter, self._machine, self._overrides = chapter, machine, overrides or {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._overrides:
            return self._overrides[name]
        return getattr(facts(self._chapter, self._machine), name)


def protect_code(markdown: str) -> str:
    """Every fenced code block wrapped in {% raw %}…{% endraw %}, so that Jinja leaves it as written."""
    return FENCE.sub(lambda m: "{% raw %}" + m.group(0) + "{% endraw %}", markdown)


# ---- filters: how a number reads in a sentence (raw values stay in the facts) ------------------------------------

def num(x: float | int | None, digits: int = 1) -> str:
    return page.num(x, digits)


def pct(x: float | None, digits: int = 0) -> str:
    return page.pct(x, digits)


def pct_down(x: float | None, digits: int = 1) -> str:
    return page.pct_down(x, digits)


def times(x: float | None, digits: int = 1) -> str:
    """7.04 -> '7.0×'."""
    return "—" if x is None else f"{x:,.{digits}f}×"


def signed(x: float | None, digits: int = 2) -> str:
    """0.13 -> '+0.13', -0.3 -> '−0.30' (a true minus sign)."""
    return "—" if x is None else f"{x:+,.{digits}f}".replace("-", "−")


def s(n: int | float, plural: str = "s") -> str:
    """The plural ending for a count: 'step{{ n | s }}'."""
    return "" if n == 1 else plural


FILTERS = {"num": num, "pct": pct, "pct_down": pct_down, "times": times, "signed": signed, "s": s}


def render(markdown: str, chapter: str, machine: str | None = None, overrides: dict[str, Any] | None = None) -> str:
    """A page's Markdown with its fields filled, outside MkDocs, as mkdocs-macros fills them (strict: an unknown
    field is an error). The tests and the notebooks use it."""
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(FILTERS)
    f = PageFacts(chapter, machine, overrides) if has_facts(chapter) else None
    return env.from_string(protect_code(markdown)).render(f=f, facts=lambda c, m=None: facts(c, m or machine),
                                                          machine=machine or paths.primary_machine())


def define_env(env: Any) -> None:
    _cache.clear()  # a new build (mkdocs serve rebuilds in one process) reads the store again
    for name, fn in FILTERS.items():
        env.filter(fn, name)
    env.macro(facts, "facts")
    env.variables["machine"] = paths.primary_machine()


def on_pre_page_macros(env: Any) -> None:
    src = env.page.file.src_path
    chapter = chapter_of(src)
    env.variables["f"] = PageFacts(chapter) if has_facts(chapter) else None
    env.markdown = protect_code(env.markdown)
