"""The stability facts on the fixture results, and each verdict driven both ways by the data: a second run of the
current code or an earlier-code run is a deep copy of the fixture run, changed where the test says."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import re

import pytest

from kernelbook import page, paths
from kernelbook.chapters.stability import facts as F
from kernelbook.chapters.stability import figures as FG
from kernelbook.chapters.stability import guards as G
from tests.conftest import run_file


def _fig(f, key):
    return next(x for x in f.figures if x.key == key)


@pytest.fixture
def runs(fixture_results):
    """One current run of each experiment, as facts() reads it from the fixtures."""
    return {name: [FG.run_of(page.result(name), True)] for name in FG.EXPERIMENTS}


def _another(runs, name, current, started, change=None):
    """A deep copy of the experiment's fixture run, changed by change(data), added as a run that started before
    (started < the fixture's) or after the fixture run."""
    base = runs[name][-1]
    d = copy.deepcopy(base.data)
    if change:
        change(d)
    new = dataclasses.replace(base, data=d, current=current, started=started)
    runs[name] = sorted([*runs[name], new], key=lambda r: (r.started, r.current))
    return new


def _time(d, op, key):
    return next(v for v in d["versions"] if (v["op"], v["key"]) == (op, key))["time"]


def _fixed(t):
    """A timing summary as a fixed-count timer stores it: no noise criterion, so its range is its spread."""
    for k in ("noise_pct", "bound_pct", "quiet", "stopped", "elapsed_s"):
        t.pop(k, None)
    return t


def _scale(x, k):
    for field in ("median", "min", "max"):
        x[field] *= k


def _slower_eager(d, k):
    """The eager launch loop k times slower, and the figures stored from it with it."""
    ln = d["launch"]
    _scale(ln["eager_ms"], k)
    ln["eager_us_per_launch"] *= k
    ln["speedup"] *= k


def test_the_fixture_reads_as_stored(runs):
    f = F.from_data(runs, "H200")
    assert f.n_figures == len(FG.SPECS) == len(f.figures) and 15 <= f.n_figures <= 30
    assert f.experiments == len(FG.EXPERIMENTS) and f.current_runs == f.experiments and f.earlier_runs == 0
    assert f.one_current_each and f.any_one_current and not f.any_earlier and f.earlier_first == ""
    c = runs["machine.ceilings"][0].data
    copy_ = c["bandwidth"]["copy"]
    assert _fig(f, "copy").median == pytest.approx(copy_["gbps"] / 1e3)  # the stored rate, as the machine page reads
    assert _fig(f, "launch_eager").median == pytest.approx(c["launch"]["eager_us_per_launch"])
    e, g_ = c["launch"]["eager_ms"], c["launch"]["graph_ms"]
    if e["noise_pct"] is not None and g_["noise_pct"] is not None:  # timed until quiet: twice the noises in quadrature
        want = 2 * (e["noise_pct"] ** 2 + g_["noise_pct"] ** 2) ** 0.5 / 100
    else:  # the extreme ratio each way
        want = (e["max"] / g_["min"] - e["min"] / g_["max"]) / (e["median"] / g_["median"])
    assert _fig(f, "launch_speedup").within == pytest.approx(want)
    t = _time(runs["fusing_by_hand.versions"][0].data, "swiglu", "compiled")
    g = _fig(f, "fusion_swiglu_compiled")
    assert g.median == t["median"] and g.within == pytest.approx(2 * t["noise_pct"] / 100)
    for x in f.figures:
        assert x.current_runs == 1 and x.current_range is None and x.earlier_runs == 0 and x.earlier_low is None
        assert x.firmness == FG.firmness([FG.sample(FG.SPECS[f.figures.index(x)].read(runs[x.experiment][0].data))])
    assert _fig(f, "compile_norm").firmness == "no rounds stored" and _fig(f, "compile_norm").within is None
    assert F.facts().gpu == "H200" and F.facts().n_figures == f.n_figures


@pytest.mark.parametrize("spread, verdict", [(0.019, "steady in one run"), (0.021, "noisy")])
def test_one_run_is_steady_only_under_the_threshold(spread, verdict):
    assert FG.firmness([FG.Sample(1.0, 1.0 - spread / 2, 1.0 + spread / 2)]) == verdict
    assert FG.firmness([FG.Sample(1.0)]) == "no rounds stored"


@pytest.mark.parametrize("other, spread, verdict", [
    (1.019, 0.01, "firm"),  # runs within 2%: firm
    (1.03, 0.01, "unsettled"),  # 3% apart, beyond 2% and beyond their 1% spreads
    (1.03, 0.04, "noisy"),  # 3% apart but within their 4% spreads: the rounds are the problem
    (1.019, 0.03, "noisy"),
    (1.03, None, "unsettled"),  # no rounds stored: the runs alone decide
    (1.019, None, "firm"),
])
def test_two_runs_firm_unsettled_or_noisy(other, spread, verdict):
    def s(m):
        return FG.Sample(m) if spread is None else FG.Sample(m, m * (1 - spread / 2), m * (1 + spread / 2))
    assert FG.firmness([s(other), s(1.0)]) == verdict


def test_a_second_current_run_gives_the_range_and_decides(runs):
    _another(runs, "fusing_by_hand.versions", True, "2099-01-01", lambda d: _scale(_time(d, "swiglu", "eager"), 1.05))
    f = F.from_data(runs, "H200")
    g = _fig(f, "fusion_swiglu_eager")
    # today's figure is the fusion page's: the median across the two runs, and the range is a share of it
    assert g.current_runs == 2 and g.current_range == pytest.approx(0.05 / 1.025)
    first = _time(runs["fusing_by_hand.versions"][0].data, "swiglu", "eager")["median"]
    assert g.median == pytest.approx(1.025 * first)
    assert g.firmness == "unsettled" and g.label in f.unsettled_labels and f.any_unsettled
    assert not f.one_current_each and f.any_one_current and f.current_runs == f.experiments + 1
    assert f.one_current_experiments == f.experiments - 1
    assert f.one_run_figures == f.n_figures - sum(s.experiment == "fusing_by_hand.versions" for s in FG.SPECS)
    same = _fig(f, "fusion_swiglu_triton")
    assert same.current_range == 0 and same.firmness == ("noisy" if same.within > FG.FIRM else "firm")


def test_every_experiment_with_two_current_runs_has_none_with_one(runs):
    for name in FG.EXPERIMENTS:
        _another(runs, name, True, "2099-01-01")
    f = F.from_data(runs, "H200")
    assert not f.one_current_each and not f.any_one_current
    assert f.one_current_experiments == f.one_run_figures == 0
    assert all(x.current_range == 0 for x in f.figures)


def test_the_noisy_verdict_follows_the_rounds(runs):
    t = _fixed(_time(runs["fusing_by_hand.versions"][0].data, "add_rmsnorm", "triton"))
    t["min"], t["max"] = t["median"] * 0.99, t["median"] * 1.009
    f = F.from_data(runs, "H200")
    assert _fig(f, "fusion_add_rmsnorm_triton").firmness == "steady in one run"
    t["max"] = t["median"] * 1.02
    f = F.from_data(runs, "H200")
    assert _fig(f, "fusion_add_rmsnorm_triton").firmness == "noisy"
    assert _fig(f, "fusion_add_rmsnorm_triton").label in f.noisy_labels and f.any_noisy


@pytest.mark.parametrize("k, spread, moved", [(1.03, 0.01, True), (1.015, 0.01, False), (1.03, 0.04, False)])
def test_an_earlier_run_moved_only_beyond_the_threshold_and_the_spreads(runs, k, spread, moved):
    def set_(d, k=1.0):
        t = _fixed(_time(d, "swiglu", "triton"))
        t["median"] *= k
        t["min"], t["max"] = t["median"] * (1 - spread / 2), t["median"] * (1 + spread / 2)
    set_(runs["fusing_by_hand.versions"][0].data)
    _another(runs, "fusing_by_hand.versions", False, "2000-01-01", lambda d: set_(d, k))
    f = F.from_data(runs, "H200")
    g = _fig(f, "fusion_swiglu_triton")
    assert g.earlier_runs == 1 and g.current_runs == 1 and g.earlier_low == pytest.approx(k - 1)
    assert g.moved_before is moved and (g.label in f.moved_labels) is moved and f.any_moved is moved
    assert g.firmness == ("noisy" if spread > FG.FIRM else "steady in one run")  # the earlier run never decides
    assert (g.label in f.moved_steady_labels) is (moved and g.firmness == "steady in one run")
    assert f.any_earlier and f.earlier_runs == 1 and f.earlier_experiments == 1 and f.earlier_first == "2000-01-01"


def test_a_figure_timed_until_quiet_is_noisy_only_when_it_stopped_noisy(runs):
    t = _time(runs["fusing_by_hand.versions"][0].data, "add_rmsnorm", "triton")
    t.update(noise_pct=0.3, quiet=True, min=t["median"] * 0.5, max=t["median"] * 2)  # wild range, quiet samples
    g = _fig(F.from_data(runs, "H200"), "fusion_add_rmsnorm_triton")
    assert g.firmness == "steady in one run" and g.within == pytest.approx(0.006)
    t.update(noise_pct=5.0, quiet=False)
    f = F.from_data(runs, "H200")
    assert _fig(f, "fusion_add_rmsnorm_triton").firmness == "noisy" and f.any_noisy
    quiet = [FG.Sample(1.0, noise=0.001, quiet=True), FG.Sample(1.05, noise=0.001, quiet=True)]
    assert FG.firmness(quiet) == "unsettled"
    assert FG.firmness([FG.Sample(1.0, noise=0.03, quiet=True), FG.Sample(1.05, noise=0.03, quiet=True)]) == "firm"


def test_old_speed_of_light_labels_read_as_todays_keys(runs):
    old = {v: k for k, v in FG.OLD_KEYS.items() if k != "Triton (best block)"}
    _another(runs, "speed_of_light.add_rmsnorm", False, "2000-01-01",
             lambda d: [s.update(versions={old.get(k, k): v for k, v in s["versions"].items()}) for s in d["shapes"]])
    g = _fig(F.from_data(runs, "H200"), "sol_add")
    assert g.earlier_runs == 1 and g.earlier_low == pytest.approx(0)


def test_an_earlier_run_without_the_figure_is_left_out_but_a_current_one_fails(runs):
    _another(runs, "allocator.caching", False, "2000-01-01", lambda d: d.pop("cached"))
    assert _fig(F.from_data(runs, "H200"), "alloc").earlier_runs == 0
    runs["allocator.caching"][-1].data.pop("cached")
    with pytest.raises(KeyError):
        F.from_data(runs, "H200")


def test_same_versions_follows_every_run(runs):
    assert F.from_data(runs, "H200").same_versions
    new = _another(runs, "decode.six_ways", False, "2000-01-01")
    runs["decode.six_ways"][0] = dataclasses.replace(new, versions=("2.10", *new.versions[1:]))
    assert not F.from_data(runs, "H200").same_versions


@pytest.mark.parametrize("gap, tracks", [(0.09, True), (0.11, False)])
def test_eager_launch_tracks_the_host_only_within_ten_percent(runs, gap, tracks):
    def host(d, gap):
        ln = d["launch"]
        ln["host_enqueue_us"]["median"] = ln["eager_ms"]["median"] * 1e3 / ln["launches"] / (1 + gap)
    host(runs["machine.ceilings"][0].data, 0.0)
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: host(d, gap))
    f = F.from_data(runs, "H200")
    assert f.launch_tracks_host is tracks and f.launch_host_gap == pytest.approx(gap)
    assert f.launch_n == 2 and f.launch_current == 1


