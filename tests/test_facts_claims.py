"""The summary pages' facts (chapters/claims/facts.py) on the fixture results: the counts are the ledger's, each
verdict the pages read follows the ledger's check both ways, and the pages that read them through
`facts("claims")` render down every branch."""

from __future__ import annotations

import copy
import dataclasses
import re
import typing
from pathlib import Path

import pytest

from kernelbook import macros, page, paths
from kernelbook.chapters.claims import facts as F
from kernelbook.chapters.claims import ledger
from kernelbook.decode import report

MiB = 1 << 20
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def data(fixture_results):
    return {"data": {n: copy.deepcopy(page.result(n).data) for n in F.EXPERIMENTS},
            "laptop": {n: copy.deepcopy(page.result(n, F.LAPTOP).data) for n in F.LAPTOP_EXPERIMENTS},
            "gpu": "H200", "sm_count": 132}


def _ver(d, op, key):
    return next(v for v in d["fusing_by_hand.versions"]["versions"] if v["op"] == op and v["key"] == key)


def _step(d, name, ms):
    for r in d["decode.six_ways"]["rounds"]:
        r["variants"][name]["step_ms"] = ms


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    d = data["data"]
    verdicts = [ledger.verdict(c, paths.primary_machine())[1] for c in ledger.CLAIMS]
    assert (f.claims, f.holds, f.fails) == (len(ledger.CLAIMS), verdicts.count(ledger.HOLDS),
                                            verdicts.count(ledger.FAILS))
    assert [t for t, _ in f.failed] == [c.text for c, v in zip(ledger.CLAIMS, verdicts, strict=True)
                                        if v == ledger.FAILS]
    chain = d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]
    assert (f.eager_kernels, f.eager_bytes, f.fused_bytes) == (chain["count"], chain["bytes_per_elem"],
                                                               chain["fused_bytes_per_elem"])
    six = d["decode.six_ways"]
    assert f.floor_ms == six["floor_ms"] and f.laptop_floor_ms == 12.4
    assert f.best_floor_share == pytest.approx(f.floor_ms / f.best_step_ms)  # the floor is a share of the step
    assert f.laptop_floor_over_ours == pytest.approx(12.4 / six["floor_ms"])
    assert (f.free_mib, f.holes, f.hole_max_mib, f.cap_mib, f.request_mib) == (896, 16, 56, 2048, 200)
    assert F.facts().gpu == "H200"


def _set_ridge(d, ratio):
    d["machine.ceilings"]["ridge_flop_per_byte"] = ratio * d["memory_bound.eager_bytes"]["swiglu_intensity"][
        "fused_flop_per_byte"]


def _set_bytes_time(d, over):
    chain = d["memory_bound.eager_bytes"]["chains"]["add_rmsnorm"]
    chain["bench"]["median"] = over * chain["predicted_us"] / 1e3


def _set_shares(d, low):
    for v in d["fusing_by_hand.versions"]["versions"]:
        v["share_of_copy"] = 0.95
    _ver(d, "add_rmsnorm", "eager")["share_of_copy"] = low


def _set_kernels(d, key, n):
    d["torch_compile.codegen"][key]["summary"]["kernel_count"] = n


def _set_recompiles(d, counts):
    for c, n in zip(d["torch_compile.recompiles"]["calls"], counts, strict=True):
        c["graphs_compiled"] = n


def _set_steps(d, **ms):
    for name, x in ms.items():
        _step(d, name, x)


def _set_floor(d, share):
    d["decode.six_ways"]["floor_ms"] = share * report.best_valid(d["decode.six_ways"])["step_ms"]


def _set_bias(d, n):
    top = d["decode.six_ways"]["kernel_mix"]["compile_max_autotune"]["top"]
    top[:] = [k for k in top if "bias" not in k["name"]] + ([{"name": "sm90_gemm_bias_kernel", "count": n,
                                                              "us": 1.0}] if n else [])


def _set_oom(d, failed, free_mib=896):
    last = d["allocator.fragmentation"]["default"]["checkpoints"][-1]
    last["reserved"] = last["allocated"] + free_mib * MiB
    last["error"] = {"message": "CUDA out of memory", "alloc_size": 200 * MiB} if failed else None


def _set_expandable(d, failed):
    last = d["allocator.fragmentation"]["expandable"]["checkpoints"][-1]
    last["allocated"] = 1224 * MiB
    last["error"] = {"message": "CUDA out of memory"} if failed else None


