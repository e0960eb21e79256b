"""The numbers and verdicts of docs/allocator.md, from allocator.caching, .segments, .fragmentation, .graph_pools and
.pools on one machine, with the article's RTX 4060 Laptop records beside them.

No sentence is written here: the page's Markdown reads these fields (`{{ f.oom_unallocated_mib }}`, in the digits
FORMATS gives), and its paragraphs name the GUARDS below, the verdicts they are written for. Sizes are in MiB (KiB,
GiB where the name says so), times in µs unless the name says ms.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, bench, page, source
from kernelbook.chapters.allocator import model
from kernelbook.chapters.allocator.checks import rule_checks
from kernelbook.chapters.allocator.parse import human
from kernelbook.guards import Guard

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
# the sizes the caching demo times and its cap, read from its text (it imports torch: kernelbook.source)
CACHING_SIZES, CACHING_CAP_S = source.constants("kernelbook.chapters.allocator.demos", "CACHING_SIZES", "CAP_S")
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
WAITED = 0.5  # a call "waited for the queue" when it took at least this share of the queued GPU time
SHARED_SAVES = 0.5  # one shared pool "saves" when it costs under this share of the private pools
SIZE_KEYS = {n: human(n).replace(" ", "").lower() for n in CACHING_SIZES}  # 4096 -> "4kib": the cells' names
CELLS = [f"{who}_{op}_{key}_us" for who in ("cached", "uncached") for op in ("alloc", "free")
         for key in SIZE_KEYS.values()]  # one field per cell of the caching table's sizes
LABELS = {  # the fragmentation result's runs -> how the figures name them
    "default": "default allocator",
    "expandable": "expandable_segments:True",
}


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    caching_runs: int  # the fresh runs of allocator.caching whose medians the caching table shows
    # the model against every checkpoint (segments cases and both fragmentation runs)
    model_points: int
    model_matched: int
    model_exact: bool
    # caching, each size's cells (the caching table's): the median of the calls at that size, with the cache
    # (cached_) and without it (uncached_); one field per size of CACHING_SIZES, named by SIZE_KEYS
    cached_alloc_4kib_us: float
    cached_alloc_1mib_us: float
    cached_alloc_16mib_us: float
    cached_alloc_256mib_us: float
    cached_free_4kib_us: float
    cached_free_1mib_us: float
    cached_free_16mib_us: float
    cached_free_256mib_us: float
    uncached_alloc_4kib_us: float
    uncached_alloc_1mib_us: float
    uncached_alloc_16mib_us: float
    uncached_alloc_256mib_us: float
    uncached_free_4kib_us: float
    uncached_free_1mib_us: float
    uncached_free_16mib_us: float
    uncached_free_256mib_us: float
    # ... then the largest or smallest of those over the sizes (derive: from the sizes' medians across runs)
    cached_alloc_us: float  # the slowest size's median, with the cache
    cached_free_us: float
    cached_worst_us: float  # the slowest single cached call, alloc or free, at any size
    cached_reps: int  # the fewest calls behind a size's cells, with the cache
    uncached_reps: int
    queued_reps: int  # the fewest calls behind the queued row (one a sample)
    caching_batch: int  # calls behind one sample of a size's cells: their median
    caching_min_samples: int  # samples are taken until quiet (bench.py): at least this many,
    caching_bound_pct: float  # ... noise at most this, in percent
    caching_cap_s: float  # ... or this many seconds a size
    caching_max_samples: int  # ... or this many samples, whichever comes first
    caching_cells: int  # the timings behind the table's cells
    caching_quiet_cells: int  # ... those that stopped quiet
    caching_at_limit: int  # ... those that stopped at the sample count
    caching_at_cap: int  # ... those that stopped at the time cap
    caching_noisy: bool  # some cell of the table stayed noisy when its sampling stopped
    uncached_alloc_low: float
    uncached_alloc_high: float
    uncached_free_low: float
    uncached_free_high: float
    uncached_grows: bool  # uncached alloc and free medians both never fall as the size grows
    uncached_free_slowest: str  # the size whose uncached free was slowest, "256 MiB"
    free_ratio_low: float  # uncached free over cached free, the smallest and largest over the sizes
    free_ratio_high: float
    caching_pays: bool  # the cached free faster at every size
    queued_gpu_ms: float
    uncached_queued_free_ms: float
    uncached_free_waited: bool
    cached_queued_free_us: float
    cached_queued_alloc_us: float
    cached_queued_alloc_slower: bool  # slower behind the queue than the slowest size's median with the GPU idle
    cached_queued_waited: bool  # the cached alloc or free waited for the queue
    laptop_free_waited: bool
    waited_as_laptop: bool
    # the rules, as the article read them from CUDACachingAllocator.cpp
    rule_round_bytes: int
    rule_small_max_mib: int
    rule_small_segment_mib: int
    rule_mid_max_mib: int
    rule_mid_segment_mib: int
    rule_large_round_mib: int
    model_as_article: bool  # the model's constants are those rules
    rules: int
    rules_held: int
    rules_failed: int
    all_rules_hold: bool
    # blocks and segments
    segment_points: int
    segment_matched: int
    segments_exact: bool
    segments_differ: str  # the labels of the cases the model missed, comma-separated; "" if none
    sequence_cases: int  # cases that run a sequence of requests, not one
    # the fragmentation script, as the default run measured it
    cap_gib: float
    frag_count: int  # tensors of each size
    frag_big_mib: float
    frag_small_mib: float
    frag_hole_mib: float  # what each split leaves free
    frag_request_mib: float
    frag_stuck_mib: float  # free inside split segments (inactive split) just before the request
    frag_steps: int  # the article's checkpoints before the request
    frag_steps_as_laptop: int  # ... at which allocated and reserved MiB equal the article's
    frag_all_as_laptop: bool
    # the out-of-memory error of the default run (None where it did not fail)
    oom: bool
    oom_allocated_mib: float | None
    oom_reserved_mib: float | None
    oom_unallocated_mib: float | None  # reserved minus allocated
    msg_unallocated_mib: float | None  # as the message printed it
    nonreleasable_mib: float | None  # memory_summary()'s row
    inactive_split_mib: float | None  # the inactive_split_bytes counter
    summary_matches_stat: bool
    split_segments: int
    hole_smallest_mib: float | None
    hole_largest_mib: float | None
    holes_one_size: bool
    no_hole_fits: bool  # no free hole as large as the request
    free_covers_request: bool  # reserved but unallocated memory at the error at least the request
    every_big_split: bool  # every big segment holds a live tensor
    retries: int | None
    reserved_before_mib: float  # at the last checkpoint before the request
    released_some: bool  # reserved memory fell during the retry
    device_free_gib: float | None  # the GPU's free memory, as the message printed it
    cap_not_gpu: bool  # the GPU had room for the request: the cap refused it
    laptop_oom_request_mib: int
    laptop_oom_unallocated_mib: int
    unallocated_as_laptop: bool
    model_predicted_oom: bool
    model_oom_unallocated_mib: float | None
    # expandable segments
    expandable_ok: bool  # the request succeeded
    expandable_allocated_mib: float
    expandable_reserved_mib: float
    laptop_expandable_allocated_mib: int
    laptop_expandable_reserved_mib: int
    expandable_as_laptop: bool  # allocated and reserved both as the article's
    expandable_same_reserved: bool  # reserved as much as the default run before its request
    expandable_large_segments: int
    expandable_free_mib: float  # the largest free block left in the large pool
    # CUDA graph pools
    vllm_count: int
    vllm_max: int
    layers: int
    hidden: int
    inter: int
    weight_mib: float
    weight_matrices: int  # hidden x inter bf16 matrices: the up and the down projection of every layer
    graphs: int
    pools_seen: int
    pool_per_capture: bool
    step_min_mib: float
    step_max_mib: float
    step_median_mib: float
    separate_mib: float
    shared_mib: float
    shared_saves: bool
    smallest_batch: int
    smallest_step_mib: float
    smallest_output_kib: float
    largest_batch: int
    largest_step_mib: float
    # allocator.pools: a freed block's stream, a graph's pool after release, expandable pages, growing requests
    stream_small_kib: float  # the two request sizes tried, one per pool
    stream_large_mib: float
    stream_other_new: bool  # at both sizes another stream got other memory ...
    stream_same_reuses: bool  # ... and the freeing stream its block back
    pool_both_mib: float  # private-pool segments with the graph and its output alive, then the output alone, then
    pool_output_mib: float  # neither (memory_snapshot after empty_cache())
    pool_neither_mib: float
    pool_released: bool  # no private-pool segment left once both are gone
    pool_left_mib: float  # reserved then, above the reading before the capture
    pool_left: bool  # ... more than nothing
    pages_steps: int  # requests made under expandable_segments:True, each followed by a reading of reserved memory
    pages_whole: bool  # every step of reserved memory a whole number of its pool's page
    grow_bytes_mib: float  # one request that makes reserved memory grow
    grow_default_us: float  # its host time, median of the samples: the default allocator's cudaMalloc ...
    grow_expandable_us: float  # ... and expandable segments' new page
    grow_samples: int  # the fewer samples of the two
    grow_batch: int  # calls behind one sample: their median
    grow_quiet: bool  # both timings stopped quiet
    grow_order: Literal["slower", "faster", "overlap"]  # expandable against default, over every pair of samples


DIGITS = {  # the figures the page prints with decimals; every other number reads as a whole one
    "caching_bound_pct": 1, "cached_worst_us": 1, "uncached_alloc_low": 1, "uncached_alloc_high": 1,
    "uncached_free_low": 1, "uncached_free_high": 1,  # a column's ends, as its cells print them
    "cached_queued_free_us": 1, "cached_queued_alloc_us": 1, "uncached_queued_free_ms": 1,
    "grow_default_us": 1, "grow_expandable_us": 1, "msg_unallocated_mib": 2,
    **{c: 2 if c.startswith("cached_") else 1 for c in CELLS},  # as the caching table prints them: a cached
    "cached_alloc_us": 2, "cached_free_us": 2,  # call's two digits let a reader check the ratios to the uncached
}
FORMATS = {name: f"num:{DIGITS.get(name, 0)}" for name, kind in Facts.__annotations__.items()
           if kind.split(" |")[0] in ("int", "float")}

def _n(x: float | None, digits: int = 0) -> str:
    return page.num(x, digits)


NO_OOM = (lambda f: not f.oom, "the default allocator granted the fragmentation script's last request, so there was "
                               "no out-of-memory error to read")

GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "model_exact": Guard(
        "the model predicted every checkpoint measured",
        lambda f: f.model_exact,
        states=("at every checkpoint on this page",),
        found=lambda f: f"the model predicted {f.model_matched} of {f.model_points} checkpoints exactly"),
    "model_constants": Guard(
        "the model's constants are the article's reading of the rules",
        lambda f: f.model_as_article,
        states=("with the article's constants",),
        found=lambda f: "the model's constants differ from the article's reading of the rules"),
    "rules_hold": Guard(
        "every rule holds on the measured segments",
        lambda f: f.all_rules_hold,
        states=("every rule holds",),
        found=lambda f: f"{f.rules_failed} of {f.rules} rules failed on the measured segments"),
    "caching_pays": Guard(
        "cudaFree was slower than a cached free at every size",
        lambda f: f.caching_pays,
        states=("times as fast as",),
        found=lambda f: f"a cached free was {_n(f.free_ratio_low, 1)} to {_n(f.free_ratio_high, 1)} times as fast as "
                        "cudaFree"),
    "cells_noisy": Guard(
        "some timing of the caching table stayed noisy",
        lambda f: f.caching_noisy,
        states=("some timings stopped at the limit or the cap still noisy",),
        found=lambda f: f"every one of the caching table's {f.caching_cells} timings ended quiet"),
    "free_waits": Guard(
        "cudaFree waited for the queued GPU work",
        lambda f: f.uncached_free_waited,
        states=("it waited for the queue",),
        found=lambda f: f"behind {_n(f.queued_gpu_ms, 1)} ms of queued work, cudaFree took "
                        f"{_n(f.uncached_queued_free_ms, 1)} ms"),
    "laptop_waits": Guard(
        "the article's cudaFree waited for the queued work",
        lambda f: f.laptop_free_waited,
        states=("the article's laptop showed the same wait",),
        found=lambda f: "the article's cudaFree did not wait for the queued work"),
    "queued_alloc_slower": Guard(
        "the cached allocation was slower behind the queue than with the GPU idle",
        lambda f: f.cached_queued_alloc_slower,
        states=("the cached allocation was slower than with the GPU idle",),
        found=lambda f: f"behind the queue the cached allocation took {_n(f.cached_queued_alloc_us, 1)} µs, with the "
                        f"GPU idle at most {_n(f.cached_alloc_us, 2)} µs"),
    "cached_no_wait": Guard(
        "neither cached call waited for the queue",
        lambda f: not f.cached_queued_waited,
        states=("neither cached call waited",),
        found=lambda f: f"behind {_n(f.queued_gpu_ms, 1)} ms of queued work, a cached call took "
                        f"{_n(max(f.cached_queued_alloc_us, f.cached_queued_free_us) / 1e3, 1)} ms"),
    "streams_apart": Guard(
        "at both sizes another stream got other memory than the freed block",
        lambda f: f.stream_other_new,
        states=("the second stream got other memory",),
        found=lambda f: "another stream got the freed block back"),
    "stream_reuses": Guard(
        "at both sizes the freeing stream got its block back",
        lambda f: f.stream_same_reuses,
        states=("the default stream got the freed block back",),
        found=lambda f: "the freeing stream did not get its block back at every size"),
    "trap": Guard(
        "the default allocator refused the fragmentation script's last request",
        lambda f: f.oom,
        states=(("it failed as the laptop did", "request failed with"),),
        found=lambda f: "the default allocator granted the fragmentation script's last request",
        absent=NO_OOM),
    "steps_match": Guard(
        "every step before the request matched the article's allocated and reserved figures",
        lambda f: f.frag_all_as_laptop,
        states=("matched the article's laptop at every step",),
        found=lambda f: f"{f.frag_steps_as_laptop} of {f.frag_steps} steps matched the article's allocated and "
                        "reserved figures"),
    "cap_refused": Guard(
        "the GPU had room for the request: the cap refused it",
        lambda f: f.cap_not_gpu,
        states=(("the GPU had room to spare", "the GPU itself had plenty"),),
        found=lambda f: f"the GPU had {_n(f.device_free_gib, 1)} GiB free for the {_n(f.frag_request_mib)} MiB request",
        absent=NO_OOM),
    "holes_one_size": Guard(
        "the free holes in the split segments were all one size",
        lambda f: f.holes_one_size,
        states=("one size in every split segment",),
        found=lambda f: f"the free holes ran from {_n(f.hole_smallest_mib)} to {_n(f.hole_largest_mib)} MiB",
        absent=NO_OOM),
    "no_hole_fits": Guard(
        "no free hole was as large as the request",
        lambda f: f.no_hole_fits,
        states=(("none was big enough for the request", "in pieces too small for it"),),
        found=lambda f: f"a free hole of {_n(f.hole_largest_mib)} MiB was as large as the {_n(f.frag_request_mib)} MiB "
                        "request",
        absent=NO_OOM),
    "retry_released": Guard(
        "reserved memory fell during the retry",
        lambda f: f.released_some,
        states=("how little that gave back",),
        found=lambda f: f"the retry gave nothing back: {_n(f.oom_reserved_mib)} MiB stayed reserved",
        absent=NO_OOM),
    "every_big_split": Guard(
        "every big segment held a live tensor",
        lambda f: f.every_big_split,
        states=("every big segment held a live tensor",),
        found=lambda f: f"{f.split_segments} of the {f.frag_count} big segments held a live tensor",
        absent=NO_OOM),
    "covers_request": Guard(
        "the unallocated memory at the error was at least the request",
        lambda f: f.free_covers_request,
        states=(("more memory free than it asked for", "MiB free in the cache"),),
        found=lambda f: f"{_n(f.oom_unallocated_mib)} MiB lay free in the cache for a {_n(f.frag_request_mib)} MiB "
                        "request",
        absent=NO_OOM),
    "summary_matches": Guard(
        "the memory summary's Non-releasable row equals the allocator's inactive-split counter",
        lambda f: f.summary_matches_stat,
        states=("it equalled the inactive-split bytes",),
        found=lambda f: f"the Non-releasable row read {_n(f.nonreleasable_mib)} MiB, the inactive-split counter "
                        f"{_n(f.inactive_split_mib)} MiB",
        absent=NO_OOM),
    "expandable_ok": Guard(
        "with expandable segments the request succeeded",
        lambda f: f.expandable_ok,
        states=(("the same request succeeded", "the request succeeded"),),
        found=lambda f: "with expandable segments the request failed too"),
    "expandable_as_laptop": Guard(
        "with expandable segments the run ended at the article's allocated and reserved figures",
        lambda f: f.expandable_as_laptop,
        states=("ended at the article's allocated and reserved figures",),
        found=lambda f: f"with expandable segments the run ended at {_n(f.expandable_allocated_mib)} MiB allocated and "
                        f"{_n(f.expandable_reserved_mib)} MiB reserved, the article's at "
                        f"{_n(f.laptop_expandable_allocated_mib)} and {_n(f.laptop_expandable_reserved_mib)} MiB"),
    "same_reserved": Guard(
        "with expandable segments as much was reserved as the default run held before the request",
        lambda f: f.expandable_same_reserved,
        states=("reserved no more memory than the default allocator held before its request",),
        found=lambda f: f"with expandable segments {_n(f.expandable_reserved_mib)} MiB was reserved, the default run "
                        f"held {_n(f.reserved_before_mib)} MiB before its request"),
    "one_segment": Guard(
        "with expandable segments the large pool ended as one segment",
        lambda f: f.expandable_large_segments == 1,
        states=("the large pool was a single segment",),
        found=lambda f: f"with expandable segments the large pool ended as {f.expandable_large_segments} segments"),
    "pages_whole": Guard(
        "every step of reserved memory under expandable segments was a whole number of pages",
        lambda f: f.pages_whole,
        states=("every step was a whole number of its pool's pages",),
        found=lambda f: "some step of reserved memory under expandable segments was not a whole number of pages"),
    "grow_overlap": Guard(
        "the growing request's samples with and without expandable segments overlap",
        lambda f: f.grow_order == "overlap",
        states=("the two sets of samples overlap",),
        found=lambda f: f"mapping a new page ({_n(f.grow_expandable_us)} µs) was {f.grow_order} than a cudaMalloc "
                        f"({_n(f.grow_default_us)} µs) in every sample"),
    "grow_noisy": Guard(
        "at least one of the two growing-request timings stayed noisy",
        lambda f: not f.grow_quiet,
        states=("at least one timing was still noisy",),
        found=lambda f: "both growing-request timings ended quiet"),
    "pool_per_capture": Guard(
        "the snapshot holds one private pool per captured graph",
        lambda f: f.pool_per_capture,
        states=("every capture gets a private pool",),
        found=lambda f: f"the snapshot held {f.pools_seen} private pools for {f.graphs} graphs"),
    "shared_saves": Guard(
        "one shared pool reserved less than the private pools",
        lambda f: f.shared_mib < f.separate_mib,
        states=("a shared pool helps",),
        found=lambda f: f"one shared pool reserved {_n(f.shared_mib)} MiB, a pool each {_n(f.separate_mib)} MiB"),
    "pool_released": Guard(
        "the graph's private pool was empty once the graph and its output were gone",
        lambda f: f.pool_released,
        states=("nothing once the output was gone too",),
        found=lambda f: f"the graph's private pool still held {_n(f.pool_neither_mib)} MiB once the graph and its "
                        "output were gone"),
}

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


def _by_size(f: Facts, who: str, op: str) -> list[float]:
    return [getattr(f, cell(who, op, n)) for n in CACHING_SIZES]


def _over_sizes(c_alloc: list[float], c_free: list[float], u_alloc: list[float], u_free: list[float],
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


def _caching(cach: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
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
        **_over_sizes(sizes["cached"]["alloc"], sizes["cached"]["free"], sizes["uncached"]["alloc"],
                      sizes["uncached"]["free"], cq["alloc_us"]),
        cached_worst_us=max(max(s["alloc_us_max"], s["free_us_max"]) for s in c["sizes"]),
        cached_reps=min(s["reps"] for s in c["sizes"]), uncached_reps=min(s["reps"] for s in u["sizes"]),
        queued_reps=min(len(cq["free_us_all"]), len(u["queued"]["free_us_all"])),
        caching_batch=min(s["batch"] for s in c["sizes"] + u["sizes"]), caching_min_samples=bench.MIN_SAMPLES,
        caching_bound_pct=bench.BOUND_PCT, caching_cap_s=CACHING_CAP_S, caching_max_samples=bench.MAX_SAMPLES,
        caching_cells=len(cells := _cells(c) + _cells(u)), caching_quiet_cells=sum(t["quiet"] for t in cells),
        caching_at_limit=sum(t["stopped"] == "limit" for t in cells),
        caching_at_cap=sum(t["stopped"] == "cap" for t in cells),
        caching_noisy=not all(t["quiet"] for p in (c, u) for t in _cells(p)),
        queued_gpu_ms=u["queued"]["gpu_ms"], uncached_queued_free_ms=u["queued"]["free_us"] / 1e3,
        uncached_free_waited=waited, cached_queued_free_us=cq["free_us"], cached_queued_alloc_us=cq["alloc_us"],
        cached_queued_waited=max(cq["alloc_us"], cq["free_us"]) >= WAITED * cq["gpu_ms"] * 1e3,
        laptop_free_waited=laptop["uncached_free_waited_for_queued_work"],
        waited_as_laptop=waited == laptop["uncached_free_waited_for_queued_work"],
    )


def _rules(seg: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
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


def _fragmentation(frag: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
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


def _graph_pools(g: dict[str, Any]) -> dict[str, Any]:
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


def _pools(p: dict[str, Any]) -> dict[str, Any]:
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


def from_data(caching: dict[str, Any], segments: dict[str, Any], fragmentation: dict[str, Any],
              graph_pools: dict[str, Any], pools: dict[str, Any], laptop_caching: dict[str, Any],
              laptop_segments: dict[str, Any],
              laptop_fragmentation: dict[str, Any], gpu: str, caching_runs: int = 1) -> Facts:
    frag_points = [all(ok.values()) for k in ("default", "expandable") for ok in fragmentation[k]["match"]]
    seg_points = [all(ok.values()) for c in segments["cases"] for ok in c["match"]]
    points = seg_points + frag_points
    return Facts(
        gpu=gpu, caching_runs=caching_runs, model_points=len(points), model_matched=sum(points),
        model_exact=all(points),
        **_caching(caching, laptop_caching), **_rules(segments, laptop_segments),
        **_fragmentation(fragmentation, laptop_fragmentation), **_graph_pools(graph_pools), **_pools(pools),
    )


def facts(machine: str | None = None) -> Facts:
    r = page.result("allocator.fragmentation", machine)
    load = {name: page.result(f"allocator.{name}", machine).data
            for name in ("caching", "segments", "graph_pools", "pools")}
    laptop = {f"laptop_{name}": page.result(f"allocator.{name}", LAPTOP).data
              for name in ("caching", "segments", "fragmentation")}
    return from_data(fragmentation=r.data, **load, **laptop, gpu=page.machine_label(r),
                     caching_runs=len(across.datas("allocator.caching", machine)))


def derive(f: Facts) -> dict[str, Any]:
    """The caching figures read over the sizes, again from each size's medians across runs (the caching table's
    cells): the range of a column, the slowest size, the ratio of two cells of a row."""
    return _over_sizes(*(_by_size(f, who, op) for who in ("cached", "uncached") for op in ("alloc", "free")),
                       f.cached_queued_alloc_us)


_COLUMNS = {who_op: tuple(c for c in CELLS if c.startswith(who_op + "_"))
            for who_op in ("cached_alloc", "cached_free", "uncached_alloc", "uncached_free")}
DERIVED_FROM = {  # the numbers derive() computes again -> the medians it computes them from
    "cached_alloc_us": _COLUMNS["cached_alloc"], "cached_free_us": _COLUMNS["cached_free"],
    **{f"uncached_{op}_{end}": _COLUMNS[f"uncached_{op}"] for op in ("alloc", "free") for end in ("low", "high")},
    **{f"free_ratio_{end}": _COLUMNS["uncached_free"] + _COLUMNS["cached_free"] for end in ("low", "high")},
    "uncached_free_slowest": _COLUMNS["uncached_free"],
}
