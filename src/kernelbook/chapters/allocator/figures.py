"""How docs/allocator.md's figures are computed from the stored runs (allocator.caching, .segments, .fragmentation,
.graph_pools, .pools and the article's laptop records): each function below returns some of the fields of
allocator.facts.Facts, by name. Sizes are in bytes here unless a name says MiB, KiB or GiB.
"""

from __future__ import annotations

import statistics
from typing import Any

from kernelbook import bench, source
from kernelbook.chapters.allocator import model
from kernelbook.chapters.allocator.checks import rule_checks
from kernelbook.chapters.allocator.parse import human

# the sizes the caching demo times and its cap, read from its text (it imports torch: kernelbook.source)
CACHING_SIZES, CACHING_CAP_S = source.constants("kernelbook.chapters.allocator.demos", "CACHING_SIZES", "CAP_S")
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
WAITED = 0.5  # a call "waited for the queue" when it took at least this share of the queued GPU time
SHARED_SAVES = 0.5  # one shared pool "saves" when it costs under this share of the private pools
SIZE_KEYS = {n: human(n).replace(" ", "").lower() for n in CACHING_SIZES}  # 4096 -> "4kib": the cells' names


def _mib(n: float | None) -> float | None:
    return None if n is None else n / MiB


def _rising(xs: list[float]) -> bool:
    return all(a <= b for a, b in zip(xs, xs[1:], strict=False))


def _cells(p: dict[str, Any]) -> list[dict[str, Any]]:
    """The timing summaries behind one process's cells: alloc and free at each size, and behind the queue."""
    return [s[k] for s in p["sizes"] for k in ("alloc", "free")] + [p["queued"]["alloc"], p["queued"]["free"]]


def cell(who: str, op: str, nbytes: int) -> str:
    """The field of one cell of the caching table: cell("uncached", "free", 4096) -> 'uncached_free_4kib_us'."""
    return f"{who}_{op}_{SIZE_KEYS[nbytes]}_us"


def over_sizes(c_alloc: list[float], c_free: list[float], u_alloc: list[float], u_free: list[float],
                queued_alloc: float) -> dict[str, Any]:
    """The caching figures read over the sizes (in CACHING_SIZES order) from each size's cells."""
    ratio = [uf / cf for cf, uf in zip(c_free, u_free, strict=True)]
    return dict(
        cached_alloc_us=max(c_alloc), cached_free_us=max(c_free),
        uncached_alloc_low=min(u_alloc), uncached_alloc_high=max(u_alloc),
        uncached_free_low=min(u_free), uncached_free_high=max(u_free),
        uncached_grows=_rising(u_alloc) and _rising(u_free),
        uncached_free_slowest=human(CACHING_SIZES[u_free.index(max(u_free))]),
        free_ratio_low=min(ratio), free_ratio_high=max(ratio), caching_pays=min(ratio) > 1,
        cached_queued_alloc_slower=queued_alloc > max(c_alloc),
    )