def test_the_launch_range_spans_every_run(runs):
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: _slower_eager(d, 1.4))
    f = F.from_data(runs, "H200")
    assert f.launch_eager_moved == pytest.approx(0.4) and f.launch_eager_high == pytest.approx(1.4 * f.launch_eager_low)
    assert f.launch_speedup_high == pytest.approx(1.4 * f.launch_speedup_low)
    assert _fig(f, "launch_eager").moved_before


def test_launch_clocks_same_follows_every_run(runs):
    assert F.from_data(runs, "H200").launch_clocks_same
    new = _another(runs, "machine.ceilings", False, "2000-01-01")
    runs["machine.ceilings"][0] = dataclasses.replace(new, clocks=("345", "3201", "1755", "3201"))
    assert not F.from_data(runs, "H200").launch_clocks_same


def _rounds(runs):
    return runs["decode.six_ways"][0].data["rounds"]


def test_the_slow_round_is_read_with_its_host_time(runs):
    rounds = _rounds(runs)
    for r in rounds:
        for name in ("compile_reduce_overhead", "compile_max_autotune"):
            r["variants"][name].update(step_ms=3.0, host_us=700.0)
    rounds[2]["variants"]["compile_reduce_overhead"].update(step_ms=3.4, host_us=1100.0)  # +0.4 ms, host +0.4 ms
    rounds[2]["variants"]["compile_max_autotune"].update(step_ms=3.2, host_us=801.0)  # +0.2 ms, host +0.101 ms
    f = F.from_data(runs, "H200")
    assert (f.ro_slow_round, f.ma_slow_round) == (3, 3) and f.same_slow_round
    assert f.ro_slow_step_ms == pytest.approx(0.4) and f.ro_slow_host_ms == pytest.approx(0.4)
    assert f.graph_modes_host
    rounds[2]["variants"]["compile_max_autotune"]["host_us"] = 799.0  # host +0.099 ms: under half of 0.2 ms
    assert not F.from_data(runs, "H200").graph_modes_host
    rounds[2]["variants"]["compile_max_autotune"]["step_ms"] = 3.0
    rounds[0]["variants"]["compile_max_autotune"]["step_ms"] = 3.2
    f = F.from_data(runs, "H200")
    assert f.ma_slow_round == 1 and not f.same_slow_round


