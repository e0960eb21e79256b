"""The decode-far facts on the fixture results, and each verdict the page reads driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses
import statistics

import pytest

from kernelbook import guards, page
from kernelbook.chapters.decode_far import anchors
from kernelbook.chapters.decode_far import facts as F
from kernelbook.chapters.decode_far import guards as G


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"far_data": load("decode_far.ladder"), "six": load("decode.six_ways"),
            "laptop_six": load("decode.six_ways", F.LAPTOP), "launch": load("machine.ceilings")["launch"],
            "read_gbps": load("machine.ceilings")["bandwidth"]["read"]["gbps"], "gpu": "H200"}


def _facts(data) -> F.Facts:
    return F.from_data(**data)


def _rounds(data, name, key, value):
    for r in data["far_data"]["rounds"]:
        r["variants"][name][key] = value


def _drop(data, name):
    """A step that was not built: no rounds, no name, a build error."""
    d = data["far_data"]
    for r in d["rounds"]:
        r["variants"].pop(name, None)
    d["names"].remove(name)
    d["build_errors"][name] = "RuntimeError: fixture"


def test_the_fixture_reads_as_stored(data):
    """The fixture's twelve rungs, as the stored ladder has them: the last is the fold (attention_o), slower than
    down_ring before it, which is the fastest step that passed its check."""
    f = _facts(data)
    d = data["far_data"]
    assert d["steps"] == ["own", "fused_proj", "filled_attention", "fused_kernels", "matvec", "matvec_fusions", "pdl",
                          "greedy", "swiglu_ring", "few_o", "down_ring", "attention_o"]
    last = statistics.median(r["variants"]["attention_o"]["step_ms"] for r in d["rounds"])
    base = statistics.median(r["variants"]["cuda_graph"]["step_ms"] for r in d["rounds"])
    assert f.last_ms == pytest.approx(last) and f.base_ms == pytest.approx(base)
    assert f.speedup == pytest.approx(base / last) and f.last_floor_share == pytest.approx(d["floor_ms"] / last)
    assert f.goal_over_ms == pytest.approx(last - F.GOAL_MS)
    assert f.goal_floor_share == pytest.approx(d["floor_ms"] / F.GOAL_MS)
    assert sum(v for v in f.delta_ms.values() if v is not None) == pytest.approx(last - base)
    assert (f.last_kernels, f.base_kernels, f.changes, f.last_label) == (119, 1403, 12, "attention inside the output "
                                                                          "projection")
    assert f.complete and f.last_is_fold and f.last_slower and f.last_slower_every_round and not f.last_is_best
    assert f.last_prev_label == f.best_label == "down weights through shared memory"
    assert (f.best_ms, f.best_kernels) == (pytest.approx(1.2195), 147)
    assert f.has_ring and f.has_few and f.has_down and f.has_fold and f.down_is_best and not f.few_is_best
    assert f.exact == ("own PyTorch step", "+ fused QKV, gate/up") and f.worst_label == "+ Triton matvec for one row"
    assert (f.free_same, f.free_steps, f.fp32_top1_differ) == (8, 12, 2)
    assert (f.laptop_best_label, f.laptop_best_ms, f.laptop_floor_ms) == ("torch.compile max-autotune", 13.6, 12.4)
    assert F.facts().gpu == "H200"


@pytest.mark.parametrize("off, passed, verdict", [(-0.1, True, "met"), (0.0, True, "met"), (0.1, True, "over"),
                                                  (-0.1, False, "failed")])
def test_the_goal_is_met_only_by_a_correct_step_within_it(data, off, passed, verdict):
    ms = F.GOAL_MS + off
    last = data["far_data"]["steps"][-1]
    _rounds(data, last, "step_ms", ms)
    _rounds(data, last, "loop_ms", ms)
    data["far_data"]["teacher_forced"][last]["passed"] = passed
    f = _facts(data)
    assert f.goal == verdict and f.loop_goal == verdict and f.any_failed is not passed
    assert f.goal_over_ms == pytest.approx(ms - F.GOAL_MS)


def test_the_back_to_back_goal_has_its_own_verdict(data):
    _rounds(data, "attention_o", "step_ms", F.GOAL_MS + 0.02)
    _rounds(data, "attention_o", "loop_ms", F.GOAL_MS - 0.02)
    f = _facts(data)
    assert (f.goal, f.loop_goal, f.round_trip_shows) == ("over", "met", True)
    assert f.round_trip_ms == pytest.approx(0.04)


def test_a_step_that_was_not_built_leaves_the_ladder_incomplete(data):
    assert _facts(data).complete and _facts(data).unbuilt == ()
    clean = copy.deepcopy(data)
    _drop(data, "attention_o")
    f = _facts(data)
    assert not f.complete and f.unbuilt == ("+ attention inside the output projection",)
    assert f.goal == f.loop_goal == "missing" and f.last_ms is None and f.speedup is None
    assert f.delta_ms["attention_o"] is None and not f.last_slower and f.last_cost_ms is None
    assert f.best_label == "down weights through shared memory"  # the rungs before it still read
    _drop(clean, "greedy")  # a rung in the middle: the next one reads against the rung before that
    f = _facts(clean)
    assert f.unbuilt == ("+ argmax and next inputs in the graph",) and f.delta_ms["greedy"] is None
    assert f.ring_before_label == "programmatic dependent launch" and f.goal == "over"


def test_the_start_reads_the_decode_chapter_and_the_laptop(data):
    f = _facts(data)
    assert f.six_has_best and f.six_best_label == "torch.compile max-autotune" and f.six_mostly_overhead
    assert f.laptop_closer and not f.laptop_has_same  # the laptop's best is the same variant
    assert f.rest_shrank == "less" and f.rest_ratio == pytest.approx(1.2 / f.six_rest_ms)  # 1.2 against 1.17 ms
    assert (f.laptop_floor_ms, f.laptop_dram_gbps) == (12.4, 248.7)
    six = data["six"]
    six["teacher_forced"]["compile_max_autotune"]["passed"] = False  # reduce-overhead is the best now
    f = _facts(data)
    assert f.six_best_label == "torch.compile reduce-overhead" and f.laptop_has_same
    assert f.laptop_same_floor_share == 0.90
    for r in six["rounds"]:
        r["variants"]["compile_reduce_overhead"]["step_ms"] = six["floor_ms"] / 0.95  # 95% of the floor
    f = _facts(data)
    assert not f.six_mostly_overhead and not f.laptop_closer and f.rest_shrank == "as_the_floor"  # 0.04 ms
    for r in six["rounds"]:
        r["variants"]["compile_reduce_overhead"]["step_ms"] = six["floor_ms"] + 3.0
    assert _facts(data).rest_shrank == "not"
    for c in six["teacher_forced"].values():
        c["passed"] = False
    f = _facts(data)
    assert not f.six_has_best and f.six_best_ms is None and not f.six_mostly_overhead and not f.laptop_closer


def test_the_check_verdicts_follow_every_step(data):
    d = data["far_data"]
    tf = d["teacher_forced"]
    f = _facts(data)
    assert f.any_exact and f.any_rounded and f.worst_near_fp32 and not f.any_nonfinite and not f.any_failed
    assert f.worst_of_tolerance == pytest.approx(0.0336 / d["tolerance"])
    for n in d["steps"]:
        tf[n].update(bit_identical=False, rel_err_max=0.01)
    tf["pdl"]["rel_err_max"] = 1.3 * d["yardstick_fp32"]["rel_err_max"]  # further from eager than float32 is
    f = _facts(data)
    assert not f.any_exact and f.worst_label == "+ programmatic dependent launch" and not f.worst_near_fp32
    tf["pdl"].update(rel_err_max=None, passed=False, nonfinite=7)
    f = _facts(data)
    assert f.any_nonfinite and f.nonfinite == ("+ programmatic dependent launch",)
    assert f.any_failed and f.failed == ("+ programmatic dependent launch",)
    for n in d["steps"]:
        tf[n].update(bit_identical=True, rel_err_max=0.0)
    f = _facts(data)
    assert not f.any_rounded and f.worst_label is None and not f.worst_near_fp32


def test_free_running_and_near_ties(data):
    d = data["far_data"]
    f = _facts(data)
    assert not f.free_all_same and f.near_ties_only and not f.same_eager_tokens
    for n in d["steps"]:
        d["free_running"][n] = list(d["free_running"]["eager_static"])
    d["teacher_forced"]["matvec"]["unexplained_steps"] = [4]  # a top-token difference outside the band
    data["six"]["free_running"]["eager_static"]["tokens"] = list(d["free_running"]["eager_static"])
    f = _facts(data)
    assert f.free_all_same and f.free_same == f.free_steps == 12 and not f.near_ties_only and f.same_eager_tokens
    assert f.gaps_n == 20 and f.gaps_within_band == sum(g < d["band"] for g in
                                                        data["six"]["free_running"]["eager_static"]["gaps"])


def test_the_greedy_steps_own_argmax(data):
    """Every rung from greedy on picks its own next token; the first of them checked doing so is the one read."""
    d = data["far_data"]
    assert d["advances"] == ["greedy", "swiglu_ring", "few_o", "down_ring", "attention_o"]
    f = _facts(data)
    assert f.has_next_check and (f.next_agree, f.next_steps) == (20, 20) and f.next_positions_ok
    assert f.next_label == "argmax and next inputs in the graph"
    d["teacher_forced"]["greedy"]["next_token"].update(agree=19, positions_ok=False, passed=False)
    f = _facts(data)
    assert f.next_agree == 19 and not f.next_positions_ok
    del d["teacher_forced"]["greedy"]["next_token"]
    assert _facts(data).next_label == "SwiGLU weights through shared memory"
    for n in d["advances"]:
        d["teacher_forced"][n].pop("next_token", None)
    assert not _facts(data).has_next_check


def test_the_largest_savings_and_what_a_removed_kernel_cost(data):
    f = _facts(data)
    assert (f.first_label, f.second_label) == ("+ norm, RoPE, SwiGLU, residual in the matvecs",
                                               "+ fused add+RMSNorm, SwiGLU")
    assert f.first_us_per_kernel == pytest.approx(1e3 * f.first_saved_ms / (624 - 146))
    assert f.top_cut_kernels and f.removed_cost_more
    assert f.per_kernel_ratio == pytest.approx(min(f.first_us_per_kernel, f.second_us_per_kernel))
    data["launch"]["graph_us_per_launch"] = min(f.first_us_per_kernel, f.second_us_per_kernel)  # about one hand-off
    assert not _facts(data).removed_cost_more
    data["far_data"]["profiles"]["matvec_fusions"]["kernels"] = 624  # the largest saving removed no kernel
    f = _facts(data)
    assert not f.top_cut_kernels and f.first_us_per_kernel is None and not f.removed_cost_more


def test_cublas_against_the_matvec(data):
    f = _facts(data)
    assert f.has_matvec and f.matvec_faster and (f.matvec_kernels_before, f.matvec_kernels_after) == (653, 624)
    assert not f.matvec_profiled_all  # the fixture's fused_kernels profile lists three of cuBLAS's projections
    data["far_data"]["kernel_mix"]["fused_kernels"]["top"].append({"name": "nvjet_fixture_TNT", "count": 29,
                                                                   "us": 1.0})  # 113 launches, as the matvecs
    assert _facts(data).matvec_profiled_all
    _rounds(data, "matvec", "step_ms", 3.0)
    f = _facts(data)
    assert not f.matvec_faster and f.matvec_saved_ms < 0
    _drop(data, "matvec")
    assert not _facts(data).has_matvec


def test_where_the_time_goes(data):
    f = _facts(data)
    assert f.has_plain and f.plain_label == "+ norm, RoPE, SwiGLU, residual in the matvecs"
    assert f.plain_matvec_loss_ms == pytest.approx(f.plain_matvec_ms - data["far_data"]["floor_ms"])
    assert f.owners_ms == pytest.approx(f.plain_matvec_loss_ms + f.plain_rest_ms)
    assert f.attention_not_bytes and not f.plain_busy_over and f.owners_cover
    data["far_data"]["tuning"]["attention"]["bytes"] = 10**7  # 2.4 µs at copy speed, of 8.9 µs a launch
    assert not _facts(data).attention_not_bytes
    busy = data["far_data"]["profiles"]["matvec_fusions"]["busy_us"] / 1e3
    _rounds(data, "matvec_fusions", "loop_ms", busy - 0.05)
    f = _facts(data)
    assert f.plain_busy_over and f.plain_busy_over_ms == pytest.approx(0.05) and f.plain_idle_ms == 0
    _rounds(data, "attention_o", "step_ms", 2.4)  # over the goal by more than all of it (and still overlapped)
    assert not _facts(data).owners_cover
    for p in data["far_data"]["profiles"].values():
        p["busy_us"] = 1e9  # every step's kernels overlap: none splits its time
    f = _facts(data)
    assert not f.has_plain and f.plain_ms is None and not f.owners_cover


def test_programmatic_dependent_launch(data):
    """'The same kernels' only when the counts match: attention tuned inside each step can pick a split config
    (one merge launch a layer more) for one step and not the other."""
    d = data["far_data"]
    f = _facts(data)
    assert f.has_pdl and f.pdl_used and f.pdl_faster and f.pdl_same_kernels and f.pdl_kernels == 146
    d["profiles"]["pdl"]["kernels"] += 28
    d["in_step"]["pdl"]["configs"]["attention"] = [16, 32, 2]
    f = _facts(data)
    assert not f.pdl_same_kernels and (f.pdl_kernels, f.pdl_kernels_before) == (174, 146)
    assert (f.pdl_attention_config, f.before_attention_config) == ("16 × 32 × 2", "32 × 16 × 4")
    _rounds(data, "pdl", "step_ms", 2.0)
    d["pdl_used"] = False
    f = _facts(data)
    assert not f.pdl_faster and not f.pdl_used
    _drop(data, "pdl")
    assert not _facts(data).has_pdl


def test_the_graph_alone_against_its_loop(data):
    """The fixture: the cost step (down_ring) back to back 1.222 ms, its graph replayed back to back 1,214 µs, its
    next token picked inside the graph (no argmax outside it)."""
    d = data["far_data"]
    f = _facts(data)
    assert f.has_alone and f.loop_over_graph and not f.alone_has_argmax and f.alone_argmax_us is None
    assert f.alone_label == f.best_label == "down weights through shared memory"
    assert f.alone_outside_ms == pytest.approx(0.008) and f.alone_loop_ms == pytest.approx(1.222)
    argmax = next(k for k in d["kernel_mix"]["pdl"]["top"] if "ArgMax" in k["name"])  # 8.704 µs
    d["kernel_mix"]["down_ring"]["top"].append(dict(argmax))
    d["launch_costs"]["whole_us"] = 1300.0
    f = _facts(data)
    assert not f.loop_over_graph and f.alone_has_argmax and f.alone_argmax_us == pytest.approx(8.704)
    for r in d["rounds"]:
        r["variants"]["down_ring"].pop("loop_ms")
    assert not _facts(data).has_alone


def test_the_greedy_step_against_the_one_before(data):
    """Host 13.8 µs a step against the PDL step's 204.45 µs; back to back 1.260 ms against 1.277 ms."""
    f = _facts(data)
    assert f.has_greedy and (f.greedy_kernels, f.greedy_kernels_before) == (147, 146)
    assert f.greedy_host_us == pytest.approx(13.8) and f.greedy_host_us_before == pytest.approx(204.45)
    assert (f.greedy_loop_ms, f.greedy_loop_ms_before) == (pytest.approx(1.26), pytest.approx(1.277))
    data["far_data"]["advances"] = []  # a result from before the step existed
    assert not _facts(data).has_greedy


