"""kernelbook.stats.paired: the verdict follows the bootstrap interval of the median paired difference."""

from __future__ import annotations

import pytest

from kernelbook import stats


def test_a_difference_every_pair_shows_is_ahead_or_behind():
    base = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.15]
    lower = [b - 0.01 for b in base]
    ahead = stats.paired(lower, base)
    assert ahead["verdict"] == "ahead" and ahead["faster"] == ahead["n"] == 7
    assert ahead["median"] == pytest.approx(-0.01) and ahead["low"] <= ahead["median"] <= ahead["high"] < 0
    assert stats.paired(base, lower)["verdict"] == "behind"


def test_differences_on_both_sides_of_zero_are_level():
    base = [1.0] * 8
    mixed = [1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.0, 1.0]
    r = stats.paired(mixed, base)
    assert r["verdict"] == "level" and r["low"] <= 0 <= r["high"] and r["faster"] == 3


def test_one_outlier_round_does_not_turn_the_verdict():
    """The median's interval, not the range: 30 rounds faster by 10 and one slower by 2 stay ahead."""
    base = [100.0] * 31
    ours = [90.0] * 30 + [102.0]
    assert stats.paired(ours, base)["verdict"] == "ahead"


def test_it_is_seeded_and_refuses_unpaired_lists():
    """Two computations from scratch, not the cache's copy of one: the resampling is seeded."""
    a, b = (1.0, 1.3, 0.8, 1.1, 0.9), (1.1, 1.2, 0.9, 1.0, 1.05)
    fresh = stats._paired.__wrapped__
    assert fresh(a, b) == fresh(a, b) == stats.paired(list(a), list(b))
    with pytest.raises(ValueError):
        stats.paired([1.0, 2.0], [1.0])


@pytest.mark.parametrize("seed", range(40))
def test_the_resampled_medians_are_the_standard_librarys_draw_by_draw(seed):
    """The array draw (numpy) against `random.Random(0).choices` resample by resample: the same medians in the same
    order, odd and even counts, floats of every size and whole numbers."""
    import random
    import statistics

    r = random.Random(seed)
    n = r.randint(1, 45)
    d = ([r.randint(-50, 50) for _ in range(n)] if seed % 4 == 0
         else [r.gauss(0, 1) * 10 ** r.randint(-9, 3) for _ in range(n)])
    rng = random.Random(0)
    by_hand = [statistics.median(rng.choices(d, k=n)) for _ in range(stats.RESAMPLES)]
    got = stats._resampled_medians(d)
    assert got == by_hand and [type(x) for x in got] == [type(x) for x in by_hand]
