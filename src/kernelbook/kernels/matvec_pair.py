"""Two rows of W per output, y = f(W[r1] x, W[r2] x): the fused QKV and gate/up projections of a batch-1 decode
step with what follows them done in the same kernel.

Both epilogues need two projection rows at once. SwiGLU's output p needs gate row p and up row p of the stacked
weight [W_gate; W_up]; rotary embedding needs rows j and j + 64 of a head (rotate_half pairs them). So a program
owns BLOCK_P pairs: pair p reads rows r1 = (p // GROUP) * 2 * GROUP + p % GROUP and r2 = r1 + GROUP, where GROUP
is half a head (64) for QKV and the intermediate size for gate/up. Like the plain matvec kernel it can normalise x
first (NORM) and start under programmatic dependent launch (PDL).

- SWIGLU: out[p] = silu(gate) * up, eager's roundings kept.
- ROPE: the stacked [W_q; W_k; W_v] with its bias; q and k are rotated by the cos/sin row of position `pos`
  (read on the device), q is written to `out`, k and v straight into their cache slot at `pos`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from kernelbook.kernels.matvec import PDL_ON, first_chunk, launch_options, mul_rn, rmsnorm_ref, x_chunk


# --8<-- [start:ref]
def rotate_ref(t: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Hugging Face's apply_rotary_pos_emb for one tensor (..., head_dim): t cos + rotate_half(t) sin."""
    half = t.shape[-1] // 2
    return t * cos + torch.cat((-t[..., half:], t[..., :half]), dim=-1) * sin


def swiglu_pair_ref(x: torch.Tensor, w_gate_up: torch.Tensor, norm_weight: torch.Tensor | None = None,
                    eps: float = 1e-6) -> torch.Tensor:
    """silu(W_gate x) * (W_up x) for one row x (K,) and the stacked weight (2 I, K): (I,)."""
    if norm_weight is not None:
        x = rmsnorm_ref(x, norm_weight, eps)
    g, u = F.linear(x, w_gate_up).chunk(2)
    return F.silu(g) * u


