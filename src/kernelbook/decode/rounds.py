"""How the decode chapters time a step: interleaved rounds of synchronised steps, then profiles, then one more round.

Each round times every variant in turn (the order rotated round by round), each step on its own with a
synchronize before and after; rounds go on until every variant's median step is quiet (bench.py's
criterion). The profiler runs only after the rounds: torch.profiler leaves CUDA's profiling
interface attached, which slows every launch after it (the round after the profiles shows by how much).
"""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

import torch

from kernelbook.bench import MIN_SAMPLES, rounds_until_quiet
from kernelbook.decode.harness import Decoder
from kernelbook.timing import kernel_summary, split_calls, trace

MIN_ROUNDS = MIN_SAMPLES  # rounds go on until every variant is quiet (bench.py), at least this many
CAP_S = 90.0  # or until this many seconds of rounds
TIMED_STEPS = 40
WARM_STEPS = 3
PROFILE_CALLS = 5
TIMELINE_VARIANTS = ("eager_static", "cuda_graph")


def kernel_names(kernels: list[dict[str, Any]], top: int = 15) -> dict[str, Any]:
    """One step's GPU events by name: Triton kernels (`triton_*`), other kernels (cuBLAS, ATen, SDPA), copies."""
    by: dict[str, list[float]] = {}
    for k in kernels:
        by.setdefault(k["name"], []).append(k["us"])
    copies = sum(len(v) for n, v in by.items() if n.startswith(("Memcpy", "Memset")))
    triton = sum(len(v) for n, v in by.items() if n.startswith("triton"))
    rows = sorted(({"name": n[:160], "count": len(v), "us": sum(v)} for n, v in by.items()), key=lambda d: -d["us"])
    return {"triton": triton, "other": len(kernels) - triton - copies, "copies": copies, "distinct": len(by),
            "top": rows[:top]}


def timeline(call: dict[str, Any]) -> dict[str, Any]:
    """One profiled step, trimmed for a figure: host launch calls and GPU events as [start, duration] in µs
    from the step's start on the host."""
    t0 = call["start"]
    span = lambda evs: [[round(e["ts"] - t0, 1), round(e["dur"], 1)] for e in evs]  # noqa: E731
    return {"host_us": call["end"] - t0, "launches": span(call["launches"]), "kernels": span(call["gpu"])}


def smi() -> dict[str, Any]:
    """SM and memory clocks, power and temperature now (nvidia-smi); empty if it cannot be read."""
    q = "clocks.sm,clocks.mem,power.draw,temperature.gpu"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-i",
                              str(torch.cuda.current_device())], capture_output=True, text=True, timeout=10).stdout
        vals = [float(x) for x in out.strip().splitlines()[0].split(",")]
        return dict(zip(q.split(","), vals, strict=True))
    except Exception:  # noqa: BLE001 - a missing reading must not fail the run
        return {}


# --8<-- [start:timing]
def time_steps(dec: Decoder, steps: int = TIMED_STEPS) -> dict[str, Any]:
    """Each step on its own, synchronised before and after (perf_counter): wall ms per step, and the host's
    time to return from the step (launching it) in µs."""
    wall, host = [], []
    for _ in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        dec.advance()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        wall.append((t2 - t0) * 1e3)
        host.append((t1 - t0) * 1e6)
    return {"step_ms": statistics.median(wall), "step_ms_min": min(wall), "host_us": statistics.median(host)}


def time_round(decs: dict[str, Decoder], prompt: torch.Tensor, order: list[str],
               extra: Callable[[Decoder], dict[str, Any]] | None = None) -> dict[str, Any]:
    """One round of timings, no profiler in it: each variant prefills, runs WARM_STEPS untimed steps and
    time_steps, then whatever `extra` times (the decode-far page's back-to-back loop)."""
    out: dict[str, Any] = {"order": order, "smi": smi(), "variants": {}}
    for name in order:
        dec = decs[name]
        dec.start(prompt)
        for _ in range(WARM_STEPS):
            dec.advance()
        out["variants"][name] = {**time_steps(dec), **(extra(dec) if extra else {})}
    out["smi_end"] = smi()
    return out


def profile_steps(dec: Decoder, prompt: torch.Tensor) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """PROFILE_CALLS steps under torch.profiler after the same warm-up: kernels and launches per step, GPU busy
    time, the host's time under the profiler; with the calls and their kernels, for the kernel mix and timeline."""
    dec.start(prompt)
    for _ in range(WARM_STEPS):
        dec.advance()
    calls = split_calls(trace(dec.advance, calls=PROFILE_CALLS, warmup=1))
    ks = kernel_summary(calls)
    return ({"kernels": ks["per_call"], "launches": ks["launches"], "busy_us": ks["busy_us"],
             "cpu_us_profiled": ks["cpu_us"], "span_us": ks["span_us"]}, calls, ks)


def timed_then_profiled(decs: dict[str, Decoder], prompt: torch.Tensor, names: list[str],
                        min_rounds: int = MIN_ROUNDS, extra: Callable[[Decoder], dict[str, Any]] | None = None,
                        quiet_on: tuple[str, ...] = ("step_ms",), cap_s: float = CAP_S) -> dict[str, Any]:
    """Interleaved timing rounds (the order rotated each round, so that no variant is always first) until every
    variant's figures named in `quiet_on` are quiet over at least `min_rounds` rounds, or the cap (bench.py's
    noise criterion); then one profile per variant, then one more timing round. The profiles come last because
    torch.profiler leaves CUDA's profiling interface (CUPTI) attached when it stops: every launch after it costs
    the host more, which the round after the profiles measures."""
    rounds: list[dict[str, Any]] = []

    def one_round(r: int) -> dict[str, float]:
        rounds.append(time_round(decs, prompt, names[r % len(names):] + names[:r % len(names)], extra))
        return {f"{n}/{k}": v[k] for n, v in rounds[-1]["variants"].items() for k in quiet_on}

    q = rounds_until_quiet(one_round, min_rounds=min_rounds, cap_s=cap_s)
    figures: dict[str, dict[str, Any]] = {}
    for key, summ in q.pop("versions").items():
        name, fig = key.split("/")
        figures.setdefault(name, {})[fig] = {"noise_pct": summ["noise_pct"], "quiet": summ["quiet"]}
    profiles, mix, timelines = {}, {}, {}
    for name in names:
        profiles[name], calls, ks = profile_steps(decs[name], prompt)
        mix[name] = kernel_names(ks["kernels"])
        if name in TIMELINE_VARIANTS:
            timelines[name] = timeline(calls[len(calls) // 2])
    return {"rounds": rounds, "quiet": {**q, "figures": figures}, "profiles": profiles, "kernel_mix": mix,
            "timelines": timelines, "after_profiler": time_round(decs, prompt, list(names), extra)}
# --8<-- [end:timing]
