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
one run (a configuration, a goal mark) says it is the newest run's. Where the runs' verdicts differ, _every_run
counts what each fresh run said (in how many the goal was met everywhere, say), and the words the page names as the
newest run's are read from the newest run itself, so that a paragraph holds whichever run's words it is read with.

No sentence is written here: the page's Markdown reads these fields (lists of names come joined as words), and
GUARDS below names what its paragraphs take the data to decide; each is driven both ways in
tests/test_facts_speed_of_light.py.
"""

from __future__ import annotations

import copy
import statistics
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, page
from kernelbook.guards import Guard
from kernelbook.stats import CONFIDENCE, paired

GOAL_SHARE = 0.98  # the goal, not a measurement
BIG_BYTES = 64 << 20  # a shape counts for the goal from this many bytes moved
# an sm_90 SM's register file, 65,536 32-bit registers, handed to warps in units of 256 (the CUDA occupancy
# calculator's figures for compute capability 9.0; architecture, not measurement)
REGS_PER_SM, REG_UNIT = 65536, 256
NEAR_COPY = 0.95  # the one-row kernel "comes close to the copy" at this share or more at every large shape
TILE_MARGIN = 0.005  # the tile-sized copy "ahead of the kernel" by this share or more
FAR_BELOW_POINTS = 0.10  # F.rms_norm "far below the rest" of the share figure: this share of the copy or more below
FIGURE_LEAVES_OUT = ("rms_norm", "ours_heuristic")  # what snippets/speed-of-light/share_figure.py leaves to the table
SHOWN = 0.005  # a difference of shares smaller than this (half a point) is not worth a clause
RERUN_SHOWN = 0.001  # two runs of the row kernel "land apart" from a tenth of a point
ADD, SWIGLU, DESIGNS = "speed_of_light.add_rmsnorm", "speed_of_light.swiglu", "speed_of_light.designs"
OURS = "ours"  # the data key of our best configuration, in both goal experiments
RIVALS = {ADD: ("compiled", "liger", "rms_norm"), SWIGLU: ("compiled", "liger")}
OTHER_DESIGNS = ("persistent", "split_row", "warp_rows")
LABELS = {  # display labels of the versions' data keys: the one table the tables, figures and fields use
    "copy": "same-bytes copy",
    "copy_tiled": "same-bytes copy, kernel-sized programs",
    "ours": "ours (best configuration)",
    "ours_heuristic": "ours (heuristic configuration)",
    "one_row": "one-row Triton",
    "chapter": "Triton (chapter's block)",
    "compiled": "torch.compile",
    "liger": "Liger-Kernel",
    "rms_norm": "F.rms_norm",
    "eager": "eager",
    "row_kernel": "row kernel",
    "persistent": "persistent",
    "split_row": "split row",
    "warp_rows": "warp per row",
}
Verdict = Literal["ahead", "level", "behind", "noisy"]
Goal = Literal["met", "missed", "noisy"]
Swept = Literal["both", "ieee", "approx"]  # the divides that matched eager at every input, and so were swept


# ---- the goal -----------------------------------------------------------------------------------------------------

def shape_text(shape: dict[str, Any]) -> str:
    """A stored shape as the pages write it: '8,192 × 4,096' (rows × width)."""
    return f"{shape['rows']:,} × {shape['hidden']:,}"


def big(shape: dict[str, Any]) -> bool:
    return shape["bytes"] >= BIG_BYTES


def against(shape: dict[str, Any], others: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Ours against each of `others` on the shape's paired placements (empty where it has none)."""
    ms = shape.get("placements", {})
    return {o: paired(ms[OURS], ms[o]) for o in others if OURS in ms and o in ms}


def quiet(t: dict[str, Any]) -> bool:
    """A version's rounds stopped quiet (bench.py); a result from before the criterion counts as quiet."""
    return t.get("quiet", True)


def in_rounds(ours: dict[str, Any], rival: dict[str, Any]) -> Verdict:
    """Ours against a rival timed in the same rounds: a strictly lower median is ahead, anything else behind, where
    both are quiet; where either is noisy, the interval of their round-by-round differences decides (noisy where
    it straddles zero)."""
    if quiet(ours) and quiet(rival):
        return "ahead" if ours["ms"] < rival["ms"] else "behind"
    if len(ours["values"]) != len(rival["values"]):  # a version that failed mid-run: the rounds do not pair
        return "noisy"
    verdict = paired(ours["values"], rival["values"])["verdict"]
    return "noisy" if verdict == "level" else verdict


def standing(shape: dict[str, Any], experiment: str) -> dict[str, Verdict]:
    """Ours against each rival that ran at this shape: over its paired placements where it has them, else in the
    rounds (in_rounds)."""
    if pairs := against(shape, RIVALS[experiment]):
        return {o: p["verdict"] for o, p in pairs.items()}
    v = shape["versions"]
    return {o: in_rounds(v[OURS], v[o]) for o in RIVALS[experiment] if "ms" in v.get(o, {})}


