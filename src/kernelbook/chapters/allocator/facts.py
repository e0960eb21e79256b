"""The numbers and verdicts of docs/allocator.md, from allocator.caching, .segments, .fragmentation, .graph_pools and
.pools on one machine, with the article's RTX 4060 Laptop records beside them.

No sentence is written here: the page's Markdown reads these fields (`{{ f.oom_unallocated_mib }}`, in the digits
FORMATS gives), and its paragraphs name the GUARDS (allocator.guards), the verdicts they are written for. Sizes are
in MiB (KiB, GiB where the name says so), times in µs unless the name says ms. The fields are computed in
allocator.figures, with the thresholds its verdicts use (WAITED, SHARED_SAVES).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, read
from kernelbook.chapters.allocator import figures
from kernelbook.chapters.allocator.figures import CACHING_SIZES, SIZE_KEYS, cell

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
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
    caching_noisy_cells: int  # ... those that stopped at the sample limit or the time cap still noisy
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
        **figures.caching(caching, laptop_caching), **figures.rules(segments, laptop_segments),
        **figures.fragmentation(fragmentation, laptop_fragmentation), **figures.graph_pools(graph_pools),
        **figures.pools(pools),
    )


def facts(machine: str | None = None) -> Facts:
    r = read.result("allocator.fragmentation", machine)
    load = {name: read.result(f"allocator.{name}", machine).data
            for name in ("caching", "segments", "graph_pools", "pools")}
    laptop = {f"laptop_{name}": read.result(f"allocator.{name}", LAPTOP).data
              for name in ("caching", "segments", "fragmentation")}
    return from_data(fragmentation=r.data, **load, **laptop, gpu=read.machine_label(r),
                     caching_runs=len(across.datas("allocator.caching", machine)))


def derive(f: Facts) -> dict[str, Any]:
    """The caching figures read over the sizes, again from each size's medians across runs (the caching table's
    cells): the range of a column, the slowest size, the ratio of two cells of a row."""
    return figures.over_sizes(*([getattr(f, cell(who, op, n)) for n in CACHING_SIZES]
                                for who in ("cached", "uncached") for op in ("alloc", "free")),
                              f.cached_queued_alloc_us)


_COLUMNS = {who_op: tuple(c for c in CELLS if c.startswith(who_op + "_"))
            for who_op in ("cached_alloc", "cached_free", "uncached_alloc", "uncached_free")}
DERIVED_FROM = {  # the numbers derive() computes again -> the medians it computes them from
    "cached_alloc_us": _COLUMNS["cached_alloc"], "cached_free_us": _COLUMNS["cached_free"],
    **{f"uncached_{op}_{end}": _COLUMNS[f"uncached_{op}"] for op in ("alloc", "free") for end in ("low", "high")},
    **{f"free_ratio_{end}": _COLUMNS["uncached_free"] + _COLUMNS["cached_free"] for end in ("low", "high")},
    "uncached_free_slowest": _COLUMNS["uncached_free"],
}