def test_the_kernel_list_and_the_step_set_beside_it(data):
    """The last step (attention_o) and the rungs before it back to pdl overlap their kernels; the column to read each
    kernel's cost from is the last step without PDL."""
    d = data["far_data"]
    f = _facts(data)
    assert f.kernels_label == "+ attention inside the output projection" and f.kernels_overlap and f.has_compared
    assert (f.kernels_copies, f.kernels_distinct) == (0, 7) and f.kernels_busy_ms > f.kernels_step_ms
    d["profiles"]["attention_o"]["busy_us"] = 100.0
    assert not _facts(data).kernels_overlap
    d["kernel_mix"] = {"attention_o": d["kernel_mix"]["attention_o"]}
    assert not _facts(data).has_compared


def test_the_launch_costs(data):
    """The cost step is down_ring: 28 × (3 + 1 + 1.5 + 12.8 + 7) + 105 = 813.4 of the fixture's 1,214 µs."""
    d = data["far_data"]
    calls = d["launch_costs"]["calls"]
    assert d["launch_costs"]["step"] == "down_ring" and list(calls) == ["qkv_rope", "attention", "o", "swiglu_ring",
                                                                        "down_ring", "lm_head"]
    f = _facts(data)
    assert f.calls_sum_us == pytest.approx(813.4) and not f.calls_over_whole
    assert (f.mlp_us, f.chain_us) == (pytest.approx(19.8), pytest.approx(5.5)) and f.chain_furthest
    assert f.mlp_share == pytest.approx((55050240 + 27525120) / 4248e3 / 19.8)
    assert f.calls_over_copy == ("swiglu_ring", "lm_head")  # 101% and 105% of the copy speed
    calls["swiglu_ring"]["us"] = 13.5
    calls["lm_head"]["us"] = 112.0
    assert not _facts(data).any_call_over_copy
    for c in ("qkv_rope", "attention", "o"):
        calls[c]["us"] = 0.1
    d["launch_costs"]["whole_us"] = 600.0  # less than the calls now add up to (694.4 µs)
    f = _facts(data)
    assert f.calls_over_whole and not f.chain_furthest


def test_the_tuning(data):
    t = data["far_data"]["tuning"]
    f = _facts(data)
    assert f.any_site_over_copy and f.sites_over_copy == ("lm_head",) and not f.attention_one_launch
    t["lm_head"]["gbps"] = 1000.0
    t["attention"]["best"] = [64, 1, 4]
    f = _facts(data)
    assert not f.any_site_over_copy and f.attention_one_launch


def test_retuning_inside_the_step(data):
    steps = data["far_data"]["in_step"]
    f = _facts(data)
    assert not f.retune_plain_helped and f.retune_plain_cut == 0  # 1,300 µs before and after
    assert f.retune_pdl_helped and f.retune_pdl_cut == pytest.approx((1190.0 - 1148.4) / 1190.0)
    steps["matvec_fusions"]["sites"]["lm_head"]["step_us"] = 1200.0
    steps["pdl"]["sites"]["lm_head"]["step_us"] = 1250.0
    f = _facts(data)
    assert f.retune_plain_helped and not f.retune_pdl_helped


