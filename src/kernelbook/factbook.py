"""A chapter's facts under the site's one rule, with the way each figure was obtained.

The rule, for every figure a page shows: **the median over the fresh runs of the current code of each run's
figure**. A chapter's `facts.py` is written for one run (it reads `read.result`, the newest run of each experiment);
this module computes it once more for every older fresh run of each experiment it read, sees which experiments each
numeric field depends on, and replaces the field by its median over those runs:

    field depends on           its value                                   its source (a number's hover text)
    no experiment that moved   the newest run's (the same in every run)    "the same in all 3 runs"
    one experiment             median over that experiment's fresh runs    "median of 3 runs, 12-01 to 12-03, 3.19–3.36"
    several experiments        median over their runs taken newest-first   likewise, over as many runs as they share

Booleans, verdicts, words and tables are the newest run's. A chapter that reads every stored run itself (the
stability page, the claims ledger) sets `ONE_RULE = False` and says how in `RULE`, its numbers' hover text. A field
that the chapter already takes across runs itself (kernelbook.across.fields: no pick moves it, and the runs' ends
beside it, `<name>_runs_low`/`_runs_high` or `<name>_low`/`_high`) keeps its value and gets that range. A module may
define `derive(facts) -> dict` for the ratios and shares a page prints beside their figures: they are computed again
from the medians, so that a ratio always reads as the figures next to it divide.

A field that is the least or the most over a run's rounds (an interval's ends) is the lowest or highest over the runs
instead, where the module lists it in `EXTREMES = {"saved_low_us": min, "saved_high_us": max}`.

    book = factbook.book("decode")          # computed once per build and machine
    book.facts.best_ms, book.sources["best_ms"].title   # 3.21, 'median of 2 runs, 2026-12-01 to 12-03 …'
"""

from __future__ import annotations

import dataclasses
import importlib
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernelbook import paths, read, store

PUBLISHED = ("laptop_", "article_")  # a field named so quotes the article's published record, not a run of ours


SPREAD_RULES = ("median", "median_low", "across", "min", "max", "lowest", "highest")  # over runs: one run, no spread


@dataclass(frozen=True)
class Source:
    """How one field was obtained: the text a reader sees on hovering it."""
    rule: str  # median, median_low, lowest, highest, same, newest, derived, across, own, published, min, max
    runs: tuple[str, ...] = ()  # the runs' start stamps, oldest first
    low: float | None = None
    high: float | None = None
    experiments: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()  # a derived field's figures

    @property
    def title(self) -> str:
        days = sorted({r[:8] for r in self.runs})
        span = "" if not days else (f", {_day(days[0])}" if len(days) == 1
                                     else f", {_day(days[0])} to {_day(days[-1])}")
        what = " from " + ", ".join(self.experiments) if self.experiments else ""
        if self.rule in SPREAD_RULES and len(self.runs) == 1:  # no spread: say what would
            return f"one run{span}{what}; a second run would show how firm it is"
        if self.rule in ("min", "max"):
            which = "lowest" if self.rule == "min" else "highest"
            return f"the {which} over {len(self.runs)} runs{span}, runs {_g(self.low)} to {_g(self.high)}{what}"
        if self.rule in ("median", "across"):
            rng = "" if self.low is None else f", runs {_g(self.low)} to {_g(self.high)}"
            return f"median of {len(self.runs)} run{'s' * (len(self.runs) != 1)}{span}{rng}{what}"
        if self.rule == "median_low":  # a count over an even number of runs: the lower of the middle two, a count
            rng = "" if self.low is None else f", runs {_g(self.low)} to {_g(self.high)}"
            which = "the lower of 2 runs" if len(self.runs) == 2 else \
                f"the lower middle value of {len(self.runs)} runs"
            return f"{which}{span}{rng}{what}"
        if self.rule == "same":
            return f"the same in all {len(self.runs)} runs{span}{what}"
        if self.rule in ("lowest", "highest"):  # an end of a range the chapter takes across runs itself
            return f"the {self.rule} run's figure of {len(self.runs)} run{'s' * (len(self.runs) != 1)}{span}{what}"
        if self.rule == "derived":
            return "computed from the medians of " + ", ".join(self.inputs)
        if self.rule == "own":
            return self.inputs[0]
        if self.rule == "published":
            return "the article's figure, from its published record (RTX 4060 Laptop)"
        return f"newest run{'s' * (len(self.runs) > 1)}{span}{what}"


