"""A chapter's facts as a page reads them: each field a named Fact, which prints as an element that names it and
says on hover how it was obtained, in its chapter's format (FORMATS in its facts module):

    <span class="kb-fact" data-fact="fusing_by_hand.norm_speedup" title="median of 3 runs, …">7.0×</span>

Each chapter's facts are computed once per build and machine (kernelbook.factbook) and count as shown on every page
that uses them (kernelbook.read). The Markdown side (mkdocs-macros, kernelbook.macros) and table cells
(kernelbook.page.fact) both read them here.
"""

from __future__ import annotations

import html
import importlib
from pathlib import Path
from typing import Any

from kernelbook import factbook, fmt, paths, read, store

_cache: dict[tuple[str, str, tuple], tuple[Any, list[store.Result]]] = {}


def chapter_of(src_path: str) -> str:
    """'speed-of-light.md' -> 'speed_of_light'."""
    return Path(src_path).stem.replace("-", "_")


def has_facts(chapter: str) -> bool:
    return (paths.root() / "src" / "kernelbook" / "chapters" / chapter / "facts.py").is_file()


class Fact:
    """One field of a chapter's facts on its way into a sentence: its value, and the name and provenance its
    element carries. It compares, tests and counts as its value; printed, it is an element naming it."""

    __slots__ = ("name", "value", "title", "fmt")

    def __init__(self, name: str, value: Any, title: str = "", fmt: str | None = None) -> None:
        self.name, self.value, self.title, self.fmt = name, value, title, fmt

    def __str__(self) -> str:
        return span(self, default_text(self.value, self.fmt))

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other: object) -> bool:
        return self.value == plain(other)

    def __ne__(self, other: object) -> bool:
        return self.value != plain(other)

    def __lt__(self, other: Any) -> bool:
        return self.value < plain(other)

    def __le__(self, other: Any) -> bool:
        return self.value <= plain(other)

    def __gt__(self, other: Any) -> bool:
        return self.value > plain(other)

    def __ge__(self, other: Any) -> bool:
        return self.value >= plain(other)

    def __hash__(self) -> int:
        return hash(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self):
        return iter(self.value)

    def __getitem__(self, key: Any) -> Any:
        return self.value[key]

    def __contains__(self, item: Any) -> bool:
        return plain(item) in self.value

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __abs__(self) -> Fact:
        return Fact(self.name, abs(self.value), self.title, self.fmt)

    def __neg__(self) -> Any:
        return -self.value

    def __add__(self, o: Any) -> Any:
        return self.value + plain(o)

    def __radd__(self, o: Any) -> Any:
        return plain(o) + self.value

    def __sub__(self, o: Any) -> Any:
        return self.value - plain(o)

    def __rsub__(self, o: Any) -> Any:
        return plain(o) - self.value

    def __mul__(self, o: Any) -> Any:
        return self.value * plain(o)

    def __rmul__(self, o: Any) -> Any:
        return plain(o) * self.value

    def __truediv__(self, o: Any) -> Any:
        return self.value / plain(o)

    def __rtruediv__(self, o: Any) -> Any:
        return plain(o) / self.value

    def __round__(self, n: int | None = None) -> Any:
        return round(self.value, n)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:
        return f"Fact({self.name}={self.value!r})"

    def __getattr__(self, attr: str) -> Any:
        """A field of a nested record (`f.add_noise.rounds_low`), itself named."""
        if attr.startswith("_"):
            raise AttributeError(attr)
        value = getattr(self.value, attr)
        if isinstance(value, bool) or value is None or isinstance(value, (tuple, list, dict)):
            return value
        return Fact(f"{self.name}.{attr}", value, self.title)


def plain(x: Any) -> Any:
    return x.value if isinstance(x, Fact) else x


def span(fact: Fact, text: str) -> str:
    """The element a value renders in: its fact's name, and how it was obtained on hover."""
    title = f' title="{html.escape(fact.title, quote=True)}"' if fact.title else ""
    return f'<span class="kb-fact" data-fact="{html.escape(fact.name, quote=True)}"{title}>{html.escape(text)}</span>'


def default_text(x: Any, fmt: str | None = None) -> str:
    """How a field reads with no filter: its chapter's FORMATS entry ('num:2', 'pct:1', 'times:1', 'ms:3'…),
    'pct_down:1', 'plain'), else an int with thousands separators, a float as written, a word as itself."""
    if fmt:
        kind, _, digits = fmt.partition(":")
        return FORMATTERS[kind](x, int(digits) if digits else None)
    if isinstance(x, bool) or x is None:
        return "—" if x is None else str(x)
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


class FactsView:
    """A chapter's facts (kernelbook.factbook) whose fields come out as Facts; `overrides` replaces some values
    (the guard tests drive a page with a guard turned)."""

    def __init__(self, chapter: str, machine: str | None = None, overrides: dict[str, Any] | None = None) -> None:
        self._chapter, self._machine, self._overrides = chapter, machine, overrides or {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        book = _book(self._chapter, self._machine)
        value = self._overrides[name] if name in self._overrides else getattr(book.facts, name)
        if isinstance(value, bool) or value is None or isinstance(value, (tuple, list, dict)):
            return value
        src = book.sources.get(name)
        fmt = getattr(importlib.import_module(f"kernelbook.chapters.{self._chapter}.facts"), "FORMATS", {})
        other = self._machine is not None and self._machine != paths.primary_machine()
        where = f"@{self._machine}" if other else ""  # another GPU's value of a fact is a fact of its own
        return Fact(f"{self._chapter}.{name}{where}", value, src.title if src else "", fmt.get(name))


PageFacts = FactsView  # the name the notebooks and older tests use


def _book(chapter: str, machine: str | None) -> factbook.Book:
    machine = paths.primary_machine() if machine is None else machine
    key = (chapter, machine, tuple(paths.results_dirs()))  # another results folder is another store
    if key not in _cache:
        b = factbook.book(chapter, machine)
        _cache[key] = (b, list(b.read))
    b, shown = _cache[key]
    for res in shown:
        read.note(res)
    return b


def facts(chapter: str, machine: str | None = None) -> FactsView:
    """Another chapter's facts on `machine` (default: the primary), each field a named Fact; every call counts the
    results behind them as shown on the page being built."""
    _book(chapter, machine)
    return FactsView(chapter, machine)


def raw_facts(chapter: str, machine: str | None = None) -> Any:
    """The chapter's facts dataclass under the one rule, plain values (snippets and tests)."""
    return _book(chapter, machine).facts


FORMATTERS = {"num": lambda x, d: fmt.num(x, 1 if d is None else d), "pct": lambda x, d: fmt.pct(x, d or 0),
              "plain": lambda x, d: str(x),  # as code writes it: 8192, not 8,192
              "pct_down": lambda x, d: fmt.pct_down(x, 1 if d is None else d),
              "num_down": lambda x, d: fmt.num_down(x, 1 if d is None else d),
              "times": lambda x, d: fmt.times(x, 1 if d is None else d),
              "signed": lambda x, d: fmt.signed(x, 2 if d is None else d)}


def forget() -> None:
    """Every chapter's facts computed afresh from here on (a new build, or results that changed under Zensical)."""
    _cache.clear()
    factbook.clear()
