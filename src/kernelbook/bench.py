"""Timers that stop on a noise criterion, not after a fixed count.

A figure is sampled until it is quiet: at least MIN_SAMPLES samples whose relative standard deviation (standard
deviation over mean) is at most BOUND_PCT, or until a time cap. These are nvbench's defaults and its definition of
noise (`--min-samples 10`, `--max-noise 0.5`, in percent). A figure that reaches the cap still noisier than its
bound is kept, marked `quiet: false`: a page shows it as noisy, and it cannot decide a verdict on its own.

A *sample* is whatever one call of the sampler measures: a do_bench median (`bench`), or one round of an
interleaved comparison (`rounds_until_quiet`), where every version is timed once per round so that drift hits all
alike, and the rounds go on until every version is quiet.

Experiments move onto these timers chapter by chapter; `timing.py` keeps the fixed-count timers until the last
chapter has moved, so that a chapter not yet re-measured keeps its code, and its results stay fresh.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

BOUND_PCT = 0.5  # the noise a figure may keep: relative standard deviation of its samples, percent
MIN_SAMPLES = 10
CAP_S = 10.0  # seconds one figure (or one interleaved comparison) may sample for
MAX_SAMPLES = 1000


def noise_pct(values: list[float]) -> float:
    """Relative standard deviation of the samples, in percent (infinite with fewer than two)."""
    if len(values) < 2:
        return float("inf")
    mean = statistics.fmean(values)
    return 100.0 * statistics.stdev(values) / abs(mean) if mean else float("inf")


def quiet_summary(values: list[float], bound_pct: float, stopped: str, elapsed_s: float,
                  min_samples: int = MIN_SAMPLES) -> dict[str, Any]:
    """Median, min, max, spread (max - min over median, percent), the samples, and the noise against its bound."""
    med = statistics.median(values)
    noise = noise_pct(values)
    return {"median": med, "min": min(values), "max": max(values), "n": len(values),
            "spread_pct": 100.0 * (max(values) - min(values)) / med if med else 0.0, "values": values,
            "noise_pct": noise if noise != float("inf") else None, "bound_pct": bound_pct,
            "quiet": len(values) >= min_samples and noise <= bound_pct, "stopped": stopped,
            "elapsed_s": elapsed_s}


def _stop(n: int, noisy: bool, elapsed: float, min_samples: int, max_samples: int, cap_s: float) -> str | None:
    """Why sampling stops now, or None: 'quiet', 'cap' (time) or 'limit' (sample count)."""
    if n < min_samples:
        return None
    if not noisy:
        return "quiet"
    if elapsed >= cap_s:
        return "cap"
    return "limit" if n >= max_samples else None


def until_quiet(sample: Callable[[], float], bound_pct: float = BOUND_PCT, min_samples: int = MIN_SAMPLES,
                cap_s: float = CAP_S, max_samples: int = MAX_SAMPLES,
                clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """Calls sample() until the samples are quiet, or the cap; returns quiet_summary of them."""
    values: list[float] = []
    t0 = clock()
    while True:
        values.append(float(sample()))
        elapsed = clock() - t0
        why = _stop(len(values), noise_pct(values) > bound_pct, elapsed, min_samples, max_samples, cap_s)
        if why:
            return quiet_summary(values, bound_pct, why, elapsed, min_samples)


def rounds_until_quiet(one_round: Callable[[int], dict[str, float]], bound_pct: float = BOUND_PCT,
                       min_rounds: int = MIN_SAMPLES, cap_s: float = CAP_S, max_rounds: int = MAX_SAMPLES,
                       clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """Interleaved rounds: one_round(i) times every version once and returns {version: figure}. Rounds go on until
    every version is quiet, or the cap. Returns {"versions": {version: quiet_summary}, "rounds": n, "stopped",
    "elapsed_s"}. A version missing from a round (it failed) is left out of that round only."""
    vals: dict[str, list[float]] = {}
    t0, i = clock(), 0
    while True:
        for name, v in one_round(i).items():
            vals.setdefault(name, []).append(float(v))
        i += 1
        elapsed = clock() - t0
        noisy = any(noise_pct(v) > bound_pct for v in vals.values())
        why = _stop(i, noisy, elapsed, min_rounds, max_rounds, cap_s)
        if why:
            return {"versions": {k: quiet_summary(v, bound_pct, why, elapsed, min_rounds) for k, v in vals.items()},
                    "rounds": i, "stopped": why, "elapsed_s": elapsed, "bound_pct": bound_pct,
                    "min_rounds": min_rounds, "cap_s": cap_s}


def bench(fn: Callable[[], Any], rep_ms: int = 50, warmup_ms: int = 25, **kw: Any) -> dict[str, Any]:
    """ms per call of fn: triton.testing.do_bench medians of about rep_ms each (L2 cleared before every call),
    sampled until quiet (keywords as until_quiet)."""
    from triton.testing import do_bench

    return until_quiet(lambda: do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median"), **kw)
