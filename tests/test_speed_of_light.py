"""The speed-of-light bookkeeping: which finalist is reported, and what leaves the versions."""

from __future__ import annotations

import gc
import json
import runpy
import weakref
from pathlib import Path

import torch
from conftest import run_file

from kernelbook.chapters.speed_of_light import method as sol
from kernelbook.chapters.speed_of_light.add_rmsnorm import row_configs
from kernelbook.chapters.speed_of_light.method import against_copy, listed_first, pick


def test_pick_keeps_the_fastest_median_and_moves_every_finalist_out():
    timed = {"copy (1024, 8)": {"ms": 2.0, "values": [2.0, 2.1, 1.9]},
             "copy (2048, 8)": {"ms": 1.5, "values": [1.4, 1.5, 1.6]},
             "copy (4096, 4)": {"error": "RuntimeError: refused"},
             "eager": {"ms": 9.0, "values": [9.0]}}
    names = {(1024, 8): "copy (1024, 8)", (2048, 8): "copy (2048, 8)", (4096, 4): "copy (4096, 4)"}
    best, rounds = pick(timed, names, "copy")
    assert best == (2048, 8)
    assert timed["copy"] == {"ms": 1.5, "values": [1.4, 1.5, 1.6]}
    assert set(timed) == {"copy", "eager"}  # the finalists are not versions of their own
    assert set(rounds) == {"(1024, 8)", "(2048, 8)", "(4096, 4)"} and "error" in rounds["(4096, 4)"]


def test_first_orders_the_named_versions_first_and_keeps_the_rest():
    timed = {"eager": 1, "kernel": 2, "copy": 3}
    assert list(listed_first(timed, "copy", "kernel")) == ["copy", "kernel", "eager"]


def test_shares_are_of_the_copy_timed_in_the_same_rounds():
    timed = against_copy({"copy": {"ms": 1.0}, "kernel": {"ms": 1.25}, "broken": {"error": "x"}},
                          nbytes=10**9)
    assert timed["kernel"]["share_of_copy"] == 0.8 and timed["copy"]["share_of_copy"] == 1.0
    assert round(timed["kernel"]["gbps"]) == 800 and "share_of_copy" not in timed["broken"]


class _Buffers:  # stands in for one round's tensors: alive as long as a version closes over it
    pass


