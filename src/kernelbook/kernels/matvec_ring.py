"""The down projection with its residual add, its weights streamed through a ring of shared memory: a persistent
grid in Gluon, each program keeping whole rows of W in flight.

matvec's programs load their first chunk of weights into registers before they wait for the kernel ahead, 16 KiB
a program at down's tuned config, and only the programs resident by then get to. Here each SM runs PER_SM programs
for the whole launch; a program owns rows pid, pid + G, ... of W (N, K) and keeps NBUF of them in shared memory at
once, copied with cp.async: it issues the first NBUF before the wait and row NBUF on as soon as it has used one. At
Qwen2.5-1.5B's shape (1536 rows of 8960) two rows a program and four programs an SM have room for 19 MB of down's
27.5 MB: what can be on its way before SwiGLU has finished, if the programs are resident by then.

A row is copied as NT tiles of (R2, KC): R2 = num_warps chunks of KC columns side by side, one warp a chunk and
16 B a thread, the columns past K masked. After the wait, x (K,) is read once into registers in the same tiles and
the program's rows of the residual once (MAXR of them, masked), so no load sits between a row's sum and its store.
The arithmetic is matvec's with RESIDUAL: the sum in fp32, rounded to bf16, added to the residual in fp32 and
rounded. Each thread reads back from shared memory the elements it copied itself, so the ring needs no barrier.

Gluon has no CPU interpreter: off a Hopper GPU the step launches matvec in its place (ring_supported), and the
tests check its schedule, its tiles and that it compiles for sm_90.
"""

from __future__ import annotations

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp

from kernelbook.kernels.matvec import launch_options, matvec_ref
from kernelbook.kernels.swiglu_ring import (
    _gdc_launch_dependents,
    _gdc_wait,
    _load_async,
    chunk,
    ring_supported,
)

__all__ = ["DEFAULT", "SM_SMEM", "fits", "matvec_ref", "matvec_ring", "programs", "ring_bytes", "ring_rows",
           "ring_supported", "tiles"]


# --8<-- [start:kernel]
@gluon.jit
def _issue(ws, w_ptr, j, my_rows, pid, G, offs, K: gl.constexpr, NT: gl.constexpr, R2: gl.constexpr,
           KC: gl.constexpr, NBUF: gl.constexpr, L: gl.constexpr):
    """Start copying this program's j-th row (K,) into ring slot j % NBUF, NT tiles of (R2, KC), as one cp.async
    group; past the program's last row the group is empty."""
    live = (gl.zeros([R2, KC], gl.int32, L) + j) < my_rows  # one value for the whole tile
    base = w_ptr + (pid + j * G).to(gl.int64) * K  # 2 B a weight
    for t in gl.static_range(NT):
        _load_async(ws.index((j % NBUF) * NT + t), base + t * R2 * KC + offs, mask=live & (offs < K - t * R2 * KC))
    cp.commit_group()


@gluon.jit
def _matvec_ring_kernel(x_ptr, w_ptr, h_ptr, N, K: gl.constexpr, NT: gl.constexpr, R2: gl.constexpr,
                        KC: gl.constexpr, NBUF: gl.constexpr, MAXR: gl.constexpr, L: gl.constexpr,
                        PDL: gl.constexpr):
    pid = gl.program_id(0)
    G = gl.num_programs(0)
    my_rows = (N - pid + G - 1) // G  # rows pid, pid + G, ... below N
    r2 = gl.arange(0, R2, layout=gl.SliceLayout(1, L))
    cols = gl.arange(0, KC, layout=gl.SliceLayout(0, L))
    offs = r2[:, None] * KC + cols[None, :]  # (R2, KC): R2 chunks of KC columns of one row
    S: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 1, [1, 0])
    ws = gl.allocate_shared_memory(gl.bfloat16, [NBUF * NT, R2, KC], S)  # the ring: NBUF rows
    if PDL:
        _gdc_launch_dependents()
    for j in gl.static_range(NBUF):  # weights first: nothing writes them
        _issue(ws, w_ptr, j, my_rows, pid, G, offs, K, NT, R2, KC, NBUF, L)
    if PDL == 1:
        _gdc_wait()  # x and the residual come from the kernels ahead
    jj = gl.arange(0, MAXR, layout=gl.SliceLayout(0, L))
    res = gl.load(h_ptr + pid + jj * G, mask=jj < my_rows, other=0.0).to(gl.float32)  # this program's rows of it
    xs = ()
    for t in gl.static_range(NT):  # x read once, held in registers in the weights' tiles
        xs = xs + (gl.load(x_ptr + t * R2 * KC + offs, mask=offs < K - t * R2 * KC, other=0.0).to(gl.float32),)
    for j in range(my_rows):
        cp.wait_group(NBUF - 1)  # row j has landed (the NBUF - 1 groups after it may still be in flight)
        acc = gl.zeros([R2, KC], gl.float32, L)
        for t in gl.static_range(NT):
            acc += ws.index((j % NBUF) * NT + t).load(L).to(gl.float32) * xs[t]
        _issue(ws, w_ptr, j + NBUF, my_rows, pid, G, offs, K, NT, R2, KC, NBUF, L)
        y = gl.sum(gl.sum(acc, axis=1), axis=0).to(gl.bfloat16).to(gl.float32)  # the projection, rounded
        r = gl.sum(gl.where(jj == j, res, 0.0), axis=0)
        gl.store(h_ptr + pid + j * G, (r + y).to(gl.bfloat16))  # the residual sum, rounded: 2 B a row
    cp.wait_group(0)
