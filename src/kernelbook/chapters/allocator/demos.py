"""The allocator demos, each run in a fresh process: `python -m kernelbook.chapters.allocator.demos NAME [JSON config]`.

Allocator settings (PYTORCH_CUDA_ALLOC_CONF, PYTORCH_NO_CUDA_MEMORY_CACHING) are read once per process, so
every configuration gets its own process; kernelbook.chapters.allocator.experiments starts them and collects the one
line each prints: "KB_RESULT " followed by JSON.
"""

from __future__ import annotations

import json
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from kernelbook.bench import BOUND_PCT, MIN_SAMPLES, rounds_until_quiet
from kernelbook.chapters.allocator import parse, scripts
from kernelbook.chapters.allocator.model import KiB, MiB
from kernelbook.chapters.allocator.scripts import MARK, vllm_capture_sizes

CACHING_SIZES = (4 * KiB, 1 * MiB, 16 * MiB, 256 * MiB)
QUEUED_MS = 20.0  # GPU work queued ahead of a timed alloc or free
# one sample of the caching demo: the median of BATCH timed calls, so that one call the OS preempted does not make a
# sample; samples go on until quiet (bench.py) or CAP_S seconds a size
BATCH = 10
CAP_S = 2.0
OOM_TYPE = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError


class TorchMemory:
    """A scripts.Memory over the real caching allocator: one uint8 tensor per handle."""

    OOM = OOM_TYPE

    def __init__(self) -> None:
        self.live: dict[int, torch.Tensor] = {}
        self.n = 0

    def alloc(self, nbytes: int) -> int:
        t = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        self.n += 1
        self.live[self.n] = t
        return self.n

    def free(self, handle: int) -> None:
        del self.live[handle]  # the last reference: the block goes back to the cache now

    def empty_cache(self) -> None:
        torch.cuda.empty_cache()

    def state(self) -> dict[str, Any]:
        stats = torch.cuda.memory_stats()
        return {"allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved(),
                "inactive_split": int(stats.get("inactive_split_bytes.all.current", 0)),
                "segments": parse.snapshot_segments(torch.cuda.memory_snapshot())}


def _oom_details(err: BaseException) -> dict[str, Any]:
    stats = torch.cuda.memory_stats()
    summary = torch.cuda.memory_summary()
    return {"type": type(err).__name__, "summary": summary, "summary_parsed": parse.parse_summary(summary),
            "parsed": parse.parse_oom(str(err)), "num_ooms": int(stats.get("num_ooms", -1)),
            "num_alloc_retries": int(stats.get("num_alloc_retries", -1)),
            "inactive_split_stat": int(stats.get("inactive_split_bytes.all.current", -1))}


def _start_history() -> None:
    import inspect

    fn = torch.cuda.memory._record_memory_history
    kw = {k: v for k, v in (("context", None), ("stacks", "python"), ("max_entries", 100_000))
          if k in inspect.signature(fn).parameters}
    fn(enabled="all", **kw)


# ---- demos -------------------------------------------------------------------------------------------------------

def demo_segments(cfg: dict[str, Any]) -> dict[str, Any]:
    torch.cuda.init()
    out = {}
    for label, _, script in scripts.CASES:
        torch.cuda.empty_cache()
        assert torch.cuda.memory_reserved() == 0, f"case {label}: {torch.cuda.memory_reserved()} B reserved at start"
        mem = TorchMemory()
        out[label] = scripts.run(script, mem)
        assert not mem.live, f"case {label} left tensors alive"
        torch.cuda.empty_cache()
    return {"cases": out, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}


def demo_fragmentation(cfg: dict[str, Any]) -> dict[str, Any]:
    torch.cuda.init()
    free0, total = torch.cuda.mem_get_info()
    fraction = scripts.CAP_BYTES / total  # set_per_process_memory_fraction multiplies by this same total
    torch.cuda.set_per_process_memory_fraction(fraction)
    _start_history()
    assert torch.cuda.memory_reserved() == 0, "memory reserved before the script started"
    checkpoints = scripts.run(scripts.fragmentation, TorchMemory(), on_error=_oom_details)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "snap.pickle"
        torch.cuda.memory._dump_snapshot(str(path))
        raw_bytes = path.stat().st_size
        snap = pickle.loads(path.read_bytes())
    torch.cuda.memory._record_memory_history(enabled=None)
    events = parse.trim_trace(snap)
    assert events, f"the snapshot has no trace entries (keys: {sorted(snap)})"
    return {"expandable": "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
            "fraction": fraction, "cap_bytes": int(fraction * total), "device_total": total,
            "device_free_at_start": free0, "checkpoints": checkpoints, "events": events,
            "snapshot_pickle_bytes": raw_bytes, "trace_entries": len(parse.device_trace(snap))}


