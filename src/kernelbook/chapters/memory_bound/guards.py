"""What docs/memory-bound.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test
of the chapter's facts (memory_bound.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook.fmt import num, pct, times
from kernelbook.guards import Guard


def _outside(ratio: float, band: float) -> bool:
    return abs(ratio - 1) > band


def _x(ratio: float) -> str:
    return f"{ratio:.2f}×"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "norm_as_laptop": Guard(
        "add + RMSNorm runs as many kernels, moving as many bytes, as on the article's laptop",
        lambda f: f.norm_as_laptop, states=("as on the article's laptop",),
        found=lambda f: f"eager add + RMSNorm ran as {f.norm_kernels} kernels moving {num(f.norm_bytes, 1)} bytes per "
                        f"element (one fused kernel: {num(f.norm_fused_bytes, 1)}), the article's laptop as "
                        f"{f.laptop_norm_kernels} moving {f.laptop_norm_bytes} (fused: {f.laptop_norm_fused_bytes})"),
    "little_arithmetic": Guard(
        "fused SwiGLU sits far below this GPU's ridge: it does almost no arithmetic per byte",
        lambda f: f.ridge_over_intensity >= f.far_below,
        states=(("almost no arithmetic per byte", "far to the left of the ridge"),),
        found=lambda f: f"fused SwiGLU's {num(f.swiglu_flop_per_byte, 2)} FLOP per byte sits only "
                        f"{num(f.ridge_over_intensity, 0)} times below the ridge of {num(f.ridge, 0)}, under "
                        f"{f.far_below} times"),
    "laptop_far_below_ridge": Guard(
        "fused SwiGLU sits far below the ridge on the article's laptop too",
        lambda f: f.laptop_ridge_over_intensity >= f.far_below, states=("on both machines",),
        found=lambda f: f"on the article's laptop fused SwiGLU sits only {num(f.laptop_ridge_over_intensity, 0)} "
                        f"times below the ridge, under {f.far_below} times"),
    "norm_misses_time": Guard(
        "add + RMSNorm ran more than the band over its bytes' time at the copy rate",
        lambda f: f.norm_over_predicted > 1 + f.band, states=("add + RMSNorm ran more than",),
        found=lambda f: f"add + RMSNorm took {_x(f.norm_over_predicted)} its bytes' time at the copy rate, not more "
                        f"than {pct(f.band)} over"),
    "swiglu_misses_time": Guard(
        "SwiGLU ran more than the band over its bytes' time at the copy rate",
        lambda f: f.swiglu_over_predicted > 1 + f.band, states=("and SwiGLU too",),
        found=lambda f: f"SwiGLU took {_x(f.swiglu_over_predicted)} its bytes' time at the copy rate, not more "
                        f"than {pct(f.band)} over"),
    "laptop_within_band": Guard(
        "the laptop's measured chain lies within the band of its prediction",
        lambda f: not _outside(f.laptop_norm_over_predicted, f.band), states=("the same prediction held",),
        found=lambda f: f"the article's laptop chain took {_x(f.laptop_norm_over_predicted)} its predicted time, "
                        f"outside the {pct(f.band)} band"),
    "some_keep_pace": Guard(
        "some add + RMSNorm kernel that streams the tensor keeps the copy's pace",
        lambda f: f.norm_streaming_within > 0, states=("the ones that kept the copy's pace",),
        found=lambda f: f"none of the {f.norm_streaming} add + RMSNorm kernels that stream the tensor came within "
                        f"{pct(f.band)} of its bytes' time"),
    "only_vectorized_keep_pace": Guard(
        "the add + RMSNorm kernels that keep the copy's pace are exactly the vectorized ones",
        lambda f: f.norm_only_vectorized_keep_pace, states=("exactly those PyTorch ran as",),
        found=lambda f: f"{f.norm_streaming_within} of the {f.norm_streaming} add + RMSNorm kernels that stream the "
                        f"tensor kept the copy's pace, not exactly the {f.norm_vectorized} PyTorch ran as its "
                        f"vectorized kernel"),
    "one_beat_copy": Guard(
        "the fastest of the add + RMSNorm kernels that kept the copy's pace took less than its bytes' time at the "
        "copy rate",
        lambda f: 1 - f.band <= f.norm_best_over_predicted < 1,
        states=("the fastest of them, `{{ f.norm_best_op }}`, even beat it", "not the bandwidth limit"),
        found=lambda f: f"the add + RMSNorm kernel that streams the tensor fastest, {f.norm_best_op}, took "
                        f"{times(f.norm_best_over_predicted, 3)} its bytes' time, against a band of {pct(f.band)}"),
    "others_fell_behind": Guard(
        "some add + RMSNorm kernel that streams the tensor ran more than the band over its bytes' time",
        lambda f: f.norm_worst_over_predicted > 1 + f.band,
        states=(("the others fell behind", "slower than a copy"),),
        found=lambda f: f"every add + RMSNorm kernel that streams the tensor kept within {pct(f.band)} of its bytes' "
                        f"time, the slowest at {_x(f.norm_worst_over_predicted)}"),
    "norm_has_tiny": Guard(
        "add + RMSNorm runs kernels that touch one value per row", lambda f: f.norm_tiny > 0,
        states=("The per-row kernels",),
        found=lambda f: f"add + RMSNorm ran {f.norm_kernels} kernels, none that touches one value per row"),
    "rms_norm_one_kernel": Guard(
        "PyTorch's own fused norm runs as one kernel", lambda f: f.rms_norm_own_kernels == 1,
        states=("is a single fused kernel",),
        found=lambda f: f"F.rms_norm ran as {f.rms_norm_own_kernels} kernels, not one"),
}
