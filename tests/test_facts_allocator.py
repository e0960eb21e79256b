"""The allocator facts on the fixture results, and each verdict the page reads driven both ways by the data."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from kernelbook import page
from kernelbook.chapters.allocator import facts as F
from kernelbook.chapters.allocator import guards as G

MiB = 1 << 20


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(f"allocator.{name}", m).data)  # noqa: E731
    return {"caching": load("caching"), "segments": load("segments"), "fragmentation": load("fragmentation"),
            "graph_pools": load("graph_pools"), "pools": load("pools"), "laptop_caching": load("caching", F.LAPTOP),
            "laptop_segments": load("segments", F.LAPTOP), "laptop_fragmentation": load("fragmentation", F.LAPTOP),
            "gpu": "H200"}


def _default(d):
    return d["fragmentation"]["default"]


def _no_oom(d):
    """The default run as if the 200 MiB request had found room (and the model had predicted so)."""
    run = _default(d)
    for cps in (run["checkpoints"], run["predicted"]):
        cps[-1]["error"] = None
        cps[-1]["allocated"] += 200 * MiB


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    cached = data["caching"]["cached"]["sizes"]
    assert f.cached_alloc_us == max(s["alloc_us"] for s in cached) and f.cached_reps == cached[0]["reps"]
    assert (f.frag_count, f.frag_big_mib, f.frag_small_mib, f.frag_hole_mib, f.frag_request_mib) == (16, 120, 64, 56,
                                                                                                       200)
    oom = _default(data)["checkpoints"][-1]
    assert f.oom and f.oom_unallocated_mib == (oom["reserved"] - oom["allocated"]) / MiB == 896
    assert f.oom_reserved_mib == 1920 and f.reserved_before_mib == 1922 and f.retries == 1
    assert (f.expandable_allocated_mib, f.expandable_reserved_mib) == (1224, 1922)
    assert (f.laptop_expandable_allocated_mib, f.laptop_expandable_reserved_mib) == (1224, 1922)
    assert f.model_points == 25 and f.segment_points == 17 and f.sequence_cases == 3
    assert (f.rule_round_bytes, f.rule_mid_segment_mib) == (512, 20) and f.rules == 8
    g = data["graph_pools"]
    assert f.separate_mib == (g["separate_reserved"][-1] - g["base_reserved"]) / MiB
    assert f.smallest_batch == 1 and f.smallest_output_kib == 3 and f.largest_batch == 512
    assert F.facts().gpu == "H200"


def test_the_model_holds_only_if_every_checkpoint_matches(data):
    f = F.from_data(**data)
    assert f.model_exact and f.segments_exact and f.segments_differ == ""
    data["segments"]["cases"][4]["match"][0]["segments"] = False
    f = F.from_data(**data)
    assert not f.model_exact and not f.segments_exact and f.model_matched == f.model_points - 1
    assert f.segments_differ == data["segments"]["cases"][4]["label"]
    data["segments"]["cases"][4]["match"][0]["segments"] = True
    _default(data)["match"][-1]["oom"] = False  # a fragmentation checkpoint counts for the model too
    f = F.from_data(**data)
    assert not f.model_exact and f.segments_exact


def test_rules_follow_the_measured_segments(data):
    assert F.from_data(**data).all_rules_hold
    data["segments"]["cases"][0]["measured"][0]["allocated"] = 4  # 4 B not rounded up to 512
    f = F.from_data(**data)
    assert not f.all_rules_hold and f.rules_failed == 1 and f.rules_held == f.rules - 1


def test_the_model_constants_are_the_articles(data):
    assert F.from_data(**data).model_as_article
    data["laptop_segments"]["mid_segment_mib"] = 16
    assert not F.from_data(**data).model_as_article


def test_caching_verdicts(data):
    f = F.from_data(**data)
    assert f.caching_pays and f.uncached_free_waited and f.waited_as_laptop and f.laptop_free_waited
    assert not f.cached_queued_waited and not f.cached_queued_alloc_slower
    u, c = data["caching"]["uncached"], data["caching"]["cached"]
    u["sizes"][1]["free_us"] = c["sizes"][1]["free_us"] / 2  # one size where the driver's free was faster
    u["queued"]["free_us"] = 0.1 * u["queued"]["gpu_ms"] * 1e3  # cudaFree did not wait for the queue
    c["queued"]["alloc_us"] = 0.6 * c["queued"]["gpu_ms"] * 1e3  # the cached alloc did
    f = F.from_data(**data)
    assert not f.caching_pays and f.free_ratio_low == pytest.approx(0.5)
    assert not f.uncached_free_waited and not f.waited_as_laptop
    assert f.cached_queued_waited and f.cached_queued_alloc_slower
    data["laptop_caching"]["uncached_free_waited_for_queued_work"] = False
    f = F.from_data(**data)
    assert f.waited_as_laptop and not f.laptop_free_waited


def test_uncached_grows_only_if_both_calls_never_get_faster_with_size(data):
    sizes = data["caching"]["uncached"]["sizes"]
    assert F.from_data(**data).uncached_grows
    sizes[0]["free_us"] = sizes[-1]["free_us"] + 1  # the smallest request slowest to free
    f = F.from_data(**data)
    assert not f.uncached_grows and f.uncached_free_slowest == "4 KiB"


def test_each_size_has_its_cells_and_the_figures_over_sizes_read_them(data):
    """derive() reads the range of a column, the slowest size and the ratios again from the sizes' cells (the
    medians across runs under the one rule): on one run, the same as from_data's."""
    f = F.from_data(**data)
    u, c = data["caching"]["uncached"]["sizes"], data["caching"]["cached"]["sizes"]
    assert f.uncached_free_4kib_us == u[0]["free_us"] and f.cached_alloc_256mib_us == c[-1]["alloc_us"]
    d = F.derive(f)
    assert set(F.DERIVED_FROM) <= set(d) and all(d[n] == getattr(f, n) for n in d)
    assert all(x in F.CELLS for inputs in F.DERIVED_FROM.values() for x in inputs)
    g = dataclasses.replace(f, uncached_free_1mib_us=1e6, cached_free_4kib_us=1e3)
    d = F.derive(g)
    assert d["uncached_free_high"] == 1e6 and d["uncached_free_slowest"] == "1 MiB"
    assert d["free_ratio_low"] == pytest.approx(u[0]["free_us"] / 1e3) and not d["uncached_grows"]
    assert F.derive(dataclasses.replace(f, cached_queued_alloc_us=0.0))["cached_queued_alloc_slower"] is False
    data["caching"]["cached"]["sizes"].pop()
    with pytest.raises(ValueError, match="re-measure"):
        F.from_data(**data)


