"""decode.compile_warm: what compiling the decode step costs with an empty cache, and again in a new process that
keeps the cache.

Each measurement runs in a child process of its own (the second must not inherit the first's in-memory state),
both pointed at one fresh TORCHINDUCTOR_CACHE_DIR / TRITON_CACHE_DIR. The child builds the model, prefills the
static cache, compiles the step in each mode and times the first calls (the same three calls that the decode
chapter counts as a mode's compile time), then checks the compiled step's logits against eager's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

MODES = ("compile_default", "compile_reduce_overhead")  # max-autotune's cold compile alone takes about a minute
REL_TOL = 0.12  # the decode chapter's teacher-forced tolerance for compiled steps, rounded up


def _child(modes: list[str]) -> dict[str, Any]:
    import torch

    from kernelbook.decode import variants as V
    from kernelbook.decode.harness import Buffers, decode_step_fn, make_static_cache, prefill, prompt_ids
    from kernelbook.decode.model import build_model

    model = build_model()
    cache, bufs = make_static_cache(model), Buffers.on("cuda")
    prompt = prompt_ids(model.config.vocab_size, "cuda")
    out = {}
    for name in modes:
        torch._dynamo.reset()
        v = V.compiled(model, cache, bufs, prompt, name)  # compiles and times its first calls; leaves cache empty
        prefill(model, cache, prompt)
        bufs.ids.fill_(0)
        bufs.pos.fill_(prompt.shape[1])
        got = v.step().float()
        V.reset_static_cache(cache)
        prefill(model, cache, prompt)
        ref = decode_step_fn(model, cache, bufs)().float()
        V.reset_static_cache(cache)
        rel = ((got - ref).norm() / ref.norm()).item()
        assert rel < REL_TOL, f"{name}: compiled step {rel:.3f} away from eager"
        out[name] = {**{k: v.setup[k] for k in ("first_call_s", "calls_s", "compile_s")}, "rel_error": rel}
    return out


# --8<-- [start:run]
def _run(cache_dir: str, modes: tuple[str, ...]) -> dict[str, Any]:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache_dir, "inductor"),
           "TRITON_CACHE_DIR": os.path.join(cache_dir, "triton")}
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "kernelbook.chapters.decode.compile_warm", *modes], env=env,
                       capture_output=True, text=True, timeout=400)
    if p.returncode != 0:
        raise RuntimeError(f"compile child failed:\n{p.stderr[-4000:]}")
    return {"modes": json.loads(p.stdout.strip().splitlines()[-1]), "process_s": time.perf_counter() - t0}


def compile_warm() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kernelbook-inductor-") as d:
        cold = _run(d, MODES)
        warm = _run(d, MODES)
    return {"cold": cold, "warm": warm, "modes": list(MODES)}
# --8<-- [end:run]


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1:])))
