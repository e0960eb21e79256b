"""The speed-of-light tables' and figures' helpers: how a config, a share and a goal read in a cell, and the plots.
The goal itself is tested with the chapter's facts (test_facts_speed_of_light.py)."""

from __future__ import annotations

import pytest

from kernelbook.chapters.speed_of_light import report as sol_report


def test_the_row_kernels_order_reads_as_the_tables_write_it():
    assert sol_report.row_order([2, 32, False, False]) == "h early"
    assert sol_report.row_order([1, 32, True, True]) == "h late, w first"


def test_the_swiglu_config_names_its_divide():
    assert sol_report.swiglu_config([1024, 4, True]) == "1024 × 4, IEEE"
    assert sol_report.swiglu_config([2048, 8, False]) == "2048 × 8, approx."


def test_the_share_plot_draws_each_version_but_the_ceiling_and_the_skipped():
    shapes = [{"bytes": mib << 20, "versions": {"copy": {"share_of_copy": 1.0},
                                                "ours": {"share_of_copy": share},
                                                "copy_tiled": {"share_of_copy": 0.9},
                                                "one_row": {"share_of_copy": share},
                                                "liger": {"error": "x"}}}
              for mib, share in ((64, 0.99), (256, 0.97))]
    ax = sol_report.share_plot(shapes, skip=("one_row",)).axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    ours, tiled = "ours (best configuration)", "same-bytes copy, kernel-sized programs"
    assert set(lines) == {ours, tiled}  # the ceiling, the skipped and the failed are not drawn
    assert list(lines[ours].get_ydata()) == [99, 97]
    # side by side at each size: ours nudged one way along the log axis, the next version the other, by DODGE
    nudge = 10 ** (sol_report.DODGE / 2)
    assert list(lines[ours].get_xdata()) == pytest.approx([64 / nudge, 256 / nudge])
    assert list(lines[tiled].get_xdata()) == pytest.approx([64 * nudge, 256 * nudge])
    assert lines[tiled].get_color() == "gray"
    goal = [ln for ln in ax.get_lines() if ln.get_label().startswith("_")]
    assert [list(ln.get_ydata()) for ln in goal] == [[98, 98]]


def test_the_placement_plot_puts_the_fastest_median_on_top_with_a_bar_each():
    ms = {"liger": [0.0531, 0.0530, 0.0539], "ours": [0.0528, 0.0529, 0.0535], "copy": [0.0529, 0.0530, 0.0530]}
    ax = sol_report.placement_plot(ms).axes[0]
    # y grows upward: the fastest on top, each under its label
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Liger-Kernel", "same-bytes copy",
                                                            "ours (best configuration)"]
    dots = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert [len(ln.get_xdata()) for ln in dots] == [3, 3, 3]
    assert dots[1].get_color() == "gray"
    bars = [ln for ln in ax.get_lines() if ln.get_marker() != "o"]
    assert [round(ln.get_xdata()[0], 2) for ln in bars] == [53.1, 53.0, 52.9]  # each version's median, in µs


def test_a_share_cell_rounds_down_and_names_a_failure():
    assert sol_report.share_cell({"share_of_copy": 0.97999}) == "97.9%"
    assert sol_report.share_cell({"error": "RuntimeError: refused"}) == "fails"


def test_a_goal_cell_marks_met_and_missed():
    assert (sol_report.goal_cell(True), sol_report.goal_cell(False)) == ("✓", "✗")
    assert [sol_report.goal_cell(g) for g in ("met", "missed", "noisy")] == ["✓", "✗", "noisy"]


def test_a_share_cell_marks_a_version_still_noisy_at_its_cap():
    assert sol_report.share_cell({"share_of_copy": 0.985, "quiet": False}) == "98.5% noisy"
    assert sol_report.share_cell({"share_of_copy": 0.985, "quiet": True}) == "98.5%"


def test_a_table_shows_a_few_columns_and_downloads_every_one():
    import base64
    import re

    out = sol_report.table(["a", "b"], [[1, "x|y"]], "lr", "t", full=(["a", "b", "c"], [[1, "x|y", 3]]))
    assert out.startswith("| a | b |\n| :-- | --: |\n| 1 | x\\|y |\n")
    csv = re.search(r'href="data:text/csv;base64,([^"]+)"', out)[1]  # outside a site build: inline
    assert base64.b64decode(csv).decode().splitlines() == ["a,b,c", "1,x|y,3"]
    with pytest.raises(ValueError):
        sol_report.table(["a", "a"], [[1, 2]], "lr", "t")


def test_a_folded_table_is_a_collapsed_note_whose_markdown_is_rendered():
    out = sol_report.folded("Timing & more", "| a |\n| :-- |\n| 1 |")
    assert out.strip().startswith('<details class="note" markdown="1">\n<summary>Timing &amp; more</summary>\n\n| a |')
    assert out.strip().endswith("</details>")
