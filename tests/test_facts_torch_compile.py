"""The torch-compile facts on the fixture results, and each verdict the page reads driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from kernelbook import page
from kernelbook.chapters.torch_compile import facts as F
from kernelbook.chapters.torch_compile import figures
from kernelbook.chapters.torch_compile import guards as G

NAMES = ("codegen", "mlp_profile", "compile_time", "recompiles", "graph_breaks", "modes")


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {**{n: load(f"torch_compile.{n}") for n in NAMES}, "ceilings": load("machine.ceilings"),
            "compile_warm": load("decode.compile_warm"), "six_ways": load("decode.six_ways"),
            "constraints": load("decode.constraints"),
            "laptop": {n: load(f"torch_compile.{n}", F.LAPTOP) for n in NAMES}, "gpu": "H200"}


def facts(d):
    return F.from_data(**d)


def _norm_kernel(d):
    return d["codegen"]["add_rmsnorm"]["summary"]["kernels"][0]


def _by(d, tokens):
    return d["mlp_profile"]["by_tokens"][str(tokens)]


def test_the_fixture_reads_as_stored(data):
    f = facts(data)
    assert (f.norm_rows, f.norm_cols, f.norm_kernels, f.norm_loops) == (8192, 4096, 1, 2)
    assert (f.evict_first, f.evict_last, f.norm_row_kb) == (3, 1, 8.0)
    assert (f.mlp_hidden, f.mlp_width, f.mlp_triton, f.mlp_mm, f.mlp_addmm) == (1536, 8960, 2, 2, 1)
    one, big = _by(data, 1), _by(data, 2048)
    assert f.one_saved_us == one["saved_us"] and f.one_removed == one["kernels_removed"]
    assert f.big_saved_share == pytest.approx(big["saved_us"] / big["eager"]["busy_us"])
    assert f.machine_eager_us == data["ceilings"]["launch"]["eager_us_per_launch"]
    assert f.laptop_one_saved_low == 11 and f.laptop_big_saved_share == pytest.approx(0.05)
    assert f.recompile_tokens == (1, 2, 3, 64) and f.later_tokens == (3, 64) and f.recompile_s == 1.5
    assert (f.later_first_ms, f.later_last_ms) == (f.later_ms[0], f.later_ms[-1])
    assert f.decode_cold_slowest == "max-autotune" and f.decode_warm_modes == 2
    assert f.decode_cold_high == data["six_ways"]["setup"]["compile_max_autotune"]["compile_s"]
    assert (f.sm_count, f.min_sms, f.laptop_sm_count) == (132, 68, 24)
    assert F.facts().gpu == "H200"


def test_norm_kernel_count_against_the_laptop(data):
    assert facts(data).norm_kernels_as_laptop
    data["codegen"]["add_rmsnorm"]["summary"]["kernel_count"] = 2
    assert not facts(data).norm_kernels_as_laptop


def test_how_the_norm_kernel_reads_its_row_again(data):
    k = _norm_kernel(data)
    f = facts(data)
    assert f.norm_chunked and f.norm_reread == "stored" and f.norm_reread_pointer == "out_ptr0"
    k["stored_then_reloaded"], k["reloaded_in_later_loop"] = [], ["in_ptr0", "in_ptr1"]
    f = facts(data)
    assert f.norm_reread == "recomputed" and f.norm_reread_pointer == "in_ptr0"
    k["reloaded_in_later_loop"], k["chunked"] = [], False
    f = facts(data)
    assert f.norm_reread == "none" and not f.norm_chunked and f.norm_reread_pointer == ""


def test_weight_hint_and_baked_shape(data):
    k = _norm_kernel(data)
    f = facts(data)
    assert f.weight_kept and f.shape_baked
    k["eviction_by_pointer"][F.WEIGHT_POINTER] = "evict_first"
    k["constants"] = {"xnumel": 8192}  # no row length in the source
    f = facts(data)
    assert not f.weight_kept and not f.shape_baked and f.kernel_rnumel is None
    k["constants"] = {"xnumel": 8192, "rnumel": 4096}  # the older spelling still counts
    assert facts(data).shape_baked


def test_the_mlp_call_against_the_laptop_and_its_addmm(data):
    f = facts(data)
    assert f.mlp_as_laptop and f.residual_in_addmm and f.addmm_copy
    call = data["codegen"]["mlp_1token"]["summary"]["call"]
    call["extern_calls"] = ["mm", "mm", "mm"]
    add = next(s for s in call["steps"] if s["op"] == "addmm")
    add["op"], add["line"] = "mm", add["line"].replace("addmm", "mm").replace("beta=1", "beta=0")
    f = facts(data)
    assert not f.mlp_as_laptop and not f.residual_in_addmm and f.mlp_addmm == 0
    assert f.addmm_copies == 1 and not f.addmm_copy  # a copy without an addmm is not the residual's


def test_no_copy_in_the_compiled_call(data):
    one = _by(data, 1)
    one["compiled"]["kernels"] = [k for k in one["compiled"]["kernels"] if k["family"] != "copy"]
    f = facts(data)
    assert f.addmm_copies == 0 and not f.addmm_copy


def test_a_copy_eager_also_makes_is_not_the_addmms(data):
    one = _by(data, 1)
    assert facts(data).eager_copies == 0 and facts(data).addmm_copy
    copy_kernel = next(k for k in one["compiled"]["kernels"] if k["family"] == "copy")
    one["eager"]["kernels"].append(dict(copy_kernel))
    f = facts(data)
    assert f.eager_copies == 1 and f.addmm_copies == 1 and not f.addmm_copy


@pytest.mark.parametrize("saved, verdict", [(10.0, "below"), (11.0, "within"), (16.0, "within"), (16.5, "above")])
def test_one_token_saving_against_the_laptops_range(data, saved, verdict):
    _by(data, 1)["saved_us"] = saved
    assert facts(data).one_saved_vs_laptop == verdict


def test_launch_against_the_eager_kernels(data):
    f = facts(data)
    assert f.launch_beats_kernel and f.machine_eager_us > f.eager_kernel_us_median
    data["ceilings"]["launch"]["eager_us_per_launch"] = f.eager_kernel_us_median - 0.1
    assert not facts(data).launch_beats_kernel


@pytest.mark.parametrize("share, verdict", [(0.05 * 1.2, "similar"), (0.05 * 1.3, "more"), (0.05 / 1.3, "less")])
def test_prefill_saving_against_the_laptop(data, share, verdict):
    big = _by(data, 2048)
    big["saved_us"] = share * big["eager"]["busy_us"]
    assert facts(data).big_saving_vs_laptop == verdict


def test_matrix_products_dominate_only_past_half_the_call(data):
    big = _by(data, 2048)
    assert facts(data).big_gemm_dominates
    for k in big["eager"]["kernels"]:
        if k["family"] == "gemm":
            k["us"] = 1.0
    f = facts(data)
    assert not f.big_gemm_dominates and f.big_gemm_share_eager < F.DOMINATES


def test_the_same_matrix_product_kernels_at_prefill_size(data):
    big = _by(data, 2048)
    f = facts(data)
    assert f.big_gemm_same and f.big_gemm_renamed == 0 and f.big_gemms == 3
    next(k for k in big["compiled"]["kernels"] if k["family"] == "gemm")["name"] += "_badd"
    f = facts(data)
    assert not f.big_gemm_same and f.big_gemm_renamed == 1 and f.big_gemms == 3


@pytest.mark.parametrize("cold, verdict", [(2.5 * 1.25, "similar"), (2.5 * 1.3, "more"), (2.5 / 1.3, "less")])
def test_cold_compile_against_the_laptop(data, cold, verdict):
    data["compile_time"]["add_rmsnorm"]["cold"]["first_call_s"] = cold
    assert facts(data).norm_cold_vs_laptop == verdict


def test_decode_modes_that_share_one_cache(data):
    f = facts(data)
    assert f.decode_shared_cache and f.decode_first_mode == "default"
    assert f.decode_later_modes == ("reduce-overhead",)
    data["compile_warm"]["modes"] = ["compile_reduce_overhead"]
    f = facts(data)
    assert not f.decode_shared_cache and f.decode_first_mode == "reduce-overhead" and f.decode_later_modes == ()


def test_decode_compiles_against_the_laptop(data):
    f = facts(data)
    assert f.decode_cold_above_laptop and f.decode_warm_above_laptop and not f.decode_cold_runs_differ
    data["six_ways"]["setup"]["compile_max_autotune"]["compile_s"] = 40.0
    data["compile_warm"]["warm"]["modes"]["compile_default"]["compile_s"] = 4.5
    data["six_ways"]["setup"]["compile_default"]["compile_s"] = 60.0
    f = facts(data)
    assert not f.decode_cold_above_laptop and not f.decode_warm_above_laptop and f.decode_cold_runs_differ
    assert f.decode_cold_high == 40.0 and f.decode_warm_high == 4.5


def test_decode_compiles_take_a_mode_from_the_two_process_run_when_it_has_it(data):
    rows = {d["mode"]: d for d in figures.decode_compiles(data["compile_warm"], data["six_ways"])}
    assert not rows["default"]["own_run"] and rows["max-autotune"]["own_run"]
    assert rows["max-autotune"]["warm_s"] is None and rows["reduce-overhead"]["later_ms"] == pytest.approx(4.0)


def test_recompiles(data):
    f = facts(data)
    assert f.second_recompiled and f.later_quiet and f.recompile_vs_laptop == "similar"
    calls = data["recompiles"]["calls"]
    calls[1]["graphs_compiled"], calls[1]["seconds"] = 0, 0.001
    calls[3]["graphs_compiled"] = 1
    f = facts(data)
    assert not f.second_recompiled and not f.later_quiet and f.later_graphs == 1
    assert f.recompile_vs_laptop == "less"
    calls[1]["seconds"] = 2.0
    assert facts(data).recompile_vs_laptop == "more"


def test_graph_breaks(data):
    f = facts(data)
    assert f.checked_as_laptop and f.checked_broke and f.decode_unbroken
    checked = data["graph_breaks"]["checked"]
    checked["graph_count"], checked["graph_break_count"], checked["break_reasons"] = 1, 0, []
    data["constraints"]["explain"]["graph_count"] = 3
    f = facts(data)
    assert not f.checked_as_laptop and not f.checked_broke and f.break_line == "" and not f.decode_unbroken


def test_big_gpu_check(data):
    f = facts(data)
    assert f.is_big_gpu and f.same_threshold and not f.laptop_big
    data["modes"]["is_big_gpu"] = False
    data["modes"]["threshold"]["min_sms"] = 200
    data["laptop"]["modes"]["sm_count"] = 80
    f = facts(data)
    assert not f.is_big_gpu and not f.same_threshold and f.laptop_big


def test_the_one_row_rewrite_and_the_mode_that_enables_it(data):
    f = facts(data)
    assert f.mm_rewrite_needs_cdt and f.ma_sets_cdt
    data["modes"]["mm_rewrite"] = {"comment": None, "needs_coordinate_descent": False}
    del data["modes"]["options"]["max-autotune"]["coordinate_descent_tuning"]
    f = facts(data)
    assert not f.mm_rewrite_needs_cdt and not f.ma_sets_cdt and f.mm_rewrite_comment == ""


def test_max_autotune_mlp_counts_extern_calls_from_the_code(data):
    f = facts(data)
    assert f.ma_all_triton and f.ma_extern == 0 and f.ma_mm_kernels == 2
    assert f.ma_down_found and f.ma_down_kernel == "triton_red_fused_add_mm_mul_silu_t_2"
    ma = data["codegen"]["mlp_1token_max_autotune"]
    down = next(line for line in ma["code"].splitlines() if "triton_red_fused_add_mm_mul_silu_t_2.run(" in line)
    indent = down[:len(down) - len(down.lstrip())]
    ma["code"] = ma["code"].replace(down, indent + "extern_kernels.mm(buf5, buf3, out=buf6)")
    for k in ma["summary"]["kernels"]:
        k["constants"]["xnumel"] = 7
    f = facts(data)
    assert not f.ma_all_triton and f.ma_extern == 1 and not f.ma_down_found and f.ma_down_kernel == ""


def test_launches_look_inside_graph_partitions():
    module = ("def partition_0(args):\n    a, = args\n    triton_poi_fused_0.run(a, 8, stream=stream0)\n"
              "    extern_kernels.mm(a, a, out=buf1)\n    return (buf1, )\n\n"
              "class Runner:\n    def call(self, args):\n        (buf1,) = self.partitions[0](args)\n"
              "        return (buf1, )\n")
    assert [s["kind"] for s in figures.launches(module)] == ["triton", "extern"]


def test_decode_step_under_max_autotune(data):
    top = data["six_ways"]["kernel_mix"]["compile_max_autotune"]["top"]
    f = facts(data)
    assert f.decode_down_found and f.same_down_fusion and not f.decode_uses_templates
    assert not f.only_attention_outside  # a cuBLAS kernel is among the fixture's busiest
    top[0]["name"] = "triton_red_fused__unsafe_view_mm_mul_silu_t_view_11"
    top[1]["name"] = "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_fixture"
    top.append({"name": "triton_tem_fused_addmm_t_view_2", "count": 84, "us": 100.0})
    f = facts(data)
    assert f.same_down_fusion and f.decode_uses_templates and f.decode_bias_templates == 84
    assert f.only_attention_outside
    top[0]["name"] = "triton_red_fused_mm_silu_other_3"
    assert not facts(data).same_down_fusion
    del top[0]
    f = facts(data)
    assert not f.decode_down_found and f.decode_down_kernel == "" and not f.same_down_fusion


def test_headline_times_across_runs_show_their_range_only_where_runs_differ(data):
    one = F.from_data(**data)
    assert (one.mlp_runs, one.compile_runs, one.recompile_runs) == (1, 1, 1)
    assert not (one.one_saved_us_runs_vary or one.one_eager_us_runs_vary or one.one_compiled_us_runs_vary
                or one.norm_cold_s_runs_vary or one.recompile_s_runs_vary)
    same = F.from_data(**data, runs={n: [data[n], copy.deepcopy(data[n])] for n in ("mlp_profile", "compile_time",
                                                                                    "recompiles")})
    assert same.compile_runs == 2 and not (same.norm_cold_s_runs_vary or same.one_saved_us_runs_vary)
    prof, ct, rc = (copy.deepcopy(data[n]) for n in ("mlp_profile", "compile_time", "recompiles"))
    small = prof["by_tokens"][min(prof["by_tokens"], key=int)]
    small["saved_us"] += 2.0
    small["eager"]["busy_us"] += 2.0
    ct["add_rmsnorm"]["cold"]["first_call_s"] *= 1.5
    rc["calls"][1]["seconds"] *= 0.5
    two = F.from_data(**data, runs={"mlp_profile": [data["mlp_profile"], prof], "compile_time": [ct, data[
        "compile_time"]], "recompiles": [data["recompiles"], rc]})
    assert two.one_saved_us_runs_vary and two.one_eager_us_runs_vary and not two.one_compiled_us_runs_vary
    assert two.one_saved_us == pytest.approx(one.one_saved_us + 1.0)
    assert (two.one_saved_us_low, two.one_saved_us_high) == (one.one_saved_us, pytest.approx(one.one_saved_us + 2))
    assert two.norm_cold_s_runs_vary and two.norm_cold_s_high == pytest.approx(1.5 * one.norm_cold_s)
    assert two.recompile_s_runs_vary and two.recompile_s == pytest.approx(0.75 * one.recompile_s)
    assert two.one_saved_share == pytest.approx(two.one_saved_us / two.one_eager_us)  # the medians shown


def test_the_page_quotes_the_machines_launch_cost(data):
    """What one launch costs is machine.eager_us on every page; this chapter's copy of it (the same median across the
    machine's runs) only feeds launch_beats_kernel and is never printed."""
    from pathlib import Path

    from kernelbook.chapters.machine import facts as M
    text = (Path(__file__).resolve().parents[1] / "docs" / "torch-compile.md").read_text()
    assert 'facts("machine").eager_us' in text and 'facts("machine").host_us' not in text
    assert "machine_eager_us" not in F.FORMATS and "launch_us" not in {x.name for x in dataclasses.fields(F.Facts)}
    other = copy.deepcopy(data["ceilings"])
    other["launch"]["eager_us_per_launch"] *= 3
    runs = [other, data["ceilings"], other]  # the median across runs, not the newest run alone
    assert F.from_data(**data, ceilings_runs=runs).machine_eager_us == M.from_data(
        data["ceilings"], page.result("machine.ceilings", M.LAPTOP).data,
        page.result("memory_bound.eager_bytes").data, "H200", 132, None, runs).eager_us


