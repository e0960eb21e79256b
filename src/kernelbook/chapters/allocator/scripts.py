"""The allocation scripts the chapter runs twice: on the GPU through PyTorch, and through the Python model.

A script talks to a `Memory`: `alloc(nbytes) -> handle`, `free(handle)`, `empty_cache()`, `state()`, and its
`OOM` exception type. `record(label, error=None)` stores the state at a checkpoint. The GPU side
(kernelbook.chapters.allocator.demos) backs a Memory with `torch.empty(nbytes, dtype=torch.uint8, device="cuda")`; the
model side with CachingAllocatorModel. A state is {"allocated", "reserved", "inactive_split", "segments"}, each
segment {"pool", "size", "expandable", "blocks": [[size, "alloc" | "free"], ...]} in address order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kernelbook.chapters.allocator.model import CachingAllocatorModel, MiB, ModelOutOfMemory

GiB = 1 << 30
CAP_BYTES = 2 * GiB  # the fragmentation script's limit, set with set_per_process_memory_fraction
BIG, SMALL, LAST, COUNT = 120 * MiB, 64 * MiB, 200 * MiB, 16
MARK = "KB_RESULT "  # a demo process prints its JSON result on one line that starts with this


def vllm_capture_sizes(max_size: int = 512) -> list[int]:
    """vLLM's default CUDA graph batch sizes, by the rule its engine arguments document."""
    return [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, max_size + 1, 16))


class Memory(Protocol):
    OOM: type[BaseException]

    def alloc(self, nbytes: int) -> int: ...
    def free(self, handle: int) -> None: ...
    def empty_cache(self) -> None: ...
    def state(self) -> dict[str, Any]: ...


Record = Callable[..., None]


# --8<-- [start:fragmentation]
def fragmentation(mem: Memory, record: Record) -> None:
    """Sixteen 120 MiB tensors, freed; sixteen 64 MiB ones, each splitting a cached 120; then 200 MiB."""
    warm = mem.alloc(4)  # the first tensor of the process: a 512 B block in a 2 MiB small-pool segment
    mem.free(warm)
    big = [mem.alloc(BIG) for _ in range(COUNT)]
    record(f"{COUNT} × 120 MiB")
    for h in big:
        mem.free(h)
    record("all freed (cached)")
    small = [mem.alloc(SMALL) for _ in range(COUNT)]
    record(f"{COUNT} × 64 MiB")
    try:
        last = mem.alloc(LAST)
    except mem.OOM as e:
        record("200 MiB request", error=e)
        return
    record("200 MiB request")
    mem.free(last)
    for h in small:
        mem.free(h)
# --8<-- [end:fragmentation]


def _one(nbytes: int) -> Callable[[Memory, Record], None]:
    def script(mem: Memory, record: Record) -> None:
        h = mem.alloc(nbytes)
        record("allocated")
        mem.free(h)
    return script


def _packing(nbytes: int, n: int) -> Callable[[Memory, Record], None]:
    def script(mem: Memory, record: Record) -> None:
        hs = [mem.alloc(nbytes) for _ in range(n - 1)]
        record(f"{n - 1} tensors")
        hs.append(mem.alloc(nbytes))
        record(f"{n} tensors")
        for h in hs:
            mem.free(h)
    return script


def _reuse(mem: Memory, record: Record) -> None:
    """A freed 100 MiB block serves a 60 MiB request by splitting; empty_cache cannot release it while 60 lives."""
    a = mem.alloc(100 * MiB)
    mem.free(a)
    record("100 MiB freed")
    b = mem.alloc(60 * MiB)
    record("60 MiB reuses it")
    mem.empty_cache()
    record("empty_cache, 60 MiB alive")
    mem.free(b)
    mem.empty_cache()
    record("freed, empty_cache")


# (label, requested bytes or None, script): each case starts and ends with nothing reserved
SIZES: list[tuple[str, int]] = [
    ("4 B", 4), ("3,000 B", 3000), ("1 MiB", MiB), ("1 MiB + 1 B", MiB + 1), ("5 MiB", 5 * MiB),
    ("10 MiB", 10 * MiB), ("10 MiB + 1 B", 10 * MiB + 1), ("12 MiB", 12 * MiB), ("100 MiB", 100 * MiB),
]
CASES: list[tuple[str, int | None, Callable[[Memory, Record], None]]] = [
    *[(label, n, _one(n)) for label, n in SIZES],
    ("400 KiB each", 400 * 1024, _packing(400 * 1024, 6)),
    ("6 MiB each", 6 * MiB, _packing(6 * MiB, 4)),
    ("100 MiB, then 60 MiB", None, _reuse),
]


def run(script: Callable[[Memory, Record], None], mem: Memory,
        on_error: Callable[[BaseException], dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Run a script; returns its checkpoints [{"label", **state, "error": None | {...}}]."""
    out: list[dict[str, Any]] = []

    def record(label: str, error: BaseException | None = None) -> None:
        err = None
        if error is not None:
            err = {"message": str(error), **(on_error(error) if on_error else {})}
        out.append({"label": label, **mem.state(), "error": err})

    script(mem, record)
    return out


class ModelMemory:
    """A Memory backed by the Python model."""

    OOM = ModelOutOfMemory

    def __init__(self, **kwargs: Any):
        self.model = CachingAllocatorModel(**kwargs)

    def alloc(self, nbytes: int) -> int:
        return self.model.malloc(nbytes)

    def free(self, handle: int) -> None:
        self.model.free(handle)

    def empty_cache(self) -> None:
        self.model.empty_cache()

    def state(self) -> dict[str, Any]:
        return self.model.state()


def predict_fragmentation(cap: int = CAP_BYTES, expandable: bool = False) -> dict[str, Any]:
    """The model's checkpoints for the fragmentation script, and its trace of allocator events."""
    mem = ModelMemory(cap=cap, expandable=expandable)
    checkpoints = run(fragmentation, mem, on_error=lambda e: {
        "alloc_size": e.alloc_size, "allocated": e.allocated, "reserved": e.reserved,
        "inactive_split": mem.model.inactive_split, "num_ooms": mem.model.num_ooms,
        "num_alloc_retries": mem.model.num_alloc_retries})
    return {"checkpoints": checkpoints, "events": mem.model.trace}


def predict_cases() -> dict[str, list[dict[str, Any]]]:
    """Every segments case through a fresh model."""
    return {label: run(script, ModelMemory()) for label, _, script in CASES}