def behind(shape: dict[str, Any], experiment: str) -> list[str]:
    """The rivals that keep ours from the goal at this shape: those it is behind. Level is not behind."""
    return [o for o, verdict in standing(shape, experiment).items() if verdict == "behind"]


def share_verdict(shape: dict[str, Any]) -> Literal["at", "under", "noisy"]:
    """Ours at the goal's share of the copy: by the medians where both are quiet, else by every round's share."""
    v = shape["versions"]
    copy, ours = v.get("copy", {}), v[OURS]
    if quiet(copy) and quiet(ours):
        return "at" if ours["share_of_copy"] >= GOAL_SHARE else "under"
    at = [c / o >= GOAL_SHARE for c, o in zip(copy["values"], ours["values"], strict=False)]
    return "at" if at and all(at) else "under" if not any(at) else "noisy"


def at_share(shape: dict[str, Any]) -> bool:
    return share_verdict(shape) == "at"


def goal(shape: dict[str, Any], experiment: str) -> Goal:
    """The goal at one shape that counts: missed where the share is under it or a rival ahead, else noisy where the
    share or a standing is noisy, else met."""
    share, stands = share_verdict(shape), set(standing(shape, experiment).values())
    if share == "under" or "behind" in stands:
        return "missed"
    return "noisy" if share == "noisy" or "noisy" in stands else "met"


def met(shape: dict[str, Any], experiment: str) -> bool:
    """The goal at one shape: large enough to count, at the share, and behind no rival, none of it noisy."""
    return big(shape) and goal(shape, experiment) == "met"


def goal_of(shapes: list[dict[str, Any]], experiment: str) -> Goal:
    """The goal over the shapes that count: met at all, missed at one, else noisy."""
    at = {goal(s, experiment) for s in shapes if big(s)}
    return "missed" if "missed" in at else "noisy" if "noisy" in at else "met"


def probe(swiglu: dict[str, Any]) -> dict[str, Any]:
    """The issue's probe shape of speed_of_light.swiglu: the one where the compiled kernel's registers were read."""
    return next(s for s in swiglu["shapes"] if "registers" in s)