def test_derived_shares_read_as_the_medians_shown(data):
    f = dataclasses.replace(facts(data), one_saved_us=99.0, one_eager_us=40.0, one_compiled_us=30.0,
                            big_saved_us=99.0, big_eager_us=4.0, big_compiled_us=3.0)
    d = F.derive(f)
    assert (d["one_saved_us"], d["one_saved_share"]) == (10.0, 0.25)  # eager's median minus compiled's
    assert (d["big_saved_us"], d["big_saved_share"]) == (1.0, 0.25)
    assert d["one_saved_vs_laptop"] == "below" and d["big_saving_vs_laptop"] == "more"  # 10 µs; 25% against 5%
    assert set(F.DERIVED_FROM) == set(d)
    assert {n for n in d if isinstance(d[n], float)} <= set(F.FORMATS)


def test_decode_compile_range_reads_as_the_tables_medians(data):
    f = facts(data)
    rows = {r["mode"]: r for r in figures.decode_compiles(data["compile_warm"], data["six_ways"])}
    assert f.decode_ro_cold_s == rows["reduce-overhead"]["cold_s"]
    assert f.decode_ma_cold_s == rows["max-autotune"]["cold_s"]
    assert f.decode_default_warm_s == rows["default"]["warm_s"] and f.decode_ma_warm_s is None
    f = dataclasses.replace(f, decode_default_cold_s=50.0, decode_ro_cold_s=20.0, decode_ma_cold_s=30.0,
                            decode_default_warm_s=2.0, decode_ro_warm_s=9.0, decode_ma_warm_s=None)
    d = F.derive(f)
    assert (d["decode_cold_low"], d["decode_cold_high"], d["decode_cold_slowest"]) == (20.0, 50.0, "default")
    assert (d["decode_warm_low"], d["decode_warm_high"]) == (2.0, 9.0)
    assert d["decode_cold_above_laptop"] == (50.0 > f.laptop_decode_cold_high)
    assert d["decode_warm_above_laptop"] == (9.0 > f.laptop_decode_warm_high)


