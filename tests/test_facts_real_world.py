"""The real-world facts on the fixture results, and each verdict driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from kernelbook import page
from kernelbook.chapters.real_world import facts as F
from kernelbook.chapters.real_world import guards as G

MiB = 1 << 20


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"graph_pools": load("allocator.graph_pools"), "mlp_profile": load("torch_compile.mlp_profile"),
            "ceilings": load("machine.ceilings"), "six_ways": load("decode.six_ways"),
            "laptop_profile": load("torch_compile.mlp_profile", F.LAPTOP),
            "laptop_ceilings": load("machine.ceilings", F.LAPTOP),
            "speed_of_light": tuple(load(n) for n in F.SPEED_OF_LIGHT), "gpu": "H200"}


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    gp, big = data["graph_pools"], data["mlp_profile"]["by_tokens"]["2048"]
    sizes = gp["vllm_sizes"]
    assert (f.capture_count, f.capture_max) == (len(sizes), max(sizes))
    assert f.capture_first == tuple(sizes[:6]) and f.capture_last == tuple(sizes[-3:])
    assert f.private_mib == (gp["separate_reserved"][-1] - gp["base_reserved"]) / MiB
    assert f.shared_mib == (gp["shared_reserved"][-1] - gp["base_reserved_shared"]) / MiB
    assert f.prefill_tokens == 2048
    assert f.prefill_saved_share == pytest.approx(big["saved_us"] / big["eager"]["busy_us"])
    assert f.prefill_kernel_us_low <= f.prefill_kernel_us_high
    assert f.prefill_compiled_us == big["compiled"]["busy_us"] and f.prefill_launches == round(big["eager"]["launches"])
    assert f.prefill_launch_us == pytest.approx(f.prefill_launches * f.launch_us)
    assert (f.laptop_saved_share, f.laptop_launch_us, f.laptop_kernel_ms_low) == (0.05, 8.1, 0.5)
    assert F.facts().gpu == "H200"


def test_the_stored_vllm_list_follows_the_documented_rule(data):
    """The page states vLLM's rule in words and reads the count from the stored list: the two must agree."""
    top = max(data["graph_pools"]["vllm_sizes"])
    assert data["graph_pools"]["vllm_sizes"] == [1, 2, 4, *range(8, 256, 8), *range(256, top + 1, 16)]


def test_prefill_is_host_bound_only_when_issuing_outlasts_the_gpu_work(data):
    eager = data["mlp_profile"]["by_tokens"]["2048"]["eager"]
    eager["cpu_us"] = eager["busy_us"] * 1.5
    assert F.from_data(**data).prefill_host_bound
    eager["cpu_us"] = eager["busy_us"] * 0.5
    assert not F.from_data(**data).prefill_host_bound


def test_fusion_saves_in_prefill_only_when_it_took_time_off(data):
    big = data["mlp_profile"]["by_tokens"]["2048"]
    big["saved_us"] = 10.0
    assert F.from_data(**data).prefill_fusion_saves
    big["saved_us"] = -1.0
    f = F.from_data(**data)
    assert not f.prefill_fusion_saves and f.prefill_saved_share < 0


def test_liger_is_raced_only_when_both_speed_of_light_runs_had_it(data):
    for s in data["speed_of_light"]:
        s["liger"] = True
    assert F.from_data(**data).liger_raced
    data["speed_of_light"][1]["liger"] = False
    assert not F.from_data(**data).liger_raced


def test_the_capture_list_reads_as_the_page_writes_it(data):
    f = F.from_data(**data)
    assert f.capture_shown == ", ".join(f"{n:,}" for n in f.capture_first) + ", …, " + ", ".join(
        f"{n:,}" for n in f.capture_last)


def test_derived_figures_read_as_the_medians_beside_them(data):
    """The saved share is torch_compile's big_saved_share computed the same way; the launches' cost is their count
    at the machine page's unprofiled cost of one."""
    f = dataclasses.replace(F.from_data(**data), prefill_gpu_us=400.0, prefill_compiled_us=300.0, prefill_launches=17,
                            launch_us=8.0)
    assert F.derive(f) == {"prefill_saved_share": 0.25, "prefill_launch_us": 136.0}
    assert set(F.derive(f)) == set(F.DERIVED_FROM)


def test_the_saved_share_is_the_torch_compile_chapters(fixture_results):
    from kernelbook import factbook

    rw, tc = factbook.book("real_world").facts, factbook.book("torch_compile").facts
    assert rw.prefill_saved_share == pytest.approx(tc.big_saved_share)
    assert (rw.prefill_gpu_us, rw.prefill_compiled_us) == (tc.big_eager_us, tc.big_compiled_us)


PREFILL = {"prefill_kernel_us_high": 33.5, "launch_us": 8.1, "laptop_kernel_ms_low": 0.5, "laptop_launch_us": 8.1,
           "prefill_host_us": 610.0, "prefill_gpu_us": 333.0, "prefill_launch_us": 138.0}


# each guard the page names, driven both ways: (guard, fields under which it holds, the change that turns it)
GUARD_CASES = [
    ("prefill_kernels_shorter", PREFILL, {"prefill_kernel_us_high": 600.0}),
    ("prefill_host_over_gpu", PREFILL, {"prefill_host_us": 300.0}),
    ("prefill_launch_under_gpu", PREFILL, {"prefill_launch_us": 400.0}),
    ("hiding_unsettled", PREFILL, {"prefill_host_us": 332.0}),  # the H100: both under the GPU work, the launches hide
    ("fusion_saves", {"prefill_saved_share": 0.1}, {"prefill_saved_share": -0.01}),
    ("liger_raced", {"liger_raced": True}, {"liger_raced": False}),
]


@pytest.mark.parametrize("name, holding, turned", GUARD_CASES, ids=[c[0] for c in GUARD_CASES])
def test_each_guard_is_driven_both_ways_by_the_data(data, name, holding, turned):
    guard = G.GUARDS[name]
    f = dataclasses.replace(F.from_data(**data), **holding)
    assert guard.test(f)
    assert not guard.test(dataclasses.replace(f, **turned))
    words = guard.found(dataclasses.replace(f, **turned))  # what a flag says there: values, never None
    assert words and "None" not in words


def test_every_guard_has_a_case():
    assert {c[0] for c in GUARD_CASES} == set(G.GUARDS)


def test_guard_fusion_saves_both_ways(data):
    f = F.from_data(**data)
    test = G.GUARDS["fusion_saves"][1]
    assert test(dataclasses.replace(f, prefill_saved_share=0.1))
    assert not test(dataclasses.replace(f, prefill_saved_share=-0.01))


def test_guard_liger_raced_both_ways(data):
    for s in data["speed_of_light"]:
        s["liger"] = True
    test = G.GUARDS["liger_raced"][1]
    assert test(F.from_data(**data))
    data["speed_of_light"][0]["liger"] = False
    assert not test(F.from_data(**data))
