"""The decode facts on the fixture results, and each verdict the page uses driven both ways by the data."""

from __future__ import annotations

import copy

import pytest

from kernelbook import page
from kernelbook.chapters.decode import facts as F
from kernelbook.decode import report
from kernelbook.decode.model import INIT_STD, QWEN25_15B


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"six": load("decode.six_ways"), "constraints": load("decode.constraints"),
            "compile_warm": load("decode.compile_warm"), "launch": load("machine.ceilings")["launch"],
            "laptop_six": load("decode.six_ways", F.LAPTOP), "laptop_constraints": load("decode.constraints", F.LAPTOP),
            "laptop_compile_warm": load("decode.compile_warm", F.LAPTOP),
            "laptop_machine": load("machine.ceilings", F.LAPTOP), "model": dict(QWEN25_15B), "init_std": INIT_STD,
            "warm_steps": 3, "gpu": "H200", "transformers": "5.17.0"}


def _rounds(d, name, values):
    """Set variant `name`'s step time in each timing round."""
    for r, v in zip(d["six"]["rounds"], values, strict=True):
        r["variants"][name]["step_ms"] = v


def _busy(six, name, share):
    """Set variant `name`'s profiled GPU busy time to `share` of its median step."""
    six["profiles"][name]["busy_us"] = share * report.variant_summary(six, name)["step_ms"] * 1e3


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    s = report.summaries(data["six"])
    assert f.dyn_ms == s["eager_dynamic"]["step_ms"] and f.graph_ms == s["cuda_graph"]["step_ms"]
    assert f.best_label == report.best_valid(data["six"])["label"]
    assert f.best_speedup == pytest.approx(s["eager_dynamic"]["step_ms"] / f.best_ms)
    assert f.static_extra_kernels == s["eager_static"]["kernels"] - s["eager_dynamic"]["kernels"]
    assert f.floor_ms == data["six"]["floor_ms"] and f.ceiling_tok_s == pytest.approx(1e3 / f.floor_ms)
    assert f.launch_ms == pytest.approx(s["eager_static"]["kernels"] * data["launch"]["eager_us_per_launch"] / 1e3)
    assert (f.laptop_best_ms, f.laptop_best_floor_share, f.laptop_static_extra) == (13.6, 0.91, 229)
    assert f.laptop_best_label == "torch.compile max-autotune"
    assert (f.layers, f.hidden, f.head_dim, f.vocab) == (28, 1536, 128, 151936) and f.weight_as_article
    assert (f.trap_first_slot, f.trap_last_slot, f.counter_shift) == (46, 88, 3)
    assert (f.cold_low_s, f.warm_high_s) == (25.03, 5.03)
    assert f.warm_modes == ("default", "reduce-overhead")
    assert F.facts().gpu == "H200"


def test_versus_needs_the_median_and_most_rounds(data):
    _rounds(data, "eager_dynamic", [20.0, 20.0, 20.0, 20.0])
    _rounds(data, "eager_static", [25.0, 25.0, 25.0, 19.0])
    f = F.from_data(**data)
    assert f.static_vs_dynamic == "slower" and f.static_slower_rounds == 3
    assert f.static_dyn_diff_ms == pytest.approx(5.0)
    _rounds(data, "eager_static", [15.0, 15.0, 15.0, 21.0])
    f = F.from_data(**data)
    assert f.static_vs_dynamic == "faster" and f.static_slower_rounds == 1
    _rounds(data, "eager_static", [30.0, 30.0, 19.0, 19.0])  # the median says slower, the rounds split
    assert F.from_data(**data).static_vs_dynamic == "mixed"
    _rounds(data, "eager_dynamic", [60.0, 20.0, 20.0, 20.0])  # one slow round of the default cache
    _rounds(data, "eager_static", [25.0, 25.0, 25.0, 25.0])
    assert F.from_data(**data).static_vs_dynamic == "slower"


def test_reduce_overhead_and_max_autotune_verdicts(data):
    _rounds(data, "cuda_graph", [4.0] * 4)
    _rounds(data, "compile_reduce_overhead", [3.0] * 4)
    _rounds(data, "compile_max_autotune", [3.2] * 4)
    f = F.from_data(**data)
    assert (f.ro_vs_graph, f.ro_faster_rounds, f.ma_vs_ro, f.ma_faster_rounds) == ("faster", 4, "slower", 0)
    assert not f.ma_as_laptop
    _rounds(data, "compile_max_autotune", [2.9] * 4)
    _rounds(data, "compile_reduce_overhead", [4.1] * 4)
    f = F.from_data(**data)
    assert f.ma_vs_ro == "faster" and f.ma_as_laptop and f.ro_vs_graph == "slower"


