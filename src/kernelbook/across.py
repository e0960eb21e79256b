"""One figure read across every stored run of the current code (issue 27: "tables and sentences show the median
across runs with the run-to-run range where it is wider than the within-run spread").

    from kernelbook import across, page
    a = across.read("fusing_by_hand.versions", lambda d: d["versions"][2]["time"])
    print(across.cell(a, 4))              # '0.0701 ±0.1%', or '0.0705 ±0.3% (runs 0.0701–0.0709)'

A figure is read from each run as a timing summary: a dict with its `median`, and where the run kept them its
fastest and slowest rounds (`min`, `max`) and, where its timer stopped on bench.py's noise criterion, `noise_pct` and
`quiet` (timing.py's range-only timer keeps `spread_pct` instead). The rules, the same as the "How firm" page's:
  within-run spread   twice its noise where recorded (about the band holding 95% of its samples), else its rounds'
                      (max - min) / median; the widest run's counts. A figure without rounds has none (0 below).
  run-to-run range    the lowest and the highest run median, (high - low) / median across runs as a share
  runs vary           two runs or more, and the run-to-run range wider than the within-run spread
Nothing here measures or is imported by an experiment: it reads what kernelbook.read.fresh_runs returns.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kernelbook import fmt
from kernelbook.read import fresh_runs

Summary = dict[str, Any]


def spread(t: Summary) -> float | None:
    """How far a figure moved within its run, as a share of its median: 2 × noise where recorded, else its rounds'
    range; None where the run kept a single value."""
    if t.get("noise_pct") is not None:
        return 2 * t["noise_pct"] / 100
    if t.get("min") is None or t.get("max") is None or not t["median"]:
        return None
    return (t["max"] - t["min"]) / t["median"]


@dataclass(frozen=True)
class Across:
    """A figure over the runs of the current code, oldest first."""
    median: float  # the median of the runs' medians
    low: float  # the lowest run median
    high: float  # the highest run median
    within: float | None  # the widest within-run spread among the runs (None: no run kept its rounds)
    runs: int
    summaries: tuple[Summary, ...]

    @property
    def range(self) -> float:
        """(highest - lowest run median) over the median across runs: 0 with one run."""
        return (self.high - self.low) / self.median if self.median else 0.0

    @property
    def vary(self) -> bool:
        """Two runs or more whose medians lie further apart than the widest within-run spread."""
        return self.runs > 1 and self.range > (self.within or 0.0)

    def scaled(self, k: float) -> Across:
        """The same figure times k (ms -> µs, a time per loop -> per launch); the spread is relative, unchanged."""
        return Across(self.median * k, self.low * k, self.high * k, self.within, self.runs,
                      tuple(scale(t, k) for t in self.summaries))


def of(summaries: Sequence[Summary]) -> Across:
    """The figure across runs from each run's summary, oldest first (at least one)."""
    if not summaries:
        raise ValueError("a figure across runs needs one run at least")
    meds = [t["median"] for t in summaries]
    spreads = [x for t in summaries if (x := spread(t)) is not None]
    return Across(statistics.median(meds), min(meds), max(meds), max(spreads, default=None), len(meds),
                  tuple(summaries))


def read(name: str, get: Callable[[dict[str, Any]], Summary], machine: str | None = None) -> Across:
    """`get`(run data) -> its summary, over every stored run of the current code of experiment `name`."""
    return of([get(r.data) for r in fresh_runs(name, machine)])


def datas(name: str, machine: str | None = None) -> list[dict[str, Any]]:
    """The data of every stored run of the current code of `name`, oldest first: what a facts module's from_data
    takes to read its headline figures across runs."""
    return [r.data for r in fresh_runs(name, machine)]


# ---- summaries of figures derived from timings --------------------------------------------------------------------

