"""The claims ledger: each measurable claim of the source article, written as a check over stored results.

A claim names the experiments it reads, quotes the article's laptop figure from the published record beside them,
computes our figure from a machine's measured record, and says whether the claim holds there, by a test stated
with it. Nothing here measures: it reads results/, so the ledger page, the home page and the takeaways all give the
same verdicts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernelbook import store
from kernelbook.chapters.allocator.checks import rule_checks
from kernelbook.decode import report

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
HOLDS, FAILS, MISSING = "holds", "does not hold", "not measured"

Data = dict[str, Any]  # experiment name -> that experiment's data on one machine


@dataclass(frozen=True)
class Claim:
    id: str
    page: str  # the chapter that measures it
    text: str  # the article's claim, in our words
    test: str  # what "holds" means here
    needs: tuple[str, ...]
    laptop: Callable[[Data], str]  # the article's figure, from the published records
    ours: Callable[[Data], tuple[str, bool]]  # (our figure, whether the claim holds)


def _f(x: float, d: int = 1) -> str:
    return f"{x:,.{d}f}"


def _ver(d: Data, op: str, key: str) -> Data:
    return next(v for v in d["fusing_by_hand.versions"]["versions"] if v["op"] == op and v["key"] == key)


def _six(d: Data) -> dict[str, Data]:
    return report.summaries(d["decode.six_ways"])


def _copies(d: Data) -> list[Data]:
    return [k for k in d["torch_compile.mlp_profile"]["by_tokens"]["1"]["compiled"]["kernels"] if k["family"] == "copy"]


def _cold(d: Data) -> list[float]:
    """Cold compile seconds: the modes measured both ways first, then max-autotune from the decode chapter's run."""
    cw = d["decode.compile_warm"]
    return ([cw["cold"]["modes"][m]["compile_s"] for m in cw["modes"]]
            + [d["decode.six_ways"]["setup"]["compile_max_autotune"]["compile_s"]])


def _warm(d: Data) -> list[float]:
    cw = d["decode.compile_warm"]
    return [cw["warm"]["modes"][m]["compile_s"] for m in cw["modes"]]


def _bias_cublas(d: Data) -> int:
    top = d["decode.six_ways"]["kernel_mix"]["compile_max_autotune"]["top"]
    return sum(k["count"] for k in top if "bias" in k["name"] and not k["name"].startswith("triton_"))


def _gain(d: Data) -> float:
    """max-autotune's step minus reduce-overhead's, ms."""
    return _six(d)["compile_max_autotune"]["step_ms"] - _six(d)["compile_reduce_overhead"]["step_ms"]


def _y_worst(d: Data) -> Data:
    return max((s["y"] for s in d["fusing_by_hand.exactness"]["triton"]), key=lambda c: c["max_steps"])


def _steps(a: str, sep: str, b: str, holds: Callable[[float, float], bool]) -> tuple[Callable, Callable]:
    """(published, measured) for a claim comparing two decode variants' step times: "a ms<sep>b ms"."""
    def published(p: Data) -> str:
        v = p["decode.six_ways"]["variants"]
        return f"{v[a]['step_ms']}{sep}{v[b]['step_ms']} ms"

    def measured(d: Data) -> tuple[str, bool]:
        x, y = _six(d)[a]["step_ms"], _six(d)[b]["step_ms"]
        return f"{_f(x, 2)}{sep}{_f(y, 2)} ms", holds(x, y)
    return published, measured


def _frag(d: Data) -> Data:
    return d["allocator.fragmentation"]["default"]["checkpoints"][-1]


MiB = 1 << 20

