"""Bytes each eager kernel reads and writes, derived from the tensors it takes and returns.

A TorchDispatchMode sees every ATen operation that reaches a device kernel, after autograd and after composite
operations have been split into their parts. For each one it records the bytes of the tensors read (the inputs)
and written (the outputs). Views, aliases and allocations launch no kernel and move no bytes, so they are left out.
`kernel_table` then pairs the operations with the kernels the profiler saw, in launch order, and refuses to pair
two lists of different lengths.

The counts are the compulsory traffic: each input read once and each output written once. A broadcast input (the
norm weight, a row of variances) counts its own size, not the size of the tensor it is broadcast against.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

# Operations that allocate without writing: no kernel runs.
_ALLOCATIONS = {"aten::empty.memory_format", "aten::empty_strided", "aten::empty_like", "aten::lift_fresh"}


def tensor_bytes(t: torch.Tensor) -> int:
    """Bytes of the distinct elements a tensor addresses: a dimension of stride 0 (broadcast) counts once."""
    if t.numel() == 0:
        return 0
    return t.element_size() * math.prod(s for s, st in zip(t.shape, t.stride(), strict=True) if st != 0)


def fused_bytes(reads: list[torch.Tensor], writes: list[torch.Tensor]) -> int:
    """Bytes a single fused kernel must move: every input read once, every output written once."""
    return sum(map(tensor_bytes, reads)) + sum(map(tensor_bytes, writes))


def launches_kernel(func: torch._ops.OpOverload) -> bool:
    """False for views and aliases (they return metadata over existing memory) and bare allocations."""
    return not (func.is_view or func.name() in _ALLOCATIONS)


@dataclass
class OpBytes:
    op: str  # "aten::add.Tensor"
    read: int  # bytes of the tensor inputs
    written: int  # bytes of the tensor outputs
    inputs: list[str]  # "bf16[8192, 4096]"
    outputs: list[str]


def _describe(t: torch.Tensor) -> str:
    short = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32", torch.float64: "fp64"}
    return f"{short.get(t.dtype, str(t.dtype).removeprefix('torch.'))}{list(t.shape)}"


# --8<-- [start:counter]
class ByteCounter(TorchDispatchMode):
    """Records an OpBytes for every kernel-launching ATen operation run inside `with ByteCounter() as bc:`."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[OpBytes] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if launches_kernel(func):
            outputs = [t for t in tree_flatten(result)[0] if isinstance(t, torch.Tensor)]
            # an out= buffer is written, not read
            inputs = [t for t in tree_flatten((args, {k: v for k, v in kwargs.items() if k != "out"}))[0]
                      if isinstance(t, torch.Tensor)]
            device = (outputs or inputs)[0].device if (outputs or inputs) else None
            # a CPU scalar handed to a GPU kernel travels as a launch argument, not through device memory
            inputs = [t for t in inputs if t.device == device]
            self.ops.append(OpBytes(func.name(), sum(map(tensor_bytes, inputs)), sum(map(tensor_bytes, outputs)),
                                    [_describe(t) for t in inputs], [_describe(t) for t in outputs]))
        return result
# --8<-- [end:counter]


def record(fn: Callable[[], Any]) -> list[OpBytes]:
    """The kernel-launching operations of one call of fn, with their bytes."""
    with ByteCounter() as bc:
        fn()
    return bc.ops


def short_kernel_name(name: str, width: int = 60) -> str:
    """A profiler kernel name without its template arguments and parameter list, cut to `width` characters."""
    out, depth = [], 0
    for ch in name.removeprefix("void "):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip()
    return s if len(s) <= width else s[: width - 1] + "…"


def kernel_table(fn: Callable[[], Any], elements: int, gbps: float | None = None, calls: int = 5
                 ) -> dict[str, Any]:
    """Per kernel of one call of fn: the ATen op, the kernel, bytes read and written per element, time.

    `elements` is what "per element" divides by (rows x hidden). With `gbps` (a measured bandwidth), each kernel
    also gets the time its bytes would take at that rate. Needs CUDA (the profiler names the kernels).
    """
    from kernelbook.timing import profile_kernels

    ops = record(fn)
    prof = profile_kernels(fn, calls=calls)
    kernels = prof["kernels"]
    if len(ops) != len(kernels):
        raise AssertionError(
            f"{len(ops)} kernel-launching ATen ops but the profiler saw {len(kernels)} kernels per call; cannot "
            f"pair them.\nops: {[o.op for o in ops]}\nkernels: {[k['name'][:80] for k in kernels]}")
    rows = []
    for o, k in zip(ops, kernels, strict=True):
        moved = o.read + o.written
        rows.append({**asdict(o), "kernel": k["name"], "kernel_short": short_kernel_name(k["name"]),
                     "read_per_elem": o.read / elements, "written_per_elem": o.written / elements,
                     "bytes_per_elem": moved / elements, "us": k["us"],
                     "predicted_us": moved / (gbps * 1e9) * 1e6 if gbps else None})
    total = sum(r["read"] + r["written"] for r in rows)
    return {"elements": elements, "kernels": rows, "count": len(rows), "bytes": total,
            "bytes_per_elem": total / elements, "busy_us": sum(r["us"] for r in rows),
            "predicted_us": total / (gbps * 1e9) * 1e6 if gbps else None, "profile": {
                k: prof[k] for k in ("per_call", "busy_us", "cpu_us", "span_us", "launches", "calls")}}
