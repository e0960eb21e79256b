"""The speed-of-light goal: share, rivals behind (in the rounds, or over paired placements), and only at shapes large
enough to count."""

from __future__ import annotations

from kernelbook.chapters.speed_of_light import report as sol_report

ADD = "speed_of_light.add_rmsnorm"
SWIGLU = "speed_of_light.swiglu"


def _shape(share: float, ours_ms: float, rivals_ms: dict[str, float], nbytes: int = 256 << 20) -> dict:
    versions = {"ours": {"ms": ours_ms, "share_of_copy": share},
                **{o: {"ms": ms} for o, ms in rivals_ms.items()}, "liger": {"error": "not installed"}}
    return {"bytes": nbytes, "versions": versions}


def test_met_needs_the_share_and_every_rival_strictly_behind():
    assert sol_report.met(_shape(0.98, 1.0, {"compiled": 1.1, "rms_norm": 2.0}), ADD)
    assert not sol_report.met(_shape(0.97999, 1.0, {"compiled": 1.1}), ADD)
    tie = _shape(0.99, 1.0, {"compiled": 1.0, "rms_norm": 2.0})
    assert sol_report.behind(tie, ADD) == ["compiled"] and not sol_report.met(tie, ADD)


def test_paired_reads_ahead_level_and_behind_from_the_interval_of_the_median_difference():
    base = [1.00, 1.02, 0.99, 1.05, 1.01, 0.98, 1.03, 1.00]
    ahead = sol_report.paired([t - 0.01 for t in base], base)
    assert ahead["verdict"] == "ahead" and ahead["faster"] == 8 and ahead["n"] == 8
    assert abs(ahead["median"] + 0.01) < 1e-12 and ahead["high"] < 0
    noisy = [t + d for t, d in zip(base, (-0.02, 0.03, -0.01, 0.02, -0.03, 0.01, 0.02, -0.02), strict=True)]
    level = sol_report.paired(noisy, base)
    assert level["verdict"] == "level" and level["low"] < 0 < level["high"] and level["faster"] == 4
    assert sol_report.paired(base, [t - 0.01 for t in base])["verdict"] == "behind"
    assert sol_report.paired(noisy, base) == level  # seeded: a page reads the same on every build


def test_behind_reads_the_placements_where_a_shape_has_them_and_the_rounds_otherwise():
    ours = [1.0, 1.1, 0.9, 1.0, 1.2]
    shape = {"bytes": 256 << 20, "versions": {"ours": {"ms": 2.0, "share_of_copy": 1.0},
                                              "compiled": {"ms": 1.0}, "liger": {"ms": 1.0}},
             "placements": {"ours": ours, "compiled": [t + 0.1 for t in ours],
                            "liger": [t + d for t, d in zip(ours, (0.1, -0.1, 0.05, -0.05, 0.0), strict=True)]}}
    # behind in the rounds' medians, but the placements decide: ahead of compile, level with Liger
    assert sol_report.behind(shape, SWIGLU) == ["liger"] and not sol_report.met(shape, SWIGLU)
    assert set(sol_report.against(shape, SWIGLU)) == {"compiled", "liger"}
    del shape["placements"]
    assert sol_report.behind(shape, SWIGLU) == ["compiled", "liger"]
    assert sol_report.against(shape, SWIGLU) == {}


def test_a_rival_that_failed_to_run_is_not_counted_and_small_shapes_never_meet():
    ok = _shape(0.99, 1.0, {"compiled": 1.1})
    assert sol_report.behind(ok, ADD) == [] and sol_report.met(ok, ADD)
    assert not sol_report.met(_shape(0.99, 1.0, {"compiled": 1.1}, nbytes=1 << 20), ADD)


def test_the_rivals_read_as_a_sentence_in_the_order_the_goal_lists_them():
    assert sol_report.rivals_text(ADD) == "torch.compile, Liger-Kernel and F.rms_norm"
    assert sol_report.rivals_text(SWIGLU) == "torch.compile and Liger-Kernel"
    assert sol_report.BIG_TEXT == "64 MiB"


def test_the_row_kernels_order_reads_as_the_tables_write_it():
    assert sol_report.row_order([2, 32, False, False]) == "h early"
    assert sol_report.row_order([1, 32, True, True]) == "h late, w first"


def test_a_shape_reads_rows_by_width_with_thousands_separated():
    assert sol_report.shape_text({"rows": 32768, "hidden": 8960}) == "32,768 × 8,960"
    assert sol_report.shape_text({"rows": 1, "hidden": 1536}) == "1 × 1,536"


def test_the_swiglu_config_names_its_divide():
    assert sol_report.swiglu_config([1024, 4, True]) == "1024 × 4, IEEE"
    assert sol_report.swiglu_config([2048, 8, False]) == "2048 × 8, approx."


def test_the_share_plot_draws_each_version_but_the_ceiling_and_the_skipped():
    shapes = [{"bytes": mib << 20, "versions": {"copy": {"share_of_copy": 1.0},
                                                "ours": {"share_of_copy": share},
                                                "tile copy": {"share_of_copy": 0.9},
                                                "twin": {"share_of_copy": share},
                                                "broken": {"error": "x"}}}
              for mib, share in ((64, 0.99), (256, 0.97))]
    ax = sol_report.share_plot(shapes, skip=("twin",)).axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    assert set(lines) == {"ours", "tile copy"}  # the ceiling, the skipped and the failed are not drawn
    assert list(lines["ours"].get_xdata()) == [64, 256] and list(lines["ours"].get_ydata()) == [99, 97]
    assert lines["tile copy"].get_color() == "gray"
    goal = [ln for ln in ax.get_lines() if ln.get_label().startswith("_")]
    assert [list(ln.get_ydata()) for ln in goal] == [[98, 98]]


def test_programs_per_sm_is_the_smaller_of_the_thread_and_register_limits():
    # 4-warp programs on an SM of 2,048 threads: 16 by threads; registers go to warps in units of 256
    assert sol_report.programs_per_sm(28, 4, 2048) == 16  # 1,024 per warp: the threads bind
    assert sol_report.programs_per_sm(40, 4, 2048) == 12  # 1,280 per warp, 5,120 per program
    assert sol_report.programs_per_sm(43, 4, 2048) == 10  # 1,376 rounds up to 1,536 per warp
    assert sol_report.programs_per_sm(43, 8, 2048) == 5


def test_the_placement_plot_puts_the_fastest_median_on_top_with_a_bar_each():
    ms = {"slow": [0.0531, 0.0530, 0.0539], "fast": [0.0528, 0.0529, 0.0535], "copy": [0.0529, 0.0530, 0.0530]}
    ax = sol_report.placement_plot(ms).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["slow", "copy", "fast"]  # y grows upward: fast on top
    dots = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert [len(ln.get_xdata()) for ln in dots] == [3, 3, 3]
    assert dots[1].get_color() == "gray"
    bars = [ln for ln in ax.get_lines() if ln.get_marker() != "o"]
    assert [round(ln.get_xdata()[0], 2) for ln in bars] == [53.1, 53.0, 52.9]  # each version's median, in µs


def test_a_share_cell_rounds_down_and_names_a_failure():
    assert sol_report.share_cell({"share_of_copy": 0.97999}) == "97.9%"
    assert sol_report.share_cell({"error": "RuntimeError: refused"}) == "fails"
