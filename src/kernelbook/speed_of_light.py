"""Speed of light: fused add+RMSNorm and SwiGLU held to a copy that moves exactly their bytes, across shapes.

For each (rows, hidden) every version is timed in the same process, in interleaved rounds: the same-bytes copy (the
ceiling: two inputs read, two outputs written, one launch), the multi-row kernel, the one-row kernel from the fusion
chapter, torch.compile of the unchanged eager code, Liger-Kernel where it is installed, and F.rms_norm. The copy's
block size and the kernel's rows per program, warps and load and store order are swept once; the FINALISTS fastest
of each sweep go into the rounds, and the fastest there is the one reported, so neither side wins by one lucky sweep
timing. A copy cut into programs as large as the kernel's tile runs in the same rounds: it separates the cost of the
program size from the cost of the kernel's arithmetic. Every round draws fresh inputs and outputs at new addresses,
shared by all versions in it: in a probe on the H200 (8192 x 8192), six placements moved the copy from 130.7 to
132.4 us while timings of one placement stayed within 0.2 us, so a median over one placement is one draw. Every
version is timed replayed from a CUDA graph, so host overhead is left out: large shapes one call per graph with L2
cleared before each replay (do_bench), small ones (the decode case) GRAPH_CALLS launches per graph. Each kernel is
checked against eager on the same inputs first.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import torch
import triton
from triton.testing import do_bench

from kernelbook.fusion import _nan_like, compare, make_qwen2_norm, qwen2_add_rmsnorm, random_bf16, swiglu_eager
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton
from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_rows, default_config
from kernelbook.kernels.same_bytes_copy import same_bytes_copy
from kernelbook.kernels.swiglu import swiglu_triton
from kernelbook.kernels.swiglu_div import silu_mismatches, swiglu_div
from kernelbook.machine import copy_bandwidth

HIDDEN = (1536, 4096, 8192, 16384)
LARGE_ROWS = (8192, 32768)
SMALL_ROWS = (1, 16, 64)
SWIGLU_WIDTHS = (4096, 8960)  # the probe's shape, and Qwen2.5-1.5B's MLP width
EPS = 1e-6
ROUNDS = 5  # each on buffers of its own
GRAPH_CALLS = 50  # launches captured per graph for the small shapes
COPY_CONFIGS = [(b, w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
# fastest configurations of a sweep that are timed again in the rounds. One sweep timing is one placement: at
# 8192 x 16384 a sweep put (1, 32, h early, w first) 1.0 us behind (2, 32, h early), a probe's rounds 1.5 us ahead
FINALISTS = 5
TIMING = {False: "graph, L2 cleared", True: f"graph of {GRAPH_CALLS}"}  # how a shape is timed, by small


def _liger() -> dict[str, Callable] | None:
    try:
        from liger_kernel.ops.fused_add_rms_norm import fused_add_rms_norm_forward
        from liger_kernel.ops.swiglu import swiglu_forward
    except ImportError:
        return None
    return {"add_rmsnorm": lambda x, r, w: fused_add_rms_norm_forward(x, r, w, EPS, 0.0, "llama")[:2],
            "swiglu": lambda g, u: swiglu_forward(g, u)[2]}


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
    ceiling = timed["same-bytes copy"]["ms"]
    for v in timed.values():
        if "ms" in v:
            v["gbps"] = nbytes / (v["ms"] * 1e-3) / 1e9
            v["share_of_copy"] = ceiling / v["ms"]
    return timed


def row_configs(rows: int, hidden: int) -> list[tuple[int, int, bool, bool]]:
    """The multi-row kernel's sweep: (rows per program, warps, h stored late, weight loaded first), at most 32 K
    elements per program, no more rows than there are, and 32 warps only with at least 8 elements of each tensor per
    lane."""
    block = triton.next_power_of_2(hidden)
    return [(rw, wp, late, first) for rw in (1, 2, 4, 8, 16) for wp in (4, 8, 16, 32) for late in (False, True)
            for first in (False, True)
            if rw * block <= 32768 and rw <= max(rows, 1) and (wp < 32 or rw * block >= 8192)]


def poisoned(t: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
    """n outputs shaped as t, filled with NaN: a version that leaves an element unwritten shows."""
    return tuple(_nan_like(t) for _ in range(n))


def _shape_add_rmsnorm(rows: int, hidden: int, compiled: Callable, liger: dict | None) -> dict[str, Any]:
    small = rows < min(LARGE_ROWS)
    timer = make_timer(small)
    seed = rows * 7 + hidden
    x, r = random_bf16(rows, hidden, seed=seed)
    norm = make_qwen2_norm(hidden, "cuda")
    w = norm.weight
    h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
    outs = poisoned(x, 2)

    # correct before fast: the swept kernel at its default tile, in all four load and store orders, on eager's inputs
    check = {}
    rw, wp, *_ = default_config(hidden)
    for late in (False, True):
        for first in (False, True):
            tag = "_late" * late + "_first" * first
            for o in outs:
                o.fill_(float("nan"))
            h, y = add_rmsnorm_rows(x, r, w, EPS, out=outs, config=(rw, wp, late, first))
            check["h" + tag], check["y" + tag] = compare(h, h_ref), compare(y, y_ref)
            assert check["h" + tag]["bit_identical"], f"({rows}, {hidden}, {late=}, {first=}): h differs from eager"
            # one step before the weight multiply can become two after it (the fusion chapter measures the same)
            assert check["y" + tag]["max_steps"] <= 2, f"({rows}, {hidden}, {late=}, {first=}): y off by > 2 steps"
    if liger:
        check["liger_y"] = compare(liger["add_rmsnorm"](x, r, w)[1], y_ref)
    check["compiled_y"] = compare(compiled(x, r, norm)[1], y_ref)

    block = triton.next_power_of_2(hidden)
    top, sweep = sweep_configs(timer, {c: (lambda c=c: add_rmsnorm_rows(x, r, w, EPS, out=outs, config=c))
                                       for c in row_configs(rows, hidden)})
    top_copy, copy_sweep = sweep_configs(timer, {c: (lambda c=c: same_bytes_copy(x, r, outs, *c))
                                                 for c in COPY_CONFIGS})
    kernel_names = {c: f"kernel {c}" for c in top}
    copy_names = {c: f"copy {c}" for c in top_copy}
    # the same copy cut into programs of the kernel's tile: rows per program x BLOCK elements, the kernel's warps
    tile_names = {c: f"tile copy {c}" for c in top}

    def place(i: int) -> dict[str, Callable[[], Any]]:
        x, r = random_bf16(rows, hidden, seed=seed + 1 + i)
        outs = poisoned(x, 2)
        versions = {
            **{n: (lambda c=c: same_bytes_copy(x, r, outs, *c)) for c, n in copy_names.items()},
            **{n: (lambda c=c: add_rmsnorm_rows(x, r, w, EPS, out=outs, config=c)) for c, n in kernel_names.items()},
            **{n: (lambda c=c: same_bytes_copy(x, r, outs, c[0] * block, c[1])) for c, n in tile_names.items()},
            "multi-row Triton (heuristic)": lambda: add_rmsnorm_rows(x, r, w, EPS, out=outs),
            "one-row Triton": lambda: add_rmsnorm_triton(x, r, w, EPS, out=outs),
            "torch.compile": lambda: compiled(x, r, norm),
            "F.rms_norm": lambda: torch.nn.functional.rms_norm(x + r, (hidden,), w, EPS),
        }
        if liger:
            versions["Liger-Kernel"] = lambda: liger["add_rmsnorm"](x, r, w)
        return versions

    fused_bytes = 4 * x.numel() * 2 + hidden * 2
    timed = interleaved_rounds(timer, place)
    cc, copy_rounds = pick(timed, copy_names, "same-bytes copy")
    cfg, kernel_rounds = pick(timed, kernel_names, "multi-row Triton (best)")
    tile = {str(c): timed.pop(n) for c, n in tile_names.items()}
    timed["same-bytes copy, kernel-sized programs"] = dict(tile[str(cfg)])
    timed = against_copy(listed_first(timed, "same-bytes copy", "multi-row Triton (best)",
                                      "same-bytes copy, kernel-sized programs"), fused_bytes)
    return {"rows": rows, "hidden": hidden, "bytes": fused_bytes, "timing": TIMING[small], "small": small,
            "best_config": list(cfg), "default_config": list(default_config(hidden)), "config_sweep_ms": sweep,
            "config_rounds": kernel_rounds, "copy_config": list(cc), "copy_sweep_ms": copy_sweep,
            "copy_rounds": copy_rounds, "tile_copy_rounds": tile, "versions": timed, "check": check}


def _shape_swiglu(rows: int, hidden: int, compiled: Callable, liger: dict | None, divides: tuple[bool, ...]
                  ) -> dict[str, Any]:
    small = rows < min(LARGE_ROWS)
    timer = make_timer(small)
    seed = rows * 11 + hidden
    g, u = random_bf16(rows, hidden, seed=seed)
    ref = swiglu_eager(g, u)
    (out,) = poisoned(g, 1)
    check = {"triton": compare(swiglu_triton(g, u, out=out), ref)}
    for ieee in divides:  # the swept kernel with each divide it may use, on fresh poison
        out.fill_(float("nan"))
        check["ieee" if ieee else "approx"] = compare(swiglu_div(g, u, out, ieee=ieee), ref)
    assert all(c["bit_identical"] for c in check.values()), f"({rows}, {hidden}): SwiGLU differs from eager"
    if liger:
        check["liger"] = compare(liger["swiglu"](g, u), ref)
    check["compiled"] = compare(compiled(g, u), ref)
    n = g.numel()
    configs = [(b, w, ieee) for b, w in COPY_CONFIGS for ieee in divides]  # (block, warps, IEEE divide)
    top, sweep = sweep_configs(timer, {c: (lambda c=c: swiglu_div(g, u, out, *c)) for c in configs})
    top_copy, copy_sweep = sweep_configs(timer, {c: (lambda c=c: same_bytes_copy(g, u, (out,), *c))
                                                 for c in COPY_CONFIGS})
    kernel_names = {c: f"kernel {c}" for c in top}
    copy_names = {c: f"copy {c}" for c in top_copy}

    def place(i: int) -> dict[str, Callable[[], Any]]:
        g, u = random_bf16(rows, hidden, seed=seed + 1 + i)
        (out,) = poisoned(g, 1)
        versions = {
            **{n: (lambda c=c: same_bytes_copy(g, u, (out,), *c)) for c, n in copy_names.items()},
            **{n: (lambda c=c: swiglu_div(g, u, out, *c)) for c, n in kernel_names.items()},
            "Triton (chapter's block)": lambda: swiglu_triton(g, u, out=out),
            "torch.compile": lambda: compiled(g, u),
            "eager": lambda: swiglu_eager(g, u),
        }
        if liger:
            versions["Liger-Kernel"] = lambda: liger["swiglu"](g, u)
        return versions

    fused_bytes = 3 * n * 2
    timed = interleaved_rounds(timer, place)
    cc, copy_rounds = pick(timed, copy_names, "same-bytes copy")
    cfg, kernel_rounds = pick(timed, kernel_names, "Triton (best block)")
    timed = against_copy(listed_first(timed, "same-bytes copy", "Triton (best block)"), fused_bytes)
    return {"rows": rows, "hidden": hidden, "bytes": fused_bytes, "timing": TIMING[small], "small": small,
            "best_config": list(cfg), "config_sweep_ms": sweep, "config_rounds": kernel_rounds,
            "copy_config": list(cc), "copy_sweep_ms": copy_sweep, "copy_rounds": copy_rounds, "versions": timed,
            "check": check}


def _sweep(shape_fn: Callable, fn: Callable, widths: tuple[int, ...], small: tuple[int, ...]) -> dict[str, Any]:
    liger = _liger()
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
    return {"shapes": shapes, "liger": liger is not None, "large_copy": copy_bandwidth(1 << 30),
            "rounds": ROUNDS, "graph_calls": GRAPH_CALLS, "finalists": FINALISTS}


def measure_add_rmsnorm() -> dict[str, Any]:
    return _sweep(_shape_add_rmsnorm, qwen2_add_rmsnorm, HIDDEN, SMALL_ROWS)


def measure_swiglu() -> dict[str, Any]:
    # correct before fast, for every input: the approximate divide joins the sweep only if all 65,536 bf16 values
    # of g give eager's silu(g) through it, on this GPU
    mismatches = {"ieee": silu_mismatches(True), "approx": silu_mismatches(False)}
    assert mismatches["ieee"] == 0, f"the IEEE divide differs from eager at {mismatches['ieee']} bf16 inputs"
    divides = (True, False) if mismatches["approx"] == 0 else (True,)
    data = _sweep(lambda *a: _shape_swiglu(*a, divides=divides), swiglu_eager, SWIGLU_WIDTHS, (1, 64))
    return {**data, "silu_mismatches": mismatches}
