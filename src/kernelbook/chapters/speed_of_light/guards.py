"""What docs/speed-of-light.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test
of the chapter's facts (speed_of_light.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.chapters.speed_of_light.facts import FAR_BELOW_POINTS
from kernelbook.chapters.speed_of_light.figures import GOAL_SHARE, NEAR_COPY, at_words, words
from kernelbook.guards import Guard


def _pd(x: float) -> str:
    return fmt.pct_down(x, 1)


def _us(x: float) -> str:
    return f"{x:+.2f} µs"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    # the result, and what it means
    "add_large_at_copy": Guard(
        f"at every large shape the fused add + RMSNorm reaches {GOAL_SHARE:.0%} of the copy (medians over the runs)",
        lambda f: f.add_share_low >= GOAL_SHARE,
        states=(("the fused add + RMSNorm kernel ran at", "it runs at about the speed of a copy"),),
        found=lambda f: f"the fused add + RMSNorm ran at {_pd(f.add_share_low)} of the copy at its slowest large "
                        f"shape, under {fmt.pct(GOAL_SHARE)}"),
    "swiglu_large_at_copy": Guard(
        f"at every large shape the fused SwiGLU reaches {GOAL_SHARE:.0%} of the copy (medians over the runs)",
        lambda f: f.swiglu_share_low >= GOAL_SHARE,
        states=(("and the fused SwiGLU at", "it runs at about the speed of a copy"),),
        found=lambda f: f"the fused SwiGLU ran at {_pd(f.swiglu_share_low)} of the copy at its slowest large shape, "
                        f"under {fmt.pct(GOAL_SHARE)}"),
    "small_under": Guard(
        f"at no decode-sized shape does add + RMSNorm reach {GOAL_SHARE:.0%} of the copy",
        lambda f: f.small_share_high < GOAL_SHARE,
        states=(("reached only", "the copy's speed is out of reach"),),
        found=lambda f: f"at decode sizes add + RMSNorm reached up to {_pd(f.small_share_high)} of the copy"),
    "small_own_work": Guard(
        "at decode sizes the kernel loses half a point or more beyond the copy with its program size",
        lambda f: f.small_own_work_shows,
        states=(("the kernel's own work on each row cost up to", "the work on each row costs time of its own"),),
        found=lambda f: f"at decode sizes the kernel lost at most {fmt.num(f.small_own_work_points, 1)} points "
                        f"beyond the copy with its program size"),
    # add + RMSNorm against the bar
    "add_ahead_every_run": Guard(
        "in every run ours was ahead of every rival at every large add + RMSNorm shape",
        lambda f: f.add_ahead_every_run, states=("ours was ahead of every rival at every such shape",),
        found=lambda f: f"ours was ahead of every rival at every large shape in {f.add_ahead_runs} of {f.add_runs} "
                        f"runs" + (f" (the newest: not ahead of {at_words(f.add_not_ahead)})"
                                   if f.add_not_ahead else "")),
    "add_missed_no_run": Guard(
        "in no run did ours miss the bar at a large add + RMSNorm shape",
        lambda f: f.add_missed_no_run, states=("never fell below the bar",),
        found=lambda f: f"ours missed the bar at a large shape in {f.add_missed_runs} of {f.add_runs} runs"
                        + (" (the newest: " + "; ".join(f"{u.shape} at {_pd(u.share)}" for u in f.add_under) + ")"
                           if f.add_under else "")),
    "add_newest_undecided": Guard(
        "in the newest run noisy rounds left exactly one large add + RMSNorm shape undecided",
        lambda f: len(f.add_newest_noisy) == 1, states=("left one shape undecided",),
        found=lambda f: f"noisy rounds left {len(f.add_newest_noisy)} large shapes undecided in the newest run: "
                        f"{words(f.add_newest_noisy)}",
        instead=(lambda f: not f.add_newest_noisy,
                "noisy rounds left no large add + RMSNorm shape undecided in the newest run")),
    "add_open_programs": Guard(
        "at the first large shape not decidedly at the bar's share, a program of ours held more of each tensor than "
        "one of the fastest copy",
        lambda f: f.add_open.kib > f.add_open.copy_kib > 0, states=("a program of ours held",),
        found=lambda f: f"at {f.add_open.shape} a program of ours held {f.add_open.kib} KiB of each tensor, one of "
                        f"the fastest copy {f.add_open.copy_kib} KiB",
        instead=(lambda f: not f.add_open.shape,
                "ours was decidedly at the bar's share at every large add + RMSNorm shape in the newest run")),
    "rms_norm_far_below": Guard(
        "PyTorch's own fused norm ran ten points of the copy or more below every version the share figure draws",
        lambda f: f.rms_norm_share_high <= f.figure_share_low - FAR_BELOW_POINTS, states=("far below the rest",),
        found=lambda f: f"F.rms_norm reached up to {_pd(f.rms_norm_share_high)} of the copy, the versions the figure "
                        f"draws down to {_pd(f.figure_share_low)}"),
    "one_row_close": Guard(
        f"the one-row kernel reaches {NEAR_COPY:.0%} of the copy at every large shape",
        lambda f: f.one_row_close, states=("comes close to the copy",),
        found=lambda f: f"the one-row kernel ran at {_pd(f.one_row_low)} of the copy at its slowest large shape, "
                        f"under {fmt.pct(NEAR_COPY)}"),
    "tile_never_ahead": Guard(
        "a copy cut into the kernel's program size is never half a point or more ahead of the kernel",
        lambda f: f.tile_never_ahead, states=("was never half a point or more ahead",),
        found=lambda f: f"a copy cut into the kernel's program size was {fmt.num(f.tile_lead_points, 1)} points "
                        f"ahead of the kernel at {f.tile_lead_shape}"),
    "add_own_placements": Guard(
        "every add + RMSNorm round ran on a placement no other round used", lambda f: f.add_own_placements,
        states=("had a placement of its own",),
        found=lambda f: f"the pool at {f.add_pool_shape} held only {f.add_pool_low} placements, so some rounds "
                        f"there shared one"),
    # the other designs
    "designs_none_ahead": Guard(
        "no other design was ahead of the row kernel at any shape", lambda f: f.designs_none_ahead,
        states=("None of the three was ahead of the row kernel",),
        found=lambda f: f"{at_words(f.designs_ahead)} ran ahead of the row kernel"),
    "warp_not_run": Guard(
        "some width leaves no room for a row in one warp's registers", lambda f: f.warp_not_run,
        states=("wide it does not",),
        found=lambda f: "a row fit in one warp's registers at every width measured"),
    "warp_fit_behind": Guard(
        "where nothing spilled, the warp per row's best was behind the row kernel",
        lambda f: f.warp_fits and f.warp_fit_behind, states=("behind the row kernel",),
        found=lambda f: f"where nothing spilled ({f.warp_fit_width:,} wide) the warp per row reached "
                        f"{_pd(f.warp_fit_share)} of the copy, the row kernel {_pd(f.warp_fit_row_share)}"
                        if f.warp_fits else
                        f"the warp per row spilled at every width it ran ({f.warp_spill_widths_text})"),
    "one_warp_no_barrier": Guard(
        "the one-warp program's PTX has no barrier", lambda f: f.one_warp_barrier_free,
        states=("has no barrier in its PTX",), found=lambda f: "the one-warp program's PTX has a barrier (bar.sync)"),
    "wider_barriers": Guard(
        "every program of more than one warp has barriers in its PTX", lambda f: f.multi_warp_barriers,
        states=("put barriers in every wider one",),
        found=lambda f: "a program of more than one warp has no barrier (bar.sync) in its PTX"),
    "rerun_apart": Guard(
        "the row kernel's share in the designs run and in the add + RMSNorm table lie a tenth of a point or more "
        "apart", lambda f: f.rerun_shows, states=("can land that far apart",),
        found=lambda f: f"the row kernel's shares in the two processes lie at most "
                        f"{fmt.num(f.rerun_points, 2)} points apart (at {f.rerun_shape}), under a tenth of a point"),
    # SwiGLU
    "divides_both": Guard(
        "both divides matched eager at every input, so both were swept", lambda f: f.divides_swept == "both",
        states=("Neither divide changed a single output",),
        found=lambda f: f"of {f.divide_pairs:,} input pairs the IEEE divide changed {f.ieee_differ:,} outputs and "
                        f"the fast divide {f.approx_differ:,}"),
    "swiglu_near_copy": Guard(
        f"ours and every rival reached {GOAL_SHARE:.0%} of the copy at every large SwiGLU shape",
        lambda f: f.swiglu_all_near_copy, states=("all ran at the copy's speed",),
        found=lambda f: f"the slowest of ours and its rivals at a large shape ran at {_pd(f.swiglu_all_low)} of the "
                        f"copy, under {fmt.pct(GOAL_SHARE)}"),
    "swiglu_behind_no_run": Guard(
        "in no run was ours behind a rival at a large SwiGLU shape", lambda f: f.swiglu_behind_no_run,
        states=("ours was behind no rival",),
        found=lambda f: f"ours was behind a rival at some large shape in {f.swiglu_behind_runs} of "
                        f"{f.swiglu_runs} runs" + (f" (the newest: {at_words(f.swiglu_behind)})"
                                                  if f.swiglu_behind else "")),
    "swiglu_met_every_run": Guard(
        "in every run ours cleared the bar at every large SwiGLU shape", lambda f: f.swiglu_met_every_run,
        states=("cleared the bar at every large shape",),
        found=lambda f: f"ours cleared the bar at every large shape in {f.swiglu_met_runs} of {f.swiglu_runs} runs "
                        f"(the newest: at {f.swiglu_met} of {f.swiglu_big})"),
    "swiglu_newest_ahead": Guard(
        "in the newest run ours was ahead of every rival at some large SwiGLU shape", lambda f: f.swiglu_newest_ahead,
        states=("it was ahead of every rival at",),
        found=lambda f: f"in the newest run ours was ahead of every rival at none of the {f.swiglu_big} large shapes"),
    "swiglu_newest_level": Guard(
        "in the newest run ours was level with a rival at some large SwiGLU shape", lambda f: f.swiglu_newest_level,
        states=("and level with",),
        found=lambda f: f"in the newest run ours was level with no rival at any of the {f.swiglu_big} large shapes"),
    "copy_ahead_most": Guard(
        "ours was ahead of the same-bytes copy at most large SwiGLU shapes", lambda f: 2 * f.copy_ahead > f.swiglu_big,
        states=("ahead of the copy itself at most",),
        found=lambda f: f"SwiGLU was ahead of its copy at only {f.copy_ahead} of {f.swiglu_big} large shapes"
                        + (f", behind it at {f.copy_behind}, by {abs(f.copy_behind_low_us):.2f} to "
                           f"{abs(f.copy_behind_us):.2f} µs" if f.copy_behind else "")),
    "copy_not_limit": Guard(
        "at some large shape ours ran SwiGLU faster than its same-bytes copy, so that copy is not the bandwidth limit",
        lambda f: f.swiglu_share_high > 1, states=("not the bandwidth limit",),
        found=lambda f: f"ours reached at most {_pd(f.swiglu_share_high)} of the copy's speed at the large "
                        f"SwiGLU shapes"),
    "copy_ahead_same": Guard(
        "ours was ahead of the copy at as many large SwiGLU shapes in every run", lambda f: f.swiglu_copy_ahead_same,
        states=("shapes, in every run",),
        found=lambda f: f"ours was ahead of the copy at {f.copy_ahead_low} to {f.copy_ahead_high} large shapes, "
                        f"from run to run"),
    "compiled_level": Guard(
        "in the newest run torch.compile was level with ours at some large SwiGLU shape",
        lambda f: f.swiglu_compiled_level, states=("torch.compile was level with ours at",),
        found=lambda f: "ours was ahead of torch.compile at every large shape"
                        + (f", level only with {f.swiglu_level_text}" if f.swiglu_level_text else ""),
        instead=(lambda f: not f.swiglu_compiled_level,
                "in the newest run ours was level with torch.compile at no large SwiGLU shape")),
    "compiled_inexact": Guard(
        "where torch.compile was level with ours it differed from eager's output while ours did not",
        # where it was level nowhere, compiled_level says so: this clause only speaks of where it was
        lambda f: not f.swiglu_compiled_level or (f.inexact_shows and f.inexact_compiled and f.inexact_level),
        states=("but not exact",),
        found=lambda f: f"where {f.inexact_rival or 'a rival'} was level with ours, its output matched eager's as "
                        f"ours did",
        instead=(lambda f: not f.inexact_shows,
                "where a rival was level with ours, it matched eager's output as ours did")),
    "probe_moves_more": Guard(
        "in some run placements moved ours more than it differed from any rival at the shape drawn",
        lambda f: 0 < f.probe_more_runs, states=("more than its median difference from any rival",),
        found=lambda f: f"at {f.probe_shape} placements moved ours by up to {fmt.num(f.probe_ours_us, 2)} µs, no "
                        f"more than its median difference from a rival ({fmt.num(f.probe_rival_us, 2)} µs), in every "
                        f"run"),
    "beat_copy_ieee": Guard(
        "ours beat the copy somewhere, each time with the IEEE divide", lambda f: f.beat_copy_all_ieee,
        states=("Wherever ours beat the copy, it ran the IEEE divide",),
        found=lambda f: f"ours beat the copy at {f.copy_ahead} large shapes, {f.copy_ahead_ieee} of them with the "
                        f"IEEE divide"),
    "ieee_holds_fewer": Guard(
        "with the IEEE divide an SM holds fewer of the kernel's programs", lambda f: f.ieee_holds_fewer,
        states=("That divide costs registers",),
        found=lambda f: f"an SM holds {f.held_ieee} of the kernel's programs with the IEEE divide and "
                        f"{f.held_approx} with the fast one"),
    "swiglu_newest_noisy": Guard(
        "in the newest run a SwiGLU figure stayed noisy at a large shape", lambda f: f.swiglu_newest_noisy_big,
        states=("still noisy at a large shape",),
        found=lambda f: "every SwiGLU figure at every large shape was quiet in the newest run",
        instead=(lambda f: not f.swiglu_newest_noisy_big,
                "every SwiGLU figure at every large shape was quiet in the newest run")),
}