def test_eager_host_bound_at_ninety_percent(runs):
    for r in _rounds(runs):
        for name in FG.EAGER:
            r["variants"][name]["host_us"] = r["variants"][name]["step_ms"] * 1e3 * 0.95
    f = F.from_data(runs, "H200")
    assert f.eager_host_bound and f.eager_host_low == pytest.approx(0.95)
    _rounds(runs)[1]["variants"]["eager_static"]["host_us"] = _rounds(runs)[1]["variants"]["eager_static"][
        "step_ms"] * 1e3 * 0.85
    f = F.from_data(runs, "H200")
    assert not f.eager_host_bound and f.eager_host_low == pytest.approx(0.85)


def test_decode_clocks_same_follows_every_round(runs):
    assert F.from_data(runs, "H200").decode_clocks_same
    _rounds(runs)[1]["smi_end"]["clocks.sm"] = 1755.0
    assert not F.from_data(runs, "H200").decode_clocks_same


def test_max_autotune_picks_compared_across_runs(runs):
    f = F.from_data(runs, "H200")
    assert not f.picks_compared and f.picks_same and f.decode_ma_one_run and f.decode_ma_runs == 1
    _another(runs, "torch_compile.codegen", False, "2000-01-01",
             lambda d: d["mlp_1token_max_autotune"].update(seconds=24.0))
    f = F.from_data(runs, "H200")
    assert f.picks_compared and f.picks_same and f.picks_compile_high == 24.0
    names = runs["torch_compile.codegen"][0].data["mlp_1token_max_autotune"]["summary"]["kernel_names"]
    names[0] = "triton_tem_fused_mm_0"
    assert not F.from_data(runs, "H200").picks_same
    _another(runs, "decode.six_ways", False, "2000-01-01")
    assert not F.from_data(runs, "H200").decode_ma_one_run


def test_the_hand_built_step_tuning_and_retuning_across_runs(runs):
    f = F.from_data(runs, "H200")
    assert not f.far_compared and f.far_tuned_same and f.retuned_same and f.far_last_gap is None
    assert not f.far_last_faster_now

    def slower(d):
        for r in d["rounds"]:  # every rung, so the fastest checked one stays the same rung (decode_far's last is not)
            for v in r["variants"].values():
                v["step_ms"] *= 1.05
    _another(runs, "decode_far.ladder", False, "2000-01-01", slower)
    f = F.from_data(runs, "H200")
    assert f.far_compared and f.far_tuned_same and f.retuned_same
    assert f.far_last_gap == pytest.approx(0.05) and f.far_last_faster_now
    old = runs["decode_far.ladder"][0].data
    for r in old["rounds"]:
        for v in r["variants"].values():
            v["step_ms"] /= 1.05 ** 2
    assert not F.from_data(runs, "H200").far_last_faster_now
    site = next(iter(old["tuning"]))
    old["tuning"][site]["best"] = [99, 1, 1]
    step = next(iter(old["in_step"]))
    old["in_step"][step]["configs"][site] = [99, 1, 1]
    f = F.from_data(runs, "H200")
    assert not f.far_tuned_same and not f.retuned_same
    assert [(x.site, x.configs[0]) for x in f.retuned] == [(site, "99 × 1 × 1")]
    moved = next(x for x in f.retuned_steps if x.moved)  # the summary the page shows: per step, how many moved
    assert (moved.runs, moved.moved, f.n_retuned) == (2, 1, 1) and moved.sites >= 1
    assert sum(x.sites for x in f.retuned_steps) == f.retuned_sites
    assert f.retuned[0].picks == tuple(sorted(((f.retuned[0].configs[0], 1), (f.retuned[0].configs[1], 1)),
                                              key=lambda p: p[0] != f.retuned[0].configs[0]))


def test_a_site_one_run_did_not_retune_has_not_moved(runs):
    """Issue 60: a site a later run added reads '—' in the earlier run; it has no pick there to differ from."""
    _another(runs, "decode_far.ladder", False, "2000-01-01")
    old = runs["decode_far.ladder"][0].data
    step = next(iter(old["in_step"]))
    site = next(iter(old["in_step"][step]["configs"]))
    del old["in_step"][step]["configs"][site]
    f = F.from_data(runs, "H200")
    assert f.retuned_same and f.n_retuned == 0 and not any(x.moved for x in f.retuned_steps)
    old["in_step"][step]["configs"]["another_site"] = [7, 7, 7]  # one more site only the older run retuned: not moved
    f = F.from_data(runs, "H200")
    assert f.n_retuned == 0 and f.retuned_sites == sum(x.sites for x in f.retuned_steps)


def test_facts_keep_an_older_stored_run_apart(fixture_results):
    """An older file in the folder is a run of earlier code: counted apart, and the page shows the newest."""
    newest = run_file(fixture_results, "machine.ceilings")
    rec = json.loads(newest.read_text())
    rec["provenance"]["started_utc"] = "2025-06-01T00:00:00+00:00"
    _slower_eager(rec["data"], 1.5)
    (newest.parent / "20250601T000000Z.json").write_text(json.dumps(rec))
    f = F.facts()
    assert f.launch_n == 2 and f.launch_current == 1 and f.any_earlier and f.earlier_first == "2025-06-01"
    g = _fig(f, "launch_eager")
    assert g.current_runs == 1 and g.earlier_runs == 1 and g.earlier_low == pytest.approx(0.5)
    assert g.median == pytest.approx(json.loads(newest.read_text())["data"]["launch"]["eager_us_per_launch"])


