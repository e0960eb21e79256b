"""Residual add followed by RMSNorm, fused into one Triton kernel with one program per row.

The rounding follows Hugging Face's Qwen2 code step for step, so the result can be compared with eager PyTorch:
the new residual is rounded to the input dtype (it is a tensor in eager code), the norm is taken in fp32 from that
rounded residual, the normalised value is rounded to the input dtype, and only then multiplied by the weight.
`qwen2_add_rmsnorm` is that eager code itself, Hugging Face's module, which every experiment checks against.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl
from transformers.models.qwen2.modeling_qwen2 import Qwen2RMSNorm


# --8<-- [start:eager]
def make_qwen2_norm(hidden: int, device: str | torch.device, dtype: torch.dtype = torch.bfloat16,
                    eps: float = 1e-6, seed: int = 0) -> Qwen2RMSNorm:
    """Hugging Face's own Qwen2RMSNorm with a seeded random weight (ones would hide the weight multiply)."""
    norm = Qwen2RMSNorm(hidden, eps)
    gen = torch.Generator().manual_seed(seed + hidden)
    with torch.no_grad():
        norm.weight.copy_(1.0 + 0.1 * torch.randn(hidden, generator=gen))
    return norm.to(device=device, dtype=dtype).requires_grad_(False)  # inference: no autograd graph to compile


def qwen2_add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, norm: Qwen2RMSNorm
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """The residual add and the norm as a Qwen2 decoder layer runs them: (new residual, normalised)."""
    h = x + residual  # (rows, hidden)
    return h, norm(h)
# --8<-- [end:eager]


# --8<-- [start:ref]
def add_rmsnorm_ref(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Plain PyTorch in Qwen2RMSNorm's order: (h, y) with h = x + residual and y = weight * norm(h)."""
    h = x + residual  # (rows, hidden), rounded to the input dtype
    hf = h.to(torch.float32)
    variance = hf.pow(2).mean(-1, keepdim=True)  # (rows, 1)
    normed = hf * torch.rsqrt(variance + eps)
    return h, weight * normed.to(x.dtype)
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, h_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # one program per row: the mean runs along it
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols  # BLOCK is the next power of two above n_cols
    base = row * n_cols
    # reads 2 B/elem x, 2 B/elem r (bf16); writes 2 B/elem h, 2 B/elem y; the weight row is shared by all rows
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(h_ptr.dtype.element_ty)  # the residual stream stays in the input dtype, as in eager
    tl.store(h_ptr + base + offs, h, mask=mask)
    hf = h.to(tl.float32)
    variance = tl.sum(hf * hf, axis=0) * (1.0 / n_cols)  # masked lanes loaded 0, so they add nothing
    rstd = tl.math.rsqrt(variance + eps)
    normed = (hf * rstd).to(y_ptr.dtype.element_ty).to(tl.float32)  # rounded before the weight, as in eager
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + base + offs, (normed * w).to(y_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
def add_rmsnorm_triton(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
                       out: tuple[torch.Tensor, torch.Tensor] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, y) as add_rmsnorm_ref, in one launch. `out` lets a caller pass (poisoned) output buffers."""
    assert x.shape == residual.shape and x.dtype == residual.dtype == weight.dtype, \
        f"x {x.shape} {x.dtype}, residual {residual.shape} {residual.dtype}, weight {weight.dtype} must agree"
    n_cols = x.shape[-1]
    assert weight.shape == (n_cols,), f"weight {tuple(weight.shape)} is not ({n_cols},)"
    x2, r2 = x.reshape(-1, n_cols).contiguous(), residual.reshape(-1, n_cols).contiguous()  # (rows, hidden)
    h, y = out if out is not None else (torch.empty_like(x2), torch.empty_like(x2))
    assert h.is_contiguous() and y.is_contiguous() and h.numel() == y.numel() == x2.numel()
    block = triton.next_power_of_2(n_cols)
    num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    _add_rmsnorm_kernel[(x2.shape[0],)](x2, r2, weight.contiguous(), h, y, n_cols, eps,
                                        BLOCK=block, num_warps=num_warps)
    return h.view(x.shape), y.view(x.shape)
# --8<-- [end:wrapper]