def test_failed_variants_and_no_valid_step(data):
    six = data["six"]
    assert F.from_data(**data).all_passed
    six["teacher_forced"]["compile_max_autotune"]["passed"] = False
    six["all_passed"] = False
    f = F.from_data(**data)
    assert not f.all_passed and f.n_failed == 1 and f.failed == "torch.compile max-autotune" and f.any_valid
    assert f.best_label != "torch.compile max-autotune"
    for c in six["teacher_forced"].values():
        c["passed"] = False
    f = F.from_data(**data)
    assert not f.any_valid and f.best_ms is None and not f.best_beyond_past_floor and not f.follows_bandwidth
    six["build_errors"] = {"compile_max_autotune": "RuntimeError: x"}
    assert F.from_data(**data).has_build_errors


def test_launch_verdicts(data):
    data["launch"]["speedup"] = 8.5
    assert F.from_data(**data).launch_vs_laptop == "inside"
    data["launch"]["speedup"] = 7.0
    assert F.from_data(**data).launch_vs_laptop == "below"
    data["launch"]["speedup"] = 12.0
    assert F.from_data(**data).launch_vs_laptop == "above"
    data["launch"]["eager_us_per_launch"] = 0.001  # launches far cheaper than the floor
    assert not F.from_data(**data).launch_bound
    data["launch"]["eager_us_per_launch"] = 10.0
    assert F.from_data(**data).launch_bound


def test_floor_verdicts(data):
    six = data["six"]
    f = F.from_data(**data)
    best = report.best_valid(six)["name"]
    assert f.step_ratio == pytest.approx(13.6 / f.best_ms)
    assert f.follows_bandwidth == (f.step_ratio >= F.FOLLOWS_BANDWIDTH * f.bw_ratio)
    six["copy"]["gbps"] = 248.7 * 2  # twice the laptop's bandwidth: a step 6 times faster follows it
    assert F.from_data(**data).follows_bandwidth
    six["copy"]["gbps"] = 248.7 * 100
    assert not F.from_data(**data).follows_bandwidth
    six["profiles"][best]["busy_us"] = 1.5 * six["floor_ms"] * 1e3  # past the floor, but by less than the floor
    f = F.from_data(**data)
    assert not f.best_beyond_past_floor and f.best_busy_beyond_floor_ms == pytest.approx(0.5 * six["floor_ms"])
    six["profiles"][best]["busy_us"] = 2.5 * six["floor_ms"] * 1e3
    assert F.from_data(**data).best_beyond_past_floor


def test_pace_verdicts(data):
    six = data["six"]
    _busy(six, "cuda_graph", 0.95)
    assert F.from_data(**data).graph_gpu_bound
    _busy(six, "cuda_graph", 0.5)
    assert not F.from_data(**data).graph_gpu_bound
    six["profiles"]["cuda_graph"]["kernels"] += 1
    assert not F.from_data(**data).graph_same_kernels
    for r in six["rounds"]:
        r["variants"]["compile_default"]["host_us"] = 1.0
    f = F.from_data(**data)
    assert not f.cd_launch_bound
    for r in six["rounds"]:
        r["variants"]["compile_default"]["host_us"] = 1e6
    assert F.from_data(**data).cd_launch_bound
    _busy(six, "compile_default", 0.9)
    assert not F.from_data(**data).cd_idle_above_laptop  # idle 10%, the laptop's 15%
    _busy(six, "compile_default", 0.5)
    assert F.from_data(**data).cd_idle_above_laptop
    six["profiles"]["compile_reduce_overhead"]["busy_us"] = six["profiles"]["cuda_graph"]["busy_us"] + 1
    assert not F.from_data(**data).fusion_cut_busy
    six["profiles"]["compile_reduce_overhead"]["busy_us"] = six["profiles"]["cuda_graph"]["busy_us"] - 1
    assert F.from_data(**data).fusion_cut_busy


def test_check_and_free_running_verdicts(data):
    six = data["six"]
    data["constraints"]["trap"]["without_reset"]["rel_err"] = six["tolerance"] / 2
    assert not F.from_data(**data).trap_past_tolerance
    data["constraints"]["trap"]["without_reset"]["rel_err"] = six["tolerance"] * 2
    assert F.from_data(**data).trap_past_tolerance
    gaps = six["free_running"]["eager_static"]["gaps"]
    six["free_running"]["eager_static"]["gaps"] = [six["band"] * 2] * len(gaps)
    assert not F.from_data(**data).gap_within_band
    six["free_running"]["eager_static"]["gaps"] = [six["band"] / 2] * len(gaps)
    assert F.from_data(**data).gap_within_band
    ref = six["free_running"]["eager_static"]["tokens"]
    for n in six["names"]:
        six["free_running"][n]["tokens"] = list(ref)
        six["free_running"][n]["first_divergence"] = {"step": None, "ref_gap": None, "gap": None}
    f = F.from_data(**data)
    assert f.all_same_tokens and f.n_departed == 0 and f.departures_in_band
    six["free_running"]["compile_default"]["first_divergence"] = {"step": 3, "ref_gap": six["band"] / 2, "gap": 0.0}
    f = F.from_data(**data)
    assert not f.all_same_tokens and f.n_departed == 1 and f.departures_in_band
    six["free_running"]["compile_default"]["first_divergence"]["ref_gap"] = six["band"] * 2
    f = F.from_data(**data)
    assert not f.departures_in_band and f.n_wide == 1
    data["laptop_six"]["all_six_same_tokens"] = False
    assert not F.from_data(**data).laptop_all_same