def test_the_speed_of_light_share_carries_its_noise_and_an_old_fixed_count_run_its_range(runs):
    def fixed(d):  # as a run from before the criterion stored them: a fixed count of rounds, no noise
        for s in d["shapes"]:
            for v in s["versions"].values():
                for k in ("median", "noise_pct", "quiet", "bound_pct", "stopped", "elapsed_s"):
                    v.pop(k, None)
    _another(runs, "speed_of_light.add_rmsnorm", False, "2000-01-01", fixed)
    shape = min((s for s in runs["speed_of_light.add_rmsnorm"][-1].data["shapes"] if s["bytes"] >= FG.BIG_BYTES),
                key=lambda s: s["versions"]["copy"]["ms"] / s["versions"][FG.OURS]["ms"])
    now = FG.sample(FG.sol(runs["speed_of_light.add_rmsnorm"][-1].data))
    old = FG.sample(FG.sol(runs["speed_of_light.add_rmsnorm"][0].data))
    ours, copy_ = shape["versions"][FG.OURS], shape["versions"]["copy"]
    assert now.noise == pytest.approx(((ours["noise_pct"] / 100) ** 2 + (copy_["noise_pct"] / 100) ** 2) ** 0.5)
    assert now.quiet == (ours["quiet"] and copy_["quiet"])
    assert old.noise is None and old.quiet is None
    assert old.low == pytest.approx(min(copy_["values"]) / max(ours["values"]))


def test_the_share_of_the_copy_and_the_allocation_read_their_samples_noise(runs):
    sol = runs["speed_of_light.add_rmsnorm"][-1].data
    shapes = [s for s in sol["shapes"] if s["bytes"] >= FG.BIG_BYTES]
    low = min(shapes, key=lambda s: s["versions"]["copy"]["ms"] / s["versions"]["ours"]["ms"])
    for k in ("copy", "ours"):
        low["versions"][k].update(noise_pct=0.2, quiet=True)
    g = _fig(F.from_data(runs, "H200"), "sol_add")
    assert g.firmness == "steady in one run" and g.within == pytest.approx(2 * (2 * 0.002 ** 2) ** 0.5)
    low["versions"]["ours"].update(noise_pct=0.9, quiet=False)
    assert _fig(F.from_data(runs, "H200"), "sol_add").firmness == "noisy"
    sizes = runs["allocator.caching"][-1].data["cached"]["sizes"]
    slowest = max(sizes, key=lambda s: s["alloc_us"])
    slowest["alloc"].update(noise_pct=0.1, quiet=True)
    g = _fig(F.from_data(runs, "H200"), "alloc")
    assert g.firmness == "steady in one run" and g.within == pytest.approx(0.002)
    slowest["alloc"].update(noise_pct=30.0, quiet=False)
    assert _fig(F.from_data(runs, "H200"), "alloc").firmness == "noisy"
    for s in sizes:
        del s["alloc"]  # a run from before the samples were stored: its median alone
    assert _fig(F.from_data(runs, "H200"), "alloc").firmness == "no rounds stored"


def test_the_allocation_reads_the_size_its_page_shows_in_every_run(runs):
    """Issue 60, item 2: the allocator page shows the size slowest by its median across runs; every run is read at
    that size, not at each run's own slowest, so the range is the one that page prints."""
    cached = runs["allocator.caching"][-1].data["cached"]["sizes"]
    shown = max(cached, key=lambda s: s["alloc_us"])
    other = min(cached, key=lambda s: s["alloc_us"])

    def other_slowest(d):  # in this run another size is the slowest, by a little; the shown size 1.5 times slower
        sizes = {s["bytes"]: s for s in d["cached"]["sizes"]}
        sizes[shown["bytes"]]["alloc_us"] *= 1.5
        sizes[shown["bytes"]]["alloc"]["median"] *= 1.5
        sizes[other["bytes"]]["alloc_us"] = sizes[shown["bytes"]]["alloc_us"] * 1.01
    _another(runs, "allocator.caching", True, "2099-01-02")  # a copy of the fixture run: the shown size the same
    _another(runs, "allocator.caching", True, "2099-01-01", other_slowest)
    f = F.from_data(runs, "H200")
    x = _fig(f, "alloc")
    assert FG.alloc_size(runs["allocator.caching"]) == shown["bytes"]
    assert x.label == f"caching allocator, µs per {FG.kib(shown['bytes'])} allocation"
    assert x.median == pytest.approx(shown["alloc_us"])
    assert x.current_range == pytest.approx(0.5)  # 1.5 times the shown size's median, not the other size's


def test_the_within_run_spread_is_the_noisiest_runs_twice_its_noise(runs):
    """Issue 60, item 1: the table's within-run spread is twice the noise of the noisiest current run (what the page
    says it is), whatever noise the figure's own page prints."""
    def noisier(d):
        d["matmul"]["noise_pct"] = 2.7
    runs["machine.ceilings"][-1].data["matmul"]["noise_pct"] = 2.3
    _another(runs, "machine.ceilings", True, "2099-01-02")
    _another(runs, "machine.ceilings", True, "2099-01-01", noisier)
    x = _fig(F.from_data(runs, "H200"), "matmul")
    assert x.within == pytest.approx(2 * 0.027)  # the noisiest run's: 5.4%, where the median run's would be 4.6%


def test_todays_figure_is_the_median_over_the_current_runs_as_its_page_shows_it(runs):
    """Every page shows the median over the current code's runs (kernelbook.factbook): a second run of the
    allocation, 1.5 times slower, moves today's figure to the middle of the two and gives the range."""
    def slower(d):
        s = max(d["cached"]["sizes"], key=lambda s: s["alloc_us"])
        s["alloc_us"] *= 1.5
        if "alloc" in s:
            _scale(s["alloc"], 1.5)
    before = _fig(F.from_data(runs, "H200"), "alloc").median
    _another(runs, "allocator.caching", True, "2099-01-01", slower)
    g = _fig(F.from_data(runs, "H200"), "alloc")
    assert g.current_runs == 2 and g.median == pytest.approx(1.25 * before)
    assert g.current_range == pytest.approx(0.5 / 1.25)


