"""Residual add + RMSNorm in a persistent kernel: a fixed number of programs per SM walks the row blocks, and each
loads its next block before it reduces the current one, so loads stay in flight across the reduction.

The arithmetic and rounding are add_rmsnorm_rows.py's. The speed-of-light page measures it against that kernel.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.add_rmsnorm import add_rmsnorm_ref

__all__ = ["add_rmsnorm_persistent", "add_rmsnorm_ref"]


# --8<-- [start:kernel]
@triton.jit
def _add_rmsnorm_persistent_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n_rows, n_cols, eps,
                                   ROWS: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)[None, :]  # (1, BLOCK)
    cmask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)  # once per program, not once per block
    step = tl.num_programs(0) * ROWS
    rows = (tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]).to(tl.int64)  # (ROWS, 1)
    mask = (rows < n_rows) & cmask
    x = tl.load(x_ptr + rows * n_cols + cols, mask=mask, other=0.0)  # 2 B/elem x, 2 B/elem r (bf16)
    r = tl.load(r_ptr + rows * n_cols + cols, mask=mask, other=0.0)
    for _ in range(tl.program_id(0), tl.cdiv(n_rows, ROWS), tl.num_programs(0)):
        nrows = rows + step  # the next block's loads go out before this block's reduction
        nmask = (nrows < n_rows) & cmask
        xn = tl.load(x_ptr + nrows * n_cols + cols, mask=nmask, other=0.0)
        rn = tl.load(r_ptr + nrows * n_cols + cols, mask=nmask, other=0.0)
        offs = rows * n_cols + cols
        h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        tl.store(h_ptr + offs, h, mask=mask)  # 2 B/elem h
        hf = h.to(tl.float32)
        rstd = tl.math.rsqrt(tl.sum(hf * hf, axis=1) * (1.0 / n_cols) + eps)  # (ROWS,)
        normed = (hf * rstd[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
        tl.store(y_ptr + offs, (normed * w).to(y_ptr.dtype.element_ty), mask=mask)  # 2 B/elem y
        x, r, rows, mask = xn, rn, nrows, nmask
# --8<-- [end:kernel]


def add_rmsnorm_persistent(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
                           out: tuple[torch.Tensor, torch.Tensor] | None = None,
                           config: tuple[int, int, int] = (1, 16, 2), sms: int | None = None
                           ) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, y) as add_rmsnorm_ref for 2-D contiguous inputs; config = (rows per block, warps, programs per SM)."""
    n_rows, n_cols = x.shape
    assert residual.shape == x.shape and weight.shape == (n_cols,) and x.is_contiguous() and residual.is_contiguous()
    h, y = out if out is not None else (torch.empty_like(x), torch.empty_like(x))
    rows, warps, per_sm = config
    if sms is None:
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    programs = min(triton.cdiv(n_rows, rows), sms * per_sm)
    _add_rmsnorm_persistent_kernel[(programs,)](x, residual, weight, h, y, n_rows, n_cols, eps, ROWS=rows,
                                                BLOCK=triton.next_power_of_2(n_cols), num_warps=warps)
    return h, y
