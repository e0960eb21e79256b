"""What docs/fusing-by-hand.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test
of the chapter's facts (fusing_by_hand.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook.chapters.fusing_by_hand.facts import NEAR_COPY
from kernelbook.chapters.machine.facts import FAR_BELOW
from kernelbook.fmt import num, pct, times
from kernelbook.guards import Guard


def _ms(x: float) -> str:
    return f"{num(x, 3)} ms"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "norm_fused_faster": Guard(
        "the hand-written add + RMSNorm beats the Qwen2 code in every round",
        lambda f: f.norm_fused_versus == "faster", states=("than the Qwen2 code in eager PyTorch",),
        found=lambda f: f"the hand-written add + RMSNorm took {_ms(f.norm_triton_ms)} against the Qwen2 code's "
                        f"{_ms(f.norm_eager_ms)}, {f.norm_fused_versus} by the rounds"),
    "swiglu_fused_faster": Guard(
        "the fused SwiGLU beats eager's in every round",
        lambda f: f.swiglu_fused_versus == "faster", states=("off eager's time",),
        found=lambda f: f"the fused SwiGLU took {pct(f.swiglu_cut)} off eager's time, {f.swiglu_fused_versus} "
                        f"by the rounds"),
    "norm_beats_rms_norm": Guard(
        "the hand-written add + RMSNorm runs faster than PyTorch's own fused norm: the bootstrap interval of their "
        "paired median difference lies below zero",
        lambda f: f.over_rms_norm_verdict == "ahead" and f.over_rms_norm > 1,
        states=("Against PyTorch's own fused",),
        found=lambda f: f"F.rms_norm took {f.over_rms_norm:.2f}× the hand-written kernel's time, which is "
                        f"{f.over_rms_norm_verdict} of it by the paired rounds"),
    "h_exact": Guard(
        "the new residual h is bit-identical to eager's at every shape", lambda f: f.h_exact,
        states=("The new residual `h`",),
        found=lambda f: f"the new residual h differed from eager's at {f.h_shapes_differ} of {f.shapes} shapes, "
                        f"by up to {f.h_max_steps} bf16 steps"),
    "swiglu_exact": Guard(
        "the fused SwiGLU is bit-identical to eager's at every shape", lambda f: f.swiglu_max_steps == 0,
        states=("SwiGLU's output match eager",),
        found=lambda f: f"the fused SwiGLU landed up to {f.swiglu_max_steps} bf16 steps from eager's"),
    "y_differs": Guard(
        "the normalised y differs from eager's somewhere", lambda f: f.y_max_steps > 0,
        states=("The normalised `y` does not",),
        found=lambda f: f"the normalised y matched eager's bit for bit at all {f.shapes} shapes"),
    "laptop_closer": Guard(
        "the laptop's y came closer to eager's than here", lambda f: f.y_max_steps > f.laptop_y_max_steps,
        states=("The article's laptop came closer",),
        found=lambda f: f"y landed up to {f.y_max_steps} bf16 steps from eager's, the article's laptop up to "
                        f"{f.laptop_y_max_steps}"),
    "compiled_differs": Guard(
        "torch.compile's outputs are not eager's bit for bit", lambda f: f.compiled_differs,
        states=("is not bit-exact either",),
        found=lambda f: f"torch.compile's outputs matched eager's bit for bit (y and SwiGLU {f.compiled_y_steps} and "
                        f"{f.compiled_swiglu_steps} steps away)"),
    "some_below_copy": Guard(
        f"some version moved its bytes at less than {NEAR_COPY:.0%} of the copy's speed",
        lambda f: f.slow_versions > 0, states=("not every kernel gets down to it",),
        found=lambda f: f"every version moved its bytes at {pct(f.share_low)} to {pct(f.share_high)} of the "
                        f"copy's speed"),
    "share_higher": Guard(
        "the hand-written add + RMSNorm moved its bytes at a higher share of the copy than the Qwen2 code",
        lambda f: f.norm_triton_share > f.norm_eager_share, states=("eager's chain of small kernels at only",),
        found=lambda f: f"the hand-written add + RMSNorm moved its bytes at {pct(f.norm_triton_share)} of the copy's "
                        f"speed, eager's chain at {pct(f.norm_eager_share)}"),
    "beats_bytes": Guard(
        "the hand-written add + RMSNorm's speedup exceeds its cut in bytes",
        lambda f: f.norm_speedup > f.norm_bytes_ratio, states=("more than its byte count alone predicts",),
        found=lambda f: f"the hand-written add + RMSNorm ran {f.norm_speedup:.1f}× faster on "
                        f"{num(f.norm_bytes_ratio, 1)} times fewer bytes"),
    "far_below_ridge": Guard(
        f"the most arithmetic-heavy version sits at least {FAR_BELOW} times below the ridge",
        lambda f: f.ridge_over_intensity >= FAR_BELOW, states=("None of this is arithmetic",),
        found=lambda f: f"the version with the most arithmetic per byte sits only {num(f.ridge_over_intensity, 0)} "
                        f"times below the ridge, under {FAR_BELOW}"),
    "rms_norm_faster": Guard(
        "eager with PyTorch's own fused norm ran faster than the Qwen2 code", lambda f: f.rms_norm_speedup > 1,
        states=("faster than the spelled-out norm",),
        found=lambda f: f"eager with F.rms_norm ran at {f.rms_norm_speedup:.2f}× the Qwen2 code's speed"),
    "compiled_noisiest": Guard(
        "in the table timed from Python, both torch.compile versions' rounds were noisier than every other version's",
        lambda f: f.compiled_noisiest, states=("in its noisiest rounds",),
        found=lambda f: f"in the table timed from Python the torch.compile versions' noise was "
                        f"{num(f.compiled_norm_noise, 2)}% and {num(f.compiled_swiglu_noise, 2)}%, and another "
                        f"version's reached {num(f.noise_other_high, 2)}%"),
    "python_adds_host": Guard(
        "timed from Python, each torch.compile version took more of the hand-written kernel's time than by graph "
        "replay",
        lambda f: f.compiled_norm_ratio > f.graph_norm_ratio and f.compiled_swiglu_ratio > f.graph_swiglu_ratio,
        states=("host and guard cost",),
        found=lambda f: f"timed from Python, torch.compile took {times(f.compiled_norm_ratio, 3)} the hand-written "
                        f"add + RMSNorm's time and {times(f.compiled_swiglu_ratio, 3)} SwiGLU's; by graph replay, "
                        f"{times(f.graph_norm_ratio, 3)} and {times(f.graph_swiglu_ratio, 3)}: not more in both"),
    "rounds_capped": Guard(
        "the rounds stopped at the time cap, not on the noise criterion", lambda f: not f.all_quiet,
        states=("The runs stopped at the cap",),
        found=lambda f: f"every version was quiet after {f.rounds} rounds, within {num(f.bound_pct, 1)}%, before "
                        f"the {num(f.cap_s, 0)} s cap"),
    "several_noisy": Guard(
        "more than one version was still noisy when the rounds stopped", lambda f: f.noisy_count > 1,
        states=("Several versions were still noisy then",),
        found=lambda f: f"{f.noisy_count or 'no'} version{'s' if f.noisy_count > 1 else ''} stayed noisy, the "
                        f"noisiest ({f.noisiest_label}) at {num(f.noisiest_pct, 2)}%"),
}
