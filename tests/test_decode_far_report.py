"""The decode_far page's readers on the synthetic fixture: medians, savings, goal, tuning, optional keys."""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

import pytest
from conftest import ROOT, run_file

from kernelbook.chapters.decode_far import anchors
from kernelbook.chapters.decode_far import report as far_report

FIXTURE = run_file(Path(__file__).parent / "fixtures" / "results", "decode_far.ladder")


@pytest.fixture(scope="module")
def data():
    return json.loads(FIXTURE.read_text())["data"]


def test_the_fixture_follows_the_stored_ladder(data):
    """Issue 45: the synthetic fixture has the rungs and the keys of the newest stored run, every rung in every
    per-step table, and its diagnostics taken on the same cost step."""
    stored = json.loads(run_file(ROOT / "results", "decode_far.ladder").read_text())["data"]
    assert data["steps"] == stored["steps"] and data["names"] == stored["names"] and len(data["steps"]) == 12
    assert data["advances"] == stored["advances"] and set(data) == set(stored)
    for key in ("labels", "setup", "profiles", "kernel_mix", "teacher_forced", "free_running", "in_step", "tuning",
                "configs"):
        assert set(data[key]) == set(stored[key]), key
    for r in [*data["rounds"], data["after_profiler"]]:
        assert set(r["variants"]) == set(r["order"]) == set(stored["names"])
    assert set(data["quiet"]["figures"]) == set(stored["quiet"]["figures"])
    costs = {data[k]["step"] for k in ("launch_costs", "no_wait", "layer_fit", "timeline")}
    assert costs == {stored["launch_costs"]["step"]} and set(data["launch_costs"]["calls"]) == set(
        stored["launch_costs"]["calls"])
    assert data["ring_check"] and data["down_check"]
    assert json.loads(FIXTURE.read_text())["provenance"]["fixture"] is True  # marked: test data, never a result


def test_summary_is_the_median_over_rounds(data):
    s = far_report.step_summary(data, "pdl")
    per = [r["variants"]["pdl"]["step_ms"] for r in data["rounds"]]
    assert s["step_ms"] == pytest.approx(statistics.median(per))
    assert s["floor_share"] == pytest.approx(data["floor_ms"] / s["step_ms"])
    assert s["passed"] and s["loop_ms"] is not None and s["overlapped"]  # PDL durations overlap in the fixture


def test_waterfall_savings_add_up(data):
    rows = far_report.waterfall(data)
    assert [r["name"] for r in rows] == data["names"] and rows[0]["saved_ms"] is None
    total = sum(r["saved_ms"] for r in rows[1:])
    assert total == pytest.approx(rows[0]["step_ms"] - rows[-1]["step_ms"])


def test_goal_against_a_threshold(data):
    ms = far_report.final(data)["step_ms"]
    assert far_report.goal(data, goal_ms=ms + 0.01)["met"]
    missed = far_report.goal(data, goal_ms=ms - 0.01)
    assert not missed["met"] and missed["over_ms"] == pytest.approx(0.01)
    failed = copy.deepcopy(data)
    failed["teacher_forced"][data["steps"][-1]]["passed"] = False
    assert not far_report.goal(failed, goal_ms=ms + 1)["met"]  # a wrong step never meets the goal


def test_missing_step_and_optional_keys(data):
    d = copy.deepcopy(data)
    last = d["steps"][-1]
    for r in d["rounds"]:
        r["variants"].pop(last)
        for v in r["variants"].values():
            v.pop("loop_ms", None)
    d["names"].remove(last)
    assert far_report.final(d) is None and not far_report.goal(d)["built"]
    assert not far_report.has_loop(d)
    d["tuning"]["extra_site"] = {"best": [1, 64, 1], "us": 2.0, "gbps": 100.0}  # no bytes, no candidates
    row = next(t for t in far_report.tuning_rows(d) if t["site"] == "extra_site")
    assert row["candidates"] == 1 and row["bytes"] is None


