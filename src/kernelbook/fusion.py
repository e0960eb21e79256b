"""The fusion chapters' experiments: what eager elementwise code moves, and what fusing it by hand buys.

- fusion.eager_bytes: the residual add + Qwen2RMSNorm and SwiGLU's activation in eager PyTorch, kernel by kernel,
  with the bytes each kernel reads and writes (derived from its tensors) and its time, beside a copy measured in
  the same run; SwiGLU's FLOP and bytes per element
- fusion.exactness: the Triton kernels against eager PyTorch on fresh random bf16 inputs at several shapes
- fusion.versions: eager, F.rms_norm, hand-written Triton and torch.compile at 8192 x 4096 bf16, timed in the
  same process, with kernel counts, bytes moved and the share of the copy ceiling
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from transformers.models.qwen2.modeling_qwen2 import Qwen2RMSNorm

from kernelbook.bytecount import kernel_table, record, tensor_bytes
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton
from kernelbook.kernels.swiglu import swiglu_triton
from kernelbook.machine import copy_bandwidth
from kernelbook.timing import do_bench_rounds, profile_kernels, summary

ROWS, HIDDEN = 8192, 4096  # tokens x hidden size: the article's shape
EPS = 1e-6
SEED = 0
DEVICE = "cuda"
COPY_BYTES = 1 << 30  # a 1 GiB source copied to a 1 GiB destination: 2 GiB moved, far beyond the L2
EXACT_SHAPES = ((ROWS, HIDDEN), (1, HIDDEN), (3, 1000), (7, 1536), (64, 8960), (333, 5120))
# silu(g) * u = g / (1 + exp(-g)) * u, counting the exponential as one operation
SWIGLU_FLOPS = ("negate g", "exp", "add 1", "divide", "multiply by u")
# per element; the per-row mean, eps and rsqrt are shared by a whole row and left out
ADD_RMSNORM_FLOPS = ("add residual", "square", "sum", "scale by rstd", "multiply by weight")


# --8<-- [start:eager]
def make_qwen2_norm(hidden: int, device: str | torch.device, dtype: torch.dtype = torch.bfloat16,
                    eps: float = EPS) -> Qwen2RMSNorm:
    """Hugging Face's own Qwen2RMSNorm with a seeded random weight (ones would hide the weight multiply)."""
    norm = Qwen2RMSNorm(hidden, eps)
    gen = torch.Generator().manual_seed(SEED + hidden)
    with torch.no_grad():
        norm.weight.copy_(1.0 + 0.1 * torch.randn(hidden, generator=gen))
    return norm.to(device=device, dtype=dtype).requires_grad_(False)  # inference: no autograd graph to compile


def qwen2_add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, norm: Qwen2RMSNorm
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """The residual add and the norm as a Qwen2 decoder layer runs them: (new residual, normalised)."""
    h = x + residual  # (rows, hidden)
    return h, norm(h)


def rms_norm_functional(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = EPS
                        ) -> tuple[torch.Tensor, torch.Tensor]:
    """The same with PyTorch's own F.rms_norm in place of the spelled-out norm."""
    h = x + residual
    return h, F.rms_norm(h, (h.shape[-1],), weight, eps)


