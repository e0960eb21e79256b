"""The memory-bound facts on the fixture results, and each verdict driven both ways by the data."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from guardcases import both_ways

from kernelbook import page
from kernelbook.chapters.memory_bound import facts as F
from kernelbook.chapters.memory_bound import guards as G


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"eager_bytes": load("memory_bound.eager_bytes"), "ceilings": load("machine.ceilings"),
            "laptop": load("memory_bound.eager_bytes", F.LAPTOP), "laptop_ceilings": load("machine.ceilings", F.LAPTOP),
            "laptop_versions": load("fusing_by_hand.versions", F.LAPTOP), "gpu": "H200",
            "transformers_version": "5.17.0", "versions": load("fusing_by_hand.versions")}


def _chain(d, key):
    return d["eager_bytes"]["chains"][key]


def _time(d, key, ratio):
    """Set a chain's measured time to `ratio` times its prediction."""
    c = _chain(d, key)
    c["bench"]["median"] = ratio * c["predicted_us"] / 1e3


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    norm = _chain(data, "add_rmsnorm")
    assert f.norm_kernels == 9 and f.norm_bytes == norm["bytes_per_elem"] and f.dtype == "bf16"
    assert f.norm_predicted_ms == pytest.approx(norm["predicted_us"] / 1e3)
    assert f.norm_over_predicted == pytest.approx(norm["bench"]["median"] * 1e3 / norm["predicted_us"])
    assert f.norm_as_laptop and f.swiglu_as_laptop and f.copy_gib_each_way == 1
    assert f.laptop_norm_measured_ms == 6.2 and f.laptop_norm_predicted_ms == 6.2 and f.laptop_within_band
    assert f.laptop_ridge == pytest.approx(25.3e3 / 226) and f.laptop_ridge_published == 102
    assert f.norm_streaming == 7 and f.norm_tiny == 2 and f.norm_has_tiny and f.kernels_streaming == 9
    # the fixture runs every kernel 11-14% over its bytes' time: none within the band
    assert f.norm_streaming_within == 0 and f.kernels_outside_band == 9 and not f.every_kernel_within_band
    assert not f.bytes_predict_time and f.norm_versus == "slower"
    assert F.facts().gpu == "H200"


@pytest.mark.parametrize("ratio, verdict", [(1.0, "within"), (1.09, "within"), (0.91, "within"), (1.2, "slower"),
                                            (0.8, "faster")])
def test_a_chain_is_within_the_band_of_its_prediction_either_way(data, ratio, verdict):
    _time(data, "add_rmsnorm", ratio)
    f = F.from_data(**data)
    assert f.norm_versus == verdict and f.norm_within_band == (verdict == "within")


def test_bytes_predict_time_only_when_both_chains_do(data):
    _time(data, "add_rmsnorm", 1.05)
    _time(data, "swiglu", 0.97)
    assert F.from_data(**data).bytes_predict_time
    _time(data, "swiglu", 1.12)  # SwiGLU's 1.12x on the H200
    f = F.from_data(**data)
    assert not f.bytes_predict_time and f.norm_within_band and not f.swiglu_within_band


def test_the_laptop_verdict_reads_its_measured_time(data):
    data["laptop_versions"]["add_rmsnorm_eager_ms"] = 7.0
    f = F.from_data(**data)
    assert not f.laptop_within_band and f.laptop_norm_over_predicted == pytest.approx(7.0 / 6.2)


def test_kernel_verdicts_follow_each_streaming_kernel(data):
    for c in data["eager_bytes"]["chains"].values():
        for k in c["kernels"]:
            k["us"] = k["predicted_us"]
    f = F.from_data(**data)
    assert f.every_kernel_within_band and f.norm_streaming_within == 7 and f.kernels_outside_band == 0
    assert not f.norm_only_vectorized_keep_pace  # the generic kernels kept pace too
    streaming = [k for k in _chain(data, "add_rmsnorm")["kernels"] if k["bytes_per_elem"] >= F.STREAMING]
    generic = [k for k in streaming if k["kernel_short"] != F.VECTORIZED]
    for k in generic:
        k["us"] = 1.5 * k["predicted_us"]
    _chain(data, "add_rmsnorm")["kernels"][8]["us"] *= 2  # kernel 9, 3x
    f = F.from_data(**data)
    assert f.norm_only_vectorized_keep_pace and not f.every_kernel_within_band
    assert f.norm_streaming_within == len(streaming) - len(generic) and f.kernels_outside_band == len(generic)
    generic[0]["us"] = generic[0]["predicted_us"]  # a generic kernel at the copy's pace breaks the pattern
    assert not F.from_data(**data).norm_only_vectorized_keep_pace
    assert (f.norm_worst_index, f.norm_worst_op, f.norm_worst_over_predicted) == (9, "mul.Tensor", pytest.approx(3))
    _chain(data, "add_rmsnorm")["kernels"][0]["us"] *= 0.97  # the first add beats its bytes' time at the copy rate
    g = F.from_data(**data)
    assert (g.norm_best_op, g.norm_best_over_predicted) == ("add.Tensor", pytest.approx(0.97))
    assert _guard("one_beat_copy", g) and not _guard("one_beat_copy", f)  # f: every kernel at or over its bytes' time
    assert not _guard("one_beat_copy", replace(g, norm_best_over_predicted=0.8))  # beyond the band: not kept pace