def _g(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"


def _day(stamp: str) -> str:
    return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"


@dataclass(frozen=True)
class Book:
    chapter: str
    machine: str
    facts: Any
    sources: dict[str, Source]
    read: tuple[store.Result, ...]  # every run the facts read, older ones too: the page's stale warning and foot
    # each older fresh run's words and verdicts over the medians shown ('decode_far.ladder, run 20261202T212537Z',
    # facts): a guard must hold in every run (kernelbook.guards), not in the newest alone
    each_run: tuple[tuple[str, Any], ...] = ()


def _numeric(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _median(values: list[Any]) -> Any:
    if all(isinstance(v, int) for v in values):
        return statistics.median_low(values)
    return statistics.median(values)


def _median_rule(values: list[Any]) -> str:
    """How _median took these values: a count over an even number of runs is the lower middle one, not a mean."""
    return "median_low" if all(isinstance(v, int) for v in values) and len(values) % 2 == 0 else "median"


def _compute(module: Any, machine: str, picks: dict[str, int], runs_read: list[store.Result]) -> Any:
    """The module's facts with the picked older runs read instead of the newest; the runs it read join runs_read."""
    with read.picking(picks), read.collecting() as got:
        facts = module.facts(machine)
    runs_read += got
    return facts


def compute(chapter: str, machine: str | None = None) -> Book:
    """`chapter`'s facts on `machine` under the one rule (see the module's docstring)."""
    machine = paths.primary_machine() if machine is None else machine
    with store.held(), paths.computing_for(machine):  # one computation per run reads the same files: each once
        return _compute_book(chapter, machine)


def _compute_book(chapter: str, machine: str | None) -> Book:
    machine = paths.primary_machine() if machine is None else machine
    module = importlib.import_module(f"kernelbook.chapters.{chapter}.facts")
    read.asked_across.clear()
    read.asked_one.clear()
    with read.collecting() as got:
        base = module.facts(machine)
    across, picked = sorted(read.asked_across), set(read.asked_one)  # a pick moves only what was read one run at a time
    names = [f.name for f in dataclasses.fields(base)]
    mine = {r.experiment: r for r in got if r.machine == machine and not r.published}
    runs = {e: [r for r in store.runs(e, machine) if r.status == store.FRESH] for e in mine}
    values: dict[str, dict[str, list[Any]]] = {}  # experiment -> field -> values, newest run first
    older: list[tuple[str, Any]] = []  # (which run, its facts) for every older fresh run read
    extremes = getattr(module, "EXTREMES", {})  # a field that is the least or most over rounds: min or max over runs
    if not getattr(module, "ONE_RULE", True):  # a chapter that reads every stored run itself says how
        own = Source("own", inputs=(module.RULE,))
        return Book(chapter, machine, base, dict.fromkeys(names, own), tuple(got))
    for e, rs in runs.items():
        if len(rs) < 2 or e not in picked:
            continue
        variants = [base] + [_compute(module, machine, {e: k}, got) for k in range(1, len(rs))]
        values[e] = {n: [getattr(v, n) for v in variants] for n in names}
        older += [(f"{e}, run {rs[-1 - k].run}", v) for k, v in enumerate(variants) if k]
    out: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for n in names:
        x = getattr(base, n)
        stamps = lambda e, k=None: tuple(r.run for r in (runs[e] if k is None else runs[e][len(runs[e]) - k:]))  # noqa: E731
        if not _numeric(x):
            sources[n] = Source("published") if n.startswith(PUBLISHED) else Source(
                "newest", tuple(sorted(r.run for r in mine.values())))
            continue
        deps = [e for e in values if any(v != x for v in values[e][n])]
        ends = next(((lo, hi) for lo, hi in ((n + "_runs_low", n + "_runs_high"), (n + "_low", n + "_high"))
                     if lo in names and hi in names), None)
        if not deps and ends and across:  # taken across runs by the chapter itself, with the runs' range beside it
            es = tuple(e for e in across if e in runs) or tuple(mine)
            biggest = max(es, key=lambda e: len(runs[e]), default=None)
            sources[n] = Source("across", stamps(biggest) if biggest else (), getattr(base, ends[0]),
                                getattr(base, ends[1]), es if len(es) == 1 else ())
            continue
        if not deps and n.startswith(PUBLISHED):
            sources[n] = Source("published")
            continue
        stem = next((n[:-len(end)] for end in ("_runs_low", "_runs_high", "_low", "_high") if n.endswith(end)), None)
        if not deps and across and stem in names:  # an end of a figure's range that the chapter took across runs
            es = tuple(e for e in across if e in runs) or tuple(mine)
            biggest = max(es, key=lambda e: len(runs[e]), default=None)
            sources[n] = Source("lowest" if n.endswith("_low") else "highest", stamps(biggest) if biggest else (),
                                experiments=es if len(es) == 1 else ())
            continue
        if not deps:
            every = [e for e in values]
            sources[n] = (Source("same", stamps(every[0]), experiments=tuple(every)) if every
                          else Source("newest", tuple(sorted(r.run for r in mine.values())),
                                      experiments=tuple(mine)))
            continue
        if len(deps) == 1:
            vals = values[deps[0]][n]
            e = deps[0]
            pick = extremes.get(n)
            out[n] = _median(vals) if pick is None else pick(vals)
            rule = pick.__name__ if pick is not None else _median_rule(vals)
            sources[n] = Source(rule, stamps(e), min(vals), max(vals), (e,))
            continue
        k_runs = min(len(runs[e]) for e in deps)
        vals = [x] + [getattr(_compute(module, machine, dict.fromkeys(deps, k), got), n) for k in range(1, k_runs)]
        out[n] = _median(vals)
        sources[n] = Source(_median_rule(vals), stamps(deps[0], k_runs), min(vals), max(vals), tuple(deps))
    medians = dataclasses.replace(base, **out) if out else base
    derive = getattr(module, "derive", None)

    def derived(f: Any) -> Any:
        return dataclasses.replace(f, **derive(f)) if derive is not None else f

    facts = derived(medians)
    for n, inputs in getattr(module, "DERIVED_FROM", {}).items():
        sources[n] = Source("derived", inputs=tuple(inputs))
    words = [n for n in names if not _numeric(getattr(base, n))]  # what an older run may say otherwise
    each_run = tuple((label, derived(dataclasses.replace(medians, **{n: getattr(v, n) for n in words})))
                     for label, v in older)
    once = {(r.experiment, r.machine, r.run): r for r in got}  # the newest runs and the older ones the rule read
    return Book(chapter, machine, facts, sources, tuple(once.values()), each_run)


_books: dict[tuple[str, str, tuple], Book] = {}
_keep: list[Callable[[str, str, Callable[[], Book]], Book]] = [lambda kind, key, compute: compute()]


def keep_with(cache: Callable[[str, str, Callable[[], Book]], Book]) -> None:
    """Keep computed books in `cache(kind, key, compute)` from here on: a site build hands in its build cache
    (kernelbook.buildcache.cached), which keeps them on disk between builds with the same inputs."""
    _keep[0] = cache


def book(chapter: str, machine: str | None = None) -> Book:
    """compute(), once per build, machine and results folder; the runs it read count as shown by the asker."""
    machine = paths.primary_machine() if machine is None else machine
    key = (chapter, machine, tuple(paths.results_dirs()))
    if key not in _books:  # a site build keeps it on disk between builds with the same inputs (kernelbook.buildcache)
        _books[key] = _keep[0]("facts", repr(key), lambda: compute(chapter, machine))
    for res in _books[key].read:  # whoever asks (a page, another chapter's facts) shows what these facts rest on,
        read.note(res)  # whether they were computed now or earlier in the build
    return _books[key]


def clear() -> None:
    _books.clear()