def test_the_mlp_has_two_weight_matrices_a_layer(data):
    f = F.from_data(**data)
    g = data["graph_pools"]
    assert f.weight_matrices == 2 * g["layers"] == 4
    assert f.weight_mib == f.weight_matrices * g["hidden"] * g["inter"] * 2 / MiB
    g["weight_bytes"] //= 2  # one matrix a layer: the page's sentence would no longer be true
    with pytest.raises(ValueError, match="two hidden x inter"):
        F.from_data(**data)


def test_the_laptop_steps_compare_allocated_and_reserved(data):
    assert F.from_data(**data).frag_all_as_laptop
    _default(data)["checkpoints"][1]["reserved"] += 2 * MiB
    f = F.from_data(**data)
    assert not f.frag_all_as_laptop and f.frag_steps_as_laptop == f.frag_steps - 1


def test_the_out_of_memory_verdicts(data):
    f = F.from_data(**data)
    assert f.oom and f.cap_not_gpu and f.unallocated_as_laptop and f.model_predicted_oom and f.released_some
    assert f.no_hole_fits and f.holes_one_size and f.every_big_split and f.summary_matches_stat
    err = _default(data)["checkpoints"][-1]
    err["reserved"] = _default(data)["checkpoints"][-2]["reserved"]  # the retry released nothing
    err["allocated"] -= 2 * MiB
    err["error"]["parsed"]["device_free"] = 100 * MiB  # the GPU itself was full
    err["error"]["summary_parsed"]["rows"]["Non-releasable memory"]["cur"] -= MiB
    seg = err["segments"][-1]
    seg["blocks"] = [[32 * MiB, "alloc"], [88 * MiB, "free"]]  # one hole larger than the others
    f = F.from_data(**data)
    assert not f.released_some and not f.cap_not_gpu and not f.unallocated_as_laptop and not f.summary_matches_stat
    assert not f.holes_one_size and f.hole_largest_mib == 88 and f.hole_smallest_mib == 56 and f.no_hole_fits
    seg["blocks"] = [[120 * MiB, "free"]]  # one segment with nothing alive in it
    f = F.from_data(**data)
    assert not f.every_big_split and f.split_segments == 15
    err["segments"][0]["blocks"] = [[1 * MiB, "alloc"], [119 * MiB, "free"]]
    err["segments"].append({"pool": "large", "size": 220 * MiB, "expandable": False,
                            "blocks": [[10 * MiB, "alloc"], [210 * MiB, "free"]]})
    assert not F.from_data(**data).no_hole_fits  # a hole as large as the request