def test_one_slow_swiglu_kernel_is_enough_to_fail_every_kernel(data):
    for c in data["eager_bytes"]["chains"].values():
        for k in c["kernels"]:
            k["us"] = k["predicted_us"]
    _chain(data, "swiglu")["kernels"][0]["us"] *= 1.11
    f = F.from_data(**data)
    assert not f.every_kernel_within_band and f.swiglu_streaming_within == 1


def test_tiny_kernels_are_those_under_a_byte_per_element(data):
    norm = _chain(data, "add_rmsnorm")
    norm["kernels"] = [k for k in norm["kernels"] if k["bytes_per_elem"] >= F.STREAMING]
    f = F.from_data(**data)
    assert not f.norm_has_tiny and f.norm_tiny == 0 and f.norm_streaming == 7


def test_same_chain_as_the_laptop_needs_the_same_counts(data):
    _chain(data, "add_rmsnorm")["count"] = 8
    _chain(data, "swiglu")["fused_bytes_per_elem"] = 7.0
    f = F.from_data(**data)
    assert not f.norm_as_laptop and not f.swiglu_as_laptop


def _ridge(data, ridge):
    """The ceilings' matmul rate set so that the ridge (matmul over copy) is `ridge`."""
    data["ceilings"]["matmul"]["tflops"] = ridge * data["ceilings"]["bandwidth"]["copy"]["gbps"] / 1e3


def test_far_below_the_ridge_on_both_machines(data):
    assert F.from_data(**data).far_below_ridge
    _ridge(data, 40 * data["eager_bytes"]["swiglu_intensity"]["fused_flop_per_byte"])
    assert not F.from_data(**data).far_below_ridge
    _ridge(data, 500)
    data["laptop_ceilings"]["copy_gbps"] = 25.3e3 / 40 * 6 / 5  # the laptop's ridge 40x its intensity
    assert not F.from_data(**data).far_below_ridge


def test_the_ridge_is_the_machine_chapters_from_the_two_medians(data):
    f = F.from_data(**data)
    d = F.derive(replace(f, ceiling_tflops=500.0, ceiling_copy_gbps=4000.0))
    assert d["ridge"] == pytest.approx(125) and d["ridge_over_intensity"] == pytest.approx(125 / f.swiglu_flop_per_byte)
    assert set(F.DERIVED_FROM) <= set(d)


def _guard(name, f):
    return G.GUARDS[name][1](f)


def test_guards_on_the_laptops_byte_counts(data):
    f = F.from_data(**data)
    assert _guard("norm_as_laptop", replace(f, norm_as_laptop=True))
    assert not _guard("norm_as_laptop", replace(f, norm_as_laptop=False))
    _chain(data, "add_rmsnorm")["count"] = 8
    assert not _guard("norm_as_laptop", F.from_data(**data))


def test_guards_on_each_chains_time(data):
    _time(data, "add_rmsnorm", 1.05)
    _time(data, "swiglu", 0.97)
    f = F.from_data(**data)
    assert not _guard("norm_misses_time", f) and not _guard("swiglu_misses_time", f)
    _time(data, "swiglu", 1.12)  # SwiGLU's 1.12x on the H200
    f = F.from_data(**data)
    assert not _guard("norm_misses_time", f) and _guard("swiglu_misses_time", f)
    _time(data, "add_rmsnorm", 1.48)
    _time(data, "swiglu", 1.07)  # SwiGLU's 1.07x on the H100: inside the band
    f = F.from_data(**data)
    assert _guard("norm_misses_time", f) and not _guard("swiglu_misses_time", f)
    assert "1.07×" in G.GUARDS["swiglu_misses_time"].found(f)
    _time(data, "add_rmsnorm", 0.8)  # faster than its bytes' time: not "more than the band over"
    assert not _guard("norm_misses_time", F.from_data(**data))


def test_guards_far_below_the_ridge_one_machine_each(data):
    f = F.from_data(**data)
    assert _guard("little_arithmetic", replace(f, ridge_over_intensity=F.FAR_BELOW, laptop_ridge_over_intensity=1))
    assert not _guard("little_arithmetic", replace(f, ridge_over_intensity=F.FAR_BELOW - 1))
    assert _guard("laptop_far_below_ridge", replace(f, ridge_over_intensity=1, laptop_ridge_over_intensity=200))
    assert not _guard("laptop_far_below_ridge", replace(f, laptop_ridge_over_intensity=F.FAR_BELOW - 1))


