"""What docs/allocator.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test of
the chapter's facts (allocator.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.guards import Guard


def _n(x: float | None, digits: int = 0) -> str:
    return fmt.num(x, digits)


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
        states=("timings stopped at the limit or the cap still",),
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
