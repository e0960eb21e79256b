"""The decode facts on the fixture results, and each verdict the page uses driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from kernelbook import page
from kernelbook.chapters.decode import facts as F
from kernelbook.chapters.decode import figures
from kernelbook.chapters.decode import guards as G
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
    assert f.host_beyond_launch_ms == pytest.approx(s["eager_static"]["host_ms"] - f.launch_ms)
    assert f.launch_step_share == pytest.approx(f.launch_ms / f.static_ms)
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
    assert f.static_vs_dynamic == "slower" and f.static_slower_low == f.static_slower_high == 0.75
    assert f.static_dyn_diff_ms == pytest.approx(5.0)
    _rounds(data, "eager_static", [15.0, 15.0, 15.0, 21.0])
    f = F.from_data(**data)
    assert f.static_vs_dynamic == "faster" and f.static_slower_low == 0.25
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
    assert (f.ro_vs_graph, f.ro_faster_low, f.ma_vs_ro, f.ma_faster_low, f.ma_faster_high) == (
        "faster", 1.0, "slower", 0.0, 0.0)
    assert not f.ma_as_laptop
    _rounds(data, "compile_max_autotune", [2.9] * 4)
    _rounds(data, "compile_reduce_overhead", [4.1] * 4)
    f = F.from_data(**data)
    assert f.ma_vs_ro == "faster" and f.ma_as_laptop and f.ro_vs_graph == "slower"


def test_shares_of_rounds_are_read_over_runs_as_their_ends_never_a_median_of_counts(data):
    """Runs time different numbers of rounds: how often one way won is each run's share, its lowest and highest
    over the runs (factbook EXTREMES), so that '3 of 20' never mixes one run's count with another's rounds."""
    _rounds(data, "compile_reduce_overhead", [3.0] * 4)
    _rounds(data, "compile_max_autotune", [2.9, 3.2, 3.2, 3.2])
    f = F.from_data(**data)
    assert (f.ma_faster_low, f.ma_faster_high, f.ro_faster_low) == (0.25, 0.25, f.ro_faster_low)
    assert F.EXTREMES == {"static_slower_low": min, "static_slower_high": max, "ro_faster_low": min,
                          "ma_faster_low": min, "ma_faster_high": max}
    assert not [x.name for x in dataclasses.fields(F.Facts) if x.name.endswith(("faster_rounds", "slower_rounds"))]


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
    """The drawn step's host call under the profiler against the timed step's host time (the page's one figure of
    each)."""
    six = data["six"]
    inflates = G.GUARDS["profiler_inflates"][1]
    six["timelines"]["eager_static"]["host_us"] = 2e3 * report.summaries(six)["eager_static"]["host_ms"]
    assert inflates(F.from_data(**data))
    six["timelines"]["eager_static"]["host_us"] = 1.0  # quicker under the profiler than timed
    assert not inflates(F.from_data(**data))


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
    assert f.six_runs == 1 and not f.six_several_runs and (f.graph_ms_low, f.graph_ms_high) == (f.graph_ms, f.graph_ms)
    assert not any((f.dyn_ms_runs_vary, f.static_ms_runs_vary, f.graph_ms_runs_vary, f.ro_ms_runs_vary,
                    f.best_ms_runs_vary))


def test_step_times_across_runs_show_their_range_only_past_the_spread(data):
    six = data["six"]
    one = F.from_data(**data)
    within = figures.step_summary(six, "cuda_graph")
    spread = max(2 * within["noise_pct"] / 100 if within.get("noise_pct") is not None else 0,
                 within["spread_pct"] / 100)
    far = F.from_data(**data, runs=[_slower_run(six, "cuda_graph", 1 + 3 * spread), six])
    assert far.six_runs == 2 and far.six_several_runs
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


# each guard the page names, driven both ways: (guard, fields under which it holds, the change that turns it)
GUARD_CASES = [
    ("all_passed", {"any_valid": True, "all_passed": True, "n_failed": 0, "has_build_errors": False},
     {"all_passed": False, "n_failed": 1}),
    ("all_passed", {"any_valid": True, "all_passed": True, "n_failed": 0, "has_build_errors": False},
     {"has_build_errors": True}),
    ("as_article", {"weight_as_article": True}, {"weight_as_article": False}),
    ("launch_bound", {"launch_ms": 10.4, "floor_ms": 0.72}, {"launch_ms": 0.5}),
    ("host_bound", {"static_host_ms": 32.8, "static_ms": 32.9}, {"static_host_ms": 20.0}),
    ("launch_part", {"host_beyond_launch_ms": 22.4}, {"host_beyond_launch_ms": -1.0}),
    ("kernels_shortest", {"static_busy_ms": 3.6, "launch_ms": 10.4, "host_beyond_launch_ms": 22.4},
     {"static_busy_ms": 12.0}),
    ("kernels_shortest", {"static_busy_ms": 3.6, "launch_ms": 10.4, "host_beyond_launch_ms": 22.4},
     {"host_beyond_launch_ms": 3.0}),
    ("trap_past_tol", {"trap_rel_err": 0.76, "tolerance": 0.115}, {"trap_rel_err": 0.05}),
    ("gap_in_band", {"median_gap": 0.14, "band": 0.42}, {"median_gap": 0.5}),
    ("departures_in_band", {"departures_in_band": True, "n_wide": 0}, {"departures_in_band": False, "n_wide": 1}),
    ("laptop_same_lists", {"laptop_all_same": True}, {"laptop_all_same": False}),
    ("trap_stale", {"counter_shift": 3}, {"counter_shift": 0}),
    ("trap_no_top1", {"trap_top1": 0.0}, {"trap_top1": 0.25}),
    ("reset_exact", {"reset_exact": True}, {"reset_exact": False}),
    ("all_noisy", {"rounds_quiet": False, "some_quiet": False, "noisy_count": 6, "n_variants": 6},
     {"some_quiet": True, "noisy_count": 5}),
    ("after_grew", {"has_after_profiler": True, "after_worst_added_us": 4400.0}, {"after_worst_added_us": -3.0}),
    ("static_adds_kernels", {"static_extra_kernels": 231, "laptop_static_extra": 229}, {"static_extra_kernels": 0}),
    ("static_slower", {"static_ms": 32.9, "dyn_ms": 26.3}, {"static_ms": 25.0}),
    ("graph_same_kernels", {"graph_kernels": 1403, "static_kernels": 1403}, {"graph_kernels": 1404}),
    ("graph_busy", {"graph_idle_share": 0.12}, {"graph_idle_share": 0.6}),
    ("cd_fewer_kernels", {"cd_kernels": 541, "static_kernels": 1403}, {"cd_kernels": 800}),
    ("cd_host", {"cd_host_ms": 11.8, "cd_busy_ms": 2.3}, {"cd_host_ms": 1.0}),
    ("cd_idle_most", {"cd_idle_share": 0.79}, {"cd_idle_share": 0.4}),
    ("cd_idle_above_laptop", {"cd_idle_share": 0.79, "laptop_cd_idle_share": 0.15}, {"cd_idle_share": 0.1}),
    ("ro_faster", {"ro_vs_graph": "faster"}, {"ro_vs_graph": "mixed"}),
    ("ro_every_round", {"ro_faster_low": 1.0}, {"ro_faster_low": 0.95}),
    ("ro_less_busy", {"fusion_cut_busy_ms": 1.4}, {"fusion_cut_busy_ms": -0.1}),
    ("ma_not_faster", {"ma_vs_ro": "mixed"}, {"ma_vs_ro": "faster"}),
    ("ma_median_longer", {"ma_median_more": True}, {"ma_median_more": False}),
    ("laptop_ma_gained", {"laptop_ma_gain_ms": 0.14}, {"laptop_ma_gain_ms": -0.1}),
    ("dyn_runs_differ", {"six_runs": 2, "dyn_ms_low": 18.78, "dyn_ms_high": 33.76}, {"six_runs": 1}),
    ("dyn_runs_differ", {"six_runs": 2, "dyn_ms_low": 18.78, "dyn_ms_high": 33.76}, {"dyn_ms_high": 18.781}),
    ("profiler_inflates", {"tl_static_host_ms": 48.8, "static_host_ms": 32.8}, {"tl_static_host_ms": 30.0}),
    ("profiler_mostly_gaps", {"tl_static_gaps_ms": 45.0, "tl_static_host_ms": 48.8}, {"tl_static_gaps_ms": 20.0}),
    ("replay_gaps_past_idle", {"tl_graph_gaps_ms": 2.2, "graph_idle_ms": 0.5}, {"tl_graph_gaps_ms": 0.1}),
    ("item_raised", {"item_outcome": "raised"}, {"item_outcome": "silent"}),
    ("context_usable", {"item_usable_after": True}, {"item_usable_after": False}),
    ("laptop_item_failed", {"laptop_item_failed": True}, {"laptop_item_failed": False}),
    ("cache_grows", {"dyn_grows": True}, {"dyn_grows": False}),
    ("cache_moves", {"dyn_moves": True}, {"dyn_moves": False}),
    ("static_fixed", {"static_fixed": True}, {"static_fixed": False}),
    ("one_graph", {"graph_count": 1, "break_count": 0}, {"graph_count": 2, "break_count": 1}),
    ("laptop_one_graph", {"laptop_graph_count": 1, "laptop_break_count": 0}, {"laptop_break_count": 1}),
    ("not_bandwidth", {"step_ratio": 4.2, "bw_ratio": 17.2}, {"step_ratio": 15.0}),
    ("kernels_past_floor", {"best_busy_ms": 2.32, "floor_ms": 0.72}, {"best_busy_ms": 1.2}),
    ("best_idles", {"best_idle_ms": 1.0}, {"best_idle_ms": 0.0}),
]


@pytest.mark.parametrize("name, holding, turned", GUARD_CASES, ids=[c[0] for c in GUARD_CASES])
def test_each_guard_is_driven_both_ways_by_the_data(data, name, holding, turned):
    _, test = G.GUARDS[name]
    f = dataclasses.replace(F.from_data(**data), **holding)
    assert test(f)
    assert not test(dataclasses.replace(f, **turned))


def test_every_guard_has_a_case_and_holds_or_not_on_the_fixture_as_its_fields_say(data):
    assert {c[0] for c in GUARD_CASES} == set(G.GUARDS)
    f = F.from_data(**data)
    assert G.GUARDS["launch_bound"][1](f) == (f.launch_ms > f.floor_ms)
    assert G.GUARDS["all_passed"][1](f) == (f.all_passed and not f.has_build_errors)


@pytest.mark.parametrize("name", sorted(G.GUARDS))
def test_each_guard_says_what_the_data_shows_where_it_fails(data, name):
    """A failing guard's words name values, never None, on the fixture turned by its case."""
    guard = G.GUARDS[name]
    holding, turned = next((h, t) for n, h, t in GUARD_CASES if n == name)
    f = dataclasses.replace(F.from_data(**data), **{**holding, **turned})
    words = guard.found(f)
    assert words and "None" not in words


