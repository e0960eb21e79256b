"""Attention for one new token over the filled slots of a static KV cache, in Triton.

A static cache has a fixed number of slots, so a CUDA graph can replay against it; SDPA over all of them with a
mask reads every slot, filled or not, at every step. This kernel reads the position from the device and visits
slots 0..pos only, so the graph stays the same while the work follows the sequence.

One token's attention is small work spread thin: 12 query heads, each a dot product with every filled key. One
program per head would leave most of the GPU idle and walk the slots one block after another, so the slots are
split too (as flash-decoding does): program (head, split) takes blocks split, split + SPLITS, ... of BLOCK_L slots,
keeps a streaming softmax (running max and sum) over them and writes its partial result to a workspace. A second,
tiny launch merges each head's SPLITS partials: the kernel boundary orders the merge after every partial, with
no synchronisation between programs. With SPLITS = 1 a program walks all of its head's slots and writes the output
itself, in one launch: for a short sequence that can beat the split (the tuner decides).
Grouped-query attention maps query head h to key/value head h // (q_heads / kv_heads). Under programmatic
dependent launch a program loads its first block's keys and values from earlier steps (slots 0..pos-1) before it
waits for the QKV kernel, which writes only the query and slot pos. The two halves, `first_block` before the wait
and `attend` after it, are jit functions of their own: attention_o.py runs the same softmax inside the output
projection.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from kernelbook.kernels.matvec import PDL_ON, launch_options


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
def first_block(k_base, v_base, pos, first, D: tl.constexpr, BLOCK_L: tl.constexpr):
    """Keys and values (BLOCK_L, D) of one key/value head (k_base, v_base: its (slots, D) in the caches) in the
    block of slots from `first` that earlier steps wrote (slots 0..pos-1), 0 elsewhere: nothing writes them during
    this step, so they can be loaded before the wait."""
    d = tl.arange(0, D)
    s0 = first + tl.arange(0, BLOCK_L)
    k_old = tl.load(k_base + s0[:, None] * D + d[None, :], mask=(s0 < pos)[:, None], other=0.0)  # (BLOCK_L, D)
    v_old = tl.load(v_base + s0[:, None] * D + d[None, :], mask=(s0 < pos)[:, None], other=0.0)
    return k_old, v_old


@triton.jit
def attend(q_ptr, k_base, v_base, head, pos, first, k_old, v_old, scale, D: tl.constexpr, BLOCK_L: tl.constexpr,
           SPLITS: tl.constexpr):
    """A streaming softmax of query head `head` over blocks first, first + SPLITS * BLOCK_L, ... of slots 0..pos of
    its key/value head, the first block's old slots taken from k_old, v_old (first_block): (acc (D,), running max,
    running sum), fp32."""
    d = tl.arange(0, D)
    n = pos + 1  # filled slots: the prompt, the steps so far, and this one
    q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale  # (D,)
    m_i = -float("inf")  # running max of this program's scores
    l_i = 0.0  # running sum of exp(score - m_i)
    acc = tl.zeros([D], tl.float32)
    for start in range(first, n, SPLITS * BLOCK_L):
        s_idx = start + tl.arange(0, BLOCK_L)  # (BLOCK_L,) slots
        live = s_idx < n
        pre = (s_idx < pos) & (s_idx < first + BLOCK_L)  # in the first block and loaded before the wait
        fresh = (live & ((s_idx >= pos) | (s_idx >= first + BLOCK_L)))[:, None]
        k = tl.where(pre[:, None], k_old, tl.load(k_base + s_idx[:, None] * D + d[None, :], mask=fresh, other=0.0))
        v = tl.where(pre[:, None], v_old, tl.load(v_base + s_idx[:, None] * D + d[None, :], mask=fresh, other=0.0))
        s = tl.where(live, tl.sum(k.to(tl.float32) * q[None, :], axis=1), -float("inf"))  # (BLOCK_L,)
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)  # (BLOCK_L,), 0 on dead slots
        acc = acc * alpha + tl.sum(p[:, None] * v.to(tl.float32), axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def _attention_kernel(q_ptr, kc_ptr, vc_ptr, pos_ptr, ws_ptr, o_ptr, scale, SLOTS: tl.constexpr,
                      D: tl.constexpr, GROUP: tl.constexpr, BLOCK_L: tl.constexpr, SPLITS: tl.constexpr,
                      PDL: tl.constexpr):
    head, split = tl.program_id(0), tl.program_id(1)
    kv = head // GROUP
    d = tl.arange(0, D)
    k_base = kc_ptr + kv * SLOTS * D
    v_base = vc_ptr + kv * SLOTS * D
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
    pos = tl.load(pos_ptr)  # set before the step began
    first = split * BLOCK_L  # this program's first block of slots
    k_old, v_old = first_block(k_base, v_base, pos, first, D, BLOCK_L)
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # q and this step's k, v (slot pos) come from the kernel before
    acc, m_i, l_i = attend(q_ptr, k_base, v_base, head, pos, first, k_old, v_old, scale, D, BLOCK_L, SPLITS)
    if SPLITS == 1:  # this program saw every slot of its head: the result is final
        tl.store(o_ptr + head * D + d, (acc / l_i).to(o_ptr.dtype.element_ty))
    else:  # the partial result: acc (D,), then m and l, fp32, in the workspace (q_heads, SPLITS, D + 2)
        part = ws_ptr + (head * SPLITS + split) * (D + 2)
        tl.store(part + d, acc)
        tl.store(part + D, m_i)
        tl.store(part + D + 1, l_i)


@triton.jit
def _attention_merge_kernel(ws_ptr, o_ptr, D: tl.constexpr, SPLITS: tl.constexpr, PDL: tl.constexpr):
    head = tl.program_id(0)
    d = tl.arange(0, D)
    sp = tl.arange(0, SPLITS)
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # every partial of the launch before
    rows = ws_ptr + (head * SPLITS + sp) * (D + 2)  # (SPLITS,)
    ms = tl.load(rows + D)
    ls = tl.load(rows + D + 1)
    accs = tl.load(rows[:, None] + d[None, :])  # (SPLITS, D)
    m = tl.max(ms, axis=0)
    w = tl.exp(ms - m)  # 0 for splits that saw no slot (m = -inf)
    out = tl.sum(accs * w[:, None], axis=0) / tl.sum(ls * w, axis=0)
    tl.store(o_ptr + head * D + d, out.to(o_ptr.dtype.element_ty))
# --8<-- [end:kernel]


DEFAULT = (32, 16, 4)  # BLOCK_L, SPLITS, num_warps


def workspace(q_heads: int, d: int, splits: int, device: torch.device) -> torch.Tensor:
    """The partial results (q_heads, splits, d + 2) fp32: each split's weighted sum, running max and sum."""
    return torch.empty(q_heads, splits, d + 2, device=device, dtype=torch.float32)