def test_each_round_draws_its_own_buffers_and_keeps_them_to_the_end():
    calls, alive, placed = [], [], []

    def place(i):
        placed.append(i)
        buf = _Buffers()
        alive.append(weakref.ref(buf))
        return {"copy": lambda buf=buf, i=i: calls.append((i, "copy")),
                "kernel": lambda buf=buf, i=i: calls.append((i, "kernel"))}

    def timer(fn):
        fn()
        gc.collect()
        assert all(ref() is not None for ref in alive), "an earlier round's buffers were freed mid-run"
        return 1.0 + len(calls) / 100

    timed = sol.interleaved_rounds(timer, place)
    assert placed == list(range(sol.ROUNDS))
    assert calls == [(i, n) for i in range(sol.ROUNDS) for n in ("copy", "kernel")]  # interleaved, round by round
    assert timed["copy"]["values"] == [1.0 + (2 * i + 1) / 100 for i in range(sol.ROUNDS)]
    assert timed["kernel"]["ms"] == sorted(timed["kernel"]["values"])[sol.ROUNDS // 2]
    del timed
    gc.collect()
    assert all(ref() is None for ref in alive), "the rounds' buffers outlived the rounds"


def test_a_version_that_fails_is_recorded_and_not_timed_again():
    tried = []

    def boom():
        tried.append(1)
        raise RuntimeError("capture refused\nmore detail")

    timed = sol.interleaved_rounds(lambda fn: fn() or 2.0, lambda i: {"ok": lambda: None, "bad": boom})
    assert timed["bad"] == {"error": "RuntimeError: capture refused"} and tried == [1]
    assert timed["ok"] == {"ms": 2.0, "values": [2.0] * sol.ROUNDS}


def test_the_row_kernel_sweep_keeps_its_limits_and_its_winners():
    for rows, hidden in ((1, 1536), (16, 4096), (8192, 8192), (32768, 16384)):
        block = 1 << (hidden - 1).bit_length()
        cfgs = row_configs(rows, hidden)
        assert cfgs and len(set(cfgs)) == len(cfgs)
        for rw, wp, *_ in cfgs:
            assert rw * block <= 32768 and rw <= rows and (wp < 32 or rw * block >= 8192), (rows, hidden, rw, wp)
        # all four load and store orders for every tile
        assert len({c[:2] for c in cfgs}) * 4 == len(cfgs) and {c[2:] for c in cfgs} == {
            (False, False), (False, True), (True, False), (True, True)}
    assert max(rw for rw, *_ in row_configs(16, 1536)) == 16
    # every configuration the stored runs picked is one the sweep still tries
    for name, key in (("speed_of_light.add_rmsnorm", None), ("speed_of_light.designs", "row_kernel")):
        rec = json.loads(run_file(FIXTURES, name).read_text())
        for s in rec["data"]["shapes"]:
            picked = tuple(s["best_config"] if key is None else s["configs"][key])
            assert picked in row_configs(s["rows"], s["hidden"]), (name, s["rows"], s["hidden"], picked)

SNIPPETS = Path(__file__).parents[1] / "snippets" / "speed-of-light"
FIXTURES = Path(__file__).parent / "fixtures" / "results"


def _edit(results: Path, name: str, change) -> None:
    path = run_file(results, name)
    rec = json.loads(path.read_text())
    change(rec["data"])
    path.write_text(json.dumps(rec))


def _at(data: dict, rows: int, hidden: int) -> dict:
    """The stored shape (rows, hidden) of a result's data, to edit in place."""
    return next(s for s in data["shapes"] if (s["rows"], s["hidden"]) == (rows, hidden))


def _run(name: str, capsys) -> str:
    runpy.run_path(str(SNIPPETS / name), run_name="__main__")
    return capsys.readouterr().out


def test_summary_sets_the_kernel_against_a_copy_of_its_program_size_both_ways(fixture_results, capsys):
    out = _run("summary.py", capsys)
    assert "it was never half a point ahead of the kernel" in out
    assert "reached 98.1% to 100.6% of a copy" in out and "under 98%" not in out

    def miss(data):  # the widest shape just under the goal: the summary names it and its program size
        _at(data, 8192, 16384)["versions"]["ours"]["share_of_copy"] = 0.9789
    _edit(fixture_results, "speed_of_light.add_rmsnorm", miss)
    out = _run("summary.py", capsys)
    assert "The shape under 98%: 8,192 × 16,384 at 97.89% (32 KiB of each tensor per program)." in out

    def tile_ahead(data):  # the copy with the kernel's program size now a point ahead at 32,768 x 8,192
        s = _at(data, 32768, 8192)
        s["versions"]["copy_tiled"]["share_of_copy"] = \
            s["versions"]["ours"]["share_of_copy"] + 0.01
    _edit(fixture_results, "speed_of_light.add_rmsnorm", tile_ahead)
    out = _run("summary.py", capsys)
    assert "at 32,768 × 8,192 it was 1.0 points ahead of the kernel, so the size of the programs does not" in out
    assert "never half a point ahead" not in out


def test_summary_names_the_rival_that_was_ahead_and_the_goal(fixture_results, capsys):
    out = _run("summary.py", capsys)
    assert "F.rms_norm at 8; both at 8 of 8, so the goal is met." in out and "ahead of it" not in out

    def liger_ahead(data):  # Liger-Kernel as fast as ours at 8,192 x 1,536: a tie is not ahead
        s = _at(data, 8192, 1536)
        s["versions"]["liger"]["ms"] = s["versions"]["ours"]["ms"]
    _edit(fixture_results, "speed_of_light.add_rmsnorm", liger_ahead)
    out = _run("summary.py", capsys)
    assert "(ahead of it: Liger-Kernel at 8,192 × 1,536); both at 7 of 8, so the goal is not met" in out


def _shift(data: dict, rows: int, hidden: int, rival: str, by_ms: float) -> None:
    """Ours at one shape set to the rival's time on every placement plus by_ms (< 0: ours ahead)."""
    ms = _at(data, rows, hidden)["placements"]
    ms["ours"] = [t + by_ms for t in ms[rival]]


def test_swiglu_summary_counts_the_goal_from_the_placements_both_ways(fixture_results, capsys):
    out = _run("swiglu_summary.py", capsys)
    assert "three elementwise kernels at the copy's speed" in out
    assert "Whether ours was ahead is read from the 20 paired placements of each shape (below), with a 95%" in out
    assert ("Over them ours was ahead of both at 32,768 × 4,096 and 32,768 × 8,960; it was level with torch.compile "
            "and Liger-Kernel at 8,192 × 4,096 and with torch.compile at 8,192 × 8,960 (the placements table below "
            "gives each difference), so the goal is met at 2 of 4 shapes.") in out

    def ours_ahead_everywhere(data):
        for s in data["shapes"]:
            if "placements" in s:
                ms = s["placements"]
                ms["ours"] = [min(a, b) - 1e-4
                                             for a, b in zip(ms["compiled"], ms["liger"], strict=True)]
    _edit(fixture_results, "speed_of_light.swiglu", ours_ahead_everywhere)
    out = _run("swiglu_summary.py", capsys)
    assert "Over them ours was ahead of both at " in out and "the goal is met at 4 of 4." in out
    assert "level with" not in out and "output was not eager's" not in out

    def compile_ahead_of_ours(data):  # the rounds are not asked: ours 0.5 us behind compile on every placement
        _shift(data, 32768, 4096, "compiled", 5e-4)
        _at(data, 32768, 4096)["placements"]["liger"] = [1.0] * 20
    _edit(fixture_results, "speed_of_light.swiglu", compile_ahead_of_ours)
    out = _run("swiglu_summary.py", capsys)
    assert ("; it was behind torch.compile at 32,768 × 4,096 (the placements table below gives each difference), so "
            "the goal is met at 3 of 4 shapes.") in out
    assert "output was not eager's: at 32,768 × 4,096" in out


def test_swiglu_summary_says_when_a_rival_not_behind_was_not_exact(fixture_results, capsys):
    said = "torch.compile's output was not eager's: at 8,192 × 4,096 it differed at 27% of the elements, by at most 1"
    out = _run("swiglu_summary.py", capsys)
    assert said in out and out.count("output was not eager's") == 1  # said once, at the first shape

    def compile_exact(data):
        for s in data["shapes"]:
            s["check"]["compiled"].update(bit_identical=True, differ=0, max_steps=0)
    _edit(fixture_results, "speed_of_light.swiglu", compile_exact)
    out = _run("swiglu_summary.py", capsys)
    assert "level with torch.compile" in out and "output was not eager's" not in out


def test_swiglu_summary_says_which_divides_were_swept(fixture_results, capsys):
    out = _run("swiglu_summary.py", capsys)
    assert ("Of the 4,294,967,296 pairs of bf16 g and u, 0 gave an output other than eager's through the IEEE divide "
            "and 0 through the approximate one, so both were swept; the approximate divide was in the best "
            "configuration at 2 of the 4 large shapes.") in out

    def approx_differs(data):
        data["mismatches"]["approx"]["differ"] = 3000
        for s in data["shapes"]:
            s["best_config"][2] = True
    _edit(fixture_results, "speed_of_light.swiglu", approx_differs)
    out = _run("swiglu_summary.py", capsys)
    assert "and 3,000 through the approximate one, so only the IEEE divide was swept." in out


def test_designs_summary_names_a_design_ahead_of_the_row_kernel_only_when_one_is(fixture_results, capsys):
    out = _run("designs_summary.py", capsys)
    assert "None of the three was ahead of the row kernel at any shape." in out
    assert "at 8,192 wide every configuration spilled to local memory" in out
    assert "at 16,384 wide it is not run (512 elements of each tensor per thread" in out

    def split_ahead(data):
        s = _at(data, 8192, 8192)
        s["versions"]["split_row"]["share_of_copy"] = s["versions"]["row_kernel"]["share_of_copy"] + 0.01
    _edit(fixture_results, "speed_of_light.designs", split_ahead)
    out = _run("designs_summary.py", capsys)
    assert "Ahead of the row kernel: split row at 8,192 × 8,192." in out and "None of the three" not in out


def test_designs_summary_gives_a_range_only_when_the_shares_differ_as_written(fixture_results, capsys):
    out = _run("designs_summary.py", capsys)
    assert "the row kernel reached 98.3% to 98.6% of the copy at these shapes" in out  # the fixture's 3 shares

    def level(data):  # 98.51%, 98.55%, 98.59%: all written 98.5%
        for s, x in zip(data["shapes"], (0.9851, 0.9855, 0.9859), strict=True):
            s["versions"]["row_kernel"]["share_of_copy"] = x
    _edit(fixture_results, "speed_of_light.designs", level)
    out = _run("designs_summary.py", capsys)
    assert "the row kernel reached 98.5% of the copy at these shapes" in out and "98.5% to" not in out


def test_designs_table_marks_the_design_that_was_not_run(fixture_results, capsys):
    out = _run("designs_table.py", capsys)
    row = next(line for line in out.splitlines() if line.startswith("| 8,192 × 16,384"))
    assert row.endswith("| not run |") and "(2 programs/row × 16 warps)" in row


def test_designs_summary_compares_the_row_kernel_with_its_other_run_only_when_they_differ(fixture_results, capsys):
    said = "At 8,192 × 8,192 the row kernel's share here is 0.4 points higher than in the table above"
    assert said in _run("designs_summary.py", capsys)
    rec = json.loads((run_file(fixture_results, "speed_of_light.add_rmsnorm")).read_text())
    main = {(s["rows"], s["hidden"]): s["versions"]["ours"]["share_of_copy"]
            for s in rec["data"]["shapes"]}

    def same_as_main(data):
        for s in data["shapes"]:
            s["versions"]["row_kernel"]["share_of_copy"] = main[(s["rows"], s["hidden"])]
    _edit(fixture_results, "speed_of_light.designs", same_as_main)
    out = _run("designs_summary.py", capsys)
    assert "None of the three was ahead" in out and "than in the table above" not in out


def test_placements_time_every_version_once_per_placement_in_shuffled_orders(monkeypatch):
    from kernelbook.chapters.speed_of_light import swiglu as sol_swiglu

    order, alive = [], []
    monkeypatch.setattr(sol_swiglu, "PLACEMENTS", 6)
    monkeypatch.setattr(sol_swiglu, "random_bf16", lambda rows, hidden, seed: [torch.zeros(rows, hidden)] * 2)

    def versions(g, u, out):
        alive.append(weakref.ref(out))
        assert out.isnan().all(), "each placement's output starts poisoned"
        return {n: (lambda n=n: order.append(n)) for n in ("copy", "ours", "rival")}

    def timer(fn):
        fn()
        gc.collect()
        assert all(ref() is not None for ref in alive), "an earlier placement's buffers were freed mid-run"
        return float(len(order))

    monkeypatch.setattr(sol, "make_timer", lambda small: timer)
    ms = sol_swiglu.placements(2, 8, seed=0, versions=versions)
    assert list(ms) == ["copy", "ours", "rival"] and all(len(v) == 6 for v in ms.values())
    rounds = [tuple(order[i:i + 3]) for i in range(0, 18, 3)]
    assert all(sorted(r) == ["copy", "ours", "rival"] for r in rounds)
    assert len(set(rounds)) > 1, "the order is shuffled per placement"
    assert ms["copy"][0] == rounds[0].index("copy") + 1  # each time is of that version, on that placement


def test_swiglu_placements_tabulate_each_difference_with_its_interval(fixture_results, capsys):
    out = _run("swiglu_placements.py", capsys)
    assert ("| 8,192 × 4,096 | 2048 × 8, approx. | 20 | +0.13 [−0.03, +0.31] | 6 | level | −0.32 [−0.50, +0.04] | 13 "
            "| level |") in out
    assert "| 32,768 × 8,960 | 1024 × 4, IEEE | 20 | −1.02 [−1.30, −0.69] | 20 | ahead |" in out
    assert "ours is ahead only where the whole interval is below zero" in out
    assert "At 8,192 × 4,096 one version's time moved by up to 1.34 µs between placements" in out
    assert '<img class="kb-figure"' in out

    def compile_behind(data):  # ours 0.5 us slower than torch.compile on every placement: the interval is above 0
        _shift(data, 8192, 8960, "compiled", 5e-4)
    _edit(fixture_results, "speed_of_light.swiglu", compile_behind)
    assert "| 8,192 × 8,960 | 1024 × 4, approx. | 20 | +0.50 [+0.50, +0.50] | 0 | behind |" in _run(
        "swiglu_placements.py", capsys)


def test_swiglu_registers_tie_the_divide_to_the_programs_an_sm_holds(fixture_results, capsys):
    out = _run("swiglu_registers.py", capsys)
    assert ("holds 34 registers per thread with the IEEE divide and 29 with the approximate one, so one SM runs 12 of "
            "its 4-warp programs at once instead of 16") in out
    assert "faster than the copy at 3 of the 4 large shapes, 2 of them with the IEEE divide." in out

    def only_ieee_over(data):
        _at(data, 8192, 4096)["versions"]["ours"]["share_of_copy"] = 0.999
    _edit(fixture_results, "speed_of_light.swiglu", only_ieee_over)
    assert "faster than the copy at 2 of the 4 large shapes, every time with the IEEE divide" in _run(
        "swiglu_registers.py", capsys)

    def none_over(data):
        for s in data["shapes"]:
            s["versions"]["ours"]["share_of_copy"] = min(s["versions"]["ours"].get(
                "share_of_copy", 1), 0.999)
    _edit(fixture_results, "speed_of_light.swiglu", none_over)
    assert "Ours was not faster than the copy at any large shape." in _run("swiglu_registers.py", capsys)