def test_a_last_change_that_costs_time_is_said_and_the_fastest_step_named(data):
    d = data["far_data"]
    last, before = d["steps"][-1], d["steps"][-2]
    ms = {n: statistics.median(r["variants"][n]["step_ms"] for r in d["rounds"]) for n in d["names"]}
    _rounds(data, last, "step_ms", ms[before] * 0.9)
    f = _facts(data)
    assert not f.last_slower and f.last_is_best and f.last_cost_ms < 0
    _rounds(data, last, "step_ms", ms[before] * 1.1)
    f = _facts(data)
    assert f.last_slower and not f.last_is_best and f.last_cost_ms > 0
    assert f.best_ms == min(statistics.median(r["variants"][n]["step_ms"] for r in d["rounds"])
                            for n in d["names"] if d["teacher_forced"][n]["passed"])


def test_the_fold_is_judged_alone_against_the_pair(data):
    """The fixture's fold tuned alone: 10.5 µs a layer at 64 rows a program, against attention's 5.0 µs and the
    output projection's 4.064 µs as two launches."""
    tun = data["far_data"]["tuning"]
    f = _facts(data)
    assert f.has_fold and f.fold_alone_slower and f.fold_rows == 64
    assert f.fold_us == 10.5 and f.pair_us == pytest.approx(5.0 + 4.064)
    tun["attention_o"]["us"] = tun["attention"]["us"] + tun["o"]["us"] - 1.0
    assert not _facts(data).fold_alone_slower
    del tun["attention_o"]
    assert not _facts(data).has_fold and not _facts(data).fold_alone_slower


def test_the_rounds_noise_verdicts(data):
    q = data["far_data"]["quiet"]
    for fig in q["figures"].values():
        for v in fig.values():
            v.update(quiet=True, noise_pct=0.1)
    q["stopped"] = "quiet"
    f = _facts(data)
    assert f.rounds_quiet and f.step_noisy_count == 0 and f.loop_all_quiet
    first = next(iter(q["figures"].values()))
    first["step_ms"].update(quiet=False, noise_pct=2.0)
    first["loop_ms"].update(quiet=False, noise_pct=0.7)
    q["stopped"] = "cap"
    f = _facts(data)
    assert not f.rounds_quiet and f.step_noisy_count == 1 and f.step_noise_high == 2.0
    assert not f.loop_all_quiet and f.loop_noise_high == 0.7


def test_no_best_step_when_none_passed(data):
    assert _facts(data).has_best
    for c in data["far_data"]["teacher_forced"].values():
        c["passed"] = False
    f = _facts(data)
    assert not f.has_best and f.best_ms is None


def test_a_slower_last_step_is_read_round_by_round(data):
    d = data["far_data"]
    last, before = d["steps"][-1], d["steps"][-2]
    for i, r in enumerate(d["rounds"]):  # far slower in every round but the first, a little faster there
        r["variants"][last]["step_ms"] = r["variants"][before]["step_ms"] * (1.5 if i else 0.99)
    f = _facts(data)
    assert len(d["rounds"]) >= 2 and f.last_slower and not f.last_slower_every_round
    for r in d["rounds"]:
        r["variants"][last]["step_ms"] = r["variants"][before]["step_ms"] * 1.1
    f = _facts(data)
    assert f.last_slower and f.last_slower_every_round and f.last_is_fold == (last == "attention_o")


def test_what_the_waits_cost(data):
    """The fixture's cost step, down_ring: 1,214 µs as built, 1,134 without the waits, every round apart; floor
    726.9 µs."""
    f = _facts(data)
    assert (f.has_no_wait, f.no_wait_label, f.waits_cost) == (True, "down weights through shared memory", True)
    assert (f.no_wait_with_us, f.no_wait_us, f.waits_us) == (1214.0, 1134.0, 80.0)
    assert f.waits_gap_share == pytest.approx(80.0 / (1214.0 - 726.9))
    assert f.no_wait_floor_share == pytest.approx(726.9 / 1134.0) and f.no_wait_gap_us == pytest.approx(407.1)
    ring_ms = next(x for x in F.far.waterfall(data["far_data"]) if x["name"] == "down_ring")["step_ms"]
    assert f.no_wait_step_ms == pytest.approx(ring_ms - 0.080) and f.no_wait_step_ms > F.GOAL_MS
    assert f.no_wait_step_timed and not f.no_wait_meets_goal
    w = data["far_data"]["no_wait"]
    w["without_us"][1] = 1212.0  # one round without the waits as slow as the fastest with them: not decided
    f = _facts(data)
    assert not f.waits_cost and f.waits_us == 80.0
    w["without_us"] = [v - 1e3 * (ring_ms - F.GOAL_MS) - 1.0 for v in w["with_us"]]  # 1 µs more than the excess
    f = _facts(data)
    assert f.no_wait_step_ms == pytest.approx(F.GOAL_MS - 1e-3) and f.no_wait_meets_goal
    _drop(data, "down_ring")  # the step whose launches were timed was not: no synchronised time to take the waits from
    f = _facts(data)
    assert f.has_no_wait and f.no_wait_step_ms is None and not (f.no_wait_step_timed or f.no_wait_meets_goal)
    del data["far_data"]["no_wait"]  # a run from before the diagnostic
    f = _facts(data)
    assert (f.has_no_wait, f.waits_cost, f.no_wait_meets_goal, f.no_wait_us, f.no_wait_step_ms) == (
        False, False, False, None, None)


def test_where_the_distance_sits(data):
    """The fixture: the cost step (down_ring) over 0, 1, 7, 14, 21 and 28 layers on the line 108 + 39.5 n µs; a
    layer's 93,595,648 bytes and the 466,750,464 read once, at the copy's 4,248 GB/s; floor 726.9 µs. What runs once
    takes less than its bytes at the copy bandwidth, so the layers hold all of the distance."""
    f = _facts(data)
    layer_copy, once_copy = 93595648 / 4248e3, 466750464 / 4248e3
    assert (f.has_layer_fit, f.fit_label) == (True, "down weights through shared memory")
    assert f.fit_layers == (0, 1, 7, 14, 21, 28)
    assert f.fit_per_layer_us == pytest.approx(39.5) and f.fit_once_us == pytest.approx(108.0)
    assert f.fit_off_line_us == pytest.approx(0.0, abs=1e-9)
    assert f.layer_copy_us == pytest.approx(layer_copy) and f.layer_share == pytest.approx(layer_copy / 39.5)
    assert f.layers_over_us == pytest.approx(28 * (39.5 - layer_copy)) and f.once_copy_us == pytest.approx(once_copy)
    assert f.once_side == "under" and f.once_off_us == pytest.approx(once_copy - 108.0)
    assert 107.0 < f.once_low_us <= 108.0 <= f.once_high_us < once_copy and f.fit_confidence == F.far.FIT_CONFIDENCE
    assert f.layers_gap_share == 1.0 and f.layers_hold_most and not f.layer_goal_met
    assert f.layer_goal_us == pytest.approx(layer_copy / f.goal_floor_share)
    assert f.layer_goal_cut_us == pytest.approx(39.5 - f.layer_goal_us)
    x = data["far_data"]["layer_fit"]
    x["us"][3] = [v + 7.0 for v in x["us"][3]]  # 14 layers 7 µs off: the line moves, and that median is off it most
    f = _facts(data)
    assert f.fit_off_line_us == pytest.approx(abs(668.0 - (f.fit_once_us + 14 * f.fit_per_layer_us)))
    assert f.fit_off_line_us > 5.0
    x["us"] = [[112.0 + 41.0 * n + e for e in (-1.0, 0.0, 1.0, 0.5, -0.5)] for n in x["layers"]]
    f = _facts(data)  # what runs once over its bytes' time: part of the distance is its
    assert f.once_side == "over" and once_copy < f.once_low_us <= 112.0 <= f.once_high_us < 113.0
    assert f.once_off_us == pytest.approx(112.0 - once_copy) and f.layers_hold_most
    assert f.layers_gap_share == pytest.approx(f.layers_over_us / (f.layers_over_us + 112.0 - once_copy))
    x["us"] = [[once_copy + 41.0 * n + e for e in (-1.0, 0.0, 1.0, 0.5, -0.5)] for n in x["layers"]]
    f = _facts(data)  # the once part's bytes inside its interval: at the floor, whichever side its median falls
    assert f.once_side == "within" and f.once_low_us < once_copy < f.once_high_us
    x["us"] = [[150.0 + 10.0 * n] * 5 for n in x["layers"]]
    f = _facts(data)  # a layer under its bytes' time at the copy bandwidth, what runs once far over: the other side
    assert f.fit_per_layer_us < f.layer_goal_us and f.layer_goal_met and f.layers_over_us < 0
    assert f.once_side == "over" and f.layers_gap_share == 0.0 and not f.layers_hold_most
    x["us"] = [[90.0 + 41.0 * n] * 5 for n in x["layers"]]
    f = _facts(data)  # what runs once under its bytes' time at the copy bandwidth
    assert f.once_side == "under" and f.once_off_us == pytest.approx(once_copy - 90.0) and f.layers_gap_share == 1.0
    del data["far_data"]["layer_fit"]  # a run from before the diagnostic
    f = _facts(data)
    assert (f.has_layer_fit, f.fit_layers, f.fit_per_layer_us, f.layers_hold_most, f.layer_goal_met) == (
        False, (), None, False, False)