def test_kernel_names_and_weight_stream(data):
    name = "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long>(x)"
    assert far_report.short_kernel_name(name) == "indexSelectSmallIndex"
    rows = far_report.kernel_rows(data, "pdl", "matvec_fusions")
    assert any(r["ours"] and r["us_against"] is not None for r in rows)
    ws = far_report.weight_stream(data, "matvec_fusions")
    assert ws["gbps"] == pytest.approx(data["weight_bytes"] / (ws["us"] * 1e-6) / 1e9)


def test_a_step_with_non_finite_logits_reads_as_failed(data):
    d = copy.deepcopy(data)
    last = d["steps"][-1]
    d["teacher_forced"][last].update(rel_err_max=None, max_abs=None, passed=False, nonfinite=7)
    s = far_report.step_summary(d, last)
    assert not s["passed"] and s["rel_err_max"] is None and s["nonfinite"] == 7
    assert not far_report.goal(d, goal_ms=10.0)["met"]


def test_breakdown_splits_idle_time_from_the_host_round_trip(data):
    s = far_report.step_summary(data, "matvec_fusions")
    b = far_report.breakdown(data, "matvec_fusions")
    assert b["idle_ms"] == pytest.approx(max(0.0, s["loop_ms"] - s["busy_ms"]))  # back to back: the GPU's own gaps
    assert b["host_ms"] == pytest.approx(max(0.0, s["step_ms"] - s["loop_ms"]))  # what synchronising adds
    assert b["idle_ms"] > 0 and b["host_ms"] > 0  # the fixture has both, so the split is really tested
    assert b["idle_ms"] + b["host_ms"] == pytest.approx(s["step_ms"] - s["busy_ms"])  # together: all that is not busy
    assert b["matvec_ms"] > 0 and b["attention_launches"] > 0
    d = copy.deepcopy(data)
    for r in d["rounds"]:
        r["variants"]["matvec_fusions"].pop("loop_ms")
    old = far_report.breakdown(d, "matvec_fusions")  # a run without back-to-back timing: all of the rest is idle
    assert old["host_ms"] == 0 and old["idle_ms"] == pytest.approx(max(0.0, s["step_ms"] - s["busy_ms"]))
    assert b["busy_over_ms"] == 0  # the fixture's loop is longer than its busy time


def test_breakdown_when_the_profiled_kernels_outlast_the_loop(data):
    d = copy.deepcopy(data)
    busy = far_report.step_summary(d, "matvec_fusions")["busy_ms"]
    for r in d["rounds"]:
        r["variants"]["matvec_fusions"]["loop_ms"] = busy - 0.05  # back to back faster than the profiled kernels
    b = far_report.breakdown(d, "matvec_fusions")
    assert b["idle_ms"] == 0 and b["busy_over_ms"] == pytest.approx(0.05)


def test_in_step_rows_follow_the_retuning(data):
    rows = far_report.in_step_rows(data)
    for step, t in data["in_step"].items():
        mine = [r for r in rows if r["step"] == step]
        assert [r["site"] for r in mine] == list(t["sites"])  # attention first, then launch order
        assert [r["best"] for r in mine] == [t["configs"][r["site"]] for r in mine]  # the chosen configs are kept
        assert [r["candidates"] for r in mine] == [len(s["candidates"]) for s in t["sites"].values()]
        start, end = far_report.in_step_gain(data, step)
        assert start == mine[0]["alone_us"] and end == mine[-1]["best_us"] and end <= start
    changed = [r for r in rows if r["best"] != r["alone"]]
    assert changed and {r["site"] for r in changed} >= {"o", "down"}  # the fixture's PDL step moves two matvecs
    assert far_report.in_step_gain({"in_step": {}}, "pdl") is None