def test_guard_laptop_within_band(data):
    assert _guard("laptop_within_band", F.from_data(**data))
    data["laptop_versions"]["add_rmsnorm_eager_ms"] = 7.0
    assert not _guard("laptop_within_band", F.from_data(**data))


def test_guards_on_the_kernels(data):
    f = F.from_data(**data)  # the fixture: every kernel 11-14% over its bytes' time
    assert not _guard("some_keep_pace", f) and _guard("others_fell_behind", f)
    assert _guard("some_keep_pace", replace(f, norm_streaming_within=3))
    assert _guard("only_vectorized_keep_pace", replace(f, norm_only_vectorized_keep_pace=True))
    assert not _guard("only_vectorized_keep_pace", replace(f, norm_only_vectorized_keep_pace=False))
    for c in data["eager_bytes"]["chains"].values():
        for k in c["kernels"]:
            k["us"] = k["predicted_us"]
    g = F.from_data(**data)
    assert _guard("some_keep_pace", g) and not _guard("others_fell_behind", g)
    assert not _guard("only_vectorized_keep_pace", g)  # the generic kernels kept pace too
    assert f"not exactly the {g.norm_vectorized} " in G.GUARDS["only_vectorized_keep_pace"].found(g)
    assert _guard("norm_has_tiny", f)
    norm = _chain(data, "add_rmsnorm")
    norm["kernels"] = [k for k in norm["kernels"] if k["bytes_per_elem"] >= F.STREAMING]
    assert not _guard("norm_has_tiny", F.from_data(**data))


def _rms_norm_version(d):
    return next(x for x in d["versions"]["versions"] if (x["op"], x["key"]) == ("add_rmsnorm", "rms_norm"))


def test_guard_rms_norm_one_kernel(data):
    _rms_norm_version(data)["kernels"] = 2  # the add, then F.rms_norm
    f = F.from_data(**data)
    assert f.rms_norm_own_kernels == 1 and _guard("rms_norm_one_kernel", f)
    _rms_norm_version(data)["kernels"] = 4  # F.rms_norm split into three kernels
    assert not _guard("rms_norm_one_kernel", F.from_data(**data))


def test_derived_ratios_divide_the_figures_beside_them(data):
    f = replace(F.from_data(**data), norm_measured_ms=0.5, norm_predicted_ms=0.25, swiglu_measured_ms=0.1,
                swiglu_predicted_ms=0.08)
    d = F.derive(f)
    assert d["norm_over_predicted"] == pytest.approx(2.0) and d["swiglu_over_predicted"] == pytest.approx(1.25)
    assert d["norm_bytes_ratio"] == pytest.approx(f.norm_bytes / f.norm_fused_bytes)
    assert set(F.DERIVED_FROM) <= set(d) and {k for k, v in d.items() if not isinstance(v, bool)} <= set(F.FORMATS)


GUARD_CASES = {  # each guard: fields that make it hold, fields that make it fail
    "norm_as_laptop": ({"norm_as_laptop": True}, {"norm_as_laptop": False}),
    "little_arithmetic": ({"ridge_over_intensity": 190.0}, {"ridge_over_intensity": 40.0}),
    "laptop_far_below_ridge": ({"laptop_ridge_over_intensity": 134.0}, {"laptop_ridge_over_intensity": 40.0}),
    "norm_misses_time": ({"norm_over_predicted": 1.48}, {"norm_over_predicted": 1.05}),
    "swiglu_misses_time": ({"swiglu_over_predicted": 1.12}, {"swiglu_over_predicted": 1.07}),
    "laptop_within_band": ({"laptop_norm_over_predicted": 1.0}, {"laptop_norm_over_predicted": 1.2}),
    "some_keep_pace": ({"norm_streaming_within": 3}, {"norm_streaming_within": 0}),
    "only_vectorized_keep_pace": ({"norm_only_vectorized_keep_pace": True}, {"norm_only_vectorized_keep_pace": False}),
    "others_fell_behind": ({"norm_worst_over_predicted": 2.69}, {"norm_worst_over_predicted": 1.05}),
    "one_beat_copy": ({"norm_best_over_predicted": 0.975}, {"norm_best_over_predicted": 1.0}),
    "norm_has_tiny": ({"norm_tiny": 2}, {"norm_tiny": 0}),
    "rms_norm_one_kernel": ({"rms_norm_own_kernels": 1}, {"rms_norm_own_kernels": 3}),
}


def test_every_guard_has_a_case():
    assert set(GUARD_CASES) == set(G.GUARDS)


@pytest.mark.parametrize("name", sorted(GUARD_CASES))
def test_each_guard_holds_one_way_and_fails_the_other_with_values(data, name):
    both_ways(name, G.GUARDS[name], F.from_data(**data), *GUARD_CASES[name])
