"""One row times a weight matrix, y = W x: the matrix-vector product that every projection of a batch-1 decode
step is, in Triton.

At one token a projection reads all of W (N, K) to make N outputs, two FLOPs per weight byte: the kernel is a
stream over W. Each program owns BLOCK_N rows, walks along K in BLOCK_K chunks and keeps an fp32 partial sum per
lane, reduced once at the end. Three switches pull a projection's neighbours into it, so their results never make
a trip through memory of their own: the RMSNorm of x before (NORM), the bias (BIAS), and the residual add after
(RESIDUAL: y is added into the residual stream in place). PDL launches it programmatically dependent on the kernel
before: it is scheduled while that kernel still runs, loads its first chunk of weights, which nothing writes, and
only then waits for the previous kernel's results.

Rounding follows Hugging Face's Qwen2 code, as the fusion chapter's kernels do: the normalised x is rounded to bf16
before its weight, the product with the weight is rounded, the projection (with its bias) is rounded, and so is
the residual sum.
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


# --8<-- [start:ref]
def rmsnorm_ref(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Qwen2RMSNorm: the norm in fp32, rounded to x's dtype, then times the weight."""
    xf = x.float()
    return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def matvec_ref(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor | None = None,
               norm_weight: torch.Tensor | None = None, residual: torch.Tensor | None = None,
               eps: float = 1e-6) -> torch.Tensor:
    """y = W norm(x) + bias for one row x (K,) and W (N, K); with `residual` (N,), returns residual + y."""
    if norm_weight is not None:
        x = rmsnorm_ref(x, norm_weight, eps)
    y = F.linear(x, w, bias)  # (N,)
    return y if residual is None else residual + y
# --8<-- [end:ref]


if os.environ.get("TRITON_INTERPRET") == "1":  # the CPU interpreter has no libdevice; numpy never fuses a * b + c
    @triton.jit
    def mul_rn(a, b):
        return a * b
else:
    @triton.jit
    def mul_rn(a, b):
        """a * b in fp32, rounded on its own: the compiler may fuse a plain a * b + c into one FMA, which rounds
        once where eager PyTorch rounds twice (and narrows bf16 values first, so the FMA is bf16's)."""
        return tl.extra.cuda.libdevice.mul_rn(a, b)


# --8<-- [start:kernel]
@triton.jit
def rms_scale(x_ptr, K: tl.constexpr, eps, BLOCK_K: tl.constexpr):
    """1 / rms(x) for the row x (K,), in fp32. Every program computes it again: x is 3 KB and sits in L2."""
    acc = tl.zeros([BLOCK_K], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        c = k0 + tl.arange(0, BLOCK_K)
        v = tl.load(x_ptr + c, mask=c < K, other=0.0).to(tl.float32)
        acc += v * v
    return tl.math.rsqrt(tl.sum(acc, axis=0) / K + eps)


@triton.jit
def x_chunk(x_ptr, g_ptr, cols, K: tl.constexpr, rstd, NORM: tl.constexpr):
    """x[cols] in fp32, normalised and times the norm weight g when NORM, rounded where eager PyTorch rounds."""
    x = tl.load(x_ptr + cols, mask=cols < K, other=0.0)
    if NORM:
        dt = x_ptr.dtype.element_ty
        xn = (x.to(tl.float32) * rstd).to(dt).to(tl.float32)
        g = tl.load(g_ptr + cols, mask=cols < K, other=0.0).to(tl.float32)
        x = (xn * g).to(dt)  # a product of two bf16 values is exact in fp32, so this is bf16's rounded product
    return x.to(tl.float32)


@triton.jit
def first_chunk(x_ptr, g_ptr, cols, K: tl.constexpr, eps, BLOCK_K: tl.constexpr, NORM: tl.constexpr):
    """(x's first chunk as x_chunk gives it, 1 / rms(x)). When the row fits in one chunk (K <= BLOCK_K), x and g
    are loaded once, side by side, and the scale comes from the same registers: one trip to L2, not two in a row."""
    rstd = 1.0
    if NORM and K <= BLOCK_K:
        dt = x_ptr.dtype.element_ty
        x = tl.load(x_ptr + cols, mask=cols < K, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + cols, mask=cols < K, other=0.0).to(tl.float32)
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=0) / K + eps)  # rms_scale's arithmetic, in the same order
        xc = ((x * rstd).to(dt).to(tl.float32) * g).to(dt).to(tl.float32)
    else:
        if NORM:
            rstd = rms_scale(x_ptr, K, eps, BLOCK_K)
        xc = x_chunk(x_ptr, g_ptr, cols, K, rstd, NORM)
    return xc, rstd


