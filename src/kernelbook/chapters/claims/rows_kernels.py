"""The ledger's rows for the article's opening, Step 1 (elementwise work is memory-bound) and Step 2 (fusing by hand).

Each row is data: what the article says (in our words), the test, and how to read the laptop's figure from the
published records and ours from one run. verdicts.py decides; ledger.py gathers the rows.
"""

from __future__ import annotations

from kernelbook.chapters.speed_of_light.figures import ADD as SOL_ADD
from kernelbook.chapters.speed_of_light.figures import SWIGLU as SOL_SWIGLU
from kernelbook.chapters.speed_of_light.figures import compiled_over_fusion, fusion_versions, quiet

from .data import (
    AT_LEAST,
    BYTES,
    COUNT,
    OWN,
    RATIO,
    STEP1,
    STEP2,
    WHY,
    chain,
    diffs,
    gbps_rounds,
    idle_rounds,
    num,
    over_bytes,
    over_bytes_rounds,
    pairs,
    pct,
    quiet_chain,
    quiet_copy,
    quiet_steps,
    quiet_versions,
    ratios,
    six,
    spans,
    steps,
    times,
    version,
    version_times,
)
from .verdicts import exact, figure, relation

MB, FB, MC = "memory_bound.eager_bytes", "fusing_by_hand.versions", "machine.ceilings"
SIX, EX = "decode.six_ways", "fusing_by_hand.exactness"


def _worst_y(d):
    """The shape whose normalised output lies furthest (in bf16 steps) from eager's."""
    return max(d[EX]["triton"], key=lambda s: s["y"]["max_steps"])


def _shares(d):
    shares = [v["share_of_copy"] for v in d[FB]["versions"] if v["share_of_copy"] is not None]
    return min(shares), max(shares)


def _speedup(d, op):
    return version(d, op, "eager")["time"]["median"] / version(d, op, "triton")["time"]["median"]


# torch.compile against the fusion chapter's kernels, as every page gives it: GPU time by graph replay, in
# speed-of-light's rounds at the fusion chapter's shape (its own do_bench timings, taken from Python, keep the compiled
# call's host and guard cost inside the timer)
TIES_TEST = "compiled ÷ hand-written GPU time, by graph replay at the chapter's shape"


def _ties_versions(d, experiment):
    """(torch.compile, the fusion chapter's kernel) in one speed-of-light run, at the fusion chapter's shape."""
    return fusion_versions(d[experiment], experiment, *d[FB]["shape"])


def _ties(d, experiment):
    return compiled_over_fusion(d[experiment], experiment, *d[FB]["shape"])


