"""The decode chapter's checking and aggregation code on fixtures: compare, divergence, kernel mix, round medians."""

from __future__ import annotations

import copy
import itertools
import json
import statistics
from pathlib import Path

import pytest
import torch
from conftest import run_file

from kernelbook.decode import report
from kernelbook.decode.check import compare, first_divergence
from kernelbook.decode.rounds import kernel_names, timeline
from kernelbook.timing import kernel_summary

FIXTURE = run_file(Path(__file__).parent / "fixtures" / "results", "decode.six_ways")


@pytest.fixture(scope="module")
def data():
    return json.loads(FIXTURE.read_text())["data"]


def logits(seed: int = 0, steps: int = 4, vocab: int = 1000) -> torch.Tensor:
    return torch.randn(steps, vocab, generator=torch.Generator().manual_seed(seed)).to(torch.bfloat16)


def test_compare_identical_and_rounding_and_broken():
    ref = logits()
    same = compare(ref, ref.clone(), tol=0.01, need_identical=True)
    assert same["bit_identical"] and same["passed"] and same["rel_err_max"] == 0.0
    noisy = (ref.float() * (1 + 1e-3 * torch.randn(ref.shape, generator=torch.Generator().manual_seed(1))))
    near = compare(ref, noisy.to(torch.bfloat16), tol=0.01, need_identical=False)
    assert near["passed"] and not near["bit_identical"] and near["rel_err_max"] < 0.01
    assert not compare(ref, noisy.to(torch.bfloat16), tol=0.01, need_identical=True)["passed"]
    broken = compare(ref, logits(seed=9), tol=0.01, need_identical=False)  # unrelated logits: relative error ~1.4
    assert not broken["passed"] and broken["rel_err_max"] > 1.0


def test_compare_excuses_only_narrow_top1_flips():
    ref = torch.zeros(2, 8)
    ref[:, 3], ref[:, 5] = 1.0, 0.99  # top-two gap 0.01
    got = ref.clone()
    got[0, 5] = 1.005  # a 0.015 change flips a 0.01 lead: within a 0.02 rounding band
    ok = compare(ref, got, tol=1.0, need_identical=False, band=0.02)
    assert ok["top1_disagree_steps"] == [0] and ok["unexplained_steps"] == [] and ok["passed"]
    wide = ref.clone()
    wide[:, 3] = 2.0  # lead of 1.01
    moved = wide.clone()
    moved[1, 3] = 0.5  # overturned: no 0.02 rounding error does that, even though the relative error is small
    bad = compare(wide, moved, tol=1.0, need_identical=False, band=0.02)
    assert bad["unexplained_steps"] == [1] and not bad["passed"]


def test_first_divergence():
    ref = {"tokens": [1, 2, 3, 4], "gaps": [0.5, 0.4, 0.01, 0.3]}
    assert first_divergence(ref, {"tokens": [1, 2, 9, 9], "gaps": [0.5, 0.4, 0.02, 0.1]}) == \
        {"step": 2, "ref_gap": 0.01, "gap": 0.02}
    assert first_divergence(ref, dict(ref))["step"] is None


def test_kernel_names_and_timeline_from_profiled_calls():
    calls = [{"start": 100.0, "end": 160.0,
              "launches": [{"name": "cudaLaunchKernel", "ts": 101.0, "dur": 4.0}],
              "gpu": [{"name": "triton_per_fused_add_0", "ts": 110.0, "dur": 2.0, "cat": "kernel"},
                      {"name": "gemv2T_kernel", "ts": 113.0, "dur": 9.0, "cat": "kernel"},
                      {"name": "Memcpy DtoD (Device -> Device)", "ts": 123.0, "dur": 1.0, "cat": "gpu_memcpy"}]}]
    mix = kernel_names(kernel_summary(calls)["kernels"])
    assert (mix["triton"], mix["other"], mix["copies"]) == (1, 1, 1)
    assert mix["top"][0]["name"] == "gemv2T_kernel"
    tl = timeline(calls[0])
    assert tl["host_us"] == 60.0 and tl["launches"] == [[1.0, 4.0]] and tl["kernels"][1] == [13.0, 9.0]
    assert report.gaps_between(tl["kernels"]) == [1.0, 1.0]


def test_variant_summary_medians_across_rounds(data):
    s = report.variant_summary(data, "cuda_graph")
    steps = [r["variants"]["cuda_graph"]["step_ms"] for r in data["rounds"]]
    assert s["step_ms"] == pytest.approx(statistics.median(steps))
    assert s["spread"] == pytest.approx((max(steps) - min(steps)) / statistics.median(steps))
    assert s["tok_s"] == pytest.approx(1e3 / s["step_ms"])
    assert s["floor_share"] == pytest.approx(data["floor_ms"] / s["step_ms"])
    assert 0.0 <= s["idle_share"] < 1.0 and s["rounds"] == 4
    prof = data["profiles"]["cuda_graph"]  # kernels and busy time: the one profile, taken after the rounds
    assert s["kernels"] == prof["kernels"] and s["busy_ms"] == pytest.approx(prof["busy_us"] / 1e3)
    assert s["setup_s"] == data["setup"]["cuda_graph"]["capture_s"]