def test_derived_figures_read_as_the_medians_beside_them(data):
    f = dataclasses.replace(F.from_data(**data), dyn_ms=30.0, static_ms=40.0, graph_ms=5.0, best_ms=4.0,
                            floor_ms=1.0, launch_eager_us=8.0, static_kernels=1000, best_busy_ms=2.5)
    d = F.derive(f)
    assert (d["best_speedup"], d["graph_speedup"], d["best_floor_share"], d["dyn_floor_share"]) == (
        7.5, 8.0, 0.25, pytest.approx(1 / 30))
    assert d["launch_ms"] == 8.0 and d["launch_over_floor"] == 8.0 and d["best_tok_s"] == 250.0
    assert d["launch_step_share"] == 0.2 and d["host_beyond_launch_ms"] == pytest.approx(f.static_host_ms - 8.0)
    assert d["best_busy_over_floor"] == 2.5 and d["best_busy_beyond_floor_ms"] == 1.5
    g = dataclasses.replace(f, graph_busy_ms=4.0, cd_ms=10.0, cd_busy_ms=2.0, static_busy_ms=4.0, dyn_busy_ms=3.0,
                            ro_ms=3.0, ma_ms=3.5, after_worst_before_us=1000.0, after_worst_host_us=1250.0)
    d = F.derive(g)  # the six ways table's idle column and the after-profiler table's two host columns
    assert (d["graph_idle_share"], d["graph_idle_ms"], d["cd_idle_share"], d["static_idle_share"]) == (
        pytest.approx(0.2), pytest.approx(1.0), pytest.approx(0.8), pytest.approx(0.9))
    assert d["dyn_idle_share"] == pytest.approx(0.9) and d["best_idle_ms"] == pytest.approx(1.5)
    assert (d["static_dyn_diff_ms"], d["ro_graph_diff_ms"], d["ma_ro_diff_ms"]) == (10.0, 2.0, 0.5)
    assert (d["after_worst_added_us"], d["after_worst_share"]) == (250.0, 0.25)
    assert set(d) == set(F.DERIVED_FROM)
    assert "best_speedup" not in F.derive(dataclasses.replace(f, best_ms=None, best_busy_ms=None))


