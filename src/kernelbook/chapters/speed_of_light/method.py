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
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import torch
from triton.testing import do_bench

from kernelbook.copy_ceiling import GIB, copy_bandwidth

LARGE_ROWS = (8192, 32768)
ROUNDS = 5  # each on buffers of its own
GRAPH_CALLS = 50  # launches captured per graph for the small shapes
COPY_CONFIGS = [(b, w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
# fastest configurations of a sweep that are timed again in the rounds. One sweep timing is one placement: at
# 8192 x 16384 a sweep put (1, 32, h early, w first) 1.0 us behind (2, 32, h early), a probe's rounds 1.5 us ahead
FINALISTS = 5
TIMING = {False: "graph, L2 cleared", True: f"graph of {GRAPH_CALLS}"}  # how a shape is timed, by small


def make_timer(small: bool) -> Callable[[Callable[[], Any]], float]:
    """ms per call of fn, replayed from a CUDA graph so that no version pays for its host side (Python, guards,
    launch): a slow host would otherwise leave the GPU idle between the timer's events. Large shapes: one call per
    graph, do_bench's median with L2 cleared before every replay. Small ones: GRAPH_CALLS launches per graph."""
    calls = GRAPH_CALLS if small else 1

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
        if small:
            return do_bench(g.replay, warmup=10, rep=50, return_mode="median") / calls
        return do_bench(g.replay, warmup=25, rep=100, return_mode="median")

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
def interleaved_rounds(timer: Callable, place: Callable[[int], dict[str, Callable[[], Any]]]
                       ) -> dict[str, dict[str, Any]]:
    """Each version once per round, rounds interleaved, so drift hits all alike. place(i) gives round i's versions
    on fresh buffers; earlier rounds keep theirs until the end, so no round reuses another's memory. Failures are
    recorded, not raised."""
    rounds = [place(i) for i in range(ROUNDS)]
    vals: dict[str, list[float]] = {k: [] for k in rounds[0]}
    errors: dict[str, str] = {}
    for versions in rounds:
        for name, fn in versions.items():
            if name in errors:
                continue
            try:
                vals[name].append(timer(fn))
            except Exception as e:  # a version that cannot run here (e.g. capture refused) is shown as such
                errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    out = {k: {"ms": statistics.median(v), "values": v} for k, v in vals.items() if v and k not in errors}
    out.update({k: {"error": e} for k, e in errors.items()})
    return out
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
    return {"shapes": shapes, "liger": liger is not None, "large_copy": copy_bandwidth(GIB),
            "rounds": ROUNDS, "graph_calls": GRAPH_CALLS, "finalists": FINALISTS}


