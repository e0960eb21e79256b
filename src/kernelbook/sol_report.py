"""The speed-of-light goal, read from a stored sol result: one definition for the tables and the summaries.

A shape counts when it moves at least BIG_BYTES; there, our best kernel meets the goal with at least GOAL_SHARE of
the same-bytes copy and a time strictly ahead of every rival that ran (a tie is not ahead).
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

GOAL_SHARE = 0.98  # the goal, not a measurement
BIG_BYTES = 64 << 20
BIG_TEXT = f"{BIG_BYTES >> 20} MiB"  # the threshold as the pages write it
OURS = {"sol.add_rmsnorm": "multi-row Triton (best)", "sol.swiglu": "Triton (best block)"}
RIVALS = {"sol.add_rmsnorm": ("torch.compile", "Liger-Kernel", "F.rms_norm"),
          "sol.swiglu": ("torch.compile", "Liger-Kernel")}


def rivals_text(experiment: str) -> str:
    """The rivals as a sentence names them: 'a, b and c'."""
    *rest, last = RIVALS[experiment]
    return f"{', '.join(rest)} and {last}" if rest else last


def row_order(config: list) -> str:
    """The row kernel's load and store order as the tables write it, from its config (rows, warps, h stored late,
    weight loaded first): 'h early', 'h late', and ', w first' when the weight's load goes out with the row's."""
    return f"h {'late' if config[2] else 'early'}{', w first' if config[3] else ''}"


def swiglu_config(config: list) -> str:
    """The SwiGLU kernel's config (block, warps, IEEE divide) as the tables write it."""
    return f"{config[0]} × {config[1]}, {'IEEE' if config[2] else 'approx.'}"


def big(shape: dict[str, Any]) -> bool:
    return shape["bytes"] >= BIG_BYTES


def behind(shape: dict[str, Any], experiment: str) -> list[str]:
    """The rivals that were as fast as ours or faster at this shape."""
    v = shape["versions"]
    ours = v[OURS[experiment]]["ms"]
    return [o for o in RIVALS[experiment] if "ms" in v.get(o, {}) and v[o]["ms"] <= ours]


def at_share(shape: dict[str, Any], experiment: str) -> bool:
    return shape["versions"][OURS[experiment]]["share_of_copy"] >= GOAL_SHARE


def met(shape: dict[str, Any], experiment: str) -> bool:
    """The goal at one shape: large enough to count, at the share, and ahead of every rival."""
    return big(shape) and at_share(shape, experiment) and not behind(shape, experiment)


def share_plot(shapes: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> plt.Figure:
    """Each version's share of the same-bytes copy against the MiB the fused kernel moves, one marker per version
    (the versions in skip left out), with the goal as a dotted line. A copy among the versions is drawn in gray."""
    names = [n for n in shapes[0]["versions"] if n != "same-bytes copy" and n not in skip]
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for i, name in enumerate(names):
        pts = [(s["bytes"] / 2**20, s["versions"][name]["share_of_copy"] * 100) for s in shapes
               if "share_of_copy" in s["versions"].get(name, {})]
        if pts:
            xs, ys = zip(*sorted(pts), strict=True)
            copy = "copy" in name  # a copy, not a kernel: drawn apart
            ax.plot(xs, ys, marker="x" if copy else "os^vD<>"[i % 7], ls="", label=name,
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
