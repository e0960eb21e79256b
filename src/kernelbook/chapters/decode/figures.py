"""How the decode page's figures are computed from the stored runs of decode.six_ways: a verdict between two ways
read from their timing rounds, a way's step as a timing summary, the way with the largest median figure over the runs,
the round after the profiles over the runs, and the headline step times across runs (kernelbook.across)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any, Literal

from kernelbook import across
from kernelbook.decode import report

Versus = Literal["slower", "faster", "mixed"]  # a against b: median and most rounds agree, or they do not
Range = Literal["below", "inside", "above"]
ItemOutcome = Literal["raised", "silent", "no_report"]


def versus(data: dict[str, Any], s: dict[str, dict[str, Any]], a: str, b: str) -> tuple[Versus, float, int]:
    """(verdict of a against b, |median difference| in ms, rounds a was faster)."""
    faster, n = report.rounds_faster(data, a, b)
    diff = s[a]["step_ms"] - s[b]["step_ms"]
    if diff > 0 and 2 * (n - faster) > n:
        verdict: Versus = "slower"
    elif diff < 0 and 2 * faster > n:
        verdict = "faster"
    else:
        verdict = "mixed"
    return verdict, abs(diff), faster


def range_of(x: float, low: float, high: float) -> Range:
    return "below" if x < low else "above" if x > high else "inside"


def item_outcome(item: dict[str, Any]) -> ItemOutcome:
    return "raised" if item.get("raised") else "no_report" if item.get("raised") is None else "silent"


def step_summary(d: dict[str, Any], name: str) -> dict[str, Any]:
    """One way's step time in a decode.six_ways run as a timing summary: the median of its rounds, their fastest
    and slowest, and the noise the rounds recorded where they did."""
    s = report.variant_summary(d, name)
    t = {"median": s["step_ms"], "min": s["step_min_ms"], "max": s["step_max_ms"], "spread_pct": 100 * s["spread"]}
    if s["quiet"] is not None:
        t.update(noise_pct=s["noise_pct"], quiet=s["quiet"])
    return t


def most(runs: Sequence[dict[str, Any]], get: Callable[[dict[str, Any]], float | None]) -> str:
    """The way whose figure (`get` of its report.variant_summary) has the largest median over the runs: the
    noisiest, the widest, chosen from every run alike, so that the one rule's medians are of one way's figure."""
    per = [report.summaries(d) for d in runs]

    def med(name: str) -> float:
        xs = [x for s in per if name in s and (x := get(s[name])) is not None]
        return statistics.median(xs) if xs else float("-inf")
    return max(runs[-1]["names"], key=med)


def after_across(runs: Sequence[dict[str, Any]], name: str) -> dict[str, float] | None:
    """Way `name`'s round after the profiles (report.after_profiler) over the runs that timed one: the median over
    them of its step ms and host µs per step, in the rounds (`before_ms`, `before_host_us`) and in that round
    (`step_ms`, `host_us`). None where no run timed one."""
    xs = [a for d in runs if (a := report.after_profiler(d, name))]
    if not xs:
        return None
    return {k: statistics.median(a[k] for a in xs) for k in ("before_ms", "step_ms", "before_host_us", "host_us")}


def after_worst(runs: Sequence[dict[str, Any]]) -> str | None:
    """The way whose host time per step grew most in the round after the profiles, by the medians over runs."""
    med = {n: a for n in runs[-1]["names"] if (a := after_across(runs, n))}
    return max(med, key=lambda n: med[n]["host_us"] - med[n]["before_host_us"]) if med else None


def headline_steps(runs: Sequence[dict[str, Any]], best: str | None) -> dict[str, Any]:
    """The headline step times across runs; best: the newest run's best valid way (None: none)."""
    def of(name: str) -> across.Across:
        return across.of([step_summary(d, name) for d in runs])

    out = {"six_runs": len(runs), **across.fields("dyn_ms", of("eager_dynamic")),
           **across.fields("static_ms", of("eager_static")), **across.fields("graph_ms", of("cuda_graph")),
           **across.fields("ro_ms", of("compile_reduce_overhead"))}
    if best is None:
        return {**out, "best_ms": None, "best_ms_low": None, "best_ms_high": None, "best_ms_runs_vary": False}
    return {**out, **across.fields("best_ms", of(best))}


def after_fields(d: dict[str, Any], runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The Facts' fields of the round after the profiles: whether run `d` (the newest) timed one, and the way
    after_worst chooses over `runs`, with its host µs per step in `d`'s rounds and in that round."""
    after = {n: a for n in d["names"] if (a := report.after_profiler(d, n))}
    worst_after_name = after_worst(runs) if after else None
    worst_after = after.get(worst_after_name) if worst_after_name else None
    return dict(
        has_after_profiler=bool(after), after_worst_label=d["labels"][worst_after_name] if worst_after_name else "",
        after_worst_before_us=worst_after["before_host_us"] if worst_after else None,
        after_worst_host_us=worst_after["host_us"] if worst_after else None,
        after_worst_added_us=worst_after["added_host_us"] if worst_after else None,
        after_worst_share=worst_after["added_host_us"] / worst_after["before_host_us"] if worst_after else None,
        after_grew=bool(worst_after) and worst_after["added_host_us"] > 0,
    )