def test_what_one_hand_off_costs(data):
    """The fixture: 132, 264 and 528 programs; a hop 0.8, 1.0 and 1.2 µs as a launch, 1.4, 2.5 and 4.8 µs as a
    barrier, the rounds within 0.02 and 0.05 µs; five launches a layer."""
    f = _facts(data)
    assert (f.has_handoff, f.handoff_hops, f.handoff_pdl, f.handoff_ordered) == (True, 140, True, True)
    assert (f.handoff_programs_low, f.handoff_programs_high) == (132, 528)
    assert (f.launch_low_us, f.launch_high_us, f.barrier_low_us, f.barrier_high_us) == (0.8, 1.2, 1.4, 4.8)
    assert f.barrier_always_slower and f.layer_launches == 5
    assert (f.layer_launches_low_us, f.layer_launches_high_us) == pytest.approx((4.0, 6.0))
    assert f.layer_over_us == pytest.approx(39.5 - 93595648 / 4248e3)
    rows = data["far_data"]["handoff"]["rows"]
    rows[1]["barrier_us"][0] = 0.99  # one round of the barrier as fast as a round of the launch: not every round
    rows[2]["launch_ordered"] = False
    f = _facts(data)
    assert not f.barrier_always_slower and not f.handoff_ordered
    data["far_data"]["handoff"]["pdl"] = False  # a GPU without programmatic dependent launch
    assert not _facts(data).handoff_pdl
    del data["far_data"]["handoff"]  # a run from before the diagnostic
    f = _facts(data)
    assert (f.has_handoff, f.handoff_ordered, f.barrier_always_slower, f.launch_low_us, f.layer_launches) == (
        False, False, False, None, 5)


def test_a_split_attention_is_two_launches_of_a_layer(data):
    """A layer's launches are the ones its profiled timeline names: attention's merge counts where the slots were
    split. Without a timeline of the cost step, its calls a layer count."""
    x = data["far_data"]["timeline"]
    assert x["step"] == data["far_data"]["launch_costs"]["step"] and len(x["launches"]) == 5
    assert _facts(data).layer_launches == 5
    j = x["launches"].index("attention") + 1
    x["launches"].insert(j, "attention_merge")
    for key in ("start_us", "end_us"):
        x[key].insert(j, list(x[key][j - 1]))
    f = _facts(data)
    assert f.layer_launches == 6 and (f.layer_launches_low_us, f.layer_launches_high_us) == pytest.approx((4.8, 7.2))
    x["step"] = "greedy"  # a timeline of another step than the costs'
    assert _facts(data).layer_launches == 5
    del data["far_data"]["timeline"]
    assert _facts(data).layer_launches == 5


def _shift(data, name, before, saved_ms):
    """Rung `name` `saved_ms` faster than the rung `before` it in each round (round by round)."""
    for r, s in zip(data["far_data"]["rounds"], saved_ms, strict=True):
        r["variants"][name]["step_ms"] = r["variants"][before]["step_ms"] - s


def _median(data, name):
    return statistics.median(r["variants"][name]["step_ms"] for r in data["far_data"]["rounds"])


def test_the_ring_step_reads_against_the_step_before(data):
    """The fixture's ring rung: 20 and 18 µs faster than greedy round by round, tuned inside its step at (4, 4, 4),
    two programs an SM of a 96 KiB ring, checked at three seeds with 0, 2 and 4 of 8,960 outputs differing."""
    f = _facts(data)
    d = data["far_data"]
    greedy, ring = _median(data, "greedy"), _median(data, "swiglu_ring")
    assert f.has_ring and f.ring_before_label == "argmax and next inputs in the graph"
    assert (f.ring_ms, f.ring_before_ms) == (pytest.approx(ring), pytest.approx(greedy))
    assert f.ring_saved_us == pytest.approx(1e3 * (greedy - ring)) == pytest.approx(19.0)
    assert (f.ring_saved_low_us, f.ring_saved_high_us) == (pytest.approx(18.0), pytest.approx(20.0))
    assert f.ring_rounds == "faster" and f.ring_floor_share == pytest.approx(d["floor_ms"] / ring)
    assert f.ring_before_floor_share == pytest.approx(d["floor_ms"] / greedy)
    assert (f.ring_block_pairs, f.ring_blocks_in_flight, f.ring_warps, f.ring_per_sm, f.ring_kib) == (4, 4, 4, 2, 96)
    assert f.ring_alone_us == 16.6 and f.ring_alone_faster  # matvec_pair's SwiGLU tuned alone: 16.87 µs
    assert (f.ring_checked, f.ring_check_seeds, f.ring_identical, f.ring_finite, f.ring_outputs) == (
        True, 3, False, True, 8960)
    assert f.ring_differ_max == 4 and f.ring_abs_max == pytest.approx(0.001)


def test_without_a_ring_step_the_ring_facts_are_empty(data):
    d = data["far_data"]
    _drop(data, "swiglu_ring")
    f = _facts(data)
    assert (f.has_ring, f.ring_ms, f.ring_rounds, f.ring_saved_us, f.ring_before_label) == (
        False, None, "missing", None, "")
    assert f.ring_checked  # its check ran apart from the step
    assert f.few_before_label == "argmax and next inputs in the graph"  # the next rung reads against the one before
    d["ring_check"] = None  # a GPU the ring cannot run on
    f = _facts(data)
    assert not f.ring_checked and f.ring_check_seeds == 0 and f.ring_differ_max is None and not f.ring_finite


@pytest.mark.parametrize("saved, verdict", [((0.02, 0.001), "faster"), ((-0.01, -0.002), "slower"),
                                            ((0.01, -0.001), "mixed"), ((0.0, 0.01), "mixed")])
def test_the_ring_holds_only_when_every_round_agrees(data, saved, verdict):
    _shift(data, "swiglu_ring", "greedy", saved)
    assert _facts(data).ring_rounds == verdict


def test_a_ring_that_differs_or_breaks_says_so(data):
    rows = data["far_data"]["ring_check"]["rows"]
    assert not _facts(data).ring_identical  # the fixture's ring differs in some outputs, all finite
    for r in rows:
        r.update(differ=0, max_abs=0.0)
    f = _facts(data)
    assert f.ring_identical and f.ring_differ_max == 0 and f.ring_abs_max == 0 and f.ring_finite
    rows[1]["nonfinite"] = 2
    rows[1]["max_abs"] = None
    f = _facts(data)
    assert not f.ring_finite and f.ring_identical and f.ring_abs_max is None


def test_a_ring_step_that_fell_back_is_no_ring(data):
    """Where the ring cannot run, the step launches matvec_pair's SwiGLU and no ring is tuned: no ring to report."""
    d = data["far_data"]
    assert _facts(data).has_ring
    del d["tuning"]["swiglu_ring"]
    d["ring_check"] = None
    f = _facts(data)
    assert not f.has_ring and not f.ring_checked and f.ring_alone_us is None and not f.ring_alone_faster


def test_without_a_few_programs_step_its_facts_are_empty(data):
    _drop(data, "few_o")
    f = _facts(data)
    assert (f.has_few, f.few_ms, f.few_verdict, f.few_rows, f.few_is_best) == (False, None, "missing", None, False)
    assert f.down_before_label == "SwiGLU weights through shared memory"


def test_the_few_programs_step_reads_against_the_ring_step_pair_by_pair(data):
    """The fixture's few_o: 12 and 8 µs faster than the ring rung round by round, o_few tuned inside it over blocks
    of 16 to 64 rows and kept at (16, 512, 16); the ring's step kept o at (2, 2048, 8)."""
    f = _facts(data)
    d = data["far_data"]
    ring, few = _median(data, "swiglu_ring"), _median(data, "few_o")
    assert f.has_few and f.few_before_label == "SwiGLU weights through shared memory"
    assert (f.few_ms, f.few_before_ms) == (pytest.approx(few), pytest.approx(ring))
    assert f.few_floor_share == pytest.approx(d["floor_ms"] / few)
    assert f.few_before_floor_share == pytest.approx(d["floor_ms"] / ring)
    assert f.few_verdict == "faster" and (f.few_faster_rounds, f.few_rounds_n) == (2, 2)
    assert f.few_saved_us == pytest.approx(10.0)  # the median of 12 and 8 µs
    assert f.few_saved_low_us == pytest.approx(8.0) and f.few_saved_high_us == pytest.approx(12.0)
    # W_o is 1536 x 1536: blocks of 16 rows are 96 programs, the ring step's blocks of 2 rows 768
    assert (f.few_rows, f.few_programs, f.few_before_rows, f.few_before_programs) == (16, 96, 2, 768)
    assert f.few_before_known
    assert (f.few_candidates, f.few_rows_fewest, f.few_rows_most) == (4, 16, 64)
    assert (f.o_rows_low, f.o_rows_high) == (4, 16)  # the fixture's configs of the site o
    assert not f.few_is_best and f.best_label == "down weights through shared memory"  # down_ring is faster still


