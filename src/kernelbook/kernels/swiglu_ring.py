"""SwiGLU's gate/up projection with its weights streamed through shared memory: a persistent grid in Gluon, each
program a ring of whole blocks of weights kept in flight.

matvec_pair's SwiGLU loads its weights into registers before it waits for the kernel ahead (programmatic dependent
launch), so what a program can hold in flight is bounded by its registers, and only the programs that are resident
by then get to start. Here each SM runs the few programs whose rings fit RING_SMEM, for the whole launch. A program
owns blocks pid, pid + G, ... of BLOCK_P pairs (gate rows and up rows of the stacked weight [W_gate; W_up], all K
columns) and keeps NBUF of them in shared memory at once, with cp.async: it issues the first NBUF before the wait,
and the block NBUF on as soon as it has used one. So up to RING_SMEM of the layer's weights an SM can be on their
way before the kernels ahead (attention and the output projection) have finished, and the stream never drains
between blocks.

The norm weight is loaded before the wait too. After it, x is read once (one trip to L2: its sum of squares and its
normalised chunks come from the same registers), normalised and held in registers, K // KC chunks. The arithmetic
is matvec_pair's, with eager's roundings: x normalised and rounded to bf16 and times the norm weight, rounded; each
projection summed in fp32 and rounded; silu(gate) rounded, times up, rounded. Each thread reads back from shared
memory the elements it copied itself, so the ring needs no barrier of its own.

Gluon (Triton's lower-level language, with explicit layouts and shared memory) has no CPU interpreter: off a
Hopper GPU the decode step launches matvec_pair's kernel instead (ring_supported), and the tests check this one's
schedule and that it compiles for sm_90.
"""

from __future__ import annotations

import os

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp

from kernelbook.kernels.matvec import launch_options
from kernelbook.kernels.matvec_pair import swiglu_pair_ref

__all__ = ["DEFAULT", "RING_SMEM", "chunk", "fits", "layout_fits", "programs", "ring_blocks", "ring_bytes",
           "ring_supported", "swiglu_pair_ref", "swiglu_ring"]

_load_async = getattr(cp, "async_load", None) or cp.async_copy_global_to_shared  # renamed after Triton 3.6


