"""Speed of light for SwiGLU's activation: the fusion chapter's kernel held to a copy that moves exactly its bytes
(two inputs read, one output written, one launch), across row counts at two widths.

Correct before fast, for every input: before anything is timed, each divide the kernel can use runs over all
4,294,967,296 pairs of bf16 (g, u) against eager on this GPU, and only a divide that matches eager at every pair is
swept. Then, at each shape, the kernel's block size, warps and divide are swept and its finalists timed in the
rounds (method.py) beside the copy, torch.compile of the unchanged eager code, Liger-Kernel where it is
installed, and eager.

At the large shapes the versions can run so close to the copy and to each other that where the buffers land moves a
version's time more than the kernels differ (results/PROBES.md), and the rounds are ten to twenty such draws (and
at the cap still noisy). So at each
large shape every version but eager is then timed once on each of PLACEMENTS further placements, in an order
shuffled per placement, and the goal's "ahead of a rival" is read from these paired times (report.paired). The
registers the kernel holds with each divide are read from the compiled kernel at the issue's probe shape, since they
set how many of its programs an SM runs at once.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import torch

from kernelbook.chapters.speed_of_light import method as sol
from kernelbook.checks import compare, poisoned, random_bf16
from kernelbook.kernels.same_bytes_copy import same_bytes_copy
from kernelbook.kernels.swiglu import BLOCK, _swiglu_kernel, mismatches, swiglu_ref, swiglu_triton

WIDTHS = (4096, 8960)  # the probe shape, and Qwen2.5-1.5B's MLP width
SMALL_ROWS = (1, 64)
CHAPTER = "chapter"  # the fusion chapter's launch: 1,024 elements on 4 warps, IEEE divide
PROBE = (8192, 4096)  # the probe shape (rows, width)
PLACEMENTS = 20  # fresh placements at every large shape, each timing every version but eager once


def _liger() -> Callable | None:
    """Liger-Kernel's SwiGLU forward, (g, u) -> silu(g) * u, where it is installed."""
    try:
        from liger_kernel.ops.swiglu import swiglu_forward
    except ImportError:
        return None
    return lambda g, u: swiglu_forward(g, u)[2]


def _copy_at(c: tuple) -> Callable[..., Any]:
    return lambda g, u, out: same_bytes_copy(g, u, (out,), *c)


def _kernel_at(c: tuple) -> Callable[..., Any]:
    return lambda g, u, out: swiglu_triton(g, u, out, *c)


def _versions(g: torch.Tensor, u: torch.Tensor, out: torch.Tensor, compiled: Callable, liger: Callable | None,
              launches: dict[str, Callable[..., Any]], eager: bool) -> dict[str, Callable[[], Any]]:
    """The versions timed on one placement: each launch by name (a function of g, u, out), the chapter's launch,
    torch.compile, Liger-Kernel where installed, and eager if asked."""
    v: dict[str, Callable[[], Any]] = {name: (lambda f=f: f(g, u, out)) for name, f in launches.items()}
    v[CHAPTER] = lambda: swiglu_triton(g, u, out=out)
    v["compiled"] = lambda: compiled(g, u)
    if eager:
        v["eager"] = lambda: swiglu_ref(g, u)
    if liger:
        v["liger"] = lambda: liger(g, u)
    return v


def placements(rows: int, hidden: int, seed: int, versions: Callable[..., dict[str, Callable[[], Any]]]
               ) -> dict[str, list[float]]:
    """ms of every version on each of PLACEMENTS fresh placements (g, u and out drawn anew, earlier ones kept so that
    none is reused), in an order shuffled per placement by a seeded generator."""
    timer = sol.make_timer(False)
    kept, ms = [], {}
    for i in range(PLACEMENTS):
        g, u = random_bf16(rows, hidden, seed=seed + i)
        (out,) = poisoned(g, 1)
        kept.append((g, u, out))
        fns = versions(g, u, out)
        order = list(fns)
        random.Random(i).shuffle(order)
        for name in order:
            ms.setdefault(name, []).append(timer(fns[name]))
    return {name: ms[name] for name in fns}  # in the versions' own order


