"""speed_of_light.add_rmsnorm: the multi-row kernel held to a copy that moves exactly its bytes (two
inputs read, two outputs written, one launch), across widths and row counts.

In the rounds beside the copy (method.py): the multi-row kernel's finalists, the one-row kernel from the
fusion chapter, torch.compile of the unchanged eager code, Liger-Kernel where it is installed, and F.rms_norm. The
multi-row kernel's rows per program, warps and load and store order are swept. A copy cut into programs as large as
the kernel's tile runs in the same rounds: it separates the cost of the program size from the cost of the kernel's
arithmetic. The kernel is checked against eager on the same inputs first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import triton

from kernelbook.chapters.speed_of_light import method as sol
from kernelbook.checks import compare, poisoned, random_bf16
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton, make_qwen2_norm, qwen2_add_rmsnorm
from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_rows, default_config
from kernelbook.kernels.same_bytes_copy import same_bytes_copy

HIDDEN = (1536, 4096, 8192, 16384)
SMALL_ROWS = (1, 16, 64)
EPS = 1e-6


def _liger() -> Callable | None:
    """Liger-Kernel's fused add+RMSNorm, (x, r, w) -> (h, y), where it is installed."""
    try:
        from liger_kernel.ops.fused_add_rms_norm import fused_add_rms_norm_forward
    except ImportError:
        return None
    return lambda x, r, w: fused_add_rms_norm_forward(x, r, w, EPS, 0.0, "llama")[:2]


def row_configs(rows: int, hidden: int) -> list[tuple[int, int, bool, bool]]:
    """The multi-row kernel's sweep: (rows per program, warps, h stored late, weight loaded first), at most 32 K
    elements per program, no more rows than there are, and 32 warps only with at least 8 elements of each tensor per
    lane."""
    block = triton.next_power_of_2(hidden)
    return [(rw, wp, late, first) for rw in (1, 2, 4, 8, 16) for wp in (4, 8, 16, 32) for late in (False, True)
            for first in (False, True)
            if rw * block <= 32768 and rw <= max(rows, 1) and (wp < 32 or rw * block >= 8192)]


def eager_inputs(rows: int, hidden: int) -> tuple[torch.Tensor, torch.Tensor, torch.nn.Module, int]:
    """The check's inputs at one shape, (x, r, norm, seed): the rounds draw theirs from seed + 1 on."""
    seed = rows * 7 + hidden
    x, r = random_bf16(rows, hidden, seed=seed)
    return x, r, make_qwen2_norm(hidden, "cuda"), seed


def _shape(rows: int, hidden: int, compiled: Callable, liger: Callable | None) -> dict[str, Any]:
    small = rows < min(sol.LARGE_ROWS)
    timer = sol.make_timer(small)
    x, r, norm, seed = eager_inputs(rows, hidden)
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
        check["liger_y"] = compare(liger(x, r, w)[1], y_ref)
    check["compiled_y"] = compare(compiled(x, r, norm)[1], y_ref)

    block = triton.next_power_of_2(hidden)
    top, sweep = sol.sweep_configs(timer, {c: (lambda c=c: add_rmsnorm_rows(x, r, w, EPS, out=outs, config=c))
                                           for c in row_configs(rows, hidden)})
    top_copy, copy_sweep = sol.sweep_configs(timer, {c: (lambda c=c: same_bytes_copy(x, r, outs, *c))
                                                     for c in sol.COPY_CONFIGS})
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
            "ours_heuristic": lambda: add_rmsnorm_rows(x, r, w, EPS, out=outs),
            "one_row": lambda: add_rmsnorm_triton(x, r, w, EPS, out=outs),
            "compiled": lambda: compiled(x, r, norm),
            "rms_norm": lambda: torch.nn.functional.rms_norm(x + r, (hidden,), w, EPS),
        }
        if liger:
            versions["liger"] = lambda: liger(x, r, w)
        return versions

    fused_bytes = 4 * x.numel() * 2 + hidden * 2
    timed, rounds = sol.interleaved_rounds(timer, place)
    cc, copy_rounds = sol.pick(timed, copy_names, "copy")
    cfg, kernel_rounds = sol.pick(timed, kernel_names, "ours")
    tile = {str(c): timed.pop(n) for c, n in tile_names.items()}
    timed["copy_tiled"] = dict(tile[str(cfg)])
    timed = sol.against_copy(sol.listed_first(timed, "copy", "ours", "copy_tiled"), fused_bytes)
    return {"rows": rows, "hidden": hidden, "bytes": fused_bytes, "timing": sol.TIMING[small], "small": small,
            "best_config": list(cfg), "default_config": list(default_config(hidden)), "config_sweep_ms": sweep,
            "config_rounds": kernel_rounds, "copy_config": list(cc), "copy_sweep_ms": copy_sweep,
            "copy_rounds": copy_rounds, "tile_copy_rounds": tile, "rounds": rounds, "versions": timed,
            "check": check}


def measure() -> dict[str, Any]:
    return sol.across_shapes(_shape, qwen2_add_rmsnorm, HIDDEN, SMALL_ROWS, _liger())