def test_free_memory_covers_the_request_only_if_the_unallocated_bytes_reach_it(data):
    assert F.from_data(**data).free_covers_request  # 896 MiB unallocated against a 200 MiB request
    err = _default(data)["checkpoints"][-1]
    err["allocated"] = err["reserved"] - 199 * MiB
    assert not F.from_data(**data).free_covers_request
    err["allocated"] = err["reserved"] - 200 * MiB
    assert F.from_data(**data).free_covers_request


def test_no_out_of_memory_error(data):
    _no_oom(data)
    f = F.from_data(**data)
    assert not f.oom and not f.model_predicted_oom and not f.cap_not_gpu and not f.unallocated_as_laptop
    assert not f.free_covers_request
    assert f.oom_unallocated_mib is None and f.retries is None and f.frag_request_mib == 200


def test_expandable_compares_allocated_and_reserved_both(data):
    f = F.from_data(**data)
    assert f.expandable_ok and f.expandable_as_laptop and f.expandable_same_reserved
    end = data["fragmentation"]["expandable"]["checkpoints"][-1]
    end["reserved"] += 20 * MiB  # allocated still the article's: reserved alone must break the match
    f = F.from_data(**data)
    assert not f.expandable_as_laptop and not f.expandable_same_reserved
    end["reserved"] -= 20 * MiB
    end["allocated"] -= 200 * MiB
    end["error"] = {"message": "CUDA out of memory."}
    f = F.from_data(**data)
    assert not f.expandable_ok and not f.expandable_as_laptop and f.expandable_same_reserved


def test_graph_pool_verdicts(data):
    f = F.from_data(**data)
    assert f.pool_per_capture and f.shared_saves
    g = data["graph_pools"]
    g["private_pools_seen"] = 1
    g["shared_reserved"][-1] = g["base_reserved_shared"] + (g["separate_reserved"][-1] - g["base_reserved"])
    f = F.from_data(**data)
    assert not f.pool_per_capture and not f.shared_saves and f.shared_mib == f.separate_mib


