"""The speed-of-light page's tables and figures: how a stored config or share reads in a cell, and the two plots.
The goal and its verdicts live in figures.py, every number the prose reads in facts.py.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

from kernelbook import fmt, page
from kernelbook.chapters.speed_of_light.figures import GOAL_SHARE, LABELS

DODGE = 0.018  # decades of MiB between neighbouring versions' markers at one size (share_plot)


def row_order(config: list) -> str:
    """The row kernel's load and store order as the tables write it, from its config (rows, warps, h stored late,
    weight loaded first): 'h early', 'h late', and ', w first' when the weight's load goes out with the row's."""
    return f"h {'late' if config[2] else 'early'}{', w first' if config[3] else ''}"


def swiglu_config(config: list) -> str:
    """The SwiGLU kernel's config (block, warps, IEEE divide) as the tables write it."""
    return f"{config[0]} × {config[1]}, {'IEEE' if config[2] else 'approx.'}"


def share_cell(version: dict[str, Any]) -> str:
    """A version's share of the copy as the tables write it: rounded down, so 97.99% never reads as the goal, and
    marked where the version's rounds were still noisy when they stopped (bench.py)."""
    if "error" in version:
        return "fails"
    return fmt.pct_down(version["share_of_copy"]) + ("" if version.get("quiet", True) else " noisy")


def goal_cell(goal: bool | str) -> str:
    """The goal at a shape: ✓ met, ✗ missed, 'noisy' where a noisy figure left it undecided (facts.goal)."""
    return {True: "✓", "met": "✓", False: "✗", "missed": "✗"}.get(goal, "noisy")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str, name: str,
          full: tuple[Sequence[str], Sequence[Sequence[Any]]] | None = None) -> str:
    """A Markdown table as the page shows it, a few columns that fit the page's width, followed by links that
    download `full` (every column: (headers, rows); default this table) as CSV and JSON: page.table's, which escapes
    every cell that is not markup made by code (a table of its own here once forgot to)."""
    return page.table(headers, rows, align, name, full)


def folded(title: str, body: str) -> str:
    """Markdown in a collapsed note, as the page's `??? note "title"` blocks render (md_in_html): the detail a reader
    opens on demand, kept in the snippet that computes it so that the notebook still runs it."""
    return f'\n<details class="note" markdown="1">\n<summary>{html.escape(title)}</summary>\n\n{body}\n\n</details>\n'


def share_plot(shapes: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> plt.Figure:
    """Each version's share of the same-bytes copy against the MiB the fused kernel moves, one marker per version
    (the versions in skip left out), with the goal as a dotted line. The versions at one size sit side by side, each
    nudged along the (log) axis by DODGE decades, so that markers near the copy do not hide one another; a copy among
    the versions is drawn in gray."""
    names = [n for n in shapes[0]["versions"] if n != "copy" and n not in skip]
    drawn = [n for n in names if any("share_of_copy" in s["versions"].get(n, {}) for s in shapes)]
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for i, name in enumerate(drawn):
        pts = [(s["bytes"] / 2**20, s["versions"][name]["share_of_copy"] * 100) for s in shapes
               if "share_of_copy" in s["versions"].get(name, {})]
        xs, ys = zip(*sorted(pts), strict=True)
        nudge = 10 ** (DODGE * (i - (len(drawn) - 1) / 2))
        copy = "copy" in name  # a copy, not a kernel: drawn apart
        ax.plot([x * nudge for x in xs], ys, marker="x" if copy else "os^vD<>"[i % 7], ls="", ms=6,
                label=LABELS[name], color="gray" if copy else None)
    ax.axhline(GOAL_SHARE * 100, c="gray", ls=":", lw=1)  # the goal
    ax.set_xscale("log")
    ax.set_xticks(sorted({s["bytes"] / 2**20 for s in shapes}))  # one tick per size moved, in plain MiB
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.minorticks_off()
    ax.set_xlabel("MiB moved by the fused kernel (log)")
    ax.set_ylabel("% of the same-bytes copy")
    ax.legend(fontsize=7.5, ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
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


def runs_note(runs: list[Any], newest: bool = True) -> str:
    """A line under a table or figure built from facts.merged: its figures are medians over these runs, and (newest)
    its configurations, noise marks and verdicts are the newest run's."""
    days = sorted({str(r.provenance.get("started_utc", r.run))[:10] for r in runs})
    span = html.escape(days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}")  # stored text, in HTML
    if len(runs) == 1:
        return f'\n<p class="kb-provenance">One run, {span}.</p>\n'
    rest = "; configurations and marks: newest run" if newest else ""
    return f'\n<p class="kb-provenance">Medians of {len(runs)} runs, {span}{rest}.</p>\n'


def newest(r: Any) -> str:
    """'newest run, 2026-12-03': which run a figure or table of one run shows."""
    return f"newest run, {html.escape(str(r.provenance.get('started_utc', r.run))[:10])}"