def test_the_few_programs_step_is_the_best_where_the_rungs_after_it_failed(data):
    tf = data["far_data"]["teacher_forced"]
    for n in ("down_ring", "attention_o"):
        tf[n]["passed"] = False
    f = _facts(data)
    assert f.few_is_best and not f.down_is_best and f.best_label == "output projection in a few programs"


@pytest.mark.parametrize("saved, verdict", [((0.012, 0.008), "faster"), ((-0.012, -0.001), "slower"),
                                            ((0.01, -0.01), "level")])
def test_the_few_programs_step_holds_only_where_the_interval_excludes_zero(data, saved, verdict):
    _shift(data, "few_o", "swiglu_ring", saved)
    f = _facts(data)
    assert f.few_verdict == verdict and f.few_faster_rounds == sum(s > 0 for s in saved)
    assert (f.few_saved_low_us <= 0 <= f.few_saved_high_us) == (verdict == "level")


def test_without_the_ring_steps_in_step_configs_its_output_projection_is_not_named(data):
    del data["far_data"]["in_step"]["swiglu_ring"]
    f = _facts(data)
    assert f.has_few and not f.few_before_known and (f.few_before_rows, f.few_before_programs) == (None, None)


def test_a_few_programs_step_with_no_o_few_tuned_is_not_reported(data):
    assert _facts(data).has_few
    del data["far_data"]["tuning"]["o_few"]
    assert not _facts(data).has_few


def test_the_layer_timeline(data):
    """One layer of the cost step (down_ring): its launches end 6.0, 15.5, 20.5, 33.0 and 39.0 µs after the layer's
    first launch, a layer every 39.0 µs."""
    f = _facts(data)
    d = data["far_data"]
    gbps = d["copy"]["gbps"]
    calls = d["launch_costs"]["calls"]
    at_copy = {c: calls[c]["weight_bytes"] / (gbps * 1e3) for c in calls}
    assert (f.has_timeline, f.timeline_label, f.timeline_position, f.timeline_replays) == (
        True, "down weights through shared memory", 86, 3)
    assert f.timeline_period_us == pytest.approx(39.0)
    # a layer apart by 39.0: 6.0, 9.5, 5.0 for the attention half, 12.5 and 6.0 for the MLP
    assert f.timeline_chain_us == pytest.approx(6.0 + 9.5 + 5.0)
    assert f.timeline_chain_copy_us == pytest.approx(at_copy["qkv_rope"] + at_copy["o"])
    assert f.timeline_mlp_us == pytest.approx(12.5 + 6.0)
    assert f.timeline_mlp_copy_us == pytest.approx(at_copy["swiglu_ring"] + at_copy["down_ring"])
    assert (f.timeline_worst, f.timeline_worst_reads) == ("attention", False)  # 9.5 µs after qkv, no weights
    assert f.timeline_worst_after_us == pytest.approx(9.5) and f.timeline_worst_over_us == pytest.approx(9.5)
    # the two rings end sooner after the launch before them than their weights take at the copy bandwidth
    assert (f.timeline_early, f.timeline_any_early) == (("swiglu_ring", "down_ring"), True)


def test_the_timeline_names_a_launch_that_ends_early_and_the_worst_that_reads(data):
    x = data["far_data"]["timeline"]
    x["end_us"][1] = [6.5, 6.5, 6.5]  # attention 0.5 µs after qkv: o is then 14.0 µs after it
    x["end_us"][3] = [34.0, 34.0, 34.0]  # swiglu_ring 13.5 µs after o, more than its weights take: not early
    f = _facts(data)
    assert (f.timeline_early, f.timeline_any_early) == (("down_ring",), True)  # 5.0 µs after swiglu_ring
    assert (f.timeline_worst, f.timeline_worst_reads) == ("o", True)
    assert f.timeline_worst_after_us == pytest.approx(14.0)
    x["end_us"][4] = [41.0, 41.0, 41.0]  # down_ring 7.0 µs after swiglu_ring, more than its weights take
    x["period_us"] = [41.0, 41.0, 41.0]  # (the next layer's qkv_rope still 6.0 µs after it): no launch ends early
    f = _facts(data)
    assert (f.timeline_early, f.timeline_any_early) == ((), False)
    del data["far_data"]["timeline"]
    f = _facts(data)
    assert not f.has_timeline and f.timeline_worst is None and f.timeline_early == ()


def test_the_mlp_costs_take_whichever_swiglu_the_cost_step_makes(data):
    before = _facts(data)
    calls = data["far_data"]["launch_costs"]["calls"]
    calls["swiglu"] = calls.pop("swiglu_ring")  # a cost step without the ring: its SwiGLU call is matvec_pair's
    calls["down"] = calls.pop("down_ring")
    f = _facts(data)
    assert (f.mlp_us, f.mlp_copy_us) == (pytest.approx(before.mlp_us), pytest.approx(before.mlp_copy_us))
    del calls["swiglu"]
    assert _facts(data).mlp_us == pytest.approx(before.mlp_us - 12.8)  # down's alone


def test_the_finalists_are_said_where_the_result_has_them(data):
    f = _facts(data)
    assert (f.retune_has_finalists, f.retune_finalists, f.retune_final_rounds) == (True, 3, 2)
    del data["far_data"]["in_step_finalists"]
    assert not _facts(data).retune_has_finalists


def test_without_a_down_ring_step_its_facts_are_empty(data):
    _drop(data, "down_ring")
    f = _facts(data)
    assert (f.has_down, f.down_ms, f.down_verdict, f.down_rows_in_flight, f.down_is_best) == (
        False, None, "missing", None, False)
    assert f.down_checked  # its check ran apart from the step
    assert f.last_prev_label == "output projection in a few programs" and f.few_is_best
    assert not f.no_wait_step_timed  # the cost step itself was not timed


def test_the_down_ring_step_reads_against_few_o_pair_by_pair(data):
    """The fixture's down_ring: 6 and 4 µs faster than few_o round by round, tuned inside its step over three
    configs and kept at (2, 4, 4), checked at three seeds with every output the same: 528 programs of a 36 KiB
    ring."""
    f = _facts(data)
    d = data["far_data"]
    few, down = _median(data, "few_o"), _median(data, "down_ring")
    assert f.has_down and f.down_before_label == "output projection in a few programs"
    assert (f.down_ms, f.down_before_ms) == (pytest.approx(down), pytest.approx(few))
    assert f.down_floor_share == pytest.approx(d["floor_ms"] / down)
    assert f.down_verdict == "faster" and (f.down_faster_rounds, f.down_rounds_n) == (2, 2)
    assert f.down_saved_us == pytest.approx(5.0)  # the median of 6 and 4 µs
    assert (f.down_saved_low_us, f.down_saved_high_us) == (pytest.approx(4.0), pytest.approx(6.0))
    assert (f.down_rows_in_flight, f.down_warps, f.down_per_sm, f.down_candidates) == (2, 4, 4, 3)
    assert f.down_alone_us == 9.7 and not f.down_alone_faster  # matvec's down tuned alone: 9.354 µs
    assert (f.down_checked, f.down_check_seeds, f.down_identical, f.down_finite, f.down_outputs) == (
        True, 3, True, True, 1536)
    assert f.down_differ_max == 0 and f.down_abs_max == 0 and f.down_programs == 528
    assert f.down_weight_mib == pytest.approx(d["tuning"]["down"]["bytes"] / 2**20)
    assert f.down_is_best and f.best_label == "down weights through shared memory"


@pytest.mark.parametrize("saved, verdict", [((0.006, 0.004), "faster"), ((-0.006, -0.001), "slower"),
                                            ((0.004, -0.004), "level")])
def test_the_down_ring_holds_only_where_the_interval_excludes_zero(data, saved, verdict):
    _shift(data, "down_ring", "few_o", saved)
    f = _facts(data)
    assert f.down_verdict == verdict
    assert (f.down_saved_low_us <= 0 <= f.down_saved_high_us) == (verdict == "level")
    if verdict != "level":  # level, the two medians tie: which is "best" is not this test's question
        assert f.down_is_best == (verdict == "faster")


def test_a_down_ring_that_differs_or_breaks_says_so(data):
    rows = data["far_data"]["down_check"]["rows"]
    for r, n in zip(rows, (0, 2, 1), strict=True):
        r.update(differ=n, max_abs=0.0078 * bool(n))
    f = _facts(data)
    assert not f.down_identical and f.down_differ_max == 2 and f.down_abs_max == pytest.approx(0.0078)
    assert f.down_finite
    for r in rows:
        r.update(differ=0, max_abs=0.0)
    rows[0]["nonfinite"] = 1
    f = _facts(data)
    assert not f.down_finite and f.down_identical


def test_a_down_ring_step_that_fell_back_is_no_ring(data):
    """Where the ring cannot run, down_ring is not tuned and not checked: the step launched matvec."""
    d = data["far_data"]
    del d["tuning"]["down_ring"]
    d["down_check"] = None
    f = _facts(data)
    assert not f.has_down and not f.down_checked and f.down_alone_us is None and f.down_in_flight_mib is None


def test_the_down_rings_hold_no_more_than_w_down(data):
    """528 rings of 36 KiB are 18.6 MiB, under W_down's 26.25 MiB; rings that could hold more still hold only
    W_down."""
    d = data["far_data"]
    assert d["tuning"]["down"]["bytes"] == 27_525_120
    assert _facts(data).down_in_flight_mib == pytest.approx(528 * 36864 / 2**20)
    d["down_check"]["ring_bytes"] = 4 * 36864
    assert _facts(data).down_in_flight_mib == pytest.approx(26.25) == _facts(data).down_weight_mib