def _noise(ts: Sequence[Summary]) -> dict[str, Any]:
    """The noise keys of a summary derived from independent timings ts (their noise adds in quadrature)."""
    if not all("quiet" in t for t in ts):
        return {}
    noises = [t.get("noise_pct") for t in ts]
    noise = None if None in noises else sum(x * x for x in noises) ** 0.5
    return {"noise_pct": noise, "quiet": all(t["quiet"] for t in ts)}


def _with_spread(t: Summary) -> Summary:
    if "quiet" not in t and t.get("min") is not None and t.get("max") is not None and t["median"]:
        t["spread_pct"] = 100 * (t["max"] - t["min"]) / t["median"]
    return t


def scale(t: Summary, k: float) -> Summary:
    """t times k > 0."""
    out = {"median": t["median"] * k, **_noise([t])}
    if t.get("min") is not None and t.get("max") is not None:
        out.update(min=t["min"] * k, max=t["max"] * k)
    return _with_spread(out)


def rate(k: float, t: Summary) -> Summary:
    """k / t: a rate from a time (its slowest round gives the lowest rate; the same relative noise)."""
    out = {"median": k / t["median"], **_noise([t])}
    if t.get("min") is not None and t.get("max") is not None:
        out.update(min=k / t["max"], max=k / t["min"])
    return _with_spread(out)


def ratio(a: Summary, b: Summary) -> Summary:
    """a / b (a speedup: the slower version's time over the faster's), its range from the extreme rounds: a's
    fastest over b's slowest, and the other way round."""
    out = {"median": a["median"] / b["median"], **_noise([a, b])}
    if None not in (a.get("min"), a.get("max"), b.get("min"), b.get("max")):
        out.update(min=a["min"] / b["max"], max=a["max"] / b["min"])
    return _with_spread(out)


# ---- table cells --------------------------------------------------------------------------------------------------

def runs_note(a: Across, digits: int = 3, scale: float = 1.0) -> str:
    """' (runs 0.0701–0.0709)' where the runs vary and their ends differ at `digits`, else ''."""
    lo, hi = fmt.num(a.low * scale, digits), fmt.num(a.high * scale, digits)
    return f" (runs {lo}–{hi})" if a.vary and lo != hi else ""


def pooled(a: Across) -> Summary:
    """One summary standing for the runs in a cell: the median across runs with the widest run's noise (noisy if
    any run was), or for a range-only timer the widest run's range."""
    ts = a.summaries
    if len(ts) == 1:
        return ts[0]
    if all("quiet" in t for t in ts):
        noises = [t["noise_pct"] for t in ts if t.get("noise_pct") is not None]
        return {"median": a.median, "noise_pct": max(noises) if len(noises) == len(ts) else None,
                "quiet": all(t["quiet"] for t in ts)}
    return {"median": a.median, "spread_pct": max(t.get("spread_pct", 0.0) for t in ts)}


def cell(a: Across, digits: int = 3, scale: float = 1.0) -> str:
    """A figure across runs as a table cell: fmt.timed's cell of its median across runs (with the widest run's
    noise), plus ' (runs a–b)' where two runs or more lie further apart than that spread. One run: fmt.timed."""
    return fmt.timed(pooled(a), digits, scale) + runs_note(a, digits, scale)


def value(a: Across, digits: int = 3, scale: float = 1.0, unit: str = "") -> str:
    """A figure across runs without its noise (a count, a speedup): '6.4×', '6.4× (runs 6.0–10.1)'."""
    return f"{fmt.num(a.median * scale, digits)}{unit}{runs_note(a, digits, scale)}"


def fields(name: str, a: Across) -> dict[str, Any]:
    """A facts module's fields for one figure across runs: `name` (the median across runs), `name_low` and
    `name_high` (the lowest and highest run median) and `name_runs_vary` (the range wider than the spread), which
    the Markdown reads to add 'from a to b over N runs' only then."""
    return {name: a.median, f"{name}_low": a.low, f"{name}_high": a.high, f"{name}_runs_vary": a.vary}
