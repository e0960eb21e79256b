"""SwiGLU's activation, silu(g) * u, as one elementwise Triton kernel instead of eager PyTorch's two.

Eager PyTorch rounds silu(g) to the input dtype before the multiply (it is a tensor in between); the kernel does
the same, so it can be compared with eager element for element.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 1024  # elements per program


def swiglu_ref(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Plain PyTorch: silu(g) * u, as a Qwen2 MLP writes it."""
    return F.silu(g) * u


# --8<-- [start:kernel]
@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # reads 2 B/elem g, 2 B/elem u (bf16); writes 2 B/elem out
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    silu = tl.math.div_rn(g, 1.0 + tl.exp(-g))  # an IEEE-rounded divide, as eager's silu (plain / is approximate)
    silu = silu.to(out_ptr.dtype.element_ty).to(tl.float32)  # rounded, as eager's silu output is
    tl.store(out_ptr + offs, (silu * u).to(out_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
def swiglu_triton(g: torch.Tensor, u: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """silu(g) * u in one launch over the flattened tensors. `out` lets a caller pass a (poisoned) buffer."""
    assert g.shape == u.shape and g.dtype == u.dtype, f"g {g.shape} {g.dtype} and u {u.shape} {u.dtype} must agree"
    g1, u1 = g.contiguous(), u.contiguous()
    out = torch.empty_like(g1) if out is None else out
    assert out.is_contiguous() and out.shape == g.shape and out.dtype == g.dtype
    n = g1.numel()
    _swiglu_kernel[(triton.cdiv(n, BLOCK),)](g1, u1, out, n, BLOCK=BLOCK, num_warps=4)
    return out
# --8<-- [end:wrapper]
