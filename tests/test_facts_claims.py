"""The summary pages' facts (chapters/claims/facts.py) on the fixture results: the counts are the ledger's, each
verdict the pages name is the ledger's and follows the data both ways, several runs are read as several, and the
pages that read them through `facts("claims")` render down every branch."""

from __future__ import annotations

import copy
import dataclasses
import re
import typing
from pathlib import Path

import pytest

from kernelbook import factview, macros, page, paths
from kernelbook.chapters.claims import facts as F
from kernelbook.chapters.claims import guards as G
from kernelbook.chapters.claims import ledger
from kernelbook.chapters.claims import verdicts as V
from kernelbook.decode import report

MiB = 1 << 20
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def data(fixture_results):
    return {"runs": {n: [("r1", copy.deepcopy(page.result(n).data))] for n in F.EXPERIMENTS},
            "laptop": ledger.published(), "gpu": "H200", "sm_count": 132, "machine": "nvidia-h200"}


def _d(data, name):
    return data["runs"][name][-1][1]


def _ver(d, op, key):
    return next(v for v in d["versions"] if v["op"] == op and v["key"] == key)


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    judged = ledger.judge_runs("nvidia-h200", data["runs"], data["laptop"])
    verdicts = [j.verdict for j in judged]
    assert f.rows == len(ledger.ROWS) and f.tested == sum(r.kind in ("figure", "relation", "exact")
                                                          for r in ledger.ROWS)
    assert (f.reproduced, f.holds, f.other_size, f.contradicted, f.fails) == tuple(
        verdicts.count(v) for v in (V.REPRODUCED, V.HOLDS, V.OTHER_SIZE, V.CONTRADICTED, V.FAILS))
    assert f.agree + f.other_size + f.against + f.undecided + f.not_applicable + f.not_measured + f.documented \
        == f.rows
    assert [c for c, _, _ in f.against_rows] == [j.row.claim for j in judged if j.verdict in (V.CONTRADICTED,
                                                                                              V.FAILS)]
    for rid in F.NAMED:
        assert getattr(f, f"v_{rid.replace('-', '_')}") == next(j.verdict for j in judged if j.row.id == rid)
    assert (f.runs_fewest, f.runs_most, f.one_run) == (1, 1, True) and f.runs_single == f.runs_rows > 0
    assert (f.runs_even, f.any_single) == (True, True)
    chain = _d(data, "memory_bound.eager_bytes")["chains"]["add_rmsnorm"]
    assert (f.eager_kernels, f.eager_bytes, f.fused_bytes) == (chain["count"], chain["bytes_per_elem"],
                                                               chain["fused_bytes_per_elem"])
    six = _d(data, "decode.six_ways")
    assert f.floor_ms == six["floor_ms"] and f.laptop_floor_ms == 12.4
    assert f.best_floor_share == pytest.approx(f.floor_ms / f.best_step_ms)
    assert f.laptop_floor_over_ours == pytest.approx(12.4 / six["floor_ms"])
    assert (f.laptop_static_ms, f.laptop_graph_ms) == (24.9, 14.9)
    assert (f.free_mib, f.holes, f.hole_max_mib, f.cap_mib, f.request_mib) == (896, 16, 56, 2048, 200)
    assert F.facts().gpu == "H200"


def _times(d, op, key, x):
    v = _ver(d, op, key)
    v["time"]["median"] = x
    v["time"]["values"] = [x] * 3


def _set_speedup(d, x):
    _times(d, "add_rmsnorm", "eager", x * _ver(d, "add_rmsnorm", "triton")["time"]["median"])
    _ver(d, "add_rmsnorm", "triton")["time"]["values"] = [_ver(d, "add_rmsnorm", "triton")["time"]["median"]] * 3


def _set_ridge(d, ratio):
    d["machine.ceilings"]["ridge_flop_per_byte"] = ratio * d["memory_bound.eager_bytes"]["swiglu_intensity"][
        "fused_flop_per_byte"]