def qkv_rope_ref(x: torch.Tensor, w_qkv: torch.Tensor, b_qkv: torch.Tensor, norm_weight: torch.Tensor | None,
                 cos: torch.Tensor, sin: torch.Tensor, pos: int, k_cache: torch.Tensor, v_cache: torch.Tensor,
                 q_heads: int, eps: float = 1e-6) -> torch.Tensor:
    """q (q_heads * D,) rotated; k rotated and v written into the caches (kv_heads, slots, D) at slot `pos`.
    cos and sin are tables (slots, D)."""
    if norm_weight is not None:
        x = rmsnorm_ref(x, norm_weight, eps)
    d = k_cache.shape[-1]
    qkv = F.linear(x, w_qkv, b_qkv).view(-1, d)  # (q_heads + 2 kv_heads, D)
    q, k, v = qkv[:q_heads], qkv[q_heads:q_heads + k_cache.shape[0]], qkv[q_heads + k_cache.shape[0]:]
    k_cache[:, pos] = rotate_ref(k, cos[pos], sin[pos])
    v_cache[:, pos] = v
    return rotate_ref(q, cos[pos], sin[pos]).flatten()
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _matvec_pair_kernel(x_ptr, w_ptr, b_ptr, g_ptr, out_ptr, cos_ptr, sin_ptr, pos_ptr, kc_ptr, vc_ptr, eps,
                        PAIRS, K: tl.constexpr, GROUP: tl.constexpr, BLOCK_P: tl.constexpr,
                        BLOCK_K: tl.constexpr, NORM: tl.constexpr, BIAS: tl.constexpr, ROPE: tl.constexpr,
                        Q_HEADS: tl.constexpr, KV_HEADS: tl.constexpr, SLOTS: tl.constexpr, PDL: tl.constexpr):
    pid = tl.program_id(0)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P)  # (BLOCK_P,) pairs of this program
    pmask = p < PAIRS
    r1 = (p // GROUP) * (2 * GROUP) + p % GROUP  # first row of each pair; the second is GROUP rows on
    cols = tl.arange(0, BLOCK_K)
    w1 = w_ptr + r1.to(tl.int64)[:, None] * K  # (BLOCK_P, 1)
    w2 = w1 + GROUP * K
    m = pmask[:, None] & (cols[None, :] < K)
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
    a = tl.load(w1 + cols[None, :], mask=m, other=0.0)  # weights first: they do not wait for anything
    b = tl.load(w2 + cols[None, :], mask=m, other=0.0)
    if BIAS:  # nor do the bias and, for RoPE, the position (set before the step) and its angles
        b1 = tl.load(b_ptr + r1, mask=pmask, other=0.0).to(tl.float32)
        b2 = tl.load(b_ptr + r1 + GROUP, mask=pmask, other=0.0).to(tl.float32)
    if ROPE:
        j = p % GROUP  # (BLOCK_P,) position in the head's first half
        pos = tl.load(pos_ptr)
        cos = tl.load(cos_ptr + pos * (2 * GROUP) + j).to(tl.float32)  # cos[j] = cos[j + GROUP]
        sin = tl.load(sin_ptr + pos * (2 * GROUP) + j).to(tl.float32)
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()
    xc, rstd = first_chunk(x_ptr, g_ptr, cols, K, eps, BLOCK_K, NORM)
    xc = xc[None, :]
    acc1 = a.to(tl.float32) * xc  # (BLOCK_P, BLOCK_K) fp32
    acc2 = b.to(tl.float32) * xc
    for k0 in tl.static_range(BLOCK_K, K, BLOCK_K):  # unrolled: loads can be issued early
        c = k0 + cols
        m = pmask[:, None] & (c[None, :] < K)
        xc = x_chunk(x_ptr, g_ptr, c, K, rstd, NORM)[None, :]
        acc1 += tl.load(w1 + c[None, :], mask=m, other=0.0).to(tl.float32) * xc
        acc2 += tl.load(w2 + c[None, :], mask=m, other=0.0).to(tl.float32) * xc
    y1, y2 = tl.sum(acc1, axis=1), tl.sum(acc2, axis=1)  # (BLOCK_P,)
    if BIAS:
        y1 += b1
        y2 += b2
    dt = out_ptr.dtype.element_ty
    y1, y2 = y1.to(dt).to(tl.float32), y2.to(dt).to(tl.float32)  # each projection output rounded, as eager's
    if ROPE:  # BLOCK_P divides GROUP, so all of a program's pairs belong to one head
        head = pid * BLOCK_P // GROUP  # 0..Q_HEADS-1: q, then KV_HEADS of k, then KV_HEADS of v
        if head < Q_HEADS + KV_HEADS:  # q and k turn by the position's angles; v does not
            # each product rounded on its own, as eager rounds it: a plain * here would be fused into an FMA
            o1 = (mul_rn(y1, cos).to(dt).to(tl.float32) - mul_rn(y2, sin).to(dt).to(tl.float32)).to(dt)
            o2 = (mul_rn(y2, cos).to(dt).to(tl.float32) + mul_rn(y1, sin).to(dt).to(tl.float32)).to(dt)
        else:
            o1, o2 = y1.to(dt), y2.to(dt)
        if head < Q_HEADS:
            dst = out_ptr + head * (2 * GROUP) + j
        elif head < Q_HEADS + KV_HEADS:
            dst = kc_ptr + ((head - Q_HEADS) * SLOTS + pos) * (2 * GROUP) + j
        else:
            dst = vc_ptr + ((head - Q_HEADS - KV_HEADS) * SLOTS + pos) * (2 * GROUP) + j
        tl.store(dst, o1, mask=pmask)
        tl.store(dst + GROUP, o2, mask=pmask)
    else:  # SwiGLU: silu(gate) rounded, times up, rounded
        silu = tl.math.div_rn(y1, 1.0 + tl.exp(-y1)).to(dt).to(tl.float32)
        tl.store(out_ptr + p, (silu * y2).to(dt), mask=pmask)
# --8<-- [end:kernel]


DEFAULT = (8, 512, 4)  # BLOCK_P, BLOCK_K, num_warps


def _launch(x, w, bias, norm_weight, out, cos, sin, pos, kc, vc, eps, pairs, group, rope, q_heads, kv_heads,
            slots, config, pdl):
    block_p, block_k, warps = config
    assert x.is_contiguous() and w.is_contiguous() and x.numel() == w.shape[1], "x (K,) against W (rows, K)"
    assert norm_weight is None or (norm_weight.numel() == x.numel() and norm_weight.dtype == w.dtype)
    pdl, extra = launch_options(pdl, x.device)
    _matvec_pair_kernel[(triton.cdiv(pairs, block_p),)](
        x, w, x if bias is None else bias, x if norm_weight is None else norm_weight, out, cos, sin, pos, kc, vc,
        eps, pairs, K=w.shape[1], GROUP=group, BLOCK_P=block_p, BLOCK_K=block_k, NORM=norm_weight is not None,
        BIAS=bias is not None, ROPE=rope, Q_HEADS=q_heads, KV_HEADS=kv_heads, SLOTS=slots, PDL=pdl,
        num_warps=warps, **extra)
    return out


# --8<-- [start:wrapper]
def swiglu_pair(x: torch.Tensor, w_gate_up: torch.Tensor, norm_weight: torch.Tensor | None = None,
                out: torch.Tensor | None = None, eps: float = 1e-6, config: tuple[int, int, int] = DEFAULT,
                pdl: bool | str = False) -> torch.Tensor:
    """swiglu_pair_ref in one launch: (I,) from the stacked gate/up weight (2 I, K)."""
    inter = w_gate_up.shape[0] // 2
    out = torch.empty(inter, device=x.device, dtype=x.dtype) if out is None else out
    assert out.numel() == inter and out.is_contiguous()
    return _launch(x, w_gate_up, None, norm_weight, out, x, x, x, x, x, eps, inter, inter, False, 0, 0, 0,
                   config, pdl)


def qkv_rope(x: torch.Tensor, w_qkv: torch.Tensor, b_qkv: torch.Tensor, norm_weight: torch.Tensor | None,
             cos: torch.Tensor, sin: torch.Tensor, pos: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
             q_heads: int, out: torch.Tensor | None = None, eps: float = 1e-6,
             config: tuple[int, int, int] = DEFAULT, pdl: bool | str = False) -> torch.Tensor:
    """qkv_rope_ref in one launch, reading the position from the device tensor `pos` (1,): returns q."""
    kv_heads, slots, d = k_cache.shape
    assert v_cache.shape == k_cache.shape and k_cache.is_contiguous() and v_cache.is_contiguous()
    assert w_qkv.shape[0] == (q_heads + 2 * kv_heads) * d and cos.shape == sin.shape == (slots, d)
    assert (d // 2) % config[0] == 0, f"BLOCK_P {config[0]} must divide half a head ({d // 2})"
    out = torch.empty(q_heads * d, device=x.device, dtype=x.dtype) if out is None else out
    return _launch(x, w_qkv, b_qkv, norm_weight, out, cos, sin, pos, k_cache, v_cache, eps, w_qkv.shape[0] // 2,
                   d // 2, True, q_heads, kv_heads, slots, config, pdl)
# --8<-- [end:wrapper]
