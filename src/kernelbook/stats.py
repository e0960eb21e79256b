"""Paired comparisons for the pages' verdicts: two things timed in the same rounds (or placements), compared by
the median of their differences and a bootstrap interval around it. One run's medians alone are not a verdict: a
comparison holds only where the interval excludes zero.
"""

from __future__ import annotations

import functools
import statistics
from typing import Any

import numpy as np

CONFIDENCE, RESAMPLES = 0.95, 4000  # the bootstrap interval of a paired median difference


def paired(ours: list[float], rival: list[float]) -> dict[str, Any]:
    """ours minus rival, pair by pair: the median difference, its bootstrap interval at CONFIDENCE (RESAMPLES
    resamples, seeded, so a page reads the same on every build), how many pairs ours was lower on, and the
    verdict: 'ahead' if the interval lies below zero, 'behind' if above, else 'level'."""
    return dict(_paired(tuple(ours), tuple(rival)))


@functools.lru_cache(maxsize=256)  # a page asks for the same pairs many times; each costs RESAMPLES medians
def _paired(ours: tuple[float, ...], rival: tuple[float, ...]) -> dict[str, Any]:
    d = [a - b for a, b in zip(ours, rival, strict=True)]
    meds = sorted(_resampled_medians(d))
    tail = int((1 - CONFIDENCE) / 2 * RESAMPLES)
    low, high = meds[tail], meds[-1 - tail]
    return {"median": statistics.median(d), "low": low, "high": high, "faster": sum(x < 0 for x in d), "n": len(d),
            "verdict": "ahead" if high < 0 else "behind" if low > 0 else "level"}


def _resampled_medians(d: list[float]) -> list[float]:
    """The medians of RESAMPLES resamples of d, drawn as `random.Random(0).choices(d, k=len(d))` draws them, one
    resample after another, in one array: the same Mersenne Twister seeded the same way (init_by_array([0])), the same
    53-bit doubles, the same floor(u * n) picks, the same median of each (the middle one, or the mean of the middle
    two), about three times faster. tests/test_stats.py holds it to the standard library draw by draw."""
    n = len(d)
    picks = np.floor(np.random.RandomState([0]).random_sample(RESAMPLES * n) * n).astype(np.int64)
    meds = np.median(np.asarray(d, dtype=np.float64)[picks.reshape(RESAMPLES, n)], axis=1).tolist()
    if n % 2 and all(isinstance(x, int) for x in d):  # an odd count of whole numbers: the middle one, still whole
        meds = [int(m) for m in meds]
    return meds
