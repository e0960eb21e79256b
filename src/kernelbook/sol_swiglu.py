"""Speed of light for SwiGLU's activation: the fusion chapter's kernel held to a copy that moves exactly its bytes
(two inputs read, one output written, one launch), across row counts at two widths.

Correct before fast, for every input: before anything is timed, each divide the kernel can use runs over all
4,294,967,296 pairs of bf16 (g, u) against eager on this GPU, and only a divide that matches eager at every pair is
swept. Then, at each shape, the kernel's block size, warps and divide are swept and its finalists timed in the
rounds (speed_of_light.py) beside the copy, torch.compile of the unchanged eager code, Liger-Kernel where it is
installed, and eager. The chapter's own launch runs twice in every round, as two versions: how far apart the two
land is what this timer cannot tell apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernelbook import speed_of_light as sol
from kernelbook.fusion import compare, random_bf16, swiglu_eager
from kernelbook.kernels.same_bytes_copy import same_bytes_copy
from kernelbook.kernels.swiglu import mismatches, swiglu_triton

WIDTHS = (4096, 8960)  # the probe shape, and Qwen2.5-1.5B's MLP width
SMALL_ROWS = (1, 64)
CHAPTER, AGAIN = "Triton (chapter's block)", "Triton (chapter's block, again)"  # one launch, timed as two versions


def _liger() -> Callable | None:
    """Liger-Kernel's SwiGLU forward, (g, u) -> silu(g) * u, where it is installed."""
    try:
        from liger_kernel.ops.swiglu import swiglu_forward
    except ImportError:
        return None
    return lambda g, u: swiglu_forward(g, u)[2]


def _shape(rows: int, hidden: int, compiled: Callable, liger: Callable | None, divides: tuple[bool, ...]
           ) -> dict[str, Any]:
    small = rows < min(sol.LARGE_ROWS)
    timer = sol.make_timer(small)
    seed = rows * 11 + hidden
    g, u = random_bf16(rows, hidden, seed=seed)
    ref = swiglu_eager(g, u)
    (out,) = sol.poisoned(g, 1)
    check = {"triton": compare(swiglu_triton(g, u, out=out), ref)}
    for ieee in divides:  # the swept kernel with each divide it may use, on fresh poison
        out.fill_(float("nan"))
        check["ieee" if ieee else "approx"] = compare(swiglu_triton(g, u, out=out, ieee=ieee), ref)
    assert all(c["bit_identical"] for c in check.values()), f"({rows}, {hidden}): SwiGLU differs from eager"
    if liger:
        check["liger"] = compare(liger(g, u), ref)
    check["compiled"] = compare(compiled(g, u), ref)
    configs = [(b, w, ieee) for b, w in sol.COPY_CONFIGS for ieee in divides]  # (block, warps, IEEE divide)
    top, sweep = sol.sweep_configs(timer, {c: (lambda c=c: swiglu_triton(g, u, out, *c)) for c in configs})
    top_copy, copy_sweep = sol.sweep_configs(timer, {c: (lambda c=c: same_bytes_copy(g, u, (out,), *c))
                                                     for c in sol.COPY_CONFIGS})
    kernel_names = {c: f"kernel {c}" for c in top}
    copy_names = {c: f"copy {c}" for c in top_copy}

    def place(i: int) -> dict[str, Callable[[], Any]]:
        g, u = random_bf16(rows, hidden, seed=seed + 1 + i)
        (out,) = sol.poisoned(g, 1)
        versions = {
            **{n: (lambda c=c: same_bytes_copy(g, u, (out,), *c)) for c, n in copy_names.items()},
            **{n: (lambda c=c: swiglu_triton(g, u, out, *c)) for c, n in kernel_names.items()},
            CHAPTER: lambda: swiglu_triton(g, u, out=out),
            "torch.compile": lambda: compiled(g, u),
            "eager": lambda: swiglu_eager(g, u),
            AGAIN: lambda: swiglu_triton(g, u, out=out),
        }
        if liger:
            versions["Liger-Kernel"] = lambda: liger(g, u)
        return versions

    fused_bytes = 3 * g.numel() * 2
    timed = sol.interleaved_rounds(timer, place)
    cc, copy_rounds = sol.pick(timed, copy_names, "same-bytes copy")
    cfg, kernel_rounds = sol.pick(timed, kernel_names, "Triton (best block)")
    timed = sol.against_copy(sol.listed_first(timed, "same-bytes copy", "Triton (best block)"), fused_bytes)
    return {"rows": rows, "hidden": hidden, "bytes": fused_bytes, "timing": sol.TIMING[small], "small": small,
            "best_config": list(cfg), "config_sweep_ms": sweep, "config_rounds": kernel_rounds,
            "copy_config": list(cc), "copy_sweep_ms": copy_sweep, "copy_rounds": copy_rounds, "versions": timed,
            "check": check}


def measure() -> dict[str, Any]:
    every = {"ieee": mismatches(True), "approx": mismatches(False)}
    divides = tuple(ieee for ieee, name in ((True, "ieee"), (False, "approx")) if every[name]["differ"] == 0)
    assert divides, f"neither divide gives eager's output at every input: {every}"
    data = sol.across_shapes(lambda *a: _shape(*a, divides=divides), swiglu_eager, WIDTHS, SMALL_ROWS, _liger())
    return {**data, "mismatches": every}