def _set_bytes_time(d, over):
    chain = d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]
    chain["bench"]["median"] = over * chain["predicted_us"] / 1e3
    chain["bench"]["values"] = [chain["bench"]["median"]] * 3


def _set_shares(d, low):
    for v in d["fusing_by_hand.versions"]["versions"]:
        v["share_of_copy"] = 0.99
    _ver(d["fusing_by_hand.versions"], "add_rmsnorm", "eager")["share_of_copy"] = low


def _set_kernels(d, key, n):
    d["torch_compile.codegen"][key]["summary"]["kernel_count"] = n


def _set_recompiles(d, counts):
    for c, n in zip(d["torch_compile.recompiles"]["calls"], counts, strict=True):
        c["graphs_compiled"] = n


def _set_steps(d, **ms):
    for name, x in ms.items():
        for r in d["decode.six_ways"]["rounds"]:
            r["variants"][name]["step_ms"] = x


def _set_floor(d, name, share):
    step = report.summaries(d["decode.six_ways"])[name]["step_ms"]
    d["decode.six_ways"]["floor_ms"] = share * step


def _set_bias(d, n, sms=24):
    d["torch_compile.modes"]["sm_count"] = sms
    top = d["decode.six_ways"]["kernel_mix"]["compile_max_autotune"]["top"]
    top[:] = [k for k in top if "bias" not in k["name"]] + ([{"name": "sm90_gemm_bias_kernel", "count": n,
                                                              "us": 1.0}] if n else [])


def _set_oom(d, failed, free_mib=896):
    last = d["allocator.fragmentation"]["default"]["checkpoints"][-1]
    last["reserved"] = last["allocated"] + free_mib * MiB
    last["error"] = {"message": "CUDA out of memory", "parsed": {"tried": 200 * MiB}} if failed else None


def _set_expandable(d, failed):
    last = d["allocator.fragmentation"]["expandable"]["checkpoints"][-1]
    last["allocated"] = 1224 * MiB
    last["error"] = {"message": "CUDA out of memory"} if failed else None


def _set_trap(d, wrong=None, exact=None):
    trap = d["decode.constraints"]["trap"]
    if wrong is not None:
        trap["without_reset"]["bit_identical"] = not wrong
    if exact is not None:
        trap["with_reset"]["bit_identical"] = exact