def registers(g: torch.Tensor, u: torch.Tensor, out: torch.Tensor) -> dict[str, Any]:
    """Registers per thread of the chapter's launch (BLOCK elements, 4 warps) with each divide, read from the kernel
    compiled for these tensors (one program launched), and the SM's thread limit."""
    regs = {}
    for ieee in (True, False):
        kernel = _swiglu_kernel[(1,)](g, u, out, g.numel(), BLOCK=BLOCK, IEEE=ieee, num_warps=4)
        regs["ieee" if ieee else "approx"] = kernel.n_regs
    props = torch.cuda.get_device_properties(g.device)
    return {"per_thread": regs, "warps": 4, "threads_per_sm": props.max_threads_per_multi_processor}


def _shape(rows: int, hidden: int, compiled: Callable, liger: Callable | None, divides: tuple[bool, ...]
           ) -> dict[str, Any]:
    small = rows < min(sol.LARGE_ROWS)
    timer = sol.make_timer(small)
    seed = rows * 11 + hidden
    g, u = random_bf16(rows, hidden, seed=seed)
    ref = swiglu_ref(g, u)
    (out,) = poisoned(g, 1)
    check = {"triton": compare(swiglu_triton(g, u, out=out), ref)}
    for ieee in divides:  # the swept kernel with each divide it may use, on fresh poison
        out.fill_(float("nan"))
        check["ieee" if ieee else "approx"] = compare(swiglu_triton(g, u, out=out, ieee=ieee), ref)
    assert all(c["bit_identical"] for c in check.values()), f"({rows}, {hidden}): SwiGLU differs from eager"
    if liger:
        check["liger"] = compare(liger(g, u), ref)
    check["compiled"] = compare(compiled(g, u), ref)
    configs = [(b, w, ieee) for b, w in sol.COPY_CONFIGS for ieee in divides]  # (block, warps, IEEE divide)
    top, sweep = sol.sweep_configs(timer, {c: (lambda c=c: _kernel_at(c)(g, u, out)) for c in configs})
    top_copy, copy_sweep = sol.sweep_configs(timer, {c: (lambda c=c: _copy_at(c)(g, u, out)) for c in sol.COPY_CONFIGS})
    kernel_names = {c: f"kernel {c}" for c in top}
    copy_names = {c: f"copy {c}" for c in top_copy}

    def place(i: int) -> dict[str, Callable[[], Any]]:
        g, u = random_bf16(rows, hidden, seed=seed + 1 + i)
        (out,) = poisoned(g, 1)
        launches = {n: _copy_at(c) for c, n in copy_names.items()} | {n: _kernel_at(c) for c, n in kernel_names.items()}
        return _versions(g, u, out, compiled, liger, launches, eager=True)

    fused_bytes = 3 * g.numel() * 2
    timed, rounds = sol.interleaved_rounds(timer, place)
    cc, copy_rounds = sol.pick(timed, copy_names, "copy")
    cfg, kernel_rounds = sol.pick(timed, kernel_names, "ours")
    timed = sol.against_copy(sol.listed_first(timed, "copy", "ours"), fused_bytes)
    extra = {}
    if not small:  # ours as picked in the rounds, against the same rivals on placements of their own
        picked = {"copy": _copy_at(cc), "ours": _kernel_at(cfg)}
        extra["placements"] = placements(rows, hidden, seed + 1000, lambda g, u, out: _versions(
            g, u, out, compiled, liger, picked, eager=False))
    if (rows, hidden) == PROBE:
        extra["registers"] = registers(g, u, out)
    return {"rows": rows, "hidden": hidden, "bytes": fused_bytes, "timing": sol.TIMING[small], "small": small,
            "best_config": list(cfg), "config_sweep_ms": sweep, "config_rounds": kernel_rounds,
            "copy_config": list(cc), "copy_sweep_ms": copy_sweep, "copy_rounds": copy_rounds, "rounds": rounds,
            "versions": timed,
            "check": check, **extra}


def measure() -> dict[str, Any]:
    every = {"ieee": mismatches(True), "approx": mismatches(False)}
    divides = tuple(ieee for ieee, name in ((True, "ieee"), (False, "approx")) if every[name]["differ"] == 0)
    assert divides, f"neither divide gives eager's output at every input: {every}"
    data = sol.across_shapes(lambda *a: _shape(*a, divides=divides), swiglu_ref, WIDTHS, SMALL_ROWS, _liger())
    return {**data, "mismatches": every}