def programs_per_sm(regs: int, warps: int, threads_per_sm: int) -> int:
    """How many programs of `warps` warps, at `regs` registers per thread, one SM holds at once: the smaller of its
    thread limit and its register file."""
    per_warp = -(-regs * 32 // REG_UNIT) * REG_UNIT
    return min(threads_per_sm // (32 * warps), REGS_PER_SM // (per_warp * warps))


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One experiment's runs of the current code (oldest first) as the tables and the share figures read them: the
    newest run's data, with each timed version's time at each shape (and each finalist's, speed_of_light.designs)
    replaced by its median over the runs that timed it there, and its GB/s and share of the copy computed again
    from those medians, so that a row's share is its copy time over its kernel time as the row shows them. The
    rounds, noise, configurations and verdicts stay the newest run's. One run: its data as stored."""
    if len(runs) == 1:
        return runs[0]
    out = copy.deepcopy(runs[-1])
    for s in out["shapes"]:
        same = [t for d in runs for t in d["shapes"] if (t["rows"], t["hidden"]) == (s["rows"], s["hidden"])]
        _median_times(s["versions"], [t["versions"] for t in same], nbytes=s.get("bytes"))
        for design, configs in s.get("finalist_rounds", {}).items():
            _median_times(configs, [t.get("finalist_rounds", {}).get(design, {}) for t in same])
    out["runs"] = len(runs)
    return out


def _median_times(versions: dict[str, Any], each: list[dict[str, Any]], nbytes: int | None = None) -> None:
    """versions[k]["ms"] -> its median over each run's versions[k]; GB/s (nbytes moved) and the share of the copy
    among the versions follow it."""
    for k, v in versions.items():
        times = [x["ms"] for e in each if "ms" in (x := e.get(k, {}))]
        if "ms" not in v or not times:
            continue
        ms = statistics.median(times)
        if "gbps" in v:  # from the bytes moved, where the shape stores them (else the run's GB/s, rescaled)
            v["gbps"] = nbytes / ms / 1e6 if nbytes else v["gbps"] * v["ms"] / ms
        v["ms"] = v["median"] = ms
        v["runs"] = len(times)
    base = versions.get("copy", {}).get("ms")
    for v in versions.values():
        if "ms" in v and base is not None and "share_of_copy" in v:
            v["share_of_copy"] = base / v["ms"]


# ---- the page's facts ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AtShape:
    """Some versions (display labels) at one shape: the rivals ours was level with there, say."""
    shape: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Under:
    """A large shape where ours did not reach the goal's share, and the KiB of each tensor one of its programs
    holds; noisy where its rounds fell on both sides of the share."""
    shape: str
    share: float
    kib: int
    noisy: bool = False


@dataclass(frozen=True)
class Open:
    """The first large add + RMSNorm shape where ours is not decidedly at the goal's share (under it, or noisy
    about it): its share there, and the KiB of each tensor one program of ours and of the fastest copy held. Empty
    where there is none. A record, so the page reads the newest run's figures of that one shape."""
    shape: str = ""
    share: float = 0.0
    kib: int = 0
    copy_kib: int = 0
    noisy: bool = False


@dataclass(frozen=True)
class Noise:
    """How one experiment's rounds stopped: the criterion, the rounds the shapes ran, and what stayed noisy."""
    bound_pct: float
    min_rounds: int
    max_rounds: int
    cap_s: float
    rounds_low: int
    rounds_high: int
    shapes: int
    quiet_shapes: int  # shapes whose rounds stopped with every version quiet
    all_quiet: bool
    noisy_big: tuple[AtShape, ...]  # the versions the page reports (not the finalists) still noisy, large shapes
    noisiest_label: str  # the noisiest reported version at a large shape
    noisiest_shape: str
    noisiest_pct: float


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
    "rerun_here": "pct_down:1",
    "rerun_main": "pct_down:1",
    "goal_share": "pct:0", "confidence": "pct:0", "copy_round_spread": "pct:1", "inexact_share": "pct:0",
    "large_copy_gib": "num:0", "large_copy_gbps": "num:0", "small_own_work_points": "num:0",
    "one_row_gap_points": "num:1", "tile_margin_points": "num:1", "rerun_points": "num:1",
    "swiglu_spread_points": "num:1", "bound_pct": "num:1", "cap_s": "num:0",
    "probe_ours_us": "num:2", "probe_widest_us": "num:2",
    # counts: a median over an even number of runs must not read '1.0'
    "swiglu_quiet_big_runs": "num:0", "swiglu_runs": "num:0", "copy_ahead": "num:0", "swiglu_big": "num:0",
    "probe_more_runs": "num:0",
}

def _pd(x: float) -> str:
    return page.pct_down(x, 1)


def _us(x: float) -> str:
    return f"{x:+.2f} µs"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    # the result, and what it means
    "add_large_at_copy": Guard(
        f"at every large shape the fused add + RMSNorm reaches {GOAL_SHARE:.0%} of the copy (medians over the runs)",
        lambda f: f.add_share_low >= GOAL_SHARE,
        states=(("the fused add + RMSNorm kernel ran at", "it runs at about the speed of a copy"),),
        found=lambda f: f"the fused add + RMSNorm ran at {_pd(f.add_share_low)} of the copy at its slowest large "
                        f"shape, under {page.pct(GOAL_SHARE)}"),
    "swiglu_large_at_copy": Guard(
        f"at every large shape the fused SwiGLU reaches {GOAL_SHARE:.0%} of the copy (medians over the runs)",
        lambda f: f.swiglu_share_low >= GOAL_SHARE,
        states=(("and the fused SwiGLU at", "it runs at about the speed of a copy"),),
        found=lambda f: f"the fused SwiGLU ran at {_pd(f.swiglu_share_low)} of the copy at its slowest large shape, "
                        f"under {page.pct(GOAL_SHARE)}"),
    "small_under": Guard(
        f"at no decode-sized shape does add + RMSNorm reach {GOAL_SHARE:.0%} of the copy",
        lambda f: f.small_share_high < GOAL_SHARE,
        states=(("reached only", "the copy's speed is out of reach"),),
        found=lambda f: f"at decode sizes add + RMSNorm reached up to {_pd(f.small_share_high)} of the copy"),
    "small_own_work": Guard(
        "at decode sizes the kernel loses half a point or more beyond the copy with its program size",
        lambda f: f.small_own_work_shows,
        states=(("the kernel's own work on each row cost up to", "the work on each row costs time of its own"),),
        found=lambda f: f"at decode sizes the kernel lost at most {page.num(f.small_own_work_points, 1)} points "
                        f"beyond the copy with its program size"),
    # add + RMSNorm against the bar
    "add_ahead_every_run": Guard(
        "in every run ours was ahead of every rival at every large add + RMSNorm shape",
        lambda f: f.add_ahead_every_run, states=("ours was ahead of every rival at every such shape",),
        found=lambda f: f"ours was ahead of every rival at every large shape in {f.add_ahead_runs} of {f.add_runs} "
                        f"runs" + (f" (the newest: not ahead of {_at_words(f.add_not_ahead)})"
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
        absent=(lambda f: not f.add_newest_noisy,
                "noisy rounds left no large add + RMSNorm shape undecided in the newest run")),
    "add_open_programs": Guard(
        "at the first large shape not decidedly at the bar's share, a program of ours held more of each tensor than "
        "one of the fastest copy",
        lambda f: f.add_open.kib > f.add_open.copy_kib > 0, states=("a program of ours held",),
        found=lambda f: f"at {f.add_open.shape} a program of ours held {f.add_open.kib} KiB of each tensor, one of "
                        f"the fastest copy {f.add_open.copy_kib} KiB",
        absent=(lambda f: not f.add_open.shape,
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
                        f"under {page.pct(NEAR_COPY)}"),
    "tile_never_ahead": Guard(
        "a copy cut into the kernel's program size is never half a point or more ahead of the kernel",
        lambda f: f.tile_never_ahead, states=("was never half a point or more ahead",),
        found=lambda f: f"a copy cut into the kernel's program size was {page.num(f.tile_lead_points, 1)} points "
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
        found=lambda f: f"{_at_words(f.designs_ahead)} ran ahead of the row kernel"),
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
                        f"{page.num(f.rerun_points, 2)} points apart (at {f.rerun_shape}), under a tenth of a point"),
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
                        f"copy, under {page.pct(GOAL_SHARE)}"),
    "swiglu_behind_no_run": Guard(
        "in no run was ours behind a rival at a large SwiGLU shape", lambda f: f.swiglu_behind_no_run,
        states=("ours was behind no rival",),
        found=lambda f: f"ours was behind a rival at some large shape in {f.swiglu_behind_runs} of "
                        f"{f.swiglu_runs} runs" + (f" (the newest: {_at_words(f.swiglu_behind)})"
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
        absent=(lambda f: not f.swiglu_compiled_level,
                "in the newest run ours was level with torch.compile at no large SwiGLU shape")),
    "compiled_inexact": Guard(
        "where torch.compile was level with ours it differed from eager's output while ours did not",
        # where it was level nowhere, compiled_level says so: this clause only speaks of where it was
        lambda f: not f.swiglu_compiled_level or (f.inexact_shows and f.inexact_compiled and f.inexact_level),
        states=("but not exact",),
        found=lambda f: f"where {f.inexact_rival or 'a rival'} was level with ours, its output matched eager's as "
                        f"ours did",
        absent=(lambda f: not f.inexact_shows,
                "where a rival was level with ours, it matched eager's output as ours did")),
    "probe_moves_more": Guard(
        "in some run placements moved ours more than it differed from any rival at the shape drawn",
        lambda f: 0 < f.probe_more_runs, states=("more than its median difference from any rival",),
        found=lambda f: f"at {f.probe_shape} placements moved ours by up to {page.num(f.probe_ours_us, 2)} µs, no "
                        f"more than its median difference from a rival ({page.num(f.probe_rival_us, 2)} µs), in every "
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
        absent=(lambda f: not f.swiglu_newest_noisy_big,
                "every SwiGLU figure at every large shape was quiet in the newest run")),
}


def words(names: tuple[str, ...] | list[str]) -> str:
    """('a', 'b', 'c') -> 'a, b and c'."""
    names = list(names)
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def _at_words(groups: tuple[AtShape, ...]) -> str:
    """Versions by shape, as words: 'torch.compile and Liger-Kernel at 8,192 × 4,096; F.rms_norm at 1 × 1,536'."""
    return "; ".join(f"{words(g.names)} at {g.shape}" for g in groups)


def _share(shape: dict[str, Any], key: str) -> float | None:
    return shape["versions"].get(key, {}).get("share_of_copy")


def _written_apart(low: float, high: float) -> bool:
    """Whether two shares read differently as the page writes them (rounded down to 0.1%)."""
    return page.pct_down(low) != page.pct_down(high)


def _group(shapes: list[dict[str, Any]], experiment: str, verdict: Verdict) -> tuple[AtShape, ...]:
    return tuple(AtShape(shape_text(s), names) for s in shapes
                 if (names := tuple(LABELS[o] for o, v in standing(s, experiment).items() if v == verdict)))


REPORTED = ("copy", OURS, "copy_tiled", "one_row", "chapter", "compiled", "liger", "rms_norm", "eager",
            "row_kernel", *OTHER_DESIGNS)  # the versions a table shows


def noise(data: dict[str, Any]) -> Noise:
    """How the rounds of one experiment stopped. A result from before the criterion (a fixed count, no noise
    stored) reads as all quiet, with its count as the rounds."""
    shapes = data["shapes"]
    ran = [s["rounds"]["rounds"] if "rounds" in s else data["rounds"] for s in shapes]
    quiet_shapes = [s for s in shapes if all(quiet(v) for v in s["versions"].values() if "ms" in v)]
    large = [s for s in shapes if not s.get("small", False)]
    noisy = tuple(AtShape(shape_text(s), names) for s in large
                  if (names := tuple(LABELS[k] for k in REPORTED if not quiet(s["versions"].get(k, {})))))
    reported = [(v.get("noise_pct") or 0.0, k, s) for s in large for k, v in s["versions"].items()
                if k in REPORTED and "ms" in v]
    pct, key, at = max(reported, key=lambda r: r[0])
    return Noise(bound_pct=data.get("bound_pct", 0.0), min_rounds=data.get("min_rounds", data.get("rounds", 0)),
                 max_rounds=data.get("max_rounds", data.get("rounds", 0)), cap_s=data.get("cap_s", 0.0),
                 rounds_low=min(ran), rounds_high=max(ran), shapes=len(shapes), quiet_shapes=len(quiet_shapes),
                 all_quiet=len(quiet_shapes) == len(shapes), noisy_big=noisy, noisiest_label=LABELS[key],
                 noisiest_shape=shape_text(at), noisiest_pct=pct)


def _add(add: dict[str, Any], med: dict[str, Any]) -> dict[str, Any]:
    shapes = add["shapes"]
    large = [s for s in shapes if big(s)]
    small = [s for s in shapes if s["small"]]
    # the shares, from the medians over the runs (merged), as the tables show them; the verdicts from `add`
    m_large = [s for s in med["shapes"] if big(s)]
    m_small = [s for s in med["shapes"] if s["small"]]
    share = [s["versions"][OURS]["share_of_copy"] for s in m_large]
    one_row = [_share(s, "one_row") for s in m_large]
    tile = [_share(s, "copy_tiled") for s in m_large]
    lead, at = max(((t - b, s) for t, b, s in zip(tile, share, m_large, strict=True)), key=lambda p: p[0])
    under = [s for s in large if not at_share(s)]  # under the share, or noisy about it
    small_share = [s["versions"][OURS]["share_of_copy"] for s in m_small]
    small_tile = [_share(s, "copy_tiled") for s in m_small]
    med_share = {shape_text(s): s["versions"][OURS]["share_of_copy"] for s in med["shapes"]}
    own_work = max(t - x for t, x in zip(small_tile, small_share, strict=True))  # beyond the tile-sized copy
    copies = [s["versions"]["copy"]["values"] for s in shapes if not s["small"]]
    not_ahead = tuple(AtShape(shape_text(s), tuple(LABELS[o] for o in rivals)) for s in large  # behind or noisy
                      if (rivals := [o for o, v in standing(s, ADD).items() if v != "ahead"]))
    ours_y = [c["max_steps"] for s in shapes for k, c in s["check"].items() if k.startswith("y")]
    n_met = sum(met(s, ADD) for s in large)
    add_noise = noise(add)
    # placements a shape's rounds ran on: its pool (method.py), or one a round from before the pool was bounded
    pools = [(s["rounds"].get("placements", s["rounds"]["rounds"]) if "rounds" in s else add["rounds"], s)
             for s in shapes]
    pool_low, pool_at = min(pools, key=lambda p: p[0])
    first = under[0] if under else None
    return dict(
        bound_pct=add_noise.bound_pct, cap_s=add_noise.cap_s, min_rounds=add_noise.min_rounds,
        max_rounds=add_noise.max_rounds, add_goal_noisy_text=words([shape_text(s) for s in large
                                                                    if goal(s, ADD) == "noisy"]),
        add_open=Open(shape_text(first), first["versions"][OURS]["share_of_copy"],
                      first["best_config"][0] * first["hidden"] * 2 // 1024, first["copy_config"][0] * 2 // 1024,
                      share_verdict(first) == "noisy") if first else Open(),
        add_open_share=med_share[shape_text(first)] if first else 0.0, add_shares=med_share,
        rounds=add_noise.rounds_low, add_noise=add_noise, add_all_quiet=add_noise.all_quiet,
        add_rounds_vary=add_noise.rounds_high != add_noise.rounds_low, graph_calls=add["graph_calls"],
        finalists=add["finalists"],
        small_rows_low=min(s["rows"] for s in small), small_rows_high=max(s["rows"] for s in small),
        copy_round_spread=max((max(v) - min(v)) / min(v) for v in copies), add_y_max_steps=max(ours_y),
        add_own_placements=all(n >= (s["rounds"]["rounds"] if "rounds" in s else add["rounds"]) for n, s in pools),
        add_pool_low=pool_low, add_pool_shape=shape_text(pool_at),
        add_rivals=(rivals := tuple(LABELS[o] for o in RIVALS[ADD]
                                    if any("ms" in s["versions"].get(o, {}) for s in shapes))),
        add_rivals_text=words(rivals),
        add_big=len(large), add_share_low=min(share), add_share_high=max(share),
        add_at_share=sum(at_share(s) for s in large), add_ahead=len(large) - len(not_ahead),
        add_all_ahead=not not_ahead, add_not_ahead=not_ahead, add_met=n_met, add_goal_met=n_met == len(large),
        add_goal=goal_of(large, ADD), add_goal_noisy=tuple(shape_text(s) for s in large if goal(s, ADD) == "noisy"),
        add_one_row_picked=sum(s["best_config"][0] == 1 for s in large),
        one_row_low=min(one_row), one_row_high=max(one_row),
        one_row_gap_points=max(abs(a - b) for a, b in zip(share, one_row, strict=True)) * 100,
        one_row_close=min(one_row) >= NEAR_COPY,
        tile_low=min(tile), tile_high=max(tile), tile_margin_points=TILE_MARGIN * 100,
        tile_never_ahead=lead < TILE_MARGIN, tile_lead_points=lead * 100, tile_lead_shape=shape_text(at),
        add_all_at_share=not under,
        add_under=tuple(Under(shape_text(s), s["versions"][OURS]["share_of_copy"],
                              s["best_config"][0] * s["hidden"] * 2 // 1024, share_verdict(s) == "noisy")
                        for s in under),
        add_under_copy_kib=tuple(sorted({s["copy_config"][0] * 2 // 1024 for s in under})),
        small_share_low=min(small_share), small_share_high=max(small_share),
        small_tile_low=min(small_tile), small_tile_high=max(small_tile),
        small_own_work_points=own_work * 100, small_own_work_shows=own_work >= SHOWN,
        large_copy_gib=add["large_copy"]["bytes_moved"] / 2 / 2**30, large_copy_gbps=add["large_copy"]["gbps"],
        rms_norm_share_high=max(x for s in med["shapes"] if not s["small"] if (x := _share(s, "rms_norm")) is not None),
        figure_share_low=min(v["share_of_copy"] for s in med["shapes"] if not s["small"]
                             for k, v in s["versions"].items()
                             if k not in FIGURE_LEAVES_OUT and "share_of_copy" in v),
    )


def _designs(designs: dict[str, Any], add: dict[str, Any]) -> dict[str, Any]:
    """designs and add: the medians over the runs (merged), as the tables show them."""
    shapes = designs["shapes"]
    low = {d: min(x for s in shapes if (x := _share(s, d)) is not None) for d in ("row_kernel", *OTHER_DESIGNS)}
    high = {d: max(x for s in shapes if (x := _share(s, d)) is not None) for d in low}
    ahead = tuple(AtShape(shape_text(s), names) for s in shapes
                  if (names := tuple(LABELS[d] for d in OTHER_DESIGNS
                                     if (x := _share(s, d)) is not None and x > _share(s, "row_kernel"))))
    # the same row kernel at the same shapes in speed_of_light.add_rmsnorm, another process
    main = {(s["rows"], s["hidden"]): s["versions"][OURS]["share_of_copy"] for s in add["shapes"]}
    rerun, at = max(((_share(s, "row_kernel") - main[k], s) for s in shapes if (k := (s["rows"], s["hidden"])) in main),
                    key=lambda d: abs(d[0]))
    ran = [s for s in shapes if "warp_rows" in s["versions"]]
    spilled = {s["hidden"]: [k["local_bytes"] for k in s["warp_rows_kernels"].values()] for s in ran}
    fit = [s for s in ran if max(spilled[s["hidden"]]) == 0]
    spill = [s for s in ran if min(spilled[s["hidden"]]) > 0]
    best_fit = max(fit, key=lambda s: _share(s, "warp_rows"), default=None)
    not_run = sorted((s for s in shapes if "warp_rows" in s["not_run"]), key=lambda s: s["hidden"])
    why = not_run[0]["not_run"]["warp_rows"] if not_run else {}
    barriers = [(c, k["barriers"]) for s in ran for c, k in s["warp_rows_kernels"].items()]
    checks = [c["y"]["max_steps"] for s in shapes for c in s["check"].values()]
    return dict(
        designs_rounds=(dn := noise(designs)).rounds_low, designs_noise=dn, designs_all_quiet=dn.all_quiet,
        designs_rounds_vary=dn.rounds_high != dn.rounds_low, designs_finalists=designs["finalists"],
        designs_y_max_steps=max(checks),
        design_low=low, design_high=high, **{f"{d}_low": low[d] for d in low}, **{f"{d}_high": high[d] for d in high},
        **{f"{d}_spread": _written_apart(low[d], high[d]) for d in low},
        designs_none_ahead=not ahead, designs_ahead=ahead,
        rerun_shows=abs(rerun) >= RERUN_SHOWN, rerun_shape=shape_text(at), rerun_points=abs(rerun) * 100,
        rerun_higher=rerun > 0, rerun_here=_share(at, "row_kernel"), rerun_main=main[(at["rows"], at["hidden"])],
        warp_not_run=bool(not_run), warp_not_run_width=not_run[0]["hidden"] if not_run else 0,
        warp_elements_per_thread=why.get("elements_per_thread", 0), warp_registers_for_x=why.get("registers_for_x", 0),
        warp_registers=why.get("registers", 0),
        warp_fits=best_fit is not None, warp_fit_width=best_fit["hidden"] if best_fit else 0,
        warp_fit_share=_share(best_fit, "warp_rows") if best_fit else 0.0,
        warp_fit_row_share=_share(best_fit, "row_kernel") if best_fit else 0.0,
        warp_fit_behind=bool(best_fit) and _share(best_fit, "warp_rows") < _share(best_fit, "row_kernel"),
        warp_spills=bool(spill), warp_spill_widths=tuple(s["hidden"] for s in spill),
        warp_spill_widths_text=words([f"{s['hidden']:,}" for s in spill]),
        warp_spill_share=max((_share(s, "warp_rows") for s in spill), default=0.0),
        one_warp_barrier_free=all(n == 0 for c, n in barriers if c == "(1,)"),
        multi_warp_barriers=all(n > 0 for c, n in barriers if c != "(1,)"),
    )


def _swiglu(sw: dict[str, Any], med: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    shapes = [s for s in sw["shapes"] if big(s)]
    m_shapes = [s for s in med["shapes"] if big(s)]  # the shares: medians over the runs, as the table shows them
    rivals = [o for o in RIVALS[SWIGLU] if any("ms" in s["versions"].get(o, {}) for s in sw["shapes"])]
    miss = sw["mismatches"]
    swept = [name for name in ("ieee", "approx") if miss[name]["differ"] == 0]
    shares = [[_share(s, k) for k in (OURS, *rivals) if _share(s, k) is not None] for s in m_shapes]
    counts = [len(ms) for s in shapes for ms in s.get("placements", {}).values()]
    level, behind_ = _group(shapes, SWIGLU, "level"), _group(shapes, SWIGLU, "behind")
    ahead = tuple(shape_text(s) for s in shapes if set(standing(s, SWIGLU).values()) == {"ahead"})
    n_met = sum(met(s, SWIGLU) for s in shapes)
    inexact = [(o, s) for s in shapes for o, v in standing(s, SWIGLU).items()
               if v != "ahead" and all(c["bit_identical"] for k, c in s["check"].items() if k in ("triton", "ieee",
                                                                                                   "approx"))
               and o in s["check"] and not s["check"][o]["bit_identical"]]
    rival, at = inexact[0] if inexact else (None, None)
    vs_copy = {shape_text(s): (p, s) for s in shapes if (p := against(s, ("copy",)).get("copy"))}
    over = [s for p, s in vs_copy.values() if p["verdict"] == "ahead"]
    under = [(p, s) for p, s in vs_copy.values() if p["verdict"] == "behind"]
    worst = max(under, key=lambda u: u[0]["median"], default=None)
    at_probe = probe(sw)
    # how far placements moved each version's time at the probe shape: the median over the runs of each run's range
    ranges = [{k: max(v) - min(v) for k, v in probe(d)["placements"].items()} for d in runs]
    moved = {k: statistics.median(r[k] for r in ranges if k in r) for k in at_probe["placements"]}
    widest = max(moved, key=moved.get)
    reg = at_probe["registers"]
    held = {d: programs_per_sm(n, reg["warps"], reg["threads_per_sm"]) for d, n in reg["per_thread"].items()}
    return dict(
        swiglu_rivals=tuple(LABELS[o] for o in rivals), swiglu_rivals_text=words([LABELS[o] for o in rivals]),
        divide_pairs=miss["ieee"]["pairs"], ieee_differ=miss["ieee"]["differ"], approx_differ=miss["approx"]["differ"],
        divides_swept="both" if len(swept) == 2 else swept[0], approx_won=sum(not s["best_config"][2] for s in shapes),
        swiglu_big=len(shapes),
        swiglu_share_low=min(s["versions"][OURS]["share_of_copy"] for s in m_shapes),
        swiglu_share_high=max(s["versions"][OURS]["share_of_copy"] for s in m_shapes),
        swiglu_kernels=1 + len(rivals), swiglu_spread_points=max(max(x) - min(x) for x in shares) * 100,
        swiglu_all_near_copy=all(min(x) >= GOAL_SHARE for x in shares), swiglu_all_low=min(min(x) for x in shares),
        placements_low=min(counts), placements_high=max(counts), placements_vary=min(counts) != max(counts),
        swiglu_ahead_shapes=ahead, swiglu_any_ahead=bool(ahead), swiglu_level=level, swiglu_any_level=bool(level),
        swiglu_compiled_level=any(LABELS["compiled"] in g.names for g in level),
        swiglu_behind=behind_, swiglu_any_behind=bool(behind_),
        swiglu_at_share=sum(at_share(s) for s in shapes), swiglu_met=n_met, swiglu_goal_met=n_met == len(shapes),
        swiglu_goal=goal_of(shapes, SWIGLU),
        swiglu_goal_noisy=tuple(shape_text(s) for s in shapes if goal(s, SWIGLU) == "noisy"),
        swiglu_noise=(sn := noise(sw)),
        swiglu_all_quiet=sn.all_quiet, swiglu_rounds_vary=sn.rounds_high != sn.rounds_low,
        swiglu_noisy_big=bool(sn.noisy_big), swiglu_noisy_text=_at_words(sn.noisy_big),
        swiglu_ahead_text=words(ahead), swiglu_level_text=_at_words(level),
        inexact_shows=bool(inexact), inexact_rival=LABELS[rival] if rival else "", inexact_compiled=rival == "compiled",
        inexact_level=bool(at) and standing(at, SWIGLU)[rival] == "level",
        inexact_shape=shape_text(at) if at else "",
        inexact_share=at["check"][rival]["differ"] / at["check"][rival]["elements"] if at else 0.0,
        inexact_steps=at["check"][rival]["max_steps"] if at else 0,
        copy_ahead=len(over), copy_level=sum(p["verdict"] == "level" for p, _ in vs_copy.values()),
        copy_behind=len(under), copy_behind_any=bool(under),
        copy_behind_us=worst[0]["median"] * 1e3 if worst else 0.0,
        copy_behind_low_us=min(p["median"] for p, _ in under) * 1e3 if under else 0.0,
        copy_behind_share=worst[0]["median"] / statistics.median(worst[1]["placements"]["copy"]) if worst else 0.0,
        copy_ahead_ieee=sum(s["best_config"][2] for s in over), beat_copy_any=bool(over),
        beat_copy_all_ieee=bool(over) and all(s["best_config"][2] for s in over),
        probe_shape=shape_text(at_probe), probe_widest=LABELS[widest], probe_widest_us=moved[widest] * 1e3,
        probe_ours_us=moved[OURS] * 1e3,
        probe_moves_more=moved[OURS] > max(abs(p["median"]) for p in against(at_probe, tuple(rivals)).values()),
        probe_rival_us=max(abs(p["median"]) for p in against(at_probe, tuple(rivals)).values()) * 1e3,
        regs_ieee=reg["per_thread"]["ieee"], regs_approx=reg["per_thread"]["approx"], reg_warps=reg["warps"],
        held_ieee=held["ieee"], held_approx=held["approx"], ieee_holds_fewer=held["ieee"] < held["approx"],
    )


def from_data(add: dict[str, Any], swiglu: dict[str, Any], designs: dict[str, Any], gpu: str,
              runs: dict[str, list[dict[str, Any]]] | None = None) -> Facts:
    """The facts of one run of each experiment (the verdicts, counts and words), with every share of the copy read
    from the medians over `runs` (each experiment's runs of the current code, oldest first; default: the one run
    given), as the tables show them (merged)."""
    runs = runs or {}
    m_add, m_sw, m_designs = (merged(runs.get(e) or [d]) for e, d in ((ADD, add), (SWIGLU, swiglu),
                                                                       (DESIGNS, designs)))
    sw_runs = runs.get(SWIGLU) or [swiglu]
    fields = {**_add(add, m_add), **_designs(m_designs, m_add), **_swiglu(swiglu, m_sw, sw_runs),
              **_every_run(runs.get(ADD) or [add], m_add, sw_runs, m_sw)}
    return Facts(gpu=gpu, goal_share=GOAL_SHARE, big_mib=BIG_BYTES >> 20, confidence=CONFIDENCE, **fields)


def _every_run(adds: list[dict[str, Any]], m_add: dict[str, Any], sws: list[dict[str, Any]],
               m_sw: dict[str, Any]) -> dict[str, Any]:
    """What every fresh run says (oldest first), and the newest run's own words where the page names them as its."""
    a = [_add(d, m_add) for d in adds]
    w = [_swiglu(d, m_sw, sws) for d in sws]
    new_a, new_w = a[-1], w[-1]
    return dict(
        add_open=new_a["add_open"], add_goal_noisy_text=new_a["add_goal_noisy_text"],
        add_runs=len(a), add_ahead_every_run=all(x["add_all_ahead"] for x in a),
        add_ahead_runs=sum(x["add_all_ahead"] for x in a),
        add_missed_no_run=all(x["add_goal"] != "missed" for x in a),
        add_missed_runs=sum(x["add_goal"] == "missed" for x in a),
        add_met_runs=sum(x["add_goal"] == "met" for x in a), add_newest_noisy=new_a["add_goal_noisy"],
        add_newest_under=len(new_a["add_under"]),
        swiglu_noisy_text=new_w["swiglu_noisy_text"], swiglu_ahead_text=new_w["swiglu_ahead_text"],
        swiglu_level_text=new_w["swiglu_level_text"], swiglu_compiled_level=new_w["swiglu_compiled_level"],
        **{k: v for k, v in new_w.items() if k.startswith("inexact_")},
        swiglu_runs=len(w), swiglu_quiet_big_runs=sum(not x["swiglu_noisy_big"] for x in w),
        swiglu_newest_noisy_big=new_w["swiglu_noisy_big"],
        swiglu_same_placements=not any(x["placements_vary"] for x in w)
        and len({x["placements_low"] for x in w}) == 1,
        swiglu_behind_no_run=not any(x["swiglu_any_behind"] for x in w),
        swiglu_behind_runs=sum(x["swiglu_any_behind"] for x in w),
        swiglu_met_every_run=all(x["swiglu_goal_met"] for x in w),
        swiglu_met_runs=sum(x["swiglu_goal_met"] for x in w),
        swiglu_copy_ahead_same=len({x["copy_ahead"] for x in w}) == 1,
        copy_ahead_low=min(x["copy_ahead"] for x in w), copy_ahead_high=max(x["copy_ahead"] for x in w),
        copy_behind_runs=sum(x["copy_behind_any"] for x in w), copy_behind_most=max(x["copy_behind"] for x in w),
        swiglu_all_ahead_runs=sum(not x["swiglu_any_level"] and not x["swiglu_any_behind"] for x in w),
        swiglu_newest_ahead=new_w["swiglu_any_ahead"], swiglu_newest_level=new_w["swiglu_any_level"],
        inexact_runs=sum(x["inexact_shows"] and x["inexact_level"] and x["inexact_compiled"] for x in w),
        probe_more_runs=sum(x["probe_moves_more"] for x in w),
    )


def facts(machine: str | None = None) -> Facts:
    r = page.result(ADD, machine)
    return from_data(r.data, page.result(SWIGLU, machine).data, page.result(DESIGNS, machine).data,
                     page.machine_label(r), {e: across.datas(e, machine) for e in (ADD, SWIGLU, DESIGNS)})


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