@pytest.mark.parametrize("name, label", [
    ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     "vectorized_elementwise_kernel · CUDAFunctor_add"),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, "
     "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
     "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > const&)::"
     "{lambda(int)#1}>(int, int)", "elementwise_kernel · MulFunctor"),
    ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
     "{lambda()#3}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, 4>(int)",
     "unrolled_elementwise_kernel · direct_copy_kernel_cuda"),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
     "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float>)", "reduce_kernel · MeanOps"),
    ("void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::cublasSplitKParams<float>)",
     "cublasLt::splitKreduce_kernel"),
    ("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"),
    ("Memcpy DtoD (Device -> Device)", "Memcpy DtoD (Device -> Device)"),
])
def test_kernel_labels_name_the_template_and_its_functor(name, label):
    assert figures.kernel_label(name) == label


# each guard the page names, held on the fixture's facts and failing on a turned one
TURNED = {
    "gemms_to_cublas": [{"mlp_extern": 0}],
    "one_saves": [{"one_saved_us": -1.0}],
    "big_saves": [{"big_saved_share": -0.01}],
    "norm_as_laptop": [{"norm_kernels_as_laptop": False}],
    "norm_chunked": [{"norm_chunked": False}],
    "norm_rereads_h": [{"norm_reread": "recomputed"}],
    "weight_kept": [{"weight_kept": False}],
    "others_dropped": [{"evict_first": 0}],
    "shape_baked": [{"shape_baked": False}],
    "mlp_as_laptop": [{"mlp_as_laptop": False}],
    "residual_in_addmm": [{"residual_in_addmm": False}],
    "one_saved_as_laptop": [{"one_saved_vs_laptop": "above"}, {"one_saved_vs_laptop": "below"}],
    "launch_beats_kernel": [{"launch_beats_kernel": False}],
    "addmm_copy": [{"addmm_copies": 0}, {"eager_copies": 1}],
    "big_share_above_laptop": [{"big_saving_vs_laptop": "similar"}, {"big_saving_vs_laptop": "less"}],
    "gemm_renamed": [{"big_gemm_same": True, "big_gemm_renamed": 0}],
    "gemm_dominates": [{"big_gemm_dominates": False}],
    "decode_shared_cache": [{"decode_shared_cache": False}],
    "norm_cold_as_laptop": [{"norm_cold_vs_laptop": "more"}, {"norm_cold_vs_laptop": "less"}],
    "decode_cold_slower": [{"decode_cold_above_laptop": False}],
    "decode_warm_slower": [{"decode_warm_above_laptop": False}],
    "recompiled": [{"second_recompiled": False}],
    "recompile_as_laptop": [{"recompile_vs_laptop": "more"}],
    "later_quiet": [{"later_quiet": False}],
    "checked_broke": [{"checked_broke": False}],
    "breaks_as_laptop": [{"checked_as_laptop": False}],
    "decode_unbroken": [{"decode_unbroken": False}],
    "big_gpu_here": [{"is_big_gpu": False}],
    "laptop_small": [{"same_threshold": False}, {"laptop_big": True}],
    "rewrite_needs_cdt": [{"mm_rewrite_needs_cdt": False}],
    "ma_sets_cdt": [{"ma_sets_cdt": False}],
    "ma_all_triton": [{"ma_all_triton": False}],
    "ma_mm_fused": [{"ma_down_found": False}],
    "only_attention_outside": [{"only_attention_outside": False}],
    "decode_templates": [{"decode_uses_templates": False}],
    "laptop_kept_cublas": [{"laptop_bias_cublas": 0}],
}


