"""The speed-of-light goal, read from a stored speed_of_light result: one definition for the tables and the summaries.

A shape counts when it moves at least BIG_BYTES; there, our best kernel meets the goal with at least GOAL_SHARE of
the same-bytes copy and a time ahead of every rival that ran. Ahead is read from the strongest evidence the shape
has: where it was timed on paired placements (every version once on each, speed_of_light.swiglu), ours is ahead of
a rival only if the bootstrap interval of the median difference (ours minus the rival, same placement) lies wholly
below zero; otherwise ours must have a strictly lower median in the rounds. Either way a tie is not ahead.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

from kernelbook import page

GOAL_SHARE = 0.98  # the goal, not a measurement
BIG_BYTES = 64 << 20
BIG_TEXT = f"{BIG_BYTES >> 20} MiB"  # the threshold as the pages write it
# an sm_90 SM's register file, 65,536 32-bit registers, handed to warps in units of 256 (the CUDA occupancy
# calculator's figures for compute capability 9.0; architecture, not measurement)
REGS_PER_SM, REG_UNIT = 65536, 256
CONFIDENCE, RESAMPLES = 0.95, 4000  # the bootstrap interval of a paired median difference
OURS = "ours"  # the data key of our best configuration, in both experiments
RIVALS = {"speed_of_light.add_rmsnorm": ("compiled", "liger", "rms_norm"),
          "speed_of_light.swiglu": ("compiled", "liger")}
# display labels of the versions' data keys: the one table the chapter's tables, figures and sentences use
LABELS = {
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
    "warp_rows": "warp rows",
}


def label(key: str) -> str:
    """A version's display label from its data key."""
    return LABELS[key]


def shape_text(shape: dict[str, Any]) -> str:
    """A stored shape as the pages write it: '8,192 × 4,096' (rows × width)."""
    return f"{shape['rows']:,} × {shape['hidden']:,}"


def rivals_text(experiment: str) -> str:
    """The rivals as a sentence names them: 'a, b and c'."""
    *rest, last = [LABELS[k] for k in RIVALS[experiment]]
    return f"{', '.join(rest)} and {last}" if rest else last


def row_order(config: list) -> str:
    """The row kernel's load and store order as the tables write it, from its config (rows, warps, h stored late,
    weight loaded first): 'h early', 'h late', and ', w first' when the weight's load goes out with the row's."""
    return f"h {'late' if config[2] else 'early'}{', w first' if config[3] else ''}"


def swiglu_config(config: list) -> str:
    """The SwiGLU kernel's config (block, warps, IEEE divide) as the tables write it."""
    return f"{config[0]} × {config[1]}, {'IEEE' if config[2] else 'approx.'}"


def programs_per_sm(regs: int, warps: int, threads_per_sm: int) -> int:
    """How many programs of `warps` warps, at `regs` registers per thread, one SM holds at once: the smaller of its
    thread limit and its register file."""
    per_warp = -(-regs * 32 // REG_UNIT) * REG_UNIT
    return min(threads_per_sm // (32 * warps), REGS_PER_SM // (per_warp * warps))


def share_cell(version: dict[str, Any]) -> str:
    """A version's share of the copy as the tables write it: rounded down, so 97.99% never reads as the goal."""
    return "fails" if "error" in version else page.pct_down(version["share_of_copy"])


def big(shape: dict[str, Any]) -> bool:
    return shape["bytes"] >= BIG_BYTES


def paired(ours: list[float], rival: list[float]) -> dict[str, Any]:
    """ours minus rival, placement by placement: the median difference (ms), its bootstrap interval at CONFIDENCE
    (RESAMPLES resamples, seeded, so a page reads the same on every build), how many placements ours was faster on,
    and the verdict: 'ahead' if the interval lies below zero, 'behind' if above, else 'level'."""
    d = [a - b for a, b in zip(ours, rival, strict=True)]
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(d, k=len(d))) for _ in range(RESAMPLES))
    tail = int((1 - CONFIDENCE) / 2 * RESAMPLES)
    low, high = meds[tail], meds[-1 - tail]
    return {"median": statistics.median(d), "low": low, "high": high, "faster": sum(x < 0 for x in d), "n": len(d),
            "verdict": "ahead" if high < 0 else "behind" if low > 0 else "level"}


def against(shape: dict[str, Any], experiment: str) -> dict[str, dict[str, Any]]:
    """Ours against each rival on the shape's paired placements (empty where it has none)."""
    ms = shape.get("placements", {})
    ours = OURS
    return {o: paired(ms[ours], ms[o]) for o in RIVALS[experiment] if ours in ms and o in ms}


def behind(shape: dict[str, Any], experiment: str) -> list[str]:
    """The rivals that ours was not ahead of at this shape: over its paired placements where it has them (level or
    behind), else in the rounds (as fast as ours or faster)."""
    if pairs := against(shape, experiment):
        return [o for o, p in pairs.items() if p["verdict"] != "ahead"]
    v = shape["versions"]
    ours = v[OURS]["ms"]
    return [o for o in RIVALS[experiment] if "ms" in v.get(o, {}) and v[o]["ms"] <= ours]


def at_share(shape: dict[str, Any], experiment: str) -> bool:
    return shape["versions"][OURS]["share_of_copy"] >= GOAL_SHARE


def met(shape: dict[str, Any], experiment: str) -> bool:
    """The goal at one shape: large enough to count, at the share, and ahead of every rival."""
    return big(shape) and at_share(shape, experiment) and not behind(shape, experiment)


def share_plot(shapes: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> plt.Figure:
    """Each version's share of the same-bytes copy against the MiB the fused kernel moves, one marker per version
    (the versions in skip left out), with the goal as a dotted line. A copy among the versions is drawn in gray."""
    names = [n for n in shapes[0]["versions"] if n != "copy" and n not in skip]
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for i, name in enumerate(names):
        pts = [(s["bytes"] / 2**20, s["versions"][name]["share_of_copy"] * 100) for s in shapes
               if "share_of_copy" in s["versions"].get(name, {})]
        if pts:
            xs, ys = zip(*sorted(pts), strict=True)
            copy = "copy" in name  # a copy, not a kernel: drawn apart
            ax.plot(xs, ys, marker="x" if copy else "os^vD<>"[i % 7], ls="", label=LABELS[name],
                    color="gray" if copy else None)
    ax.axhline(GOAL_SHARE * 100, c="gray", ls=":", lw=1)  # the goal
    ax.set_xscale("log")
    ax.set_xticks(sorted({s["bytes"] / 2**20 for s in shapes}))  # one tick per size moved, in plain MiB
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.minorticks_off()
    ax.set_xlabel("MiB moved by the fused kernel (log)")
    ax.set_ylabel("% of the same-bytes copy")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, alpha=0.3)
    return fig


def placement_plot(ms: dict[str, list[float]]) -> plt.Figure:
    """Each version's time on each placement as a dot, one row per version (fastest median at the top), with its
    median as a bar."""
    names = sorted(ms, key=lambda n: statistics.median(ms[n]), reverse=True)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(names) + 1.0))
    for i, name in enumerate(names):
        us = [t * 1e3 for t in ms[name]]
        ax.plot(us, [i] * len(us), "o", ms=5, alpha=0.5, color="gray" if "copy" in name else f"C{i}")
        ax.plot([statistics.median(us)] * 2, [i - 0.3, i + 0.3], c="black", lw=2)  # the median
    ax.set_yticks(range(len(names)), [LABELS[n] for n in names])
    ax.set_xlabel("µs per call, one dot per placement (bar: median)")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