def test_the_caching_demo_samples_until_its_cap_and_keeps_the_slowest_call():
    from kernelbook.chapters.allocator import demos

    calls = []
    t = demos._alloc_free_until_quiet(lambda: calls.append("a"), lambda: calls.append("f"), 3, 0.02)
    assert t["rounds"] == t["alloc"]["n"] == t["free"]["n"] >= 10 and len(calls) == 2 * 3 * t["rounds"]
    assert calls[:2] == ["a", "f"]  # each alloc is followed by its free
    assert t["alloc"]["stopped"] in ("quiet", "cap", "limit")
    assert t["slowest"]["alloc"] >= t["alloc"]["max"] and t["slowest"]["free"] >= t["free"]["max"]


def test_a_noisy_cell_is_named(data):
    f = F.from_data(**data)
    assert not f.caching_noisy and f.caching_batch == data["caching"]["cached"]["sizes"][0]["batch"]
    data["caching"]["uncached"]["queued"]["free"]["quiet"] = False
    assert F.from_data(**data).caching_noisy


def test_the_cells_are_counted_by_how_their_sampling_stopped(data):
    f = F.from_data(**data)
    assert (f.caching_cells, f.caching_quiet_cells) == (20, 20) and f.caching_max_samples == 1000
    q = data["caching"]["uncached"]["queued"]["free"]
    q.update(quiet=False, stopped="cap")
    s = data["caching"]["cached"]["sizes"][0]["alloc"]
    s.update(quiet=False, stopped="limit")
    f = F.from_data(**data)
    assert (f.caching_quiet_cells, f.caching_at_limit, f.caching_at_cap) == (18, 1, 1) and f.caching_noisy


def test_the_pools_readings_and_each_of_their_verdicts_both_ways(data):
    p = data["pools"]
    f = F.from_data(**data)
    assert f.stream_other_new and f.stream_same_reuses and (f.stream_small_kib, f.stream_large_mib) == (4, 64)
    assert (f.pool_both_mib, f.pool_output_mib, f.pool_neither_mib) == (4, 2, 0) and f.pool_released
    assert not f.pool_left and f.pages_whole and f.pages_steps == len(p["expandable"]["steps"])
    assert f.grow_order == "slower" and f.grow_batch == 5 and not f.grow_quiet  # the fixture's samples are noisy
    p["streams"]["sizes"][1].update(other_stream_reuses=True, same_stream_reuses=False)
    p["graph_pool"]["private"]["neither"] = 2 * MiB
    p["graph_pool"]["neither"] = p["graph_pool"]["base_reserved"] + 32 * MiB
    p["expandable"]["steps"][0]["step"] = 3 * MiB  # not a whole number of 2 MiB pages
    e, d = p["grow"]["expandable"]["grow_us"], p["grow"]["default"]["grow_us"]
    e["values"] = [v - 30 for v in e["values"]]  # every expandable sample under every default one
    d["quiet"] = e["quiet"] = True
    f = F.from_data(**data)
    assert not f.stream_other_new and not f.stream_same_reuses and not f.pool_released and f.pool_neither_mib == 2
    assert f.pool_left and f.pool_left_mib == 32 and not f.pages_whole and f.grow_order == "faster" and f.grow_quiet
    e["values"][0] = max(d["values"]) + 1  # one sample past the other side: they overlap
    assert F.from_data(**data).grow_order == "overlap"


