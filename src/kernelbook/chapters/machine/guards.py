"""What docs/machine.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test
of the chapter's facts (machine.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.chapters.machine.facts import FAR_BELOW, Facts
from kernelbook.guards import Guard


def _times(x: float) -> str:
    """As FORMATS writes a speedup ('times:1'): 7.0×."""
    return f"{x:,.1f}×"


def _quiet_words(f: Facts) -> str:
    """Which launch timings settled, with each one's noise."""
    named = (("the eager loop", f.eager_quiet, f.eager_noise), ("the graph replay", f.graph_quiet, f.graph_noise),
             ("the host timing", f.host_quiet, f.host_noise))
    settled = [name + ("" if noise is None else f" (±{noise:.1f}%)") for name, quiet, noise in named if quiet]
    return f"{len(settled)} of the three launch timings settled: {', '.join(settled)}"


def _speedup_runs(f: Facts) -> str:
    if f.ceilings_runs == 1:
        return (f"the graph speedup, {_times(f.launch_speedup)}, comes from a single run, so whether runs disagree "
                "needs a second run")
    return (f"the graph speedup's {f.ceilings_runs} runs ran from {_times(f.launch_speedup_low)} to "
            f"{_times(f.launch_speedup_high)}, within a run's own spread")


def _l2_words(f: Facts) -> str:
    if f.copy_over_l2 is None:
        return "the run did not record the L2's size, so whether the copy outgrows it is not known"
    return f"the copied {fmt.num(f.copy_gib * 1024, 0)} MiB fit in the {fmt.num(f.l2_mib, 0)} MiB L2"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "ridge_above_laptop": Guard(
        "the ridge (matmul over copy) lies further right than the laptop's: arithmetic grew more than bandwidth",
        lambda f: f.ridge > f.laptop_ridge, states=("Arithmetic grew more than bandwidth",),
        found=lambda f: (f"this GPU copies {fmt.num(f.copy_vs_laptop, 0)} times as fast as the laptop and multiplies "
                         f"{fmt.num(f.tflops_vs_laptop, 0)} times as fast: its ridge, {fmt.num(f.ridge, 0)} FLOP "
                         f"per byte, is no further right than the laptop's {fmt.num(f.laptop_ridge, 0)}")),
    "write_beats_copy": Guard(
        "the write-only pass ran faster than the copy (both medians across runs)",
        lambda f: f.write_gbps > f.copy_gbps, states=("ran faster than the copy",),
        found=lambda f: (f"the write-only pass ran at {fmt.num(f.write_gbps, 0)} GB/s, no faster than the copy's "
                         f"{fmt.num(f.copy_gbps, 0)}")),
    "copy_exceeds_l2": Guard(
        "the copied tensor is larger than the L2 cache", lambda f: f.copy_over_l2 is not None and f.copy_over_l2 > 1,
        states=("larger than the L2",), found=_l2_words),
    "passes_quiet": Guard(
        "the copy, the read-only and the write-only passes all settled", lambda f: f.bw_quiet,
        states=("the copy, the read and the write settled",),
        found=lambda f: f"not every pass settled: {', '.join(f.bw_noisy)} at the cap"),
    "matmul_noisy": Guard(
        "the matmul's samples were still noisy at the cap", lambda f: not f.matmul_quiet,
        states=("The matmul did not",),
        found=lambda f: (f"the matmul settled, at ±{fmt.num(f.matmul_noise, 1)}% over "
                         f"{fmt.num(f.matmul_samples, 0)} samples")),
    "swiglu_far_below_ridge": Guard(
        f"fused SwiGLU sits at least {FAR_BELOW} times below the ridge", lambda f: f.ridge_over_swiglu >= FAR_BELOW,
        states=("far below the ridge",),
        found=lambda f: (f"fused SwiGLU does {fmt.num(f.swiglu_flop_per_byte, 2)} FLOP per byte, only "
                         f"{fmt.num(f.ridge_over_swiglu, 0)} times below the ridge of {fmt.num(f.ridge, 0)}")),
    "launches_noisy": Guard(
        "the eager loop, the graph replay and the host timing all stayed noisy", lambda f: f.launch_all_noisy,
        states=(("all three stayed noisy", "marks each launch timing noisy"),), found=_quiet_words),
    "host_bound": Guard(
        "the host takes longer to enqueue a launch than the GPU takes to run one from a graph",
        lambda f: f.host_bound, states=("longer than the GPU takes to run one from a graph",),
        found=lambda f: (f"the middle {fmt.pct(f.host_middle)} of the host's samples, {fmt.num(f.host_us_low, 1)} to "
                         f"{fmt.num(f.host_us_high, 1)} µs, does not lie above the graph replay's, "
                         f"{fmt.num(f.graph_us_mid_low, 2)} to {fmt.num(f.graph_us_mid_high, 2)} µs per kernel")),
    "eager_paced_by_host": Guard(
        "the eager loop's GPU time per launch is the host's enqueue time, to within the two timings' noise added "
        "together", lambda f: abs(f.eager_us - f.host_us) <= f.host_us * (f.eager_noise + f.host_noise) / 100,
        states=("matches the host's enqueue time within the noise",),
        found=lambda f: (f"the eager loop took {fmt.num(f.eager_us, 2)} µs per launch and the host "
                         f"{fmt.num(f.host_us, 2)} µs to enqueue one, "
                         f"{fmt.pct(abs(f.eager_us - f.host_us) / f.host_us)} apart, more than the two timings' "
                         f"noise of {fmt.num(f.eager_noise + f.host_noise, 0)}%")),
    "host_as_laptop": Guard(
        "the laptop's host time lies inside the middle of this machine's host samples",
        lambda f: f.host_us_low <= f.laptop_host_us <= f.host_us_high,
        states=(("about what it needed on the article's laptop", "counts as \"about the same\""),),
        found=lambda f: (f"the laptop's {fmt.num(f.laptop_host_us, 1)} µs lies outside the middle "
                         f"{fmt.pct(f.host_middle)} of this machine's host samples, {fmt.num(f.host_us_low, 1)} to "
                         f"{fmt.num(f.host_us_high, 1)} µs")),
    "graph_gain_below_laptop": Guard(
        "the graph speedup is below the laptop's range", lambda f: f.launch_speedup < f.laptop_graph_low,
        states=("gained less over the eager loop than on the laptop",),
        found=lambda f: (f"the graph speedup is {_times(f.launch_speedup)}, against the laptop's "
                         f"{fmt.num(f.laptop_graph_low, 0)} to {fmt.num(f.laptop_graph_high, 0)}×")),
    "speedup_runs_vary": Guard(
        "the graph speedup's runs lie further apart than a run's own spread", lambda f: f.launch_speedup_runs_vary,
        states=("the runs disagree",), found=_speedup_runs,
        absent=(lambda f: f.ceilings_runs == 1, _speedup_runs)),
}