# field: (claim id, make it hold, make it fail)
FLIPS = {
    "holds_ridge": ("ridge", lambda d: _set_ridge(d, 100), lambda d: _set_ridge(d, 20)),
    "holds_bytes_predict_time": ("bytes-predict-time", lambda d: _set_bytes_time(d, 1.05),
                                 lambda d: _set_bytes_time(d, 1.5)),
    "holds_same_bandwidth": ("same-bandwidth", lambda d: _set_shares(d, 0.92), lambda d: _set_shares(d, 0.6)),
    "holds_one_kernel": ("one-kernel", lambda d: _set_kernels(d, "add_rmsnorm", 1),
                         lambda d: _set_kernels(d, "add_rmsnorm", 2)),
    "holds_matmuls_extern": ("matmuls-extern", lambda d: _set_kernels(d, "mlp_1token", 2),
                             lambda d: _set_kernels(d, "mlp_1token", 3)),
    "holds_recompile": ("recompile", lambda d: _set_recompiles(d, [1, 1, 0, 0]),
                        lambda d: _set_recompiles(d, [1, 1, 1, 0])),
    "holds_graph_step": ("graph-step", lambda d: _set_steps(d, eager_static=20.0, cuda_graph=5.0),
                         lambda d: _set_steps(d, eager_static=20.0, cuda_graph=18.0)),
    "holds_default_mode": ("default-mode", lambda d: _set_steps(d, compile_default=8.0, cuda_graph=5.0),
                           lambda d: _set_steps(d, compile_default=4.0, cuda_graph=5.0)),
    "holds_reduce_overhead": ("reduce-overhead", lambda d: _set_steps(d, compile_reduce_overhead=3.0, cuda_graph=5.0),
                              lambda d: _set_steps(d, compile_reduce_overhead=6.0, cuda_graph=5.0)),
    "holds_floor": ("floor", lambda d: _set_floor(d, 0.9), lambda d: _set_floor(d, 0.3)),
    "holds_bias_on_cublas": ("bias-on-cublas", lambda d: _set_bias(d, 84), lambda d: _set_bias(d, 0)),
    "holds_oom": ("oom", lambda d: _set_oom(d, True), lambda d: _set_oom(d, True, free_mib=500)),
    "holds_expandable": ("expandable", lambda d: _set_expandable(d, False), lambda d: _set_expandable(d, True)),
}


@pytest.mark.parametrize("field", FLIPS)
def test_each_verdict_the_summaries_read_is_the_ledgers(data, field):
    claim, hold, fail = FLIPS[field]
    for make, expected in ((hold, True), (fail, False)):
        d = copy.deepcopy(data)
        make(d["data"])
        assert (ledger.judge(ledger.BY_ID[claim], d["data"])[1] == ledger.HOLDS) is expected
        assert getattr(F.from_data(**d), field) is expected


def test_the_tally_counts_what_the_ledger_judges(data, monkeypatch):
    monkeypatch.setattr(ledger, "judge", lambda c, d: ("x", ledger.HOLDS))
    f = F.from_data(**data)
    assert (f.holds, f.fails, f.any_fail, f.failed) == (len(ledger.CLAIMS), 0, False, ())
    monkeypatch.setattr(ledger, "judge", lambda c, d: ("x", ledger.FAILS if c.id == "speedup" else ledger.HOLDS))
    f = F.from_data(**data)
    speedup = ledger.BY_ID["speedup"]
    assert (f.holds, f.fails, f.any_fail, f.failed) == (len(ledger.CLAIMS) - 1, 1, True,
                                                        ((speedup.text, speedup.page),))


def test_decode_verdicts_follow_the_step(data):
    d = data["data"]["decode.six_ways"]
    d["profiles"]["eager_static"]["busy_us"] = 0.9 * 1e3 * report.summaries(d)["eager_static"]["step_ms"]
    d["all_passed"] = True
    f = F.from_data(**data)
    assert not f.static_mostly_idle and f.all_passed
    d["profiles"]["eager_static"]["busy_us"] = 0.1 * 1e3 * report.summaries(d)["eager_static"]["step_ms"]
    d["all_passed"] = False
    f = F.from_data(**data)
    assert f.static_mostly_idle and not f.all_passed


def test_the_graph_trap_and_the_allocator_read_their_results(data):
    trap = data["data"]["decode.constraints"]["trap"]
    trap["without_reset"]["bit_identical"], trap["with_reset"]["bit_identical"] = True, False
    _set_oom(data["data"], False)
    _set_expandable(data["data"], True)
    f = F.from_data(**data)
    assert not f.trap_wrong and not f.reset_exact and not f.oom and not f.expandable_ok
    assert f.request_mib == 200  # the laptop's request, when no error says how much was asked
    trap["without_reset"]["bit_identical"], trap["with_reset"]["bit_identical"] = False, True
    _set_oom(data["data"], True)
    _set_expandable(data["data"], False)
    f = F.from_data(**data)
    assert f.trap_wrong and f.reset_exact and f.oom and f.expandable_ok


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
    macros._cache.clear()
    assert "{{" not in macros.render(text, stem)
    for alias, chapter in SET.findall(text):
        key = (chapter, paths.primary_machine(), tuple(paths.results_dirs()))
        base, read = macros._cache[key]
        hints = typing.get_type_hints(type(base))
        for field in sorted(set(re.findall(rf"\b{alias}\.([a-z_][a-z0-9_]*)", conditions))):
            for value in _values(hints[field]):
                macros._cache[key] = (dataclasses.replace(base, **{field: value}), read)
                assert "{{" not in macros.render(text, stem)
        macros._cache[key] = (base, read)