@gluon.jit
def _gdc_wait():
    gl.inline_asm_elementwise("griddepcontrol.wait; // dummy $0", "=r", [], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _gdc_launch_dependents():
    gl.inline_asm_elementwise("griddepcontrol.launch_dependents; // dummy $0", "=r", [], dtype=gl.int32,
                              is_pure=False, pack=1)


# --8<-- [start:kernel]
@gluon.jit
def _issue(gs, us, w_ptr, j, my_blocks, pid, G, rows, cols, K: gl.constexpr, INTER: gl.constexpr,
           BLOCK_P: gl.constexpr, KC: gl.constexpr, NCH: gl.constexpr, NBUF: gl.constexpr, L: gl.constexpr):
    """Start copying this program's j-th block (gate rows and up rows, (BLOCK_P, K) each) into ring slot j % NBUF,
    NCH chunks of (BLOCK_P, KC), as one cp.async group; past the program's last block the group is empty."""
    r = (pid + j * G) * BLOCK_P + rows  # (BLOCK_P,) gate rows; the up rows are INTER further on
    p = w_ptr + r.to(gl.int64)[:, None] * K + cols[None, :]  # (BLOCK_P, KC), 2 B a weight
    live = (gl.zeros([BLOCK_P, KC], gl.int32, L) + j) < my_blocks  # one value for the whole tile
    for ch in gl.static_range(NCH):
        _load_async(gs.index((j % NBUF) * NCH + ch), p + ch * KC, mask=live)
        _load_async(us.index((j % NBUF) * NCH + ch), p + ch * KC + INTER * K, mask=live)
    cp.commit_group()


@gluon.jit
def _x_norm(x, g, rstd):
    """A chunk of x normalised, rounded, times the norm weight g, rounded (matvec.x_chunk's arithmetic), in fp32."""
    xn = (x * rstd).to(gl.bfloat16).to(gl.float32)
    return (xn * g).to(gl.bfloat16).to(gl.float32)


@gluon.jit
def _swiglu_ring_kernel(x_ptr, w_ptr, g_ptr, out_ptr, eps, n_blocks, K: gl.constexpr, INTER: gl.constexpr,
                        BLOCK_P: gl.constexpr, KC: gl.constexpr, NBUF: gl.constexpr, L: gl.constexpr,
                        PDL: gl.constexpr):
    NCH: gl.constexpr = K // KC
    pid = gl.program_id(0)
    G = gl.num_programs(0)
    my_blocks = (n_blocks - pid + G - 1) // G  # blocks pid, pid + G, ... below n_blocks
    rows = gl.arange(0, BLOCK_P, layout=gl.SliceLayout(1, L))
    cols = gl.arange(0, KC, layout=gl.SliceLayout(0, L))
    S: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 1, [1, 0])
    gs = gl.allocate_shared_memory(gl.bfloat16, [NBUF * NCH, BLOCK_P, KC], S)  # the ring: gate rows
    us = gl.allocate_shared_memory(gl.bfloat16, [NBUF * NCH, BLOCK_P, KC], S)  # and up rows
    if PDL:
        _gdc_launch_dependents()
    for j in gl.static_range(NBUF):  # weights first: nothing writes them
        _issue(gs, us, w_ptr, j, my_blocks, pid, G, rows, cols, K, INTER, BLOCK_P, KC, NCH, NBUF, L)
    gw = ()
    for ch in gl.static_range(NCH):  # nor the norm weight: (K,) in NCH chunks
        gw = gw + (gl.load(g_ptr + ch * KC + cols).to(gl.float32),)
    if PDL == 1:
        _gdc_wait()  # x, the residual stream, comes from the kernel ahead
    xv = ()
    for ch in gl.static_range(NCH):  # x read once: one trip to L2 after the wait
        xv = xv + (gl.load(x_ptr + ch * KC + cols).to(gl.float32),)
    ss = gl.zeros([KC], gl.float32, layout=gl.SliceLayout(0, L))
    for ch in gl.static_range(NCH):
        ss += xv[ch] * xv[ch]
    rstd = gl.rsqrt(gl.sum(ss, axis=0) / K + eps)
    xs = ()
    for ch in gl.static_range(NCH):  # x normalised once, NCH chunks held in registers
        xs = xs + (_x_norm(xv[ch], gw[ch], rstd)[None, :],)
    for j in range(my_blocks):
        cp.wait_group(NBUF - 1)  # block j has landed (the NBUF - 1 groups after it may still be in flight)
        s = (j % NBUF) * NCH
        acc_g = gl.zeros([BLOCK_P, KC], gl.float32, L)
        acc_u = gl.zeros([BLOCK_P, KC], gl.float32, L)
        for ch in gl.static_range(NCH):
            acc_g += gs.index(s + ch).load(L).to(gl.float32) * xs[ch]
            acc_u += us.index(s + ch).load(L).to(gl.float32) * xs[ch]
        _issue(gs, us, w_ptr, j + NBUF, my_blocks, pid, G, rows, cols, K, INTER, BLOCK_P, KC, NCH, NBUF, L)
        y1 = gl.sum(acc_g, axis=1).to(gl.bfloat16).to(gl.float32)  # (BLOCK_P,) each projection rounded
        y2 = gl.sum(acc_u, axis=1).to(gl.bfloat16).to(gl.float32)
        silu = gl.div_rn(y1, 1.0 + gl.exp(-y1)).to(gl.bfloat16).to(gl.float32)
        gl.store(out_ptr + (pid + j * G) * BLOCK_P + rows, (silu * y2).to(gl.bfloat16))  # 2 B an output
    cp.wait_group(0)
# --8<-- [end:kernel]


DEFAULT = (4, 4, 4)  # BLOCK_P, NBUF, num_warps
RING_SMEM = 192 * 1024  # shared memory the rings of one SM may take: an H100/H200 SM has 228 KiB
MAX_PER_SM = 4


def chunk(k: int) -> int:
    """The columns a copy covers: the largest power of two up to 512 that divides K (at least 32 threads x 2)."""
    c = 512
    while k % c:
        c //= 2
    assert c >= 64, f"K = {k}: no chunk of 64 or more columns divides it"
    return c


def ring_bytes(config: tuple[int, int, int], k: int) -> int:
    """One program's ring: NBUF blocks of BLOCK_P gate rows and as many up rows, K weights of 2 B each."""
    block_p, nbuf, _ = config
    return nbuf * 2 * block_p * k * 2


