"""Speed of light: the method that holds a fused kernel to a copy that moves exactly its bytes, shared by the
add+RMSNorm (add_rmsnorm.py), SwiGLU (swiglu.py) and other-designs (designs.py) experiments.

At each shape every version is timed in the same process, in interleaved rounds, beside the same-bytes copy (the
ceiling: the fused kernel's inputs read and its outputs written, in one launch). The copy's block size and warps,
and each kernel's configuration, are swept once; the FINALISTS fastest of each sweep go into the rounds, and the
fastest there is the one reported, so neither side wins by one lucky sweep timing. Every round draws fresh inputs
and outputs at new addresses, shared by all versions in it: in a probe on the H200 (8192 x 8192), six placements
moved the copy from 130.7 to 132.4 us while timings of one placement stayed within 0.2 us, so a median over one
placement is one draw. Every version is timed replayed from a CUDA graph, so host overhead is left out: large shapes
one call per graph with L2 cleared before each replay (do_bench), small ones (the decode case) GRAPH_CALLS launches
per graph.

The rounds stop on bench.py's noise criterion: they go on until every version's times over the rounds are quiet
(relative standard deviation at most bench.BOUND_PCT over at least MIN_ROUNDS rounds), or until the shape's cap:
CAP_S seconds of rounds or MAX_ROUNDS rounds, whichever comes first. Every round is one more placement, so a
version's noise here is where its buffers land as well as the clock; a version whose time moves with its placement
by more than the bound stays noisy at the cap, is stored as not quiet, and the page says so. The cap keeps each
experiment inside its registry timeout: at least MIN_ROUNDS rounds of some twenty versions at each of twenty shapes
(add_rmsnorm.py) cost about half what five rounds did at the longer do_bench repetitions used before (REP_MS), so
CAP_S leaves room for a few more rounds where a shape is still noisy, not for MAX_ROUNDS everywhere.

Placements are kept in a bounded pool. An open number of rounds cannot each keep buffers of their own to the end:
at 32,768 x 16,384 bf16 one placement (two inputs, two outputs) is 4 GiB. Freeing the oldest would not help: the
caching allocator hands the freed block straight back, at the same address, so the new round would not be a new
placement at all. So the pool holds as many placements as fit in POOL_BYTES (at most MAX_ROUNDS), each allocated
when its first round comes and kept to the end, and round i runs on placement i modulo the pool's size: every round
has buffers no other round used until the pool is full (up to the largest shapes, all of them), and after that the
rounds cycle through the same distinct placements, each drawn as often as the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from triton.testing import do_bench

from kernelbook.bench import BOUND_PCT, MIN_SAMPLES, rounds_until_quiet
from kernelbook.copy_ceiling import GIB, copy_bandwidth

LARGE_ROWS = (8192, 32768)
MIN_ROUNDS = MIN_SAMPLES  # rounds go on until every version is quiet (bench.py), at least this many
MAX_ROUNDS = 20  # ... and at most this many at one shape
CAP_S = 10.0  # ... or until this many seconds of rounds at one shape (the minimum of rounds is always run)
POOL_BYTES = 40 * GIB  # the placements kept alive at one shape: 10 of the largest (4 GiB each), more of the rest
# do_bench's (warmup, repetition) per sample, ms, by small: a sample is one version on one placement, and its
# within-placement scatter (0.2 us of 130 in the probe above) is far below the placements' own, so repetitions a
# fifth of those used before (25, 100 and 10, 50) buy the rounds that the noise criterion asks for. At the largest
# shape (4 GiB moved, about 1 ms a call) 20 ms is still some twenty calls; at the smallest, hundreds
REP_MS = {False: (5, 20), True: (3, 10)}
GRAPH_CALLS = 50  # launches captured per graph for the small shapes
COPY_CONFIGS = [(b, w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
# fastest configurations of a sweep that are timed again in the rounds. One sweep timing is one placement: at
# 8192 x 16384 a sweep put (1, 32, h early, w first) 1.0 us behind (2, 32, h early), a probe's rounds 1.5 us ahead
FINALISTS = 5
TIMING = {False: "graph, L2 cleared", True: f"graph of {GRAPH_CALLS}"}  # how a shape is timed, by small


def make_timer(small: bool) -> Callable[[Callable[[], Any]], float]:
    """ms per call of fn, replayed from a CUDA graph so that no version pays for its host side (Python, guards,
    launch): a slow host would otherwise leave the GPU idle between the timer's events. Large shapes: one call per
    graph, do_bench's median with L2 cleared before every replay. Small ones: GRAPH_CALLS launches per graph.
    do_bench warms up and repeats for REP_MS[small]."""
    calls = GRAPH_CALLS if small else 1
    warmup, rep = REP_MS[small]

    def graphed(fn: Callable[[], Any]) -> float:
        fn()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
        return do_bench(g.replay, warmup=warmup, rep=rep, return_mode="median") / calls

    return graphed


def sweep_configs(timer: Callable, candidates: dict[Any, Callable[[], Any]]) -> tuple[list[Any], dict[str, float]]:
    """Each configuration timed once; returns the FINALISTS fastest (fastest first) and every time by str(config)."""
    times = {str(k): timer(fn) for k, fn in candidates.items()}
    return sorted(candidates, key=lambda k: times[str(k)])[:FINALISTS], times


def pick(timed: dict[str, dict[str, Any]], names: dict[Any, str], as_name: str) -> tuple[Any, dict[str, Any]]:
    """Of the finalists timed in the rounds (config -> version name), keep the fastest median under as_name and
    move all of them out of the versions; returns its config and the finalists' rounds by str(config)."""
    rounds = {c: timed.pop(n) for c, n in names.items()}
    best = min((c for c in rounds if "ms" in rounds[c]), key=lambda c: rounds[c]["ms"])
    timed[as_name] = dict(rounds[best])
    return best, {str(c): v for c, v in rounds.items()}


