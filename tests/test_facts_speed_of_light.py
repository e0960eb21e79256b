"""The speed-of-light facts: the goal and its verdicts, the fixture results read through them, and each verdict the
page branches on driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest

from kernelbook import page
from kernelbook.chapters.speed_of_light import facts as F
from kernelbook.chapters.speed_of_light import figures as C  # how the figures are computed: the goal, its verdicts
from kernelbook.chapters.speed_of_light import guards as G
from kernelbook.chapters.speed_of_light.figures import AtShape
from kernelbook.stats import paired

ADD, SWIGLU = C.ADD, C.SWIGLU


@pytest.fixture
def data(fixture_results):
    load = lambda name: copy.deepcopy(page.result(name).data)  # noqa: E731
    return {"add": load(ADD), "swiglu": load(SWIGLU), "designs": load(C.DESIGNS), "gpu": "H200"}


def _at(d: dict, rows: int, hidden: int) -> dict:
    """The stored shape (rows, hidden) of a result's data, to edit in place."""
    return next(s for s in d["shapes"] if (s["rows"], s["hidden"]) == (rows, hidden))


def _big(d: dict) -> list[dict]:
    return [s for s in d["shapes"] if C.big(s)]


# ---- the goal, on made-up shapes ----------------------------------------------------------------------------------

def _shape(share: float, ours_ms: float, rivals_ms: dict[str, float], nbytes: int = 256 << 20) -> dict:
    versions = {"ours": {"ms": ours_ms, "share_of_copy": share},
                **{o: {"ms": ms} for o, ms in rivals_ms.items()}, "liger": {"error": "not installed"}}
    return {"bytes": nbytes, "versions": versions}


def test_without_placements_the_goal_needs_the_share_and_a_strictly_lower_median():
    assert C.met(_shape(0.98, 1.0, {"compiled": 1.1, "rms_norm": 2.0}), ADD)
    assert not C.met(_shape(0.97999, 1.0, {"compiled": 1.1}), ADD)
    tie = _shape(0.99, 1.0, {"compiled": 1.0, "rms_norm": 2.0})  # a tie in the rounds is not ahead
    assert C.standing(tie, ADD) == {"compiled": "behind", "rms_norm": "ahead"}
    assert C.behind(tie, ADD) == ["compiled"] and not C.met(tie, ADD)


def test_a_rival_that_failed_to_run_is_not_counted_and_small_shapes_never_meet():
    ok = _shape(0.99, 1.0, {"compiled": 1.1})
    assert C.behind(ok, ADD) == [] and C.met(ok, ADD)
    assert not C.met(_shape(0.99, 1.0, {"compiled": 1.1}, nbytes=1 << 20), ADD)


def test_paired_reads_ahead_level_and_behind_from_the_interval_of_the_median_difference():
    base = [1.00, 1.02, 0.99, 1.05, 1.01, 0.98, 1.03, 1.00]
    ahead = paired([t - 0.01 for t in base], base)
    assert ahead["verdict"] == "ahead" and ahead["faster"] == 8 and ahead["n"] == 8
    assert abs(ahead["median"] + 0.01) < 1e-12 and ahead["high"] < 0
    noisy = [t + d for t, d in zip(base, (-0.02, 0.03, -0.01, 0.02, -0.03, 0.01, 0.02, -0.02), strict=True)]
    level = paired(noisy, base)
    assert level["verdict"] == "level" and level["low"] < 0 < level["high"] and level["faster"] == 4
    assert paired(base, [t - 0.01 for t in base])["verdict"] == "behind"
    assert paired(noisy, base) == level  # seeded: a page reads the same on every build


def _placed(compiled_by: float, liger_by: list[float]) -> dict:
    """A large shape at 100% of the copy, slower than both rivals in the rounds, with paired placements: ours minus
    torch.compile is compiled_by on every placement, ours minus Liger-Kernel follows liger_by."""
    ours = [1.0, 1.1, 0.9, 1.0, 1.2]
    return {"bytes": 256 << 20, "versions": {"ours": {"ms": 2.0, "share_of_copy": 1.0},
                                             "compiled": {"ms": 1.0}, "liger": {"ms": 1.0}},
            "placements": {"ours": ours, "compiled": [t - compiled_by for t in ours],
                           "liger": [t - d for t, d in zip(ours, liger_by, strict=True)]}}


def test_with_placements_ahead_and_level_meet_the_goal_and_only_behind_misses_it():
    """Issue 26: level with every rival at the goal's share meets the goal; the rounds are not asked."""
    shape = _placed(-0.1, [-0.1, 0.1, -0.05, 0.05, 0.0])  # ahead of torch.compile, level with Liger-Kernel
    assert C.standing(shape, SWIGLU) == {"compiled": "ahead", "liger": "level"}
    assert C.behind(shape, SWIGLU) == [] and C.met(shape, SWIGLU)
    level = _placed(0.0, [-0.1, 0.1, -0.05, 0.05, 0.0])  # level with both
    assert set(C.standing(level, SWIGLU).values()) == {"level"} and C.met(level, SWIGLU)
    behind = _placed(0.1, [-0.1, 0.1, -0.05, 0.05, 0.0])  # torch.compile ahead of ours on every placement
    assert C.standing(behind, SWIGLU)["compiled"] == "behind"
    assert C.behind(behind, SWIGLU) == ["compiled"] and not C.met(behind, SWIGLU)
    shape["versions"]["ours"]["share_of_copy"] = 0.97  # level or ahead, but under the share
    assert not C.met(shape, SWIGLU)
    del level["placements"]  # without placements the rounds decide: ours is slower there
    assert C.behind(level, SWIGLU) == ["compiled", "liger"] and C.against(level, ("compiled",)) == {}


