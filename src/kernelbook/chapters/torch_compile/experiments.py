"""The torch_compile.* experiments: what Inductor generates, what it costs, and where it stops.

codegen       the generated module for add+RMSNorm, the MLP half (1 token) and the MLP half under max-autotune
mlp_profile   per-kernel GPU time, eager against compiled, at 1 and 2,048 tokens (profiler, 20 calls)
compile_time  first-call time with an empty cache directory, then in a new process with that cache kept
recompiles    1, 2, 3 and 64 tokens through one compiled function, with TORCH_LOGS=recompiles captured
graph_breaks  torch._dynamo.explain of add+RMSNorm with an .item() branch in it
modes         what each mode turns on, read from torch at run time, and the big-GPU check against this GPU

Subprocess children (`python -m kernelbook.chapters.torch_compile.experiments child ...`) keep a cold compile
cold: a fresh process and a fresh TORCHINDUCTOR_CACHE_DIR, so nothing compiled earlier in the run can be reused.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from kernelbook.chapters.torch_compile.generated_code import kernel_family, summarise
from kernelbook.timing import profile_kernels

NORM_SHAPE = (8192, 4096)  # the fusion chapter's add+RMSNorm shape
PROFILE_TOKENS = (1, 2048)
PROFILE_CALLS = 20
RECOMPILE_TOKENS = (1, 2, 3, 64)
CHILD_TIMEOUT_S = 240
CHILD = "kernelbook.chapters.torch_compile.experiments"  # this module, run as a fresh process
SRC_DIR = str(Path(__file__).resolve().parents[3])  # src/, for the children's PYTHONPATH


def _need_cuda() -> None:
    assert torch.cuda.is_available(), "the inductor experiments compile for a CUDA GPU; none is visible"


def _norm_case(device: str = "cuda") -> tuple[Any, tuple]:
    from kernelbook.kernels.add_rmsnorm import make_qwen2_norm, qwen2_add_rmsnorm

    rows, hidden = NORM_SHAPE
    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(rows, hidden, generator=gen).to(device, torch.bfloat16)  # (rows, hidden)
    r = torch.randn(rows, hidden, generator=gen).to(device, torch.bfloat16)
    return qwen2_add_rmsnorm, (x, r, make_qwen2_norm(hidden, device))


def _mlp_case(tokens: int, device: str = "cuda") -> tuple[Any, tuple]:
    from kernelbook.chapters.torch_compile.mlp import MLPHalf, make_inputs, mlp_half

    return mlp_half, (*make_inputs(tokens, device=device), MLPHalf(device=device))


def _outputs(out: Any) -> list[torch.Tensor]:
    return list(out) if isinstance(out, tuple | list) else [out]


# --8<-- [start:generated]
def generated_code(fn: Any, args: tuple, mode: str | None = None) -> tuple[list[str], float]:
    """Compile fn, run it once and return the module(s) Inductor wrote, checked against eager on the same input."""
    from torch._inductor.utils import run_and_get_code

    from kernelbook.chapters.torch_compile.mlp import check_close

    torch._dynamo.reset()
    with torch.no_grad():
        ref = _outputs(fn(*args))
        out, codes = run_and_get_code(torch.compile(fn, mode=mode), *args)
    err = max(check_close(o, r, f"compiled {fn.__name__} ({mode or 'default'})") for o, r in zip(_outputs(out), ref,
                                                                                                  strict=True))
    return codes, err
# --8<-- [end:generated]


def _one_module(codes: list[str], what: str) -> str:
    with_call = [c for c in codes if "def call(" in c]
    assert len(with_call) == 1, f"{what}: expected one generated module with call(), got {len(with_call)}"
    return with_call[0]


def codegen() -> dict[str, Any]:
    """Generated source and what it says, for add+RMSNorm (8192x4096) and the MLP half at 1 token, two modes."""
    _need_cuda()
    out: dict[str, Any] = {}
    cases = (("add_rmsnorm", _norm_case(), None), ("mlp_1token", _mlp_case(1), None),
             ("mlp_1token_max_autotune", _mlp_case(1), "max-autotune"))
    for key, (fn, args), mode in cases:
        t0 = time.perf_counter()
        codes, err = generated_code(fn, args, mode)
        code = _one_module(codes, key)
        out[key] = {"mode": mode or "default", "seconds": time.perf_counter() - t0, "rel_error": err,
                    "modules": len(codes), "code": code, "summary": summarise(code),
                    "shapes": [list(a.shape) for a in args if isinstance(a, torch.Tensor)]}
    torch._dynamo.reset()
    return out


def mlp_profile() -> dict[str, Any]:
    """Kernels per call and each kernel's GPU time (median of PROFILE_CALLS calls), eager against compiled."""
    _need_cuda()
    from kernelbook.chapters.torch_compile.mlp import check_close, mlp_half

    out: dict[str, Any] = {"calls": PROFILE_CALLS, "by_tokens": {}}
    for tokens in PROFILE_TOKENS:
        fn, args = _mlp_case(tokens)
        torch._dynamo.reset()
        compiled = torch.compile(mlp_half)
        rows = {}
        with torch.no_grad():
            ref = fn(*args)
            check_close(compiled(*args), ref, f"compiled MLP half at {tokens} tokens")
            for name, f in (("eager", fn), ("compiled", compiled)):
                s = profile_kernels(lambda f=f: f(*args), calls=PROFILE_CALLS, warmup=3)  # noqa: B023 (used at once)
                for k in s["kernels"]:
                    k["family"] = kernel_family(k["name"])
                rows[name] = s
        rows["saved_us"] = rows["eager"]["busy_us"] - rows["compiled"]["busy_us"]
        rows["kernels_removed"] = rows["eager"]["per_call"] - rows["compiled"]["per_call"]
        out["by_tokens"][str(tokens)] = rows
    torch._dynamo.reset()
    return out