def _page_facts(data):
    """The fixture's facts, with the verdicts the fixture does not take turned to the stored H200 results' side."""
    return dataclasses.replace(facts(data), decode_uses_templates=True, only_attention_outside=True,
                               big_gemm_same=False, big_gemm_renamed=1, big_saving_vs_laptop="more")


def test_every_guard_is_tested_both_ways():
    assert set(TURNED) == set(G.GUARDS)


@pytest.mark.parametrize("name", sorted(TURNED))
def test_guard_holds_and_turns(data, name):
    guard = G.GUARDS[name]
    f = _page_facts(data)
    assert guard.test(f)
    for turned in TURNED[name]:
        assert not guard.test(dataclasses.replace(f, **turned)), turned
        words = guard.found(dataclasses.replace(f, **turned))  # what a flag says there: values, never None
        assert words and "None" not in words, turned


def test_guards_read_the_data(data):
    """The verdicts the guards read come from the data: turned on the data, the guard turns."""
    assert G.GUARDS["launch_beats_kernel"][1](facts(data))
    data["ceilings"]["launch"]["eager_us_per_launch"] = 0.01
    assert not G.GUARDS["launch_beats_kernel"][1](facts(data))
    assert G.GUARDS["later_quiet"][1](facts(data))
    data["recompiles"]["calls"][3]["graphs_compiled"] = 1
    assert not G.GUARDS["later_quiet"][1](facts(data))