def test_programs_per_sm_is_the_smaller_of_the_thread_and_register_limits():
    # 4-warp programs on an SM of 2,048 threads: 16 by threads; registers go to warps in units of 256
    assert C.programs_per_sm(28, 4, 2048) == 16  # 1,024 per warp: the threads bind
    assert C.programs_per_sm(40, 4, 2048) == 12  # 1,280 per warp, 5,120 per program
    assert C.programs_per_sm(43, 4, 2048) == 10  # 1,376 rounds up to 1,536 per warp
    assert C.programs_per_sm(43, 8, 2048) == 5


def test_a_shape_reads_rows_by_width_with_thousands_separated():
    assert C.shape_text({"rows": 32768, "hidden": 8960}) == "32,768 × 8,960"
    assert C.shape_text({"rows": 1, "hidden": 1536}) == "1 × 1,536"


# ---- the fixture, read through the facts --------------------------------------------------------------------------

def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    shares = [s["versions"]["ours"]["share_of_copy"] for s in _big(data["add"])]
    assert (f.add_big, f.add_share_low, f.add_share_high) == (8, min(shares), max(shares))
    assert f.add_rivals == ("torch.compile", "Liger-Kernel", "F.rms_norm") and f.big_mib == 64
    assert f.add_goal_met and f.add_met == 8 and f.add_y_max_steps == 2 and f.add_one_row_picked == 5
    assert (f.small_rows_low, f.small_rows_high, f.rounds, f.finalists) == (1, 64, 10, 5)
    assert (f.add_noise.min_rounds, f.add_noise.max_rounds, f.add_noise.cap_s) == (10, 20, 10.0)
    assert f.add_goal == f.swiglu_goal == "met" and f.add_goal_noisy == f.swiglu_goal_noisy == ()
    assert f.swiglu_ahead_shapes == ("32,768 × 4,096", "32,768 × 8,960")
    assert f.swiglu_level == (AtShape("8,192 × 4,096", ("torch.compile", "Liger-Kernel")),
                              AtShape("8,192 × 8,960", ("torch.compile",)))
    assert f.swiglu_met == 4 and f.swiglu_goal_met  # level at the 8,192-row shapes meets the goal (issue 26)
    assert (f.regs_ieee, f.regs_approx, f.held_ieee, f.held_approx) == (34, 29, 12, 16)
    assert (f.warp_not_run_width, f.warp_elements_per_thread, f.warp_registers_for_x, f.warp_registers) == (
        16384, 512, 256, 255)
    assert f.warp_spill_widths == (8192,) and f.warp_fit_width == 4096
    assert (f.copy_ahead, f.copy_level, f.copy_behind) == (2, 1, 1) and f.copy_ahead_ieee == 2
    assert f.inexact_rival == "torch.compile" and f.inexact_shape == "8,192 × 4,096" and f.inexact_steps == 1
    assert F.facts().gpu == "H200"


# ---- add + RMSNorm: each verdict both ways -------------------------------------------------------------------------

def test_a_rival_tied_in_the_rounds_keeps_the_goal_from_being_met(data):
    f = F.from_data(**data)
    assert f.add_all_ahead and f.add_goal_met and f.add_not_ahead == ()
    s = _at(data["add"], 8192, 1536)
    s["versions"]["liger"].update(ms=s["versions"]["ours"]["ms"], quiet=True)  # a tie of quiet medians is not ahead
    s["versions"]["ours"]["quiet"] = True
    f = F.from_data(**data)
    assert not f.add_all_ahead and not f.add_goal_met and (f.add_ahead, f.add_met) == (7, 7)
    assert f.add_not_ahead == (AtShape("8,192 × 1,536", ("Liger-Kernel",)),)


def _noisy(ms: float, values: list[float]) -> dict:
    return {"ms": ms, "values": values, "quiet": False, "noise_pct": 2.0, "share_of_copy": 1.0}


def test_a_noisy_median_decides_only_where_its_rounds_do():
    quiet = [1.0] * 10
    shape = {"bytes": 256 << 20, "versions": {"copy": {"ms": 1.0, "values": quiet, "quiet": True},
                                              "ours": {"ms": 1.0, "values": quiet, "quiet": True,
                                                       "share_of_copy": 1.0},
                                              "compiled": _noisy(1.0, [0.98, 1.02] * 5)}}
    # a tie of medians, straddled round by round: noisy, neither ahead nor behind, and the goal undecided
    assert C.standing(shape, ADD) == {"compiled": "noisy"} and C.behind(shape, ADD) == []
    assert C.goal(shape, ADD) == "noisy" and not C.met(shape, ADD) and C.goal_of([shape], ADD) == "noisy"
    shape["versions"]["compiled"] = _noisy(1.1, [1.05, 1.15] * 5)  # slower in every round: ahead, though noisy
    assert C.standing(shape, ADD) == {"compiled": "ahead"} and C.goal(shape, ADD) == "met"
    shape["versions"]["compiled"] = _noisy(0.9, [0.85, 0.95] * 5)  # faster in every round: behind
    assert C.goal(shape, ADD) == "missed" and C.goal_of([shape, {**shape}], ADD) == "missed"
    shape["versions"]["compiled"] = _noisy(1.1, [1.05, 1.15] * 4)  # a round short: the rounds do not pair
    assert C.standing(shape, ADD) == {"compiled": "noisy"}