# --8<-- [end:kernel]


DEFAULT = (2, 2, 4)  # NBUF, num_warps, programs per SM
SM_SMEM = 227 * 1024  # the shared memory one SM's programs may take in all: an H100/H200 SM has 228 KiB
RESERVED = 1024  # what the driver keeps of it for each program


def tiles(k: int, warps: int) -> tuple[int, int]:
    """(KC, NT): a row of K as NT tiles of `warps` chunks of KC columns (chunk(k)), the last tile masked past K."""
    kc = chunk(k)
    return kc, -(-k // (warps * kc))


def ring_bytes(config: tuple[int, int, int], k: int) -> int:
    """One program's ring: NBUF rows, each NT tiles of (warps, KC) weights of 2 B (the masked tail included)."""
    nbuf, warps, _ = config
    kc, nt = tiles(k, warps)
    return nbuf * nt * warps * kc * 2


def fits(config: tuple[int, int, int], k: int) -> bool:
    """Whether K has a chunk of 256 columns or more (16 B or more a thread) and PER_SM rings of `config` at width
    K fit one SM's shared memory."""
    return k % 256 == 0 and config[2] * (ring_bytes(config, k) + RESERVED) <= SM_SMEM


def programs(n: int, config: tuple[int, int, int], sms: int) -> int:
    """The grid: PER_SM programs an SM, no more than there are rows."""
    return min(n, sms * config[2])


def ring_rows(n: int, grid: int) -> list[list[int]]:
    """The rows each program walks, in order (the kernel's schedule, for the tests)."""
    return [list(range(pid, n, grid)) for pid in range(grid)]


def _layout(kc: int, warps: int) -> gl.BlockedLayout:
    """A warp a chunk, 32 threads along its KC columns, KC / 32 bf16 (16 B at KC = 256) a thread."""
    return gl.BlockedLayout([1, kc // 32], [1, 32], [warps, 1], [1, 0])


def _max_rows(n: int, grid: int) -> int:
    """The smallest power of two at least the rows of the busiest program: the residual rows it reads at once."""
    m = 1
    while m < -(-n // grid):
        m *= 2
    return m


# --8<-- [start:wrapper]
def matvec_ring(x: torch.Tensor, w: torch.Tensor, residual: torch.Tensor, config: tuple[int, int, int] = DEFAULT,
                pdl: bool | str = False) -> torch.Tensor:
    """matvec_ref(x, w, residual=residual) in one persistent launch, written into `residual` (N,) itself and
    returned. `config` is (NBUF, num_warps, programs per SM); `pdl` as matvec's."""
    nbuf, warps, _ = config
    n, k = w.shape
    assert ring_supported(x.device), "the ring needs a Hopper GPU: use matvec elsewhere"
    assert x.numel() == k and x.is_contiguous() and w.is_contiguous() and x.dtype == w.dtype == torch.bfloat16
    assert residual.numel() == n and residual.is_contiguous() and residual.dtype == w.dtype, "bad residual"
    assert fits(config, k), f"{config} at K = {k}: a copy under 16 B, or rings over {SM_SMEM} B an SM"
    kc, nt = tiles(k, warps)
    grid = programs(n, config, torch.cuda.get_device_properties(x.device).multi_processor_count)
    flag, extra = launch_options(pdl, x.device)
    _matvec_ring_kernel[(grid,)](x, w, residual, n, K=k, NT=nt, R2=warps, KC=kc, NBUF=nbuf,
                                 MAXR=_max_rows(n, grid), L=_layout(kc, warps), PDL=flag, num_warps=warps, **extra)
    return residual
# --8<-- [end:wrapper]