# field: ((make it agree, the verdict), (make it differ, the verdict))
FLIPS = {
    "v_speedup": ((lambda d: _set_speedup(d["fusing_by_hand.versions"], 5.2), V.REPRODUCED),
                  (lambda d: _set_speedup(d["fusing_by_hand.versions"], 7.0), V.OTHER_SIZE)),
    "v_ridge": ((lambda d: _set_ridge(d, 150), V.REPRODUCED), (lambda d: _set_ridge(d, 20), V.OTHER_SIZE)),
    "v_bytes_predict_time": ((lambda d: _set_bytes_time(d, 1.05), V.REPRODUCED),
                             (lambda d: _set_bytes_time(d, 1.5), V.OTHER_SIZE)),
    "v_same_bandwidth": ((lambda d: _set_shares(d, 0.95), V.REPRODUCED),
                         (lambda d: _set_shares(d, 0.6), V.CONTRADICTED)),
    "v_one_kernel": ((lambda d: _set_kernels(d, "add_rmsnorm", 1), V.HOLDS),
                     (lambda d: _set_kernels(d, "add_rmsnorm", 2), V.FAILS)),
    "v_matmuls_extern": ((lambda d: _set_kernels(d, "mlp_1token", 2), V.HOLDS),
                         (lambda d: _set_kernels(d, "mlp_1token", 3), V.FAILS)),
    "v_bias_on_cublas": ((lambda d: _set_bias(d, 84), V.HOLDS), (lambda d: _set_bias(d, 0), V.FAILS)),
    "v_recompile": ((lambda d: _set_recompiles(d, [1, 1, 0, 0]), V.HOLDS),
                    (lambda d: _set_recompiles(d, [1, 1, 1, 0]), V.FAILS)),
    "v_graph_step": ((lambda d: _set_steps(d, eager_static=25.0, cuda_graph=15.0), V.REPRODUCED),
                     (lambda d: _set_steps(d, eager_static=25.0, cuda_graph=5.0), V.OTHER_SIZE)),
    "v_default_mode": ((lambda d: _set_steps(d, compile_default=8.0, cuda_graph=5.0), V.HOLDS),
                       (lambda d: _set_steps(d, compile_default=4.0, cuda_graph=5.0), V.FAILS)),
    "v_ro_beats_graph": ((lambda d: _set_steps(d, compile_reduce_overhead=3.0, cuda_graph=5.0), V.HOLDS),
                         (lambda d: _set_steps(d, compile_reduce_overhead=6.0, cuda_graph=5.0), V.FAILS)),
    "v_floor_ro": ((lambda d: _set_floor(d, "compile_reduce_overhead", 0.9), V.REPRODUCED),
                   (lambda d: _set_floor(d, "compile_reduce_overhead", 0.3), V.OTHER_SIZE)),
    "v_floor_ma": ((lambda d: _set_floor(d, "compile_max_autotune", 0.91), V.REPRODUCED),
                   (lambda d: _set_floor(d, "compile_max_autotune", 0.3), V.OTHER_SIZE)),
    "v_oom": ((lambda d: _set_oom(d, True), V.HOLDS), (lambda d: _set_oom(d, True, free_mib=500), V.FAILS)),
    "v_expandable": ((lambda d: _set_expandable(d, False), V.HOLDS), (lambda d: _set_expandable(d, True), V.FAILS)),
    "v_replay_silent": ((lambda d: _set_trap(d, wrong=True), V.HOLDS), (lambda d: _set_trap(d, wrong=False), V.FAILS)),
    "v_replay_reset": ((lambda d: _set_trap(d, exact=True), V.HOLDS), (lambda d: _set_trap(d, exact=False), V.FAILS)),
}


def _newest(data):
    return {n: rs[-1][1] for n, rs in data["runs"].items()}


@pytest.mark.parametrize("field", FLIPS)
def test_each_verdict_the_summaries_name_follows_the_data_both_ways(data, field):
    assert field.removeprefix("v_").replace("_", "-") in F.NAMED
    for make, expected in FLIPS[field]:
        d = copy.deepcopy(data)
        make(_newest(d))
        assert getattr(F.from_data(**d), field) == expected


def test_summary_verdicts_and_branches_cover_what_the_pages_test():
    """Every v_ field a summary page tests is one this module flips."""
    for name in ("index.md", "takeaways.md"):
        text = (ROOT / "docs" / name).read_text()
        for field in set(re.findall(r"\bc\.(v_[a-z_]+)", text)):
            assert field in FLIPS, f"{name} reads {field}, which no test flips"


def test_two_runs_that_disagree_read_as_varying(data):
    second = copy.deepcopy(_d(data, "fusing_by_hand.versions"))
    _set_speedup(_d(data, "fusing_by_hand.versions"), 5.2)
    _set_speedup(second, 7.0)
    data["runs"]["fusing_by_hand.versions"].append(("r2", second))
    f = F.from_data(**data)
    assert (f.v_speedup, f.runs_most, f.one_run, f.any_undecided) == (V.VARIES, 2, False, True)
    assert 0 < f.runs_single < f.runs_rows  # the rows that read the second run rest on two
    assert (f.runs_even, f.any_single, f.any_varies) == (False, True, True)
    assert ("Fused into a Triton kernel, add + RMSNorm gets about 5.2 times faster than eager", V.VARIES,
            "fusing-by-hand.md") in f.undecided_rows


