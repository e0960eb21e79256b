"""fusing_by_hand.exactness: the Triton kernels and torch.compile against eager PyTorch, bf16, on fresh random
inputs at several shapes (one row, widths that are not powers of two, a last block partly empty), with every
output poisoned first."""

from __future__ import annotations

from typing import Any

import torch

from kernelbook.checks import compare, nan_like, random_bf16
from kernelbook.compiled import compile_timed
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton, make_qwen2_norm, qwen2_add_rmsnorm
from kernelbook.kernels.swiglu import swiglu_ref, swiglu_triton

EPS = 1e-6
SHAPES = ((8192, 4096), (1, 4096), (3, 1000), (7, 1536), (64, 8960), (333, 5120))  # (rows, hidden)
COMPILED_SHAPE = (8192, 4096)


def measure(shapes: tuple[tuple[int, int], ...] = SHAPES, compiled_shape: tuple[int, int] = COMPILED_SHAPE,
            device: str = "cuda") -> dict[str, Any]:
    """The Triton kernels and torch.compile against eager PyTorch, bf16, fresh random inputs at several shapes."""
    cases = []
    with torch.no_grad():
        for i, (rows, hidden) in enumerate(shapes):
            x, r, g, u = random_bf16(rows, hidden, seed=1000 + i, n=4, device=device)
            norm = make_qwen2_norm(hidden, device)
            h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
            h, y = nan_like(x), nan_like(x)
            add_rmsnorm_triton(x, r, norm.weight, norm.variance_epsilon, out=(h, y))
            s = nan_like(g)
            swiglu_triton(g, u, out=s)
            cases.append({"shape": [rows, hidden], "h": compare(h, h_ref), "y": compare(y, y_ref),
                          "swiglu": compare(s, swiglu_ref(g, u))})
        rows, hidden = compiled_shape
        x, r, g, u = random_bf16(rows, hidden, seed=2000, n=4, device=device)
        norm = make_qwen2_norm(hidden, device)
        h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
        compiled_norm, norm_s = compile_timed(qwen2_add_rmsnorm, x, r, norm)
        h, y = compiled_norm(x, r, norm)
        compiled_swiglu, swiglu_s = compile_timed(swiglu_ref, g, u)
        compiled = {"shape": [rows, hidden], "h": compare(h, h_ref), "y": compare(y, y_ref),
                    "swiglu": compare(compiled_swiglu(g, u), swiglu_ref(g, u)),
                    "compile_s": {"add_rmsnorm": norm_s, "swiglu": swiglu_s}}
    return {"dtype": "bfloat16", "eps": EPS, "triton": cases, "compiled": compiled}