def test_the_counts_and_lists_the_page_prints_follow_the_labels(runs):
    f = F.from_data(runs, "H200")
    assert (f.n_firm, f.n_steady, f.n_noisy, f.n_unsettled, f.n_no_rounds) == tuple(
        len(x) for x in (f.firm_labels, f.steady_labels, f.noisy_labels, f.unsettled_labels, f.no_rounds_labels))
    assert f.n_firm + f.n_steady + f.n_noisy + f.n_unsettled + f.n_no_rounds == f.n_figures
    assert f.noisy_list == ("; ".join(f.noisy_labels) or "none")
    assert f.unsettled_list == ("; ".join(f.unsettled_labels) or "none")
    assert f.moved_list == "none" and f.n_moved == 0
    assert f.software == "torch {}, Triton {}, CUDA {}, driver {}".format(*f.versions)
    assert f.launch_earlier == f.launch_n - f.launch_current
    assert f.n_retuned == len(f.retuned) and f.far_sites_moved == 0 and f.far_sites_moved <= f.far_sites


def _guard(name, f):
    return G.GUARDS[name][1](f)


def _found(name, f):
    return G.GUARDS[name].found(f)


def _absent(name, f):
    """The one sentence the guard's paragraph gives way to on `f` (not measured, or a finding instead), or ""."""
    g = G.GUARDS[name]
    pred, words = g.absent or g.instead
    return (words if isinstance(words, str) else words(f)) if pred(f) else ""


def test_guard_two_each_both_ways(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("two_each", f)  # the fixture: one run of each
    assert _found("two_each", f) == (f"each of the {f.experiments} experiments ran once with the current code "
                                     f"({f.experiments} runs in all), so no experiment has a pair of runs to compare")
    _another(runs, "allocator.caching", True, "2099-01-01")
    assert _found("two_each", F.from_data(runs, "H200")).startswith(f"{f.experiments - 1} of the {f.experiments}")
    for name in FG.EXPERIMENTS:
        _another(runs, name, True, "2099-01-01")
    assert _guard("two_each", F.from_data(runs, "H200"))


def test_guard_earlier_both_ways(runs):
    assert not _guard("earlier", F.from_data(runs, "H200"))
    _another(runs, "allocator.caching", False, "2000-01-01")
    assert _guard("earlier", F.from_data(runs, "H200"))


def test_guard_same_sw_both_ways(runs):
    assert _guard("same_sw", F.from_data(runs, "H200"))
    new = _another(runs, "decode.six_ways", False, "2000-01-01")
    runs["decode.six_ways"][0] = dataclasses.replace(new, versions=("2.10", *new.versions[1:]))
    assert not _guard("same_sw", F.from_data(runs, "H200"))


def test_guard_moved_both_ways(runs):
    assert not _guard("moved", F.from_data(runs, "H200"))
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: _slower_eager(d, 1.4))
    f = F.from_data(runs, "H200")
    assert _guard("moved", f) and "eager launch" in f.moved_list.split("; ")


@pytest.mark.parametrize("gap, paced", [(0.09, True), (0.11, False)])
def test_guard_host_paced_reads_the_current_runs_only(runs, gap, paced):
    def host(d, gap):
        ln = d["launch"]
        ln["host_enqueue_us"]["median"] = ln["eager_ms"]["median"] * 1e3 / ln["launches"] / (1 + gap)
    host(runs["machine.ceilings"][0].data, 0.0)
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: host(d, 0.5))  # earlier code: not read
    _another(runs, "machine.ceilings", True, "2099-01-01", lambda d: host(d, gap))
    f = F.from_data(runs, "H200")
    assert _guard("host_paced", f) is paced and f.launch_tracking == 1 + paced and not f.launch_tracks_host


def test_guard_launch_clocks_both_ways(runs):
    assert _guard("launch_clocks", F.from_data(runs, "H200"))
    new = _another(runs, "machine.ceilings", False, "2000-01-01")
    runs["machine.ceilings"][0] = dataclasses.replace(new, clocks=("345", "3201", "1755", "3201"))
    assert not _guard("launch_clocks", F.from_data(runs, "H200"))


@pytest.mark.parametrize("share, bound", [(0.95, True), (0.85, False)])
def test_guard_eager_host_both_ways(runs, share, bound):
    for r in _rounds(runs):
        for name in FG.EAGER:
            r["variants"][name]["host_us"] = r["variants"][name]["step_ms"] * 1e3 * share
    assert _guard("eager_host", F.from_data(runs, "H200")) is bound


@pytest.mark.parametrize("ma_host_us, accounts", [(801.0, True), (799.0, False)])
def test_guard_graph_host_both_ways(runs, ma_host_us, accounts):
    rounds = _rounds(runs)
    for r in rounds:
        for name in ("compile_reduce_overhead", "compile_max_autotune"):
            r["variants"][name].update(step_ms=3.0, host_us=700.0)
    rounds[2]["variants"]["compile_reduce_overhead"].update(step_ms=3.4, host_us=1100.0)
    rounds[2]["variants"]["compile_max_autotune"].update(step_ms=3.2, host_us=ma_host_us)  # half of +0.2 ms: 0.1
    assert _guard("graph_host", F.from_data(runs, "H200")) is accounts


def test_guard_decode_clocks_both_ways(runs):
    assert _guard("decode_clocks", F.from_data(runs, "H200"))
    _rounds(runs)[1]["smi_end"]["clocks.sm"] = 1755.0
    assert not _guard("decode_clocks", F.from_data(runs, "H200"))