def test_launch_cost_rows_put_each_call_against_its_bytes_at_copy_speed(data):
    """The fixture's cost step is down_ring: its SwiGLU and down calls are the two rings."""
    rows = far_report.launch_cost_rows(data)
    lc, gbps = data["launch_costs"], data["copy"]["gbps"]
    assert [r["call"] for r in rows] == list(lc["calls"]) == ["qkv_rope", "attention", "o", "swiglu_ring",
                                                              "down_ring", "lm_head"]
    by = {r["call"]: r for r in rows}
    assert by["swiglu_ring"]["copy_us"] == pytest.approx(by["swiglu_ring"]["bytes"] / (gbps * 1e3))
    assert by["swiglu_ring"]["share"] == pytest.approx(by["swiglu_ring"]["copy_us"] / 12.8)
    assert by["swiglu_ring"]["share"] > 1  # the ring's call costs less than its weights take at the copy bandwidth
    assert by["attention"]["share"] is None and by["attention"]["bytes"] == 0  # reads keys and values, no weights
    assert by["lm_head"]["per"] == "step" and by["lm_head"]["total_us"] == pytest.approx(105.0)
    assert by["down_ring"]["total_us"] == pytest.approx(7.0 * 28)
    assert far_report.launch_cost_rows({"copy": data["copy"]}) == []


def test_layer_fit_draws_the_line_through_the_medians(data):
    """The fixture's counts lie on 108 + 39.5 n µs, each round within 1 µs of it."""
    fit = far_report.layer_fit(data)
    assert fit["step"] == "down_ring"
    assert fit["per_layer_us"] == pytest.approx(39.5) and fit["once_us"] == pytest.approx(108.0)
    assert [r["layers"] for r in fit["rows"]] == [0, 1, 7, 14, 21, 28] and fit["layers"] == 28
    assert all(r["us"] == pytest.approx(r["line_us"]) and r["spread_us"] == 1.0 for r in fit["rows"])
    assert fit["once_bytes"] == data["weight_bytes"] - 28 * data["layer_fit"]["layer_bytes"]
    assert fit["layer_copy_us"] == pytest.approx(data["layer_fit"]["layer_bytes"] / (data["copy"]["gbps"] * 1e3))
    assert fit["once_low_us"] < fit["once_us"] < fit["once_high_us"] < fit["once_us"] + 1.0  # the rounds are 1 µs apart
    assert far_report.layer_fit(data) == fit  # the resampling is seeded: every build reads the same interval
    d = copy.deepcopy(data)
    d["layer_fit"]["us"][0] = [120.0, 140.0, 130.0]  # no layer: 22 µs over the old line, median 130
    fit = far_report.layer_fit(d)
    assert fit["rows"][0]["spread_us"] == 10.0 and fit["rows"][0]["us"] == 130.0
    assert fit["off_line_us"] == pytest.approx(max(abs(r["us"] - r["line_us"]) for r in fit["rows"]))
    assert fit["off_line_us"] == pytest.approx(abs(130.0 - fit["once_us"]))  # the moved count is off the line most
    d["layer_fit"]["us"].pop()  # a count without its timings: a corrupt result, said so
    with pytest.raises(ValueError, match="6 layer counts but 5 lists of timings"):
        far_report.layer_fit(d)
    del d["layer_fit"]
    assert far_report.layer_fit(d) is None


def test_handoff_rows_put_the_launch_and_the_barrier_side_by_side(data):
    rows = far_report.handoff_rows(data)
    assert [r["programs"] for r in rows] == [132, 264, 528] and [r["per_sm"] for r in rows] == [1, 2, 4]
    assert rows[0]["launch_us"] == 0.8 and rows[0]["launch_spread_us"] == pytest.approx(0.02)
    assert rows[2]["barrier_us"] == 4.8 and rows[2]["barrier_spread_us"] == pytest.approx(0.05)
    assert all(r["barrier_slower"] and r["ordered"] for r in rows)
    d = copy.deepcopy(data)
    d["handoff"]["rows"][0]["barrier_us"] = [0.7, 0.9]  # overlaps the launch's rounds (0.78-0.82)
    d["handoff"]["rows"][1]["barrier_ordered"] = False
    rows = far_report.handoff_rows(d)
    assert not rows[0]["barrier_slower"] and rows[0]["ordered"] and not rows[1]["ordered"]
    del d["handoff"]
    assert far_report.handoff_rows(d) == []