def caching(cach: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
    """The caching figures: each size's cells, the figures read over the sizes, how the timings stopped, the queue."""
    c, u = cach["cached"], cach["uncached"]
    if [s["bytes"] for s in c["sizes"]] != list(CACHING_SIZES) or [s["bytes"] for s in u["sizes"]] != list(
            CACHING_SIZES):
        raise ValueError(f"allocator.caching timed sizes other than {CACHING_SIZES}: re-measure it")
    queued_us = u["queued"]["gpu_ms"] * 1e3
    cq = c["queued"]
    waited = u["queued"]["free_us"] >= WAITED * queued_us
    sizes = {who: {op: [s[f"{op}_us"] for s in p["sizes"]] for op in ("alloc", "free")}
             for who, p in (("cached", c), ("uncached", u))}
    return dict(
        **{cell(who, op, n): x for who, ops in sizes.items() for op, xs in ops.items()
           for n, x in zip(CACHING_SIZES, xs, strict=True)},
        **over_sizes(sizes["cached"]["alloc"], sizes["cached"]["free"], sizes["uncached"]["alloc"],
                     sizes["uncached"]["free"], cq["alloc_us"]),
        cached_worst_us=max(max(s["alloc_us_max"], s["free_us_max"]) for s in c["sizes"]),
        cached_reps=min(s["reps"] for s in c["sizes"]), uncached_reps=min(s["reps"] for s in u["sizes"]),
        queued_reps=min(len(cq["free_us_all"]), len(u["queued"]["free_us_all"])),
        caching_batch=min(s["batch"] for s in c["sizes"] + u["sizes"]), caching_min_samples=bench.MIN_SAMPLES,
        caching_bound_pct=bench.BOUND_PCT, caching_cap_s=CACHING_CAP_S, caching_max_samples=bench.MAX_SAMPLES,
        caching_cells=len(cells := _cells(c) + _cells(u)), caching_quiet_cells=sum(t["quiet"] for t in cells),
        caching_noisy_cells=sum(not t["quiet"] for t in cells),
        caching_at_limit=sum(t["stopped"] == "limit" for t in cells),
        caching_at_cap=sum(t["stopped"] == "cap" for t in cells),
        caching_noisy=not all(t["quiet"] for p in (c, u) for t in _cells(p)),
        queued_gpu_ms=u["queued"]["gpu_ms"], uncached_queued_free_ms=u["queued"]["free_us"] / 1e3,
        uncached_free_waited=waited, cached_queued_free_us=cq["free_us"], cached_queued_alloc_us=cq["alloc_us"],
        cached_queued_waited=max(cq["alloc_us"], cq["free_us"]) >= WAITED * cq["gpu_ms"] * 1e3,
        laptop_free_waited=laptop["uncached_free_waited_for_queued_work"],
        waited_as_laptop=waited == laptop["uncached_free_waited_for_queued_work"],
    )


def rules(seg: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
    """The rules as the article read them, the checks on the measured segments, the model against the segments."""
    checks = rule_checks(seg)
    held = sum(ok for _, ok in checks)
    constants = (model.MIN_BLOCK, model.SMALL_SIZE, model.SMALL_BUFFER, model.MIN_LARGE_ALLOC, model.LARGE_BUFFER,
                 model.ROUND_LARGE)
    article = (laptop["rounding_bytes"], laptop["small_max_mib"] * MiB, laptop["small_segment_mib"] * MiB,
               laptop["mid_max_mib"] * MiB, laptop["mid_segment_mib"] * MiB, laptop["large_round_mib"] * MiB)
    points = [(c["label"], all(ok.values())) for c in seg["cases"] for ok in c["match"]]
    differ = list(dict.fromkeys(label for label, ok in points if not ok))
    return dict(
        rule_round_bytes=laptop["rounding_bytes"], rule_small_max_mib=laptop["small_max_mib"],
        rule_small_segment_mib=laptop["small_segment_mib"], rule_mid_max_mib=laptop["mid_max_mib"],
        rule_mid_segment_mib=laptop["mid_segment_mib"], rule_large_round_mib=laptop["large_round_mib"],
        model_as_article=constants == article,
        rules=len(checks), rules_held=held, rules_failed=len(checks) - held, all_rules_hold=held == len(checks),
        segment_points=len(points), segment_matched=len(points) - sum(not ok for _, ok in points),
        segments_exact=not differ, segments_differ=", ".join(differ),
        sequence_cases=sum(len(c["measured"]) > 1 for c in seg["cases"]),
    )


def _large(cp: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in cp["segments"] if s["pool"] == "large"]


def fragmentation(frag: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
    """The fragmentation script: its steps, the default run's out-of-memory error, the expandable run's end."""
    d, e = frag["default"], frag["expandable"]
    cps = d["checkpoints"]
    count = len(_large(cps[0]))
    big, small = cps[0]["allocated"] / count, cps[2]["allocated"] / count
    oom = next((c for c in cps if c["error"]), None)
    request = oom["error"]["parsed"]["tried"] if oom else cps[-1]["allocated"] - cps[2]["allocated"]
    ours = {c["label"]: (round(c["allocated"] / MiB), round(c["reserved"] / MiB)) for c in cps}
    steps = laptop["checkpoints_mib"]
    as_laptop = sum(ours.get(s["label"]) == (s["allocated"], s["reserved"]) for s in steps)
    predicted = next((c for c in d["predicted"] if c["error"]), None)
    split = [s for s in _large(oom or cps[-1]) if len(s["blocks"]) > 1]
    holes = [b[0] for s in split for b in s["blocks"] if b[1] == "free"]
    err = oom["error"] if oom else {}
    msg = err.get("parsed", {})
    row = err.get("summary_parsed", {}).get("rows", {}).get("Non-releasable memory", {})
    end = e["checkpoints"][-1]
    exp_large = _large(end)
    exp_free = [b[0] for s in exp_large for b in s["blocks"] if b[1] == "free"]
    exp_mib = (round(end["allocated"] / MiB), round(end["reserved"] / MiB))
    laptop_exp = (laptop["expandable_allocated_mib"], laptop["expandable_reserved_mib"])
    unallocated = _mib(oom and oom["reserved"] - oom["allocated"])
    return dict(
        cap_gib=d["cap_bytes"] / GiB, frag_count=count, frag_big_mib=big / MiB, frag_small_mib=small / MiB,
        frag_hole_mib=(big - small) / MiB, frag_request_mib=request / MiB,
        frag_stuck_mib=cps[2]["inactive_split"] / MiB,
        frag_steps=len(steps), frag_steps_as_laptop=as_laptop, frag_all_as_laptop=as_laptop == len(steps),
        oom=oom is not None, oom_allocated_mib=_mib(oom and oom["allocated"]),
        oom_reserved_mib=_mib(oom and oom["reserved"]), oom_unallocated_mib=unallocated,
        msg_unallocated_mib=_mib(msg.get("unallocated")), nonreleasable_mib=_mib(row.get("cur")),
        inactive_split_mib=_mib(err.get("inactive_split_stat")),
        summary_matches_stat=oom is not None and row.get("cur") == err.get("inactive_split_stat"),
        split_segments=len(split), hole_smallest_mib=_mib(min(holes, default=None)),
        hole_largest_mib=_mib(max(holes, default=None)), holes_one_size=len(set(holes)) == 1,
        no_hole_fits=max(holes, default=0) < request, every_big_split=len(split) == count,
        free_covers_request=unallocated is not None and unallocated * MiB >= request,
        retries=err.get("num_alloc_retries"), reserved_before_mib=cps[-2]["reserved"] / MiB,
        released_some=oom is not None and oom["reserved"] < cps[-2]["reserved"],
        device_free_gib=None if msg.get("device_free") is None else msg["device_free"] / GiB,
        cap_not_gpu=oom is not None and (msg.get("device_free") or 0) > request,
        laptop_oom_request_mib=laptop["oom_request_mib"], laptop_oom_unallocated_mib=laptop["oom_unallocated_mib"],
        unallocated_as_laptop=unallocated is not None and round(unallocated) == laptop["oom_unallocated_mib"],
        model_predicted_oom=predicted is not None,
        model_oom_unallocated_mib=_mib(predicted and predicted["reserved"] - predicted["allocated"]),
        expandable_ok=not end["error"], expandable_allocated_mib=end["allocated"] / MiB,
        expandable_reserved_mib=end["reserved"] / MiB, laptop_expandable_allocated_mib=laptop_exp[0],
        laptop_expandable_reserved_mib=laptop_exp[1], expandable_as_laptop=exp_mib == laptop_exp,
        expandable_same_reserved=end["reserved"] == cps[2]["reserved"],
        expandable_large_segments=len(exp_large), expandable_free_mib=max(exp_free, default=0) / MiB,
    )


def graph_pools(g: dict[str, Any]) -> dict[str, Any]:
    """The CUDA graph pools: one private pool per capture against one shared pool."""
    steps = g["separate_steps"]
    sizes = g["sizes"]
    small, large = sizes.index(min(sizes)), sizes.index(max(sizes))
    matrices = 2 * g["layers"]  # each layer: Linear(hidden, inter) up, Linear(inter, hidden) down, no bias
    elem = 2  # bytes per bf16 weight, and per element of the output
    if matrices * g["hidden"] * g["inter"] * elem != g["weight_bytes"]:
        raise ValueError("allocator.graph_pools: the MLP's weights are not two hidden x inter bf16 matrices a layer")
    separate = (g["separate_reserved"][-1] - g["base_reserved"]) / MiB
    shared = (g["shared_reserved"][-1] - g["base_reserved_shared"]) / MiB
    return dict(
        vllm_count=g["vllm_count"], vllm_max=max(g["vllm_sizes"]), layers=g["layers"], hidden=g["hidden"],
        inter=g["inter"], weight_mib=g["weight_bytes"] / MiB, weight_matrices=matrices, graphs=len(sizes),
        pools_seen=g["private_pools_seen"],
        pool_per_capture=g["private_pools_seen"] == len(sizes),
        step_min_mib=min(steps) / MiB, step_max_mib=max(steps) / MiB, step_median_mib=statistics.median(steps) / MiB,
        separate_mib=separate, shared_mib=shared, shared_saves=shared < SHARED_SAVES * separate,
        smallest_batch=sizes[small], smallest_step_mib=steps[small] / MiB,
        smallest_output_kib=sizes[small] * g["hidden"] * elem / KiB,
        largest_batch=sizes[large], largest_step_mib=steps[large] / MiB,
    )


def pools(p: dict[str, Any]) -> dict[str, Any]:
    """allocator.pools: a freed block's stream, a graph's pool after release, expandable pages, growing requests."""
    streams, g, ex = p["streams"]["sizes"], p["graph_pool"], p["expandable"]
    d, e = p["grow"]["default"]["grow_us"], p["grow"]["expandable"]["grow_us"]
    order = "slower" if min(e["values"]) > max(d["values"]) else "faster" if max(e["values"]) < min(d["values"]) \
        else "overlap"
    return dict(
        stream_small_kib=min(s["bytes"] for s in streams) / KiB,
        stream_large_mib=max(s["bytes"] for s in streams) / MiB,
        stream_other_new=not any(s["other_stream_reuses"] for s in streams),
        stream_same_reuses=all(s["same_stream_reuses"] for s in streams),
        pool_both_mib=g["private"]["graph_and_output"] / MiB, pool_output_mib=g["private"]["output_only"] / MiB,
        pool_neither_mib=g["private"]["neither"] / MiB, pool_released=g["private"]["neither"] == 0,
        pool_left_mib=(g["neither"] - g["base_reserved"]) / MiB, pool_left=g["neither"] > g["base_reserved"],
        pages_steps=len(ex["steps"]),
        pages_whole=all(s["step"] >= 0 and s["step"] % ex["page"][s["pool"]] == 0 for s in ex["steps"]),
        grow_bytes_mib=p["grow"]["default"]["bytes"] / MiB, grow_default_us=d["median"], grow_expandable_us=e["median"],
        grow_samples=min(d["n"], e["n"]), grow_batch=p["grow"]["default"]["batch"],
        grow_quiet=d["quiet"] and e["quiet"], grow_order=order,
    )
