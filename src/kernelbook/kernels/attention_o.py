"""Attention for one new token and the output projection after it, residual add included, in one Triton launch.

At batch 1 attention reads almost no bytes, but as a launch of its own it costs a layer a hand-off: the output
projection cannot start its sums before attention has written its last head. Folded together, the projection's
weights are loaded while the kernel before still runs, and the attention result never makes a trip through memory.

W_o (N, q_heads * D) is cut into tiles of BLOCK_N rows by one head's D columns, and program (r, h) owns tile
W_o[rows r, head h]. It loads the tile before it waits for the QKV kernel (weights never change), then computes
head h's attention as decode_attention does with one split (its `first_block` and `attend`: the same arithmetic),
rounds it to the model dtype as that kernel stores it, and multiplies it with the tile: a partial sum (BLOCK_N,)
in fp32 over that head's D columns, stored to a workspace (q_heads, N). Every program of a row block recomputes its
head's attention (the keys and values are a few KiB per head and sit in L2), so no program ever waits for another.
Each then bumps its row block's arrival counter; the program that arrives last adds the q_heads partials in head
order (the same sum whoever arrives last), rounds the projection, adds the residual, writes it, and sets the counter
back to 0 for the next launch.

Memory ordering, as the code below does it: a program's partials are stored by many threads, and Triton issues a
scalar atomic from one thread only (its result broadcast to the others through shared memory), so a CTA barrier
before the atomic makes every thread's stores precede that thread's release (acq_rel, gpu scope); the last program's
acquire, then the broadcast's barrier, order its loads of the partials after every other program's release. Those
loads bypass L1 (.cg): the workspace is the same memory at every layer and every replay, and an SM's L1 may still hold
lines of it from an earlier launch.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from kernelbook.kernels.decode_attention import attend, decode_attention_ref, first_block
from kernelbook.kernels.matvec import PDL_ON, launch_options, matvec_ref


# --8<-- [start:ref]
def attention_o_ref(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: int, w_o: torch.Tensor,
                    residual: torch.Tensor) -> torch.Tensor:
    """residual + W_o att, att = q (q_heads * D,) against slots 0..pos of k_cache, v_cache (kv_heads, slots, D)
    in q's dtype, as decode attention returns it: (N,)."""
    d = k_cache.shape[-1]
    att = decode_attention_ref(q.view(-1, d), k_cache, v_cache, pos).to(q.dtype)  # (q_heads, D)
    return matvec_ref(att.flatten(), w_o, residual=residual)
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _attention_o_kernel(q_ptr, kc_ptr, vc_ptr, pos_ptr, w_ptr, h_ptr, part_ptr, count_ptr, scale, N,
                        SLOTS: tl.constexpr, D: tl.constexpr, GROUP: tl.constexpr, Q_HEADS: tl.constexpr,
                        BLOCK_N: tl.constexpr, BLOCK_L: tl.constexpr, PDL: tl.constexpr):
    rblock, head = tl.program_id(0), tl.program_id(1)
    kv = head // GROUP
    rows = rblock * BLOCK_N + tl.arange(0, BLOCK_N)  # (BLOCK_N,) outputs of this row block
    rmask = rows < N
    cols = head * D + tl.arange(0, D)  # (D,) this head's columns of W_o
    k_base = kc_ptr + kv * SLOTS * D  # (SLOTS, D) of this head's key/value head
    v_base = vc_ptr + kv * SLOTS * D
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
    # reads 2 B/weight of the tile (BLOCK_N, D), once: the whole kernel's share of the weight stream
    w = tl.load(w_ptr + rows.to(tl.int64)[:, None] * (Q_HEADS * D) + cols[None, :], mask=rmask[:, None], other=0.0)
    pos = tl.load(pos_ptr)  # set before the step began
    k_old, v_old = first_block(k_base, v_base, pos, 0, D, BLOCK_L)
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # q, this step's k and v (slot pos) and the residual come from the kernels before
    r = tl.load(h_ptr + rows, mask=rmask, other=0.0)  # read now, off the tail; only the last program writes it
    acc, m_i, l_i = attend(q_ptr, k_base, v_base, head, pos, 0, k_old, v_old, scale, D, BLOCK_L, 1)
    dt = h_ptr.dtype.element_ty
    att = (acc / l_i).to(dt).to(tl.float32)  # (D,) rounded as decode_attention stores it
    part = tl.sum(w.to(tl.float32) * att[None, :], axis=1)  # (BLOCK_N,) fp32: this head's share of each row
    tl.store(part_ptr + head * N + rows, part, mask=rmask)  # writes 4 B/row to the workspace (q_heads, N)
    tl.debug_barrier()  # every thread's partials are stored before the one thread below releases them
    arrived = tl.atomic_add(count_ptr + rblock, 1, sem="acq_rel", scope="gpu")  # heads of this block before it
    if arrived == Q_HEADS - 1:  # the last head of this row block: every partial is in
        y = tl.zeros([BLOCK_N], tl.float32)
        for hh in tl.static_range(Q_HEADS):  # in head order: the same sum whichever program arrives last
            y += tl.load(part_ptr + hh * N + rows, mask=rmask, other=0.0, cache_modifier=".cg")
        y = y.to(dt)  # the projection rounded, as matvec rounds it, then the residual sum rounded
        tl.store(h_ptr + rows, (r.to(tl.float32) + y.to(tl.float32)).to(dt), mask=rmask)
        tl.atomic_xchg(count_ptr + rblock, 0)  # ready for the next launch (the next layer, the next replay)