def fits(config: tuple[int, int, int], k: int) -> bool:
    """Whether one ring of `config` at width K fits RING_SMEM."""
    return ring_bytes(config, k) <= RING_SMEM


def programs(k: int, config: tuple[int, int, int], sms: int) -> int:
    """The grid: as many programs per SM as RING_SMEM holds rings of `config` (at most MAX_PER_SM)."""
    ring = ring_bytes(config, k)
    assert ring <= RING_SMEM, f"{config}: a ring of {ring} B is more than {RING_SMEM} B of shared memory"
    return sms * min(MAX_PER_SM, RING_SMEM // ring)


def ring_blocks(n_blocks: int, grid: int) -> list[list[int]]:
    """The blocks each program walks, in order (the kernel's schedule, for the tests)."""
    return [list(range(pid, n_blocks, grid)) for pid in range(grid)]


def _split(block_p: int, kc: int, warps: int) -> tuple[int, int, int]:
    """(warps over rows, warps along K, bf16 a thread along K): warps over rows first, then along K; 16 B a thread
    where the chunk is wide enough. 0 for the last where a copy would be under cp.async's 4 B."""
    wr = min(warps, block_p)
    wc = warps // wr
    vec = min(8, kc // (32 * wc))
    return wr, wc, vec if vec >= 2 and block_p % wr == 0 else 0


def layout_fits(config: tuple[int, int, int], k: int) -> bool:
    """Whether `config` has a layout at width K: every thread copies at least 4 B (2 bf16) at a time."""
    block_p, _, warps = config
    return _split(block_p, chunk(k), warps)[2] > 0


def layout(block_p: int, kc: int, warps: int) -> gl.BlockedLayout:
    """Threads along K, 16 B (8 bf16) each where the chunk is wide enough; warps over rows first, then along K."""
    wr, wc, vec = _split(block_p, kc, warps)
    assert vec, f"({block_p} pairs, {kc} columns, {warps} warps): a thread's copy would be under 4 B"
    return gl.BlockedLayout([1, vec], [1, 32], [wr, wc], [1, 0])


def ring_supported(device: torch.device) -> bool:
    """cp.async and programmatic dependent launch on Hopper (sm_90) or later; Gluon has no CPU interpreter."""
    if os.environ.get("TRITON_INTERPRET") == "1" or device.type != "cuda":
        return False
    return torch.cuda.get_device_capability(device)[0] >= 9


# --8<-- [start:wrapper]
def swiglu_ring(x: torch.Tensor, w_gate_up: torch.Tensor, norm_weight: torch.Tensor, out: torch.Tensor | None = None,
                eps: float = 1e-6, config: tuple[int, int, int] = DEFAULT, pdl: bool | str = False) -> torch.Tensor:
    """swiglu_pair_ref in one persistent launch: (I,) from the stacked gate/up weight (2 I, K). `config` is
    (BLOCK_P, NBUF, num_warps); `pdl` as matvec's."""
    block_p, nbuf, warps = config
    inter, k = w_gate_up.shape[0] // 2, w_gate_up.shape[1]
    assert ring_supported(x.device), "the ring needs a Hopper GPU: use matvec_pair.swiglu_pair elsewhere"
    assert x.numel() == k and x.is_contiguous() and w_gate_up.is_contiguous() and x.dtype == torch.bfloat16
    assert norm_weight.numel() == k and norm_weight.dtype == w_gate_up.dtype == x.dtype
    assert inter % block_p == 0, f"BLOCK_P {block_p} must divide the intermediate size {inter}"
    assert layout_fits(config, k), f"{config} has no layout at K = {k}: a copy would be under 4 B"
    out = torch.empty(inter, device=x.device, dtype=x.dtype) if out is None else out
    assert out.numel() == inter and out.is_contiguous()
    n_blocks = inter // block_p
    grid = min(n_blocks, programs(k, config, torch.cuda.get_device_properties(x.device).multi_processor_count))
    flag, extra = launch_options(pdl, x.device)
    kc = chunk(k)
    _swiglu_ring_kernel[(grid,)](x, w_gate_up, norm_weight, out, eps, n_blocks, K=k, INTER=inter, BLOCK_P=block_p,
                                 KC=kc, NBUF=nbuf, L=layout(block_p, kc, warps), PDL=flag, num_warps=warps, **extra)
    return out
# --8<-- [end:wrapper]
