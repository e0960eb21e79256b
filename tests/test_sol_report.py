"""The speed-of-light goal: share, rivals strictly behind, and only at shapes large enough to count."""

from __future__ import annotations

from kernelbook import sol_report

ADD = "sol.add_rmsnorm"


def _shape(share: float, ours_ms: float, rivals_ms: dict[str, float], nbytes: int = 256 << 20) -> dict:
    versions = {"multi-row Triton (best)": {"ms": ours_ms, "share_of_copy": share},
                **{o: {"ms": ms} for o, ms in rivals_ms.items()}, "Liger-Kernel": {"error": "not installed"}}
    return {"bytes": nbytes, "versions": versions}


def test_met_needs_the_share_and_every_rival_strictly_behind():
    assert sol_report.met(_shape(0.98, 1.0, {"torch.compile": 1.1, "F.rms_norm": 2.0}), ADD)
    assert not sol_report.met(_shape(0.97999, 1.0, {"torch.compile": 1.1}), ADD)
    tie = _shape(0.99, 1.0, {"torch.compile": 1.0, "F.rms_norm": 2.0})
    assert sol_report.behind(tie, ADD) == ["torch.compile"] and not sol_report.met(tie, ADD)


def test_a_rival_that_failed_to_run_is_not_counted_and_small_shapes_never_meet():
    ok = _shape(0.99, 1.0, {"torch.compile": 1.1})
    assert sol_report.behind(ok, ADD) == [] and sol_report.met(ok, ADD)
    assert not sol_report.met(_shape(0.99, 1.0, {"torch.compile": 1.1}, nbytes=1 << 20), ADD)


def test_the_rivals_read_as_a_sentence_in_the_order_the_goal_lists_them():
    assert sol_report.rivals_text(ADD) == "torch.compile, Liger-Kernel and F.rms_norm"
    assert sol_report.rivals_text("sol.swiglu") == "torch.compile and Liger-Kernel"
    assert sol_report.BIG_TEXT == "64 MiB"


def test_the_row_kernels_order_reads_as_the_tables_write_it():
    assert sol_report.row_order([2, 32, False, False]) == "h early"
    assert sol_report.row_order([1, 32, True, True]) == "h late, w first"


def test_the_swiglu_config_names_its_divide():
    assert sol_report.swiglu_config([1024, 4, True]) == "1024 × 4, IEEE"
    assert sol_report.swiglu_config([2048, 8, False]) == "2048 × 8, approx."


def test_the_share_plot_draws_each_version_but_the_ceiling_and_the_skipped():
    shapes = [{"bytes": mib << 20, "versions": {"same-bytes copy": {"share_of_copy": 1.0},
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
