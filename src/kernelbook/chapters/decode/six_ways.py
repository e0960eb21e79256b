"""decode.six_ways: six ways to run a Qwen2.5-1.5B-shaped batch-1 decode step, checked, then timed.

Order matters and is the point: (1) every variant is built in one process on one StaticCache (the compiles each
get an empty on-disk cache, so their times are cold); (2) every variant is checked teacher-forced against eager
StaticCache, and run free on its own greedy tokens; (3) only then are interleaved timing rounds run, each timing
TIMED_STEPS steps with a synchronize around each (perf_counter); (4) a few more steps of each are profiled, after
the last round, and one more round is timed after the profiles.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from kernelbook.copy_ceiling import copy_bandwidth
from kernelbook.decode import variants as V
from kernelbook.decode.check import CHECK_STEPS, TOL_FACTOR, compare, first_divergence, tolerance, yardstick_model
from kernelbook.decode.harness import CACHE_SLOTS, Decoder, generate, make_static_cache
from kernelbook.decode.model import QWEN25_15B, param_count, weight_bytes
from kernelbook.decode.rounds import MIN_ROUNDS, PROFILE_CALLS, TIMED_STEPS, timed_then_profiled


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
             min_rounds: int = MIN_ROUNDS) -> dict[str, Any]:
    """The experiment. Its arguments exist for a dry run on a small model; the stored result uses the defaults."""
    root = tempfile.mkdtemp(prefix="kb-inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = root  # before torch._inductor is first used: compile times are cold
    import torch._dynamo

    # three modes compile the same step function; hitting the limit would silently fall back to eager
    limit = "recompile_limit" if hasattr(torch._dynamo.config, "recompile_limit") else "cache_size_limit"
    setattr(torch._dynamo.config, limit, 64)
    dev = torch.device(device)
    copy = copy_bandwidth()
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

    timed = timed_then_profiled(decs, prompt, list(names), min_rounds)

    setup = {n: {k: v for k, v in variants[n].setup.items() if k != "graph"} for n in variants}
    return {
        "config": {k: fields[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers",
                                             "num_attention_heads", "num_key_value_heads", "vocab_size")},
        "prompt_len": prompt.shape[1], "cache_slots": CACHE_SLOTS, "check_steps": CHECK_STEPS,
        "rounds_n": len(timed["rounds"]), "min_rounds": min_rounds,
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
