"""The numbers and verdicts of docs/torch-compile.md, from the torch_compile.* results on one machine (with the
decode chapter's compiled step and the machine's launch cost), and the article's RTX 4060 Laptop figures beside them.

The profiled GPU times at one token, add + RMSNorm's cold compile and the recompile are the median across every
stored run of the current code of their experiment (kernelbook.across), each with its lowest and highest run and
whether they differ (`*_runs_vary`: one value per run, no within-run spread); the comparisons with the laptop read
those medians.

No sentence is written here: the page's Markdown is written for the primary machine's data, reads these fields
(`{{ f.one_saved_us }}`, in the text FORMATS gives each) and names above each paragraph the GUARDS it rests on
(torch_compile.guards).
The launch cost the page quotes is the machine chapter's `facts("machine").eager_us` (GPU time per launch when Python
launches tiny kernels back to back, the median across machine.ceilings' runs); `machine_eager_us` here is that same
figure, computed the same way, read only by the guard that sets it against the eager kernels.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, read
from kernelbook.chapters.machine import facts as machine_facts
from kernelbook.chapters.torch_compile.figures import (
    Range,
    Versus,
    decode_compiles,
    gemm_names,
    gemm_share,
    headline,
    launches,
    range_of,
    versus,
)

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
# figures.SIMILAR: two figures are "about the same" when the larger is within that factor of the smaller
DOMINATES = 0.5  # the matrix products "dominate" a call at this share of its GPU time or more
BF16_BYTES = 2  # every tensor these experiments compile is bf16
WEIGHT_POINTER = "in_ptr2"  # add + RMSNorm's third input, the (hidden,) weight, in the generated kernel's arguments
DECODE_FIELDS = {"default": "decode_default", "reduce-overhead": "decode_ro", "max-autotune": "decode_ma"}  # + _cold_s
LABELS = {  # data keys -> how the tables name them
    ("compile", "add_rmsnorm"): "add + RMSNorm",
    ("compile", "mlp_1token"): "MLP half, 1 token",
    ("graphs", "plain"): "add + RMSNorm",
    ("graphs", "checked"): "add + RMSNorm with the .item() check",
    ("step", "triton"): "Triton kernel (Inductor's)",
    ("step", "extern"): "extern call (cuBLAS)",
    ("step", "reuse"): "buffer reuse",
    ("step", "aten"): "ATen fallback",
}
Reread = Literal["stored", "recomputed", "none"]  # how a looped reduction gets the row again in its later loop
_INDEX = re.compile(r"_\d+$")


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    # the generated add + RMSNorm kernel
    norm_rows: int
    norm_cols: int
    norm_kernels: int
    laptop_norm_kernels: int
    norm_kernels_as_laptop: bool
    norm_kernel: str  # its name
    norm_kernel_kind: str  # "reduction", "persistent reduction", ... (from the name's prefix)
    norm_chunked: bool  # walks each row in blocks
    norm_loops: int
    norm_reread: Reread
    norm_reread_pointer: str  # the pointer a later loop loads again ("" if none)
    norm_row_kb: float  # one row of h in bf16
    evict_first: int  # loads with each cache hint
    evict_last: int
    weight_kept: bool  # the weight vector's load is marked evict_last
    kernel_xnumel: int | None  # the size constants in the kernel's source
    kernel_rnumel: int | None
    shape_baked: bool  # both equal the input's shape
    # the MLP half at one token, default mode
    mlp_hidden: int
    mlp_width: int
    mlp_triton: int
    mlp_extern: int
    mlp_mm: int
    mlp_addmm: int
    mlp_reuses: int
    mlp_reinterpret: int
    laptop_mlp_triton: int
    laptop_mlp_mm: int
    laptop_mlp_addmm: int
    mlp_as_laptop: bool  # the same launches and extern calls as the article printed
    residual_in_addmm: bool  # an addmm with beta=1: cuBLAS adds the residual
    # eager against compiled, profiled
    profile_calls: int
    small_tokens: int
    big_tokens: int
    one_removed: int
    mlp_runs: int  # stored runs of the current code of torch_compile.mlp_profile
    one_saved_us: float
    one_saved_us_low: float  # the lowest and highest run
    one_saved_us_high: float
    one_saved_us_runs_vary: bool
    one_eager_us: float
    one_eager_us_low: float  # the lowest and highest run
    one_eager_us_high: float
    one_eager_us_runs_vary: bool
    one_compiled_us: float
    one_compiled_us_low: float  # the lowest and highest run
    one_compiled_us_high: float
    one_compiled_us_runs_vary: bool
    one_saved_share: float
    laptop_one_saved_low: float
    laptop_one_saved_high: float
    laptop_one_removed: int
    one_saved_vs_laptop: Range
    eager_kernel_us_low: float  # the eager ATen kernels at one token, GPU µs each
    eager_kernel_us_high: float
    eager_kernel_us_median: float
    laptop_kernel_us_low: float
    laptop_kernel_us_high: float
    machine_eager_us: float  # what one launch costs: machine.eager_us (the page prints facts("machine").eager_us)
    laptop_launch_us: float  # the article's host time to enqueue one launch
    launch_beats_kernel: bool  # a launch costs more than the median eager kernel runs
    one_host_eager_us: float
    one_host_compiled_us: float
    addmm_copies: int  # device-to-device copies in the compiled call at one token
    addmm_copy_us: float
    eager_copies: int  # ... and in the eager call
    addmm_copy: bool  # the compiled call has copies where eager has none, and an addmm they feed
    laptop_addmm_copy_us: float
    big_saved_us: float
    big_eager_us: float
    big_compiled_us: float
    big_saved_share: float
    laptop_big_saved_ms: float
    laptop_big_eager_ms: float
    laptop_big_saved_share: float
    big_saving_vs_laptop: Versus
    big_gemm_share_eager: float  # the matrix products' share of the call's GPU time
    big_gemm_share_compiled: float
    big_gemm_dominates: bool
    big_gemms: int  # the compiled call's matrix-product kernels (cuBLAS's, in default mode)
    big_gemm_renamed: int  # ... of them not run under the same name by eager
    big_gemm_same: bool  # eager and compiled run the very same matrix-product kernels
    # compile time
    compile_runs: int  # ... of torch_compile.compile_time
    norm_cold_s: float
    norm_cold_s_low: float  # the lowest and highest run
    norm_cold_s_high: float
    norm_cold_s_runs_vary: bool
    norm_warm_s: float
    norm_warm_s_low: float  # the lowest and highest run
    norm_warm_s_high: float
    norm_warm_s_runs_vary: bool
    mlp_cold_s: float
    mlp_warm_s: float
    laptop_norm_cold_s: float
    norm_cold_vs_laptop: Versus
    decode_cold_low: float
    decode_cold_high: float
    decode_cold_slowest: str  # the mode
    decode_warm_low: float
    decode_warm_high: float
    laptop_decode_cold_low: float
    laptop_decode_cold_high: float
    laptop_decode_warm_low: float
    laptop_decode_warm_high: float
    decode_cold_above_laptop: bool  # the slowest cold compile is longer than any the laptop reported
    decode_warm_above_laptop: bool
    decode_warm_modes: int  # modes measured with a warm cache
    decode_default_cold_s: float  # default mode cold, in this page's two-process run ...
    decode_default_cold_other_s: float  # ... and in the decode chapter's own run
    decode_ro_cold_s: float  # each mode's first calls, cold and warm, as the compile-time table shows them
    decode_ma_cold_s: float  # (decode_compiles: warm is None where the mode was not measured warm)
    decode_default_warm_s: float | None
    decode_ro_warm_s: float | None
    decode_ma_warm_s: float | None
    decode_cold_runs_differ: bool
    decode_shared_cache: bool  # the two-process run compiles several modes, one after another, into one cache
    decode_first_mode: str  # ... the one that found that cache empty
    decode_later_modes: tuple[str, ...]  # ... the ones compiled after it
    # recompiles
    recompile_tokens: tuple[int, ...]
    first_call_s: float
    second_tokens: int
    second_recompiled: bool  # the second call compiled a graph
    recompile_runs: int  # ... of torch_compile.recompiles
    recompile_s: float
    recompile_s_low: float  # the lowest and highest run
    recompile_s_high: float
    recompile_s_runs_vary: bool
    laptop_recompile_s: float
    recompile_vs_laptop: Versus
    later_tokens: tuple[int, ...]
    later_ms: tuple[float, ...]  # the calls after the recompile, each the median across runs
    later_first_ms: float  # ... the first of them and the last (0 where no call came after the recompile)
    later_first_ms_low: float  # the lowest and highest run
    later_first_ms_high: float
    later_first_ms_runs_vary: bool
    later_last_ms: float
    later_last_ms_low: float  # the lowest and highest run
    later_last_ms_high: float
    later_last_ms_runs_vary: bool
    later_graphs: int
    later_quiet: bool  # no later call compiled anything
    # graph breaks
    plain_graphs: int
    plain_breaks: int
    checked_graphs: int
    checked_breaks: int
    laptop_checked_graphs: int
    laptop_checked_breaks: int
    checked_broke: bool  # the .item() check broke the graph
    checked_as_laptop: bool
    break_line: str  # the source line where the graph broke
    decode_graphs: int
    decode_breaks: int
    decode_ops: int
    laptop_decode_ops: int
    decode_unbroken: bool  # the decode step is one graph with no break
    # modes
    sm_count: int
    min_sms: int
    threshold_line: str  # the line of torch's source that sets the threshold
    is_big_gpu: bool
    laptop_sm_count: int
    laptop_min_sms: int
    same_threshold: bool
    laptop_big: bool
    ma_sets_cdt: bool  # mode="max-autotune" turns coordinate_descent_tuning on
    mm_rewrite_needs_cdt: bool  # the one-row matmul rewrite is gated on coordinate-descent tuning
    mm_rewrite_comment: str  # torch's source comment on it
    ma_kernels: int  # the MLP half under max-autotune, one token
    ma_mm_kernels: int
    ma_extern: int
    ma_all_triton: bool
    ma_down_kernel: str
    ma_down_found: bool
    decode_down_kernel: str  # the decode step's down projection under max-autotune ("" if not among the busiest)
    decode_down_found: bool
    laptop_down_kernel: str
    same_down_fusion: bool  # the same name but for Inductor's running number
    decode_ma_triton: int  # kernels per decode step
    decode_ma_other: int
    decode_ro_triton: int
    decode_ro_other: int
    decode_bias_templates: int  # addmm (matmul with a bias) run as Triton templates, per step
    decode_uses_templates: bool
    laptop_bias_cublas: int
    only_attention_outside: bool  # among the step's busiest kernels, only attention ran outside Triton



def from_data(codegen: dict[str, Any], mlp_profile: dict[str, Any], compile_time: dict[str, Any],
              recompiles: dict[str, Any], graph_breaks: dict[str, Any], modes: dict[str, Any],
              ceilings: dict[str, Any], compile_warm: dict[str, Any], six_ways: dict[str, Any],
              constraints: dict[str, Any], laptop: dict[str, dict[str, Any]], gpu: str,
              runs: dict[str, Sequence[dict[str, Any]]] | None = None,
              ceilings_runs: Sequence[dict[str, Any]] | None = None) -> Facts:
    """laptop: the article's published records by experiment short name (codegen, mlp_profile, ...); runs: every run
    of the current code of mlp_profile, compile_time and recompiles by short name, oldest first (default: the run
    given alone), which the headline times read; ceilings_runs: every run of machine.ceilings of the current code
    (default: ceilings alone), whose median launch cost is the machine chapter's eager_us."""
    runs = runs or {}
    head = headline(runs.get("mlp_profile") or [mlp_profile], runs.get("compile_time") or [compile_time],
                    runs.get("recompiles") or [recompiles])
    lc, lp, lt, lr, lg, lm = (laptop[n] for n in ("codegen", "mlp_profile", "compile_time", "recompiles",
                                                   "graph_breaks", "modes"))
    # the add + RMSNorm kernel
    norm = codegen["add_rmsnorm"]
    rows, cols = norm["shapes"][0]
    k = norm["summary"]["kernels"][0]
    consts = k["constants"]
    xnumel, rnumel = consts.get("xnumel"), consts.get("r0_numel", consts.get("rnumel"))
    reread: Reread = "stored" if k["stored_then_reloaded"] else "recomputed" if k["reloaded_in_later_loop"] else "none"
    pointers = k["stored_then_reloaded"] or k["reloaded_in_later_loop"]
    # the MLP half's call() at one token
    mlp = codegen["mlp_1token"]
    call = mlp["summary"]["call"]
    ext = call["extern_calls"]
    tokens, hidden = mlp["shapes"][0]
    residual_in_addmm = any(s["op"] == "addmm" and "beta=1" in s["line"] for s in call["steps"])
    width = max(c["constants"].get("xnumel", 0) for c in mlp["summary"]["kernels"] if c["kind"] == "pointwise")
    # the profile
    by = mlp_profile["by_tokens"]
    small, big = (by[str(t)] for t in (min(map(int, by)), max(map(int, by))))
    eager_us = sorted(x["us"] for x in small["eager"]["kernels"] if x["family"] == "aten")
    copies = [x["us"] for x in small["compiled"]["kernels"] if x["family"] == "copy"]
    eager_copies = sum(x["family"] == "copy" for x in small["eager"]["kernels"])
    machine_eager_us = across.of([machine_facts.eager_launch(d) for d in (ceilings_runs or [ceilings])]).median
    big_share = big["saved_us"] / big["eager"]["busy_us"]
    big_renamed = sum((gemm_names(big["compiled"]) - gemm_names(big["eager"])).values())
    # compile time
    dec = decode_compiles(compile_warm, six_ways)
    cold = [d["cold_s"] for d in dec]
    warm = [d["warm_s"] for d in dec if d["warm_s"] is not None]
    slowest = max(dec, key=lambda d: d["cold_s"])
    default_cold = next(d["cold_s"] for d in dec if d["mode"] == "default")
    default_other = six_ways["setup"]["compile_default"]["compile_s"]
    warm_order = [k.removeprefix("compile_").replace("_", "-") for k in compile_warm["modes"]]
    # recompiles
    calls = recompiles["calls"]
    later = calls[2:]
    # graph breaks
    checked, plain = graph_breaks["checked"], graph_breaks["plain"]
    explain = constraints["explain"]
    # modes and max-autotune
    ma = codegen["mlp_1token_max_autotune"]
    ma_kernels = ma["summary"]["kernels"]
    ma_mm = [x for x in ma_kernels if "_mm_" in x["name"] or x["name"].endswith("_mm")]
    ma_down = next((x["name"] for x in ma_mm if x["constants"].get("xnumel") == hidden * tokens), "")
    ma_extern = sum(s["kind"] == "extern" for s in launches(ma["code"]))
    mix = six_ways["kernel_mix"]
    top = mix["compile_max_autotune"]["top"]
    down = next((x["name"] for x in top if "_mm_" in x["name"] and "silu" in x["name"]), "")
    outside = [x["name"] for x in top if not x["name"].startswith("triton_")]
    bias_templates = sum(x["count"] for x in top if x["name"].startswith("triton_tem_") and "addmm" in x["name"])
    laptop_down = lc["decode_down_proj_kernel_max_autotune"]
    return Facts(
        gpu=gpu,
        norm_rows=rows, norm_cols=cols, norm_kernels=norm["summary"]["kernel_count"],
        laptop_norm_kernels=lc["add_rmsnorm_kernels"],
        norm_kernels_as_laptop=norm["summary"]["kernel_count"] == lc["add_rmsnorm_kernels"],
        norm_kernel=k["name"], norm_kernel_kind=k["kind"], norm_chunked=k["chunked"], norm_loops=k["loops"],
        norm_reread=reread, norm_reread_pointer=pointers[0] if pointers else "",
        norm_row_kb=cols * BF16_BYTES / 1024,
        evict_first=k["eviction"].get("evict_first", 0), evict_last=k["eviction"].get("evict_last", 0),
        weight_kept=k["eviction_by_pointer"].get(WEIGHT_POINTER) == "evict_last",
        kernel_xnumel=xnumel, kernel_rnumel=rnumel, shape_baked=(xnumel, rnumel) == (rows, cols),
        mlp_hidden=hidden, mlp_width=width // tokens, mlp_triton=call["triton_launches"], mlp_extern=len(ext),
        mlp_mm=ext.count("mm"), mlp_addmm=ext.count("addmm"), mlp_reuses=len(call["reuses"]),
        mlp_reinterpret=call["reinterpret_tensor"],
        laptop_mlp_triton=lc["mlp_1token_triton_kernels"], laptop_mlp_mm=lc["mlp_1token_extern"].count("mm"),
        laptop_mlp_addmm=lc["mlp_1token_extern"].count("addmm"),
        mlp_as_laptop=ext == lc["mlp_1token_extern"] and call["triton_launches"] == lc["mlp_1token_triton_kernels"],
        residual_in_addmm=residual_in_addmm,
        profile_calls=mlp_profile["calls"], small_tokens=min(map(int, by)), big_tokens=max(map(int, by)),
        one_removed=int(small["kernels_removed"]), **head,
        one_saved_share=head["one_saved_us"] / head["one_eager_us"],
        laptop_one_saved_low=lp["saved_us_1token_low"], laptop_one_saved_high=lp["saved_us_1token_high"],
        laptop_one_removed=lp["kernels_removed_1token"],
        one_saved_vs_laptop=range_of(head["one_saved_us"], lp["saved_us_1token_low"], lp["saved_us_1token_high"]),
        eager_kernel_us_low=eager_us[0], eager_kernel_us_high=eager_us[-1],
        eager_kernel_us_median=statistics.median(eager_us),
        laptop_kernel_us_low=lp["removed_kernel_us_low"], laptop_kernel_us_high=lp["removed_kernel_us_high"],
        machine_eager_us=machine_eager_us, laptop_launch_us=lp["launch_host_us"],
        launch_beats_kernel=machine_eager_us > statistics.median(eager_us),
        one_host_eager_us=small["eager"]["cpu_us"], one_host_compiled_us=small["compiled"]["cpu_us"],
        addmm_copies=len(copies), addmm_copy_us=sum(copies), eager_copies=eager_copies,
        addmm_copy=bool(copies) and not eager_copies and residual_in_addmm,
        laptop_addmm_copy_us=lp["addmm_copy_us"],
        big_saved_us=big["saved_us"], big_eager_us=big["eager"]["busy_us"],
        big_compiled_us=big["compiled"]["busy_us"], big_saved_share=big_share,
        laptop_big_saved_ms=lp["saved_ms_2048"], laptop_big_eager_ms=lp["eager_ms_2048"],
        laptop_big_saved_share=lp["saved_pct_2048"] / 100,
        big_saving_vs_laptop=versus(big_share, lp["saved_pct_2048"] / 100),
        big_gemm_share_eager=gemm_share(big["eager"]), big_gemm_share_compiled=gemm_share(big["compiled"]),
        big_gemm_dominates=gemm_share(big["eager"]) >= DOMINATES,
        big_gemms=sum(gemm_names(big["compiled"]).values()), big_gemm_renamed=big_renamed,
        big_gemm_same=gemm_names(big["compiled"]) == gemm_names(big["eager"]),
        mlp_cold_s=compile_time["mlp_1token"]["cold"]["first_call_s"],
        mlp_warm_s=compile_time["mlp_1token"]["warm"]["first_call_s"],
        laptop_norm_cold_s=lt["add_rmsnorm_cold_s"],
        norm_cold_vs_laptop=versus(head["norm_cold_s"], lt["add_rmsnorm_cold_s"]),
        decode_cold_low=min(cold), decode_cold_high=max(cold), decode_cold_slowest=slowest["mode"],
        decode_warm_low=min(warm), decode_warm_high=max(warm),
        laptop_decode_cold_low=lt["decode_cold_s_low"], laptop_decode_cold_high=lt["decode_cold_s_high"],
        laptop_decode_warm_low=lt["decode_warm_s_low"], laptop_decode_warm_high=lt["decode_warm_s_high"],
        decode_cold_above_laptop=max(cold) > lt["decode_cold_s_high"],
        decode_warm_above_laptop=max(warm) > lt["decode_warm_s_high"], decode_warm_modes=len(warm),
        decode_default_cold_s=default_cold, decode_default_cold_other_s=default_other,
        **{DECODE_FIELDS[d["mode"]] + "_cold_s": d["cold_s"] for d in dec if d["mode"] != "default"},
        **{DECODE_FIELDS[d["mode"]] + "_warm_s": d["warm_s"] for d in dec},
        decode_cold_runs_differ=versus(default_cold, default_other) != "similar",
        decode_shared_cache=len(warm_order) > 1, decode_first_mode=warm_order[0] if warm_order else "",
        decode_later_modes=tuple(warm_order[1:]),
        recompile_tokens=tuple(c["tokens"] for c in calls), first_call_s=calls[0]["seconds"],
        second_tokens=calls[1]["tokens"], second_recompiled=calls[1]["graphs_compiled"] > 0,
        laptop_recompile_s=lr["recompile_s"], recompile_vs_laptop=versus(head["recompile_s"], lr["recompile_s"]),
        later_tokens=tuple(c["tokens"] for c in later),
        later_graphs=sum(c["graphs_compiled"] for c in later),
        later_quiet=all(c["graphs_compiled"] == 0 for c in later),
        plain_graphs=plain["graph_count"], plain_breaks=plain["graph_break_count"],
        checked_graphs=checked["graph_count"], checked_breaks=checked["graph_break_count"],
        laptop_checked_graphs=lg["graph_count"], laptop_checked_breaks=lg["graph_break_count"],
        checked_as_laptop=(checked["graph_count"], checked["graph_break_count"]) == (lg["graph_count"],
                                                                                      lg["graph_break_count"]),
        checked_broke=checked["graph_break_count"] > 0,
        break_line=checked["break_reasons"][0]["line"] if checked["break_reasons"] else "",
        decode_graphs=explain["graph_count"], decode_breaks=explain["graph_break_count"],
        decode_ops=explain["op_count"], laptop_decode_ops=lg["decode_op_count"],
        decode_unbroken=explain["graph_count"] == 1 and explain["graph_break_count"] == 0,
        sm_count=modes["sm_count"], min_sms=modes["threshold"]["min_sms"],
        threshold_line=modes["threshold"]["source_line"], is_big_gpu=modes["is_big_gpu"],
        laptop_sm_count=lm["sm_count"], laptop_min_sms=lm["min_sms"],
        same_threshold=modes["threshold"]["min_sms"] == lm["min_sms"], laptop_big=lm["sm_count"] >= lm["min_sms"],
        ma_sets_cdt=bool(modes["options"]["max-autotune"].get("coordinate_descent_tuning")),
        mm_rewrite_needs_cdt=modes["mm_rewrite"]["needs_coordinate_descent"],
        mm_rewrite_comment=modes["mm_rewrite"]["comment"] or "",
        ma_kernels=ma["summary"]["kernel_count"], ma_mm_kernels=len(ma_mm), ma_extern=ma_extern,
        ma_all_triton=ma_extern == 0, ma_down_kernel=ma_down, ma_down_found=bool(ma_down),
        decode_down_kernel=down, decode_down_found=bool(down),
        laptop_down_kernel=laptop_down,
        same_down_fusion=bool(down) and _INDEX.sub("", down) == _INDEX.sub("", laptop_down),
        decode_ma_triton=mix["compile_max_autotune"]["triton"], decode_ma_other=mix["compile_max_autotune"]["other"],
        decode_ro_triton=mix["compile_reduce_overhead"]["triton"],
        decode_ro_other=mix["compile_reduce_overhead"]["other"],
        decode_bias_templates=bias_templates, decode_uses_templates=bias_templates > 0,
        laptop_bias_cublas=lm["decode_projections_on_cublas"],
        only_attention_outside=bool(outside) and all("sdpa" in n or "flash" in n or "attention" in n for n in outside),
    )