def test_trap_verdicts(data):
    trap = data["constraints"]["trap"]
    f = F.from_data(**data)
    assert not f.capture_moved_counter and not f.trap_any_top1 and f.reset_exact
    trap["counter"]["after_warmup_and_capture"] = trap["counter"]["after_first_prefill"] + trap["warmup_calls"] + 1
    trap["without_reset"]["top1_agree"] = 0.25
    trap["with_reset"]["bit_identical"] = False
    f = F.from_data(**data)
    assert f.capture_moved_counter and f.trap_any_top1 and f.trap_top1 == 0.25 and not f.reset_exact


def test_constraint_verdicts(data):
    c = data["constraints"]
    f = F.from_data(**data)
    assert f.item_outcome == "raised" and f.item_chained and not f.item_usable_after and f.laptop_item_failed
    c["item"]["context_usable_after"] = True
    c["item"]["context_type"] = None
    f = F.from_data(**data)
    assert f.item_usable_after and not f.item_chained
    c["item"]["raised"] = False
    assert F.from_data(**data).item_outcome == "silent"
    c["item"]["raised"] = None
    assert F.from_data(**data).item_outcome == "no_report"
    assert f.dyn_grows and f.dyn_moves and f.static_fixed and f.one_graph
    c["dynamic_cache"][2]["data_ptr"] = c["dynamic_cache"][1]["data_ptr"]
    c["dynamic_cache"][3]["shape"][2] += 1
    c["static_cache"][1]["data_ptr"] += 8
    c["explain"]["graph_count"], c["explain"]["graph_break_count"] = 2, 1
    f = F.from_data(**data)
    assert not f.dyn_moves and not f.dyn_grows and not f.static_fixed and not f.one_graph


def test_timeline_and_after_profiler(data):
    six = data["six"]
    f = F.from_data(**data)
    assert f.has_after_profiler and f.after_worst_added_us == max(
        report.after_profiler(six, n)["added_host_us"] for n in six["names"])
    tl = six["timelines"]["eager_static"]
    tl["kernels"] = [[i * 10.0, 9.0] for i in range(10)]  # 1 µs gaps in a 100 µs call
    tl["host_us"] = 100.0
    assert not F.from_data(**data).tl_static_mostly_gaps
    tl["kernels"] = [[i * 10.0, 1.0] for i in range(10)]  # 9 µs gaps
    assert F.from_data(**data).tl_static_mostly_gaps
    g = six["timelines"]["cuda_graph"]
    g["kernels"] = [[i * 10.0, 10.0] for i in range(10)]  # back to back
    assert not F.from_data(**data).tl_graph_gaps_past_idle
    g["kernels"] = [[i * 1e4, 1.0] for i in range(10)]  # 90 ms of gaps
    assert F.from_data(**data).tl_graph_gaps_past_idle
    assert f.after_grew
    before = {n: report.after_profiler(six, n)["before_host_us"] for n in six["names"]}
    for n, v in six["after_profiler"]["variants"].items():
        v["host_us"] = before[n] - 1.0  # every variant a little quicker to issue after the profiles
    assert not F.from_data(**data).after_grew
    del six["after_profiler"]
    f = F.from_data(**data)
    assert not f.has_after_profiler and f.after_worst_added_us is None and not f.after_grew


def test_profiler_against_the_timed_host_call(data):
    six = data["six"]
    assert F.from_data(**data).profiler_slows_static
    six["profiles"]["eager_static"]["cpu_us_profiled"] = 1.0  # quicker under the profiler than timed
    assert not F.from_data(**data).profiler_slows_static


def test_rounds_faster_counts_only_rounds_with_both(data):
    six = data["six"]
    _rounds(data, "cuda_graph", [4.0, 4.0, 4.0, 4.0])
    _rounds(data, "compile_reduce_overhead", [3.0, 5.0, 3.0, 3.0])
    assert report.rounds_faster(six, "compile_reduce_overhead", "cuda_graph") == (3, 4)
    del six["rounds"][0]["variants"]["cuda_graph"]
    assert report.rounds_faster(six, "compile_reduce_overhead", "cuda_graph") == (2, 3)


