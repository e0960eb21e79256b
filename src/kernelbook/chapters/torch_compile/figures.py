"""How the torch-compile page's figures are computed from the stored runs: a figure against the laptop's or against a
range the article gave, the steps of a generated module's call(), a profiler kernel's name as the listing prints it,
the decode step's compile in each mode, the matrix products' share of a profile, and the headline times across runs
(kernelbook.across)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from kernelbook import across
from kernelbook.chapters.torch_compile import generated_code as ic

SIMILAR = 1.25  # two figures are "about the same" when the larger is within this factor of the smaller
DECODE_MODES = ("default", "reduce-overhead", "max-autotune")
Versus = Literal["similar", "more", "less"]  # a figure against the laptop's, by the SIMILAR factor
Range = Literal["below", "within", "above"]  # a figure against a range the article gave
_PARTITION = re.compile(r"^def (partition_\d+)\(args\):\s*$", re.M)  # a graph partition of call()


def versus(x: float, ref: float) -> Versus:
    ratio = x / ref
    return "similar" if 1 / SIMILAR <= ratio <= SIMILAR else "more" if ratio > 1 else "less"


def range_of(x: float, low: float, high: float) -> Range:
    return "below" if x < low else "above" if x > high else "within"


def launches(code: str) -> list[dict[str, Any]]:
    """The steps of a generated module's call(), classified; where call() only hands its work to graph partitions
    (max-autotune's CUDA graphs), the steps of the partitions' bodies instead."""
    steps = ic.call_summary(code)["steps"]
    if steps:
        return steps
    return [s for name in _PARTITION.findall(code)
            for s in ic.call_summary(code.replace(f"def {name}(args):", "def call(args):", 1))["steps"]]


_NAMED = re.compile(r"([A-Za-z_]\w*)\s*[<(]")  # a name that takes template or call arguments
_NOT_FUNCTOR = {"lambda", "operator"}


def _template_args(s: str) -> list[str]:
    """The top-level arguments of the template argument list that opens at s's first '<' ([] if none)."""
    start = s.find("<")
    if start < 0:
        return []
    args, depth, cur = [], 0, ""
    for ch in s[start + 1:]:
        if ch in "<({":
            depth += 1
        elif ch in ">)}":
            if depth == 0:  # the list's own '>'
                break
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    return args + [cur.strip()] if cur.strip() else args


def kernel_label(name: str) -> str:
    """A profiler kernel name as the profile's kernel listing prints it: the kernel's template name and the functor
    it runs, e.g. 'vectorized_elementwise_kernel · CUDAFunctor_add' ('at::native::' dropped); a name without
    template arguments (Triton's, cuBLAS's, a copy) unchanged. The functor is the innermost named type or function
    of the first template argument that is not a number (lambdas and call operators skipped)."""
    s = re.sub(r"^void ", "", name)
    if "<" not in s:
        return s
    kernel = s[:s.index("<")].replace("at::native::", "")
    for arg in _template_args(s):
        names = [m[1] for m in _NAMED.finditer(arg) if m[1] not in _NOT_FUNCTOR]
        if names:
            return f"{kernel} · {names[-1]}"
        if not re.fullmatch(r"\d+", arg):  # a plain type: no functor to name
            break
    return kernel


def decode_compiles(compile_warm: dict[str, Any], six_ways: dict[str, Any]) -> list[dict[str, Any]]:
    """The decode step's compile in each mode: from the decode chapter's two-process run where it measured that mode
    (cold and warm), else cold only from its six-ways run. later_ms: the third call, after any graph recording."""
    out = []
    for mode in DECODE_MODES:
        key = "compile_" + mode.replace("-", "_")
        if key in compile_warm["modes"]:
            cold, warm = compile_warm["cold"]["modes"][key], compile_warm["warm"]["modes"][key]
            out.append({"mode": mode, "cold_s": cold["compile_s"], "warm_s": warm["compile_s"],
                        "later_ms": warm["calls_s"][-1] * 1e3, "own_run": False})
        else:
            setup = six_ways["setup"][key]
            out.append({"mode": mode, "cold_s": setup["compile_s"], "warm_s": None,
                        "later_ms": setup["calls_s"][-1] * 1e3, "own_run": True})
    return out


def gemm_share(side: dict[str, Any]) -> float:
    return sum(k["us"] for k in side["kernels"] if k["family"] == "gemm") / side["busy_us"]


def gemm_names(side: dict[str, Any]) -> Counter[str]:
    return Counter(k["name"] for k in side["kernels"] if k["family"] == "gemm")


def one_token(d: dict[str, Any]) -> dict[str, Any]:
    """The smallest token count's profile in a torch_compile.mlp_profile run."""
    return d["by_tokens"][min(d["by_tokens"], key=int)]


def headline(profiles: Sequence[dict[str, Any]], compiles: Sequence[dict[str, Any]],
              recompiles: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def of(xs: Sequence[float]) -> across.Across:
        return across.of([{"median": x} for x in xs])

    def call_ms(i: int) -> across.Across:  # the recompile experiment's i-th call
        return of([d["calls"][i]["seconds"] * 1e3 for d in recompiles])

    later = range(2, len(recompiles[-1]["calls"]))  # the calls after the recompile

    return {"mlp_runs": len(profiles), "compile_runs": len(compiles), "recompile_runs": len(recompiles),
            **across.fields("one_saved_us", of([one_token(d)["saved_us"] for d in profiles])),
            **across.fields("one_eager_us", of([one_token(d)["eager"]["busy_us"] for d in profiles])),
            **across.fields("one_compiled_us", of([one_token(d)["compiled"]["busy_us"] for d in profiles])),
            **across.fields("norm_cold_s", of([d["add_rmsnorm"]["cold"]["first_call_s"] for d in compiles])),
            **across.fields("norm_warm_s", of([d["add_rmsnorm"]["warm"]["first_call_s"] for d in compiles])),
            "later_ms": tuple(call_ms(i).median for i in later),
            **across.fields("later_first_ms", call_ms(later[0]) if later else of([0.0])),
            **across.fields("later_last_ms", call_ms(later[-1]) if later else of([0.0])),
            **across.fields("recompile_s", of([d["calls"][1]["seconds"] for d in recompiles]))}