def listed_first(timed: dict[str, Any], *names: str) -> dict[str, Any]:
    """The versions with names first, in that order (tables and figures list them as stored)."""
    return {**{n: timed[n] for n in names}, **{k: v for k, v in timed.items() if k not in names}}


# --8<-- [start:rounds]
def interleaved_rounds(timer: Callable, place: Callable[[int], dict[str, Callable[[], Any]]],
                       cap_s: float = CAP_S, max_rounds: int = MAX_ROUNDS, pool_bytes: int = POOL_BYTES,
                       clock: Callable[[], float] | None = None) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Each version once per round, rounds interleaved, so drift hits all alike, until every version is quiet
    (bench.rounds_until_quiet) or the cap. place(i) gives placement i's versions on fresh buffers; the pool keeps
    as many placements as fit in pool_bytes (the first one's size measured), each made when its first round comes,
    and round i runs on placement i modulo the pool. Failures are recorded, not raised, and not timed again.
    Returns ({version: bench.quiet_summary with "ms", its median} or {"error"}, how the rounds stopped)."""
    pool: list[dict[str, Callable[[], Any]]] = []
    size = max_rounds
    errors: dict[str, str] = {}

    def one_round(i: int) -> dict[str, float]:
        nonlocal size
        if i < size and i == len(pool):
            before = torch.cuda.memory_allocated() if torch.cuda.is_available() else 0
            pool.append(place(i))
            if i == 0 and torch.cuda.is_available():  # one placement's bytes: the pool's size
                size = max(1, min(max_rounds, pool_bytes // max(1, torch.cuda.memory_allocated() - before)))
        times = {}
        for name, fn in pool[i % size].items():
            if name in errors:
                continue
            try:
                times[name] = timer(fn)
            except Exception as e:  # a version that cannot run here (e.g. capture refused) is shown as such
                errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        return times

    q = rounds_until_quiet(one_round, BOUND_PCT, MIN_ROUNDS, cap_s, max_rounds, **({"clock": clock} if clock else {}))
    out = {k: {"ms": v["median"], **v} for k, v in q.pop("versions").items() if k not in errors}
    out.update({k: {"error": e} for k, e in errors.items()})
    return out, {**q, "max_rounds": max_rounds, "placements": len(pool)}
# --8<-- [end:rounds]


def against_copy(timed: dict[str, dict[str, Any]], nbytes: int) -> dict[str, dict[str, Any]]:
    """Adds each timed version's effective GB/s (the fused kernel's bytes over its time) and its share of the
    same-bytes copy timed in the same rounds."""
    ceiling = timed["copy"]["ms"]
    for v in timed.values():
        if "ms" in v:
            v["gbps"] = nbytes / (v["ms"] * 1e-3) / 1e9
            v["share_of_copy"] = ceiling / v["ms"]
    return timed


def across_shapes(shape_fn: Callable, fn: Callable, widths: tuple[int, ...], small: tuple[int, ...],
                  liger: Callable | None) -> dict[str, Any]:
    """shape_fn(rows, hidden, compiled, liger) at every width and row count (small ones, then LARGE_ROWS), with
    torch.compile of the eager fn as a rival, and the ceiling of a plain 1 GiB copy for scale."""
    shapes = []
    for hidden in widths:
        torch._dynamo.reset()
        # dynamic=False: one graph per shape, its kernels tuned at that shape as ours are. Without it, Dynamo makes
        # the row count dynamic at the second shape, and every later shape reuses the kernel compiled then, while
        # the shapes were decode-sized. The reset per width keeps the recompiles under Dynamo's cache limit.
        compiled = torch.compile(fn, dynamic=False)
        for rows in small + LARGE_ROWS:
            shapes.append(shape_fn(rows, hidden, compiled, liger))
            torch.cuda.empty_cache()
    return {"shapes": shapes, "liger": liger is not None, "large_copy": copy_bandwidth(GIB), **criterion(),
            "graph_calls": GRAPH_CALLS, "finalists": FINALISTS}


def criterion() -> dict[str, Any]:
    """How the rounds stop, as every experiment of the chapter stores it."""
    return {"bound_pct": BOUND_PCT, "min_rounds": MIN_ROUNDS, "max_rounds": MAX_ROUNDS, "cap_s": CAP_S,
            "pool_bytes": POOL_BYTES, "rep_ms": {("small" if k else "large"): list(v) for k, v in REP_MS.items()}}