def _at_tbps(data, name, tbps_per_round, key="step_ms"):
    """Each round of `name` at the time the fixture's weights take at that round's TB/s."""
    w = data["far_data"]["weight_bytes"]
    for r, tbps in zip(data["far_data"]["rounds"], tbps_per_round, strict=False):
        r["variants"][name][key] = w / (tbps * 1e12) * 1e3


def _fastest_anchor_tbps():
    return anchors.llama_weight_bytes() / min(a.step_us for a in anchors.ANCHORS) / 1e6


@pytest.mark.parametrize("factors, stand", [((1.02, 1.05), "ahead"), ((0.98, 1.02), "level"),
                                            ((0.90, 0.95), "behind")])
def test_the_step_stands_against_a_published_one_by_its_rounds(data, factors, stand):
    """Ahead: even the slowest round reads more TB/s than the published figure; behind: even the fastest reads
    less; level: the figure falls between the rounds."""
    n = len(data["far_data"]["rounds"])
    tbps = [_fastest_anchor_tbps() * factors[i % 2] for i in range(n)]
    _at_tbps(data, "down_ring", tbps)  # the fixture's fastest step that passed its check
    _at_tbps(data, "down_ring", tbps, "loop_ms")
    f = _facts(data)
    assert f.has_anchors and f.anchor_fast_tbps == pytest.approx(_fastest_anchor_tbps())
    assert f.sync_vs_fast == f.loop_vs_fast == stand
    assert min(tbps) <= f.ours_tbps <= max(tbps) and f.ours_share == pytest.approx(
        f.ours_tbps * 1e3 / data["far_data"]["copy"]["gbps"])
    assert f.anchor_slow_tbps < f.anchor_fast_tbps and f.goal_over_fast == pytest.approx(
        f.goal_tbps / f.anchor_fast_tbps)


def test_the_fixture_step_is_behind_the_published_ones(data):
    f = _facts(data)
    assert (f.sync_vs_fast, f.sync_vs_slow, f.loop_vs_fast, f.loop_vs_slow) == ("behind",) * 4
    assert f.anchor_fewer_layers and (f.anchor_layers, f.our_layers) == (16, 28) and f.anchors_same_gpu
    assert f.anchor_runs == 1 and not f.anchor_many_runs


def test_with_no_correct_step_there_is_nothing_to_set_against_the_published_ones(data):
    for c in data["far_data"]["teacher_forced"].values():
        c["passed"] = False
    data["gpu"] = "RTX 4060 Laptop GPU"
    f = _facts(data)
    assert not f.has_anchors and not f.anchors_same_gpu and f.ours_tbps is None and f.ours_loop_tbps is None
    assert {f.sync_vs_fast, f.sync_vs_slow, f.loop_vs_fast, f.loop_vs_slow} == {"missing"}


def test_the_read_floor_divides_the_weights_by_the_read_only_bandwidth(data):
    """A projection only reads: the read floor is the weights over machine.ceilings' read-only pass, beside the copy
    floor of the ladder's own runs; the LM head's matvec is set against both."""
    d = data["far_data"]
    data["read_gbps"] = 2 * d["copy"]["gbps"]
    f = _facts(data)
    assert f.read_floor_ms == pytest.approx(d["weight_bytes"] / (data["read_gbps"] * 1e6))
    assert f.read_floor_ms == pytest.approx(f.floor_ms / 2, rel=1e-3)
    assert f.lm_head_gbps == d["tuning"]["lm_head"]["gbps"]
    assert f.lm_head_read_share == pytest.approx(f.lm_head_copy_share / 2)
    assert f.best_read_share == pytest.approx(f.read_floor_ms / f.best_ms)
    g = F.derive(f)
    assert g["read_floor_ms"] == pytest.approx(f.read_floor_ms) and g["best_read_share"] == pytest.approx(
        f.best_read_share) and g["best_speedup"] == pytest.approx(f.base_ms / f.best_ms)
    # the result's figures: both steps back to back, the floor over the best one's
    assert f.best_loop_speedup == pytest.approx(f.base_loop_ms / f.best_loop_ms) and f.best_loop_ms < f.base_loop_ms
    assert g["best_loop_floor_share"] == pytest.approx(f.floor_ms / f.best_loop_ms) == f.best_loop_floor_share
    # the fixture's fastest correct step is down_ring, not its last (the fold, 28 kernels fewer and slower)
    assert (f.best_kernels, f.last_kernels) == (147, 119) and f.best_ms < f.last_ms


def test_the_published_steps_carry_their_reports_caveats(data):
    """RESULTS.md: the megakernel built for the H100 and missing the study's fidelity check; the CUDA-graph arm
    passing it. The fastest published step is the megakernel."""
    f = _facts(data)
    assert "megakernel" in f.anchor_fast_label and f.anchor_fast_built_for == "H100" and not f.anchor_fast_fidelity
    assert "CUDA graphs" in f.anchor_slow_label and f.anchor_slow_fidelity


def test_a_stand_against_a_published_step_must_hold_in_every_run(data):
    """One run ahead of the fastest published step and another level with it: level, in both orders."""
    n = len(data["far_data"]["rounds"])
    ahead = copy.deepcopy(data)
    _at_tbps(ahead, "down_ring", [_fastest_anchor_tbps() * (1.02, 1.05)[i % 2] for i in range(n)])
    level = copy.deepcopy(data)
    _at_tbps(level, "down_ring", [_fastest_anchor_tbps() * (0.98, 1.02)[i % 2] for i in range(n)])
    runs = [ahead["far_data"], level["far_data"]]
    assert _facts(ahead).sync_vs_fast == "ahead" and _facts(level).sync_vs_fast == "level"
    for shown in (ahead, level):
        f = _facts({**shown, "runs": runs})
        assert f.sync_vs_fast == "level" and f.anchor_runs == 2 and f.anchor_many_runs
    assert _facts({**ahead, "runs": [ahead["far_data"]] * 2}).sync_vs_fast == "ahead"


# Each guard of the page (G.GUARDS), driven both ways: it holds on the fixture's facts with the fields it reads set
# as the H200's results have them, and fails when any one of the listed changes is made on top. A test that reads a
# missing figure (None) does not hold, as the engine reads it (kernelbook.guards); where it fails, its words say what
# the data shows.
FEW, DOWN = "output projection in a few programs", "down weights through shared memory"
H200 = dict(six_best_floor_share=0.23, laptop_best_floor_share=0.91, six_rest_ms=2.64, laptop_rest_ms=1.2,
            floor_ratio=17.2, six_best_ms=3.21, six_has_best=True,
            base_ms=4.20, best_ms=0.937, best_speedup=4.48, base_kernels=1403, best_kernels=143,
            base_loop_ms=4.09, best_loop_ms=0.921, best_loop_speedup=4.44, best_loop_floor_share=0.79,
            fusing_gain_share=0.53, fusing_saved_ms=1.74,
            first_label="+ norm, RoPE, SwiGLU, residual in the matvecs", second_label="+ fused add+RMSNorm, SwiGLU",
            first_saved_ms=0.89, second_saved_ms=0.86, read_gbps=4308.0, copy_gbps=4248.4, lm_head_copy_share=1.034,
            lm_head_read_share=1.019, matvec_gbps=3394.0, cublas_gbps=2633.0, greedy_host_us=9.7,
            greedy_host_us_before=47.8, greedy_ms=0.975, greedy_ms_before=1.006, last_label="attention inside the "
            "output projection", kernels_label="+ attention inside the output projection", alone_label=DOWN,
            fit_label=DOWN, timeline_label=DOWN, timeline_worst="attention", fastest=(DOWN,),
            exact=F.FIRST_TWO, complete=True, any_failed=False, last_ms=1.025, last_loop_ms=0.990,
            last_cost_ms=0.088, last_slower_every_round=True, last_is_fold=True, best_label=DOWN,
            last_prev_label=DOWN, rounds_quiet=False, step_noisy_count=13, step_noise_high=3.1,
            rounds_bound_pct=0.5, loop_all_quiet=True, loop_noise_high=0.14, ring_differ_max=5, ring_finite=True,
            ring_saved_us=19.3, ring_saved_low_us=-4.4, ring_saved_high_us=49.9, few_saved_us=11.9,
            few_saved_low_us=10.2, down_differ_max=0, down_finite=True, down_saved_us=5.5, down_saved_low_us=3.9,
            fold_us=8.89, pair_us=7.77, sites_over_copy=("lm_head",), attention_one_launch=True,
            retune_has_finalists=True, retune_pdl_cut=0.059, fp32_top1_differ=2, any_exact=True, worst_rel_err=0.0347,
            fp32_rel_err=0.0383, any_nonfinite=False, free_same=3, free_steps=12, near_ties_only=True,
            same_eager_tokens=True, next_agree=20, next_steps=20, next_positions_ok=True, kernels_copies=0,
            kernels_busy_ms=1.63, kernels_step_ms=1.02, has_compared=True, calls_sum_us=813.8, fit_all_us=914.4,
            chain_share=0.45, mlp_share=0.99, calls_over_copy=("swiglu_ring", "lm_head"), waits_cost=True,
            waits_us=60.8, waits_gap_share=0.32, once_high_us=109.5, once_copy_us=109.9, layers_gap_share=1.0,
            fit_off_line_us=0.8, fit_per_layer_us=28.75, attention_not_bytes=True,
            timeline_worst_reads=False, timeline_early=("swiglu_ring", "down_ring"),
            handoff_pdl=True, handoff_ordered=True, barrier_always_slower=True, layer_launches=5, layer_over_us=6.7,
            layer_launches_low_us=4.05, layer_launches_high_us=4.86, anchors_same_gpu=True,
            sync_vs_fast="level", sync_vs_slow="ahead", loop_vs_fast="ahead", loop_vs_slow="ahead", anchor_runs=3,
            anchor_fewer_layers=True, anchor_fast_label="Hazy Research's megakernel",
            anchor_slow_label="CUDA graphs + PDL", anchor_gpu="H200", anchor_fast_built_for="H100",
            anchor_fast_fidelity=False, anchor_slow_fidelity=True, top_cut_kernels=True, per_kernel_ratio=1.63,
            matvec_saved_ms=0.37, matvec_profiled_all=True, pdl_used=True, pdl_saved_ms=0.18, pdl_same_kernels=True,
            round_trip_ms=0.035, alone_outside_ms=0.007, alone_has_argmax=False)
