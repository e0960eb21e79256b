"""What a hand-off between two dependent steps costs on the GPU, with no work around it: a chain of hops, each of
G programs reading what the hop before wrote (its own block and another program's) and writing the next.

Two ways to hand off, timed by decode_far.ladder's `handoff`:

- one launch a hop (`hop_chain`), as the decode step does it: under programmatic dependent launch each launch
  starts while the one before runs and waits inside (griddepcontrol.wait) until it has finished;
- one persistent launch for the whole chain (`barrier_chain`), as a "megakernel" would do it: between hops every
  program stores its block, bumps one arrival counter (release) and spins until all G have arrived (acquire). Its
  programs must all be resident at once, or the first ones spin forever.

Each hop writes min(own, other) + 1 from blocks of zeros, so after `hops` hops every value is `hops` exactly when
no program ever read a block before it was written (handoff_ref); a chain out of order leaves smaller values.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernelbook.kernels.matvec import PDL_ON, launch_options

BLOCK = 128  # int32 values a program reads and writes per hop
OTHER = 7  # program p also reads program (p + OTHER) % G's block: a hop depends on more than itself


# --8<-- [start:ref]
def handoff_ref(programs: int, hops: int, device: torch.device) -> torch.Tensor:
    """What a chain in order leaves: every value of every program's block equal to the number of hops."""
    return torch.full((programs * BLOCK,), hops, dtype=torch.int32, device=device)
# --8<-- [end:ref]


# --8<-- [start:kernel]
@triton.jit
def _hop(src, dst, pid, G, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(src + pid * BLOCK + offs, cache_modifier=".cg")  # from L2: another SM wrote it
    b = tl.load(src + ((pid + OTHER) % G) * BLOCK + offs, cache_modifier=".cg")
    tl.store(dst + pid * BLOCK + offs, tl.minimum(a, b) + 1)  # a stale read stays short to the end


@triton.jit
def _hop_kernel(src, dst, G, BLOCK: tl.constexpr, OTHER: tl.constexpr, PDL: tl.constexpr):
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # the hop before has finished, its stores visible
    _hop(src, dst, tl.program_id(0), G, BLOCK, OTHER)


@triton.jit
def _barrier_kernel(buf0, buf1, count_ptr, G, HOPS: tl.constexpr, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    pid = tl.program_id(0)
    for h in range(HOPS):
        even = h % 2 == 0
        _hop(tl.where(even, buf0, buf1), tl.where(even, buf1, buf0), pid, G, BLOCK, OTHER)
        tl.debug_barrier()  # every thread's stores before the one thread's release below
        tl.atomic_add(count_ptr + h, 1, sem="release", scope="gpu")
        seen = tl.load(count_ptr + h, volatile=True)
        while seen < G:  # spin until every program has arrived
            seen = tl.load(count_ptr + h, volatile=True)
        tl.atomic_add(count_ptr + h, 0, sem="acquire", scope="gpu")  # then see what they stored
        tl.debug_barrier()
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
def buffers(programs: int, hops: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two blocks of values (programs * BLOCK,) int32 at 0 and one arrival counter per hop: zero them before each
    chain (a graph replays that too)."""
    z = torch.zeros(programs * BLOCK, dtype=torch.int32, device=device)
    return z, torch.zeros_like(z), torch.zeros(hops, dtype=torch.int32, device=device)


def hop_chain(bufs: tuple[torch.Tensor, torch.Tensor, torch.Tensor], programs: int, hops: int,
              pdl: bool | str = True) -> torch.Tensor:
    """`hops` launches of `programs` programs each, PDL where supported (launch_options); returns the last block."""
    a, b, _ = bufs
    flag, extra = launch_options(pdl, a.device)
    for h in range(hops):
        src, dst = (a, b) if h % 2 == 0 else (b, a)
        _hop_kernel[(programs,)](src, dst, programs, BLOCK=BLOCK, OTHER=OTHER, PDL=flag, num_warps=4, **extra)
    return a if hops % 2 == 0 else b


def barrier_chain(bufs: tuple[torch.Tensor, torch.Tensor, torch.Tensor], programs: int, hops: int) -> torch.Tensor:
    """The same hops in one launch of `programs` programs with a grid-wide barrier between hops. Every program must
    be resident at once: a GPU only (Triton's interpreter runs programs one after another, so the first would spin
    forever)."""
    a, b, count = bufs
    assert a.device.type == "cuda", "the barrier needs every program running at once: a GPU"
    assert count.numel() >= hops, "one arrival counter per hop"
    _barrier_kernel[(programs,)](a, b, count, programs, HOPS=hops, BLOCK=BLOCK, OTHER=OTHER, num_warps=4)
    return a if hops % 2 == 0 else b
# --8<-- [end:wrapper]
