"""The ledger's rows for Step 5 of the article: the caching allocator, its rules, fragmentation, expandable
segments and the private pools of CUDA graphs."""

from __future__ import annotations

from .data import STEP5, MiB, holes, oom_point, pairs, rules
from .verdicts import exact, relation, unmeasured

CA, SE, FR, GP = "allocator.caching", "allocator.segments", "allocator.fragmentation", "allocator.graph_pools"
PO = "allocator.pools"


def _rule(*names: str):
    """The named rules of allocator/checks.py, all obeyed by the measured segments."""
    return lambda d: all(rules(d)[n] for n in names)


def _obeyed(*names: str):
    return lambda d: "obeyed" if _rule(*names)(d) else "broken"


def _alloc_gaps(d) -> list[float]:
    """Uncached minus cached allocation, µs, at each size: the two extreme pairs of samples (every other pair lies
    between them). A run from before the samples were stored: cudaMalloc's median minus the slowest cached call."""
    gaps = []
    for c, u in zip(d[CA]["cached"]["sizes"], d[CA]["uncached"]["sizes"], strict=True):
        if "alloc" in c and "alloc" in u:
            cv, uv = c["alloc"]["values"], u["alloc"]["values"]
            gaps += [min(uv) - max(cv), max(uv) - min(cv)]
        else:
            gaps.append(u["alloc_us"] - c["alloc_us_max"])
    return gaps


def _queued(d, way: str) -> dict:
    return d[CA][way]["queued"]


def _frag(d, way: str = "default") -> list:
    return d[FR][way]["checkpoints"]


def _freed_mib(d) -> int:
    return (oom_point(d)["reserved"] - oom_point(d)["allocated"]) // MiB


def _tried_mib(d) -> int:
    return ((oom_point(d)["error"] or {}).get("parsed") or {}).get("tried", 0) // MiB


def _per_pool(cp) -> int:
    pools = [s["pool"] for s in cp["segments"]]
    return max(pools.count(p) for p in set(pools)) if pools else 0


def _quiet(d, call):
    """Every size's `call` timings (alloc or free), with the cache and without, stopped quiet (a run from before
    the samples were stored counts as quiet)."""
    return all(s.get(call, {}).get("quiet", True) for p in ("cached", "uncached") for s in d[CA][p]["sizes"])


def _streams(d) -> bool:
    """At every size: the other stream got other memory, the first stream its freed block back."""
    return all(not s["other_stream_reuses"] and s["same_stream_reuses"] for s in d[PO]["streams"]["sizes"])


def _streams_cell(d) -> str:
    size = lambda b: f"{b // MiB:,} MiB" if b >= MiB else f"{b // 1024:,} KiB"  # noqa: E731
    cells = [f"{size(s['bytes'])}: other stream {'reuses' if s['other_stream_reuses'] else 'new block'}, "
             f"same stream {'reuses' if s['same_stream_reuses'] else 'new block'}" for s in d[PO]["streams"]["sizes"]]
    return "; ".join(cells)


def _pool_held(d) -> bool:
    """Private-pool segments held while the graph and its output live, and while the output alone does; none once
    both are gone (each reading after empty_cache())."""
    p = d[PO]["graph_pool"]["private"]
    return p["graph_and_output"] > 0 and p["output_only"] > 0 and p["neither"] == 0


def _pool_cell(d) -> str:
    g = d[PO]["graph_pool"]
    mib = [g["private"][k] / MiB for k in ("graph_and_output", "output_only", "neither")]
    above = (g["neither"] - g["base_reserved"]) / MiB
    return (f"private pool {mib[0]:,.0f} MiB with both, {mib[1]:,.0f} with the output alone, {mib[2]:,.0f} with "
            f"neither (reserved then {above:+,.0f} MiB against before the capture)")


def _pages(d) -> bool:
    """Every step of reserved memory a whole number of its pool's pages, and each pool grown at least once."""
    ex = d[PO]["expandable"]
    steps = ex["steps"]
    whole = all(s["step"] >= 0 and s["step"] % ex["page"][s["pool"]] == 0 for s in steps)
    return whole and all(any(s["step"] > 0 for s in steps if s["pool"] == p) for p in ("small", "large"))


