"""Greedy decoding's last move inside the step: the argmax of the logits written straight into the step's input
buffer, and the position advanced, so the next replay needs nothing from the host.

A decode loop outside the graph takes the argmax (a PyTorch reduction), copies the token into the input buffer and fills
in the next position: three small launches between replays. Here one launch does all three. Each program takes BLOCK
logits and folds each into one non-negative int64 key, the logit's bits made order-preserving above its reversed index,
so that the largest key is the largest logit and, among equal logits, the first index (torch.argmax's rule). One atomic
max per program combines them; the program that arrives last (an atomic counter) decodes the key into the token,
advances the position and resets the key and the counter for the next step.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.matvec import PDL_ON, launch_options

KEY_FLOOR = 0  # no key is below it: the accumulator's value between steps


# --8<-- [start:ref]
def next_token_ref(logits: torch.Tensor, ids: torch.Tensor, pos: torch.Tensor) -> None:
    """ids (1, 1) <- argmax of logits (1, V); pos (1,) <- pos + 1."""
    ids.copy_(logits.argmax(-1).view(1, 1))
    pos.add_(1)
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _next_token_kernel(logits_ptr, ids_ptr, pos_ptr, key_ptr, count_ptr, V, BLOCK: tl.constexpr,
                       PDL: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)  # (BLOCK,) vocabulary indices
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # the logits come from the kernel before
    v = tl.load(logits_ptr + i, mask=i < V, other=float("-inf")).to(tl.float32)  # 2 B/logit read (bf16)
    bits = tl.where(v == 0.0, 0, v.to(tl.int32, bitcast=True))  # -0.0 ties with +0.0, as in torch.argmax
    ordered = tl.where(bits >= 0, bits, bits ^ 0x7FFFFFFF).to(tl.int64) + 2**31  # 0 .. 2^32 - 1, float order
    key = (ordered << 31) | (0x7FFFFFFF - i).to(tl.int64)  # equal logits: the lower index wins
    tl.atomic_max(key_ptr, tl.max(key, axis=0))
    last = tl.atomic_add(count_ptr, 1) == tl.num_programs(0) - 1  # acq_rel: every program's max is in
    best = tl.atomic_xchg(key_ptr, 0, mask=last)  # read and reset (KEY_FLOOR), for the next step
    tl.store(ids_ptr, 0x7FFFFFFF - (best & 0x7FFFFFFF), mask=last)
    tl.store(pos_ptr, tl.load(pos_ptr) + 1, mask=last)
    tl.atomic_xchg(count_ptr, 0, mask=last)
# --8<-- [end:kernel]


def workspace(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The key accumulator (1,) int64 at KEY_FLOOR and the arrival counter (1,) int32 at 0; the kernel leaves them
    so after every launch."""
    return (torch.full((1,), KEY_FLOOR, dtype=torch.int64, device=device),
            torch.zeros(1, dtype=torch.int32, device=device))


# --8<-- [start:wrapper]
def next_token(logits: torch.Tensor, ids: torch.Tensor, pos: torch.Tensor,
               work: tuple[torch.Tensor, torch.Tensor] | None = None, block: int = 4096,
               pdl: bool | str = False) -> None:
    """next_token_ref in one launch: ids (1, 1) int64 and pos (1,) int64 updated in place on the device."""
    assert logits.is_contiguous() and ids.dtype == pos.dtype == torch.int64 and ids.numel() == pos.numel() == 1
    assert logits.numel() < (1 << 31), "indices are packed into 32 bits"
    key, count = work if work is not None else workspace(logits.device)
    pdl, extra = launch_options(pdl, logits.device)
    _next_token_kernel[(triton.cdiv(logits.numel(), block),)](logits, ids, pos, key, count, logits.numel(),
                                                              BLOCK=block, PDL=pdl, num_warps=8, **extra)
# --8<-- [end:wrapper]
