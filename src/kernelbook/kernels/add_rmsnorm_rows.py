"""Residual add + RMSNorm with several rows per program: the same arithmetic and rounding as add_rmsnorm.py,
shaped for bandwidth at every width.

One program per row leaves a 1536-wide row (3 KiB per tensor) too little to keep loads in flight and launches
tens of thousands of tiny programs; packing ROWS rows into one (ROWS, BLOCK) tile gives each program enough bytes.
H_LATE moves h's store from before the reduction to after it, beside y's. W_FIRST issues the weight's load with the
row's instead of after the reduction, where its trip to L2 sits between the sum and the stores. The bytes are the
same either way; only when they move changes. Both orders are swept with ROWS and the warps.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.add_rmsnorm import add_rmsnorm_ref

__all__ = ["add_rmsnorm_ref", "add_rmsnorm_rows", "default_config"]


# --8<-- [start:kernel]
@triton.jit
def _add_rmsnorm_rows_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n_rows, n_cols, eps,
                             ROWS: tl.constexpr, BLOCK: tl.constexpr, H_LATE: tl.constexpr, W_FIRST: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)[:, None]  # (ROWS, 1)
    cols = tl.arange(0, BLOCK)[None, :]  # (1, BLOCK)
    mask = (rows < n_rows) & (cols < n_cols)
    offs = rows * n_cols + cols
    # reads 2 B/elem x, 2 B/elem r; writes 2 B/elem h, 2 B/elem y (bf16); the weight is read once per program
    if W_FIRST:  # with the row's loads, not after the sum; bf16 until used, half the registers through the sum
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(h_ptr.dtype.element_ty)
    if not H_LATE:
        tl.store(h_ptr + offs, h, mask=mask)
    hf = h.to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(hf * hf, axis=1) * (1.0 / n_cols) + eps)  # (ROWS,)
    normed = (hf * rstd[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
    if not W_FIRST:
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0)
    if H_LATE:  # hf rounds back to h exactly, so no bf16 copy of the tile stays live through the reduction
        tl.store(h_ptr + offs, hf.to(h_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + offs, (normed * w.to(tl.float32)).to(y_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


def default_config(n_cols: int) -> tuple[int, int, bool, bool]:
    """(rows per program, warps, h stored late, weight loaded first): about 16 K elements per program, at most 16
    rows, h stored early, the weight loaded after the reduction."""
    block = triton.next_power_of_2(n_cols)
    rows = max(1, min(16, 16384 // block))
    return rows, 4 if rows * block <= 4096 else 8 if rows * block <= 16384 else 16, False, False


def add_rmsnorm_rows(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
                     out: tuple[torch.Tensor, torch.Tensor] | None = None,
                     config: tuple[int, int, bool, bool] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, y) as add_rmsnorm_ref for 2-D contiguous (rows, hidden) inputs; config = (rows per program, warps,
    whether h is stored after the reduction, whether the weight is loaded before it)."""
    n_rows, n_cols = x.shape
    assert residual.shape == x.shape and weight.shape == (n_cols,) and x.is_contiguous() and residual.is_contiguous()
    h, y = out if out is not None else (torch.empty_like(x), torch.empty_like(x))
    rows, warps, h_late, w_first = config or default_config(n_cols)
    _add_rmsnorm_rows_kernel[(triton.cdiv(n_rows, rows),)](x, residual, weight, h, y, n_rows, n_cols, eps,
                                                           ROWS=rows, BLOCK=triton.next_power_of_2(n_cols),
                                                           H_LATE=bool(h_late), W_FIRST=bool(w_first),
                                                           num_warps=warps)
    return h, y
