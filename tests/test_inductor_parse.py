"""The generated-code reader, on stored Inductor modules (tests/fixtures/inductor_code, made by its generate.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelbook.chapters.torch_compile import generated_code as ic

CODE = Path(__file__).parent / "fixtures" / "inductor_code"
NORM = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"


def read(name: str) -> str:
    return (CODE / f"{name}.txt").read_text()


def test_add_rmsnorm_is_one_chunked_reduction_with_constant_shape():
    s = ic.summarise(read("add_rmsnorm"))
    assert s["kernel_names"] == [NORM]
    k = s["kernels"][0]
    assert k["kind"] == "reduction"
    assert k["constants"] == {"xnumel": 8192, "r0_numel": 4096}
    assert k["chunked"] and k["loops"] == 2 and k["loop_ranges"] == ["tl.range", "tl.range"]
    assert k["stored_then_reloaded"] == ["out_ptr0"]  # h is written in pass 1 and read back in pass 2
    assert k["eviction"] == {"evict_first": 3, "evict_last": 1}
    assert k["eviction_by_pointer"]["in_ptr2"] == "evict_last"  # the weight vector, shared by every row
    assert k["pointers_stored"] == ["out_ptr0", "out_ptr2"]


def test_trim_kernel_keeps_loops_and_drops_aliases():
    src = ic.kernel_sources(read("add_rmsnorm"))[NORM]
    t = ic.trim_kernel(src)
    assert t.startswith(f"def {NORM}(")
    assert t.count("for r0_offset in tl.range(") == 2
    assert "rindex =" not in t and "roffset =" not in t and "RBLOCK: tl.constexpr" not in t
    assert "@triton" not in t and "import" not in t
    assert t.splitlines()[-1].strip().startswith("tl.store(out_ptr2")  # the last store, nothing after the body


def test_mlp_call_sends_matmuls_to_extern_kernels():
    c = ic.call_summary(read("mlp_1token"))
    assert [(s["kind"], s["op"]) for s in c["steps"]] == [
        ("triton", NORM), ("extern", "mm"), ("extern", "mm"), ("reuse", "buf4 <- buf2"),
        ("triton", "triton_poi_fused_mul_silu_1"), ("extern", "addmm")]
    assert c["triton_launches"] == 2 and c["extern_calls"] == ["mm", "mm", "addmm"]
    assert c["reinterpret_tensor"] == 3
    assert "aten.mm" in c["steps"][1]["source_nodes"] or "g" in c["steps"][1]["source_nodes"]
    assert ic.trim_call(read("mlp_1token")).splitlines()[3] == "buf4 = buf2; del buf2  # reuse"


def test_pointwise_kernel_has_no_loop():
    s = ic.summarise(read("mlp_1token"))
    poi = s["kernels"][1]
    assert poi["kind"] == "pointwise" and poi["loops"] == 0 and not poi["chunked"]
    assert poi["constants"] == {"xnumel": 8960}


def test_single_row_matmul_as_reduction():
    s = ic.summarise(read("max_autotune_mlp"))
    assert s["call"]["extern_calls"] == []
    mm = [k for k in s["kernels"] if "_mm_" in k["name"]]
    assert len(mm) == 2 and all(k["kind"] == "reduction" for k in mm)
    down = next(k for k in mm if "add_mm_mul_silu" in k["name"])
    assert down["constants"] == {"xnumel": 1536, "r0_numel": 8960}  # one output per hidden unit, summed over 8,960


def test_call_body_handles_both_layouts():
    module_level = ("def call(args):\n    a, = args\n    triton_poi_fused_0.run(a, 8, stream=stream0)\n"
                    "    return (a, )\n")
    assert ic.call_body(module_level)[1] == "triton_poi_fused_0.run(a, 8, stream=stream0)"
    method = "class Runner:\n    def call(self, args):\n        x = 1\n        return (x, )\n\nrunner = Runner()\n"
    assert ic.call_body(method) == ["x = 1", "return (x, )"]
    with pytest.raises(ValueError):
        ic.call_body("def other(args):\n    pass\n")


def test_old_rnumel_spelling_and_plain_range():
    src = ("@triton.jit\ndef triton_red_fused_sum_0(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK : tl.constexpr):\n"
           "    xnumel = 128\n    rnumel = 4096\n    for roffset in range(0, rnumel, RBLOCK):\n"
           "        tmp0 = tl.load(in_ptr0 + (r1), rmask, eviction_policy='evict_first', other=0.0)\n"
           "    tl.store(out_ptr0 + (x0), tmp1, None)\n")
    (name, body), = ic.kernel_sources(src).items()
    k = ic.kernel_facts(name, body)
    assert k["constants"] == {"xnumel": 128, "rnumel": 4096}
    assert k["loop_ranges"] == ["range"] and k["eviction"] == {"evict_first": 1}


@pytest.mark.parametrize("name, family", [
    ("triton_poi_fused_mul_silu_1", "triton"),
    ("nvjet_tst_64x8_64x16_2x1_v_bz_TNT", "gemm"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "gemm"),
    ("Memcpy DtoD (Device -> Device)", "copy"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", "aten"),
])
def test_kernel_family(name, family):
    assert ic.kernel_family(name) == family


def test_short_kernel_name():
    assert ic.short_kernel_name("void at::native::f<4, g<h>>(int)") == "at::native::f<…>(int)"
    assert len(ic.short_kernel_name("x" * 100, 20)) == 20