def test_model_and_laptop_verdicts(data):
    f = F.from_data(**data)
    assert f.tied and f.weight_as_article and f.graph_same_kernels and not f.has_build_errors
    assert f.laptop_static_versus == "slower"
    data["model"]["tie_word_embeddings"] = False
    data["six"]["weight_bytes"] += 10**7
    data["laptop_six"]["variants"]["eager_static"]["step_ms"] = 20.0
    data["laptop_constraints"]["item_in_capture"] = "ran without an error"
    f = F.from_data(**data)
    assert not f.tied and not f.weight_as_article and f.laptop_static_versus == "faster" and not f.laptop_item_failed


def test_the_median_direction_is_read_whichever_way_the_rounds_go(data):
    _rounds(data, "eager_dynamic", [20.0, 20.0, 20.0, 20.0])
    _rounds(data, "eager_static", [30.0, 30.0, 19.0, 19.0])  # mixed rounds, median above
    f = F.from_data(**data)
    assert f.static_vs_dynamic == "mixed" and f.static_median_more
    _rounds(data, "eager_static", [10.0, 10.0, 21.0, 21.0])  # mixed rounds, median below
    f = F.from_data(**data)
    assert f.static_vs_dynamic == "mixed" and not f.static_median_more
    _rounds(data, "compile_reduce_overhead", [3.0, 3.0, 3.0, 3.0])
    _rounds(data, "compile_max_autotune", [3.2, 3.2, 3.2, 3.2])
    assert F.from_data(**data).ma_median_more
    _rounds(data, "compile_max_autotune", [2.8, 2.8, 2.8, 2.8])
    assert not F.from_data(**data).ma_median_more


def test_the_pages_words_for_the_articles_claims_are_the_ledgers(fixture_results):
    from kernelbook.chapters.claims import ledger

    f = F.facts()
    assert f.static_slower_verdict == ledger.verdict_of("static-slower")
    assert f.ma_beats_ro_verdict == ledger.verdict_of("ma-beats-ro")
    assert f.static_slower_verdict != "not measured"


def test_warm_compiles_that_print_alike_are_one_figure(data):
    modes = data["compile_warm"]["warm"]["modes"]
    for m in modes.values():
        m["compile_s"] = 5.71
    assert F.from_data(**data).warm_one_figure
    next(iter(modes.values()))["compile_s"] = 6.2
    assert not F.from_data(**data).warm_one_figure


def _slower_run(six, name, k):
    """A copy of the decode.six_ways run with way `name`'s step k times as long in every round."""
    d = copy.deepcopy(six)
    for r in d["rounds"]:
        if name in r["variants"]:
            r["variants"][name]["step_ms"] *= k
    return d


def test_one_run_shows_no_range(data):
    f = F.from_data(**data)
    assert f.six_runs == 1 and (f.graph_ms_low, f.graph_ms_high) == (f.graph_ms, f.graph_ms)
    assert not any((f.dyn_ms_runs_vary, f.static_ms_runs_vary, f.graph_ms_runs_vary, f.ro_ms_runs_vary,
                    f.best_ms_runs_vary))


def test_step_times_across_runs_show_their_range_only_past_the_spread(data):
    six = data["six"]
    one = F.from_data(**data)
    within = F.step_summary(six, "cuda_graph")
    spread = max(2 * within["noise_pct"] / 100 if within.get("noise_pct") is not None else 0,
                 within["spread_pct"] / 100)
    far = F.from_data(**data, runs=[_slower_run(six, "cuda_graph", 1 + 3 * spread), six])
    assert far.six_runs == 2 and far.graph_ms_runs_vary and not far.static_ms_runs_vary
    assert (far.graph_ms_low, far.graph_ms_high) == (one.graph_ms, pytest.approx((1 + 3 * spread) * one.graph_ms))
    assert far.graph_speedup == pytest.approx(far.static_ms / far.graph_ms)  # the medians shown
    near = F.from_data(**data, runs=[_slower_run(six, "cuda_graph", 1 + spread / 2), six])
    assert not near.graph_ms_runs_vary and near.graph_ms > one.graph_ms
    for name, field in (("eager_dynamic", "dyn_ms"), ("eager_static", "static_ms"),
                        ("compile_reduce_overhead", "ro_ms")):
        f = F.from_data(**data, runs=[six, _slower_run(six, name, 3.0)])
        assert getattr(f, f"{field}_runs_vary") and getattr(f, f"{field}_high") == pytest.approx(
            3 * getattr(one, field))
    best = report.best_valid(six)["name"]
    f = F.from_data(**data, runs=[six, _slower_run(six, best, 3.0)])
    assert f.best_ms_runs_vary and f.best_ms == pytest.approx(2 * one.best_ms)
    assert f.best_speedup == pytest.approx(f.dyn_ms / f.best_ms)
