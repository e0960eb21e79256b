"""Timing helpers shared by the experiments: medians over rounds with the spread kept, CUDA events, profiler.

Every timer here warms up first, synchronises around what it times, and returns the per-round figures beside the
median, so a page can show how much the numbers moved.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any


def summary(values: list[float]) -> dict[str, Any]:
    """Median, min, max and the spread (max - min) / median in percent, over rounds or repeats."""
    med = statistics.median(values)
    return {"median": med, "min": min(values), "max": max(values), "n": len(values),
            "spread_pct": 100.0 * (max(values) - min(values)) / med if med else 0.0, "values": values}


def do_bench_rounds(fn: Callable[[], Any], rounds: int = 3, rep_ms: int = 1000, warmup_ms: int = 100
                    ) -> dict[str, Any]:
    """triton.testing.do_bench medians (ms) in `rounds` rounds of about rep_ms each; L2 is cleared between calls."""
    from triton.testing import do_bench

    return summary([do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median") for _ in range(rounds)])


def event_ms(fn: Callable[[], Any], repeats: int = 21, warmup: int = 3) -> dict[str, Any]:
    """Each call timed on its own by a pair of CUDA events; summary over `repeats` calls, in ms."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return summary(times)


GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
MARK = "kernelbook_call"
LAUNCH_WORDS = ("Launch", "Memcpy", "Memset")


def trace(fn: Callable[[], Any], calls: int = 1, warmup: int = 2) -> dict[str, Any]:
    """Profile `calls` calls of fn with torch.profiler and return the Chrome trace as a dict.

    Each call is wrapped in a record_function named MARK, so `split_calls` can charge every GPU event to the call
    whose host code launched it (by correlation id), even when the GPU runs it later.
    """
    import json
    import tempfile

    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            with torch.profiler.record_function(MARK):
                fn()
            torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        return json.load(open(f.name))


def split_calls(tr: dict[str, Any]) -> list[dict[str, Any]]:
    """Per call: its host span, the runtime calls (launches) made inside it and the GPU events they started.

    Times are microseconds from the trace. A GPU event belongs to the call in whose span its launching runtime
    call started (matched by the 'correlation' id that kineto puts on both).
    """
    evs = [e for e in tr.get("traceEvents", []) if e.get("ph") == "X"]
    marks = sorted((e for e in evs if e.get("name") == MARK and e.get("cat") in ("user_annotation", "cpu_op")),
                   key=lambda e: e["ts"])
    runtime = {e["args"]["correlation"]: e for e in evs
               if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    calls = [{"start": m["ts"], "end": m["ts"] + m["dur"], "launches": [], "gpu": []} for m in marks]

    def owner(ts: float) -> dict[str, Any] | None:
        for c in calls:
            if c["start"] <= ts <= c["end"]:
                return c
        return None

    for r in runtime.values():
        if not any(w in r["name"] for w in LAUNCH_WORDS):
            continue  # synchronisation and queries are runtime calls too, but not launches
        c = owner(r["ts"])
        if c is not None:
            c["launches"].append({"name": r["name"], "ts": r["ts"], "dur": r["dur"]})
    for k in sorted((e for e in evs if e.get("cat") in GPU_CATS), key=lambda e: e["ts"]):
        r = runtime.get(k.get("args", {}).get("correlation"))
        c = owner(r["ts"]) if r is not None else owner(k["ts"])
        if c is not None:
            c["gpu"].append({"name": k["name"], "ts": k["ts"], "dur": k["dur"], "cat": k["cat"]})
    return calls


def kernel_summary(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Kernels per call, GPU busy time (sum of durations), GPU span and host time per call: medians over calls,
    and one call's kernels by name with each position's median duration (calls with the modal count only)."""
    if not calls:
        return {"per_call": 0, "busy_us": 0.0, "cpu_us": 0.0, "span_us": 0.0, "kernels": [], "calls": 0}
    counts = [len(c["gpu"]) for c in calls]
    mode = statistics.mode(counts)
    same = [c for c in calls if len(c["gpu"]) == mode]
    kernels = [{"name": same[0]["gpu"][j]["name"], "us": statistics.median(c["gpu"][j]["dur"] for c in same)}
               for j in range(mode)]
    busy = [sum(k["dur"] for k in c["gpu"]) for c in calls]
    span = [(c["gpu"][-1]["ts"] + c["gpu"][-1]["dur"] - c["gpu"][0]["ts"]) if c["gpu"] else 0.0 for c in calls]
    return {"per_call": statistics.median(counts), "busy_us": statistics.median(busy),
            "cpu_us": statistics.median(c["end"] - c["start"] for c in calls), "span_us": statistics.median(span),
            "launches": statistics.median(len(c["launches"]) for c in calls), "kernels": kernels, "calls": len(calls)}


def profile_kernels(fn: Callable[[], Any], calls: int = 5, warmup: int = 2) -> dict[str, Any]:
    """kernel_summary of `calls` profiled calls of fn."""
    return kernel_summary(split_calls(trace(fn, calls, warmup)))