def test_every_row_on_two_runs_reads_as_even(data):
    for runs in data["runs"].values():
        runs.append(("r2", copy.deepcopy(runs[0][1])))
    f = F.from_data(**data)
    assert (f.runs_fewest, f.runs_most, f.runs_even, f.any_single, f.one_run) == (2, 2, True, False, False)
    assert f.runs_single == 0 and (f.varies, f.any_varies) == (0, False)  # the same figures twice cannot vary


def test_ridge_and_decode_booleans_follow_the_data(data):
    _set_ridge(_newest(data), 0.5)
    assert not F.from_data(**data).below_ridge
    _set_ridge(_newest(data), 150)
    assert F.from_data(**data).below_ridge
    d = _d(data, "decode.six_ways")
    d["profiles"]["eager_static"]["busy_us"] = 0.9 * 1e3 * report.summaries(d)["eager_static"]["step_ms"]
    d["all_passed"] = True
    f = F.from_data(**data)
    assert not f.static_mostly_idle and f.all_passed
    d["profiles"]["eager_static"]["busy_us"] = 0.1 * 1e3 * report.summaries(d)["eager_static"]["step_ms"]
    d["all_passed"] = False
    f = F.from_data(**data)
    assert f.static_mostly_idle and not f.all_passed


def test_the_allocator_figures_read_their_results(data):
    _set_oom(_newest(data), False)
    _set_expandable(_newest(data), True)
    f = F.from_data(**data)
    assert not f.oom and not f.expandable_ok
    assert f.request_mib == 200  # the laptop's request, when no error says how much was asked
    _set_oom(_newest(data), True)
    _set_expandable(_newest(data), False)
    f = F.from_data(**data)
    assert f.oom and f.expandable_ok


def test_against_and_undecided_lists_follow_the_verdicts(data):
    f = F.from_data(**data)
    assert f.any_against == bool(f.against_rows) and f.any_undecided == bool(f.undecided_rows)
    _set_kernels(_newest(data), "add_rmsnorm", 2)
    f = F.from_data(**data)
    claim = ledger.BY_ID["one-kernel"].claim
    assert f.any_against and (claim, V.FAILS, "torch-compile.md") in f.against_rows


SUMMARIES = ("index.md", "takeaways.md", "machines.md")
SET = re.compile(r'{%-?\s*set\s+(\w+)\s*=\s*facts\("(\w+)"\)\s*-?%}')


def _values(kind):
    if kind is bool:
        return [True, False]
    assert typing.get_origin(kind) is typing.Literal, f"a conditional tests a {kind}: compute it in the facts"
    return list(typing.get_args(kind))


@pytest.mark.parametrize("name", SUMMARIES)
def test_summary_pages_render_down_every_branch(name, fixture_results):
    """tests/test_pages.py drives the branches of a page's own `f`; these pages have none and read other chapters'
    facts (`{% set c = facts("claims") %}`): each field their conditionals test is set to each of its values."""
    text, stem = (ROOT / "docs" / name).read_text(), name.removesuffix(".md")
    conditions = " ".join(re.findall(r"{%-?\s*(?:el)?if\b(.*?)%}", text, re.S))
    factview._cache.clear()
    assert "{{" not in macros.render(text, stem)
    rendered: dict[str, set[str]] = {}  # each conditional's field -> the pages its values render
    for alias, chapter in SET.findall(text):
        key = (chapter, paths.primary_machine(), tuple(paths.results_dirs()))
        book, shown = factview._cache[key]  # a factbook.Book: the chapter's facts and where they came from
        hints = typing.get_type_hints(type(book.facts))
        tested = sorted(set(re.findall(rf"\b{alias}\.([a-z_][a-z0-9_]*)", conditions)))
        for field in tested:
            for value in _values(hints[field]):
                turned = dataclasses.replace(book, facts=dataclasses.replace(book.facts, **{field: value}))
                factview._cache[key] = (turned, shown)
                page = macros.render(text, stem)
                assert "{{" not in page
                rendered.setdefault(field, set()).add(page)
        factview._cache[key] = (book, shown)
    assert all(len(pages) == 2 for pages in rendered.values()), "a branch a conditional takes changes nothing"