GUARD_CASES = {  # guard -> (fields on which it holds, fields on which it does not)
    "model_exact": ({"model_exact": True}, {"model_exact": False}),
    "model_constants": ({"model_as_article": True}, {"model_as_article": False}),
    "rules_hold": ({"all_rules_hold": True}, {"all_rules_hold": False}),
    "caching_pays": ({"caching_pays": True}, {"caching_pays": False}),
    "cells_noisy": ({"caching_noisy": True}, {"caching_noisy": False}),
    "free_waits": ({"uncached_free_waited": True}, {"uncached_free_waited": False}),
    "laptop_waits": ({"laptop_free_waited": True}, {"laptop_free_waited": False}),
    "queued_alloc_slower": ({"cached_queued_alloc_slower": True}, {"cached_queued_alloc_slower": False}),
    "cached_no_wait": ({"cached_queued_waited": False}, {"cached_queued_waited": True}),
    "streams_apart": ({"stream_other_new": True}, {"stream_other_new": False}),
    "stream_reuses": ({"stream_same_reuses": True}, {"stream_same_reuses": False}),
    "trap": ({"oom": True}, {"oom": False}),
    "steps_match": ({"frag_all_as_laptop": True}, {"frag_all_as_laptop": False}),
    "cap_refused": ({"cap_not_gpu": True}, {"cap_not_gpu": False}),
    "holes_one_size": ({"holes_one_size": True}, {"holes_one_size": False}),
    "no_hole_fits": ({"no_hole_fits": True}, {"no_hole_fits": False}),
    "retry_released": ({"released_some": True}, {"released_some": False}),
    "every_big_split": ({"every_big_split": True}, {"every_big_split": False}),
    "covers_request": ({"free_covers_request": True}, {"free_covers_request": False}),
    "summary_matches": ({"summary_matches_stat": True}, {"summary_matches_stat": False}),
    "expandable_ok": ({"expandable_ok": True}, {"expandable_ok": False}),
    "expandable_as_laptop": ({"expandable_as_laptop": True}, {"expandable_as_laptop": False}),
    "same_reserved": ({"expandable_same_reserved": True}, {"expandable_same_reserved": False}),
    "one_segment": ({"expandable_large_segments": 1}, {"expandable_large_segments": 2}),
    "pages_whole": ({"pages_whole": True}, {"pages_whole": False}),
    "grow_overlap": ({"grow_order": "overlap"}, {"grow_order": "slower"}),
    "grow_noisy": ({"grow_quiet": False}, {"grow_quiet": True}),
    "pool_per_capture": ({"pool_per_capture": True}, {"pool_per_capture": False}),
    "shared_saves": ({"shared_mib": 62.0, "separate_mib": 904.0}, {"shared_mib": 904.0}),
    "pool_released": ({"pool_released": True}, {"pool_released": False}),
}


def test_every_guard_has_a_case():
    assert set(GUARD_CASES) == set(G.GUARDS)


@pytest.mark.parametrize("name", sorted(GUARD_CASES))
def test_each_guard_holds_one_way_and_fails_the_other(data, name):
    f = F.from_data(**data)
    holding, failing = GUARD_CASES[name]
    guard = G.GUARDS[name]
    assert guard.test(dataclasses.replace(f, **holding)) is True
    assert not guard.test(dataclasses.replace(f, **failing))
    words = guard.found(dataclasses.replace(f, **failing))  # what a flag says there: values, never None
    assert words and "None" not in words and "—" not in words


def test_without_the_error_the_paragraphs_about_it_give_way(data):
    """No out-of-memory error: the guards of the paragraphs that print its figures say so instead of empty fields."""
    _no_oom(data)
    f = F.from_data(**data)
    assert f.oom_unallocated_mib is None
    for name in ("trap", "covers_request", "cap_refused", "summary_matches"):
        guard = G.GUARDS[name]
        assert not guard.test(f) and guard.absent[0](f), name


def test_the_guards_follow_the_data(data):
    """A few guards driven by the stored data itself rather than by replaced fields."""
    f = F.from_data(**data)
    assert G.GUARDS["trap"][1](f) and G.GUARDS["no_hole_fits"][1](f) and G.GUARDS["one_segment"][1](f)
    _no_oom(data)
    f = F.from_data(**data)
    assert not G.GUARDS["trap"][1](f) and not G.GUARDS["covers_request"][1](f)


def test_every_number_has_a_format():
    numeric = {n for n, kind in F.Facts.__annotations__.items() if kind.split(" |")[0] in ("int", "float")}
    assert set(F.FORMATS) == numeric and F.FORMATS["frag_request_mib"] == "num:0"
    assert F.FORMATS["uncached_queued_free_ms"] == "num:1" and set(F.DIGITS) <= numeric
