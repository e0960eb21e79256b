"""SwiGLU's activation, silu(g) * u, as one elementwise Triton kernel instead of eager PyTorch's two.

Eager PyTorch rounds silu(g) to the input dtype before the multiply (it is a tensor in between); the kernel does
the same, so it can be compared with eager element for element. The divide in silu(g) = g / (1 + exp(-g)) is a
choice: IEEE-rounded (`div_rn`, which checks its operands and branches around a slow path) or the GPU's approximate
one (a reciprocal and a multiply), which can be off in its last fp32 bits.

Whether either ever reaches the output can be settled for every input: a bf16 g and a bf16 u take 65,536 values
each, and `mismatches` runs all 4,294,967,296 pairs through the kernel and through eager on the GPU at hand.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 1024  # elements per program


# --8<-- [start:ref]
def swiglu_ref(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Plain PyTorch: silu(g) * u, as a Qwen2 MLP writes it (eager PyTorch itself: every experiment's reference)."""
    return F.silu(g) * u
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr, IEEE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # reads 2 B/elem g, 2 B/elem u (bf16); writes 2 B/elem out
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if IEEE:
        silu = tl.math.div_rn(g, 1.0 + tl.exp(-g))  # rounded as eager's divide
    else:
        silu = g / (1.0 + tl.exp(-g))  # approximate: a reciprocal and a multiply
    silu = silu.to(out_ptr.dtype.element_ty).to(tl.float32)  # rounded, as eager's silu output is
    tl.store(out_ptr + offs, (silu * u).to(out_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
def swiglu_triton(g: torch.Tensor, u: torch.Tensor, out: torch.Tensor | None = None, block: int = BLOCK,
                  warps: int = 4, ieee: bool = True) -> torch.Tensor:
    """silu(g) * u in one launch over the flattened tensors, block elements per program. `out` lets a caller pass
    a (poisoned) buffer."""
    assert g.shape == u.shape and g.dtype == u.dtype, f"g {g.shape} {g.dtype} and u {u.shape} {u.dtype} must agree"
    g1, u1 = g.contiguous(), u.contiguous()
    out = torch.empty_like(g1) if out is None else out
    assert out.is_contiguous() and out.shape == g.shape and out.dtype == g.dtype
    n = g1.numel()
    _swiglu_kernel[(triton.cdiv(n, block),)](g1, u1, out, n, BLOCK=block, IEEE=ieee, num_warps=warps)
    return out
# --8<-- [end:wrapper]


def every_bf16(device: str | torch.device) -> torch.Tensor:
    """All 65,536 bf16 bit patterns, zeros, infinities and NaNs included."""
    return torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32, device=device).to(torch.int16).view(torch.bfloat16)


def mismatches(ieee: bool, device: str | torch.device = "cuda", values: torch.Tensor | None = None,
               g_per_chunk: int = 1024) -> dict[str, object]:
    """The kernel against eager at every (g, u) pair of bf16 values (of `values`, every_bf16 by default), g_per_chunk
    values of g per launch. Returns how many pairs differ (NaN counts as equal to NaN, whatever its bits) and the
    first few as bit patterns [g, u, kernel, eager]."""
    every = every_bf16(device) if values is None else values
    assert every.numel() % g_per_chunk == 0, f"{g_per_chunk} must divide {every.numel()}"
    u = every.repeat(g_per_chunk)  # u varies fastest
    out = torch.empty_like(u)
    count, examples = 0, []
    for start in range(0, every.numel(), g_per_chunk):
        g = every[start:start + g_per_chunk].repeat_interleave(every.numel())
        got = swiglu_triton(g, u, out=out.fill_(float("nan")), ieee=ieee)
        ref = swiglu_ref(g, u)
        differ = (got.view(torch.int16) != ref.view(torch.int16)) & ~(got.isnan() & ref.isnan())
        here = int(differ.sum())
        count += here
        if here and len(examples) < 5:
            i = differ.nonzero()[:5 - len(examples), 0]
            examples += torch.stack([t[i].view(torch.int16).int() for t in (g, u, got, ref)], 1).tolist()
    return {"pairs": every.numel() ** 2, "differ": count, "examples": examples}
