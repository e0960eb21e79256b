"""Guards: what a paragraph of a page takes to be true of the data, declared beside the chapter's facts.

A page writes its sentences for the primary machine's data, and names above each paragraph that states what the
data decides the predicates it rests on:

    {{ holds("fused_faster") }}
    The hand-written kernel ran add + RMSNorm **{{ f.norm_speedup }}** faster than eager.

A chapter declares them in its guards module (chapters/<chapter>/guards.py, beside its facts), each with the claim
in a reader's words, a test of its facts, the phrases of the page that state it, and what the data shows where it
fails, in a reader's words with the values:

    GUARDS = {
        "fused_faster": Guard("the fused add + RMSNorm beat eager in every round",
                              lambda f: f.norm_fused_versus == "faster",
                              states=("faster than eager",),
                              found=lambda f: f"the fused add + RMSNorm was {f.norm_fused_versus} against eager"),
    }

A guard states what its sentence states, no more and no less: `states` holds one phrase (or a tuple of
alternatives) per clause of its test, each found in the Markdown the call guards, from the call to the end of its
paragraph or list item (tests/test_guard_words.py holds every page to this). `absent` says what a machine may not
have measured at all (`absent=(lambda f: f.ring_us is None, "the ring step was not built")`): there the whole
paragraph gives way to that one sentence, instead of a paragraph of empty fields. `instead` does the same where the
data was measured and shows something else that leaves the paragraph's fields empty (no shape was undecided, so the
paragraph that names it has none to name): its sentence reads as a finding ("Not so"), not as "Not measured".

`holds("decode.graph_faster")` names another chapter's guard. On the primary machine (pyproject's) a guard that
stops holding fails `mkdocs build --strict` and `python -m kernelbook check` with one line that names the page, the
paragraph and the fields the guard read; on any other machine (KERNELBOOK_MACHINE, a reader's GPU) the paragraph is
flagged instead and the page's top box lists it. `{{ needs("guard") }}` under a heading does the same for a
section.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelbook import factbook, paths
from kernelbook.factview import chapter_of

CALL = re.compile(r"""{{-?\s*(holds|needs)\(\s*((?:"[^"]*"\s*,?\s*)+)\)\s*-?}}""")
NAME = re.compile(r'"([^"]*)"')


class GuardError(RuntimeError):
    """A guard does not hold on the primary machine: the page's words are no longer true of its data."""


class UnknownGuard(KeyError):
    pass


class Guard(tuple):
    """A guard as GUARDS declares it. It unpacks as the pair (says, test) that older code and tests read."""

    says: str
    test: Callable[[Any], bool]
    states: tuple[str | tuple[str, ...], ...]
    found: Callable[[Any], str] | None
    absent: tuple[Callable[[Any], bool], str | Callable[[Any], str]] | None  # the words may read the facts
    instead: tuple[Callable[[Any], bool], str | Callable[[Any], str]] | None

    def __new__(cls, says: str, test: Callable[[Any], bool], *, states: tuple = (),
                found: Callable[[Any], str] | None = None,
                absent: tuple[Callable[[Any], bool], str | Callable[[Any], str]] | None = None,
                instead: tuple[Callable[[Any], bool], str | Callable[[Any], str]] | None = None) -> Guard:
        self = super().__new__(cls, (says, test))
        self.says, self.test, self.states, self.found = says, test, tuple(states), found
        self.absent, self.instead = absent, instead
        return self

    def __reduce__(self):  # pickled (the build cache, the prefill helper) as it was declared
        return (_guard_again, (self.says, self.test, self.states, self.found, self.absent, self.instead))


def _guard_again(says, test, states, found, absent, instead=None) -> Guard:
    return Guard(says, test, states=states, found=found, absent=absent, instead=instead)


def as_guard(declared: Any) -> Guard:
    """A GUARDS entry as a Guard: a plain (says, test) pair is one with nothing more said."""
    return declared if isinstance(declared, Guard) else Guard(*declared)


@dataclass(frozen=True)
class Outcome:
    name: str  # 'chapter.guard'
    says: str
    holds: bool
    read: tuple[tuple[str, Any], ...]  # the fields the test read, and their values
    found: str = ""  # where it fails: what the data shows instead, in a reader's words with the values
    absent: str = ""  # where it fails because the machine did not measure it: what was not measured
    instead: str = ""  # where it fails with a finding that leaves the paragraph's fields empty: that finding

    def in_words(self) -> str:
        """What a reader is told where it fails: what was not measured, what the data shows, or else the claim that
        does not hold."""
        return self.absent or self.instead or self.found or f"not so: {self.says}"

    @property
    def gives_way(self) -> str:
        """Where the paragraph gives way to one sentence (its fields would be empty here): that sentence's words."""
        return self.absent or self.instead

    def what_changed(self) -> str:
        fields = ", ".join(k if v is True and k.startswith("in ") else f"{k} = {_show(v)}" for k, v in self.read)
        return f"{self.name} ({self.says}) does not hold" + (f": {fields}" if fields else "")


def _show(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else repr(v)


class _Recorder:
    """The facts, recording which fields a guard's test reads."""

    def __init__(self, facts: Any) -> None:
        self._facts, self._read = facts, {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._facts, name)
        self._read[name] = value
        return value


def module_of(chapter: str) -> str:
    """The module that declares a chapter's GUARDS: kernelbook/chapters/<chapter>/guards.py, beside its facts."""
    return f"kernelbook.chapters.{chapter}.guards"


def declared(chapter: str) -> dict[str, Guard]:
    """A chapter's GUARDS, each as a Guard."""
    import importlib

    return {k: as_guard(v) for k, v in getattr(importlib.import_module(module_of(chapter)), "GUARDS", {}).items()}


def evaluate(name: str, chapter: str, machine: str | None = None) -> Outcome:
    """Guard `name` ('guard' of `chapter`, or 'other_chapter.guard') on `machine`'s facts under the one rule."""
    chapter, _, short = name.rpartition(".") if "." in name else (chapter, ".", name)
    guards = declared(chapter)
    if short not in guards:
        raise UnknownGuard(f"no guard {short!r} in kernelbook/chapters/{chapter}/guards.py GUARDS "
                           f"(it has: {', '.join(sorted(guards)) or 'none'})")
    book = factbook.book(chapter, machine)
    return _outcome(f"{chapter}.{short}", guards[short], book.facts)


def _outcome(name: str, guard: Guard, facts: Any, label: str = "") -> Outcome:
    rec = _Recorder(facts)
    try:
        ok = bool(guard.test(rec))
    except (TypeError, ValueError, ZeroDivisionError, AttributeError) as e:  # a field it reads is missing (None)
        ok = False
        rec._read["error"] = f"{type(e).__name__}: {e}"
    where = (("in " + label, True),) if label and not ok else ()
    found = absent = instead = ""
    if not ok:
        absent, instead = (_said(lambda f, w=w: _words(w[1], f) if w[0](f) else "", facts) if w else ""
                           for w in (guard.absent, guard.instead))
        found = _said(guard.found, facts) if guard.found else ""
    return Outcome(name, guard.says, ok, (*where, *rec._read.items()), found, absent, instead)


def _words(words: str | Callable[[Any], str], facts: Any) -> str:
    return words if isinstance(words, str) else words(facts)


def _said(words: Callable[[Any], str], facts: Any) -> str:
    """A guard's words on these facts; none where a field they print is missing."""
    try:
        return str(words(facts) or "")
    except (TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError, IndexError):
        return ""


def in_every_run(name: str, chapter: str, machine: str | None = None) -> list[Outcome]:
    """The guard over each older fresh run's words and verdicts (with the medians shown): where it fails, the runs
    do not all bear the paragraph out (`kernelbook check` notes it; the build does not fail on it yet)."""
    chapter, _, short = name.rpartition(".") if "." in name else (chapter, ".", name)
    guard = declared(chapter)[short]
    book = factbook.book(chapter, machine)
    return [o for label, facts in book.each_run
            if not (o := _outcome(f"{chapter}.{short}", guard, facts, label)).holds]


def strict(machine: str | None = None) -> bool:
    """Whether a guard that fails stops the build: on the primary machine of pyproject, not on a reader's GPU, nor
    where KERNELBOOK_GUARDS=flag says the results are not that machine's own (a build over test fixtures)."""
    machine = paths.primary_machine() if machine is None else machine
    return machine == paths.pyproject_primary() and os.environ.get("KERNELBOOK_GUARDS", "strict") != "flag"


def paragraph(markdown: str, name: str, kind: str = "holds") -> str:
    """The first words of the paragraph a guard call stands above, for an error line."""
    for m in CALL.finditer(markdown):
        if m[1] == kind and name in NAME.findall(m[2]):
            rest = markdown[m.end():].lstrip("\n")
            line = next((ln for ln in rest.splitlines() if ln.strip()), "")
            words = re.sub(r"{{.*?}}|{%.*?%}", "…", line).split()
            return " ".join(words[:8]) + (" …" if len(words) > 8 else "")
    return "?"


def calls(markdown: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every holds()/needs() call in a page's Markdown: (kind, guard names)."""
    return [(m[1], tuple(NAME.findall(m[2]))) for m in CALL.finditer(markdown)]


def check_pages(docs: Path | None = None, machine: str | None = None) -> list[str]:
    """One line per guard that a page names and that does not hold on `machine`: what `kernelbook check` prints."""
    docs = paths.root() / "docs" if docs is None else docs
    lines = []
    for md in sorted(docs.glob("*.md")):
        text = md.read_text()
        chapter = chapter_of(md.name)
        for kind, names in dict.fromkeys(calls(text)):  # a call the page makes twice, once
            for name in names:
                try:
                    out = evaluate(name, chapter, machine)
                except UnknownGuard as e:
                    lines.append(f"docs/{md.name}: {e.args[0]}")
                    continue
                except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:  # the facts cannot be computed
                    lines.append(f"docs/{md.name}: guard {name} cannot be evaluated: the facts it reads fail with "
                                 f"{type(e).__name__}: {e}")
                    continue
                if not out.holds:
                    found = f" (here: {out.in_words()})" if out.gives_way or out.found else ""
                    lines.append(f"docs/{md.name}, paragraph \"{paragraph(text, name, kind)}\": "
                                 f"{out.what_changed()}{found}")
    return lines


def unsettled_pages(docs: Path | None = None, machine: str | None = None) -> list[str]:
    """One line per guard that holds on the medians shown but not with some older run's verdicts."""
    docs = paths.root() / "docs" if docs is None else docs
    lines = []
    for md in sorted(docs.glob("*.md")):
        text = md.read_text()
        for kind, names in calls(text):
            for name in names:
                try:
                    found = in_every_run(name, chapter_of(md.name), machine)
                except (UnknownGuard, KeyError, TypeError, ValueError, ZeroDivisionError):
                    continue  # check_pages names these
                lines += [f"docs/{md.name}, paragraph \"{paragraph(text, name, kind)}\": {o.what_changed()}"
                          for o in found[:1]]
    return lines
