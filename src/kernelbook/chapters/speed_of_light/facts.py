"""The numbers and verdicts of docs/speed-of-light.md, from speed_of_light.add_rmsnorm, speed_of_light.swiglu and
speed_of_light.designs on one machine, and the goal they are held to.

The goal: at every shape that moves at least BIG_BYTES, our best kernel reaches GOAL_SHARE of the same-bytes copy
and no rival is ahead of it. Who is ahead is read from the strongest evidence a shape has. Where it was timed on
paired placements (every version once on each, speed_of_light.swiglu), ours minus a rival on the same buffers gives
a bootstrap interval for the median difference: ours is ahead where it lies below zero, behind where it lies above,
level where it straddles zero. Ahead and level both meet the goal; only behind misses it (issue 26: where ours and
a rival both run at the copy's speed, the bytes leave a kernel little room to pull ahead of the other). Where a
shape has no placements, the rounds decide, and ours must have a strictly lower median than each rival: a tie
there is not ahead.

A median still noisy when its rounds stopped (bench.py's criterion, method.py) does not decide on its own. Where ours
or a rival is noisy, the rounds are read as pairs (every version ran on the same placement in a round): ours minus
the rival, round by round, gives the same bootstrap interval as the placements, and a straddling interval is
*noisy*, neither ahead nor behind. The share is read the same way: where ours or the copy is noisy, the shape is at
the goal's share only if every round is, under it only if no round is, and else noisy. A shape whose share or
standing is noisy, and nothing decidedly misses, has the goal *noisy* there: neither met nor missed.

The shares of the copy the page quotes, and the figures built from them (MERGED), are read as its tables show them:
from `merged`, each version's median time at each shape over the runs of the current code, a share being the
copy's median time over the version's. So a range in a sentence is the lowest and highest cell of its table, and
derive hands them to kernelbook.factbook as they are, with their hover text. The verdicts and words stay the newest
run's and the counts become medians over the runs, as the factbook's one rule has them; a table column that shows
one run (a configuration, a goal mark) says it is the newest run's. Where the runs' verdicts differ,
figures.every_run_fields counts what each fresh run said (in how many the goal was met everywhere, say), and the
words the page names as the newest run's are read from the newest run itself, so that a paragraph holds whichever
run's words it is read with.

How each figure is computed from the stored runs, and the goal's constants, are in figures.py. No sentence is
written here: the page's Markdown reads these fields (lists of names come joined as words), and GUARDS in guards.py
names what its paragraphs take the data to decide; each is driven both ways in tests/test_facts_speed_of_light.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelbook import across, read
from kernelbook.chapters.speed_of_light.figures import (  # the goal's constants and the records the Facts hold
    ADD,
    BIG_BYTES,
    DESIGNS,
    GOAL_SHARE,
    SWIGLU,
    AtShape,
    Goal,
    Noise,
    Open,
    Swept,
    Under,
    add_fields,
    compiled_over_fusion,
    designs_fields,
    every_run_fields,
    merged,
    probe,
    swiglu_fields,
)
from kernelbook.stats import CONFIDENCE

FAR_BELOW_POINTS = 0.10  # F.rms_norm "far below the rest" of the share figure: this share of the copy or more below


@dataclass(frozen=True)
class Facts:
    gpu: str
    goal_share: float
    big_mib: int
    confidence: float
    # how add + RMSNorm was timed
    rounds: int  # the fewest rounds a shape ran (min_rounds, or more where a version stayed noisy)
    add_noise: Noise
    add_all_quiet: bool  # every version quiet at every shape
    add_rounds_vary: bool  # the shapes ran different numbers of rounds
    graph_calls: int
    finalists: int
    small_rows_low: int
    small_rows_high: int
    copy_round_spread: float  # the copy's widest range over its rounds at a large shape, over its fastest round
    add_own_placements: bool  # every round at every shape ran on a placement no other round used (the pool held all)
    add_pool_low: int  # the fewest placements a shape's pool held
    add_pool_shape: str  # ... at this shape
    add_y_max_steps: int  # ours' normalised output, at most this many bf16 steps from eager (its check, every shape)
    # add + RMSNorm against the copy and its rivals
    add_rivals: tuple[str, ...]  # the rivals that ran
    add_big: int  # shapes that count for the goal
    add_share_low: float
    add_share_high: float
    add_at_share: int  # shapes at the goal's share
    add_ahead: int  # shapes where ours is behind no rival
    add_all_ahead: bool
    add_not_ahead: tuple[AtShape, ...]  # the rivals ours was not ahead of, by shape
    add_met: int
    add_goal_met: bool  # at every shape that counts
    add_goal: Goal  # met at every shape, missed at one, else noisy
    add_goal_noisy: tuple[str, ...]  # shapes where noise left the goal undecided
    add_one_row_picked: int  # shapes that count whose fastest configuration has one row per program
    one_row_low: float
    one_row_high: float
    one_row_gap_points: float  # the one-row kernel's widest distance from ours, in points of the copy
    one_row_close: bool  # the one-row kernel at NEAR_COPY of the copy or more at every large shape
    tile_low: float  # the copy cut into programs of the kernel's tile, large shapes
    tile_high: float
    tile_margin_points: float
    tile_never_ahead: bool  # never TILE_MARGIN or more ahead of the kernel
    tile_lead_points: float  # its largest lead over the kernel (points; below zero: it was behind everywhere)
    tile_lead_shape: str
    add_all_at_share: bool
    add_under: tuple[Under, ...]
    add_under_copy_kib: tuple[int, ...]  # the KiB of each tensor a program of the fastest copy held there
    small_share_low: float  # decode-sized shapes
    small_share_high: float
    small_tile_low: float
    small_tile_high: float
    small_own_work_points: float  # the most the kernel lost beyond the tile-sized copy, in points
    small_own_work_shows: bool
    large_copy_gib: float
    large_copy_gbps: float
    rms_norm_share_high: float  # F.rms_norm's highest share of the copy at a shape the share figure draws
    figure_share_low: float  # the lowest share of any version that figure draws (medians over the runs, merged)
    # the other designs
    designs_rounds: int
    designs_noise: Noise
    designs_all_quiet: bool
    designs_rounds_vary: bool
    designs_finalists: int
    designs_y_max_steps: int
    design_low: dict[str, float]  # by data key: each design's lowest and highest share of the copy
    design_high: dict[str, float]
    row_kernel_spread: bool  # the lowest and highest share differ as the page writes them (rounded down, 0.1%)
    persistent_spread: bool
    split_row_spread: bool
    warp_rows_spread: bool
    designs_none_ahead: bool  # no other design ahead of the row kernel at any shape
    designs_ahead: tuple[AtShape, ...]
    rerun_shows: bool  # the row kernel's share here and in speed_of_light.add_rmsnorm differ by RERUN_SHOWN or more
    rerun_shape: str  # where they differ most
    rerun_points: float
    rerun_higher: bool  # higher here than there
    rerun_here: float  # the row kernel's share there, in the designs table (medians over the runs, merged)
    rerun_main: float  # ... and ours' share there in the add + RMSNorm table
    warp_not_run: bool  # some width where a row cannot fit in one warp's registers
    warp_not_run_width: int
    warp_elements_per_thread: int
    warp_registers_for_x: int
    warp_registers: int  # the most a thread can have
    warp_fits: bool  # some width where no configuration spilled
    warp_fit_width: int  # the fastest of those
    warp_fit_share: float
    warp_fit_row_share: float  # the row kernel's share there
    warp_fit_behind: bool
    warp_spills: bool  # some width where every configuration spilled
    warp_spill_widths: tuple[int, ...]
    warp_spill_share: float  # the best share among those
    one_warp_barrier_free: bool  # no bar.sync in the one-warp program's PTX, at any width
    multi_warp_barriers: bool  # bar.sync in every program of more warps
    # SwiGLU
    swiglu_rivals: tuple[str, ...]
    divide_pairs: int
    ieee_differ: int
    approx_differ: int
    divides_swept: Swept
    approx_won: int  # large shapes whose best configuration used the approximate divide
    swiglu_big: int
    swiglu_share_low: float
    swiglu_share_high: float
    swiglu_kernels: int  # ours and the rivals that ran
    swiglu_spread_points: float  # the widest distance between ours and its rivals at a large shape, in the rounds
    swiglu_all_near_copy: bool  # ours and every rival at the goal's share or more, every large shape
    swiglu_all_low: float  # the lowest share of ours and its rivals at a large shape, in the rounds
    placements_low: int
    placements_high: int
    placements_vary: bool
    swiglu_ahead_shapes: tuple[str, ...]  # ahead of every rival
    swiglu_any_ahead: bool
    swiglu_level: tuple[AtShape, ...]
    swiglu_compiled_level: bool  # torch.compile among the rivals ours is level with at some large shape (newest run)
    swiglu_any_level: bool
    swiglu_behind: tuple[AtShape, ...]
    swiglu_any_behind: bool
    swiglu_at_share: int
    swiglu_met: int
    swiglu_goal_met: bool
    swiglu_goal: Goal
    swiglu_goal_noisy: tuple[str, ...]
    swiglu_noise: Noise
    swiglu_all_quiet: bool  # every figure of its table quiet at every shape
    swiglu_rounds_vary: bool  # its shapes ran different numbers of rounds
    swiglu_noisy_big: bool  # some figure of its table still noisy at a large shape
    inexact_shows: bool  # a rival ours was not ahead of does not give eager's output, where ours does
    inexact_rival: str
    inexact_compiled: bool  # that rival is torch.compile, whose kernel a probe read (results/PROBES.md)
    inexact_level: bool  # ours level with that rival there (else behind it)
    inexact_shape: str
    inexact_share: float  # of the elements
    inexact_steps: int
    copy_ahead: int  # large shapes where ours is ahead of the copy, over the paired placements
    copy_level: int
    copy_behind: int
    copy_behind_any: bool
    copy_behind_us: float  # the largest median difference where ours is behind the copy
    copy_behind_low_us: float  # ... and the smallest
    copy_behind_share: float  # ... over the copy's median time there
    copy_ahead_ieee: int  # of the shapes ahead of the copy, those whose best configuration used the IEEE divide
    beat_copy_any: bool
    beat_copy_all_ieee: bool
    probe_shape: str  # where the placement figure is drawn
    probe_widest: str  # the version whose time moved most between placements there
    probe_widest_us: float
    probe_ours_us: float
    probe_moves_more: bool  # ours' own range over placements exceeds its median difference from every rival
    probe_rival_us: float  # ours' largest median difference from a rival there
    regs_ieee: int  # per thread, the chapter's launch
    regs_approx: int
    reg_warps: int
    held_ieee: int  # programs per SM
    held_approx: int
    ieee_holds_fewer: bool
    # what the page reads as words or flat figures (the lists above, joined; the dicts above, one field a figure)
    bound_pct: float  # add + RMSNorm's stopping criterion (add_noise), flat so that it takes a FORMATS entry
    cap_s: float
    min_rounds: int
    max_rounds: int
    add_rivals_text: str  # 'torch.compile, Liger-Kernel and F.rms_norm'
    add_goal_noisy_text: str  # the shapes where noise left the goal undecided, as words
    add_open: Open
    add_open_share: float  # ours' share of the copy at add_open's shape, from the medians over the runs (merged)
    add_shares: dict[str, float]  # ours' share of the copy by shape ('8,192 × 4,096'), from the medians (merged)
    row_kernel_low: float  # each design's lowest and highest share of the copy (design_low, design_high)
    row_kernel_high: float
    persistent_low: float
    persistent_high: float
    split_row_low: float
    split_row_high: float
    warp_rows_low: float
    warp_rows_high: float
    warp_spill_widths_text: str  # '8,192'
    swiglu_rivals_text: str  # 'torch.compile and Liger-Kernel'
    swiglu_noisy_text: str  # what stayed noisy at a large shape: 'torch.compile and Liger-Kernel at 8,192 × 4,096'
    swiglu_ahead_text: str  # the shapes where ours is ahead of every rival
    swiglu_level_text: str  # the rivals ours is level with, by shape
    # over every fresh run (the same whichever run the one rule reads); the words above that the page says are the
    # newest run's (add_open, add_goal_noisy_text, swiglu_noisy_text, swiglu_ahead_text, swiglu_level_text, inexact_*)
    # are read from the newest run itself
    add_runs: int
    add_ahead_every_run: bool  # ours ahead of every rival at every large shape, in every run
    add_ahead_runs: int  # runs in which it was
    add_missed_no_run: bool  # the goal missed at no large shape in any run
    add_missed_runs: int  # runs in which it was missed at some large shape
    add_met_runs: int  # runs in which the goal was met at every large shape
    add_newest_noisy: tuple[str, ...]  # the shapes the newest run left undecided
    add_newest_under: int  # large shapes not decidedly at the share in the newest run
    swiglu_runs: int
    swiglu_quiet_big_runs: int  # runs with every figure quiet at every large shape
    swiglu_newest_noisy_big: bool
    swiglu_same_placements: bool  # as many placements at every large shape, in every run
    swiglu_behind_no_run: bool  # ours behind no rival anywhere, in any run
    swiglu_behind_runs: int  # runs in which ours was behind a rival somewhere
    swiglu_met_every_run: bool
    swiglu_met_runs: int  # runs in which the goal was met at every large shape
    swiglu_copy_ahead_same: bool  # ours ahead of the copy at as many large shapes in every run
    copy_ahead_low: int  # the fewest and most large shapes where ours was ahead of the copy, in one run
    copy_ahead_high: int
    copy_behind_runs: int  # runs in which ours was behind the copy at some large shape
    copy_behind_most: int  # the most large shapes it was behind the copy at, in one run
    swiglu_all_ahead_runs: int  # runs with ours ahead of every rival at every large shape
    swiglu_newest_ahead: bool  # the newest run: ours ahead of every rival at some shape
    swiglu_newest_level: bool  # ... level with one at some shape
    inexact_runs: int  # runs in which torch.compile, level with ours, differed from eager where ours did not
    probe_more_runs: int  # runs in which placements moved ours more than it differed from any rival (probe shape)
    # torch.compile against the fusion chapter's own kernels (figures.FUSION_KERNEL) at that chapter's shape, by graph
    # replay: GPU time, the host side left out. One run's figure, so that the one rule gives the median over the runs;
    # docs/fusing-by-hand.md quotes the same figures (fusing_by_hand.facts reads them with the same function)
    fusion_shape: str  # '8,192 × 4,096'
    fusion_norm_ratio: float  # torch.compile's time over the one-row kernel's (speed_of_light.add_rmsnorm)
    fusion_swiglu_ratio: float  # ... over the chapter's SwiGLU launch's (speed_of_light.swiglu)


FORMATS = {  # how each figure of the page reads (kernelbook.macros); shares of the copy read rounded down, | pct_down
    # shares of the copy round down, so that a share under 98% never prints as 98%
    "add_share_low": "pct_down:1",
    "add_share_high": "pct_down:1",
    "one_row_low": "pct_down:1",
    "one_row_high": "pct_down:1",
    "tile_low": "pct_down:1",
    "tile_high": "pct_down:1",
    "small_share_low": "pct_down:1",
    "small_share_high": "pct_down:1",
    "small_tile_low": "pct_down:1",
    "small_tile_high": "pct_down:1",
    "row_kernel_low": "pct_down:1",
    "row_kernel_high": "pct_down:1",
    "persistent_low": "pct_down:1",
    "persistent_high": "pct_down:1",
    "split_row_low": "pct_down:1",
    "split_row_high": "pct_down:1",
    "warp_rows_low": "pct_down:1",
    "warp_rows_high": "pct_down:1",
    "warp_fit_share": "pct_down:1",
    "warp_fit_row_share": "pct_down:1",
    "warp_spill_share": "pct_down:1",
    "swiglu_share_low": "pct_down:1",
    "swiglu_share_high": "pct_down:1",
    "add_open_share": "pct_down:1",
    "rerun_here": "pct_down:2",  # two digits: the guard weighs a tenth of a point
    "rerun_main": "pct_down:2",
    "goal_share": "pct:0", "confidence": "pct:0", "copy_round_spread": "pct:1", "inexact_share": "pct:0",
    "large_copy_gib": "num:0", "large_copy_gbps": "num:0", "small_own_work_points": "num:0",
    "one_row_gap_points": "num:1", "tile_margin_points": "num:1", "rerun_points": "num:1",
    "swiglu_spread_points": "num:1", "bound_pct": "num:1", "cap_s": "num:0",
    "probe_ours_us": "num:2", "probe_widest_us": "num:2",
    # counts: a median over an even number of runs must not read '1.0'
    "swiglu_quiet_big_runs": "num:0", "swiglu_runs": "num:0", "copy_ahead": "num:0", "swiglu_big": "num:0",
    "probe_more_runs": "num:0",
    "fusion_norm_ratio": "times:3", "fusion_swiglu_ratio": "times:3",
}


def from_data(add: dict[str, Any], swiglu: dict[str, Any], designs: dict[str, Any], gpu: str,
              runs: dict[str, list[dict[str, Any]]] | None = None, fusion: tuple[int, int] | None = None) -> Facts:
    """The facts of one run of each experiment (the verdicts, counts and words), with every share of the copy read
    from the medians over `runs` (each experiment's runs of the current code, oldest first; default: the one run
    given), as the tables show them (merged). `fusion` is the fusion chapter's shape (rows, width); by default the
    probe shape, where that chapter times its versions (tests/test_facts_fusing_by_hand.py holds the two alike)."""
    runs = runs or {}
    shape = fusion or (probe(swiglu)["rows"], probe(swiglu)["hidden"])
    m_add, m_sw, m_designs = (merged(runs.get(e) or [d]) for e, d in ((ADD, add), (SWIGLU, swiglu),
                                                                       (DESIGNS, designs)))
    sw_runs = runs.get(SWIGLU) or [swiglu]
    fields = {**add_fields(add, m_add), **designs_fields(m_designs, m_add), **swiglu_fields(swiglu, m_sw, sw_runs),
              **every_run_fields(runs.get(ADD) or [add], m_add, sw_runs, m_sw)}
    return Facts(gpu=gpu, goal_share=GOAL_SHARE, big_mib=BIG_BYTES >> 20, confidence=CONFIDENCE, **fields,
                 fusion_shape=f"{shape[0]:,} × {shape[1]:,}",
                 fusion_norm_ratio=compiled_over_fusion(add, ADD, *shape),
                 fusion_swiglu_ratio=compiled_over_fusion(swiglu, SWIGLU, *shape))


def facts(machine: str | None = None) -> Facts:
    r = read.result(ADD, machine)
    return from_data(r.data, read.result(SWIGLU, machine).data, read.result(DESIGNS, machine).data,
                     read.machine_label(r), {e: across.datas(e, machine) for e in (ADD, SWIGLU, DESIGNS)})


# the figures read from the medians over the runs (merged): the same in every run the one rule computes them for, so
# derive passes them on unchanged, and their hover text says how they were obtained
MERGED = ("add_share_low", "add_share_high", "add_open_share", "one_row_low", "one_row_high", "one_row_gap_points",
          "tile_low", "tile_high", "tile_lead_points", "small_share_low", "small_share_high", "small_tile_low",
          "small_tile_high", "small_own_work_points", "row_kernel_low", "row_kernel_high", "persistent_low",
          "persistent_high", "split_row_low", "split_row_high", "warp_rows_low", "warp_rows_high", "warp_fit_share",
          "warp_fit_row_share", "warp_spill_share", "rerun_points", "swiglu_share_low", "swiglu_share_high",
          "swiglu_spread_points", "probe_widest_us", "probe_ours_us", "rerun_here", "rerun_main")
SHARES_FROM = ("each version's time at each shape over the runs (a share: the copy's median time over the version's), "
               "as in the tables",)
DERIVED_FROM = {**dict.fromkeys(MERGED, SHARES_FROM),
                **dict.fromkeys(("probe_widest_us", "probe_ours_us"),
                                ("each run's range over its placements at the probe shape",))}


def derive(f: Facts) -> dict[str, Any]:
    """The figures of MERGED as computed: already from the medians over the runs. add_open_share again for the
    shape add_open names (the newest run's verdict picks the shape; the median over the runs gives its share)."""
    return {**{n: getattr(f, n) for n in MERGED}, "add_open_share": f.add_shares.get(f.add_open.shape, 0.0)}
