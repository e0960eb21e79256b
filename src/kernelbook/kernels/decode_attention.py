"""Attention for one new token over the filled slots of a static KV cache, in Triton.

A static cache has a fixed number of slots, so a CUDA graph can replay against it; SDPA over all of them with a
mask reads every slot, filled or not, at every step. This kernel reads the position from the device and loops over
slots 0..pos only, so the graph stays the same while the work follows the sequence. One program per query head;
grouped-query attention maps query head h to key/value head h // (q_heads / kv_heads). The softmax is the
streaming (online) one: a running max and sum, rescaled per block of BLOCK_L slots.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from kernelbook.kernels.matvec import launch_options


# --8<-- [start:ref]
def decode_attention_ref(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: int) -> torch.Tensor:
    """q (q_heads, D) against slots 0..pos of k_cache, v_cache (kv_heads, slots, D): (q_heads, D)."""
    group = q.shape[0] // k_cache.shape[0]
    k = k_cache[:, :pos + 1].repeat_interleave(group, dim=0)  # (q_heads, pos + 1, D)
    v = v_cache[:, :pos + 1].repeat_interleave(group, dim=0)
    return F.scaled_dot_product_attention(q[:, None], k, v, scale=1 / math.sqrt(q.shape[-1]))[:, 0]
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _decode_attention_kernel(q_ptr, kc_ptr, vc_ptr, o_ptr, pos_ptr, scale, SLOTS: tl.constexpr, D: tl.constexpr,
                             GROUP: tl.constexpr, BLOCK_L: tl.constexpr, PDL: tl.constexpr):
    head = tl.program_id(0)
    kv = head // GROUP
    d = tl.arange(0, D)
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
        tl.extra.cuda.gdc_wait()  # q and this step's k, v come from the kernel before
    n = tl.load(pos_ptr) + 1  # filled slots: the prompt, the steps so far, and this one
    q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale  # (D,)
    k_base = kc_ptr + kv * SLOTS * D
    v_base = vc_ptr + kv * SLOTS * D
    m_i = -float("inf")  # running max of the scores
    l_i = 0.0  # running sum of exp(score - m_i)
    acc = tl.zeros([D], tl.float32)
    for start in range(0, n, BLOCK_L):
        s_idx = start + tl.arange(0, BLOCK_L)  # (BLOCK_L,) slots
        live = s_idx < n
        k = tl.load(k_base + s_idx[:, None] * D + d[None, :], mask=live[:, None], other=0.0)  # (BLOCK_L, D)
        s = tl.where(live, tl.sum(k.to(tl.float32) * q[None, :], axis=1), -float("inf"))  # (BLOCK_L,)
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)  # (BLOCK_L,), 0 on dead slots
        v = tl.load(v_base + s_idx[:, None] * D + d[None, :], mask=live[:, None], other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    tl.store(o_ptr + head * D + d, (acc / l_i).to(o_ptr.dtype.element_ty))
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: torch.Tensor,
                     out: torch.Tensor | None = None, block_l: int = 64, pdl: bool = False) -> torch.Tensor:
    """decode_attention_ref in one launch, the position read from the device tensor `pos` (1,)."""
    kv_heads, slots, d = k_cache.shape
    q_heads = q.numel() // d
    assert q.is_contiguous() and k_cache.is_contiguous() and v_cache.is_contiguous() and v_cache.shape == k_cache.shape
    assert q_heads % kv_heads == 0, f"{q_heads} query heads do not share {kv_heads} key/value heads evenly"
    out = torch.empty(q_heads, d, device=q.device, dtype=q.dtype) if out is None else out
    pdl, extra = launch_options(pdl, q.device)
    _decode_attention_kernel[(q_heads,)](q, k_cache, v_cache, out, pos, 1 / math.sqrt(d), SLOTS=slots, D=d,
                                         GROUP=q_heads // kv_heads, BLOCK_L=block_l, PDL=pdl, num_warps=4, **extra)
    return out
# --8<-- [end:wrapper]