# --8<-- [start:wrapper]
def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: torch.Tensor,
                     out: torch.Tensor | None = None, config: tuple[int, int, int] = DEFAULT,
                     work: torch.Tensor | None = None, pdl: bool | str = False) -> torch.Tensor:
    """decode_attention_ref in two launches (partials, merge), or one when SPLITS is 1, the position read from the
    device tensor `pos` (1,). `config` is (BLOCK_L, SPLITS, num_warps); `work` is a workspace() to reuse (a graph
    needs fixed addresses)."""
    kv_heads, slots, d = k_cache.shape
    q_heads = q.numel() // d
    assert q.is_contiguous() and k_cache.is_contiguous() and v_cache.is_contiguous() and v_cache.shape == k_cache.shape
    assert q_heads % kv_heads == 0, f"{q_heads} query heads do not share {kv_heads} key/value heads evenly"
    block_l, splits, warps = config
    assert splits & (splits - 1) == 0 and block_l & (block_l - 1) == 0, f"{config}: powers of two only"
    ws = work if work is not None else workspace(q_heads, d, splits, q.device)
    assert ws.shape == (q_heads, splits, d + 2), "workspace of another config"
    out = torch.empty(q_heads, d, device=q.device, dtype=q.dtype) if out is None else out
    pdl, extra = launch_options(pdl, q.device)
    _attention_kernel[(q_heads, splits)](q, k_cache, v_cache, pos, ws, out, 1 / math.sqrt(d), SLOTS=slots,
                                         D=d, GROUP=q_heads // kv_heads, BLOCK_L=block_l, SPLITS=splits,
                                         PDL=pdl, num_warps=warps, **extra)
    if splits > 1:
        _attention_merge_kernel[(q_heads,)](ws, out, D=d, SPLITS=splits, PDL=pdl, num_warps=4, **extra)
    return out
# --8<-- [end:wrapper]