ROWS = (
    figure("part4-launches", WHY, "decode.md",
           "An eager decode step of Qwen2.5-1.5B issues about 1,142 kernel launches",
           needs=(SIX,), value=lambda d: six(d)["eager_dynamic"]["launches"], fmt=num(0), band=COUNT,
           article=lambda p: p[SIX]["part4_eager_launches"]),
    figure("part4-idle", WHY, "decode.md",
           "During that step the GPU sits idle about 31% of the time while Python queues work",
           test="else: idle for part of it", needs=(SIX,), value=lambda d: six(d)["eager_dynamic"]["idle_share"],
           quiet=lambda d: quiet_steps(d, "eager_dynamic"),
           rounds=lambda d: idle_rounds(d, "eager_dynamic"),
           direction=lambda d: six(d)["eager_dynamic"]["idle_share"] > 0,
           fmt=pct(), band=RATIO, article=lambda p: p[SIX]["part4_eager_idle_share"]),

    figure("ridge", STEP1, "machine.md",
           "Elementwise work sits more than a hundred times below the ridge point",
           test="else: below the ridge",
           needs=(MC, MB), fmt=times(0), band=AT_LEAST, article=lambda p: 100.0,
           value=lambda d: d[MC]["ridge_flop_per_byte"] / d[MB]["swiglu_intensity"]["fused_flop_per_byte"],
           direction=lambda d: d[MC]["ridge_flop_per_byte"] > d[MB]["swiglu_intensity"]["fused_flop_per_byte"],
           laptop=lambda p: f"{p[MC]['ridge_flop_per_byte'] / p[MB]['swiglu_flop_per_byte']:,.0f}× "
                            f"(ridge {p[MC]['ridge_flop_per_byte']}, SwiGLU {p[MB]['swiglu_flop_per_byte']})",
           ours=lambda d: f"{d[MC]['ridge_flop_per_byte'] / d[MB]['swiglu_intensity']['fused_flop_per_byte']:,.0f}× "
                          f"(ridge {d[MC]['ridge_flop_per_byte']:,.0f}, "
                          f"SwiGLU {d[MB]['swiglu_intensity']['fused_flop_per_byte']:.2f})"),
    exact("laptop-roofline", STEP1, "machine.md",
          "The laptop's roofline: 25.3 BF16 TFLOPS against 248.7 GB/s of DRAM bandwidth",
          "figures of the laptop's own GPU", needs=(MC,), value=lambda d: True, applies=lambda d: False,
          unless="the laptop", laptop=lambda p: f"{p[MC]['bf16_tflops']} TFLOPS, {p[MC]['dram_gbps']} GB/s",
          ours=lambda d: f"{d[MC]['matmul']['tflops']:,.0f} TFLOPS, {d[MC]['bandwidth']['read']['gbps']:,.0f} GB/s "
                         "read"),
    exact("laptop-copy", STEP1, "machine.md", "On the laptop a copy's bandwidth levels off near 226 GB/s",
          "a figure of the laptop's own memory", needs=(MC,), value=lambda d: True, applies=lambda d: False,
          unless="the laptop", laptop=lambda p: f"{p[MC]['copy_gbps']} GB/s",
          ours=lambda d: f"{d[MC]['bandwidth']['copy']['gbps']:,.0f} GB/s copy"),
    exact("swiglu-intensity", STEP1, "memory-bound.md",
          "SwiGLU's activation does about 5 FLOPs per element over 6 bytes fused, under 1 FLOP per byte",
          "5 FLOP and 6 bytes per element", needs=(MB,),
          value=lambda d: (d[MB]["swiglu_intensity"]["flop_per_elem"],
                           d[MB]["swiglu_intensity"]["fused_bytes_per_elem"]),
          article=lambda p: (p[MB]["swiglu_flop_per_elem"], p[MB]["swiglu_fused_bytes_per_elem"]),
          laptop=lambda p: f"{p[MB]['swiglu_flop_per_elem']} FLOP / {p[MB]['swiglu_fused_bytes_per_elem']} B",
          ours=lambda d: f"{d[MB]['swiglu_intensity']['flop_per_elem']} FLOP / "
                         f"{d[MB]['swiglu_intensity']['fused_bytes_per_elem']:g} B"),
    relation("copy-below-read", STEP1, "machine.md",
             "Reading and writing together stream slower than reading alone (the article's copy figure, 226 GB/s, "
             "under its DRAM figure, 248.7 GB/s)",
             "read GB/s above copy GB/s in every pair of rounds", needs=(MC,),
             quiet=lambda d: d[MC]["bandwidth"]["read"].get("quiet", True) and quiet_copy(d, MC),
             rounds=lambda d: pairs(gbps_rounds(d[MC]["bandwidth"]["read"]), gbps_rounds(d[MC]["bandwidth"]["copy"])),
             laptop=lambda p: f"{p[MC]['copy_gbps']} vs {p[MC]['dram_gbps']} GB/s",
             ours=lambda d: f"{d[MC]['bandwidth']['copy']['gbps']:,.0f} vs {d[MC]['bandwidth']['read']['gbps']:,.0f} "
                            "GB/s"),
    exact("kernels", STEP1, "memory-bound.md", "Qwen2's eager residual add + RMSNorm runs as 9 kernels",
          "the same count", needs=(MB,), value=lambda d: chain(d, "add_rmsnorm")["count"],
          article=lambda p: p[MB]["add_rmsnorm_kernels"], laptop=lambda p: f"{p[MB]['add_rmsnorm_kernels']} kernels",
          ours=lambda d: f"{chain(d, 'add_rmsnorm')['count']} kernels"),
    exact("bytes", STEP1, "memory-bound.md",
          "Eager add + RMSNorm moves 42 bytes per element; one fused kernel needs 8",
          "the same bytes, to the nearest byte", needs=(MB,),
          value=lambda d: (round(chain(d, "add_rmsnorm")["bytes_per_elem"]),
                           round(chain(d, "add_rmsnorm")["fused_bytes_per_elem"])),
          article=lambda p: (p[MB]["add_rmsnorm_bytes_per_elem"], p[MB]["add_rmsnorm_fused_bytes_per_elem"]),
          laptop=lambda p: f"{p[MB]['add_rmsnorm_bytes_per_elem']} vs {p[MB]['add_rmsnorm_fused_bytes_per_elem']} B",
          ours=lambda d: f"{chain(d, 'add_rmsnorm')['bytes_per_elem']:.1f} vs "
                         f"{chain(d, 'add_rmsnorm')['fused_bytes_per_elem']:.1f} B"),
    exact("swiglu-bytes", STEP1, "memory-bound.md",
          "Eager SwiGLU takes 2 kernels and 10 bytes per element; fused, 6 bytes",
          "the same kernels and bytes", needs=(MB,),
          value=lambda d: (chain(d, "swiglu")["count"], round(chain(d, "swiglu")["bytes_per_elem"]),
                           round(chain(d, "swiglu")["fused_bytes_per_elem"])),
          article=lambda p: (p[MB]["swiglu_kernels"], p[MB]["swiglu_bytes_per_elem"],
                             p[MB]["swiglu_fused_bytes_per_elem"]),
          laptop=lambda p: f"{p[MB]['swiglu_kernels']} kernels, {p[MB]['swiglu_bytes_per_elem']} vs "
                           f"{p[MB]['swiglu_fused_bytes_per_elem']} B",
          ours=lambda d: f"{chain(d, 'swiglu')['count']} kernels, {chain(d, 'swiglu')['bytes_per_elem']:.1f} vs "
                         f"{chain(d, 'swiglu')['fused_bytes_per_elem']:.1f} B"),
    figure("bytes-predict-time", STEP1, "memory-bound.md",
           "Eager add + RMSNorm takes the time its bytes need at the copy bandwidth (6.2 ms on the laptop)",
           test="else: slower, never faster", needs=(MB,),
           quiet=lambda d: quiet_chain(d, "add_rmsnorm"),
           value=lambda d: over_bytes(d, "add_rmsnorm"), rounds=lambda d: over_bytes_rounds(d, "add_rmsnorm"),
           direction=lambda d: over_bytes(d, "add_rmsnorm") > 1, fmt=times(3), band=BYTES,
           article=lambda p: p[FB]["add_rmsnorm_eager_ms"] / p[MB]["add_rmsnorm_predicted_ms"],
           laptop=lambda p: f"{p[FB]['add_rmsnorm_eager_ms']} ms for {p[MB]['add_rmsnorm_predicted_ms']} predicted",
           ours=lambda d: f"{chain(d, 'add_rmsnorm')['bench']['median']:.3f} ms for "
                          f"{chain(d, 'add_rmsnorm')['predicted_us'] / 1e3:.3f} ({over_bytes(d, 'add_rmsnorm'):.3f}×)"),
    figure("bytes-predict-swiglu", STEP1, "memory-bound.md",
           "Eager SwiGLU, too, takes the time its bytes need at the copy bandwidth",
           test="else: slower, never faster", needs=(MB,),
           quiet=lambda d: quiet_chain(d, "swiglu"),
           value=lambda d: over_bytes(d, "swiglu"), rounds=lambda d: over_bytes_rounds(d, "swiglu"),
           direction=lambda d: over_bytes(d, "swiglu") > 1, fmt=times(3), band=BYTES, article=lambda p: 1.0,
           laptop=lambda p: "stated",
           ours=lambda d: f"{chain(d, 'swiglu')['bench']['median']:.3f} ms for "
                          f"{chain(d, 'swiglu')['predicted_us'] / 1e3:.3f} ({over_bytes(d, 'swiglu'):.3f}×)"),
    figure("bytes-predict-fused", STEP1, "fusing-by-hand.md",
           "The fused Triton add + RMSNorm takes the time its 8 bytes per element need (1.19 ms on the laptop)",
           test="else: slower, never faster", needs=(FB,),
           value=lambda d: 1 / version(d, "add_rmsnorm", "triton")["share_of_copy"],
           quiet=lambda d: quiet_versions(d, "add_rmsnorm", "triton") and quiet_copy(d, FB),
           rounds=lambda d: [x * d[FB]["copy"]["bytes_moved"] / version(d, "add_rmsnorm", "triton")["bytes_moved"]
                             for x in spans(version_times(d, "add_rmsnorm", "triton"), d[FB]["copy"]["values"])],
           direction=lambda d: version(d, "add_rmsnorm", "triton")["share_of_copy"] < 1, fmt=times(3), band=BYTES,
           article=lambda p: p[FB]["add_rmsnorm_triton_ms"] / p[MB]["add_rmsnorm_fused_predicted_ms"],
           laptop=lambda p: f"{p[FB]['add_rmsnorm_triton_ms']} ms for {p[MB]['add_rmsnorm_fused_predicted_ms']} "
                            "predicted",
           ours=lambda d: f"{version(d, 'add_rmsnorm', 'triton')['time']['median']:.3f} ms "
                          f"({1 / version(d, 'add_rmsnorm', 'triton')['share_of_copy']:.3f}×)"),

    exact("exact-h", STEP2, "fusing-by-hand.md", "The fused kernel's new residual is bit-identical to eager's",
          "identical at every shape checked", needs=(EX,),
          value=lambda d: all(s["h"]["bit_identical"] for s in d[EX]["triton"]),
          laptop=lambda p: "bit for bit" if p[EX]["h_bit_identical"] else "differs",
          ours=lambda d: "bit for bit" if all(s["h"]["bit_identical"] for s in d[EX]["triton"]) else "differs"),
    exact("exact-y", STEP2, "fusing-by-hand.md",
          "The fused kernel's normalised output is at most one bf16 rounding step from eager's",
          "at most one step at every shape checked", needs=(EX,),
          value=lambda d: _worst_y(d)["y"]["max_steps"] <= 1,
          laptop=lambda p: f"{steps(p[EX]['y_max_steps'])}, at most {p[EX]['y_max_abs']}",
          ours=lambda d: f"{steps(_worst_y(d)['y']['max_steps'])}, at most {_worst_y(d)['y']['max_abs']:.4g} "
                         f"({_worst_y(d)['shape'][0]:,} × {_worst_y(d)['shape'][1]:,})"),
    figure("y-step", STEP2, "fusing-by-hand.md", "The largest difference between the fused and eager y is 0.031",
           test="else: at most one step", needs=(EX,), value=lambda d: _worst_y(d)["y"]["max_abs"],
           direction=lambda d: _worst_y(d)["y"]["max_steps"] <= 1, fmt=num(4), band=COUNT,
           article=lambda p: p[EX]["y_max_abs"],
           ours=lambda d: f"{_worst_y(d)['y']['max_abs']:.4g} ({steps(_worst_y(d)['y']['max_steps'])} of "
                          f"{_worst_y(d)['y']['step_at_max']:g} at |y| ≈ {_worst_y(d)['y']['ref_at_max']:g})"),
    figure("same-bandwidth", STEP2, "fusing-by-hand.md",
           "Eager and fused versions alike stream their actual bytes at the copy's rate",
           test="every version; the article's range ± 10%",
           needs=(FB,), value=_shares, fmt=pct(),
           band=BYTES, article=lambda p: (p[FB]["actual_gbps_low"] / p[MC]["copy_gbps"],
                                          p[FB]["actual_gbps_high"] / p[MC]["copy_gbps"]),
           laptop=lambda p: f"{p[FB]['actual_gbps_low']}–{p[FB]['actual_gbps_high']} GB/s (copy {p[MC]['copy_gbps']})"),
    # --8<-- [start:speedup]
    figure("speedup", STEP2, "fusing-by-hand.md",
           "Fused into a Triton kernel, add + RMSNorm gets about 5.2 times faster than eager",
           test="else: faster", needs=(FB,), value=lambda d: _speedup(d, "add_rmsnorm"),
           quiet=lambda d: quiet_versions(d, "add_rmsnorm", "eager", "triton"),
           rounds=lambda d: ratios(version_times(d, "add_rmsnorm", "eager"), version_times(d, "add_rmsnorm", "triton")),
           direction=lambda d: _speedup(d, "add_rmsnorm") > 1, fmt=times(1), band=RATIO,
           article=lambda p: p[FB]["add_rmsnorm_speedup"]),
    # --8<-- [end:speedup]
    figure("swiglu-cut", STEP2, "fusing-by-hand.md", "Fusing SwiGLU takes about 40% off its time",
           test="else: some cut", needs=(FB,), value=lambda d: 1 - 1 / _speedup(d, "swiglu"),
           quiet=lambda d: quiet_versions(d, "swiglu", "eager", "triton"),
           rounds=lambda d: [1 - x for x in ratios(version_times(d, "swiglu", "triton"),
                                                   version_times(d, "swiglu", "eager"))],
           direction=lambda d: _speedup(d, "swiglu") > 1, fmt=pct(), band=RATIO,
           article=lambda p: p[FB]["swiglu_time_cut"]),
    exact("rms-norm-one-kernel", STEP2, "fusing-by-hand.md", "F.rms_norm in PyTorch runs as one kernel already",
          "the add and F.rms_norm together: 2 kernels", needs=(FB,),
          value=lambda d: version(d, "add_rmsnorm", "rms_norm")["kernels"] == 2,
          laptop=lambda p: f"{p[FB]['rms_norm_kernels']} kernel for the norm",
          ours=lambda d: f"{version(d, 'add_rmsnorm', 'rms_norm')['kernels']} with the add"),
    relation("rms-norm-faster", STEP2, "fusing-by-hand.md",
             "The Qwen2 code's step-by-step RMSNorm is slower than calling F.rms_norm",
             "F.rms_norm faster in every round", needs=(FB,),
             quiet=lambda d: quiet_versions(d, "add_rmsnorm", "eager", "rms_norm"),
             rounds=lambda d: diffs(version_times(d, "add_rmsnorm", "eager"),
                                    version_times(d, "add_rmsnorm", "rms_norm")),
             laptop=lambda p: "stated",
             ours=lambda d: f"{version(d, 'add_rmsnorm', 'eager')['time']['median']:.3f} vs "
                            f"{version(d, 'add_rmsnorm', 'rms_norm')['time']['median']:.3f} ms"),
    figure("compiled-ties-norm", STEP2, "fusing-by-hand.md",
           "Compiled add + RMSNorm runs level with the hand-written kernel, within 0.2%",
           test=TIES_TEST, needs=(SOL_ADD, FB), value=lambda d: _ties(d, SOL_ADD),
           quiet=lambda d: all(quiet(t) for t in _ties_versions(d, SOL_ADD)),
           rounds=lambda d: ratios(*(t["values"] for t in _ties_versions(d, SOL_ADD))),
           fmt=num(3), band=OWN,
           article=lambda p: (1 - p[FB]["compiled_vs_triton_within"], 1 + p[FB]["compiled_vs_triton_within"]),
           laptop=lambda p: f"within {p[FB]['compiled_vs_triton_within']:.1%}"),
    figure("compiled-ties-swiglu", STEP2, "fusing-by-hand.md",
           "Compiled SwiGLU runs level with the hand-written kernel, within 0.2%",
           test=TIES_TEST, needs=(SOL_SWIGLU, FB), value=lambda d: _ties(d, SOL_SWIGLU),
           quiet=lambda d: all(quiet(t) for t in _ties_versions(d, SOL_SWIGLU)),
           rounds=lambda d: ratios(*(t["values"] for t in _ties_versions(d, SOL_SWIGLU))),
           fmt=num(3), band=OWN,
           article=lambda p: (1 - p[FB]["compiled_vs_triton_within"], 1 + p[FB]["compiled_vs_triton_within"]),
           laptop=lambda p: f"within {p[FB]['compiled_vs_triton_within']:.1%}"),
)