TURNED = {
    "best_faster": [dict(best_loop_speedup=0.9), dict(best_loop_speedup=None, best_loop_ms=None)],
    "beyond_six": [dict(best_ms=3.5), dict(best_ms=None)],
    "best_fewer_kernels": [dict(best_kernels=1403)],
    "fusing_most": [dict(fusing_gain_share=0.45), dict(fusing_gain_share=None)],
    "layers_hold_most": [dict(layers_gap_share=0.4), dict(layers_gap_share=None)],
    "attention_further": [dict(chain_share=0.995)],
    "mlp_at_copy": [dict(mlp_share=0.85), dict(mlp_share=1.15)],
    "six_mostly_overhead": [dict(six_best_floor_share=0.6), dict(six_best_floor_share=None)],
    "laptop_closer": [dict(laptop_best_floor_share=0.2)],
    "floor_shorter": [dict(floor_ratio=0.9)],
    "rest_longer": [dict(six_rest_ms=1.0)],
    "read_faster": [dict(read_gbps=4200.0)],
    "lm_past_copy": [dict(lm_head_copy_share=0.99)],
    "lm_past_read": [dict(lm_head_read_share=0.99)],  # the H100's: 99% of its read-only pass
    "fusing_largest": [dict(first_label="+ Triton matvec for one row"),
                       dict(first_label="+ fused add+RMSNorm, SwiGLU",  # the two fusions the other way round
                            second_label="+ norm, RoPE, SwiGLU, residual in the matvecs")],
    "top_cut_kernels": [dict(top_cut_kernels=False)],
    "kernel_costs_more": [dict(per_kernel_ratio=0.9), dict(per_kernel_ratio=None)],
    "matvec_faster": [dict(matvec_saved_ms=-0.1)],
    "matvec_profiled_all": [dict(matvec_profiled_all=False)],
    "matvec_reads_faster": [dict(matvec_gbps=2000.0)],
    "pdl_used": [dict(pdl_used=False)],
    "pdl_faster": [dict(pdl_saved_ms=-0.01)],
    "pdl_same_kernels": [dict(pdl_same_kernels=False)],
    "retune_pdl_helped": [dict(retune_pdl_cut=-0.001), dict(retune_pdl_cut=None)],
    "greedy_host_cut": [dict(greedy_host_us=50.0)],
    "ring_faster": [dict(ring_saved_us=-1.0), dict(ring_saved_us=None)],
    "ring_not_every_round": [dict(ring_saved_low_us=1.0), dict(ring_saved_low_us=None)],
    "few_faster": [dict(few_saved_low_us=-0.5), dict(few_saved_low_us=None)],
    "down_faster": [dict(down_saved_low_us=-2.0), dict(down_saved_low_us=None)],  # the H100's: level with few_o
    "last_is_fold": [dict(last_is_fold=False)],
    "last_slower_every_round": [dict(last_slower_every_round=False)],
    "fold_alone_slower": [dict(fold_us=7.0), dict(fold_us=None)],
    "fastest_stays": [dict(last_prev_label=FEW), dict(fastest=(FEW,))],
    "ring_differs": [dict(ring_differ_max=0), dict(ring_differ_max=None)],
    "ring_finite": [dict(ring_finite=False)],
    "few_saved": [dict(few_saved_us=-0.5), dict(few_saved_us=None)],
    "down_exact": [dict(down_differ_max=3), dict(down_differ_max=None)],
    "down_finite": [dict(down_finite=False)],
    "down_saved": [dict(down_saved_us=-1.0), dict(down_saved_us=None)],
    "fit_fastest": [dict(fit_label=FEW), dict(fastest=(FEW,)), dict(fit_label=None)],
    "fit_straight": [dict(fit_off_line_us=3.0), dict(fit_off_line_us=None)],
    "once_under": [dict(once_high_us=110.0), dict(once_high_us=None)],
    "attention_reads_little": [dict(attention_not_bytes=False)],
    "timeline_worst_attention": [dict(timeline_worst="o")],
    "timeline_worst_no_weights": [dict(timeline_worst_reads=True)],
    "rings_early": [dict(timeline_early=()), dict(timeline_early=("swiglu_ring",))],
    "timeline_fastest": [dict(timeline_label=FEW), dict(fastest=(FEW,))],
    "waits_cost": [dict(waits_cost=False)],
    "handoff_pdl": [dict(handoff_pdl=False)],
    "launches_most_of_over": [dict(layer_launches_low_us=3.0), dict(layer_launches_low_us=None)],
    "launches_under_over": [dict(layer_launches_high_us=7.0)],
    "barrier_slower": [dict(barrier_always_slower=False)],
    "handoff_ordered": [dict(handoff_ordered=False)],
    "sync_level_fast": [dict(sync_vs_fast="behind"), dict(sync_vs_fast="ahead"), dict(sync_vs_fast="missing")],
    "sync_ahead_slow": [dict(sync_vs_slow="level"), dict(sync_vs_slow="behind")],
    "loop_ahead_fast": [dict(loop_vs_fast="level"), dict(loop_vs_fast="behind")],
    "loop_ahead_slow": [dict(loop_vs_slow="behind")],
    "anchor_fewer_layers": [dict(anchor_fewer_layers=False)],
    "megakernel_fastest": [dict(anchor_fast_label="CUDA graphs + PDL")],
    "built_for_other": [dict(anchor_fast_built_for=None), dict(anchor_fast_built_for="H200"),
                        dict(gpu="H100 80GB HBM3")],  # the megakernel was built for this GPU there
    "megakernel_missed_fidelity": [dict(anchor_fast_fidelity=True)],
    "cuda_graph_passed_fidelity": [dict(anchor_slow_fidelity=False)],
    "fp32_top1_differ": [dict(fp32_top1_differ=0)],
    "first_two_exact": [dict(exact=()), dict(exact=F.FIRST_TWO[:1]), dict(exact=(*F.FIRST_TWO, "+ matvec"))],
    "worst_near_fp32": [dict(worst_rel_err=0.05), dict(worst_rel_err=None)],
    "all_passed": [dict(any_failed=True, failed=("+ programmatic dependent launch",))],
    "all_finite": [dict(any_nonfinite=True, nonfinite=("+ programmatic dependent launch",))],
    "free_some_parted": [dict(free_same=12)],
    "near_ties_only": [dict(near_ties_only=False)],
    "same_eager_tokens": [dict(same_eager_tokens=False)],
    "next_argmax": [dict(next_agree=19), dict(next_agree=None)],
    "next_positions": [dict(next_positions_ok=False)],
    "rounds_at_cap": [dict(rounds_quiet=True)],
    "steps_noisy": [dict(step_noisy_count=1), dict(step_noisy_count=0)],
    "loops_quiet": [dict(loop_all_quiet=False)],
    "round_trip": [dict(round_trip_ms=-0.001), dict(round_trip_ms=None)],
    "alone_under_loop": [dict(alone_outside_ms=-0.001), dict(alone_outside_ms=None)],
    "costs_fastest": [dict(alone_label=FEW), dict(fastest=(FEW,))],
    "lm_head_site_over_copy": [dict(sites_over_copy=()), dict(sites_over_copy=("swiglu",))],
    "attention_one_split": [dict(attention_one_launch=False)],
    "finalists": [dict(retune_has_finalists=False)],
    "kernels_last": [dict(kernels_label="+ down weights through shared memory"), dict(kernels_label=None)],
    "kernels_no_copies": [dict(kernels_copies=1)],
    "kernels_overlap": [dict(kernels_busy_ms=0.9), dict(kernels_busy_ms=None)],
    "kernels_compared": [dict(has_compared=False)],
    "calls_under_whole": [dict(calls_sum_us=950.0), dict(fit_all_us=None)],
    "calls_over_copy": [dict(calls_over_copy=()), dict(calls_over_copy=("lm_head",)),
                        dict(calls_over_copy=("down_ring", "lm_head"))],  # the H100's
}


def _holds(guard, f) -> bool:
    """A guard's test as the engine reads it: a missing figure (None) makes it fail, not crash."""
    return guards._outcome("decode_far.test", guard, f).holds


