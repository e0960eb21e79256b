"""Residual add + RMSNorm with each row split over S programs that exchange partial sums.

Each program adds and stores its slice of h and its slice's sum of squares, then counts itself in with an atomic.
The row's last program to arrive sees every partial sum, and writes the whole row's y from h read back through L2.
No program waits for another, and a program holds 1/S of a row. The arithmetic and rounding are add_rmsnorm_rows.py's;
the sum of squares is added in a different order (per slice, then across slices). The speed-of-light page measures
it against that kernel.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.add_rmsnorm import add_rmsnorm_ref

__all__ = ["add_rmsnorm_ref", "add_rmsnorm_split_row", "workspace"]


# --8<-- [start:kernel]
@triton.jit
def _add_rmsnorm_split_row_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, part_ptr, count_ptr, n_cols, eps,
                                  S: tl.constexpr, SEG: tl.constexpr):
    row = tl.program_id(0) // S
    base = row.to(tl.int64) * n_cols
    cols = (tl.program_id(0) % S) * SEG + tl.arange(0, SEG)  # this program's slice of the row
    mask = cols < n_cols
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)  # 2 B/elem x, 2 B/elem r (bf16)
    r = tl.load(r_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(h_ptr.dtype.element_ty)
    tl.store(h_ptr + base + cols, h, mask=mask)  # 2 B/elem h
    hf = h.to(tl.float32)
    tl.store(part_ptr + tl.program_id(0), tl.sum(hf * hf, axis=0))  # 4 B per program
    arrived = tl.atomic_add(count_ptr + row, 1, sem="acq_rel")  # publishes h and the partial, sees the others'
    if arrived == S - 1:  # the row's last program: every slice of h and every partial sum is visible
        total = tl.sum(tl.load(part_ptr + row * S + tl.arange(0, S), cache_modifier=".cg"), axis=0)
        rstd = tl.math.rsqrt(total * (1.0 / n_cols) + eps)
        tl.store(count_ptr + row, 0)  # ready for the next launch
        for j in tl.static_range(S):
            c = j * SEG + tl.arange(0, SEG)
            m = c < n_cols
            hj = tl.load(h_ptr + base + c, mask=m, other=0.0, cache_modifier=".cg").to(tl.float32)  # from L2
            wj = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
            normed = (hj * rstd).to(y_ptr.dtype.element_ty).to(tl.float32)
            tl.store(y_ptr + base + c, (normed * wj).to(y_ptr.dtype.element_ty), mask=m)  # 2 B/elem y
# --8<-- [end:kernel]


_WORKSPACE: dict[tuple, tuple[torch.Tensor, torch.Tensor]] = {}


def workspace(device: torch.device, n_rows: int, s: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(partial sums, arrival counters) for n_rows rows split s ways; the kernel leaves the counters at zero."""
    key = (str(device), n_rows, s)
    if key not in _WORKSPACE:
        _WORKSPACE[key] = (torch.zeros(n_rows * s, device=device, dtype=torch.float32),
                           torch.zeros(n_rows, device=device, dtype=torch.int32))
    return _WORKSPACE[key]


def add_rmsnorm_split_row(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
                          out: tuple[torch.Tensor, torch.Tensor] | None = None, config: tuple[int, int] = (2, 8)
                          ) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, y) as add_rmsnorm_ref for 2-D contiguous inputs; config = (programs per row, warps)."""
    n_rows, n_cols = x.shape
    assert residual.shape == x.shape and weight.shape == (n_cols,) and x.is_contiguous() and residual.is_contiguous()
    h, y = out if out is not None else (torch.empty_like(x), torch.empty_like(x))
    s, warps = config
    part, count = workspace(x.device, n_rows, s)
    _add_rmsnorm_split_row_kernel[(n_rows * s,)](x, residual, weight, h, y, part, count, n_cols, eps, S=s,
                                                 SEG=triton.next_power_of_2(n_cols) // s, num_warps=warps)
    return h, y