CLAIMS: tuple[Claim, ...] = (
    Claim("ridge", "machine.md", "Elementwise work sits about a hundred times below the ridge point",
          "SwiGLU's fused intensity at least 50× below the measured ridge",
          ("machine.ceilings", "memory_bound.eager_bytes"),
          lambda p: f"ridge {p['machine.ceilings']['ridge_flop_per_byte']}, "
                    f"SwiGLU {p['memory_bound.eager_bytes']['swiglu_flop_per_byte']} FLOP/B",
          lambda d: (f"ridge {_f(d['machine.ceilings']['ridge_flop_per_byte'], 0)}, SwiGLU "
                     f"{_f(d['memory_bound.eager_bytes']['swiglu_intensity']['fused_flop_per_byte'], 2)} FLOP/B",
                     d["machine.ceilings"]["ridge_flop_per_byte"] / d["memory_bound.eager_bytes"]["swiglu_intensity"][
                         "fused_flop_per_byte"] >= 50)),
    Claim("kernels", "memory-bound.md", "Qwen2's residual add + RMSNorm launches 9 kernels in eager PyTorch",
          "the same count", ("memory_bound.eager_bytes",),
          lambda p: f"{p['memory_bound.eager_bytes']['add_rmsnorm_kernels']} kernels",
          lambda d: (f"{d['memory_bound.eager_bytes']['chains']['add_rmsnorm']['count']} kernels",
                     d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]["count"] == 9)),
    Claim("bytes", "memory-bound.md", "…which move 42 bytes per element, against 8 for one fused kernel",
          "the same counts, rounded", ("memory_bound.eager_bytes",),
          lambda p: f"{p['memory_bound.eager_bytes']['add_rmsnorm_bytes_per_elem']} vs "
                    f"{p['memory_bound.eager_bytes']['add_rmsnorm_fused_bytes_per_elem']} B/elem",
          lambda d: (f"{_f(d['memory_bound.eager_bytes']['chains']['add_rmsnorm']['bytes_per_elem'])} vs "
                     f"{_f(d['memory_bound.eager_bytes']['chains']['add_rmsnorm']['fused_bytes_per_elem'])} B/elem",
                     round(d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]["bytes_per_elem"]) == 42
                     and round(d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]["fused_bytes_per_elem"]) == 8)),
    Claim("swiglu-bytes", "memory-bound.md", "Eager SwiGLU moves 10 bytes per element in 2 kernels, against 6 fused",
          "the same counts", ("memory_bound.eager_bytes",),
          lambda p: f"{p['memory_bound.eager_bytes']['swiglu_bytes_per_elem']} vs "
                    f"{p['memory_bound.eager_bytes']['swiglu_fused_bytes_per_elem']} B/elem",
          lambda d: (f"{_f(d['memory_bound.eager_bytes']['chains']['swiglu']['bytes_per_elem'])} vs "
                     f"{_f(d['memory_bound.eager_bytes']['chains']['swiglu']['fused_bytes_per_elem'])} B/elem",
                     d["memory_bound.eager_bytes"]["chains"]["swiglu"]["bytes_per_elem"] == 10
                     and d["memory_bound.eager_bytes"]["chains"]["swiglu"]["count"] == 2
                     and d["memory_bound.eager_bytes"]["chains"]["swiglu"]["fused_bytes_per_elem"] == 6)),
    Claim("bytes-predict-time", "memory-bound.md", "Eager add + RMSNorm takes its bytes over the bandwidth",
          "measured time within 10% of bytes ÷ the copy bandwidth", ("memory_bound.eager_bytes",),
          lambda p: f"{p['memory_bound.eager_bytes']['add_rmsnorm_predicted_ms']} ms predicted; "
                    "every kernel at the ceiling",
          lambda d: (f"{_f(d['memory_bound.eager_bytes']['chains']['add_rmsnorm']['bench']['median'], 3)} ms measured, "
                     f"{_f(d['memory_bound.eager_bytes']['chains']['add_rmsnorm']['predicted_us'] / 1e3, 3)} predicted",
                     d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]["bench"]["median"] * 1e3
                     <= 1.1 * d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]["predicted_us"])),
    # --8<-- [start:speedup]
    Claim("speedup", "fusing-by-hand.md", "The fused Triton kernel runs add + RMSNorm about 5× faster than eager",
          "at least 4× faster", ("fusing_by_hand.versions",),
          lambda p: f"{p['fusing_by_hand.versions']['add_rmsnorm_speedup']}×",
          lambda d: (f"{_f(_ver(d, 'add_rmsnorm', 'triton')['speedup'])}×",
                     _ver(d, "add_rmsnorm", "triton")["speedup"] >= 4)),
    # --8<-- [end:speedup]
    Claim("swiglu-cut", "fusing-by-hand.md", "Fusing SwiGLU cuts its time by about 40%",
          "a cut of 30% to 50%", ("fusing_by_hand.versions",),
          lambda p: f"−{p['fusing_by_hand.versions']['swiglu_time_cut'] * 100:.0f}%",
          lambda d: (f"−{(1 - 1 / _ver(d, 'swiglu', 'triton')['speedup']) * 100:.0f}%",
                     0.3 <= 1 - 1 / _ver(d, "swiglu", "triton")["speedup"] <= 0.5)),
    Claim("same-bandwidth", "fusing-by-hand.md",
          "Every version, eager or fused, moves its bytes at the copy ceiling",
          "every version's actual GB/s within 10% of the same-run copy", ("fusing_by_hand.versions",),
          lambda p: f"all at {p['fusing_by_hand.versions']['actual_gbps_low']}–"
                    f"{p['fusing_by_hand.versions']['actual_gbps_high']} "
                    "GB/s",
          lambda d: (f"{min(v['share_of_copy'] for v in d['fusing_by_hand.versions']['versions']) * 100:.0f}% to "
                     f"{max(v['share_of_copy'] for v in d['fusing_by_hand.versions']['versions']) * 100:.0f}% "
                     "of the copy",
                     min(v["share_of_copy"] for v in d["fusing_by_hand.versions"]["versions"]) >= 0.9)),
    Claim("compiled-ties", "fusing-by-hand.md", "torch.compile's add + RMSNorm ties the hand-written kernel",
          "within 1%, or within the compiled version's spread over rounds", ("fusing_by_hand.versions",),
          lambda p: f"within {p['fusing_by_hand.versions']['compiled_vs_triton_within'] * 100:.1f}%",
          lambda d: (f"{(_ver(d, 'add_rmsnorm', 'compiled')['time']['median'] / _ver(d, 'add_rmsnorm', 'triton')['time']['median'] - 1) * 100:+.1f}% "  # noqa: E501
                     f"(spread ±{_ver(d, 'add_rmsnorm', 'compiled')['time']['spread_pct'] / 2:.1f}%)",
                     abs(_ver(d, "add_rmsnorm", "compiled")["time"]["median"]
                         / _ver(d, "add_rmsnorm", "triton")["time"]["median"] - 1)
                     <= max(0.01, _ver(d, "add_rmsnorm", "compiled")["time"]["spread_pct"] / 200))),
    Claim("exact-h", "fusing-by-hand.md", "The fused kernel's new residual is bit-identical to eager",
          "identical at every shape checked", ("fusing_by_hand.exactness",),
          lambda p: "bit for bit" if p["fusing_by_hand.exactness"]["h_bit_identical"] else "no",
          lambda d: ("bit for bit" if all(s["h"]["bit_identical"] for s in d["fusing_by_hand.exactness"]["triton"])
                     else "differs", all(s["h"]["bit_identical"] for s in d["fusing_by_hand.exactness"]["triton"]))),
    Claim("exact-y", "fusing-by-hand.md", "…and its normalised output is within one bf16 rounding step",
          "at most one step at every shape", ("fusing_by_hand.exactness",),
          lambda p: f"{p['fusing_by_hand.exactness']['y_max_steps']} step, "
                    f"max {p['fusing_by_hand.exactness']['y_max_abs']}",
          lambda d: (f"{_y_worst(d)['max_steps']} steps, max {_f(_y_worst(d)['max_abs'], 4)}",
                     _y_worst(d)["max_steps"] <= 1)),
    Claim("one-kernel", "torch-compile.md", "torch.compile writes add + RMSNorm as a single Triton kernel",
          "one kernel", ("torch_compile.codegen",),
          lambda p: f"{p['torch_compile.codegen']['add_rmsnorm_kernels']} kernel",
          lambda d: (f"{d['torch_compile.codegen']['add_rmsnorm']['summary']['kernel_count']} kernel",
                     d["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernel_count"] == 1)),
    Claim("chunked", "torch-compile.md", "…that walks each row in chunks and reads the new residual back",
          "two loops over the row and a stored pointer loaded again", ("torch_compile.codegen",),
          lambda p: "two passes, h re-read",
          lambda d: (f"{d['torch_compile.codegen']['add_rmsnorm']['summary']['kernels'][0]['loops']} loops, re-reads "
                     f"{', '.join(d['torch_compile.codegen']['add_rmsnorm']['summary']['kernels'][0]['stored_then_reloaded']) or 'nothing'}",  # noqa: E501
                     d["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernels"][0]["chunked"]
                     and bool(d["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernels"][0][
                         "stored_then_reloaded"]))),
    Claim("matmuls-extern", "torch-compile.md",
          "In the MLP half, the matrix products go to cuBLAS and the elementwise work to 2 Triton kernels",
          "the same extern calls and kernel count", ("torch_compile.codegen",),
          lambda p: f"{p['torch_compile.codegen']['mlp_1token_triton_kernels']} Triton + "
                    f"{', '.join(p['torch_compile.codegen']['mlp_1token_extern'])}",
          lambda d: (f"{d['torch_compile.codegen']['mlp_1token']['summary']['kernel_count']} Triton + "
                     f"{', '.join(d['torch_compile.codegen']['mlp_1token']['summary']['call']['extern_calls'])}",
                     d["torch_compile.codegen"]["mlp_1token"]["summary"]["kernel_count"] == 2
                     and sorted(d["torch_compile.codegen"]["mlp_1token"]["summary"]["call"]["extern_calls"])
                     == ["addmm", "mm", "mm"])),
    Claim("saved-1", "torch-compile.md", "At one token, fusion saves 11 to 16 µs of GPU time per MLP half",
          "a saving between half the low end and twice the high end", ("torch_compile.mlp_profile",),
          lambda p: f"{p['torch_compile.mlp_profile']['saved_us_1token_low']}–"
                    f"{p['torch_compile.mlp_profile']['saved_us_1token_high']} µs",
          lambda d: (f"{_f(d['torch_compile.mlp_profile']['by_tokens']['1']['saved_us'])} µs",
                     5.5 <= d["torch_compile.mlp_profile"]["by_tokens"]["1"]["saved_us"] <= 32)),
    Claim("saved-2048", "torch-compile.md", "At 2,048 tokens fusion saves only about 5%: the matmuls dominate",
          "a saving under 10% of eager's GPU time", ("torch_compile.mlp_profile",),
          lambda p: f"{p['torch_compile.mlp_profile']['saved_pct_2048']}%",
          lambda d: (f"{d['torch_compile.mlp_profile']['by_tokens']['2048']['saved_us'] / d['torch_compile.mlp_profile']['by_tokens']['2048']['eager']['busy_us'] * 100:.1f}%",  # noqa: E501
                     d["torch_compile.mlp_profile"]["by_tokens"]["2048"]["saved_us"]
                     < 0.1 * d["torch_compile.mlp_profile"]["by_tokens"]["2048"]["eager"]["busy_us"])),
    Claim("compile-cold", "torch-compile.md", "Compiling add + RMSNorm on a cold cache takes about 2.5 s",
          "between half and twice that", ("torch_compile.compile_time",),
          lambda p: f"{p['torch_compile.compile_time']['add_rmsnorm_cold_s']} s",
          lambda d: (f"{_f(d['torch_compile.compile_time']['add_rmsnorm']['cold']['first_call_s'], 2)} s",
                     1.25 <= d["torch_compile.compile_time"]["add_rmsnorm"]["cold"]["first_call_s"] <= 5)),
    Claim("recompile", "torch-compile.md",
          "Going from 1 to 2 tokens recompiles once; 3 and 64 tokens then compile nothing",
          "graphs compiled per call: 1, 1, 0, 0", ("torch_compile.recompiles",),
          lambda p: f"recompile {p['torch_compile.recompiles']['recompile_s']} s",
          lambda d: (f"{', '.join(str(c['graphs_compiled']) for c in d['torch_compile.recompiles']['calls'])}; "
                     f"recompile {_f(d['torch_compile.recompiles']['calls'][1]['seconds'], 2)} s",
                     [c["graphs_compiled"] for c in d["torch_compile.recompiles"]["calls"]] == [1, 1, 0, 0])),
    Claim("graph-break", "torch-compile.md", "A branch on .item() splits the function into 2 graphs with 1 break",
          "the same counts", ("torch_compile.graph_breaks",),
          lambda p: f"{p['torch_compile.graph_breaks']['graph_count']} graphs, "
                    f"{p['torch_compile.graph_breaks']['graph_break_count']} break",
          lambda d: (f"{d['torch_compile.graph_breaks']['checked']['graph_count']} graphs, "
                     f"{d['torch_compile.graph_breaks']['checked']['graph_break_count']} break",
                     (d["torch_compile.graph_breaks"]["checked"]["graph_count"],
                      d["torch_compile.graph_breaks"]["checked"]["graph_break_count"]) == (2, 1))),
    Claim("decode-one-graph", "torch-compile.md", "The static-cache decode step is one graph of about 1,089 operations",
          "1 graph, 0 breaks, operations within 2%", ("decode.constraints",),
          lambda p: f"1 graph, 0 breaks, {p['decode.constraints']['explain']['op_count']:,} ops",
          lambda d: (f"{d['decode.constraints']['explain']['graph_count']} graph, "
                     f"{d['decode.constraints']['explain']['graph_break_count']} breaks, "
                     f"{d['decode.constraints']['explain']['op_count']:,} ops",
                     d["decode.constraints"]["explain"]["graph_count"] == 1
                     and d["decode.constraints"]["explain"]["graph_break_count"] == 0
                     and abs(d["decode.constraints"]["explain"]["op_count"] / 1089 - 1) <= 0.02)),
    Claim("big-gpu", "torch-compile.md", "Inductor tries Triton matmul templates only on GPUs with 68 SMs or more",
          "the threshold read from torch is 68", ("torch_compile.modes",),
          lambda p: f"{p['torch_compile.modes']['min_sms']} SMs wanted, {p['torch_compile.modes']['sm_count']} present",
          lambda d: (f"{d['torch_compile.modes']['threshold']['min_sms']} wanted, "
                     f"{d['torch_compile.modes']['sm_count']} present",
                     d["torch_compile.modes"]["threshold"]["min_sms"] == 68)),
    Claim("launch", "machine.md", "Replayed from a CUDA graph, tiny kernels run 8 to 9 times faster",
          "at least 5× faster", ("machine.ceilings",),
          lambda p: f"{p['machine.ceilings']['graph_speedup_low']}–{p['machine.ceilings']['graph_speedup_high']}×",
          lambda d: (f"{_f(d['machine.ceilings']['launch']['speedup'])}×",
                     d["machine.ceilings"]["launch"]["speedup"] >= 5)),
    Claim("static-slower", "decode.md", "A StaticCache makes eager decode slower",
          "eager StaticCache step slower than eager default cache", ("decode.six_ways",),
          *_steps("eager_static", " vs ", "eager_dynamic", lambda a, b: a > b)),
    Claim("graph-step", "decode.md", "Capturing the static step in a CUDA graph makes it much faster",
          "the hand graph at least 1.5× faster than eager StaticCache", ("decode.six_ways",),
          *_steps("eager_static", " → ", "cuda_graph", lambda a, b: a >= 1.5 * b)),
    Claim("default-mode", "decode.md",
          "torch.compile's default mode fuses but still launches from Python: slower than a plain graph",
          "default-mode step slower than the hand graph", ("decode.six_ways",),
          *_steps("compile_default", " vs ", "cuda_graph", lambda a, b: a > b)),
    Claim("reduce-overhead", "decode.md", "reduce-overhead, fusion plus graphs, beats the hand-captured graph",
          "reduce-overhead step faster than the hand graph", ("decode.six_ways",),
          *_steps("compile_reduce_overhead", " vs ", "cuda_graph", lambda a, b: a < b)),
    Claim("max-autotune", "decode.md", "max-autotune takes a little more off reduce-overhead's step",
          "max-autotune step faster than reduce-overhead", ("decode.six_ways",),
          lambda p: f"−{p['decode.six_ways']['ma_gain_over_ro_ms']} ms",
          lambda d: (f"{_gain(d):+.2f} ms", _gain(d) < 0)),
    Claim("floor", "decode.md", "With graphs and fusion, batch-1 decode reaches about 90% of the bandwidth floor",
          "the best valid step at 80% of the floor or more", ("decode.six_ways",),
          lambda p: f"{p['decode.six_ways']['variants']['compile_max_autotune']['floor_share'] * 100:.0f}%",
          lambda d: (f"{report.best_valid(d['decode.six_ways'])['floor_share'] * 100:.0f}%",
                     report.best_valid(d["decode.six_ways"])["floor_share"] >= 0.8)),
    Claim("rms-norm-one-kernel", "fusing-by-hand.md", "PyTorch's F.rms_norm is already one fused kernel",
          "the add and F.rms_norm together launch 2 kernels", ("fusing_by_hand.versions",),
          lambda p: f"{p['fusing_by_hand.versions']['rms_norm_kernels']} kernel for the norm",
          lambda d: (f"{_ver(d, 'add_rmsnorm', 'rms_norm')['kernels']} kernels with the add",
                     _ver(d, "add_rmsnorm", "rms_norm")["kernels"] == 2)),
    Claim("addmm-copy", "torch-compile.md", "Folding the last residual add into addmm costs one small copy",
          "one device-to-device copy of under 3 µs in the compiled one-token call", ("torch_compile.mlp_profile",),
          lambda p: f"{p['torch_compile.mlp_profile']['addmm_copy_us']} µs",
          lambda d: (", ".join(f"{_f(k['us'])} µs" for k in _copies(d)) or "no copy",
                     len(_copies(d)) == 1 and _copies(d)[0]["us"] < 3)),
    Claim("decode-compile", "torch-compile.md",
          "Compiling the decode step takes 31 to 63 s cold and 3 to 5 s with a warm cache",
          "a warm compile at most a fifth of the cold one, in every mode measured both ways",
          ("decode.compile_warm", "decode.six_ways"),
          lambda p: f"{p['decode.compile_warm']['cold_s_low']}–{p['decode.compile_warm']['cold_s_high']} s cold, "
                    f"{p['decode.compile_warm']['warm_s_low']}–{p['decode.compile_warm']['warm_s_high']} s warm",
          lambda d: (f"{_f(min(_cold(d)), 0)}–{_f(max(_cold(d)), 0)} s cold, "
                     f"{_f(min(_warm(d)), 1)}–{_f(max(_warm(d)), 1)} s warm",
                     all(w <= c / 5 for w, c in zip(_warm(d), _cold(d)[:len(_warm(d))], strict=False)))),
    Claim("capture-time", "decode.md", "Capturing the static decode step takes a fraction of a second",
          "under 1 s", ("decode.six_ways",),
          lambda p: f"{p['decode.six_ways']['variants']['cuda_graph']['setup_s']} s",
          lambda d: (f"{_f(d['decode.six_ways']['setup']['cuda_graph']['capture_s'], 2)} s",
                     d["decode.six_ways"]["setup"]["cuda_graph"]["capture_s"] < 1)),
    Claim("static-extra", "decode.md", "The StaticCache adds about 229 kernels to each eager step",
          "within 10% of 229", ("decode.six_ways",),
          lambda p: f"+{p['decode.six_ways']['static_extra_kernels']}",
          lambda d: (f"+{_f(_six(d)['eager_static']['kernels'] - _six(d)['eager_dynamic']['kernels'], 0)}",
                     abs((_six(d)["eager_static"]["kernels"] - _six(d)["eager_dynamic"]["kernels"]) / 229 - 1) <= 0.1)),
    Claim("fused-kernels", "decode.md", "Compiling cuts the step from about 1,374 kernels to about 509",
          "compiled (default mode) between a fifth and a half of eager StaticCache's kernels", ("decode.six_ways",),
          lambda p: f"{p['decode.six_ways']['variants']['eager_static']['kernels']:,} → "
                    f"{p['decode.six_ways']['variants']['compile_default']['kernels']}",
          lambda d: (f"{_f(_six(d)['eager_static']['kernels'], 0)} → {_f(_six(d)['compile_default']['kernels'], 0)}",
                     0.2 <= _six(d)["compile_default"]["kernels"] / _six(d)["eager_static"]["kernels"] <= 0.5)),
    Claim("bias-on-cublas", "torch-compile.md",
          "Under max-autotune only the 84 projections with a bias (q, k, v) stay with cuBLAS",
          "84 cuBLAS matmul kernels with a bias per step", ("decode.six_ways", "torch_compile.modes"),
          lambda p: f"{p['torch_compile.modes']['decode_projections_on_cublas']} on cuBLAS",
          lambda d: (f"{_bias_cublas(d)} on cuBLAS", _bias_cublas(d) == 84)),
    Claim("eager-floor", "decode.md", "Eager decode reaches about half of the bandwidth floor",
          "eager (default cache) at 40% of the floor or more", ("decode.six_ways",),
          lambda p: f"{p['decode.six_ways']['variants']['eager_dynamic']['floor_share'] * 100:.0f}%",
          lambda d: (f"{_six(d)['eager_dynamic']['floor_share'] * 100:.0f}%",
                     _six(d)["eager_dynamic"]["floor_share"] >= 0.4)),
    Claim("rules", "allocator.md",
          "The allocator rounds to 512 B, packs ≤1 MiB into 2 MiB segments, gives 1–10 MiB requests 20 MiB ones",
          "every stated rule obeyed by the measured segments", ("allocator.segments",),
          lambda p: f"stated: {p['allocator.segments']['rounding_bytes']} B, "
                    f"{p['allocator.segments']['small_segment_mib']} MiB, "
                    f"{p['allocator.segments']['mid_segment_mib']} MiB",
          lambda d: (f"{sum(ok for _, ok in rule_checks(d['allocator.segments']))} of "
                     f"{len(rule_checks(d['allocator.segments']))} rules obeyed",
                     all(ok for _, ok in rule_checks(d["allocator.segments"])))),
    Claim("oom", "allocator.md", "Split blocks make a 200 MiB request fail with 896 MiB reserved but unallocated",
          "out of memory, with the same unallocated bytes", ("allocator.fragmentation",),
          lambda p: f"OOM with {p['allocator.fragmentation']['oom_unallocated_mib']} MiB free",
          lambda d: (f"{'OOM' if _frag(d)['error'] else 'no OOM'} with "
                     f"{(_frag(d)['reserved'] - _frag(d)['allocated']) // MiB} MiB free",
                     bool(_frag(d)["error"]) and (_frag(d)["reserved"] - _frag(d)["allocated"]) == 896 * MiB)),
    Claim("expandable", "allocator.md", "expandable_segments:True lets the same script succeed",
          "no error, same allocated and reserved bytes", ("allocator.fragmentation",),
          lambda p: f"{p['allocator.fragmentation']['expandable_allocated_mib']:,} MiB in "
                    f"{p['allocator.fragmentation']['expandable_reserved_mib']:,} MiB",
          lambda d: (f"{d['allocator.fragmentation']['expandable']['checkpoints'][-1]['allocated'] // MiB:,} MiB in "
                     f"{d['allocator.fragmentation']['expandable']['checkpoints'][-1]['reserved'] // MiB:,} MiB",
                     not d["allocator.fragmentation"]["expandable"]["checkpoints"][-1]["error"]
                     and d["allocator.fragmentation"]["expandable"]["checkpoints"][-1]["allocated"] == 1224 * MiB
                     and d["allocator.fragmentation"]["expandable"]["checkpoints"][-1]["reserved"] == 1922 * MiB)),
    Claim("cudafree-waits", "allocator.md", "Without the cache, cudaFree waits for queued GPU work",
          "an uncached free behind queued work takes at least 90% of that work's time", ("allocator.caching",),
          lambda p: "it waited" if p["allocator.caching"]["uncached_free_waited_for_queued_work"] else "no",
          lambda d: (f"{_f(d['allocator.caching']['uncached']['queued']['free_us'] / 1e3, 1)} ms behind "
                     f"{_f(d['allocator.caching']['uncached']['queued']['gpu_ms'], 1)} ms of work",
                     d["allocator.caching"]["uncached"]["queued"]["free_us"] / 1e3
                     >= 0.9 * d["allocator.caching"]["uncached"]["queued"]["gpu_ms"])),
)

BY_ID = {c.id: c for c in CLAIMS}


def _data(names: tuple[str, ...], machine: str) -> Data | None:
    out = {}
    for n in names:
        try:
            res = store.load(n, machine)
        except (FileNotFoundError, store.StoreError):
            return None
        out[n] = res.data
    return out


def judge(claim: Claim, data: Data) -> tuple[str, str]:
    """(our figure, holds / does not hold / not measured) from one machine's data by experiment; a claim whose
    experiments are not all in `data` is not measured. The summary pages' facts call this on results they loaded."""
    if any(n not in data for n in claim.needs):
        return "—", MISSING
    figure, ok = claim.ours(data)
    return figure, HOLDS if ok else FAILS


def verdict(claim: Claim, machine: str) -> tuple[str, str]:
    """(our figure, holds / does not hold / not measured) on one machine."""
    return judge(claim, _data(claim.needs, machine) or {})


def laptop_figure(claim: Claim) -> str:
    p = _data(claim.needs, LAPTOP)
    return claim.laptop(p) if p is not None else "—"


def measured_machines() -> list[str]:
    """Machines with at least one measured (not published) result."""
    out = []
    for m in store.machines():
        if m == LAPTOP:
            continue
        out.append(m)
    return out