def test_a_noisy_share_is_at_or_under_only_where_every_round_agrees():
    def shape(copy: list[float]) -> dict:
        ours = [1.0] * len(copy)
        return {"bytes": 256 << 20, "versions": {"copy": _noisy(sorted(copy)[len(copy) // 2], copy),
                                                 "ours": {"ms": 1.0, "values": ours, "quiet": True,
                                                          "share_of_copy": 0.99}}}
    assert C.share_verdict(shape([0.99, 0.985] * 5)) == "at"
    assert C.share_verdict(shape([0.97, 0.975] * 5)) == "under"
    mixed = shape([0.99, 0.97] * 5)
    assert C.share_verdict(mixed) == "noisy" and C.goal(mixed, ADD) == "noisy" and not C.at_share(mixed)
    quiet = shape([0.97] * 10)
    quiet["versions"]["copy"]["quiet"] = True  # quiet: the median share decides (0.99), not the rounds
    assert C.share_verdict(quiet) == "at"


def test_noise_facts_name_what_stayed_noisy_and_the_goal_says_noisy(data):
    for s in data["add"]["shapes"]:
        for v in s["versions"].values():
            v.update(quiet=True, noise_pct=0.1)
    f = F.from_data(**data)
    assert f.add_noise.all_quiet and f.add_noise.noisy_big == () and f.add_noise.quiet_shapes == 20
    s = _at(data["add"], 8192, 4096)
    s["rounds"]["rounds"] = 14
    ours = s["versions"]["ours"]
    s["versions"]["copy"].update(quiet=False, noise_pct=1.5, values=[ours["ms"] * x for x in (0.97, 1.0) * 5])
    f = F.from_data(**data)
    assert not f.add_noise.all_quiet and f.add_noise.noisy_big == (AtShape("8,192 × 4,096", ("same-bytes copy",)),)
    assert (f.add_noise.noisiest_label, f.add_noise.noisiest_pct, f.add_noise.rounds_high) == (
        "same-bytes copy", 1.5, 14)
    assert f.add_goal == "noisy" and not f.add_goal_met and f.add_goal_noisy == ("8,192 × 4,096",)
    assert f.add_under == (C.Under("8,192 × 4,096", ours["share_of_copy"], f.add_under[0].kib, True),)
    _at(data["add"], 32768, 4096)["versions"]["ours"]["share_of_copy"] = 0.5  # a shape decidedly under
    assert F.from_data(**data).add_goal == "missed"


def test_a_result_from_before_the_criterion_reads_as_quiet(data):
    old = copy.deepcopy(data["designs"])
    for k in ("min_rounds", "max_rounds", "cap_s", "bound_pct"):
        old.pop(k)
    old["rounds"] = 5
    for s in old["shapes"]:
        del s["rounds"]
        for v in s["versions"].values():
            v.pop("quiet", None)
    n = C.noise(old)
    assert (n.rounds_low, n.min_rounds, n.all_quiet, n.noisy_big) == (5, 5, True, ())


def test_a_shape_under_the_share_is_named_with_its_program_size(data):
    assert F.from_data(**data).add_all_at_share
    s = _at(data["add"], 8192, 16384)
    s["versions"]["ours"]["share_of_copy"] = 0.9789
    f = F.from_data(**data)
    assert not f.add_all_at_share and not f.add_goal_met and f.add_at_share == 7
    assert f.add_under == (C.Under("8,192 × 16,384", 0.9789, s["best_config"][0] * 16384 * 2 // 1024),)
    assert f.add_under_copy_kib == (s["copy_config"][0] * 2 // 1024,)


def test_the_shapes_that_kept_one_row_per_program_count_only_large_shapes(data):
    _at(data["add"], 8192, 8192)["best_config"][0] = 2
    _at(data["add"], 64, 8192)["best_config"][0] = 1  # a decode-sized shape does not count
    assert F.from_data(**data).add_one_row_picked == 4


def test_the_tile_sized_copy_ahead_of_the_kernel_says_so(data):
    assert F.from_data(**data).tile_never_ahead
    s = _at(data["add"], 32768, 8192)
    s["versions"]["copy_tiled"]["share_of_copy"] = s["versions"]["ours"]["share_of_copy"] + 0.01
    f = F.from_data(**data)
    assert not f.tile_never_ahead and f.tile_lead_shape == "32,768 × 8,192"
    assert f.tile_lead_points == pytest.approx(1.0)


def test_the_one_row_kernel_is_close_to_the_copy_only_at_every_large_shape(data):
    assert F.from_data(**data).one_row_close
    _at(data["add"], 32768, 16384)["versions"]["one_row"]["share_of_copy"] = C.NEAR_COPY - 0.01
    f = F.from_data(**data)
    assert not f.one_row_close and f.one_row_low == C.NEAR_COPY - 0.01


def test_the_kernels_own_work_at_small_shapes_shows_only_past_half_a_point(data):
    f = F.from_data(**data)
    assert f.small_own_work_shows and f.small_own_work_points > 0.5
    for s in data["add"]["shapes"]:
        if s["small"]:
            s["versions"]["copy_tiled"]["share_of_copy"] = s["versions"]["ours"]["share_of_copy"] + 0.004
    f = F.from_data(**data)
    assert not f.small_own_work_shows and f.small_own_work_points == pytest.approx(0.4)


# ---- the other designs ---------------------------------------------------------------------------------------------

def test_a_design_ahead_of_the_row_kernel_is_named(data):
    assert F.from_data(**data).designs_none_ahead
    s = _at(data["designs"], 8192, 8192)
    s["versions"]["split_row"]["share_of_copy"] = s["versions"]["row_kernel"]["share_of_copy"] + 0.01
    f = F.from_data(**data)
    assert not f.designs_none_ahead and f.designs_ahead == (AtShape("8,192 × 8,192", ("split row",)),)


def test_a_span_of_shares_is_a_range_only_when_they_read_apart(data):
    assert F.from_data(**data).row_kernel_spread
    for s, x in zip(data["designs"]["shapes"], (0.9851, 0.9855, 0.9859), strict=True):  # all written 98.5%
        s["versions"]["row_kernel"]["share_of_copy"] = x
    f = F.from_data(**data)
    assert not f.row_kernel_spread and f.persistent_spread and f.design_low["row_kernel"] == 0.9851
    for s in data["designs"]["shapes"]:
        s["versions"]["persistent"]["share_of_copy"] = 0.95
    assert not F.from_data(**data).persistent_spread


def test_the_row_kernels_two_runs_are_compared_only_when_they_differ(data):
    f = F.from_data(**data)
    assert f.rerun_shows and f.rerun_higher and f.rerun_shape == "8,192 × 8,192"
    main = {(s["rows"], s["hidden"]): s["versions"]["ours"]["share_of_copy"] for s in data["add"]["shapes"]}
    for s in data["designs"]["shapes"]:
        s["versions"]["row_kernel"]["share_of_copy"] = main[(s["rows"], s["hidden"])] - 0.002
    f = F.from_data(**data)
    assert f.rerun_shows and not f.rerun_higher and f.rerun_points == pytest.approx(0.2)
    for s in data["designs"]["shapes"]:
        s["versions"]["row_kernel"]["share_of_copy"] = main[(s["rows"], s["hidden"])]
    assert not F.from_data(**data).rerun_shows


def test_the_warp_per_row_verdicts_follow_its_kernels(data):
    f = F.from_data(**data)
    assert f.warp_not_run and f.warp_fits and f.warp_fit_behind and f.warp_spills
    assert f.one_warp_barrier_free and f.multi_warp_barriers
    wide, narrow = _at(data["designs"], 8192, 8192), _at(data["designs"], 8192, 4096)
    narrow["versions"]["warp_rows"]["share_of_copy"] = narrow["versions"]["row_kernel"]["share_of_copy"] + 0.001
    for k in wide["warp_rows_kernels"].values():
        k["local_bytes"] = 0  # nothing spills at 8,192 either
    for c, k in narrow["warp_rows_kernels"].items():
        k["barriers"] = 1 if c == "(1,)" else 0
    for s in data["designs"]["shapes"]:
        s["not_run"] = {}
    f = F.from_data(**data)
    assert not f.warp_not_run and not f.warp_spills and not f.warp_fit_behind
    assert not f.one_warp_barrier_free and not f.multi_warp_barriers
    for s in (wide, narrow):
        for k in s["warp_rows_kernels"].values():
            k["local_bytes"] = 64
    f = F.from_data(**data)
    assert not f.warp_fits and f.warp_spills and f.warp_spill_widths == (4096, 8192)


# ---- SwiGLU --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ieee, approx, swept", [(0, 0, "both"), (0, 3000, "ieee"), (12, 0, "approx")])
def test_the_divides_swept_are_those_that_matched_eager_everywhere(data, ieee, approx, swept):
    data["swiglu"]["mismatches"]["ieee"]["differ"] = ieee
    data["swiglu"]["mismatches"]["approx"]["differ"] = approx
    f = F.from_data(**data)
    assert f.divides_swept == swept and (f.ieee_differ, f.approx_differ) == (ieee, approx)


def test_every_version_at_the_copys_speed_needs_every_rival_at_the_goals_share(data):
    assert F.from_data(**data).swiglu_all_near_copy
    _at(data["swiglu"], 8192, 4096)["versions"]["liger"]["share_of_copy"] = 0.97
    f = F.from_data(**data)
    assert not f.swiglu_all_near_copy and f.swiglu_spread_points > 3


def test_the_placement_count_is_a_range_only_where_it_varies(data):
    assert not F.from_data(**data).placements_vary
    ms = _at(data["swiglu"], 32768, 4096)["placements"]
    for k in ms:
        ms[k] = ms[k][:10]
    f = F.from_data(**data)
    assert f.placements_vary and (f.placements_low, f.placements_high) == (10, 20)


def _ours_from(d: dict, rows: int, hidden: int, by_ms: float, *of: str) -> None:
    """Ours at one shape set, on every placement, to the fastest of `of` there plus by_ms (< 0: ours ahead)."""
    ms = _at(d, rows, hidden)["placements"]
    ms["ours"] = [min(t) + by_ms for t in zip(*(ms[o] for o in of), strict=True)]


def test_the_swiglu_goal_follows_the_placements_both_ways(data):
    f = F.from_data(**data)
    assert f.swiglu_any_ahead and f.swiglu_any_level and not f.swiglu_any_behind and f.swiglu_goal_met
    for s in _big(data["swiglu"]):  # ours ahead of both everywhere: nothing level
        _ours_from(data["swiglu"], s["rows"], s["hidden"], -1e-4, "compiled", "liger")
    f = F.from_data(**data)
    assert not f.swiglu_any_level and len(f.swiglu_ahead_shapes) == 4 and f.swiglu_met == 4
    _ours_from(data["swiglu"], 32768, 4096, 5e-4, "compiled")  # torch.compile ahead of ours on every placement
    f = F.from_data(**data)
    assert f.swiglu_any_behind and not f.swiglu_goal_met and f.swiglu_met == 3
    assert f.swiglu_behind[0].shape == "32,768 × 4,096" and "torch.compile" in f.swiglu_behind[0].names
    for s in _big(data["swiglu"]):
        _ours_from(data["swiglu"], s["rows"], s["hidden"], 5e-4, "compiled", "liger")
    f = F.from_data(**data)
    assert not f.swiglu_any_ahead and f.swiglu_met == 0


def test_an_inexact_rival_is_named_only_where_ours_was_not_ahead_of_it(data):
    f = F.from_data(**data)
    assert f.inexact_shows and f.inexact_level
    _ours_from(data["swiglu"], 8192, 4096, 5e-4, "compiled")  # torch.compile now ahead of ours there
    f = F.from_data(**data)
    assert f.inexact_shows and not f.inexact_level and f.inexact_shape == "8,192 × 4,096"
    for s in _big(data["swiglu"]):
        _ours_from(data["swiglu"], s["rows"], s["hidden"], -1e-4, "compiled", "liger")
    assert not F.from_data(**data).inexact_shows  # still inexact, but behind ours everywhere


def test_the_probes_reading_of_inductors_kernel_is_given_only_for_torch_compile(data):
    assert F.from_data(**data).inexact_compiled
    for s in data["swiglu"]["shapes"]:
        s["check"]["compiled"].update(bit_identical=True, differ=0, max_steps=0)
    _at(data["swiglu"], 8192, 4096)["check"]["liger"].update(bit_identical=False, differ=1000, max_steps=1)
    f = F.from_data(**data)  # ours is level with Liger-Kernel there
    assert f.inexact_shows and f.inexact_rival == "Liger-Kernel" and not f.inexact_compiled


def test_an_exact_rival_is_not_named(data):
    for s in data["swiglu"]["shapes"]:
        s["check"]["compiled"].update(bit_identical=True, differ=0, max_steps=0)
    f = F.from_data(**data)
    assert not f.inexact_shows and f.swiglu_any_level


def test_ours_against_the_copy_reads_the_placements(data):
    f = F.from_data(**data)
    assert f.copy_behind_any and f.beat_copy_any and f.beat_copy_all_ieee
    for s in _big(data["swiglu"]):  # ours ahead of the copy everywhere, with either divide
        _ours_from(data["swiglu"], s["rows"], s["hidden"], -1e-4, "copy")
    f = F.from_data(**data)
    assert not f.copy_behind_any and f.copy_ahead == 4 and f.copy_ahead_ieee == 2 and not f.beat_copy_all_ieee
    for s in _big(data["swiglu"]):
        _ours_from(data["swiglu"], s["rows"], s["hidden"], 1e-3, "copy")
    f = F.from_data(**data)
    assert not f.beat_copy_any and f.copy_behind == 4 and f.copy_behind_us == pytest.approx(1.0)


def test_the_probe_compares_how_far_placements_move_a_time_with_the_differences(data):
    assert F.from_data(**data).probe_moves_more
    ms = C.probe(data["swiglu"])["placements"]
    ms["ours"] = [min(ms["compiled"]) - 1e-3] * len(ms["ours"])  # one time on every placement, 1 us ahead
    f = F.from_data(**data)
    assert not f.probe_moves_more and f.probe_ours_us == 0


def test_fewer_programs_per_sm_with_the_ieee_divide_only_where_its_registers_cost_them(data):
    assert F.from_data(**data).ieee_holds_fewer
    C.probe(data["swiglu"])["registers"]["per_thread"]["ieee"] = 29
    f = F.from_data(**data)
    assert not f.ieee_holds_fewer and f.held_ieee == f.held_approx == 16


def test_every_round_on_its_own_placement_only_where_the_pool_held_every_round(data):
    f = F.from_data(**data)
    assert f.add_own_placements and f.add_pool_low == 10
    s = _at(data["add"], 32768, 16384)
    s["rounds"].update(rounds=14, placements=10)  # the pool full: rounds 11 to 14 reuse placements
    _at(data["add"], 8192, 4096)["rounds"]["placements"] = 12
    f = F.from_data(**data)
    assert not f.add_own_placements and (f.add_pool_low, f.add_pool_shape) == (10, "1 × 1,536")
    for t in data["add"]["shapes"]:
        t["rounds"]["placements"] = 20
    s["rounds"]["placements"] = 8
    f = F.from_data(**data)
    assert not f.add_own_placements and (f.add_pool_low, f.add_pool_shape) == (8, "32,768 × 16,384")


def test_the_swiglu_rounds_name_what_stayed_noisy_at_a_large_shape(data):
    for s in data["swiglu"]["shapes"]:
        s["rounds"]["rounds"] = 10
        for v in s["versions"].values():
            v.update(quiet=True, noise_pct=0.1)
    f = F.from_data(**data)
    assert f.swiglu_all_quiet and not f.swiglu_noisy_big and not f.swiglu_rounds_vary
    small = next(s for s in data["swiglu"]["shapes"] if s["small"])
    small["versions"]["eager"].update(quiet=False, noise_pct=1.2)
    small["rounds"]["rounds"] = 20
    f = F.from_data(**data)
    assert not f.swiglu_all_quiet and not f.swiglu_noisy_big and f.swiglu_rounds_vary
    _big(data["swiglu"])[0]["versions"]["liger"].update(quiet=False, noise_pct=0.8)
    f = F.from_data(**data)
    assert f.swiglu_noisy_big and f.swiglu_noise.noisy_big[0].names == ("Liger-Kernel",)


# ---- the page's guards, each driven both ways ----------------------------------------------------------------------

def _holds(name: str, f: F.Facts) -> bool:
    return bool(G.GUARDS[name][1](f))


def test_the_add_goal_open_at_one_noisy_shape_names_it_and_its_programs(data):
    f = F.from_data(**data)
    assert f.add_open == C.Open() and not _holds("add_newest_undecided", f) and not _holds("add_open_programs", f)
    assert G.GUARDS["add_newest_undecided"].instead[0](f) and G.GUARDS["add_open_programs"].instead[0](f)
    older = copy.deepcopy(data["add"])  # an older run that met the goal everywhere
    s = _at(data["add"], 8192, 4096)
    ours = s["versions"]["ours"]
    s["versions"]["copy"].update(quiet=False, noise_pct=1.5, values=[ours["ms"] * x for x in (0.97, 1.0) * 5])
    assert _holds("add_newest_undecided", F.from_data(**data))  # one run, one shape undecided
    f = F.from_data(**data, runs={ADD: [older, data["add"]]})
    assert f.add_open == C.Open("8,192 × 4,096", ours["share_of_copy"], s["best_config"][0] * 4096 * 2 // 1024,
                                s["copy_config"][0] * 2 // 1024, True)
    assert (f.add_runs, f.add_met_runs, f.add_newest_noisy) == (2, 1, ("8,192 × 4,096",))
    assert f.add_goal_noisy_text == "8,192 × 4,096" and _holds("add_newest_undecided", f)
    assert _holds("add_ahead_every_run", f) and _holds("add_missed_no_run", f)
    # the newest run's shape is named whichever run the one rule reads the words of
    g = F.from_data(older, data["swiglu"], data["designs"], "H200", {ADD: [older, data["add"]]})
    assert g.add_open == f.add_open and _holds("add_newest_undecided", g)
    assert _holds("add_open_programs", dataclasses.replace(f, add_open=dataclasses.replace(f.add_open, kib=16,
                                                                                           copy_kib=2)))
    assert not _holds("add_open_programs", dataclasses.replace(f, add_open=dataclasses.replace(f.add_open, kib=2,
                                                                                               copy_kib=2)))
    _at(older, 32768, 4096)["versions"]["ours"]["share_of_copy"] = 0.5  # a shape decidedly under in the older run
    h = F.from_data(**data, runs={ADD: [older, data["add"]]})
    assert not _holds("add_missed_no_run", h) and h.add_missed_runs == 1
    assert "in 1 of 2 runs" in G.GUARDS["add_missed_no_run"].found(h)
    assert _holds("add_newest_undecided", h)  # the newest run's words: still one shape undecided


def test_lists_read_as_words_and_each_designs_share_as_a_field(data):
    assert C.words(["a"]) == "a" and C.words(["a", "b"]) == "a and b" and C.words(("a", "b", "c")) == "a, b and c"
    f = F.from_data(**data)
    assert f.add_rivals_text == "torch.compile, Liger-Kernel and F.rms_norm"
    assert f.swiglu_rivals_text == "torch.compile and Liger-Kernel"
    assert f.swiglu_ahead_text == "32,768 × 4,096 and 32,768 × 8,960"
    assert f.swiglu_level_text == "torch.compile and Liger-Kernel at 8,192 × 4,096; torch.compile at 8,192 × 8,960"
    assert f.warp_spill_widths_text == "8,192"
    assert (f.min_rounds, f.max_rounds, f.cap_s, f.bound_pct) == (10, 20, 10.0, f.add_noise.bound_pct)
    for d in ("row_kernel", *C.OTHER_DESIGNS):
        assert (getattr(f, f"{d}_low"), getattr(f, f"{d}_high")) == (f.design_low[d], f.design_high[d])


CASES = [  # each guard: fields that make it hold, and fields that turn it
    ("add_large_at_copy", {"add_share_low": 0.985}, {"add_share_low": 0.979}),
    ("swiglu_large_at_copy", {"swiglu_share_low": 0.999}, {"swiglu_share_low": 0.97}),
    ("small_under", {"small_share_high": 0.83}, {"small_share_high": 0.98}),
    ("small_own_work", {"small_own_work_shows": True}, {"small_own_work_shows": False}),
    ("add_ahead_every_run", {"add_ahead_every_run": True}, {"add_ahead_every_run": False, "add_ahead_runs": 1}),
    ("add_missed_no_run", {"add_missed_no_run": True}, {"add_missed_no_run": False, "add_missed_runs": 1}),
    ("add_newest_undecided", {"add_newest_noisy": ("8,192 × 8,192",)},
     {"add_newest_noisy": ("8,192 × 8,192", "8,192 × 4,096")}),
    ("add_open_programs", {"add_open": C.Open("8,192 × 8,192", 0.986, 16, 2, True)},
     {"add_open": C.Open("8,192 × 8,192", 0.986, 2, 2, True)}),
    ("rms_norm_far_below", {"rms_norm_share_high": 0.75, "figure_share_low": 0.94},
     {"rms_norm_share_high": 0.9, "figure_share_low": 0.94}),
    ("one_row_close", {"one_row_close": True}, {"one_row_close": False, "one_row_low": 0.93}),
    ("tile_never_ahead", {"tile_never_ahead": True}, {"tile_never_ahead": False, "tile_lead_points": 0.8}),
    ("add_own_placements", {"add_own_placements": True}, {"add_own_placements": False}),
    ("designs_none_ahead", {"designs_none_ahead": True},
     {"designs_none_ahead": False, "designs_ahead": (C.AtShape("8,192 × 8,192", ("split row",)),)}),
    ("warp_not_run", {"warp_not_run": True}, {"warp_not_run": False}),
    ("warp_fit_behind", {"warp_fits": True, "warp_fit_behind": True}, {"warp_fit_behind": False}),
    ("warp_fit_behind", {"warp_fits": True, "warp_fit_behind": True},
     {"warp_fits": False, "warp_spill_widths_text": "4,096 and 8,192"}),
    ("one_warp_no_barrier", {"one_warp_barrier_free": True}, {"one_warp_barrier_free": False}),
    ("wider_barriers", {"multi_warp_barriers": True}, {"multi_warp_barriers": False}),
    ("rerun_apart", {"rerun_shows": True}, {"rerun_shows": False, "rerun_points": 0.08}),
    ("divides_both", {"divides_swept": "both"}, {"divides_swept": "ieee", "approx_differ": 3000}),
    ("swiglu_near_copy", {"swiglu_all_near_copy": True}, {"swiglu_all_near_copy": False, "swiglu_all_low": 0.97}),
    ("swiglu_behind_no_run", {"swiglu_behind_no_run": True}, {"swiglu_behind_no_run": False, "swiglu_behind_runs": 1}),
    ("swiglu_met_every_run", {"swiglu_met_every_run": True}, {"swiglu_met_every_run": False, "swiglu_met_runs": 2}),
    ("swiglu_newest_ahead", {"swiglu_newest_ahead": True}, {"swiglu_newest_ahead": False}),
    ("swiglu_newest_level", {"swiglu_newest_level": True}, {"swiglu_newest_level": False}),
    ("copy_ahead_most", {"copy_ahead": 3, "swiglu_big": 4}, {"copy_ahead": 1, "swiglu_big": 4, "copy_behind": 3}),
    ("copy_ahead_most", {"copy_ahead": 3, "swiglu_big": 4}, {"copy_ahead": 2, "swiglu_big": 4}),
    ("copy_not_limit", {"swiglu_share_high": 1.007}, {"swiglu_share_high": 0.998}),
    ("copy_ahead_same", {"swiglu_copy_ahead_same": True},
     {"swiglu_copy_ahead_same": False, "copy_ahead_low": 2, "copy_ahead_high": 3}),
    ("compiled_level", {"swiglu_compiled_level": True}, {"swiglu_compiled_level": False}),
    ("compiled_inexact", {"swiglu_compiled_level": True, "inexact_shows": True, "inexact_compiled": True,
                          "inexact_level": True}, {"inexact_level": False}),
    ("compiled_inexact", {"swiglu_compiled_level": True, "inexact_shows": True, "inexact_compiled": True,
                          "inexact_level": True}, {"inexact_compiled": False}),
    # where torch.compile was level nowhere, the clause is compiled_level's to flag, not this one's
    ("compiled_inexact", {"swiglu_compiled_level": False, "inexact_shows": False},
     {"swiglu_compiled_level": True, "inexact_shows": False}),
    ("probe_moves_more", {"probe_more_runs": 1}, {"probe_more_runs": 0}),
    ("beat_copy_ieee", {"beat_copy_all_ieee": True}, {"beat_copy_all_ieee": False}),
    ("ieee_holds_fewer", {"ieee_holds_fewer": True}, {"ieee_holds_fewer": False, "held_ieee": 16}),
    ("swiglu_newest_noisy", {"swiglu_newest_noisy_big": True}, {"swiglu_newest_noisy_big": False}),
]
WORDS_ONLY = {"warp_not_run", "one_warp_no_barrier", "wider_barriers", "swiglu_newest_ahead", "swiglu_newest_level",
              "compiled_level", "compiled_inexact", "swiglu_newest_noisy"}  # a flag that names a fact, not a figure


def test_every_guard_has_a_case():
    assert {c[0] for c in CASES} == set(G.GUARDS)


@pytest.mark.parametrize("name, holding, turned", CASES)
def test_each_guard_holds_on_one_value_and_fails_on_another(data, name, holding, turned):
    f = dataclasses.replace(F.from_data(**data), **holding)
    assert _holds(name, f)
    failed = dataclasses.replace(f, **turned)
    assert not _holds(name, failed)
    said = G.GUARDS[name].found(failed)  # what a flag says where it fails: in words, with the values
    code = re.findall(r"\b[a-z0-9]+_[a-z0-9_]+\b", said.replace("F.rms_norm", "C.rms-norm"))  # a label, not code
    assert said and not code and (name in WORDS_ONLY or any(c.isdigit() for c in said)), said


def test_the_guards_follow_the_data_they_read(data):
    """The guards on facts read from edited data, not only on replaced fields."""
    assert _holds("rerun_apart", F.from_data(**data))  # the fixture's row kernel reads apart in its rerun
    assert _holds("designs_none_ahead", F.from_data(**data))
    s = _at(data["designs"], 8192, 8192)
    s["versions"]["split_row"]["share_of_copy"] = s["versions"]["row_kernel"]["share_of_copy"] + 0.01
    f = F.from_data(**data)
    assert not _holds("designs_none_ahead", f)
    assert G.GUARDS["designs_none_ahead"].found(f) == "split row at 8,192 × 8,192 ran ahead of the row kernel"
    C.probe(data["swiglu"])["registers"]["per_thread"]["ieee"] = 29  # as many programs per SM with either divide
    assert not _holds("ieee_holds_fewer", F.from_data(**data))
    data["swiglu"]["mismatches"]["approx"]["differ"] = 3000
    assert not _holds("divides_both", F.from_data(**data))


# ---- the shares over several runs (merged): what the tables show and the share figures read --------------------------

def test_merged_takes_each_versions_median_time_and_its_share_from_the_medians(data):
    runs = [copy.deepcopy(data["add"]) for _ in range(3)]
    for k, run in enumerate(runs):  # ours 1%, 2% and 3% slower than stored; the copy as stored
        _at(run, 8192, 4096)["versions"]["ours"]["ms"] *= 1 + (k + 1) / 100
    s, stored = _at(C.merged(runs), 8192, 4096), _at(data["add"], 8192, 4096)
    copy_ms, ours_ms = stored["versions"]["copy"]["ms"], stored["versions"]["ours"]["ms"]
    assert s["versions"]["ours"]["ms"] == pytest.approx(ours_ms * 1.02) and s["versions"]["ours"]["runs"] == 3
    assert s["versions"]["ours"]["share_of_copy"] == pytest.approx(copy_ms / (ours_ms * 1.02))
    assert s["versions"]["ours"]["gbps"] == pytest.approx(stored["versions"]["ours"]["gbps"] / 1.02)
    assert s["versions"]["copy"]["share_of_copy"] == pytest.approx(1.0)
    assert C.merged([data["add"]]) is data["add"]  # one run: as stored


def test_the_shares_the_prose_quotes_are_those_of_the_medians_the_tables_show(data):
    slow = copy.deepcopy(data["add"])
    for s in _big(slow):  # ours 10% slower in two runs of three: the median run is slow
        s["versions"]["ours"]["ms"] *= 1.1
    f = F.from_data(**data, runs={ADD: [data["add"], slow, copy.deepcopy(slow)]})
    m = C.merged([data["add"], slow, slow])
    shares = [s["versions"]["ours"]["share_of_copy"] for s in _big(m)]
    assert (f.add_share_low, f.add_share_high) == (pytest.approx(min(shares)), pytest.approx(max(shares)))
    assert f.add_share_high < 0.95  # not the newest run's (data["add"], as stored)
    assert F.derive(f)["add_share_low"] == f.add_share_low


def test_the_swiglu_counts_read_every_run_and_the_named_words_the_newest(data):
    older = copy.deepcopy(data["swiglu"])
    for s in _big(older):  # an older run with ours ahead of both everywhere: nothing level, nothing inexact shows
        _ours_from(older, s["rows"], s["hidden"], -1e-4, "compiled", "liger")
    runs = {SWIGLU: [older, data["swiglu"]]}
    f = F.from_data(**data, runs=runs)
    assert (f.swiglu_runs, f.swiglu_all_ahead_runs, f.inexact_runs) == (2, 1, 1)
    assert f.swiglu_newest_level and f.swiglu_behind_no_run and f.swiglu_met_every_run
    assert _holds("compiled_level", f) and _holds("compiled_inexact", f)
    # the older run's words read as the newest's where the page names them as the newest run's
    g = F.from_data(data["add"], older, data["designs"], "H200", runs)
    assert (g.inexact_shape, g.swiglu_level_text, g.swiglu_newest_level) == (f.inexact_shape, f.swiglu_level_text, True)
    assert _holds("compiled_level", g) and _holds("compiled_inexact", g)
    h = F.from_data(data["add"], older, data["designs"], "H200", {SWIGLU: [data["swiglu"], older]})  # older newest
    assert h.inexact_runs == 1 and not h.swiglu_newest_level
    assert not _holds("compiled_level", h) and G.GUARDS["compiled_level"].instead[0](h)
    assert _holds("compiled_inexact", h)  # level nowhere: one flag, compiled_level's, says so


def test_torch_compile_against_the_fusion_chapters_kernels_is_read_at_its_shape(data):
    """Issue 57, item 3: one figure for torch.compile against the hand-written kernels, GPU time by graph replay,
    compiled over the fusion chapter's own kernels (the one-row add + RMSNorm, the chapter's SwiGLU launch) at that
    chapter's shape; the probe shape where none is given."""
    at = C.probe(data["swiglu"])
    f = F.from_data(**data)
    assert f.fusion_shape == C.shape_text(at)
    add, sw = _at(data["add"], at["rows"], at["hidden"])["versions"], at["versions"]
    assert f.fusion_norm_ratio == pytest.approx(add["compiled"]["ms"] / add["one_row"]["ms"])
    assert f.fusion_swiglu_ratio == pytest.approx(sw["compiled"]["ms"] / sw["chapter"]["ms"])
    sw["compiled"]["ms"] = 1.3 * sw["chapter"]["ms"]  # one slow compiled run moves it; ours ("ours") does not count
    sw["ours"]["ms"] = 0.5 * sw["chapter"]["ms"]
    assert F.from_data(**data).fusion_swiglu_ratio == pytest.approx(1.3)
    other = F.from_data(**data, fusion=(32768, 4096))  # another shape given: read there
    far = _at(data["add"], 32768, 4096)["versions"]
    assert other.fusion_shape == "32,768 × 4,096"
    assert other.fusion_norm_ratio == pytest.approx(far["compiled"]["ms"] / far["one_row"]["ms"])
    assert F.FORMATS["fusion_norm_ratio"] == F.FORMATS["fusion_swiglu_ratio"] == "times:3"
