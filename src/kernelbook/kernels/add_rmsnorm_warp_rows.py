"""Residual add + RMSNorm with a row per warp: the row's sum of squares is reduced by shuffles inside the warp, and
with one warp per program no warp can wait at a barrier for another.

The tile is (CHUNKS, ROWS, 256): each thread keeps 8 elements of every 256-element chunk of its row, so a whole row
lives in one warp's registers. That is its limit: a 4,096-wide row is 128 elements per thread and tensor, and at
8,192 a thread runs out of registers. With more rows (and warps) per program, the layout is the compiler's choice;
the speed-of-light page counts the barriers it emitted. The arithmetic and rounding are add_rmsnorm_rows.py's.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.add_rmsnorm import add_rmsnorm_ref

__all__ = ["CHUNK", "add_rmsnorm_ref", "add_rmsnorm_warp_rows", "launch"]

CHUNK = 256  # one warp's 32 threads x 8 elements (a 16-byte load each)


# --8<-- [start:kernel]
@triton.jit
def _add_rmsnorm_warp_rows_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n_rows, n_cols, eps,
                                  ROWS: tl.constexpr, CHUNK: tl.constexpr, CHUNKS: tl.constexpr):
    chunk = tl.arange(0, CHUNKS)[:, None, None]  # (CHUNKS, 1, 1): stays inside each thread
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)[None, :, None]  # (1, ROWS, 1)
    cols = chunk * CHUNK + tl.arange(0, CHUNK)[None, None, :]  # (CHUNKS, 1, CHUNK): the warp's 32 threads
    mask = (rows < n_rows) & (cols < n_cols)
    offs = rows * n_cols + cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)  # 2 B/elem x, 2 B/elem r (bf16)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(h_ptr.dtype.element_ty)
    tl.store(h_ptr + offs, h, mask=mask)  # 2 B/elem h
    hf = h.to(tl.float32)
    ss = tl.sum(tl.sum(hf * hf, axis=0), axis=1)  # (ROWS,): the chunks in-thread, then across the warp
    rstd = tl.math.rsqrt(ss * (1.0 / n_cols) + eps)[None, :, None]
    wcols = tl.broadcast_to(cols, (CHUNKS, ROWS, CHUNK))  # the weight in the tile's own shape
    w = tl.load(w_ptr + wcols, mask=wcols < n_cols, other=0.0).to(tl.float32)
    normed = (hf * rstd).to(y_ptr.dtype.element_ty).to(tl.float32)
    tl.store(y_ptr + offs, (normed * w).to(y_ptr.dtype.element_ty), mask=mask)  # 2 B/elem y
# --8<-- [end:kernel]


def launch(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float,
           out: tuple[torch.Tensor, torch.Tensor], rows: int):
    """One launch, `rows` rows (and warps) per program; returns what Triton launched (its registers and spills)."""
    n_rows, n_cols = x.shape
    return _add_rmsnorm_warp_rows_kernel[(triton.cdiv(n_rows, rows),)](
        x, residual, weight, out[0], out[1], n_rows, n_cols, eps, ROWS=rows, CHUNK=CHUNK,
        CHUNKS=triton.next_power_of_2(triton.cdiv(n_cols, CHUNK)), num_warps=rows)


def add_rmsnorm_warp_rows(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
                          out: tuple[torch.Tensor, torch.Tensor] | None = None, rows: int = 1
                          ) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, y) as add_rmsnorm_ref for 2-D contiguous inputs, `rows` rows (and warps) per program."""
    n_cols = x.shape[1]
    assert residual.shape == x.shape and weight.shape == (n_cols,) and x.is_contiguous() and residual.is_contiguous()
    h, y = out if out is not None else (torch.empty_like(x), torch.empty_like(x))
    launch(x, residual, weight, eps, (h, y), rows)
    return h, y