# ---- children: one fresh process per cold or warm compile --------------------------------------------------------

def _cache_counters() -> dict[str, int]:
    from torch._dynamo.utils import counters

    return {f"{group}.{k}": int(v) for group in ("inductor", "aot_autograd") for k, v in counters[group].items()
            if "cache" in k}


def _child_first_call(case: str) -> dict[str, Any]:
    fn, args = _norm_case() if case == "add_rmsnorm" else _mlp_case(1)
    compiled = torch.compile(fn)
    times = []
    with torch.no_grad():
        for _ in range(2):  # the first call compiles; the second shows what a call costs afterwards
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            compiled(*args)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
    return {"first_call_s": times[0], "second_call_s": times[1], "cache": _cache_counters()}


def _child_recompiles() -> dict[str, Any]:
    from torch._dynamo.utils import counters

    from kernelbook.chapters.torch_compile.mlp import MLPHalf, make_inputs, mlp_half

    block = MLPHalf()
    compiled = torch.compile(mlp_half)
    calls = []
    with torch.no_grad():
        for tokens in RECOMPILE_TOKENS:
            x, r = make_inputs(tokens)
            before = counters["stats"]["unique_graphs"]
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            compiled(x, r, block)
            torch.cuda.synchronize()
            calls.append({"tokens": tokens, "seconds": time.perf_counter() - t0,
                          "graphs_compiled": counters["stats"]["unique_graphs"] - before})
    return {"calls": calls, "frames": dict(counters["frames"])}


def _run_child(task: str, cache_dir: str, env_extra: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one child process; returns its JSON result plus its stderr text."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir,
               "TRITON_CACHE_DIR": os.path.join(cache_dir, "triton"),
               "PYTHONPATH": os.pathsep.join(filter(None, [SRC_DIR, os.environ.get("PYTHONPATH")])),
               **(env_extra or {})}
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", CHILD, "child", task, f.name], env=env, capture_output=True,
                           text=True, timeout=CHILD_TIMEOUT_S)
        wall = time.perf_counter() - t0
        assert p.returncode == 0, f"child {task} failed ({p.returncode}):\n{p.stderr[-4000:]}"
        data = json.loads(Path(f.name).read_text())
    return {**data, "process_s": wall, "stderr": p.stderr}


def compile_time() -> dict[str, Any]:
    """Cold: a new process, an empty cache directory. Warm: another new process, the same directory."""
    _need_cuda()
    out: dict[str, Any] = {}
    for case in ("add_rmsnorm", "mlp_1token"):
        with tempfile.TemporaryDirectory(prefix="inductor-cache-") as d:
            cold = _run_child(case, d)
            warm = _run_child(case, d)
        out[case] = {name: {k: v for k, v in r.items() if k != "stderr"} for name, r in (("cold", cold),
                                                                                       ("warm", warm))}
    return out


_LOG_PREFIX = re.compile(r"^.*?\[__recompiles\] ?")


