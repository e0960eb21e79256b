"""fusing_by_hand.versions: every way of running the two ops at 8192 x 4096 bf16 in one process: eager as the Qwen2
code writes it, eager with F.rms_norm, the hand-written Triton kernels and torch.compile of the unchanged eager
functions; each checked against eager, profiled for its kernel count, then timed in interleaved rounds, with the
bytes it moved and its share of a copy measured in the same process.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from triton.testing import do_bench

from kernelbook.bench import MIN_SAMPLES, rounds_until_quiet
from kernelbook.bytecount import fused_bytes, record
from kernelbook.checks import checked, nan_like, random_bf16
from kernelbook.compiled import compile_timed
from kernelbook.copy_ceiling import GIB, copy_bandwidth
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton, make_qwen2_norm, qwen2_add_rmsnorm
from kernelbook.kernels.swiglu import swiglu_ref, swiglu_triton
from kernelbook.timing import profile_kernels

ROWS, HIDDEN = 8192, 4096  # tokens x hidden size: the article's shape
EPS = 1e-6
SEED = 0


def rms_norm_functional(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = EPS
                        ) -> tuple[torch.Tensor, torch.Tensor]:
    """The residual add and PyTorch's own F.rms_norm in place of the spelled-out norm."""
    h = x + residual
    return h, F.rms_norm(h, (h.shape[-1],), weight, eps)


def _gbps(nbytes: float, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


# --8<-- [start:versions]
def measure(min_rounds: int = MIN_SAMPLES, rep_ms: int = 100, cap_s: float = 90.0) -> dict[str, Any]:
    """Every version of both ops at 8192 x 4096 bf16 in one process: checked, profiled, then timed in
    interleaved rounds so that clock drift hits them alike, until every version is quiet (bench.py) or the cap."""
    with torch.no_grad():
        copy = copy_bandwidth(GIB)
        x, r, g, u = random_bf16(ROWS, HIDDEN, SEED + 1, n=4)
        norm = make_qwen2_norm(HIDDEN, "cuda")
        w, n = norm.weight, x.numel()
        h_buf, y_buf, s_buf = nan_like(x), nan_like(x), nan_like(g)  # poisoned: each run must overwrite them
        compiled_norm, norm_s = compile_timed(qwen2_add_rmsnorm, x, r, norm)
        compiled_swiglu, swiglu_s = compile_timed(swiglu_ref, g, u)
        fused = {"add_rmsnorm": fused_bytes([x, r, w], [h_buf, y_buf]), "swiglu": fused_bytes([g, u], [s_buf])}
        versions = [  # (op, key, what runs)
            ("add_rmsnorm", "eager", lambda: qwen2_add_rmsnorm(x, r, norm)),
            ("add_rmsnorm", "rms_norm", lambda: rms_norm_functional(x, r, w, EPS)),
            ("add_rmsnorm", "triton", lambda: add_rmsnorm_triton(x, r, w, EPS, out=(h_buf, y_buf))),
            ("add_rmsnorm", "compiled", lambda: compiled_norm(x, r, norm)),
            ("swiglu", "eager", lambda: swiglu_ref(g, u)),
            ("swiglu", "triton", lambda: swiglu_triton(g, u, out=s_buf)),
            ("swiglu", "compiled", lambda: compiled_swiglu(g, u)),
        ]
        refs = {"add_rmsnorm": qwen2_add_rmsnorm(x, r, norm), "swiglu": swiglu_ref(g, u)}
        rows = []
        for op, key, fn in versions:
            exact = checked(f"{op}/{key}", fn(), refs[op], max_steps=4)  # outputs checked before any timing
            prof = profile_kernels(fn)
            if key in ("eager", "rms_norm"):  # bytes of every kernel's inputs and outputs
                moved = sum(o.read + o.written for o in record(fn))
            else:  # one kernel moves the fused bytes; more kernels than one cannot be counted from outside
                moved = fused[op] if prof["per_call"] == 1 else None
            rows.append({"op": op, "key": key, "exact": exact, "kernels": prof["per_call"],
                         "kernel_names": [k["name"] for k in prof["kernels"]], "busy_us": prof["busy_us"],
                         "bytes_moved": moved, "fused_bytes": fused[op]})

        def one_round(i: int) -> dict[str, float]:  # interleaved: every version once, then again, ...
            return {f"{op}/{key}": do_bench(fn, warmup=25, rep=rep_ms, return_mode="median")
                    for op, key, fn in versions}

        timed = rounds_until_quiet(one_round, min_rounds=min_rounds, cap_s=cap_s)
        checked("triton outputs after timing", (h_buf, y_buf), refs["add_rmsnorm"], max_steps=4)
    for row in rows:
        row["time"] = timed["versions"][f"{row['op']}/{row['key']}"]
    for row in rows:
        ms = row["time"]["median"]
        eager_ms = next(v["time"]["median"] for v in rows if v["op"] == row["op"] and v["key"] == "eager")
        moved = row["bytes_moved"]
        row.update(speedup=eager_ms / ms, effective_gbps=_gbps(row["fused_bytes"], ms),
                   actual_gbps=_gbps(moved, ms) if moved else None,
                   share_of_copy=_gbps(moved, ms) / copy["gbps"] if moved else None,
                   bytes_per_elem=moved / n if moved else None, fused_bytes_per_elem=row["fused_bytes"] / n)
    return {"shape": [ROWS, HIDDEN], "dtype": "bfloat16", "elements": n, "copy": copy, "rounds": timed["rounds"],
            "stopped": timed["stopped"], "min_rounds": min_rounds, "cap_s": cap_s, "rep_ms": rep_ms,
            "compile_s": {"add_rmsnorm": norm_s, "swiglu": swiglu_s}, "versions": rows}
# --8<-- [end:versions]
