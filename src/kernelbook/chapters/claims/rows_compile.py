"""The ledger's rows for Step 3 of the article: the code torch.compile generates, where it stops, compile times,
recompiles, graph breaks and the modes."""

from __future__ import annotations

import re

from .data import (
    COUNT,
    OWN,
    RATIO,
    STEP3,
    TIME,
    cold,
    kernel0,
    kernels_of,
    launch,
    mix,
    mlp,
    num,
    pairs,
    pct,
    quiet_launch,
    saved_share,
    secs,
    us,
    warm,
)
from .verdicts import exact, figure, relation

CG, MP, CT, RC = "torch_compile.codegen", "torch_compile.mlp_profile", "torch_compile.compile_time", \
    "torch_compile.recompiles"
GB, MO, CON, CW, SIX, MC = "torch_compile.graph_breaks", "torch_compile.modes", "decode.constraints", \
    "decode.compile_warm", "decode.six_ways", "machine.ceilings"
LOAD = re.compile(r"tl\.load\((\w+) \+ \(([^)]*)\)[^\n]*?eviction_policy='(\w+)'")


def _kernel_source(d) -> str:
    code = d[CG]["add_rmsnorm"]["code"]
    return code[code.index("@triton.jit"):]


def _hints(d) -> bool:
    """Every load that indexes by row (data used once) evicts first; every load that does not (the weight, shared by
    all rows) evicts last; and there is one of each."""
    loads = [(ptr, "x0" in offset, policy) for ptr, offset, policy in LOAD.findall(_kernel_source(d))]
    per_row = {p for _, row, p in loads if row}
    shared = {p for _, row, p in loads if not row}
    return per_row == {"evict_first"} and shared == {"evict_last"}


def _one_rounding_less(d) -> bool:
    """The sum of squares is built from the fp32 add with no bf16 rounding in between (eager rounds h first)."""
    src = _kernel_source(d)
    return "tl.bfloat16" not in src[src.index("for r0_offset"):src.index("tl.sum(")]


def _mlp_split(d):
    s = d[CG]["mlp_1token"]["summary"]
    return s["kernel_count"], sorted(k["kind"] for k in s["kernels"]), sorted(s["call"]["extern_calls"])


def _gemm_share(d, tokens):
    busy = mlp(d, tokens)["eager"]["busy_us"]
    return sum(k["us"] for k in kernels_of(d, tokens, "eager", "gemm")) / busy


def _aten_us(d):
    """Durations of the eager MLP half's elementwise kernels at one token, µs."""
    return [k["us"] for k in kernels_of(d, "1", "eager", "aten")]


def _copies(d):
    return kernels_of(d, "1", "compiled", "copy")


def _same_but_index(names: list[str], name: str) -> bool:
    """One of `names` is `name` with another index at its end (Inductor numbers kernels in the order it writes)."""
    prefix = name.rstrip("0123456789")
    return any(re.fullmatch(re.escape(prefix) + r"\d+", n) for n in names)


def _bias_cublas(d) -> int:
    top = mix(d, "compile_max_autotune")["top"]
    return sum(k["count"] for k in top if "bias" in k["name"] and not k["name"].startswith("triton_"))


def _modes(d) -> bool:
    o = d[MO]["options"]
    return bool(o["reduce-overhead"].get("triton.cudagraphs") and o["max-autotune"].get("triton.cudagraphs")
                and o["max-autotune"].get("max_autotune") and o["max-autotune"].get("coordinate_descent_tuning"))