def recompiles() -> dict[str, Any]:
    """1, 2, 3 and 64 tokens through one compiled MLP half, in a fresh process with TORCH_LOGS=recompiles."""
    _need_cuda()
    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as d:
        r = _run_child("recompiles", d, {"TORCH_LOGS": "recompiles"})
    log = [_LOG_PREFIX.sub("", line) for line in r.pop("stderr").splitlines() if "__recompiles" in line]
    # the message names the source file by its full path on the measuring machine; keep the file name only
    log = [re.sub(r"in \S*/(\w+\.py):(\d+)", r"in \1:\2", line) for line in log]
    return {**r, "log": log}


def explain_breaks(fn: Any, *args: Any) -> dict[str, Any]:
    """torch._dynamo.explain of fn(*args), reduced to counts and each break's reason and place."""
    torch._dynamo.reset()
    with torch.no_grad():
        ex = torch._dynamo.explain(fn)(*args)
    reasons = []
    for br in ex.break_reasons:
        frame = br.user_stack[-1] if getattr(br, "user_stack", None) else None
        reasons.append({"reason": str(br.reason).strip(),
                        "where": f"{Path(frame.filename).name}:{frame.lineno}" if frame else None,
                        "line": (frame.line or "").strip() if frame else None})
    torch._dynamo.reset()
    return {"graph_count": ex.graph_count, "graph_break_count": ex.graph_break_count, "op_count": ex.op_count,
            "ops_per_graph": [len(ops) for ops in (ex.ops_per_graph or [])], "break_reasons": reasons}


def graph_breaks() -> dict[str, Any]:
    """What Dynamo makes of add+RMSNorm with a branch on .item(), and of the same code without it."""
    _need_cuda()
    from kernelbook.chapters.torch_compile.mlp import add_rmsnorm_checked
    from kernelbook.kernels.add_rmsnorm import qwen2_add_rmsnorm

    _, args = _norm_case()
    return {"checked": explain_breaks(add_rmsnorm_checked, *args), "plain": explain_breaks(qwen2_add_rmsnorm, *args)}


def _is_big_gpu_threshold() -> dict[str, Any]:
    """The SM count Inductor's is_big_gpu wants, read from its source (it is a literal there, not a setting)."""
    from torch._inductor import utils

    src = inspect.getsource(utils.is_big_gpu)
    m = re.search(r"^\s*min_sms\s*=\s*(.*?)(#.*)?$", src, re.M)
    nums = re.findall(r"\d+", m.group(1)) if m else []
    return {"min_sms": int(nums[-1]) if nums else None, "comment": (m.group(2) or "").lstrip("# ") if m else None,
            "source_line": m.group(0).strip() if m else None, "warning": "Not enough SMs" in src}


def _mm_rewrite_comment() -> dict[str, Any]:
    """The comment above Inductor's single-row mm decomposition and the condition that enables it."""
    from torch._inductor import decomposition

    src = inspect.getsource(decomposition.mm)
    comments = [c.strip().lstrip("# ") for c in re.findall(r"^\s*#.*$", src, re.M)]
    return {"comment": next((c for c in comments if "coordinate descent" in c), None),
            "needs_coordinate_descent": "config.coordinate_descent_tuning" in src}


def modes() -> dict[str, Any]:
    """Each mode's options and the config they change, read from this torch; the big-GPU check on this GPU."""
    _need_cuda()
    import torch._inductor as ind
    from torch._inductor import config
    from torch._inductor.utils import is_big_gpu

    flags = ("max_autotune", "max_autotune_gemm", "max_autotune_pointwise", "coordinate_descent_tuning",
             "triton.cudagraphs", "max_autotune_gemm_backends")

    def read(name: str) -> Any:
        obj: Any = config
        for part in name.split("."):
            obj = getattr(obj, part, None)
        return obj if isinstance(obj, bool | int | float | str) or obj is None else str(obj)

    props = torch.cuda.get_device_properties(0)
    return {"options": {m: dict(ind.list_mode_options(m)) for m in ("default", "reduce-overhead", "max-autotune")},
            "config_defaults": {f: read(f) for f in flags},
            "is_big_gpu": bool(is_big_gpu(0)), "threshold": _is_big_gpu_threshold(),
            "sm_count": props.multi_processor_count, "gpu": props.name, "mm_rewrite": _mm_rewrite_comment()}


def _child_main(argv: list[str]) -> int:
    task, out = argv[1], argv[2]
    _need_cuda()
    data = _child_recompiles() if task == "recompiles" else _child_first_call(task)
    Path(out).write_text(json.dumps(data, allow_nan=False))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "child":
        sys.exit(_child_main(sys.argv[1:]))
    sys.exit(f"usage: python -m {CHILD} child (add_rmsnorm|mlp_1token|recompiles) OUT.json")