# --8<-- [end:kernel]


DEFAULT = (64, 32, 8)  # BLOCK_N, BLOCK_L, num_warps: no register spills at D = 128 (ptxas, sm_90)


def workspace(q_heads: int, n: int, block_n: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The heads' partial sums (q_heads, n) fp32 and one arrival counter per row block (cdiv(n, block_n),) int32
    at 0; every launch leaves the counters at 0 again. Allocated once: a CUDA graph needs fixed addresses."""
    return (torch.empty(q_heads, n, device=device, dtype=torch.float32),
            torch.zeros(triton.cdiv(n, block_n), device=device, dtype=torch.int32))


# --8<-- [start:wrapper]
def attention_o(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, pos: torch.Tensor, w_o: torch.Tensor,
                residual: torch.Tensor, config: tuple[int, int, int] = DEFAULT,
                work: tuple[torch.Tensor, torch.Tensor] | None = None, pdl: bool | str = False) -> torch.Tensor:
    """attention_o_ref in one launch, the position read from the device tensor `pos` (1,): the sum is written into
    `residual` (N,) itself and returned. `config` is (BLOCK_N, BLOCK_L, num_warps); `work` is a workspace() of
    this shape and BLOCK_N to reuse."""
    kv_heads, slots, d = k_cache.shape
    n, width = w_o.shape
    q_heads = width // d
    assert q.is_contiguous() and k_cache.is_contiguous() and v_cache.is_contiguous() and v_cache.shape == k_cache.shape
    assert q.numel() == width == q_heads * d and q_heads % kv_heads == 0, f"q {q.numel()}, W_o {tuple(w_o.shape)}"
    assert w_o.is_contiguous() and residual.is_contiguous() and residual.numel() == n and residual.dtype == q.dtype
    block_n, block_l, warps = config
    assert block_n & (block_n - 1) == 0 and block_l & (block_l - 1) == 0 and d & (d - 1) == 0, "powers of two only"
    part, count = work if work is not None else workspace(q_heads, n, block_n, q.device)
    assert part.shape == (q_heads, n) and count.numel() == triton.cdiv(n, block_n), "workspace of another shape"
    pdl, extra = launch_options(pdl, q.device)
    _attention_o_kernel[(triton.cdiv(n, block_n), q_heads)](
        q, k_cache, v_cache, pos, w_o, residual, part, count, 1 / math.sqrt(d), n, SLOTS=slots, D=d,
        GROUP=q_heads // kv_heads, Q_HEADS=q_heads, BLOCK_N=block_n, BLOCK_L=block_l, PDL=pdl, num_warps=warps,
        **extra)
    return residual
# --8<-- [end:wrapper]