ROWS = (
    exact("one-kernel", STEP3, "torch-compile.md",
          "torch.compile writes the unchanged add + RMSNorm as a single Triton kernel", "the same count",
          needs=(CG,), value=lambda d: d[CG]["add_rmsnorm"]["summary"]["kernel_count"],
          article=lambda p: p[CG]["add_rmsnorm_kernels"], laptop=lambda p: f"{p[CG]['add_rmsnorm_kernels']} kernel",
          ours=lambda d: f"{d[CG]['add_rmsnorm']['summary']['kernel_count']} kernel"),
    exact("kernel-name", STEP3, "torch-compile.md", "torch.compile names that kernel after every operation it took in",
          "the same name", needs=(CG,), value=lambda d: kernel0(d)["name"],
          article=lambda p: p[CG]["add_rmsnorm_kernel"], laptop=lambda p: p[CG]["add_rmsnorm_kernel"],
          ours=lambda d: kernel0(d)["name"]),
    exact("chunked", STEP3, "torch-compile.md",
          "Unlike the hand-written kernel, the generated one walks each row in chunks and reloads the new residual",
          "two loops over the row, and a stored pointer loaded again", needs=(CG,),
          value=lambda d: kernel0(d)["chunked"] and kernel0(d)["loops"] == 2
          and bool(kernel0(d)["stored_then_reloaded"]),
          laptop=lambda p: "two passes, h read again",
          ours=lambda d: f"{kernel0(d)['loops']} loops, reloads "
                         f"{', '.join(kernel0(d)['stored_then_reloaded']) or 'nothing'}"),
    exact("cache-hints", STEP3, "torch-compile.md",
          "It tells the cache to keep the weight, shared by every row, and to drop data used once",
          "row data loaded evict_first, the weight evict_last", needs=(CG,), value=_hints,
          laptop=lambda p: "evict_first / evict_last",
          ours=lambda d: ", ".join(f"{k}: {v}" for k, v in sorted(kernel0(d)["eviction"].items()))),
    exact("one-rounding-less", STEP3, "torch-compile.md",
          "It squares the fp32 sum directly, skipping a bf16 rounding that eager does",
          "no bf16 cast in the generated loop that sums the squares", needs=(CG,), value=_one_rounding_less,
          laptop=lambda p: "stated", ours=lambda d: "no cast" if _one_rounding_less(d) else "rounds first"),
    exact("shape-baked", STEP3, "torch-compile.md", "The generated kernel hard-codes the 8,192 × 4,096 shape",
          "the same constants", needs=(CG,),
          value=lambda d: (kernel0(d)["constants"]["xnumel"], kernel0(d)["constants"]["r0_numel"]),
          article=lambda p: (p[CG]["add_rmsnorm_rows"], p[CG]["add_rmsnorm_cols"]),
          laptop=lambda p: f"{p[CG]['add_rmsnorm_rows']:,} × {p[CG]['add_rmsnorm_cols']:,}",
          ours=lambda d: f"{kernel0(d)['constants']['xnumel']:,} × {kernel0(d)['constants']['r0_numel']:,}"),
    exact("matmuls-extern", STEP3, "torch-compile.md",
          "In the MLP half the elementwise work becomes 2 Triton kernels (a reduction and a pointwise one) and the "
          "3 matrix products go to cuBLAS",
          "the same kernels and extern calls", needs=(CG,), value=_mlp_split,
          article=lambda p: (p[CG]["mlp_1token_triton_kernels"], sorted(p[CG]["mlp_1token_kinds"]),
                             sorted(p[CG]["mlp_1token_extern"])),
          laptop=lambda p: f"{p[CG]['mlp_1token_triton_kernels']} Triton + {', '.join(p[CG]['mlp_1token_extern'])}",
          ours=lambda d: f"{_mlp_split(d)[0]} Triton + "
                         f"{', '.join(d[CG]['mlp_1token']['summary']['call']['extern_calls'])}"),
    figure("addmm-copy", STEP3, "torch-compile.md",
           "Folding the last residual add into addmm costs one small copy, about 1.3 µs",
           test="else: one copy, of another length", needs=(MP,), value=lambda d: sum(k["us"] for k in _copies(d)),
           direction=lambda d: len(_copies(d)) == 1, fmt=us(1), band=TIME,
           article=lambda p: p[MP]["addmm_copy_us"]),
    exact("buffer-reuse", STEP3, "torch-compile.md", "The SwiGLU result is written into the gate projection's buffer",
          "a buffer reused in the generated call", needs=(CG,),
          value=lambda d: bool(d[CG]["mlp_1token"]["summary"]["call"]["reuses"]),
          laptop=lambda p: p[CG]["mlp_1token_reuse"],
          ours=lambda d: ", ".join(d[CG]["mlp_1token"]["summary"]["call"]["reuses"]) or "none"),
    figure("saved-1", STEP3, "torch-compile.md", "Compiling the MLP half saves 11 to 16 µs of GPU time at one token",
           test="else: saves some", needs=(MP,), value=lambda d: mlp(d, "1")["saved_us"],
           direction=lambda d: mlp(d, "1")["saved_us"] > 0, fmt=us(1), band=OWN,
           article=lambda p: (p[MP]["saved_us_1token_low"], p[MP]["saved_us_1token_high"])),
    exact("removed-9", STEP3, "torch-compile.md", "At one token, compiling removes 9 kernels from the MLP half",
          "the same count", needs=(MP,),
          value=lambda d: round(mlp(d, "1")["kernels_removed"]), article=lambda p: p[MP]["kernels_removed_1token"],
          laptop=lambda p: f"{p[MP]['kernels_removed_1token']} kernels",
          ours=lambda d: f"{mlp(d, '1')['kernels_removed']:.0f} kernels"),
    figure("removed-short", STEP3, "torch-compile.md", "Those kernels run for only 1 to 2 µs each",
           test="else: shorter than a launch",
           needs=(MP, MC), value=lambda d: (min(_aten_us(d)), max(_aten_us(d))),
           direction=lambda d: max(_aten_us(d)) < launch(d)["host_enqueue_us"]["median"], fmt=us(1), band=OWN,
           article=lambda p: (p[MP]["removed_kernel_us_low"], p[MP]["removed_kernel_us_high"])),
    figure("launch-cost", STEP3, "machine.md", "Each launch takes about 8 µs of host time",
           needs=(MC,), value=lambda d: launch(d)["host_enqueue_us"]["median"],
           quiet=lambda d: quiet_launch(d, "host_enqueue_us"),
           rounds=lambda d: launch(d)["host_enqueue_us"]["values"], fmt=us(1), band=TIME,
           article=lambda p: p[MC]["launch_host_us"]),
    relation("launch-over-kernel", STEP3, "torch-compile.md",
             "A launch costs the CPU more than those small kernels take to run",
             "every launch sample over every small kernel", needs=(MC, MP),  # each launch run decides
             quiet=lambda d: quiet_launch(d, "host_enqueue_us"),
             rounds=lambda d: pairs(launch(d)["host_enqueue_us"]["values"], _aten_us(d)),
             laptop=lambda p: f"{p[MC]['launch_host_us']} vs {p[MP]['removed_kernel_us_low']}–"
                              f"{p[MP]['removed_kernel_us_high']} µs",
             ours=lambda d: f"{launch(d)['host_enqueue_us']['median']:.1f} vs {min(_aten_us(d)):.1f}–"
                            f"{max(_aten_us(d)):.1f} µs"),
    figure("saved-2048", STEP3, "torch-compile.md",
           "At 2,048 tokens fusion saves only about 5% of the MLP half's GPU time",
           test="else: less than at one token", needs=(MP,), value=lambda d: saved_share(d, "2048"),
           direction=lambda d: 0 < saved_share(d, "2048") < saved_share(d, "1"), fmt=pct(1), band=RATIO,
           article=lambda p: p[MP]["saved_ms_2048"] / p[MP]["eager_ms_2048"]),
    exact("matmuls-dominate", STEP3, "torch-compile.md",
          "At 2,048 tokens the matrix products take most of the MLP half's GPU time",
          "cuBLAS kernels over half of eager's GPU time", needs=(MP,), value=lambda d: _gemm_share(d, "2048") > 0.5,
          laptop=lambda p: "stated", ours=lambda d: f"{_gemm_share(d, '2048'):.0%} of eager's GPU time"),
    figure("compile-cold", STEP3, "torch-compile.md", "Compiling add + RMSNorm on a cold cache takes about 2.5 s",
           test="else: slower than warm", needs=(CT,),
           value=lambda d: d[CT]["add_rmsnorm"]["cold"]["first_call_s"],
           direction=lambda d: d[CT]["add_rmsnorm"]["cold"]["first_call_s"]
           > d[CT]["add_rmsnorm"]["warm"]["first_call_s"],
           fmt=secs(2), band=TIME, article=lambda p: p[CT]["add_rmsnorm_cold_s"]),
    figure("decode-cold", STEP3, "torch-compile.md",
           "Compiling the decode step on a cold cache takes 31 to 63 s, by mode",
           test="every mode; else: slower than warm", needs=(CW, SIX),
           value=lambda d: (min(cold(d).values()), max(cold(d).values())),
           direction=lambda d: all(w < cold(d)[m] for m, w in warm(d).items()), fmt=secs(0), band=OWN,
           article=lambda p: (p[CW]["cold_s_low"], p[CW]["cold_s_high"])),
    figure("decode-warm", STEP3, "torch-compile.md",
           "With a warm cache, a new process compiles the decode step in 3 to 5 s",
           test="else: faster than cold", needs=(CW, SIX),
           value=lambda d: (min(warm(d).values()), max(warm(d).values())),
           direction=lambda d: all(w < cold(d)[m] for m, w in warm(d).items()), fmt=secs(1), band=OWN,
           article=lambda p: (p[CW]["warm_s_low"], p[CW]["warm_s_high"])),
    exact("recompile", STEP3, "torch-compile.md",
          "One recompile when the tokens go from 1 to 2; none for 3 or 64 after it",
          "graphs compiled per call: 1, 1, 0, 0", needs=(RC,),
          value=lambda d: [c["graphs_compiled"] for c in d[RC]["calls"]] == [1, 1, 0, 0],
          laptop=lambda p: "1, 1, 0, 0",
          ours=lambda d: ", ".join(str(c["graphs_compiled"]) for c in d[RC]["calls"])),
    exact("recompile-guard", STEP3, "torch-compile.md",
          "The recompile names the guard that failed: the size of x at index 0",
          "the log names the same sizes", needs=(RC,),
          value=lambda d: "\n".join(d[RC]["log"]),
          article=lambda p: f"size mismatch at index 0. expected {p[RC]['expected']}, actual {p[RC]['actual']}",
          match=lambda ours, art: art in ours,
          laptop=lambda p: f"expected {p[RC]['expected']}, actual {p[RC]['actual']}",
          ours=lambda d: next((x.strip().split(": ", 1)[-1] for x in d[RC]["log"] if "mismatch" in x), "no guard")),
    figure("recompile-time", STEP3, "torch-compile.md", "The recompile takes about 1.3 s",
           test="else: slower than a call that compiles nothing", needs=(RC,),
           value=lambda d: d[RC]["calls"][1]["seconds"],
           direction=lambda d: d[RC]["calls"][1]["seconds"] > d[RC]["calls"][2]["seconds"], fmt=secs(2), band=TIME,
           article=lambda p: p[RC]["recompile_s"]),
    exact("graph-break", STEP3, "torch-compile.md", "A branch on .item() splits the function into 2 graphs, 1 break",
          "the same counts", needs=(GB,),
          value=lambda d: (d[GB]["checked"]["graph_count"], d[GB]["checked"]["graph_break_count"]),
          article=lambda p: (p[GB]["graph_count"], p[GB]["graph_break_count"]),
          laptop=lambda p: f"{p[GB]['graph_count']} graphs, {p[GB]['graph_break_count']} break",
          ours=lambda d: f"{d[GB]['checked']['graph_count']} graphs, {d[GB]['checked']['graph_break_count']} break"),
    exact("break-reason", STEP3, "torch-compile.md",
          "Dynamo gives an unsupported Tensor.item() call as the reason for the break",
          "the same reason", needs=(GB,),
          value=lambda d: d[GB]["checked"]["break_reasons"][0]["reason"].split("\n")[0].strip(),
          article=lambda p: p[GB]["reason"], laptop=lambda p: p[GB]["reason"],
          ours=lambda d: d[GB]["checked"]["break_reasons"][0]["reason"].split("\n")[0].strip()),
    exact("decode-one-graph", STEP3, "torch-compile.md",
          "The StaticCache decode step compiles as one graph, with no break", "1 graph, 0 breaks", needs=(CON,),
          value=lambda d: (d[CON]["explain"]["graph_count"], d[CON]["explain"]["graph_break_count"]),
          article=lambda p: (p[CON]["explain"]["graph_count"], p[CON]["explain"]["graph_break_count"]),
          laptop=lambda p: f"{p[CON]['explain']['graph_count']} graph, {p[CON]['explain']['graph_break_count']} breaks",
          ours=lambda d: f"{d[CON]['explain']['graph_count']} graph, {d[CON]['explain']['graph_break_count']} breaks"),
    figure("decode-ops", STEP3, "torch-compile.md", "That graph holds about 1,089 operations", needs=(CON,),
           value=lambda d: d[CON]["explain"]["op_count"], fmt=num(0), band=COUNT,
           article=lambda p: p[CON]["explain"]["op_count"]),
    exact("big-gpu", STEP3, "torch-compile.md",
          "Inductor tries Triton matmul templates only on a GPU with at least 68 SMs",
          "torch's threshold, and its verdict for this GPU's SMs", needs=(MO,),
          value=lambda d: (d[MO]["threshold"]["min_sms"], d[MO]["is_big_gpu"] == (d[MO]["sm_count"]
                                                                                  >= d[MO]["threshold"]["min_sms"])),
          article=lambda p: (p[MO]["min_sms"], True),
          laptop=lambda p: f"{p[MO]['min_sms']} wanted, {p[MO]['sm_count']} there",
          ours=lambda d: f"{d[MO]['threshold']['min_sms']} wanted, {d[MO]['sm_count']} here"),
    exact("big-gpu-3080", STEP3, "torch-compile.md", "The comment beside that threshold names the RTX 3080",
          "the comment in torch's source names the same card", needs=(MO,),
          value=lambda d: d[MO]["threshold"]["comment"], article=lambda p: p[MO]["min_sms_comment"],
          match=lambda ours, article: bool(ours) and ours in article,
          laptop=lambda p: p[MO]["min_sms_comment"], ours=lambda d: f"“# {d[MO]['threshold']['comment']}”"),
    exact("not-enough-sms", STEP3, "torch-compile.md",
          "On the 24-SM laptop every compile warns that there are not enough SMs for max-autotune's matmuls",
          "the warning in torch's check", needs=(MO,), value=lambda d: d[MO]["threshold"]["warning"],
          applies=lambda d: d[MO]["sm_count"] < d[MO]["threshold"]["min_sms"], unless="a GPU under 68 SMs",
          laptop=lambda p: f"{p[MO]['sm_count']} SMs", ours=lambda d: f"{d[MO]['sm_count']} SMs"),
    exact("mode-options", STEP3, "torch-compile.md",
          "reduce-overhead turns on CUDA graphs; max-autotune turns on graphs, autotuning and coordinate descent",
          "the options each mode sets", needs=(MO,), value=_modes, laptop=lambda p: "per the docs and source",
          ours=lambda d: "as stated" if _modes(d) else "other options"),
    exact("mv-rewrite", STEP3, "torch-compile.md",
          "With coordinate-descent tuning on, Inductor rewrites a one-row matrix product as a fusable reduction",
          "gated on coordinate descent, with the same comment", needs=(MO,),
          value=lambda d: (d[MO]["mm_rewrite"]["needs_coordinate_descent"], d[MO]["mm_rewrite"]["comment"]),
          article=lambda p: (True, p[MO]["mm_rewrite_comment"]),
          laptop=lambda p: "needs coordinate descent",
          ours=lambda d: "needs coordinate descent" if d[MO]["mm_rewrite"]["needs_coordinate_descent"] else "not"),
    exact("ma-triton", STEP3, "decode.md",
          "max-autotune moves the decode step's matrix-vector products into Triton kernels",
          "more Triton and fewer other kernels than under reduce-overhead", needs=(SIX,),
          value=lambda d: mix(d, "compile_max_autotune")["triton"] > mix(d, "compile_reduce_overhead")["triton"]
          and mix(d, "compile_max_autotune")["other"] < mix(d, "compile_reduce_overhead")["other"],
          laptop=lambda p: "stated",
          ours=lambda d: f"{mix(d, 'compile_max_autotune')['triton']} Triton, "
                         f"{mix(d, 'compile_max_autotune')['other']} "
                         f"other (reduce-overhead {mix(d, 'compile_reduce_overhead')['triton']}, "
                         f"{mix(d, 'compile_reduce_overhead')['other']})"),
    exact("down-proj-fused", STEP3, "torch-compile.md",
          "Under max-autotune the down projection becomes one Triton kernel that also computes silu(g) · u",
          "the same kernel name, bar its index", needs=(SIX,),
          value=lambda d: [k["name"] for k in mix(d, "compile_max_autotune")["top"]],
          article=lambda p: p[CG]["decode_down_proj_kernel_max_autotune"], match=_same_but_index,
          laptop=lambda p: p[CG]["decode_down_proj_kernel_max_autotune"],
          ours=lambda d: next((k["name"] for k in mix(d, "compile_max_autotune")["top"] if "mm_mul_silu" in k["name"]),
                              "none")),
    exact("bias-on-cublas", STEP3, "torch-compile.md",
          "Under max-autotune only the 84 projections with a bias (q, k, v in 28 layers) stay with cuBLAS",
          "the same count", needs=(SIX, MO), value=_bias_cublas,
          article=lambda p: p[MO]["decode_projections_on_cublas"],
          applies=lambda d: d[MO]["sm_count"] < d[MO]["threshold"]["min_sms"],
          unless="a GPU under 68 SMs, where Inductor skips its matmul templates",
          laptop=lambda p: f"{p[MO]['decode_projections_on_cublas']} on cuBLAS",
          ours=lambda d: f"{_bias_cublas(d)} on cuBLAS"),
)