def test_guards_picks_compared_and_picks_same_both_ways(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("picks_compared", f) and _guard("picks_same", f)  # one run: nothing compared
    assert "come from one stored run, with no other run's picks" in _absent("picks_compared", f)
    _another(runs, "torch_compile.codegen", False, "2000-01-01")
    f = F.from_data(runs, "H200")
    assert _guard("picks_compared", f) and _guard("picks_same", f)
    runs["torch_compile.codegen"][0].data["mlp_1token_max_autotune"]["summary"]["kernel_names"][0] = "triton_tem_x"
    f = F.from_data(runs, "H200")
    assert _guard("picks_compared", f) and not _guard("picks_same", f)
    assert "2 stored runs kept 2 different sets" in _found("picks_same", f)


def test_the_far_tuning_counts_the_sites_that_moved_and_says_which_way(runs):
    def slower(d):
        for r in d["rounds"]:  # every rung, so the fastest checked one stays the same rung (decode_far's last is not)
            for v in r["variants"].values():
                v["step_ms"] *= 1.05
    _another(runs, "decode_far.ladder", False, "2000-01-01", slower)
    f = F.from_data(runs, "H200")
    assert f.far_sites_moved == 0 and f.far_last_versus == "faster"
    old = runs["decode_far.ladder"][0].data
    for r in old["rounds"]:
        for v in r["variants"].values():
            v["step_ms"] /= 1.05 ** 2
    old["tuning"][next(iter(old["tuning"]))]["best"] = [99, 1, 1]
    f = F.from_data(runs, "H200")
    assert f.far_sites_moved == 1 and f.far_last_versus == "slower"


def test_guard_runs_disagree_both_ways(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("runs_disagree", f)  # one run of each: nothing to disagree
    assert _found("runs_disagree", f).startswith("no headline figure has a run-to-run range yet")
    for name in FG.EXPERIMENTS:
        _another(runs, name, True, "2099-01-01")  # a second run, the same figures: nothing disagrees
    f = F.from_data(runs, "H200")
    assert not _guard("runs_disagree", f) and _found("runs_disagree", f).startswith("no figure's runs")
    runs["machine.ceilings"][-1] = dataclasses.replace(runs["machine.ceilings"][-1],
                                                       data=copy.deepcopy(runs["machine.ceilings"][-1].data))
    _slower_eager(runs["machine.ceilings"][-1].data, 1.5)
    f = F.from_data(runs, "H200")
    assert _guard("runs_disagree", f) and "eager launch" in f.unsettled_labels


def _slower_launch(d, k):
    _slower_eager(d, k)
    d["launch"]["host_enqueue_us"]["median"] *= k


def test_guards_eager_and_host_unsettled_each_read_their_own_figure(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("eager_unsettled", f) and not _guard("host_unsettled", f)  # one run: not unsettled
    assert _found("eager_unsettled", f).startswith("the eager launch has one run of the current code, ")
    assert _found("host_unsettled", f).startswith("the host's enqueue time has one run of the current code, ")
    assert "there is no second run for it to disagree with" in _found("host_unsettled", f)
    _another(runs, "machine.ceilings", True, "2099-01-01", lambda d: _slower_launch(d, 1.5))
    f = F.from_data(runs, "H200")
    assert _guard("eager_unsettled", f) and _guard("host_unsettled", f)
    runs["machine.ceilings"][-1].data["launch"]["host_enqueue_us"]["median"] /= 1.5  # the host's time as before
    f = F.from_data(runs, "H200")
    assert _guard("eager_unsettled", f) and not _guard("host_unsettled", f)
    assert "2 runs of the current code lie 0.0% apart" in _found("host_unsettled", f)


def test_guard_all_judged_needs_a_second_run_of_every_figure(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("all_judged", f) and _absent("all_judged", f) == (
        f"each of the {f.n_figures} headline figures has one run of the current code, and firm or unsettled weighs "
        "two runs or more against each other")
    _another(runs, "machine.ceilings", True, "2099-01-01")
    f = F.from_data(runs, "H200")
    assert not _guard("all_judged", f) and not _absent("all_judged", f)  # some figures have two runs: flagged
    assert _found("all_judged", f).startswith(f"{f.one_run_figures} of the {f.n_figures} headline figures")
    for name in FG.EXPERIMENTS[1:]:
        _another(runs, name, True, "2099-01-01")
    assert _guard("all_judged", F.from_data(runs, "H200"))


def test_guard_launch_moved_both_ways(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("launch_moved", f) and "the lowest and highest run are the same run" in _absent("launch_moved",
                                                                                                       f)
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: _slower_eager(d, 1.019))  # within 2%
    f = F.from_data(runs, "H200")
    assert not _guard("launch_moved", f) and not _absent("launch_moved", f)
    assert "over its 2 stored runs the eager cost per launch ran from" in _found("launch_moved", f)
    _another(runs, "machine.ceilings", False, "2000-01-02", lambda d: _slower_eager(d, 1.03))
    assert _guard("launch_moved", F.from_data(runs, "H200"))


def test_guard_far_compared_both_ways(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("far_compared", f) and f"its {f.far_sites} sites in one stored run" in _absent("far_compared",
                                                                                                     f)
    _another(runs, "decode_far.ladder", False, "2000-01-01")
    f = F.from_data(runs, "H200")
    assert _guard("far_compared", f) and f.far_sites_moved == 0


def test_the_earlier_code_guards_give_way_where_no_earlier_run_is_stored(runs):
    f = F.from_data(runs, "H200")
    assert not _guard("earlier", f) and _absent("earlier", f) == "every stored run is of the current code: none of " \
        "earlier code"
    assert not _guard("moved", f) and _absent("moved", f).startswith("with no earlier-code run stored")
    _another(runs, "allocator.caching", False, "2000-01-01")
    f = F.from_data(runs, "H200")
    assert _guard("earlier", f) and not _guard("moved", f) and not _absent("moved", f)
    assert _found("moved", f).startswith("none of the 1 earlier-code runs")


def test_each_guard_says_what_fails_with_the_values(runs):
    """Every guard's words where it fails, on facts where it does: no code name, the values in them."""
    _another(runs, "machine.ceilings", False, "2000-01-01", lambda d: _slower_eager(d, 1.5))
    new = _another(runs, "decode.six_ways", False, "2000-01-02")
    runs["decode.six_ways"][0] = dataclasses.replace(new, versions=("2.10", *new.versions[1:]))
    f = F.from_data(runs, "H200")
    gap = max(abs(x.eager_over_host - 1) for x in f.launch_runs if x.current)
    bad = dataclasses.replace(f, launch_tracks_current=False, launch_clocks_same=False, decode_clocks_same=False,
                              eager_host_low=0.8, graph_modes_host=False)
    assert _found("host_paced", bad).endswith(f"lay {page.pct(gap)} from the host's enqueue time "
                                              f"({page.num(f.launch_runs[-1].eager_us, 2)} against "
                                              f"{page.num(f.launch_runs[-1].host_us, 2)} µs)")
    assert "SM at" in _found("launch_clocks", bad) and "SM at" in _found("decode_clocks", bad)
    assert _found("eager_host", bad).endswith("only 80.0% of the step")
    assert "reduce-overhead's step ran" in _found("graph_host", bad)
    assert not _guard("same_sw", f) and _found("same_sw", f).startswith("the stored runs used 2 sets of software: ")
    assert "torch 2.10," in _found("same_sw", f)
    for name, guard in G.GUARDS.items():
        assert "FIRM" not in guard.says and "_" not in guard.says, name


GUARD_CASES = {  # each guard and the test above that drives it both ways
    "all_judged": test_guard_all_judged_needs_a_second_run_of_every_figure,
    "runs_disagree": test_guard_runs_disagree_both_ways,
    "eager_unsettled": test_guards_eager_and_host_unsettled_each_read_their_own_figure,
    "host_unsettled": test_guards_eager_and_host_unsettled_each_read_their_own_figure,
    "host_paced": test_guard_host_paced_reads_the_current_runs_only,
    "launch_moved": test_guard_launch_moved_both_ways,
    "launch_clocks": test_guard_launch_clocks_both_ways,
    "eager_host": test_guard_eager_host_both_ways,
    "graph_host": test_guard_graph_host_both_ways,
    "decode_clocks": test_guard_decode_clocks_both_ways,
    "picks_compared": test_guards_picks_compared_and_picks_same_both_ways,
    "picks_same": test_guards_picks_compared_and_picks_same_both_ways,
    "far_compared": test_guard_far_compared_both_ways,
    "two_each": test_guard_two_each_both_ways,
    "same_sw": test_guard_same_sw_both_ways,
    "earlier": test_guard_earlier_both_ways,
    "moved": test_guard_moved_both_ways,
}


def test_every_guard_has_a_case():
    assert set(GUARD_CASES) == set(G.GUARDS)


def test_each_guard_that_gives_way_says_what_its_own_paragraph_needed(runs):
    """Issue 60, item 6: on a GPU with one run of everything (the fixture), the page's top box lists each guard that
    gives way with its own words, not one line ("needs a second run") repeated."""
    f = F.from_data(runs, "H200")
    words = {name: ((g.absent or g.instead) and _absent(name, f)) or _found(name, f) for name, g in G.GUARDS.items()
             if not g.test(f)}
    assert {"all_judged", "runs_disagree", "eager_unsettled", "host_unsettled", "launch_moved", "picks_compared",
            "far_compared", "two_each", "earlier", "moved"} <= set(words)
    assert len(set(words.values())) == len(words), words
    assert not [w for w in words.values() if "needs a second run" in w or "needs a second" in w], words


def test_every_figure_the_home_page_measures_is_in_the_table():
    """Issue 60 (#57 item 2): each measured figure docs/index.md prints is a headline row here, judged like the others
    (a field the home page names otherwise, decode's best_ms, is the value of one of its chapter's rows)."""
    import re
    from pathlib import Path

    from kernelbook import macros

    text = (Path(__file__).resolve().parents[1] / "docs" / "index.md").read_text()
    alias = dict(re.findall(r'{% set (\w+) = facts\("(\w+)"\) %}', text))
    printed = {(alias[a], field) for a, field in re.findall(r"{{ (\w+)\.(\w+)", text) if a in alias}
    measured = {(c, n) for c, n in printed if c != "stability" and n != "gpu" and not n.startswith("laptop_")}
    assert ("decode", "static_ms") in measured and ("machine", "ridge") in measured
    shown = set(F.SHOWN_AS.values())
    for chapter, name in measured - shown:
        value = getattr(macros.raw_facts(chapter), name)
        assert any(getattr(macros.raw_facts(c), n) == value for c, n in shown if c == chapter), (chapter, name)


def test_the_static_steps_ends_are_its_current_runs_lowest_and_highest(runs):
    """The home page prints the eager StaticCache step's run-to-run ends from here: the current code's runs only."""
    def slower(d, k):
        for r in d["rounds"]:
            if "eager_static" in r["variants"]:
                r["variants"]["eager_static"]["step_ms"] *= k

    base = FG._decode("eager_static")(runs["decode.six_ways"][0].data)["median"]
    _another(runs, "decode.six_ways", True, "2099-01-01", lambda d: slower(d, 1.5))
    _another(runs, "decode.six_ways", False, "2000-01-01", lambda d: slower(d, 3.0))  # earlier code: not read
    f = F.from_data(runs, "H200")
    assert f.static_low_ms == pytest.approx(base) and f.static_high_ms == pytest.approx(1.5 * base)
    assert _fig(f, "decode_static").label == "decode step: eager, StaticCache"


def test_the_ridge_is_each_runs_matmul_rate_over_its_copy(runs):
    d = runs["machine.ceilings"][0].data
    want = d["matmul"]["tflops"] * 1e3 / d["bandwidth"]["copy"]["gbps"]
    assert _fig(F.from_data(runs, "H200"), "ridge").median == pytest.approx(want)


SAMPLES = {"every_ms": 500, "n": 3, "fields": ["t_s", "clocks.sm", "clocks.mem", "power.draw", "temperature.gpu"],
           "stats": {"clocks.sm": {"min": 345.0, "median": 1980.0, "max": 1980.0},
                     "clocks.mem": {"min": 3201.0, "median": 3201.0, "max": 3201.0},
                     "power.draw": {"min": 80.0, "median": 300.0, "max": 640.0},
                     "temperature.gpu": {"min": 30.0, "median": 38.0, "max": 44.0}},
           "samples": [[0.0, 345.0, 3201.0, 80.0, 30.0]]}  # a run stored before the busy readings were kept apart
BUSY = {**SAMPLES, "n": 5, "busy": {"n": 4, "stats": {**SAMPLES["stats"],
                                                     "clocks.sm": {"min": 1755.0, "median": 1980.0, "max": 1980.0}}}}


def test_a_runs_samples_host_and_card_are_read_where_recorded():
    s = FG.sampled_of(SAMPLES)
    assert (s.n, s.every_ms, s.sm_mhz, s.power_w[2], s.temp_c[2]) == (3, 500, (345.0, 1980.0, 1980.0), 640.0, 44.0)
    assert not s.busy and s.n == s.of == 3
    b = FG.sampled_of(BUSY)  # the figures are over the readings taken while a kernel ran
    assert b.busy and (b.n, b.of, b.sm_mhz[0]) == (4, 5, 1755.0)
    assert FG.sampled_of({**BUSY, "busy": {"n": 0, "stats": {}}}).sm_mhz[0] == 345.0  # none busy: every reading
    assert FG.sampled_of(None) is None and FG.sampled_of({**SAMPLES, "n": 0, "stats": {}}) is None
    assert FG.host_of({"cpu_model": "Xeon", "vcpus": 16}) == "Xeon · 16 vCPUs"
    assert FG.host_of({"cpu_model": "Xeon", "vcpus": None}) == "Xeon" and FG.host_of(None) == FG.host_of({}) == ""


def test_sampled_runs_and_hosts_count_the_current_code_only(runs):
    f = F.from_data(runs, "H200")
    assert f.sampled_runs == 0 and f.hosts_seen == 0  # the fixtures predate sampling
    name = "decode.six_ways"
    new = _another(runs, name, True, "2099-01-01")
    runs[name][-1] = dataclasses.replace(new, sampled=FG.sampled_of(SAMPLES), host="Xeon · 16 vCPUs")
    old = _another(runs, "machine.ceilings", False, "2000-01-01")
    runs["machine.ceilings"][0] = dataclasses.replace(old, sampled=FG.sampled_of(SAMPLES), host="EPYC · 8 vCPUs")
    f = F.from_data(runs, "H200")
    assert f.sampled_runs == 1 and f.hosts_seen == 1  # the earlier-code run is not counted
    other = _another(runs, "machine.ceilings", True, "2099-01-02")
    runs["machine.ceilings"][-1] = dataclasses.replace(other, sampled=FG.sampled_of(SAMPLES), host="EPYC · 8 vCPUs")
    f = F.from_data(runs, "H200")
    assert f.sampled_runs == 2 and f.hosts_seen == 2


def test_the_machine_table_lists_a_sampled_run_with_its_readings(fixture_results, capsys):
    """A sampled run of the fixture's six ways, stored beside it: the table shows its clocks, host and card."""
    import runpy

    path = run_file(fixture_results, "decode.six_ways")
    rec = json.loads(path.read_text())
    rec["provenance"].update(smi_samples=SAMPLES, host={"cpu_model": "Xeon", "vcpus": 16},
                             gpu_uuid="GPU-e2c8010f-73c2-1c37-746c-ab83fb5baf0a")
    path.write_text(json.dumps(rec))
    f = F.facts()
    assert f.sampled_runs == 1 and f.hosts_seen == 1
    runpy.run_path(str(paths.root() / "snippets" / "stability" / "machine_table.py"))
    out = capsys.readouterr().out
    assert "345 / 1,980 / 1,980" in out and "3, whole run" in out and "not sampled" in out  # the others: not
    rows = json.loads(base64.b64decode(re.search(r'stability-machine.json" href="data:application/json;base64,([^"]+)"',
                                                 out).group(1)))
    mine = [x for x in rows if x["readings"] == "3, whole run"]
    assert len(mine) == 1 and mine[0]["host CPU"] == "Xeon · 16 vCPUs"  # host and card: in the download
    assert mine[0]["GPU UUID"] == "GPU-e2c8010f-73c2-1c37-746c-ab83fb5baf0a" and mine[0]["hottest °C"] == "44"



def test_a_noisy_or_unsettled_label_says_what_made_it_so():
    quiet, capped = FG.Sample(1.0, noise=0.004, quiet=True), FG.Sample(1.0, noise=0.011, quiet=False)
    assert FG.judged([quiet, capped]) == ("noisy", "1 of 2 runs stopped noisy at the cap")
    assert FG.judged([capped]) == ("noisy", "its one run stopped noisy at the cap")
    assert FG.judged([FG.Sample(1.0, 0.9, 1.1)]) == ("noisy", "rounds spread past the threshold")
    assert FG.judged([FG.Sample(1.0, 0.999, 1.001), FG.Sample(1.5, 1.499, 1.501)]) == (
        "unsettled", "runs apart beyond their spreads")
    assert FG.judged([quiet, quiet]) == ("firm", "") and FG.judged([FG.Sample(1.0)]) == ("no rounds stored", "")
    assert FG.firmness([quiet, capped]) == "noisy" and FG.firmness([quiet, quiet]) == "firm"  # the label alone


def test_with_one_run_a_disagreement_is_not_measured_and_with_two_it_is_tested(runs):
    """One run of each figure: "the runs disagree" cannot be tested, so its paragraph reads not measured (it read
    "not so" on the H100); a second run makes it a test again, flagged where it fails."""
    f = F.from_data(runs, "H200")
    assert f.one_run_figures == f.n_figures
    assert not _guard("runs_disagree", f) and _absent("runs_disagree", f).startswith("no headline figure has a run")
    _another(runs, "machine.ceilings", True, "2099-01-01")
    f = F.from_data(runs, "H200")
    assert not _absent("runs_disagree", f)


def test_a_launch_figure_with_one_current_run_is_not_measured_unsettled(runs):
    f = F.from_data(runs, "H200")
    eager, host = (next(x for x in f.figures if x.key == k) for k in ("launch_eager", "launch_host"))
    for name, x in (("eager_unsettled", eager), ("host_unsettled", host)):
        words = _absent(name, f)
        assert bool(words) == (x.current_runs == 1), (name, x.current_runs)
        if words:
            assert "there is no second run for it to disagree with" in words
    runs["machine.ceilings"] = [r for r in runs["machine.ceilings"] if r.current][-1:]  # one run of the loop
    f = F.from_data(runs, "H200")
    for name in ("eager_unsettled", "host_unsettled"):
        assert "there is no second run for it to disagree with" in _absent(name, f)


def test_every_experiment_run_once_reads_as_not_measured_and_no_earlier_code_as_a_finding(runs):
    f = F.from_data(runs, "H200")
    assert f.one_current_each and not _guard("two_each", f)
    assert _absent("two_each", f).startswith(f"each of the {f.experiments} experiments ran once")
    gone, words = G.GUARDS["earlier"].instead  # "none of earlier code" is what the folders hold: a finding
    assert G.GUARDS["earlier"].absent is None and gone(f) == (f.earlier_runs == 0)
    _another(runs, "machine.ceilings", True, "2099-01-01")
    f = F.from_data(runs, "H200")
    assert not f.one_current_each and not _absent("two_each", f) and not _guard("two_each", f)