def test_the_bands_the_claims_page_names_are_the_ledgers(fixture_results):
    from kernelbook.chapters.claims import data

    f = F.facts()
    assert (f.band_count, f.band_bytes, f.band_ratio, f.band_time) == (
        data.COUNT.share, data.BYTES.share, data.RATIO.share, data.TIME.share)
    assert f.laptop_dram_gbps == page.result("decode.six_ways", "nvidia-geforce-rtx-4060-laptop-gpu").data["dram_gbps"]


# guard: (values under which it holds, values under which it does not); every other field as the fixtures have it
GUARD_CASES = {
    "fused_faster": ({"v_speedup": V.OTHER_SIZE}, {"v_speedup": V.CONTRADICTED}),
    "bandwidth_apart": ({"v_same_bandwidth": V.CONTRADICTED}, {"v_same_bandwidth": V.REPRODUCED}),
    "far_below_ridge": ({"v_ridge": V.REPRODUCED}, {"v_ridge": V.OTHER_SIZE}),
    "bytes_not_time": ({"v_bytes_predict_time": V.OTHER_SIZE}, {"v_bytes_predict_time": V.REPRODUCED}),
    "one_kernel": ({"v_one_kernel": V.HOLDS}, {"v_one_kernel": V.FAILS}),
    "matmuls_to_cublas": ({"v_matmuls_extern": V.HOLDS}, {"v_matmuls_extern": V.FAILS}),
    "recompile_once": ({"v_recompile": V.HOLDS}, {"v_recompile": V.FAILS}),
    "bias_templates": ({"v_bias_on_cublas": V.NOT_APPLICABLE}, {"v_bias_on_cublas": V.HOLDS}),
    "step_mostly_idle": ({"static_mostly_idle": True}, {"static_mostly_idle": False}),
    "graph_beats_fusion": ({"v_default_mode": V.HOLDS}, {"v_default_mode": V.NOT_RESOLVED}),
    "ro_beats_graph": ({"v_ro_beats_graph": V.HOLDS}, {"v_ro_beats_graph": V.FAILS}),
    "oom": ({"v_oom": V.HOLDS}, {"v_oom": V.FAILS}),
    "expandable": ({"v_expandable": V.HOLDS}, {"v_expandable": V.FAILS}),
    "replay_silent": ({"v_replay_silent": V.HOLDS}, {"v_replay_silent": V.FAILS}),
    "replay_reset": ({"v_replay_reset": V.HOLDS}, {"v_replay_reset": V.FAILS}),
    "most_carry_over": ({"tested": 100, "agree": 40, "other_size": 20}, {"tested": 100, "agree": 30, "other_size": 20}),
    "size_over_direction": ({"other_size": 20, "against": 5}, {"other_size": 5, "against": 5}),
    "some_against": ({"any_against": True}, {"any_against": False}),
    "some_undecided": ({"any_undecided": True}, {"any_undecided": False}),
    "gpus_differ": ({"differ_rows": 3, "others": "H100 80GB HBM3"}, {"differ_rows": 0, "others": "H100 80GB HBM3"}),
}


def test_every_guard_has_its_cases():
    assert set(GUARD_CASES) == set(G.GUARDS)


@pytest.mark.parametrize("name", GUARD_CASES)
def test_each_guard_both_ways(data, name):
    f = F.from_data(**data)
    test = G.GUARDS[name][1]
    yes, no = GUARD_CASES[name]
    assert test(dataclasses.replace(f, **yes))
    assert not test(dataclasses.replace(f, **no))


def test_guards_follow_the_data_through_the_ledger(data):
    """The verdict guards read the ledger: data that turns a row turns the guard."""
    for field, guard in (("v_one_kernel", "one_kernel"), ("v_replay_reset", "replay_reset"),
                         ("v_replay_silent", "replay_silent")):
        for make, expected in FLIPS[field]:
            d = copy.deepcopy(data)
            make(_newest(d))
            assert G.GUARDS[guard].test(F.from_data(**d)) == (expected == V.HOLDS)