def test_a_layer_count_twice_breaks_the_schema():
    from kernelbook import schema

    rec = json.loads(FIXTURE.read_text())
    assert schema.problem(rec, "decode_far.ladder") is None
    rec["data"]["layer_fit"]["layers"][1] = 0  # two timings of the same count: the line would weigh it twice
    assert "$.data.layer_fit.layers" in schema.problem(rec, "decode_far.ladder")


def test_the_kernels_shown_and_the_step_set_beside_them(data):
    """The last step (attention_o) and the rungs before it back to pdl overlap their kernels; the step set beside
    them is the last without PDL, which is also the last whose time splits into kernels, idle time and the round
    trip."""
    assert far_report.kernels_shown(data) == ("attention_o", "matvec_fusions")
    assert far_report.last_plain(data) == "matvec_fusions"
    d = copy.deepcopy(data)
    d["profiles"]["attention_o"]["busy_us"] = 100.0  # no overlap: the step just before is set beside it
    assert far_report.kernels_shown(d) == ("attention_o", "down_ring")
    assert far_report.kernels_shown({**data, "kernel_mix": {}}) == (None, None)
    assert far_report.cublas_projection_launches(data, "fused_kernels") == 84  # three nvjet kernels of 28 listed


def test_timeline_rows_step_from_end_to_end(data):
    """One layer of the cost step (down_ring): ends 6.0, 15.5, 20.5, 33.0 and 39.0 µs in, a layer every 39.0 µs."""
    t = far_report.timeline_rows(data)
    rows, x = t["rows"], data["timeline"]
    assert [r["launch"] for r in rows] == x["launches"] == ["qkv_rope", "attention", "o", "swiglu_ring", "down_ring"]
    assert t["step"] == data["launch_costs"]["step"] == "down_ring" and t["period_us"] == pytest.approx(39.0)
    assert sum(r["after_us"] for r in rows) == pytest.approx(t["period_us"])  # the ends step through one period
    assert rows[0]["after_us"] == pytest.approx(6.0 - (39.0 - 39.0))  # after the layer before's last end
    assert rows[1]["after_us"] == pytest.approx(15.5 - 6.0) and rows[0]["spread_us"] == pytest.approx(0.2)
    assert rows[2]["start_us"] == pytest.approx(5.5)  # the median over the replays
    lc, gbps = data["launch_costs"]["calls"], data["copy"]["gbps"]
    swiglu = rows[3]
    assert swiglu["bytes"] == lc["swiglu_ring"]["weight_bytes"]
    assert swiglu["copy_us"] == pytest.approx(swiglu["bytes"] / (gbps * 1e3))
    assert swiglu["over_us"] == pytest.approx(swiglu["after_us"] - swiglu["copy_us"])
    assert rows[1]["bytes"] == 0 and rows[1]["over_us"] == pytest.approx(rows[1]["after_us"])  # attention reads none


def test_timeline_rows_take_bytes_only_from_the_same_step_and_refuse_a_corrupt_result(data):
    d = copy.deepcopy(data)
    d["launch_costs"]["step"] = "greedy"  # the costs of another step: no bytes to set against the ends
    assert all(r["bytes"] is None and r["over_us"] is None for r in far_report.timeline_rows(d)["rows"])
    d["timeline"]["end_us"].pop()
    with pytest.raises(ValueError, match="corrupt"):
        far_report.timeline_rows(d)
    d["timeline"] = None
    assert far_report.timeline_rows(d) is None