def test_every_guard_is_driven_both_ways():
    assert set(TURNED) == set(G.GUARDS)


@pytest.mark.parametrize("name, turn", [(n, t) for n, ts in TURNED.items() for t in ts],
                         ids=[f"{n}-{next(iter(t))}" for n, ts in TURNED.items() for t in ts])
def test_each_guard_holds_on_the_h200s_results_and_fails_when_one_of_them_turns(data, name, turn):
    guard = G.GUARDS[name]
    f = dataclasses.replace(_facts(data), **H200)
    assert _holds(guard, f)
    turned = dataclasses.replace(f, **turn)
    out = guards._outcome(f"decode_far.{name}", guard, turned)
    assert not out.holds
    words = out.in_words()  # what a flag says there: the data's values, or what was not measured
    assert words and not words.startswith("not so:") and "None" not in words, words


def test_the_fastest_step_is_the_fastest_that_passed_or_one_level_with_it_by_the_rounds(data):
    """"The fastest step" is the fastest that passed its check, or a step that passed and that the rounds cannot tell
    from it (the interval of the paired median difference reaches zero): a guard that names the fastest step holds on
    either, and fails on a step the rounds put behind it."""
    d = data["far_data"]
    f = _facts(data)
    assert f.best_label == DOWN and f.fastest[0] == f.best_label == f.fit_label == f.timeline_label == f.alone_label
    down = [r["variants"]["down_ring"]["step_ms"] for r in d["rounds"]]
    for r, ms in zip(d["rounds"], down, strict=True):  # few_o 0.05 ms behind in every round: only down_ring
        r["variants"]["few_o"]["step_ms"] = ms + 0.05
    assert _facts(data).fastest == (DOWN,)
    for i, (r, ms) in enumerate(zip(d["rounds"], down, strict=True)):  # few_o a hair either side: level
        r["variants"]["few_o"]["step_ms"] = ms + (0.0001 if i % 2 else -0.0001) * (1 + i % 3)
    f = _facts(data)
    assert set(f.fastest) == {DOWN, FEW} and f.best_label in (DOWN, FEW)
    for name in ("fit_fastest", "timeline_fastest", "costs_fastest", "fastest_stays"):
        assert _holds(G.GUARDS[name], dataclasses.replace(f, best_label=FEW)), name  # down_ring level with few_o
    for r, ms in zip(d["rounds"], down, strict=True):  # few_o 0.05 ms ahead in every round: down_ring is behind it
        r["variants"]["few_o"]["step_ms"] = ms - 0.05
    f = _facts(data)
    assert f.best_label == FEW and f.fastest == (FEW,)
    for name in ("fit_fastest", "timeline_fastest", "costs_fastest", "fastest_stays"):
        out = guards._outcome(name, G.GUARDS[name], f)
        assert not out.holds and FEW in out.found and DOWN in out.found, name
    d["teacher_forced"]["few_o"]["passed"] = False  # a step that failed its check is never the fastest
    assert _facts(data).fastest == (DOWN,)


def test_the_fusing_steps_share_of_the_gain(data):
    f = _facts(data)
    by = {x["name"]: x for x in F.far.waterfall(data["far_data"])}
    fusing = by["fused_kernels"]["saved_ms"] + by["matvec_fusions"]["saved_ms"]
    assert f.fusing_saved_ms == pytest.approx(fusing)
    assert f.fusing_gain_share == pytest.approx(fusing / (f.base_ms - f.best_ms))
    assert f.matvec_launches == 113 and f.attention_one_launch == (f.attention_splits == 1)


def test_the_derived_figures_read_as_the_figures_beside_them(data):
    f = dataclasses.replace(_facts(data), base_ms=4.2, last_ms=1.05, floor_ms=0.735, last_prev_ms=0.95,
                            ring_ms=0.955, ring_before_ms=0.975, no_wait_with_us=914.0, no_wait_us=853.0)
    g = F.derive(f)
    assert g["speedup"] == pytest.approx(4.0) and g["last_floor_share"] == pytest.approx(0.7)
    assert g["goal_over_ms"] == pytest.approx(0.2) and g["last_cost_ms"] == pytest.approx(0.1)
    assert g["ring_saved_us"] == pytest.approx(20.0) and g["waits_us"] == pytest.approx(61.0)
    assert g["per_kernel_ratio"] == pytest.approx(min(g["first_us_per_kernel"], g["second_us_per_kernel"])
                                                  / f.graph_us_per_launch)
    assert set(F.DERIVED_FROM) == set(g) and all(g[n] is not None for n in g)


def test_the_fields_the_page_prints_on_their_own(data):
    f = _facts(data)
    assert (f.delta_own_ms, f.delta_fused_proj_ms, f.delta_filled_attention_ms) == (
        f.delta_ms["own"], f.delta_ms["fused_proj"], f.delta_ms["filled_attention"])
    assert f.fit_layers_text == ", ".join(map(str, f.fit_layers))
    assert (f.retune_position_first, f.retune_position_last) == (f.retune_positions[0], f.retune_positions[-1])
    assert f.anchor_url == f"https://github.com/{f.anchor_repo}/blob/{f.anchor_commit}/{f.anchor_path}"


def test_the_savings_the_page_prints_are_the_differences_of_the_step_times_beside_them(data):
    f = dataclasses.replace(_facts(data), first_before_ms=2.07, first_after_ms=1.19, own_ms=4.02, base_ms=4.20,
                            pdl_before_ms=1.19, pdl_ms=1.01, alone_us=914.0, alone_loop_ms=0.921)
    g = F.derive(f)
    assert g["first_saved_ms"] == pytest.approx(0.88) and g["delta_own_ms"] == pytest.approx(-0.18)
    assert g["pdl_saved_ms"] == pytest.approx(0.18) and g["pdl_saved_share"] == pytest.approx(0.18 / 1.19)
    assert g["alone_ms"] == pytest.approx(0.914) and g["alone_outside_ms"] == pytest.approx(0.007)
    assert g["first_us_per_kernel"] == pytest.approx(1e3 * 0.88 / (f.first_kernels_before - f.first_kernels_after))


def test_the_launch_costs_sums_add_the_costs_as_the_table_prints_them(data):
    """A sum beside the launch costs' table adds its cells (COST_DIGITS), times the calls a step makes: each layer
    call 28 times, the LM head once."""
    f = dataclasses.replace(_facts(data), cost_qkv_rope_us=3.2394, cost_attention_us=0.9963, cost_o_us=1.4948,
                            cost_swiglu_ring_us=12.7437, cost_down_ring_us=6.8421, cost_lm_head_us=105.128,
                            cost_layers=28, chain_copy_us=2.59, mlp_copy_us=19.44)
    g = F.derive(f)
    shown = [3.24, 1.00, 1.49, 12.74, 6.84]
    assert g["calls_sum_us"] == pytest.approx(28 * sum(shown) + 105.13)  # 813.8, where the unrounded costs give 814.0
    assert g["chain_us"] == pytest.approx(3.24 + 1.00 + 1.49) and g["mlp_us"] == pytest.approx(12.74 + 6.84)
    assert g["chain_share"] == pytest.approx(2.59 / 5.73) and g["mlp_share"] == pytest.approx(19.44 / 19.58)
    assert F.FORMATS["cost_qkv_rope_us"] == f"num:{F.COST_DIGITS}"


def test_the_line_is_fitted_through_the_layer_counts_medians_and_reads_as_printed(data):
    """The line the page states is the one its table draws: fitted through each count's median, and both read with
    the once-a-step time and the µs a layer as the page prints them."""
    f = _facts(data)
    pts = F.fit_points(f)
    assert list(pts) == [0, 1, 7, 14, 21, 28] and pts[28] == f.fit_all_us
    us = {0: 108.5, 1: 138.8, 7: 310.6, 14: 511.8, 21: 712.7, 28: 914.4}  # the H200's medians
    g = F.derive(dataclasses.replace(f, **{f"fit_{r}_us": us[n] for r, n in F.figures.fit_counts(28).items()}))
    per, once = statistics.linear_regression(list(us), list(us.values()))
    assert g["fit_per_layer_us"] == pytest.approx(per) and g["fit_once_us"] == pytest.approx(once)
    assert F.on_line(once, per, 28) == pytest.approx(round(once, 1) + 28 * round(per, 2))  # 109.3 + 28 × 28.75
    assert g["fit_off_line_us"] == pytest.approx(max(abs(u - F.on_line(once, per, n)) for n, u in us.items()))
    assert g["layer_over_us"] == pytest.approx(per - f.layer_copy_us)
    assert F.fit_points(dataclasses.replace(f, fit_layers=())) is None


def test_the_waits_share_is_of_the_replay_s_distance_the_page_prints(data):
    """The waits' share is of the whole graph replayed (the line's last row) less the floor, both printed beside it."""
    f = dataclasses.replace(_facts(data), fit_all_us=914.4, floor_ms=0.7267, no_wait_with_us=913.9,
                            no_wait_us=853.1)
    g = F.derive(f)
    assert g["floor_us"] == pytest.approx(726.7) and g["replay_gap_us"] == pytest.approx(187.7)
    assert g["waits_us"] == pytest.approx(60.8) and g["waits_gap_share"] == pytest.approx(60.8 / 187.7)
    assert F.derive(dataclasses.replace(f, fit_all_us=None))["waits_gap_share"] is None