def facts(machine: str | None = None) -> Facts:
    r = read.result("torch_compile.codegen", machine)
    data = {n: read.result(f"torch_compile.{n}", machine).data
            for n in ("codegen", "mlp_profile", "compile_time", "recompiles", "graph_breaks", "modes")}
    laptop = {n: read.result(f"torch_compile.{n}", LAPTOP).data for n in data}
    return from_data(**data, ceilings=read.result("machine.ceilings", machine).data,
                     compile_warm=read.result("decode.compile_warm", machine).data,
                     six_ways=read.result("decode.six_ways", machine).data,
                     constraints=read.result("decode.constraints", machine).data, laptop=laptop,
                     ceilings_runs=across.datas("machine.ceilings", machine),
                     gpu=read.machine_label(r),
                     runs={n: across.datas(f"torch_compile.{n}", machine) for n in ("mlp_profile", "compile_time",
                                                                                     "recompiles")})


FORMATS = {  # how each measured figure reads on the page (kernelbook.macros); counts read as integers
    "norm_row_kb": "num:0", "kernel_xnumel": "plain", "kernel_rnumel": "plain",  # as the kernel's source writes them
    "one_saved_us": "num:1", "one_eager_us": "num:1", "one_compiled_us": "num:1", "one_saved_share": "pct:1",
    "eager_kernel_us_low": "num:1", "eager_kernel_us_high": "num:1",
    "one_host_eager_us": "num:0", "one_host_compiled_us": "num:0", "addmm_copy_us": "num:1",
    "big_saved_us": "num:1", "big_eager_us": "num:1", "big_compiled_us": "num:1", "big_saved_share": "pct:1",
    "laptop_big_saved_share": "pct:0",
    "big_gemm_share_eager": "pct:0", "big_gemm_share_compiled": "pct:0",
    "norm_cold_s": "num:2", "norm_warm_s": "num:2", "decode_cold_low": "num:0", "decode_cold_high": "num:0",
    "decode_warm_low": "num:1", "decode_warm_high": "num:1",
    **dict.fromkeys((f"{p}_{w}_s" for p in DECODE_FIELDS.values() for w in ("cold", "warm")), "num:1"),
    "recompile_s": "num:2", "later_first_ms": "num:1", "later_last_ms": "num:1",
}