def test_each_failing_guard_says_what_the_data_shows(data):
    """Where a guard fails, its flag quotes the values it found, never its claim alone, on the fixture's data as on
    data with every field of another machine missing."""
    f = F.from_data(**data)
    for name, (_, no) in GUARD_CASES.items():
        words = G.GUARDS[name].found(dataclasses.replace(f, **no))
        assert words and not words.endswith(".") and words != G.GUARDS[name].says, (name, words)
    words = G.GUARDS["fused_faster"].found(dataclasses.replace(f, v_speedup=V.CONTRADICTED))
    assert dict(f.named_figures)["speedup"] in words and V.CONTRADICTED in words
    assert set(dict(f.named_figures)) == set(F.NAMED)
    absent, words = G.GUARDS["gpus_differ"].absent
    assert absent(dataclasses.replace(f, others="", differ_rows=0)) and not absent(f if f.others else
                                                                                   dataclasses.replace(f, others="X"))


def test_rows_that_read_differently_on_another_gpu_are_counted(data):
    """differ_rows counts the rows whose verdict on another measured machine is not this machine's; with no other
    machine there are none, and the guard gives way to its absent sentence."""
    f = F.from_data(**data)
    assert (f.others, f.differ_rows) == ("", 0)
    judged = ledger.judge_runs("nvidia-h200", data["runs"], data["laptop"])
    same = {j.row.id: j.verdict for j in judged}
    assert F.from_data(**data, others={"H100 80GB HBM3": same}).differ_rows == 0
    moved = dict(same, speedup=V.CONTRADICTED if same["speedup"] != V.CONTRADICTED else V.REPRODUCED,
                 oom=V.FAILS if same["oom"] != V.FAILS else V.HOLDS)
    g = F.from_data(**data, others={"H100 80GB HBM3": moved})
    assert (g.others, g.differ_rows) == ("H100 80GB HBM3", 2) and G.GUARDS["gpus_differ"].test(g)
    h = F.from_data(**data, others={"H100 80GB HBM3": same, "RTX 4090": moved})
    assert (h.others, h.differ_rows) == ("H100 80GB HBM3 or the RTX 4090", 2)


def test_verdicts_by_row_gives_each_measured_machine_its_ledger(fixture_results):
    """ledger.verdicts_by_row: every row, in the ledger's order, with each machine's verdict as its own ledger reads
    it; differing() names the rows whose verdicts are not all one."""
    machines = ledger.measured_machines()
    by_row = ledger.verdicts_by_row()
    assert list(by_row) == [r.id for r in ledger.ROWS]
    for m in machines:
        assert [by_row[r][m] for r in by_row] == [j.verdict for j in ledger.judge_all(m)]
    assert ledger.differing(by_row) == [r for r, vs in by_row.items() if len(set(vs.values())) > 1]
    assert ledger.differing({"a": {"x": V.HOLDS, "y": V.HOLDS}, "b": {"x": V.HOLDS, "y": V.NOISY}}) == ["b"]


def test_the_figures_are_read_from_the_run_shown(data):
    """`shown` (the run page.result gives, an older one where factbook picks it) sets the figures; the verdicts
    still read every run."""
    shown = {"decode.six_ways": copy.deepcopy(_d(data, "decode.six_ways"))}
    _set_steps(shown, compile_default=99.0)
    f, g = F.from_data(**data), F.from_data(**data, shown=shown)
    assert g.default_step_ms == 99.0 != f.default_step_ms
    assert (g.v_default_mode, g.rows, g.agree) == (f.v_default_mode, f.rows, f.agree)


def test_formats_name_fields():
    names = {fl.name for fl in dataclasses.fields(F.Facts)}
    assert set(F.FORMATS) <= names and F.FORMATS["rows"] == "num:0" and F.FORMATS["band_time"] == "pct:0"
