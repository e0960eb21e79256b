"""The decode.six_ways experiment: six ways to run a Qwen2.5-1.5B-shaped batch-1 decode step, checked, then timed.

Order matters and is the point: (1) every variant is built in one process on one StaticCache (the compiles each
get an empty on-disk cache, so their times are cold); (2) every variant is checked teacher-forced against eager
StaticCache, and run free on its own greedy tokens; (3) only then are interleaved timing rounds run, each timing 40
steps with a synchronize around each (perf_counter); (4) a few more steps of each are profiled, after the last
round, and one more round is timed after the profiles.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

import torch

from kernelbook.decode import variants as V
from kernelbook.decode.harness import CACHE_SLOTS, Buffers, Decoder, generate, make_static_cache, prompt_ids
from kernelbook.decode.model import QWEN25_15B, build_model, cast_params, param_count, weight_bytes
from kernelbook.timing import do_bench_rounds, kernel_summary, split_calls, trace

CHECK_STEPS = 20
FEED_SEED = 7
ROUNDS = 4
TIMED_STEPS = 40
WARM_STEPS = 3
PROFILE_CALLS = 5
TOL_FACTOR = 3.0  # a compiled variant may sit this many times as far from eager bf16 as eager bf16 is from fp32
COPY_BYTES = 2 << 30
TIMELINE_VARIANTS = ("eager_static", "cuda_graph")


def copy_gbps() -> dict[str, Any]:
    """Device-to-device copy of 2 GiB, bytes read plus written, as the machine page measures it."""
    n = COPY_BYTES // 4
    src = torch.randn(n, device="cuda")
    dst = torch.full_like(src, float("nan"))
    t = do_bench_rounds(lambda: dst.copy_(src), rounds=3, rep_ms=300)
    assert torch.equal(dst, src), "copy did not reproduce its source"
    return {**t, "bytes_moved": 2 * COPY_BYTES, "gbps": 2 * COPY_BYTES / (t["median"] * 1e-3) / 1e9}


# --8<-- [start:compare]
def compare(ref: torch.Tensor, got: torch.Tensor, tol: float, need_identical: bool, band: float = float("inf")
            ) -> dict[str, Any]:
    """Teacher-forced logits (steps, vocab) of a variant against the reference's, step by step.

    Passing needs bit-identical logits (`need_identical`), or a relative error within `tol` at every step and
    every top-1 disagreement at a step where the reference's top-two gap is within `band`, the logit error that
    rounding alone can make: a wider lead overturned means a real error.
    """
    r, g = ref.float(), got.float()
    rel = ((g - r).norm(dim=-1) / r.norm(dim=-1)).tolist()  # (steps,)
    max_abs = (g - r).abs().amax(dim=-1)  # (steps,)
    top2 = r.topk(2, dim=-1).values
    gap = top2[:, 0] - top2[:, 1]
    agree = r.argmax(-1) == g.argmax(-1)
    unexplained = (~agree) & (gap > band)
    identical = ref.dtype == got.dtype and bool(torch.equal(ref, got))
    ok = identical if need_identical else (max(rel) <= tol and not bool(unexplained.any()))
    return {"rel_err_max": max(rel), "rel_err_median": statistics.median(rel), "max_abs": float(max_abs.max()),
            "bit_identical": identical, "top1_agree": float(agree.float().mean()),
            "top1_disagree_steps": (~agree).nonzero().flatten().tolist(),
            "unexplained_steps": unexplained.nonzero().flatten().tolist(), "need_identical": need_identical,
            "tolerance": tol, "band": band if band != float("inf") else None, "passed": ok}
# --8<-- [end:compare]


def yardstick_model(fields: dict[str, Any], dev: torch.device) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor,
                                                                        Buffers, torch.Tensor]:
    """(bf16 model, prompt, feed, buffers, fp32 logits). The model is built in float32 first and eager StaticCache
    runs teacher-forced on `feed`: those logits are the yardstick, how far bf16 rounding alone moves eager's. Then
    the same weights are cast to bf16 for every variant."""
    model = build_model(fields, dev, torch.float32)
    prompt = prompt_ids(model.config.vocab_size, dev)
    feed = torch.randint(0, model.config.vocab_size, (CHECK_STEPS,), generator=torch.Generator().manual_seed(FEED_SEED)
                         ).to(dev)
    bufs = Buffers.on(dev)
    cache32 = make_static_cache(model)
    ref32 = generate(Decoder(model, bufs, V.eager_static(model, cache32, bufs)), prompt, CHECK_STEPS, feed)["logits"]
    del cache32
    cast_params(model, torch.bfloat16)
    torch.cuda.empty_cache()
    return model, prompt, feed, bufs, ref32


def tolerance(ref32: torch.Tensor, ref: torch.Tensor) -> tuple[dict[str, Any], float, float]:
    """(yardstick, tolerance, band): eager bf16 against eager fp32, and TOL_FACTOR times its largest relative error
    and its largest logit error, what a variant may add to eager bf16."""
    yard = compare(ref32, ref, tol=1.0, need_identical=False)
    return yard, TOL_FACTOR * yard["rel_err_max"], TOL_FACTOR * yard["max_abs"]


def first_divergence(ref: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    """Where a free-running variant's greedy tokens first leave the reference's, and how close the call was."""
    for i, (a, b) in enumerate(zip(ref["tokens"], got["tokens"], strict=True)):
        if a != b:
            return {"step": i, "ref_gap": ref["gaps"][i], "gap": got["gaps"][i]}
    return {"step": None, "ref_gap": None, "gap": None}


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


def timed_then_profiled(decs: dict[str, Decoder], prompt: torch.Tensor, names: list[str], rounds_n: int,
                        extra: Callable[[Decoder], dict[str, Any]] | None = None) -> dict[str, Any]:
    """`rounds_n` interleaved timing rounds (the order rotated each round, so that no variant is always first),
    then one profile per variant, then one more timing round. The profiles come last because torch.profiler
    leaves CUDA's profiling interface (CUPTI) attached when it stops: every launch after it costs the host more,
    which the round after the profiles measures."""
    rounds = [time_round(decs, prompt, names[r % len(names):] + names[:r % len(names)], extra)
              for r in range(rounds_n)]
    profiles, mix, timelines = {}, {}, {}
    for name in names:
        profiles[name], calls, ks = profile_steps(decs[name], prompt)
        mix[name] = kernel_names(ks["kernels"])
        if name in TIMELINE_VARIANTS:
            timelines[name] = timeline(calls[len(calls) // 2])
    return {"rounds": rounds, "profiles": profiles, "kernel_mix": mix, "timelines": timelines,
            "after_profiler": time_round(decs, prompt, list(names), extra)}
# --8<-- [end:timing]


def _fresh_inductor_cache(root: str):  # noqa: ANN202
    def before(name: str) -> None:
        d = tempfile.mkdtemp(prefix=name + "-", dir=root)
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = d
        os.environ["TRITON_CACHE_DIR"] = os.path.join(d, "triton")
        import torch._inductor.utils as iu

        clear = getattr(iu, "clear_caches", None) or getattr(iu, "clear_inductor_caches", None)
        if clear is not None:
            clear()  # in-memory caches too, so a mode cannot reuse the previous mode's kernels
    return before


def six_ways(fields: dict[str, Any] = QWEN25_15B, device: str = "cuda", names: tuple[str, ...] = V.NAMES,
             rounds_n: int = ROUNDS) -> dict[str, Any]:
    """The experiment. Its arguments exist for a dry run on a small model; the stored result uses the defaults."""
    root = tempfile.mkdtemp(prefix="kb-inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = root  # before torch._inductor is first used: compile times are cold
    import torch._dynamo

    # three modes compile the same step function; hitting the limit would silently fall back to eager
    limit = "recompile_limit" if hasattr(torch._dynamo.config, "recompile_limit") else "cache_size_limit"
    setattr(torch._dynamo.config, limit, 64)
    dev = torch.device(device)
    copy = copy_gbps()
    torch.cuda.empty_cache()  # the 4 GiB of copy buffers

    model, prompt, feed, bufs, ref32 = yardstick_model(fields, dev)
    wbytes = weight_bytes(model)

    cache = make_static_cache(model)
    variants, errors = {}, {}
    for name in names:  # one failing variant is recorded, not allowed to lose the others' results
        try:
            variants.update(V.build_all(model, cache, bufs, prompt, (name,), _fresh_inductor_cache(root)))
        except Exception as e:  # noqa: BLE001
            errors[name] = f"{type(e).__name__}: {str(e)[:1500]}"
            torch.cuda.synchronize()
    names = tuple(n for n in names if n in variants)
    assert "eager_static" in variants, f"the reference variant failed to build: {errors}"
    decs = {n: Decoder(model, bufs, v) for n, v in variants.items()}

    # (a) teacher-forced, (b) free-running: before anything is timed
    forced = {n: generate(d, prompt, CHECK_STEPS, feed) for n, d in decs.items()}
    ref = forced["eager_static"]["logits"]
    yard, tol, band = tolerance(ref32, ref)
    checks = {n: compare(ref, f["logits"], tol, variants[n].same_kernels_as_reference, band)
              for n, f in forced.items()}
    free = {n: generate(d, prompt, CHECK_STEPS) for n, d in decs.items()}
    free_out = {n: {"first_token": f["first_token"], "tokens": f["tokens"], "gaps": f["gaps"],
                    "first_divergence": first_divergence(free["eager_static"], f)} for n, f in free.items()}
    del forced, free, ref32

    timed = timed_then_profiled(decs, prompt, list(names), rounds_n)

    setup = {n: {k: v for k, v in variants[n].setup.items() if k != "graph"} for n in variants}
    return {
        "config": {k: fields[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers",
                                             "num_attention_heads", "num_key_value_heads", "vocab_size")},
        "prompt_len": prompt.shape[1], "cache_slots": CACHE_SLOTS, "check_steps": CHECK_STEPS, "rounds_n": rounds_n,
        "timed_steps": TIMED_STEPS,
        "profile_calls": PROFILE_CALLS, "timer": "perf_counter around each step, synchronize before and after",
        "profiled": "after the timing rounds, then one more timing round (after_profiler)",
        "weight_bytes": wbytes, "params": param_count(model), "copy": copy,
        "floor_ms": wbytes / (copy["gbps"] * 1e9) * 1e3,
        "names": list(names), "labels": {n: V.LABELS[n] for n in names},
        "yardstick_fp32": yard, "tolerance": tol, "band": band, "tol_factor": TOL_FACTOR,
        "teacher_forced": checks, "free_running": free_out,
        "all_passed": not errors and all(c["passed"] for c in checks.values()), "build_errors": errors,
        "setup": setup, **timed,  # rounds, profiles, kernel_mix (the torch.compile chapter reads it), timelines,
        # after_profiler
    }