def swiglu_eager(g: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """SwiGLU's activation as a Qwen2 MLP writes it: silu of the gate projection times the up projection."""
    return F.silu(g) * u
# --8<-- [end:eager]


def random_bf16(rows: int, hidden: int, seed: int, n: int = 2, device: str | None = None) -> list[torch.Tensor]:
    """n fresh N(0, 1) bf16 tensors of (rows, hidden) from a seeded generator on the device."""
    device = device or DEVICE
    gen = torch.Generator(device=device).manual_seed(seed)
    return [torch.randn(rows, hidden, device=device, dtype=torch.bfloat16, generator=gen) for _ in range(n)]


def io_bytes(reads: list[torch.Tensor], writes: list[torch.Tensor]) -> int:
    """Bytes a single fused kernel must move: every input read once, every output written once."""
    return sum(map(tensor_bytes, reads)) + sum(map(tensor_bytes, writes))


def copy_ceiling(nbytes: int = COPY_BYTES) -> dict[str, Any]:
    """The machine chapter's device-to-device copy, measured again in this process (bytes read plus written)."""
    return copy_bandwidth(nbytes)


def _gbps(nbytes: float, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


def _ordered(t: torch.Tensor) -> torch.Tensor:
    """Float bits as integers that count representable values: neighbours differ by 1, across zero too."""
    bits = {2: torch.int16, 4: torch.int32}[t.element_size()]
    b = t.contiguous().view(bits).to(torch.int64)
    magnitude = b & ((1 << (8 * t.element_size() - 1)) - 1)
    return torch.where(b < 0, -magnitude, magnitude)


def compare(out: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
    """How far out is from ref: elements that differ, the largest absolute difference, and the largest distance
    in representable steps of the dtype (1 = one rounding step), with the step size where the largest diff is."""
    assert out.shape == ref.shape and out.dtype == ref.dtype, f"{out.shape} {out.dtype} vs {ref.shape} {ref.dtype}"
    assert not torch.isnan(out).any(), "output holds NaN: the kernel left poisoned elements unwritten"
    diff = (out.float() - ref.float()).abs()
    steps = (_ordered(out) - _ordered(ref)).abs()
    i = int(diff.flatten().argmax())
    at = ref.flatten()[i].float().abs().item()
    step_at = torch.finfo(ref.dtype).eps * 2.0 ** torch.floor(torch.log2(torch.tensor(max(at, 1e-30)))).item()
    return {"elements": out.numel(), "differ": int((steps != 0).sum()), "max_abs": diff.max().item(),
            "max_steps": int(steps.max()), "bit_identical": bool((steps == 0).all()),
            "ref_at_max": at, "step_at_max": step_at, "ref_absmax": ref.float().abs().max().item()}


def _nan_like(t: torch.Tensor) -> torch.Tensor:
    return torch.full_like(t, float("nan"))


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _compile(fn: Callable, *args: Any) -> tuple[Callable, float]:
    """torch.compile(fn), compiled by one call with Inductor's caches off; (compiled fn, seconds)."""
    import torch._inductor.config as inductor_config

    compiled = torch.compile(fn)
    patch = {"force_disable_caches": True} if hasattr(inductor_config, "force_disable_caches") else {}
    _sync()
    t0 = time.perf_counter()
    with inductor_config.patch(patch):
        compiled(*args)
    _sync()
    return compiled, time.perf_counter() - t0


def measure_eager_bytes() -> dict[str, Any]:
    """Eager add + Qwen2RMSNorm and SwiGLU, kernel by kernel, against the fused byte count and a same-run copy."""
    torch.manual_seed(SEED)
    with torch.no_grad():
        copy = copy_ceiling()
        x, r, g, u = random_bf16(ROWS, HIDDEN, SEED, n=4)
        norm = make_qwen2_norm(HIDDEN, DEVICE)
        n = x.numel()
        chains = {}
        for key, eager, fused_reads, fused_out in (
            ("add_rmsnorm", lambda: qwen2_add_rmsnorm(x, r, norm), [x, r, norm.weight],
             lambda: add_rmsnorm_triton(x, r, norm.weight, EPS)),
            ("swiglu", lambda: swiglu_eager(g, u), [g, u], lambda: [swiglu_triton(g, u)]),
        ):
            table = kernel_table(eager, n, copy["gbps"])
            fused = io_bytes(fused_reads, list(fused_out()))
            bench = do_bench_rounds(eager, rounds=3, rep_ms=300)
            chains[key] = {**table, "bench": bench, "fused_bytes": fused, "fused_bytes_per_elem": fused / n,
                           "fused_predicted_us": fused / (copy["gbps"] * 1e9) * 1e6,
                           "measured_gbps": _gbps(table["bytes"], bench["median"])}
    flops = len(SWIGLU_FLOPS)
    sw = chains["swiglu"]
    return {
        "shape": [ROWS, HIDDEN], "dtype": "bfloat16", "elements": n, "copy": copy, "chains": chains,
        "qwen2_forward_source": inspect.getsource(Qwen2RMSNorm.forward),
        "swiglu_intensity": {"flop_steps": list(SWIGLU_FLOPS), "flop_per_elem": flops,
                             "fused_bytes_per_elem": sw["fused_bytes_per_elem"],
                             "eager_bytes_per_elem": sw["bytes_per_elem"],
                             "fused_flop_per_byte": flops / sw["fused_bytes_per_elem"],
                             "eager_flop_per_byte": flops / sw["bytes_per_elem"]},
        "add_rmsnorm_intensity": {"flop_steps": list(ADD_RMSNORM_FLOPS), "flop_per_elem": len(ADD_RMSNORM_FLOPS),
                                  "fused_bytes_per_elem": chains["add_rmsnorm"]["fused_bytes_per_elem"],
                                  "eager_bytes_per_elem": chains["add_rmsnorm"]["bytes_per_elem"]},
    }


def measure_exactness(shapes: tuple[tuple[int, int], ...] = EXACT_SHAPES, compiled_shape: tuple[int, int] = (
        ROWS, HIDDEN), device: str | None = None) -> dict[str, Any]:
    """The Triton kernels and torch.compile against eager PyTorch, bf16, fresh random inputs at several shapes."""
    device = device or DEVICE
    cases = []
    with torch.no_grad():
        for i, (rows, hidden) in enumerate(shapes):
            x, r, g, u = random_bf16(rows, hidden, seed=1000 + i, n=4, device=device)
            norm = make_qwen2_norm(hidden, device)
            h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
            h, y = _nan_like(x), _nan_like(x)
            add_rmsnorm_triton(x, r, norm.weight, norm.variance_epsilon, out=(h, y))
            s = _nan_like(g)
            swiglu_triton(g, u, out=s)
            cases.append({"shape": [rows, hidden], "h": compare(h, h_ref), "y": compare(y, y_ref),
                          "swiglu": compare(s, swiglu_eager(g, u))})
        rows, hidden = compiled_shape
        x, r, g, u = random_bf16(rows, hidden, seed=2000, n=4, device=device)
        norm = make_qwen2_norm(hidden, device)
        h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
        compiled_norm, norm_s = _compile(qwen2_add_rmsnorm, x, r, norm)
        h, y = compiled_norm(x, r, norm)
        compiled_swiglu, swiglu_s = _compile(swiglu_eager, g, u)
        compiled = {"shape": [rows, hidden], "h": compare(h, h_ref), "y": compare(y, y_ref),
                    "swiglu": compare(compiled_swiglu(g, u), swiglu_eager(g, u)),
                    "compile_s": {"add_rmsnorm": norm_s, "swiglu": swiglu_s}}
    return {"dtype": "bfloat16", "eps": EPS, "triton": cases, "compiled": compiled}


def _check(name: str, out: Any, ref: Any, max_steps: int) -> dict[str, Any]:
    """Compare a version's outputs with eager's before it is timed; refuse to time a wrong one."""
    outs = out if isinstance(out, tuple | list) else (out,)
    refs = ref if isinstance(ref, tuple | list) else (ref,)
    res = {k: compare(o, rf) for k, o, rf in zip(("h", "y") if len(outs) == 2 else ("out",), outs, refs, strict=True)}
    worst = max(v["max_steps"] for v in res.values())
    assert worst <= max_steps, f"{name}: {worst} bf16 steps from eager (allowed {max_steps}): {res}"
    return res


# --8<-- [start:versions]
def measure_versions(rounds: int = 3, rep_ms: int = 1000) -> dict[str, Any]:
    """Every version of both ops at 8192 x 4096 bf16 in one process: checked, profiled, then timed in
    interleaved rounds so that clock drift hits them alike."""
    with torch.no_grad():
        copy = copy_ceiling()
        x, r, g, u = random_bf16(ROWS, HIDDEN, SEED + 1, n=4)
        norm = make_qwen2_norm(HIDDEN, DEVICE)
        w, n = norm.weight, x.numel()
        h_buf, y_buf, s_buf = _nan_like(x), _nan_like(x), _nan_like(g)  # poisoned: each run must overwrite them
        compiled_norm, norm_s = _compile(qwen2_add_rmsnorm, x, r, norm)
        compiled_swiglu, swiglu_s = _compile(swiglu_eager, g, u)
        fused = {"add_rmsnorm": io_bytes([x, r, w], [h_buf, y_buf]), "swiglu": io_bytes([g, u], [s_buf])}
        versions = [  # (op, key, what runs)
            ("add_rmsnorm", "eager", lambda: qwen2_add_rmsnorm(x, r, norm)),
            ("add_rmsnorm", "rms_norm", lambda: rms_norm_functional(x, r, w, EPS)),
            ("add_rmsnorm", "triton", lambda: add_rmsnorm_triton(x, r, w, EPS, out=(h_buf, y_buf))),
            ("add_rmsnorm", "compiled", lambda: compiled_norm(x, r, norm)),
            ("swiglu", "eager", lambda: swiglu_eager(g, u)),
            ("swiglu", "triton", lambda: swiglu_triton(g, u, out=s_buf)),
            ("swiglu", "compiled", lambda: compiled_swiglu(g, u)),
        ]
        refs = {"add_rmsnorm": qwen2_add_rmsnorm(x, r, norm), "swiglu": swiglu_eager(g, u)}
        rows = []
        for op, key, fn in versions:
            exact = _check(f"{op}/{key}", fn(), refs[op], max_steps=4)  # outputs checked before any timing
            prof = profile_kernels(fn)
            if key in ("eager", "rms_norm"):  # bytes of every kernel's inputs and outputs
                moved = sum(o.read + o.written for o in record(fn))
            else:  # one kernel moves the fused bytes; more kernels than one cannot be counted from outside
                moved = fused[op] if prof["per_call"] == 1 else None
            rows.append({"op": op, "key": key, "exact": exact, "kernels": prof["per_call"],
                         "kernel_names": [k["name"] for k in prof["kernels"]], "busy_us": prof["busy_us"],
                         "bytes_moved": moved, "fused_bytes": fused[op], "values": []})
        for _ in range(rounds):  # interleaved: round 1 of every version, then round 2, ...
            for row, (_, _, fn) in zip(rows, versions, strict=True):
                row["values"] += do_bench_rounds(fn, rounds=1, rep_ms=rep_ms)["values"]
        _check("triton outputs after timing", (h_buf, y_buf), refs["add_rmsnorm"], max_steps=4)
    for row in rows:
        row["time"] = summary(row.pop("values"))
    for row in rows:
        ms = row["time"]["median"]
        eager_ms = next(v["time"]["median"] for v in rows if v["op"] == row["op"] and v["key"] == "eager")
        moved = row["bytes_moved"]
        row.update(speedup=eager_ms / ms, effective_gbps=_gbps(row["fused_bytes"], ms),
                   actual_gbps=_gbps(moved, ms) if moved else None,
                   share_of_copy=_gbps(moved, ms) / copy["gbps"] if moved else None,
                   bytes_per_elem=moved / n if moved else None, fused_bytes_per_elem=row["fused_bytes"] / n)
    return {"shape": [ROWS, HIDDEN], "dtype": "bfloat16", "elements": n, "copy": copy, "rounds": rounds,
            "rep_ms": rep_ms, "compile_s": {"add_rmsnorm": norm_s, "swiglu": swiglu_s}, "versions": rows}
# --8<-- [end:versions]
