"""What docs/real-world.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test
of the chapter's facts (real_world.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.guards import Guard


def _us(x: float) -> str:
    return f"{fmt.num(x, 0)} µs"


def _side(f) -> str:
    """Where both host figures lie against the GPU work, when they do not straddle it, and what that makes of the
    launches."""
    gpu = _us(f.prefill_gpu_us)
    if f.prefill_host_us <= f.prefill_gpu_us:
        return f"under the {gpu} of GPU work, so the launches hide behind it"
    return f"over the {gpu} of GPU work, so the launches do not hide behind it"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "prefill_kernels_shorter": Guard(
        "at prefill the MLP half's kernels outlast a launch by less here than on the laptop",
        lambda f: f.prefill_kernel_us_high / f.launch_us < 1e3 * f.laptop_kernel_ms_low / f.laptop_launch_us,
        states=("that reason is weaker",),
        found=lambda f: f"the MLP half's kernels at prefill averaged at most "
                        f"{fmt.num(f.prefill_kernel_us_high, 1)} µs, "
                        f"{fmt.num(f.prefill_kernel_us_high / f.launch_us, 1)} launches' worth, and the laptop's at "
                        f"least {fmt.num(f.laptop_kernel_ms_low, 1)} ms, "
                        f"{fmt.num(1e3 * f.laptop_kernel_ms_low / f.laptop_launch_us, 0)} launches' worth"),
    "prefill_host_over_gpu": Guard(
        "under the profiler eager PyTorch took longer to issue the MLP half's call at prefill than the GPU took to "
        "run it",
        lambda f: f.prefill_host_us > f.prefill_gpu_us,
        states=("more than the",),
        found=lambda f: f"under the profiler eager PyTorch spent {_us(f.prefill_host_us)} of host time on "
                        f"{_us(f.prefill_gpu_us)} of GPU work, less than the GPU work"),
    "prefill_launch_under_gpu": Guard(
        "eager PyTorch's launches for the MLP half at prefill, at the host's unprofiled time to enqueue one launch, "
        "take less than its GPU time",
        lambda f: f.prefill_launch_us < f.prefill_gpu_us,
        states=("less than the GPU work",),
        found=lambda f: f"the call's {f.prefill_launches} launches come to about {_us(f.prefill_launch_us)} at the "
                        f"machine page's host time to enqueue one launch, against {_us(f.prefill_gpu_us)} of GPU "
                        f"work"),
    "hiding_unsettled": Guard(
        "whether the launches hide behind the GPU work at prefill is not settled: the unprofiled estimate lies under "
        "the GPU time and the profiled host time over it",
        lambda f: f.prefill_launch_us < f.prefill_gpu_us < f.prefill_host_us,
        states=("not settled here",),
        found=lambda f: f"the launches' estimate ({_us(f.prefill_launch_us)}) and the host time under the profiler "
                        f"({_us(f.prefill_host_us)}) both lie {_side(f)}"),
    "fusion_saves": Guard(
        "compiling the MLP half took GPU time off it at prefill",
        lambda f: f.prefill_saved_share > 0,
        states=(("it pays in prefill too", "off its GPU time here"),),
        found=lambda f: f"compiling the MLP half changed its GPU time at prefill by "
                        f"{fmt.pct(-f.prefill_saved_share)}"),
    "liger_raced": Guard(
        "both speed-of-light runs timed Liger-Kernel's kernels beside this site's",
        lambda f: f.liger_raced,
        states=("races Liger's kernels",),
        found=lambda f: "the speed-of-light runs did not have Liger-Kernel to race"),
}