def _calibrated_sleep_cycles(target_ms: float) -> int:
    cycles = 10_000_000
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(2):  # the first call also loads the kernel
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
    return max(1, int(cycles * target_ms / start.elapsed_time(end)))


def _time_us(fn: Any) -> float:
    t0 = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - t0) / 1e3


def _alloc_free_until_quiet(alloc: Any, free: Any, batch: int, cap_s: float) -> dict[str, Any]:
    """alloc() then free(), timed call by call, in rounds of `batch` pairs; a round's sample is each one's median
    over the batch, and rounds go on until both are quiet or the cap (bench.rounds_until_quiet). Returns both
    summaries (µs) and the slowest single call of each."""
    slowest = {"alloc": 0.0, "free": 0.0}

    def one_round(i: int) -> dict[str, float]:
        a_us, f_us = [], []
        for _ in range(batch):
            a_us.append(_time_us(alloc))
            f_us.append(_time_us(free))
        slowest["alloc"], slowest["free"] = max(slowest["alloc"], *a_us), max(slowest["free"], *f_us)
        return {"alloc": statistics.median(a_us), "free": statistics.median(f_us)}

    q = rounds_until_quiet(one_round, BOUND_PCT, MIN_SAMPLES, cap_s)
    return {**q["versions"], "rounds": q["rounds"], "slowest": slowest}


def demo_caching(cfg: dict[str, Any]) -> dict[str, Any]:
    torch.cuda.init()
    uncached = os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1"
    batch, cap_s = int(cfg.get("batch", BATCH)), float(cfg.get("cap_s", CAP_S))
    holder: list[torch.Tensor] = []

    def alloc(n: int) -> None:
        holder.append(torch.empty(n, dtype=torch.uint8, device="cuda"))

    def free() -> None:
        holder.pop()  # drops the only reference

    for n in CACHING_SIZES:  # warm-up: with caching, this leaves one cached block of each size
        alloc(n)
        free()
    torch.cuda.synchronize()
    reserved_after_warmup = torch.cuda.memory_reserved()
    # --8<-- [start:caching]
    sizes = []
    for n in CACHING_SIZES:
        t = _alloc_free_until_quiet(lambda n=n: alloc(n), free, batch, cap_s)
        sizes.append({"bytes": n, "alloc_us": t["alloc"]["median"], "free_us": t["free"]["median"],
                      "alloc_us_max": t["slowest"]["alloc"], "free_us_max": t["slowest"]["free"],
                      "reps": t["rounds"] * batch, "batch": batch, "alloc": t["alloc"], "free": t["free"]})
    # a free (and an alloc) issued while the GPU still has QUEUED_MS of work ahead of it: one call a sample
    cycles = _calibrated_sleep_cycles(QUEUED_MS)
    n = 16 * MiB

    def queued_round(i: int) -> dict[str, float]:
        alloc(n)
        torch.cuda.synchronize()
        torch.cuda._sleep(cycles)
        f = _time_us(free)
        torch.cuda.synchronize()
        torch.cuda._sleep(cycles)
        a = _time_us(lambda: alloc(n))
        torch.cuda.synchronize()
        free()
        return {"free": f, "alloc": a}

    q = rounds_until_quiet(queued_round, BOUND_PCT, MIN_SAMPLES, cap_s)["versions"]
    # --8<-- [end:caching]
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return {"uncached": uncached, "sizes": sizes, "reserved_after_warmup": reserved_after_warmup,
            "queued": {"bytes": n, "gpu_ms": start.elapsed_time(end), "free_us": q["free"]["median"],
                       "alloc_us": q["alloc"]["median"], "free_us_all": q["free"]["values"],
                       "alloc_us_all": q["alloc"]["values"], "free": q["free"], "alloc": q["alloc"]}}