def _decode_times(f: Facts, when: str) -> dict[str, float]:
    """Each decode mode's compile time `when` ("cold", "warm") as the table shows it, where measured."""
    out = {m: getattr(f, f"{p}_{when}_s") for m, p in DECODE_FIELDS.items()}
    return {m: x for m, x in out.items() if x is not None}


def derive(f: Facts) -> dict[str, Any]:
    """What the page prints beside figures, from the medians shown: the time saved is eager's minus compiled's
    (at both sizes, as the profile table shows them), its share of eager's is that difference over eager's; the
    decode step's compile times run from the fastest mode's median to the slowest's, as the table lists them."""
    one = f.one_eager_us - f.one_compiled_us  # the page prints all three at one token
    big = f.big_eager_us - f.big_compiled_us
    cold, warm = _decode_times(f, "cold"), _decode_times(f, "warm")
    return {"one_saved_us": one, "one_saved_share": one / f.one_eager_us,
            "one_saved_vs_laptop": range_of(one, f.laptop_one_saved_low, f.laptop_one_saved_high),
            "big_saved_us": big, "big_saved_share": big / f.big_eager_us,
            "big_saving_vs_laptop": versus(big / f.big_eager_us, f.laptop_big_saved_share),
            "decode_cold_low": min(cold.values()), "decode_cold_high": max(cold.values()),
            "decode_cold_slowest": max(cold, key=lambda m: cold[m]),
            "decode_cold_above_laptop": max(cold.values()) > f.laptop_decode_cold_high,
            "decode_warm_low": min(warm.values()), "decode_warm_high": max(warm.values()),
            "decode_warm_above_laptop": max(warm.values()) > f.laptop_decode_warm_high}


_COLD = tuple(f"{p}_cold_s" for p in DECODE_FIELDS.values())
_WARM = tuple(f"{p}_warm_s" for p in DECODE_FIELDS.values())
DERIVED_FROM = {"one_saved_us": ("one_eager_us", "one_compiled_us"),
                "one_saved_share": ("one_eager_us", "one_compiled_us"),
                "one_saved_vs_laptop": ("one_eager_us", "one_compiled_us", "laptop_one_saved_low",
                                        "laptop_one_saved_high"),
                "big_saved_us": ("big_eager_us", "big_compiled_us"),
                "big_saving_vs_laptop": ("big_eager_us", "big_compiled_us", "laptop_big_saved_share"),
                "big_saved_share": ("big_eager_us", "big_compiled_us"),
                **dict.fromkeys(("decode_cold_low", "decode_cold_high", "decode_cold_slowest"), _COLD),
                "decode_cold_above_laptop": (*_COLD, "laptop_decode_cold_high"),
                **dict.fromkeys(("decode_warm_low", "decode_warm_high"), _WARM),
                "decode_warm_above_laptop": (*_WARM, "laptop_decode_warm_high")}