def test_failed_variant_is_not_best(data):
    d = copy.deepcopy(data)
    fastest = min(d["names"], key=lambda n: report.variant_summary(d, n)["step_ms"])
    assert report.best_valid(d)["name"] == fastest
    d["teacher_forced"][fastest]["passed"] = False
    assert not report.variant_summary(d, fastest)["valid"]
    assert report.best_valid(d)["name"] != fastest


def test_free_running_table(data):
    rows = {r["name"]: r for r in report.free_running_table(data)}
    assert rows["eager_static"]["same"] == rows["eager_static"]["of"] == data["check_steps"]
    div = data["free_running"]["compile_default"]["first_divergence"]["step"]
    assert rows["compile_default"]["same"] >= div


class _Dec:
    """A decoder that does nothing: the stubbed timers below stand in for its steps."""

    def __init__(self, name):
        self.name = name

    def start(self, prompt):
        pass

    def advance(self):
        pass


def _stub_rounds(monkeypatch, time_steps, on_trace=lambda: None):
    """decode.rounds with its timers, profiler and nvidia-smi replaced: time_steps(dec) gives a round's figures."""
    from kernelbook.decode import rounds as measure

    monkeypatch.setattr(measure, "smi", lambda: {})
    monkeypatch.setattr(measure, "time_steps", time_steps)
    monkeypatch.setattr(measure, "trace", lambda fn, calls, warmup: on_trace() or {})
    monkeypatch.setattr(measure, "split_calls", lambda tr: [{"start": 0.0, "end": 1.0, "launches": [], "gpu": []}])
    monkeypatch.setattr(measure, "kernel_summary", lambda calls: {"per_call": 3, "launches": 1, "busy_us": 5.0,
                                                                  "cpu_us": 9.0, "span_us": 6.0, "kernels": []})
    return measure


def test_profiles_come_after_every_timing_round(monkeypatch):
    """torch.profiler leaves CUPTI attached: no round may be timed after a profile except the one meant to show
    its cost (after_profiler), and every variant gets one profile."""
    log: list[tuple[str, str]] = []
    measure = _stub_rounds(monkeypatch, lambda dec: log.append(("time", dec.name)) or {"step_ms": 1.0},
                           lambda: log.append(("profile", "")))
    names = ["a", "b", "c"]
    out = measure.timed_then_profiled({n: _Dec(n) for n in names}, None, names, min_rounds=2,
                                      extra=lambda dec: {"loop_ms": 0.5})
    kinds = [k for k, _ in log]
    first_profile = kinds.index("profile")
    assert kinds[:first_profile] == ["time"] * 6 and kinds[first_profile:first_profile + 3] == ["profile"] * 3
    assert kinds[first_profile + 3:] == ["time"] * 3  # the round after the profiles, and nothing else
    assert [r["order"] for r in out["rounds"]] == [["a", "b", "c"], ["b", "c", "a"]]  # rotated per round
    assert set(out["profiles"]) == set(names) and out["profiles"]["a"]["kernels"] == 3
    assert out["after_profiler"]["variants"]["c"] == {"step_ms": 1.0, "loop_ms": 0.5}


def test_after_profiler_against_the_rounds(data):
    a = report.after_profiler(data, "cuda_graph")
    per = [r["variants"]["cuda_graph"] for r in data["rounds"]]
    assert a["before_ms"] == pytest.approx(statistics.median(p["step_ms"] for p in per))
    assert a["added_host_us"] == pytest.approx(a["host_us"] - statistics.median(p["host_us"] for p in per))
    d = copy.deepcopy(data)
    del d["after_profiler"]
    assert report.after_profiler(d, "cuda_graph") is None


def test_rounds_go_on_while_a_variant_is_noisy(monkeypatch):
    """The decode rounds stop on bench.py's noise criterion: a quiet variant alone would stop at the minimum, a
    noisy one keeps every variant timed until the cap, and is stored as not quiet."""
    times = {"calm": itertools.repeat(1.0), "rough": itertools.cycle([1.0, 1.3])}
    measure = _stub_rounds(monkeypatch, lambda dec: {"step_ms": next(times[dec.name])})
    quiet = measure.timed_then_profiled({"calm": _Dec("calm")}, None, ["calm"], min_rounds=3, cap_s=1e9)
    assert len(quiet["rounds"]) == 3 and quiet["quiet"]["stopped"] == "quiet"
    assert quiet["quiet"]["figures"]["calm"]["step_ms"]["quiet"]
    both = measure.timed_then_profiled({n: _Dec(n) for n in times}, None, list(times), min_rounds=3, cap_s=0.0)
    assert both["quiet"]["stopped"] == "cap" and len(both["rounds"]) == 3
    assert not both["quiet"]["figures"]["rough"]["step_ms"]["quiet"]
    assert both["quiet"]["figures"]["calm"]["step_ms"]["quiet"]
