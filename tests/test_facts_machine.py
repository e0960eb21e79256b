"""The machine facts on the fixture results, and each verdict driven both ways by the data."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from kernelbook import page
from kernelbook.chapters.machine import facts as F
from kernelbook.chapters.machine import guards as G


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"ceilings": load("machine.ceilings"), "laptop": load("machine.ceilings", F.LAPTOP),
            "eager_bytes": load("memory_bound.eager_bytes"), "gpu": "H200", "sm_count": 132, "l2_bytes": None}


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    c = data["ceilings"]
    assert f.copy_gbps == c["bandwidth"]["copy"]["gbps"] and f.copy_tbps == pytest.approx(f.copy_gbps / 1e3)
    assert f.matmul_n == 8192 and f.copy_gib == 2
    assert f.ridge == c["ridge_flop_per_byte"] and f.laptop_ridge_published == 102
    assert f.laptop_ridge == pytest.approx(25.3e3 / 226)  # the laptop's matmul over its copy, not over DRAM
    assert f.copy_vs_laptop == pytest.approx(f.copy_gbps / 226)
    assert f.eager_us == c["launch"]["eager_us_per_launch"] and f.host_us == c["launch"]["host_enqueue_us"]["median"]
    assert f.ridge_over_swiglu == pytest.approx(f.ridge / (5 / 6))
    assert not f.l2_known and f.l2_mib is None and f.copy_over_l2 is None
    assert F.facts().gpu == "H200"


def test_l2_is_read_when_the_run_recorded_it(data):
    f = F.from_data(**{**data, "l2_bytes": 60 * F.MIB})
    assert f.l2_known and f.l2_mib == 60 and f.copy_over_l2 == pytest.approx(2 * 1024 / 60)


def test_ridge_above_laptop_compares_both_over_the_copy(data):
    laptop_ridge = 25.3e3 / 226
    data["ceilings"]["ridge_flop_per_byte"] = laptop_ridge + 1
    assert F.from_data(**data).ridge_above_laptop
    data["ceilings"]["ridge_flop_per_byte"] = laptop_ridge - 1  # above the article's 102, below its copy-based 112
    assert not F.from_data(**data).ridge_above_laptop


def test_swiglu_is_far_below_the_ridge_only_at_fifty_times(data):
    data["eager_bytes"]["swiglu_intensity"]["fused_flop_per_byte"] = 1.0
    data["ceilings"]["ridge_flop_per_byte"] = F.FAR_BELOW
    assert F.from_data(**data).swiglu_far_below_ridge
    data["ceilings"]["ridge_flop_per_byte"] = F.FAR_BELOW - 1
    assert not F.from_data(**data).swiglu_far_below_ridge


@pytest.mark.parametrize("low, high, verdict", [(8.2, 9.0, "slower"), (7.0, 8.0, "faster"), (7.0, 9.0, "similar")])
def test_host_against_the_laptop_is_similar_when_its_figure_is_inside_our_middle_80(data, low, high, verdict):
    host = data["ceilings"]["launch"]["host_enqueue_us"]
    # 100 samples spread evenly over [low, high], and two wild ones either side that the middle 80% leaves out
    host["values"] = [low + (high - low) * i / 99 for i in range(100)] + [0.1, 500.0]
    f = F.from_data(**data)
    assert f.host_versus_laptop == verdict  # the laptop's 8.1 µs
    assert low <= f.host_us_low < f.host_us_high <= high


def test_launch_noise_is_read_per_figure(data):
    launch = data["ceilings"]["launch"]
    for t in (launch["eager_ms"], launch["graph_ms"], launch["host_enqueue_us"]):
        t["quiet"] = True
    assert F.from_data(**data).launch_noisy_count == 0 and F.from_data(**data).launch_all_quiet
    launch["eager_ms"].update(quiet=False, noise_pct=40.0)
    f = F.from_data(**data)
    assert f.launch_noisy_count == 1 and not f.launch_all_quiet and not f.eager_quiet and f.graph_quiet
    assert f.eager_noise == 40.0 and not f.launch_all_noisy
    for t in (launch["graph_ms"], launch["host_enqueue_us"]):
        t["quiet"] = False
    assert F.from_data(**data).launch_all_noisy
    assert f.eager_samples == launch["eager_ms"]["n"]


def test_host_bound_when_the_middle_of_the_host_samples_lies_above_the_graphs(data):
    launch = data["ceilings"]["launch"]
    host, graph = launch["host_enqueue_us"]["values"], launch["graph_ms"]["values"]
    per_launch = 1e3 / launch["launches"]
    f = F.from_data(**data)
    assert f.host_bound != f.gpu_bound or not (f.host_bound or f.gpu_bound)
    launch["graph_ms"]["values"] = [0.5 * min(host) / per_launch] * len(graph)  # every graph launch below the host
    f = F.from_data(**data)
    assert f.host_bound and not f.gpu_bound
    launch["graph_ms"]["values"] = [2.0 * max(host) / per_launch] * len(graph)  # every one above
    f = F.from_data(**data)
    assert f.gpu_bound and not f.host_bound
    launch["graph_ms"]["values"] = [x / per_launch for x in host]  # the same samples: overlapping
    f = F.from_data(**data)
    assert not f.host_bound and not f.gpu_bound


@pytest.mark.parametrize("speedup, verdict", [(7.25, "less"), (8.0, "as much"), (9.0, "as much"), (9.5, "more")])
def test_graph_speedup_against_the_laptops_range(data, speedup, verdict):
    data["ceilings"]["launch"]["speedup"] = speedup
    assert F.from_data(**data).graph_versus_laptop == verdict


def test_ceiling_noise_is_read_per_figure(data):
    bw, mm = data["ceilings"]["bandwidth"], data["ceilings"]["matmul"]
    for t in (bw["read"], bw["write"], mm):
        t["quiet"] = True
    f = F.from_data(**data)
    assert f.bw_quiet and f.matmul_quiet and f.matmul_noise == mm["noise_pct"]
    bw["write"]["quiet"], mm["quiet"] = False, False
    f = F.from_data(**data)
    assert not f.bw_quiet and not f.matmul_quiet and f.max_samples >= f.min_samples


def _run(d, k_eager=1.0, k_copy=1.0, k_host=1.0):
    """A copy of the run's data with its eager loop k_eager times as long, its copy k_copy times as long, its host
    enqueue k_host times as long (the stored rates and ratios following)."""
    d = copy.deepcopy(d)
    ln, c, h = d["launch"], d["bandwidth"]["copy"], d["launch"]["host_enqueue_us"]
    for t, k in ((ln["eager_ms"], k_eager), (c, k_copy), (h, k_host)):
        for f in ("median", "min", "max"):
            t[f] *= k
        if "values" in t:
            t["values"] = [x * k for x in t["values"]]
    ln["eager_us_per_launch"] *= k_eager
    ln["speedup"] *= k_eager
    c["gbps"] /= k_copy
    return d


def test_one_run_has_no_range(data):
    f = F.from_data(**data)
    assert f.ceilings_runs == 1 and (f.eager_us_low, f.eager_us_high) == (f.eager_us, f.eager_us)
    assert not (f.copy_gbps_runs_vary or f.matmul_tflops_runs_vary or f.eager_us_runs_vary or f.graph_us_runs_vary
                or f.launch_speedup_runs_vary or f.host_us_runs_vary)


def test_runs_further_apart_than_their_spread_vary(data):
    c = data["ceilings"]
    far = F.from_data(**data, runs=[_run(c, k_eager=1.7, k_copy=1.1, k_host=1.7), c])  # 10.8 against 6.3 µs
    assert far.ceilings_runs == 2
    assert far.eager_us_runs_vary and far.launch_speedup_runs_vary and far.copy_gbps_runs_vary
    assert far.host_us_runs_vary and not far.graph_us_runs_vary and not far.matmul_tflops_runs_vary
    e = c["launch"]["eager_us_per_launch"]
    assert (far.eager_us_low, far.eager_us_high, far.eager_us) == (e, pytest.approx(1.7 * e), pytest.approx(1.35 * e))
    assert far.copy_tbps_high == c["bandwidth"]["copy"]["gbps"] / 1e3
    assert far.copy_vs_laptop == pytest.approx(far.copy_gbps / 226)  # the figure shown, across runs
    noise = c["bandwidth"]["copy"]["noise_pct"] / 100
    near = F.from_data(**data, runs=[_run(c, k_copy=1 + noise / 2), c])
    assert not near.copy_gbps_runs_vary and near.copy_gbps < c["bandwidth"]["copy"]["gbps"]


def test_the_graph_speedup_against_the_laptop_reads_the_median_across_runs(data):
    c = data["ceilings"]
    c["launch"]["speedup"] = 10.1
    one = F.from_data(**data)
    assert one.graph_versus_laptop == "more"
    assert (data["laptop"]["graph_speedup_low"], data["laptop"]["graph_speedup_high"]) == (8, 9)
    two = F.from_data(**data, runs=[_run(c, k_eager=7.8 / 10.1), c])  # 7.8× and 10.1×: 8.95× across runs
    assert two.launch_speedup == pytest.approx(8.95) and two.graph_versus_laptop == "as much"


def _guard(name, f):
    return G.GUARDS[name][1](f)


def test_guard_ridge_above_laptop(data):
    f = F.from_data(**data)
    assert _guard("ridge_above_laptop", replace(f, ridge=f.laptop_ridge + 1))
    assert not _guard("ridge_above_laptop", replace(f, ridge=f.laptop_ridge - 1))


def test_guard_write_beats_copy(data):
    f = F.from_data(**data)
    assert _guard("write_beats_copy", replace(f, write_gbps=f.copy_gbps + 1))
    assert not _guard("write_beats_copy", replace(f, write_gbps=f.copy_gbps))
    found = G.GUARDS["write_beats_copy"].found(replace(f, write_gbps=4000.0, copy_gbps=4273.1))
    assert found == "the write-only pass ran at 4,000 GB/s, no faster than the copy's 4,273"


def test_guard_copy_exceeds_l2(data):
    f = F.from_data(**{**data, "l2_bytes": 60 * F.MIB})
    assert _guard("copy_exceeds_l2", f)
    assert not _guard("copy_exceeds_l2", F.from_data(**{**data, "l2_bytes": 4 * F.GIB}))  # the copy fits
    assert not _guard("copy_exceeds_l2", F.from_data(**data))  # L2 not recorded


def test_guards_on_the_ceilings_noise(data):
    f = F.from_data(**data)
    assert _guard("passes_quiet", replace(f, bw_quiet=True))
    assert not _guard("passes_quiet", replace(f, bw_quiet=False))
    assert _guard("matmul_noisy", replace(f, matmul_quiet=False))
    assert not _guard("matmul_noisy", replace(f, matmul_quiet=True))


def test_guard_swiglu_far_below_ridge(data):
    f = F.from_data(**data)
    assert _guard("swiglu_far_below_ridge", replace(f, ridge_over_swiglu=F.FAR_BELOW))
    assert not _guard("swiglu_far_below_ridge", replace(f, ridge_over_swiglu=F.FAR_BELOW - 1))


def test_guard_launches_noisy(data):
    launch = data["ceilings"]["launch"]
    for t in (launch["eager_ms"], launch["graph_ms"], launch["host_enqueue_us"]):
        t["quiet"] = False
    assert _guard("launches_noisy", F.from_data(**data))
    launch["graph_ms"]["quiet"] = True
    assert not _guard("launches_noisy", F.from_data(**data))


def test_guard_host_bound(data):
    launch = data["ceilings"]["launch"]
    host, graph = launch["host_enqueue_us"]["values"], launch["graph_ms"]["values"]
    per_launch = 1e3 / launch["launches"]
    launch["graph_ms"]["values"] = [0.5 * min(host) / per_launch] * len(graph)
    assert _guard("host_bound", F.from_data(**data))
    launch["graph_ms"]["values"] = [x / per_launch for x in host]  # overlapping
    assert not _guard("host_bound", F.from_data(**data))


@pytest.mark.parametrize("low, high, holds", [(7.0, 9.0, True), (8.2, 9.0, False), (7.0, 8.0, False)])
def test_guard_host_as_laptop(data, low, high, holds):
    f = replace(F.from_data(**data), host_us_low=low, host_us_high=high, laptop_host_us=8.1)
    assert _guard("host_as_laptop", f) == holds


def test_guard_eager_paced_by_host(data):
    f = replace(F.from_data(**data), host_us=8.0, eager_noise=10.0, host_noise=10.0)
    assert _guard("eager_paced_by_host", replace(f, eager_us=7.0))
    assert _guard("eager_paced_by_host", replace(f, eager_us=9.5))
    assert not _guard("eager_paced_by_host", replace(f, eager_us=6.0))
    assert not _guard("eager_paced_by_host", replace(f, eager_us=10.0))


def test_guard_graph_gain_below_laptop(data):
    f = F.from_data(**data)
    assert _guard("graph_gain_below_laptop", replace(f, launch_speedup=f.laptop_graph_low - 0.5))
    assert not _guard("graph_gain_below_laptop", replace(f, launch_speedup=f.laptop_graph_low + 0.5))


def test_derived_ratios_divide_the_medians_shown(data):
    f = replace(F.from_data(**data), copy_gbps=4000.0, matmul_tflops=500.0)
    d = F.derive(f)
    assert d["copy_vs_laptop"] == pytest.approx(4000 / f.laptop_copy_gbps)
    assert d["tflops_vs_laptop"] == pytest.approx(500 / f.laptop_tflops)
    assert d["ridge"] == pytest.approx(500e3 / 4000)  # the ridge divides the two medians the page prints
    assert d["ridge_over_swiglu"] == pytest.approx(125 / f.swiglu_flop_per_byte)
    assert d["ridge_above_laptop"] == (125 > f.laptop_ridge)
    assert set(F.DERIVED_FROM) <= set(d) and set(F.DERIVED_FROM) <= set(F.FORMATS)


def _found(name, f):
    return G.GUARDS[name].found(f)


def test_guard_speedup_runs_vary_needs_a_second_run(data):
    one = F.from_data(**data)
    assert not _guard("speedup_runs_vary", one)
    assert _found("speedup_runs_vary", one) == (f"the graph speedup, {one.launch_speedup:.1f}×, comes from a single "
                                                "run, so whether runs disagree needs a second run")
    c = data["ceilings"]
    assert _guard("speedup_runs_vary", F.from_data(**data, runs=[_run(c, k_eager=1.7), c]))
    near = F.from_data(**data, runs=[c, c])
    assert not _guard("speedup_runs_vary", near) and _found("speedup_runs_vary", near).startswith(
        "the graph speedup's 2 runs ran from")
    gone, _ = G.GUARDS["speedup_runs_vary"].absent  # one run: not measured; two within their spread: not so
    assert gone(one) and not gone(near)


def test_each_guard_says_what_fails_with_the_values(data):
    launch = data["ceilings"]["launch"]
    for t, noise in ((launch["eager_ms"], 0.4), (launch["graph_ms"], 0.3)):
        t.update(quiet=True, noise_pct=noise)
    data["ceilings"]["bandwidth"]["read"].update(quiet=False, noise_pct=0.74)
    f = F.from_data(**{**data, "l2_bytes": 4 * F.GIB})
    assert _found("launches_noisy", f) == ("2 of the three launch timings settled: the eager loop (±0.4%), the "
                                           "graph replay (±0.3%)")
    assert _found("passes_quiet", f) == "not every pass settled: read ±0.7% at the cap"
    assert _found("copy_exceeds_l2", f) == "the copied 2,048 MiB fit in the 4,096 MiB L2"
    assert _found("copy_exceeds_l2", F.from_data(**data)).startswith("the run did not record the L2's size")
    assert f"{f.matmul_samples:,} samples" in _found("matmul_noisy", f)
    low = replace(f, ridge=100.0, ridge_over_swiglu=40.0, laptop_host_us=20.0, launch_speedup=9.5,
                  eager_us=f.host_us * 2, eager_noise=10.0, host_noise=10.0)
    assert _found("ridge_above_laptop", low).endswith("its ridge, 100 FLOP per byte, is no further right than the "
                                                      f"laptop's {low.laptop_ridge:.0f}")
    assert "only 40 times below the ridge of 100" in _found("swiglu_far_below_ridge", low)
    assert _found("host_as_laptop", low).startswith("the laptop's 20.0 µs lies outside the middle 80%")
    assert _found("graph_gain_below_laptop", low) == "the graph speedup is 9.5×, against the laptop's 8 to 9×"
    assert _found("eager_paced_by_host", low).endswith("100% apart, more than the two timings' noise of 20%")
    assert "does not lie above the graph replay's" in _found("host_bound", f)
    for name, guard in G.GUARDS.items():
        assert "_" not in guard.says and "FAR_BELOW" not in guard.says, name


GUARD_CASES = {  # each guard and the test that drives it both ways
    "write_beats_copy": test_guard_write_beats_copy,
    "ridge_above_laptop": test_guard_ridge_above_laptop, "copy_exceeds_l2": test_guard_copy_exceeds_l2,
    "passes_quiet": test_guards_on_the_ceilings_noise, "matmul_noisy": test_guards_on_the_ceilings_noise,
    "swiglu_far_below_ridge": test_guard_swiglu_far_below_ridge, "launches_noisy": test_guard_launches_noisy,
    "host_bound": test_guard_host_bound, "eager_paced_by_host": test_guard_eager_paced_by_host,
    "host_as_laptop": test_guard_host_as_laptop, "graph_gain_below_laptop": test_guard_graph_gain_below_laptop,
    "speedup_runs_vary": test_guard_speedup_runs_vary_needs_a_second_run,
}


def test_every_guard_has_a_case():
    assert set(GUARD_CASES) == set(G.GUARDS)