# --8<-- [start:graph_pools]
def _mlp(hidden: int, inter: int, layers: int) -> torch.nn.Module:
    blocks = []
    for _ in range(layers):  # (batch, hidden) -> (batch, inter) -> (batch, hidden)
        blocks += [torch.nn.Linear(hidden, inter, bias=False), torch.nn.SiLU(),
                   torch.nn.Linear(inter, hidden, bias=False)]
    return torch.nn.Sequential(*blocks).to("cuda", torch.bfloat16).eval()


def capture_all(model: torch.nn.Module, x: torch.Tensor, sizes: list[int], stream: torch.cuda.Stream,
                pool: Any = None) -> tuple[list[tuple[Any, torch.Tensor]], list[int]]:
    """One graph per batch size, largest first; returns the graphs and memory_reserved after each capture."""
    graphs, reserved = [], []
    for b in sizes:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool, stream=stream):
            y = model(x[:b])  # the output stays alive in the graph's pool: replay writes it
        graphs.append((g, y))
        reserved.append(torch.cuda.memory_reserved())
    return graphs, reserved
# --8<-- [end:graph_pools]


def demo_graph_pools(cfg: dict[str, Any]) -> dict[str, Any]:
    torch.manual_seed(0)
    hidden, inter, layers = cfg.get("hidden", 1536), cfg.get("inter", 8960), cfg.get("layers", 2)
    sizes = sorted(vllm_capture_sizes(cfg.get("max_size", 512)), reverse=True)
    with torch.no_grad():
        model = _mlp(hidden, inter, layers)
        x = torch.randn(max(sizes), hidden, device="cuda", dtype=torch.bfloat16)  # (max batch, hidden)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm-up on the capture stream: cuBLAS workspace, kernel choice
            for b in sizes:
                model(x[:b])
        torch.cuda.synchronize()
        torch.cuda.empty_cache()  # graph capture empties the cache itself; do it first so deltas are clean
        base = torch.cuda.memory_reserved()
        t0 = time.perf_counter()
        graphs, sep = capture_all(model, x, sizes, stream)
        sep_s = time.perf_counter() - t0
        # replay check on fresh inputs: a graph reads x's memory, so refill it and compare with eager
        x.copy_(torch.randn_like(x))
        for g, y in (graphs[0], graphs[-1]):
            y.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            ref = model(x[:y.shape[0]])
            err = (y.float() - ref.float()).abs().max().item()
            assert err <= 1e-2 * ref.float().abs().max().item() + 1e-3, f"graph replay differs from eager by {err}"
        pools = {tuple(s.get("segment_pool_id", (0, 0))) for s in torch.cuda.memory_snapshot()} - {(0, 0)}
        del graphs, g, y
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        base_shared = torch.cuda.memory_reserved()
        t0 = time.perf_counter()
        shared_graphs, shared = capture_all(model, x, sizes, stream, pool=torch.cuda.graph_pool_handle())
        shared_s = time.perf_counter() - t0
        del shared_graphs
    steps = [r - p for r, p in zip(sep, [base] + sep[:-1], strict=True)]
    return {"hidden": hidden, "inter": inter, "layers": layers, "sizes": sizes, "base_reserved": base,
            "separate_reserved": sep, "separate_steps": steps, "separate_capture_s": sep_s,
            "private_pools_seen": len(pools), "base_reserved_shared": base_shared, "shared_reserved": shared,
            "shared_capture_s": shared_s,
            "weight_bytes": sum(p.numel() * p.element_size() for p in model.parameters())}


DEMOS = {"segments": demo_segments, "fragmentation": demo_fragmentation, "caching": demo_caching,
         "graph_pools": demo_graph_pools}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in DEMOS:
        print(f"usage: python -m kernelbook.chapters.allocator.demos {{{','.join(DEMOS)}}} [JSON config]",
              file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("kernelbook.chapters.allocator.demos: no CUDA GPU visible", file=sys.stderr)
        return 3
    cfg = json.loads(argv[1]) if len(argv) > 1 else {}
    data = DEMOS[argv[0]](cfg)
    print(MARK + json.dumps(data, allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
