"""Paired comparisons for the pages' verdicts: two things timed in the same rounds (or placements), compared by
the median of their differences and a bootstrap interval around it. One run's medians alone are not a verdict: a
comparison holds only where the interval excludes zero.
"""

from __future__ import annotations

import functools
import random
import statistics
from typing import Any

CONFIDENCE, RESAMPLES = 0.95, 4000  # the bootstrap interval of a paired median difference


def paired(ours: list[float], rival: list[float]) -> dict[str, Any]:
    """ours minus rival, pair by pair: the median difference, its bootstrap interval at CONFIDENCE (RESAMPLES
    resamples, seeded, so a page reads the same on every build), how many pairs ours was lower on, and the
    verdict: 'ahead' if the interval lies below zero, 'behind' if above, else 'level'."""
    return dict(_paired(tuple(ours), tuple(rival)))


@functools.lru_cache(maxsize=256)  # a page asks for the same pairs many times; each costs RESAMPLES medians
def _paired(ours: tuple[float, ...], rival: tuple[float, ...]) -> dict[str, Any]:
    d = [a - b for a, b in zip(ours, rival, strict=True)]
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(d, k=len(d))) for _ in range(RESAMPLES))
    tail = int((1 - CONFIDENCE) / 2 * RESAMPLES)
    low, high = meds[tail], meds[-1 - tail]
    return {"median": statistics.median(d), "low": low, "high": high, "faster": sum(x < 0 for x in d), "n": len(d),
            "verdict": "ahead" if high < 0 else "behind" if low > 0 else "level"}
