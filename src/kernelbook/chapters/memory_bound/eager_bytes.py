"""memory_bound.eager_bytes: the residual add + Qwen2RMSNorm and SwiGLU's activation in eager PyTorch, kernel by
kernel, with the bytes each kernel reads and writes (derived from its tensors, bytecount.py) and its time, beside a
copy measured in the same run; and both ops' FLOP and bytes per element, eager and fused.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch
from transformers.models.qwen2.modeling_qwen2 import Qwen2RMSNorm

from kernelbook.bench import bench
from kernelbook.bytecount import fused_bytes, kernel_table
from kernelbook.checks import random_bf16
from kernelbook.copy_ceiling import GIB, copy_bandwidth
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton, make_qwen2_norm, qwen2_add_rmsnorm
from kernelbook.kernels.swiglu import swiglu_ref, swiglu_triton

ROWS, HIDDEN = 8192, 4096  # tokens x hidden size: the article's shape
EPS = 1e-6
SEED = 0
# silu(g) * u = g / (1 + exp(-g)) * u, counting the exponential as one operation
SWIGLU_FLOPS = ("negate g", "exp", "add 1", "divide", "multiply by u")
# per element; the per-row mean, eps and rsqrt are shared by a whole row and left out
ADD_RMSNORM_FLOPS = ("add residual", "square", "sum", "scale by rstd", "multiply by weight")


def _gbps(nbytes: float, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


def measure() -> dict[str, Any]:
    """Eager add + Qwen2RMSNorm and SwiGLU, kernel by kernel, against the fused byte count and a same-run copy."""
    torch.manual_seed(SEED)
    with torch.no_grad():
        copy = copy_bandwidth(GIB)
        x, r, g, u = random_bf16(ROWS, HIDDEN, SEED, n=4)
        norm = make_qwen2_norm(HIDDEN, "cuda")
        n = x.numel()
        chains = {}
        for key, eager, fused_reads, fused_out in (
            ("add_rmsnorm", lambda: qwen2_add_rmsnorm(x, r, norm), [x, r, norm.weight],
             lambda: add_rmsnorm_triton(x, r, norm.weight, EPS)),
            ("swiglu", lambda: swiglu_ref(g, u), [g, u], lambda: [swiglu_triton(g, u)]),
        ):
            table = kernel_table(eager, n, copy["gbps"])
            fused = fused_bytes(fused_reads, list(fused_out()))
            timed = bench(eager, rep_ms=100)
            chains[key] = {**table, "bench": timed, "fused_bytes": fused, "fused_bytes_per_elem": fused / n,
                           "fused_predicted_us": fused / (copy["gbps"] * 1e9) * 1e6,
                           "measured_gbps": _gbps(table["bytes"], timed["median"])}
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