def _pages_cell(d) -> str:
    ex = d[PO]["expandable"]
    grown = {p: sorted({s["step"] // MiB for s in ex["steps"] if s["pool"] == p and s["step"]})
             for p in ("small", "large")}
    return "; ".join(f"{p} pool grew by {', '.join(map(str, v))} MiB" for p, v in grown.items())


def _grow(d, way: str) -> dict:
    return d[PO]["grow"][way]["grow_us"]


ROWS = (
    relation("cache-alloc-faster", STEP5, "allocator.md", "The caching allocator makes allocations faster",
             "at every size, every sample with the cache beats every sample without it", needs=(CA,),
             quiet=lambda d: _quiet(d, "alloc"),
             rounds=_alloc_gaps,
             laptop=lambda p: "stated",
             ours=lambda d: f"{d[CA]['cached']['sizes'][0]['alloc_us']:.1f} vs "
                            f"{d[CA]['uncached']['sizes'][0]['alloc_us']:.1f} µs at "
                            f"{d[CA]['cached']['sizes'][0]['bytes']:,} B"),
    exact("cudafree-waits", STEP5, "allocator.md",
          "Without the cache, cudaFree waits for the GPU work queued before it",
          "every uncached free behind queued work lasts at least 90% of that work", needs=(CA,),
          value=lambda d: min(_queued(d, "uncached")["free_us_all"]) / 1e3 >= 0.9 * _queued(d, "uncached")["gpu_ms"],
          laptop=lambda p: "it waited" if p[CA]["uncached_free_waited_for_queued_work"] else "no wait",
          ours=lambda d: f"{_queued(d, 'uncached')['free_us'] / 1e3:.2f} ms behind "  # to the hundredth: the gap
                         f"{_queued(d, 'uncached')['gpu_ms']:.2f} ms of work"),  # between them reads from them
    relation("cached-free-returns", STEP5, "allocator.md",
             "With the cache, a free behind queued work returns at once: a pool operation of microseconds",
             "every sample shorter than the queued work", needs=(CA,),
             quiet=lambda d: _queued(d, "cached")["free"]["quiet"],
             rounds=lambda d: pairs([_queued(d, "cached")["gpu_ms"] * 1e3], _queued(d, "cached")["free_us_all"]),
             laptop=lambda p: "stated",
             ours=lambda d: f"{_queued(d, 'cached')['free_us']:.1f} µs behind {_queued(d, 'cached')['gpu_ms']:.2f} ms"),
    exact("rule-rounding", STEP5, "allocator.md", "Every request is rounded up to a multiple of 512 bytes",
          "every measured allocation", needs=(SE,), value=_rule("a request rounds up to a multiple of 512 bytes"),
          laptop=lambda p: f"{p[SE]['rounding_bytes']} B",
          ours=_obeyed("a request rounds up to a multiple of 512 bytes")),
    exact("rule-small", STEP5, "allocator.md", "Requests up to 1 MiB share 2 MiB segments",
          "small pool, 2 MiB segments, shared until full", needs=(SE,),
          value=_rule("up to 1 MiB: small pool, 2 MiB segments", "small requests share a segment until it is full"),
          laptop=lambda p: f"≤ {p[SE]['small_max_mib']} MiB in {p[SE]['small_segment_mib']} MiB",
          ours=_obeyed("up to 1 MiB: small pool, 2 MiB segments", "small requests share a segment until it is full")),
    exact("rule-mid", STEP5, "allocator.md", "Requests over 1 and under 10 MiB split a 20 MiB segment",
          "a 20 MiB segment, split and shared until full", needs=(SE,),
          value=_rule("over 1 MiB and under 10 MiB: a 20 MiB segment, split",
                      "such requests share a 20 MiB segment until it is full"),
          laptop=lambda p: f"< {p[SE]['mid_max_mib']} MiB in {p[SE]['mid_segment_mib']} MiB",
          ours=_obeyed("over 1 MiB and under 10 MiB: a 20 MiB segment, split",
                       "such requests share a 20 MiB segment until it is full")),
    exact("rule-large", STEP5, "allocator.md", "From 10 MiB up, each request gets its own segment, in 2 MiB steps",
          "every measured large request", needs=(SE,),
          value=_rule("from 10 MiB: a segment of its own, rounded up to 2 MiB"),
          laptop=lambda p: f"rounded to {p[SE]['large_round_mib']} MiB",
          ours=_obeyed("from 10 MiB: a segment of its own, rounded up to 2 MiB")),
    exact("rule-split", STEP5, "allocator.md",
          "A request smaller than a cached free block is served by splitting that block",
          "100 MiB freed, then 60 MiB: served from the same segment", needs=(SE,),
          value=_rule("a cached free block serves a smaller request by splitting"), laptop=lambda p: "stated",
          ours=_obeyed("a cached free block serves a smaller request by splitting")),
    exact("stream-tag", STEP5, "allocator.md",
          "A freed block returns to the pool tagged with its stream; the next request on that stream reuses it at once",
          "freed on one stream: the same size on another stream gets a new block, on the first the freed one",
          needs=(PO,), value=_streams, laptop=lambda p: "stated", ours=_streams_cell),
    exact("rule-empty-cache", STEP5, "allocator.md",
          "empty_cache() returns a segment to CUDA only when no live block is left in it",
          "a segment with a live block kept, an empty one released", needs=(SE,),
          value=_rule("empty_cache releases only segments with nothing alive"), laptop=lambda p: "stated",
          ours=_obeyed("empty_cache releases only segments with nothing alive")),
    unmeasured("smi-reserved", STEP5, "allocator.md", "nvidia-smi shows the reserved figure, not the allocated one",
               "nvidia-smi's used memory read beside memory_reserved() at each checkpoint",
               laptop=lambda p: "stated"),
    exact("frag-steps", STEP5, "allocator.md",
          "Sixteen 120 MiB tensors, freed, then sixteen of 64 MiB: 1,920, 0 and 1,024 MiB allocated, 1,922 reserved",
          "the same MiB at each checkpoint", needs=(FR,),
          value=lambda d: [(c["allocated"] // MiB, c["reserved"] // MiB) for c in _frag(d)[:3]],
          article=lambda p: [(c["allocated"], c["reserved"]) for c in p[FR]["checkpoints_mib"]],
          laptop=lambda p: ", ".join(f"{c['allocated']:,}/{c['reserved']:,}" for c in p[FR]["checkpoints_mib"]),
          ours=lambda d: ", ".join(f"{c['allocated'] // MiB:,}/{c['reserved'] // MiB:,}" for c in _frag(d)[:3])),
    exact("oom", STEP5, "allocator.md",
          "A 200 MiB request then fails with 896 MiB reserved but unallocated",
          "out of memory, with the same free MiB", needs=(FR,),
          value=lambda d: (bool(oom_point(d)["error"]), _tried_mib(d), _freed_mib(d)),
          article=lambda p: (True, p[FR]["oom_request_mib"], p[FR]["oom_unallocated_mib"]),
          laptop=lambda p: f"out of memory, {p[FR]['oom_unallocated_mib']} MiB free",
          ours=lambda d: f"{'out of memory' if oom_point(d)['error'] else 'served'}, {_freed_mib(d)} MiB free"),
    exact("oom-holes", STEP5, "allocator.md", "That free memory lies in sixteen 56 MiB holes",
          "the same holes", needs=(FR,), value=lambda d: sorted(h // MiB for h in holes(d)),
          article=lambda p: [p[FR]["oom_hole_mib"]] * p[FR]["oom_holes"],
          laptop=lambda p: f"{p[FR]['oom_holes']} × {p[FR]['oom_hole_mib']} MiB",
          ours=lambda d: f"{len(holes(d))} × {max(holes(d), default=0) // MiB} MiB"),
    exact("oom-retry", STEP5, "allocator.md",
          "The retry after a failed cudaMalloc can only release unsplit blocks, and every segment still holds a "
          "live tensor",
          "a retry counted, and a live block in every segment left", needs=(FR,),
          value=lambda d: bool(oom_point(d)["error"]) and oom_point(d)["error"].get("num_alloc_retries", 0) >= 1
          and all(any(b[1] == "alloc" for b in s["blocks"]) for s in oom_point(d)["segments"]),
          laptop=lambda p: "stated",
          ours=lambda d: f"{(oom_point(d)['error'] or {}).get('num_alloc_retries', 0)} retry, "
                         f"{len(oom_point(d)['segments'])} segments in use"),
    exact("inactive-split", STEP5, "allocator.md", "memory_summary() counts those 896 MiB as inactive split",
          "the same MiB", needs=(FR,), value=lambda d: oom_point(d)["inactive_split"] // MiB,
          article=lambda p: p[FR]["inactive_split_mib"], laptop=lambda p: f"{p[FR]['inactive_split_mib']} MiB",
          ours=lambda d: f"{oom_point(d)['inactive_split'] // MiB} MiB"),
    exact("expandable", STEP5, "allocator.md",
          "Under expandable_segments:True nothing fails: 1,224 MiB end up allocated within 1,922 MiB reserved",
          "no error, the same MiB", needs=(FR,),
          value=lambda d: (not _frag(d, "expandable")[-1]["error"], _frag(d, "expandable")[-1]["allocated"] // MiB,
                           _frag(d, "expandable")[-1]["reserved"] // MiB),
          article=lambda p: (True, p[FR]["expandable_allocated_mib"], p[FR]["expandable_reserved_mib"]),
          laptop=lambda p: f"{p[FR]['expandable_allocated_mib']:,} MiB in {p[FR]['expandable_reserved_mib']:,}",
          ours=lambda d: f"{_frag(d, 'expandable')[-1]['allocated'] // MiB:,} MiB in "
                         f"{_frag(d, 'expandable')[-1]['reserved'] // MiB:,}"),
    exact("expandable-grows", STEP5, "allocator.md",
          "With expandable segments one segment per stream grows instead of new ones being made (one stream here: "
          "one segment in each of its pools)",
          "at most one segment per pool at every checkpoint", needs=(FR,),
          value=lambda d: all(_per_pool(c) <= 1 for c in _frag(d, "expandable")), laptop=lambda p: "stated",
          ours=lambda d: f"at most {max(_per_pool(c) for c in _frag(d, 'expandable'))} per pool"),
    exact("expandable-pages", STEP5, "allocator.md",
          "An expandable segment grows in pages of 2 MiB (small pool) or 20 MiB (large pool)",
          "every step of reserved memory a whole number of its pool's page, both pools grown", needs=(PO,),
          value=_pages, laptop=lambda p: "stated", ours=_pages_cell),
    unmeasured("expandable-sharing", STEP5, "allocator.md",
               "Sharing expandable segments' memory between processes takes extra steps",
               "a CUDA tensor passed to another process through torch.multiprocessing, with and without "
               "expandable segments"),
    relation("expandable-cost", STEP5, "allocator.md", "Expandable segments make first allocations slower",
             "a 20 MiB request that grows reserved memory: every sample with expandable segments slower than every "
             "sample without", needs=(PO,),
             quiet=lambda d: _grow(d, "default")["quiet"] and _grow(d, "expandable")["quiet"],
             rounds=lambda d: [min(_grow(d, "expandable")["values"]) - max(_grow(d, "default")["values"]),
                               max(_grow(d, "expandable")["values"]) - min(_grow(d, "default")["values"])],
             laptop=lambda p: "stated",
             ours=lambda d: f"{_grow(d, 'expandable')['median']:.1f} vs {_grow(d, 'default')['median']:.1f} µs"),
    exact("graph-pools", STEP5, "allocator.md", "Each CUDA graph capture gets a private memory pool",
          "one pool seen per captured size", needs=(GP,),
          value=lambda d: d[GP]["private_pools_seen"] == len(d[GP]["sizes"]), laptop=lambda p: "stated",
          ours=lambda d: f"{d[GP]['private_pools_seen']} pools for {len(d[GP]['sizes'])} sizes"),
    exact("graph-pool-held", STEP5, "allocator.md",
          "A graph's private pool stays reserved until the graph and its output tensors are gone",
          "private-pool segments held with the graph or its output alive, none with neither (after empty_cache())",
          needs=(PO,), value=_pool_held, laptop=lambda p: "stated", ours=_pool_cell),
    relation("graph-pools-cost", STEP5, "allocator.md", "Every captured batch size costs memory of its own",
             "each capture adds reserved memory", needs=(GP,),
             rounds=lambda d: [float(x) for x in d[GP]["separate_steps"]], laptop=lambda p: "stated",
             ours=lambda d: f"{(d[GP]['separate_reserved'][-1] - d[GP]['base_reserved']) / MiB:,.0f} MiB for "
                            f"{len(d[GP]['sizes'])} sizes"),
)