def test_the_launch_cost_is_the_machine_chapters(fixture_results):
    """The page prints one launch's cost from the machine chapter; the launch figures decode computes with (the
    launches of a step at that cost) are the same medians."""
    from kernelbook import factbook

    d, m = factbook.book("decode").facts, factbook.book("machine").facts
    assert (d.launch_eager_us, d.launch_graph_us, d.launch_ratio, d.launches) == (
        m.eager_us, m.graph_us, pytest.approx(m.launch_speedup), m.launches)
    assert d.launch_ms == pytest.approx(d.static_kernels * m.eager_us / 1e3)


def test_every_format_names_a_field():
    names = {f.name for f in dataclasses.fields(F.Facts)}
    assert set(F.FORMATS) <= names and set(F.DERIVED_FROM) <= names


def test_the_noisiest_widest_and_most_grown_way_is_chosen_by_its_medians_over_runs(data):
    """One way for every run the one rule reads: the median of the way chosen by each run alone could mix two ways'
    figures under one way's name."""
    six = data["six"]
    one = F.from_data(**data)
    # a second run in which the graph is far the noisiest, widest and most grown after the profiles, once
    other = copy.deepcopy(six)
    other["quiet"]["figures"]["cuda_graph"]["step_ms"]["noise_pct"] = 1e3
    rounds = [r["variants"]["cuda_graph"] for r in other["rounds"]]
    rounds[0]["step_ms"] *= 100
    other["after_profiler"]["variants"]["cuda_graph"]["host_us"] += 1e9
    both = F.from_data(**data, runs=[other, six])
    assert (both.noisiest_label, both.widest_label, both.after_worst_label) == (
        six["labels"]["cuda_graph"],) * 3  # the graph's medians: the mean of its two runs' figures
    assert both.noisiest_pct == report.variant_summary(six, "cuda_graph")["noise_pct"]  # this run's figure of that way
    assert one.noisiest_label != both.noisiest_label
    worst = figures.after_worst([other, six])
    assert worst == "cuda_graph" and figures.after_across([six], worst)["host_us"] == both.after_worst_host_us
