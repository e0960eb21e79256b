"""What the decode page's sentences rest on: each guard's condition on the facts (kernelbook.guards), with the words
it states and what the page would say were it false."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.chapters.decode.facts import FOLLOWS_BANDWIDTH
from kernelbook.guards import Guard


def _ms(x: float | None) -> str:
    return f"{fmt.num(x, 2)} ms"


def _shares(low: float, high: float) -> str:
    """A share of a run's rounds over the runs: '10% to 65%', or one figure where the runs agree."""
    return fmt.pct(low) if fmt.pct(low) == fmt.pct(high) else f"{fmt.pct(low)} to {fmt.pct(high)}"


def _runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "all_passed": Guard(
        "every way was built and passed the teacher-forced logit check",
        lambda f: f.any_valid and f.all_passed and f.n_failed == 0 and not f.has_build_errors,
        states=(("all six\npassed", "the fastest of six ways"),),
        found=lambda f: (f"{f.n_failed} of {f.n_variants} ways failed the logit check ({f.failed})" if f.n_failed
                         else f"a way could not be built ({f.build_failed})")),
    "as_article": Guard(
        "the model's weights take as many bytes as the released checkpoint's",
        lambda f: f.weight_as_article,
        states=("as many bytes as the released checkpoint",),
        found=lambda f: f"the model's weights take {fmt.num(f.weight_gb, 3)} GB, the released checkpoint's "
                        f"{fmt.num(f.laptop_weight_gb, 3)} GB"),
    "launch_bound": Guard(
        "the eager StaticCache step's launches alone take longer than the bandwidth floor",
        lambda f: f.launch_ms > f.floor_ms,
        states=("times the bandwidth floor",),
        found=lambda f: f"the eager StaticCache step's launches cost {_ms(f.launch_ms)}, under the bandwidth floor of "
                        f"{fmt.num(f.floor_ms, 3)} ms"),
    "host_bound": Guard(
        "the eager StaticCache step is nine tenths host time or more",
        lambda f: f.static_host_ms >= 0.9 * f.static_ms,
        states=(("waited for the host", "nearly all of it is host time"),),
        found=lambda f: f"the eager StaticCache step's host time was {_ms(f.static_host_ms)} of its "
                        f"{_ms(f.static_ms)}, {fmt.pct(f.static_host_ms / f.static_ms)}"),
    "launch_part": Guard(
        "the eager StaticCache step's host time is longer than its launches cost",
        lambda f: f.host_beyond_launch_ms > 0,
        states=("explains only part of that",),
        found=lambda f: f"the eager StaticCache step's launches cost {_ms(f.launch_ms)} at the machine page's eager "
                        f"time per launch, all of its {_ms(f.static_host_ms)} host time"),
    "kernels_shortest": Guard(
        "the eager StaticCache step's kernels run for less than its launches cost and less than its other host work",
        lambda f: f.static_busy_ms < min(f.launch_ms, f.host_beyond_launch_ms),
        states=("longer than the kernels themselves",),
        found=lambda f: f"the eager StaticCache step's kernels ran for {_ms(f.static_busy_ms)}, its launches cost "
                        f"{_ms(f.launch_ms)} and its other host work took {_ms(f.host_beyond_launch_ms)}"),
    "static_adds_kernels": Guard(
        "the StaticCache adds kernels to the default cache's step, here and on the article's laptop",
        lambda f: f.static_extra_kernels > 0 and f.laptop_static_extra > 0,
        states=("adds kernels to the default cache's step, as in the article",),
        found=lambda f: f"the StaticCache step ran {fmt.num(f.static_kernels, 0)} kernels, the default cache's "
                        f"{fmt.num(f.dyn_kernels, 0)}"),
    "static_slower": Guard(
        "the eager StaticCache step's median is above the default cache's",
        lambda f: f.static_ms > f.dyn_ms,
        states=("found it slower too",),
        found=lambda f: f"the eager StaticCache step's median was {_ms(f.static_ms)}, the default cache's "
                        f"{_ms(f.dyn_ms)}"),
    "graph_same_kernels": Guard(
        "the hand-made graph replays the eager StaticCache step's very kernels",
        lambda f: f.graph_kernels == f.static_kernels,
        states=("the very same kernels",),
        found=lambda f: f"the hand-made graph ran {fmt.num(f.graph_kernels, 0)} kernels, the eager StaticCache step "
                        f"{fmt.num(f.static_kernels, 0)}"),
    "graph_busy": Guard(
        "the GPU's own work fills most of the hand-made graph's step",
        lambda f: f.graph_idle_share < 0.5,
        states=("fills most of the step",),
        found=lambda f: f"the GPU idled for {fmt.pct(f.graph_idle_share)} of the hand-made graph's step"),
    "cd_fewer_kernels": Guard(
        "default-mode torch.compile runs fewer than half the eager StaticCache step's kernels",
        lambda f: 2 * f.cd_kernels < f.static_kernels,
        states=("fewer than half as many kernels",),
        found=lambda f: f"default-mode torch.compile ran {fmt.num(f.cd_kernels, 0)} kernels, the eager StaticCache "
                        f"step {fmt.num(f.static_kernels, 0)}"),
    "cd_host": Guard(
        "default-mode torch.compile's host time is longer than its kernels' time",
        lambda f: f.cd_host_ms > f.cd_busy_ms,
        states=("takes longer to issue them than the GPU takes to run them",),
        found=lambda f: f"default-mode torch.compile's host took {_ms(f.cd_host_ms)}, its kernels {_ms(f.cd_busy_ms)}"),
    "cd_idle_most": Guard(
        "the GPU idles for most of default-mode torch.compile's step",
        lambda f: f.cd_idle_share > 0.5,
        states=("idles for most of the step",),
        found=lambda f: f"the GPU idled for {fmt.pct(f.cd_idle_share)} of default-mode torch.compile's step"),
    "cd_idle_above_laptop": Guard(
        "the GPU idles for more of default-mode torch.compile's step than the article's laptop did",
        lambda f: f.cd_idle_share > f.laptop_cd_idle_share,
        states=("where the article's laptop idled for only",),
        found=lambda f: f"the GPU idled for {fmt.pct(f.cd_idle_share)} of default-mode torch.compile's step, the "
                        f"laptop's for {fmt.pct(f.laptop_cd_idle_share)}"),
    "ro_faster": Guard(
        "reduce-overhead beat the hand-made graph at the median and in most rounds",
        lambda f: f.ro_vs_graph == "faster",
        states=("beat the hand-made graph",),
        found=lambda f: f"reduce-overhead's median step was {_ms(f.ro_ms)}, the hand-made graph's {_ms(f.graph_ms)}, "
                        f"and reduce-overhead was faster in as few as {fmt.pct(f.ro_faster_low)} of a run's rounds"),
    "ro_every_round": Guard(
        "reduce-overhead beat the hand-made graph in every round of every run",
        lambda f: f.ro_faster_low == 1,
        states=("in every round of every run",),
        found=lambda f: f"reduce-overhead beat the hand-made graph in as few as {fmt.pct(f.ro_faster_low)} of a run's "
                        "rounds"),
    "ro_less_busy": Guard(
        "reduce-overhead's kernels keep the GPU busy for less time than the hand-made graph's",
        lambda f: f.fusion_cut_busy_ms > 0,
        states=("keep the GPU busy for less time",),
        found=lambda f: f"reduce-overhead's kernels ran for {_ms(f.graph_busy_ms - f.fusion_cut_busy_ms)}, the "
                        f"hand-made graph's for {_ms(f.graph_busy_ms)}"),
    "ma_not_faster": Guard(
        "max-autotune did not beat reduce-overhead at the median and in most rounds",
        lambda f: f.ma_vs_ro != "faster",
        states=("did not beat reduce-overhead",),
        found=lambda f: f"max-autotune beat reduce-overhead at the median and in most rounds (in "
                        f"{_shares(f.ma_faster_low, f.ma_faster_high)} of a run's rounds)"),
    "ma_median_longer": Guard(
        "max-autotune's median step is above reduce-overhead's",
        lambda f: f.ma_median_more,
        states=("its median step was longer",),
        found=lambda f: f"max-autotune's median step was {fmt.num(f.ma_ms, 3)} ms, shorter than reduce-overhead's "
                        f"{fmt.num(f.ro_ms, 3)} ms"),
    "laptop_ma_gained": Guard(
        "max-autotune took time off reduce-overhead's step on the article's laptop",
        lambda f: f.laptop_ma_gain_ms > 0,
        states=("laptop gained a little from it",),
        found=lambda f: f"the article's laptop gained {_ms(f.laptop_ma_gain_ms)} from max-autotune"),
    "trap_stale": Guard(
        "the capture moved the cache's counter, so a second prefill writes behind stale slots",
        lambda f: f.counter_shift > 0,
        states=("behind stale slots",),
        found=lambda f: f"the counter stood at {f.counter_after_capture} after the capture, as after the prefill"),
    "trap_no_top1": Guard(
        "the broken replays shared no top token with eager",
        lambda f: f.trap_top1 == 0,
        states=("no top token in common",),
        found=lambda f: f"the broken replays shared the top token with eager at {fmt.pct(f.trap_top1)} of steps"),
    "reset_exact": Guard(
        "with the cache emptied first, the graph matched eager bit for bit",
        lambda f: f.reset_exact,
        states=("matched eager bit for bit",),
        found=lambda f: f"with the cache emptied first, the graph was {fmt.pct(f.reset_rel_err, 2)} away from eager"),
    "trap_past_tol": Guard(
        "the broken replay is further off than the tolerance lets through",
        lambda f: f.trap_rel_err > f.tolerance,
        states=("lies well outside it",),
        found=lambda f: f"the broken replay was {fmt.pct(f.trap_rel_err, 2)} off, inside the tolerance of "
                        f"{fmt.pct(f.tolerance, 2)}"),
    "item_raised": Guard(
        "the .item() call inside the capture raised an error",
        lambda f: f.item_outcome == "raised",
        states=("the call raised",),
        found=lambda f: ("the .item() call inside the capture raised nothing" if f.item_outcome == "silent"
                         else "the .item() capture's child process reported nothing")),
    "context_usable": Guard(
        "the process's CUDA context still worked after the failed capture",
        lambda f: f.item_usable_after,
        states=("still worked afterwards",),
        found=lambda f: "the process's CUDA context no longer worked after the failed capture"),
    "laptop_item_failed": Guard(
        "the .item() capture failed on the article's laptop",
        lambda f: f.laptop_item_failed,
        states=("stopped the article's laptop",),
        found=lambda f: "the .item() capture did not fail on the article's laptop"),
    "cache_grows": Guard(
        "the default cache's keys grew by one token at every step",
        lambda f: f.dyn_grows,
        states=("grew by a token",),
        found=lambda f: "the default cache's keys did not grow by one token at every step"),
    "cache_moves": Guard(
        "the default cache's keys moved to a new address at every step",
        lambda f: f.dyn_moves,
        states=("moved at every step",),
        found=lambda f: "the default cache's keys stayed at one address for some step"),
    "static_fixed": Guard(
        "the StaticCache's keys kept one shape at one address",
        lambda f: f.static_fixed,
        states=("stayed one tensor at one address",),
        found=lambda f: "the StaticCache's keys changed shape or address between steps"),
    "one_graph": Guard(
        "dynamo finds one graph and no break in the static step",
        lambda f: f.graph_count == 1 and f.break_count == 0,
        states=("a single graph without a break",),
        found=lambda f: f"dynamo found {f.graph_count} graphs and {f.break_count} breaks in the static step"),
    "laptop_one_graph": Guard(
        "the article found one graph and no break",
        lambda f: f.laptop_graph_count == 1 and f.laptop_break_count == 0,
        states=("as by the article's",),
        found=lambda f: f"the article counted {f.laptop_graph_count} graphs and {f.laptop_break_count} breaks"),
    "not_bandwidth": Guard(
        "the best step's gain over the laptop falls short of the bandwidth ratio",
        lambda f: f.step_ratio < FOLLOWS_BANDWIDTH * f.bw_ratio,
        states=("best step was only",),
        found=lambda f: f"the best step was {fmt.num(f.step_ratio, 1)}× the laptop's, against bandwidths "
                        f"{fmt.num(f.bw_ratio, 0)} times apart"),
    "kernels_past_floor": Guard(
        "the best step's kernels ran for more than twice the bandwidth floor",
        lambda f: f.best_busy_ms - f.floor_ms > f.floor_ms,
        states=("more than twice the floor",),
        found=lambda f: f"the best step's kernels ran for {_ms(f.best_busy_ms)}, "
                        f"{fmt.num(f.best_busy_over_floor, 1)} times the floor of {fmt.num(f.floor_ms, 3)} ms"),
    "best_idles": Guard(
        "the GPU still idled between the best step's kernels",
        lambda f: f.best_idle_ms > 0,
        states=("still idled between them",),
        found=lambda f: f"the best step's kernels filled its {_ms(f.best_ms)}"),
    "gap_in_band": Guard(
        "eager's median top-two gap is inside the rounding band",
        lambda f: f.median_gap < f.band,
        states=("typically closer than the band",),
        found=lambda f: f"eager's median top-two gap was {fmt.num(f.median_gap, 3)}, the band "
                        f"{fmt.num(f.band, 3)}"),
    "departures_in_band": Guard(
        "every way that left eager's tokens did so where eager's top two were within the band",
        lambda f: f.departures_in_band and f.n_wide == 0,
        states=("did so at a near-tie inside the band",),
        found=lambda f: f"{f.n_wide} of the {f.n_departed} ways that left eager's tokens did so outside the band"),
    "laptop_same_lists": Guard(
        "the article's six lists of tokens were identical",
        lambda f: f.laptop_all_same,
        states=("six identical lists",),
        found=lambda f: "the article's six lists of tokens differed"),
    "all_noisy": Guard(
        "the rounds stopped at the cap with every way still noisy",
        lambda f: not f.rounds_quiet and not f.some_quiet and f.noisy_count == f.n_variants,
        states=(("every way still noisy", "every way still [noisy](glossary.md#noisy)"),),
        found=lambda f: (f"the rounds stopped on the noise criterion after {f.rounds_n} rounds" if f.rounds_quiet
                         else f"the rounds stopped at the cap with {f.noisy_count} of {f.n_variants} ways still "
                              "noisy")),
    "dyn_runs_differ": Guard(
        "the eager default-cache step's lowest and highest run medians differ at the digits shown",
        lambda f: f.six_runs > 1 and round(f.dyn_ms_low, 2) != round(f.dyn_ms_high, 2),
        states=("the runs differ from each other too",),
        found=lambda f: f"the eager default-cache step's run medians all read {_ms(f.dyn_ms_low)} over "
                        f"{_runs(f.six_runs)}",
        absent=(lambda f: f.six_runs < 2, "the six ways were timed in one run, and whether runs differ needs a "
                                          "second")),
    "after_grew": Guard(
        "some way's host time per step grew in the round after the profiles",
        lambda f: f.after_worst_added_us > 0,
        states=("grew most for",),
        found=lambda f: f"no way's host time per step grew in the round after the profiles; "
                        f"{f.after_worst_label}'s changed by {fmt.num(f.after_worst_added_us, 0)} µs",
        absent=(lambda f: not f.has_after_profiler or f.after_worst_added_us is None,
                "no round was timed after the profiles")),
    "profiler_inflates": Guard(
        "the drawn eager step's host call under the profiler is longer than the timed eager step's host time",
        lambda f: f.tl_static_host_ms > f.static_host_ms,
        states=(("the profiler slows the host", "the profiler inflates host time",
                 "the profiler, which inflates host time"),),
        found=lambda f: f"under the profiler the eager StaticCache step's call took {_ms(f.tl_static_host_ms)}, timed "
                        f"without it {_ms(f.static_host_ms)}"),
    "profiler_mostly_gaps": Guard(
        "under the profiler the GPU spent most of the eager step's call in gaps between kernels",
        lambda f: f.tl_static_gaps_ms > f.tl_static_host_ms / 2,
        states=("most of it the gpu spent in gaps",),
        found=lambda f: f"the gaps between kernels took {_ms(f.tl_static_gaps_ms)} of the profiled eager call's "
                        f"{_ms(f.tl_static_host_ms)}"),
    "replay_gaps_past_idle": Guard(
        "under the profiler the replay's gaps add up to more than the timed replay leaves the GPU idle",
        lambda f: f.tl_graph_gaps_ms > f.graph_idle_ms,
        states=("add up to more than the timed replay leaves the GPU idle",),
        found=lambda f: f"the profiled replay's gaps took {_ms(f.tl_graph_gaps_ms)}, the timed replay's idle time "
                        f"{_ms(f.graph_idle_ms)}"),
}
