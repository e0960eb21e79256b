"""The noise criterion: sampling stops when the figure is quiet, goes on while it is noisy, and a figure that
reaches the cap still noisy says so."""

from __future__ import annotations

import itertools

import pytest

from kernelbook import bench


def ticking(step: float = 1.0):
    """A clock that advances `step` seconds each time it is read."""
    t = itertools.count()
    return lambda: next(t) * step


def test_noise_is_the_relative_standard_deviation():
    assert bench.noise_pct([1.0, 1.0, 1.0]) == 0.0
    assert bench.noise_pct([0.9, 1.1]) == pytest.approx(100 * (0.2 / 2 ** 0.5) / 1.0)
    assert bench.noise_pct([1.0]) == float("inf")


def test_a_quiet_figure_stops_at_the_minimum():
    out = bench.until_quiet(lambda: 2.0, min_samples=10, cap_s=1e9, clock=ticking())
    assert out["n"] == 10 and out["quiet"] and out["stopped"] == "quiet" and out["median"] == 2.0
    assert out["noise_pct"] == 0.0 and out["bound_pct"] == bench.BOUND_PCT


def test_a_noisy_figure_goes_on_until_it_settles():
    values = iter([1.0, 1.2] + [1.1] * 10_000)  # two wild samples, then steady ones
    out = bench.until_quiet(lambda: next(values), min_samples=10, cap_s=1e9, clock=ticking())
    assert out["n"] > 10 and out["quiet"] and out["stopped"] == "quiet"
    assert bench.noise_pct(out["values"]) <= bench.BOUND_PCT < bench.noise_pct(out["values"][:-1])


def test_a_figure_still_noisy_at_the_cap_is_marked_noisy():
    values = itertools.cycle([1.0, 1.2])
    out = bench.until_quiet(lambda: next(values), min_samples=10, cap_s=15.0, clock=ticking())
    assert out["stopped"] == "cap" and not out["quiet"] and out["noise_pct"] > bench.BOUND_PCT
    assert 10 <= out["n"] <= 16  # one clock reading per sample after the start: the cap falls at sample 15


def test_the_sample_limit_stops_a_noisy_figure_too():
    values = itertools.cycle([1.0, 1.2])
    out = bench.until_quiet(lambda: next(values), min_samples=3, cap_s=1e9, max_samples=7, clock=ticking())
    assert out["stopped"] == "limit" and out["n"] == 7 and not out["quiet"]


def test_too_few_samples_are_never_quiet():
    out = bench.quiet_summary([1.0, 1.0], bench.BOUND_PCT, "cap", 0.0, min_samples=10)
    assert not out["quiet"]


def test_rounds_go_on_until_every_version_is_quiet():
    calm = itertools.repeat(1.0)
    rough = iter([1.0, 1.02, 1.0, 1.02] + [1.01] * 10_000)

    def one_round(i):
        return {"calm": next(calm), "rough": next(rough)}

    out = bench.rounds_until_quiet(one_round, min_rounds=4, cap_s=1e9, clock=ticking())
    assert out["stopped"] == "quiet" and out["rounds"] > 4
    assert all(v["quiet"] for v in out["versions"].values())
    assert out["versions"]["calm"]["n"] == out["versions"]["rough"]["n"] == out["rounds"]  # one each per round


def test_rounds_stop_at_the_cap_and_keep_the_noisy_version_marked():
    rough = itertools.cycle([1.0, 1.3])
    out = bench.rounds_until_quiet(lambda i: {"calm": 1.0, "rough": next(rough)}, min_rounds=4, cap_s=6.0,
                                   clock=ticking())
    assert out["stopped"] == "cap" and out["rounds"] == 6
    assert out["versions"]["calm"]["quiet"] and not out["versions"]["rough"]["quiet"]


def test_a_version_that_fails_in_a_round_is_left_out_of_that_round_only():
    out = bench.rounds_until_quiet(lambda i: {"a": 1.0, **({"b": 2.0} if i % 2 else {})}, min_rounds=4,
                                   cap_s=1e9, clock=ticking())
    assert out["versions"]["a"]["n"] == out["rounds"] and out["versions"]["b"]["n"] == out["rounds"] // 2