@triton.jit
def _matvec_kernel(x_ptr, w_ptr, b_ptr, g_ptr, y_ptr, eps, N,
                   K: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   NORM: tl.constexpr, BIAS: tl.constexpr, RESIDUAL: tl.constexpr, PDL: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)  # (BLOCK_N,) outputs of this program
    rmask = rows < N
    cols = tl.arange(0, BLOCK_K)
    w_rows = w_ptr + rows.to(tl.int64)[:, None] * K  # (BLOCK_N, 1): 2 B/weight, read once, the whole cost
    if PDL:
        tl.extra.cuda.gdc_launch_dependents()  # the next kernel may be scheduled now
    w = tl.load(w_rows + cols[None, :], mask=rmask[:, None] & (cols[None, :] < K), other=0.0)
    if BIAS:  # like the weights, the bias never changes
        bias = tl.load(b_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    if PDL == PDL_ON:
        tl.extra.cuda.gdc_wait()  # weights never change; x (and the residual) come from the kernels before
    if RESIDUAL:  # y_ptr is the residual stream: this program's rows, read now, not after the sum
        r = tl.load(y_ptr + rows, mask=rmask, other=0.0)
    xc, rstd = first_chunk(x_ptr, g_ptr, cols, K, eps, BLOCK_K, NORM)
    acc = w.to(tl.float32) * xc[None, :]  # (BLOCK_N, BLOCK_K) fp32
    for k0 in tl.static_range(BLOCK_K, K, BLOCK_K):  # unrolled: loads can be issued early
        c = k0 + cols
        w = tl.load(w_rows + c[None, :], mask=rmask[:, None] & (c[None, :] < K), other=0.0)
        acc += w.to(tl.float32) * x_chunk(x_ptr, g_ptr, c, K, rstd, NORM)[None, :]
    y = tl.sum(acc, axis=1)  # (BLOCK_N,)
    if BIAS:
        y += bias
    y = y.to(y_ptr.dtype.element_ty)
    if RESIDUAL:  # add, and write the rows back
        y = (r.to(tl.float32) + y.to(tl.float32)).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + rows, y, mask=rmask)
# --8<-- [end:kernel]


DEFAULT = (8, 512, 4)  # BLOCK_N, BLOCK_K, num_warps when no tuned config is given


def pdl_supported(device: torch.device) -> bool:
    """Programmatic dependent launch needs Hopper (sm_90) or later; Triton's CPU interpreter has no GDC."""
    if os.environ.get("TRITON_INTERPRET") == "1" or device.type != "cuda":
        return False
    return torch.cuda.get_device_capability(device)[0] >= 9


NO_WAIT = "no_wait"  # pdl=NO_WAIT: launched as under PDL, but no kernel waits for the one before (a diagnostic)
PDL_ON = tl.constexpr(1)  # the PDL constexpr: 0 an ordinary launch, 1 PDL, 2 PDL without the wait


def launch_options(pdl: bool | str, device: torch.device) -> tuple[int, dict]:
    """(PDL constexpr, launch keywords): PDL only where supported, else an ordinary launch. With pdl=NO_WAIT the
    kernel is launched the same way but skips its wait for the kernel before: it reads inputs that may not be
    written yet, so its values are wrong, and the launches' time is what they cost without their dependencies."""
    on = bool(pdl) and pdl_supported(device)
    return (2 if pdl == NO_WAIT else 1) if on else 0, ({"launch_pdl": True} if on else {})


# --8<-- [start:wrapper]
def matvec(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor | None = None,
           norm_weight: torch.Tensor | None = None, residual: torch.Tensor | None = None,
           out: torch.Tensor | None = None, eps: float = 1e-6, config: tuple[int, int, int] = DEFAULT,
           pdl: bool | str = False) -> torch.Tensor:
    """matvec_ref in one launch. With `residual`, the sum is written into `residual` itself and returned.
    `config` is (BLOCK_N, BLOCK_K, num_warps); `pdl` launches it programmatically dependent (Hopper and later),
    NO_WAIT without its wait (launch_options)."""
    n, k = w.shape
    assert x.numel() == k and x.is_contiguous() and w.is_contiguous(), f"x {tuple(x.shape)} against W {(n, k)}"
    for t, size in ((bias, n), (norm_weight, k), (residual, n)):
        assert t is None or (t.numel() == size and t.is_contiguous() and t.dtype == w.dtype), "bad side tensor"
    if residual is not None:
        out = residual
    elif out is None:
        out = torch.empty(n, device=x.device, dtype=x.dtype)
    assert out.numel() == n and out.is_contiguous()
    block_n, block_k, warps = config
    pdl, extra = launch_options(pdl, x.device)
    _matvec_kernel[(triton.cdiv(n, block_n),)](
        x, w, x if bias is None else bias, x if norm_weight is None else norm_weight, out, eps, n,
        K=k, BLOCK_N=block_n, BLOCK_K=block_k, NORM=norm_weight is not None, BIAS=bias is not None,
        RESIDUAL=residual is not None, PDL=pdl, num_warps=warps, **extra)
    return out
# --8<-- [end:wrapper]
