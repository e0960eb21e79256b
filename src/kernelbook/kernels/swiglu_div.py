"""SwiGLU's activation with a choice of divide in silu(g) = g / (1 + exp(-g)): IEEE-rounded, as eager's, or the
GPU's approximate divide (a reciprocal and a multiply, with no slow path to branch around).

The approximate quotient can be off in its last fp32 bits. That matters only where it moves silu(g)'s rounding to
bf16, and silu(g) depends on g alone, which as a bf16 takes 65,536 values: `silu_mismatches` tries every one of
them against eager on the GPU at hand. The multiply by u and the roundings are eager's, operation for operation, so
a count of zero means the two divides give the same output for every input.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from kernelbook.kernels.swiglu import swiglu_ref

__all__ = ["every_bf16", "silu_mismatches", "swiglu_div", "swiglu_ref"]


# --8<-- [start:kernel]
@triton.jit
def _swiglu_div_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr, IEEE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # reads 2 B/elem g, 2 B/elem u (bf16); writes 2 B/elem out
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if IEEE:
        silu = tl.math.div_rn(g, 1.0 + tl.exp(-g))
    else:
        silu = g / (1.0 + tl.exp(-g))  # approximate: a reciprocal and a multiply
    silu = silu.to(out_ptr.dtype.element_ty).to(tl.float32)  # rounded, as eager's silu output is
    tl.store(out_ptr + offs, (silu * u).to(out_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


def swiglu_div(g: torch.Tensor, u: torch.Tensor, out: torch.Tensor, block: int = 1024, warps: int = 4,
               ieee: bool = True) -> torch.Tensor:
    """silu(g) * u into out (contiguous tensors of one shape and dtype), block elements per program."""
    assert g.shape == u.shape == out.shape and g.is_contiguous() and u.is_contiguous() and out.is_contiguous()
    n = g.numel()
    _swiglu_div_kernel[(triton.cdiv(n, block),)](g, u, out, n, BLOCK=block, IEEE=ieee, num_warps=warps)
    return out


def every_bf16(device: str | torch.device) -> torch.Tensor:
    """All 65,536 bf16 bit patterns, zeros, infinities and NaNs included."""
    return torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32, device=device).to(torch.int16).view(torch.bfloat16)


def silu_mismatches(ieee: bool, device: str | torch.device = "cuda") -> int:
    """How many bf16 values of g get a different silu(g) from the kernel than from eager: u = 1, so the output is
    silu(g) itself. NaN counts as equal to NaN, whatever its bits."""
    g = every_bf16(device)
    got = swiglu_div(g, torch.ones_like(g), torch.full_like(g, float("nan")), ieee=ieee)
    ref = F.silu(g)
    same = (got.view(torch.int16) == ref.view(torch.int16)) | (got.isnan() & ref.isnan())
    return int((~same).sum())
