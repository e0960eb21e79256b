"""The numbers and verdicts of docs/memory-bound.md, from memory_bound.eager_bytes and machine.ceilings on one
machine (and fusing_by_hand.versions, for the kernels F.rms_norm runs as), with the article's RTX 4060 Laptop figures
beside them (its eager_bytes, machine.ceilings and fusing_by_hand.versions records).

The prediction is a chain's (or a kernel's) bytes over the copy bandwidth measured in the same process. Whether the
clock agrees is decided here, within BAND, for each chain and for each kernel that streams the whole tensor; the
summary pages can read the same verdicts (`bytes_predict_time`, `norm_within_band`, `every_kernel_within_band`).

No sentence is written here: the page's Markdown reads these fields (`{{ f.norm_bytes }}`, in the text FORMATS
gives each) and names above each paragraph the GUARDS (guards.py) it rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import read
from kernelbook.chapters.machine.facts import FAR_BELOW

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
GIB = 1 << 30
# a measured time "is its bytes over the bandwidth" within this share of the prediction, either way: the claims
# ledger's test of the article's claim (`bytes-predict-time`)
BAND = 0.10
STREAMING = 1.0  # a kernel that moves at least this many bytes per element streams the whole tensor
VECTORIZED = "at::native::vectorized_elementwise_kernel"
LABELS = {  # data keys -> how the tables and sentences name them
    "add_rmsnorm": "add + Qwen2RMSNorm",
    "swiglu": "SwiGLU",
    "bfloat16": "bf16",
}
Versus = Literal["within", "slower", "faster"]


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    rows: int
    hidden: int
    dtype: str  # "bf16"
    transformers_version: str  # the transformers whose Qwen2RMSNorm ran
    copy_gbps: float  # the copy measured in the same process as the chains
    copy_gib_each_way: float
    copy_noise: float  # the copy's noise (relative standard deviation of its samples), as a share of its mean
    copy_samples: int  # do_bench medians behind the copy
    copy_quiet: bool  # the copy's samples stopped quiet
    profile_calls: int  # calls the profiler's per-kernel medians are taken over
    # bytes
    norm_kernels: int
    norm_bytes: float  # per element, eager add + Qwen2RMSNorm
    norm_fused_bytes: float  # ... and one fused kernel
    norm_bytes_ratio: float  # eager over fused
    laptop_norm_kernels: int
    laptop_norm_bytes: float
    laptop_norm_fused_bytes: float
    norm_as_laptop: bool  # the same kernel count and (rounded) byte counts as the article
    swiglu_kernels: int
    swiglu_bytes: float
    swiglu_fused_bytes: float
    laptop_swiglu_kernels: int
    laptop_swiglu_bytes: float
    laptop_swiglu_fused_bytes: float
    swiglu_as_laptop: bool
    # arithmetic intensity
    swiglu_flop_per_elem: int
    swiglu_flop_per_byte: float  # fused
    ridge: float  # machine.ceilings: its median matmul rate over its median copy, as the machine page prints it
    ceiling_tflops: float  # machine.ceilings: the matmul rate the ridge divides
    ceiling_copy_gbps: float  # machine.ceilings: the copy it divides by
    laptop_ridge: float  # the laptop's matmul over its copy
    laptop_ridge_published: float  # the article's figure: matmul over DRAM bandwidth
    ridge_over_intensity: float
    laptop_ridge_over_intensity: float
    far_below: int  # FAR_BELOW
    far_below_ridge: bool  # at least FAR_BELOW times below the ridge on both machines
    # the prediction, chain by chain (do_bench median against bytes over the same-run copy)
    band: float
    chain_rounds: int  # do_bench rounds behind each chain's measured time
    norm_predicted_ms: float
    norm_measured_ms: float
    norm_busy_ms: float  # the profiler's kernel times, summed
    norm_over_predicted: float  # measured over predicted
    norm_within_band: bool
    norm_versus: Versus
    norm_share_of_copy: float  # bytes moved over measured time, as a share of the copy
    norm_fused_predicted_ms: float
    swiglu_predicted_ms: float
    swiglu_measured_ms: float
    swiglu_busy_ms: float
    swiglu_over_predicted: float
    swiglu_within_band: bool
    swiglu_versus: Versus
    swiglu_share_of_copy: float
    bytes_predict_time: bool  # both chains within the band: "an elementwise chain's time is its bytes over bandwidth"
    laptop_bandwidth: float  # the copy rate the article predicted with
    laptop_norm_predicted_ms: float
    laptop_norm_measured_ms: float  # fusing_by_hand.versions: the eager chain's measured time
    laptop_norm_over_predicted: float
    laptop_within_band: bool
    laptop_norm_fused_predicted_ms: float
    # the prediction, kernel by kernel (profiler medians against each kernel's bytes over the copy)
    norm_streaming: int  # kernels that stream the whole tensor
    norm_streaming_within: int  # ... of them within the band
    norm_vectorized: int  # ... of them PyTorch ran as its vectorized elementwise kernel
    norm_streaming_over_predicted: float  # their summed time over their summed prediction
    norm_worst_index: int  # 1-based, in launch order: the streaming kernel furthest over its prediction
    norm_worst_op: str  # its ATen op, without "aten::"
    norm_worst_over_predicted: float
    norm_best_op: str  # the add + RMSNorm kernel that streams the tensor fastest against its bytes' time
    norm_best_over_predicted: float  # ... its time over its bytes' time at the copy rate (below 1: faster than a copy)
    norm_only_vectorized_keep_pace: bool  # the streaming kernels within the band are exactly the vectorized ones
    norm_has_tiny: bool  # some kernels touch one value per row
    norm_tiny: int
    norm_tiny_us: float  # their summed time
    swiglu_streaming: int
    swiglu_streaming_within: int
    swiglu_streaming_over_predicted: float
    kernels_streaming: int  # both chains
    kernels_outside_band: int
    every_kernel_within_band: bool  # every streaming kernel of both chains within the band
    # PyTorch's own norm (fusing_by_hand.versions: the residual add, then F.rms_norm in place of Qwen2RMSNorm)
    rms_norm_own_kernels: int  # the kernels F.rms_norm itself ran as: the version's, less the add's one


def _within(ratio: float) -> bool:
    return abs(ratio - 1) <= BAND


def _versus(ratio: float) -> Versus:
    return "within" if _within(ratio) else "slower" if ratio > 1 else "faster"


def _chain(c: dict[str, Any], gbps: float) -> dict[str, Any]:
    predicted_ms = c["predicted_us"] / 1e3
    ratio = c["bench"]["median"] / predicted_ms
    return {"predicted_ms": predicted_ms, "measured_ms": c["bench"]["median"], "busy_ms": c["busy_us"] / 1e3,
            "over_predicted": ratio, "within_band": _within(ratio), "versus": _versus(ratio),
            "share_of_copy": c["measured_gbps"] / gbps}


def _streaming(c: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, k) for i, k in enumerate(c["kernels"], 1) if k["bytes_per_elem"] >= STREAMING]


def _kernels(c: dict[str, Any]) -> dict[str, Any]:
    big = _streaming(c)
    tiny = [k for k in c["kernels"] if k["bytes_per_elem"] < STREAMING]
    ratio = {i: k["us"] / k["predicted_us"] for i, k in big}
    worst = max(ratio, key=ratio.__getitem__)
    best = min(ratio, key=ratio.__getitem__)
    return {"streaming": len(big), "streaming_within": sum(_within(x) for x in ratio.values()),
            "streaming_over_predicted": sum(k["us"] for _, k in big) / sum(k["predicted_us"] for _, k in big),
            "worst_index": worst, "worst_op": c["kernels"][worst - 1]["op"].removeprefix("aten::"),
            "worst_over_predicted": ratio[worst],
            "best_op": c["kernels"][best - 1]["op"].removeprefix("aten::"), "best_over_predicted": ratio[best],
            "only_vectorized_keep_pace": all(_within(ratio[i]) == (k["kernel_short"] == VECTORIZED) for i, k in big),
            "vectorized": sum(k["kernel_short"] == VECTORIZED for _, k in big), "has_tiny": bool(tiny),
            "tiny": len(tiny), "tiny_us": sum(k["us"] for k in tiny),
            "all_within": all(_within(x) for x in ratio.values())}


def _rms_norm_kernels(versions: dict[str, Any]) -> int:
    """The kernels F.rms_norm ran as: the add + F.rms_norm version's count, less the residual add's one kernel."""
    v = next(x for x in versions["versions"] if (x["op"], x["key"]) == ("add_rmsnorm", "rms_norm"))
    return v["kernels"] - 1


def from_data(eager_bytes: dict[str, Any], ceilings: dict[str, Any], laptop: dict[str, Any],
              laptop_ceilings: dict[str, Any], laptop_versions: dict[str, Any], gpu: str,
              transformers_version: str, versions: dict[str, Any]) -> Facts:
    gbps = eager_bytes["copy"]["gbps"]
    norm, sw = eager_bytes["chains"]["add_rmsnorm"], eager_bytes["chains"]["swiglu"]
    n, s = _chain(norm, gbps), _chain(sw, gbps)
    nk, sk = _kernels(norm), _kernels(sw)
    si = eager_bytes["swiglu_intensity"]
    ridge = ceilings["matmul"]["tflops"] * 1e3 / ceilings["bandwidth"]["copy"]["gbps"]
    laptop_ridge = laptop_ceilings["bf16_tflops"] * 1e3 / laptop_ceilings["copy_gbps"]
    laptop_intensity = laptop["swiglu_flop_per_elem"] / laptop["swiglu_fused_bytes_per_elem"]
    laptop_ratio = laptop_versions["add_rmsnorm_eager_ms"] / laptop["add_rmsnorm_predicted_ms"]
    return Facts(
        gpu=gpu, rows=eager_bytes["shape"][0], hidden=eager_bytes["shape"][1],
        dtype=LABELS.get(eager_bytes["dtype"], eager_bytes["dtype"]), transformers_version=transformers_version,
        copy_gbps=gbps, copy_gib_each_way=eager_bytes["copy"]["bytes_moved"] / 2 / GIB,
        copy_noise=eager_bytes["copy"]["noise_pct"] / 100, copy_samples=eager_bytes["copy"]["n"],
        copy_quiet=eager_bytes["copy"]["quiet"], profile_calls=norm["profile"]["calls"],
        norm_kernels=norm["count"], norm_bytes=norm["bytes_per_elem"], norm_fused_bytes=norm["fused_bytes_per_elem"],
        norm_bytes_ratio=norm["bytes_per_elem"] / norm["fused_bytes_per_elem"],
        laptop_norm_kernels=laptop["add_rmsnorm_kernels"], laptop_norm_bytes=laptop["add_rmsnorm_bytes_per_elem"],
        laptop_norm_fused_bytes=laptop["add_rmsnorm_fused_bytes_per_elem"],
        norm_as_laptop=(norm["count"] == laptop["add_rmsnorm_kernels"]
                        and round(norm["bytes_per_elem"]) == laptop["add_rmsnorm_bytes_per_elem"]
                        and round(norm["fused_bytes_per_elem"]) == laptop["add_rmsnorm_fused_bytes_per_elem"]),
        swiglu_kernels=sw["count"], swiglu_bytes=sw["bytes_per_elem"], swiglu_fused_bytes=sw["fused_bytes_per_elem"],
        laptop_swiglu_kernels=laptop["swiglu_kernels"], laptop_swiglu_bytes=laptop["swiglu_bytes_per_elem"],
        laptop_swiglu_fused_bytes=laptop["swiglu_fused_bytes_per_elem"],
        swiglu_as_laptop=(sw["count"] == laptop["swiglu_kernels"]
                          and round(sw["bytes_per_elem"]) == laptop["swiglu_bytes_per_elem"]
                          and round(sw["fused_bytes_per_elem"]) == laptop["swiglu_fused_bytes_per_elem"]),
        swiglu_flop_per_elem=si["flop_per_elem"], swiglu_flop_per_byte=si["fused_flop_per_byte"], ridge=ridge,
        ceiling_tflops=ceilings["matmul"]["tflops"], ceiling_copy_gbps=ceilings["bandwidth"]["copy"]["gbps"],
        laptop_ridge=laptop_ridge, laptop_ridge_published=laptop_ceilings["ridge_flop_per_byte"],
        ridge_over_intensity=ridge / si["fused_flop_per_byte"],
        laptop_ridge_over_intensity=laptop_ridge / laptop_intensity,
        far_below=FAR_BELOW,
        far_below_ridge=min(ridge / si["fused_flop_per_byte"], laptop_ridge / laptop_intensity) >= FAR_BELOW,
        band=BAND, chain_rounds=norm["bench"]["n"],
        norm_predicted_ms=n["predicted_ms"], norm_measured_ms=n["measured_ms"], norm_busy_ms=n["busy_ms"],
        norm_over_predicted=n["over_predicted"], norm_within_band=n["within_band"], norm_versus=n["versus"],
        norm_share_of_copy=n["share_of_copy"], norm_fused_predicted_ms=norm["fused_predicted_us"] / 1e3,
        swiglu_predicted_ms=s["predicted_ms"], swiglu_measured_ms=s["measured_ms"], swiglu_busy_ms=s["busy_ms"],
        swiglu_over_predicted=s["over_predicted"], swiglu_within_band=s["within_band"], swiglu_versus=s["versus"],
        swiglu_share_of_copy=s["share_of_copy"], bytes_predict_time=n["within_band"] and s["within_band"],
        laptop_bandwidth=laptop["bandwidth_gbps_assumed"], laptop_norm_predicted_ms=laptop["add_rmsnorm_predicted_ms"],
        laptop_norm_measured_ms=laptop_versions["add_rmsnorm_eager_ms"], laptop_norm_over_predicted=laptop_ratio,
        laptop_within_band=_within(laptop_ratio),
        laptop_norm_fused_predicted_ms=laptop["add_rmsnorm_fused_predicted_ms"],
        norm_streaming=nk["streaming"], norm_streaming_within=nk["streaming_within"], norm_vectorized=nk["vectorized"],
        norm_streaming_over_predicted=nk["streaming_over_predicted"], norm_worst_index=nk["worst_index"],
        norm_worst_op=nk["worst_op"], norm_worst_over_predicted=nk["worst_over_predicted"],
        norm_best_op=nk["best_op"], norm_best_over_predicted=nk["best_over_predicted"],
        norm_only_vectorized_keep_pace=nk["only_vectorized_keep_pace"], norm_has_tiny=nk["has_tiny"],
        norm_tiny=nk["tiny"], norm_tiny_us=nk["tiny_us"],
        swiglu_streaming=sk["streaming"], swiglu_streaming_within=sk["streaming_within"],
        swiglu_streaming_over_predicted=sk["streaming_over_predicted"],
        kernels_streaming=nk["streaming"] + sk["streaming"],
        kernels_outside_band=nk["streaming"] - nk["streaming_within"] + sk["streaming"] - sk["streaming_within"],
        every_kernel_within_band=nk["all_within"] and sk["all_within"],
        rms_norm_own_kernels=_rms_norm_kernels(versions),
    )


def facts(machine: str | None = None) -> Facts:
    r = read.result("memory_bound.eager_bytes", machine)
    return from_data(r.data, read.result("machine.ceilings", machine).data,
                     read.result("memory_bound.eager_bytes", LAPTOP).data,
                     read.result("machine.ceilings", LAPTOP).data,
                     read.result("fusing_by_hand.versions", LAPTOP).data, read.machine_label(r),
                     r.provenance.get("versions", {}).get("transformers", "?"),
                     read.result("fusing_by_hand.versions", machine).data)


FORMATS = {  # how each figure reads on every page (kernelbook.macros)
    "norm_kernels": "num:0", "norm_bytes": "num:1", "norm_fused_bytes": "num:1", "norm_bytes_ratio": "num:1",
    "laptop_norm_kernels": "num:0", "laptop_norm_bytes": "num:0", "laptop_norm_fused_bytes": "num:0",
    "swiglu_kernels": "num:0", "swiglu_bytes": "num:0", "swiglu_fused_bytes": "num:0",
    "laptop_swiglu_kernels": "num:0", "laptop_swiglu_bytes": "num:0", "laptop_swiglu_fused_bytes": "num:0",
    "swiglu_flop_per_elem": "num:0", "laptop_ridge": "num:0", "laptop_ridge_published": "num:0",
    "ridge": "num:0", "ridge_over_intensity": "num:0", "laptop_ridge_over_intensity": "num:0",
    "rows": "num:0", "hidden": "num:0", "profile_calls": "num:0", "copy_gbps": "num:0", "copy_gib_each_way": "num:0",
    "copy_noise": "pct:2", "copy_samples": "num:0", "chain_rounds": "num:0", "band": "pct:0",
    "norm_measured_ms": "num:3", "norm_predicted_ms": "num:3", "norm_over_predicted": "times:2",
    "swiglu_measured_ms": "num:3", "swiglu_predicted_ms": "num:3", "swiglu_over_predicted": "times:2",
    "norm_share_of_copy": "pct:1", "swiglu_share_of_copy": "pct:1",
    "laptop_norm_predicted_ms": "num:1", "laptop_norm_measured_ms": "num:1",
    "laptop_norm_over_predicted": "times:2", "laptop_bandwidth": "num:0",
    "norm_streaming": "num:0", "norm_streaming_within": "num:0", "norm_streaming_over_predicted": "times:2",
    "norm_worst_index": "num:0", "norm_worst_over_predicted": "times:2",
    "norm_best_over_predicted": "times:3", "swiglu_streaming": "num:0",
    "swiglu_streaming_over_predicted": "times:2", "swiglu_streaming_within": "num:0", "kernels_outside_band": "num:0",
    "kernels_streaming": "num:0", "norm_tiny": "num:0", "norm_tiny_us": "num:1", "norm_fused_predicted_ms": "num:3",
    "laptop_norm_fused_predicted_ms": "num:2", "rms_norm_own_kernels": "num:0",
}


def derive(f: Facts) -> dict[str, Any]:
    """The ratios the page prints beside their figures, from the medians shown; the ridge as the machine chapter
    derives it (its two medians), so that every page reads one ridge."""
    ridge = f.ceiling_tflops * 1e3 / f.ceiling_copy_gbps
    return {"ridge": ridge, "ridge_over_intensity": ridge / f.swiglu_flop_per_byte,
            "far_below_ridge": min(ridge / f.swiglu_flop_per_byte, f.laptop_ridge_over_intensity) >= f.far_below,
            "norm_bytes_ratio": f.norm_bytes / f.norm_fused_bytes,
            "norm_over_predicted": f.norm_measured_ms / f.norm_predicted_ms,
            "swiglu_over_predicted": f.swiglu_measured_ms / f.swiglu_predicted_ms,
            # bytes over the measured time as a share of the copy's rate: the predicted time over the measured
            "norm_share_of_copy": f.norm_predicted_ms / f.norm_measured_ms,
            "swiglu_share_of_copy": f.swiglu_predicted_ms / f.swiglu_measured_ms}


DERIVED_FROM = {"ridge": ("ceiling_tflops", "ceiling_copy_gbps"),
                "ridge_over_intensity": ("ridge", "swiglu_flop_per_byte"),
                "norm_bytes_ratio": ("norm_bytes", "norm_fused_bytes"),
                "norm_over_predicted": ("norm_measured_ms", "norm_predicted_ms"),
                "swiglu_over_predicted": ("swiglu_measured_ms", "swiglu_predicted_ms"),
                "norm_share_of_copy": ("norm_predicted_ms", "norm_measured_ms"),
                "swiglu_share_of_copy": ("swiglu_predicted_ms", "swiglu_measured_ms")}