def test_llama_bytes_match_transformers_own_model():
    """The anchors' weights, counted from Llama-3.2-1B's shapes, against transformers' model on the meta device."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    with torch.device("meta"):
        model = LlamaForCausalLM(LlamaConfig(**anchors.LLAMA32_1B))
    assert anchors.llama_weight_bytes() == 2 * sum(p.numel() for p in model.parameters())
    assert anchors.llama_layer_bytes() == 2 * sum(p.numel() for p in model.model.layers[0].parameters())
    untied = {**anchors.LLAMA32_1B, "tie_word_embeddings": False}
    with torch.device("meta"):
        model = LlamaForCausalLM(LlamaConfig(**untied))
    assert anchors.llama_weight_bytes(untied) == 2 * sum(p.numel() for p in model.parameters())


def test_anchor_rows_are_bytes_over_time(data):
    rows = far_report.anchor_rows(data)
    pub = [r for r in rows if r["kind"] == "published mean"]
    assert [r["step_us"] for r in pub] == [a.step_us for a in anchors.ANCHORS]
    for r in rows:
        assert r["tbps"] == pytest.approx(r["weight_gb"] * 1e3 / r["step_us"])
        assert r["copy_share"] == pytest.approx(r["tbps"] * 1e3 / data["copy"]["gbps"])
    sync, loop = (next(r for r in rows if r["kind"] == k) for k in ("synchronised", "back to back"))
    best = far_report.best_passed(data)
    assert sync["step_us"] == pytest.approx(1e3 * best["step_ms"]) and sync["tbps_low"] <= sync["tbps"] <= sync[
        "tbps_high"]
    assert loop["tbps_low"] <= loop["tbps"] <= loop["tbps_high"] and all(r["tbps_low"] is None for r in pub)


def test_anchor_rows_without_a_loop_or_a_correct_step(data):
    d = copy.deepcopy(data)
    for r in d["rounds"]:
        for v in r["variants"].values():
            v.pop("loop_ms", None)
    assert [r["kind"] for r in far_report.anchor_rows(d)] == ["published mean"] * 2 + ["synchronised"]
    for c in d["teacher_forced"].values():
        c["passed"] = False
    assert [r["kind"] for r in far_report.anchor_rows(d)] == ["published mean"] * 2


def _slower(data, k):
    """The fixture with every step time, back-to-back time and the floor scaled by k (another run)."""
    d = copy.deepcopy(data)
    for r in d["rounds"]:
        for v in r["variants"].values():
            v["step_ms"] *= k
            if v.get("loop_ms") is not None:
                v["loop_ms"] *= k
    d["floor_ms"] *= k
    return d


def test_the_tables_across_runs_are_medians_with_their_derived_columns_from_them(data):
    runs = [_slower(data, 1.1), data, _slower(data, 0.95)]
    rows = far_report.median_waterfall(runs)
    one = {x["name"]: x for x in far_report.waterfall(data)}
    assert [x["name"] for x in rows] == list(one)
    for prev, x in zip(rows, rows[1:], strict=False):
        assert x["step_ms"] == pytest.approx(one[x["name"]]["step_ms"])  # the middle run's
        assert x["saved_ms"] == pytest.approx(prev["step_ms"] - x["step_ms"])
        assert x["tok_s"] == pytest.approx(1e3 / x["step_ms"])
        assert x["floor_share"] == pytest.approx(data["floor_ms"] / x["step_ms"])


def test_median_rows_matches_rows_by_key_and_keeps_words_and_ints(data):
    a = [{"k": "x", "us": 1.0, "n": 3, "w": "old"}, {"k": "y", "us": 5.0, "n": 1, "w": "old"}]
    b = [{"k": "x", "us": 2.0, "n": 4, "w": "mid"}]
    c = [{"k": "y", "us": 7.0, "n": 2, "w": "new"}, {"k": "x", "us": 9.0, "n": 6, "w": "new"}]
    rows = far_report.median_rows([a, b, c], lambda x: x["k"])
    assert [x["k"] for x in rows] == ["y", "x"] and all(x["w"] == "new" for x in rows)
    assert rows[0]["us"] == 6.0 and rows[1]["us"] == 2.0 and rows[1]["n"] == 4 and rows[0]["n"] == 1


def test_the_kernel_table_says_which_kernels_are_gluon():
    assert far_report.written("_swiglu_ring_kernel") == "here, Gluon"
    assert far_report.written("_matvec_ring_kernel") == "here, Gluon"
    assert far_report.written("_matvec_kernel") == "here, Triton"
    assert far_report.written("void at::native::indexSelectSmallIndex<float>") == "PyTorch / driver"
