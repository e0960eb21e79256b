"""Every experiment the site shows: a name, the function that measures it, and how long it may take.

An experiment is a function that takes no arguments, measures one thing on the GPU and returns JSON-serialisable
data. Its name is `<chapter>.<what>`, the chapter named like its page (`speed_of_light.swiglu` is measured by
`kernelbook.chapters.speed_of_light.swiglu` and shown on `docs/speed-of-light.md`).

What decides whether a stored result is stale is the code that ran: the runner records every module of this package
that the experiment's process (and any process it started) imported, and hashes those files (runner.py). `declared`
adds files the experiment uses without importing them. `previous` lists names its results were stored under
before a rename; those runs stay in its history. Paths are relative to the repository root. Importing this module
imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

SRC = "src/kernelbook/"
CHAPTERS = "kernelbook.chapters."


@dataclass(frozen=True)
class Experiment:
    name: str  # "fusing_by_hand.versions": chapter, dot, what
    entry: str  # "kernelbook.chapters.fusing_by_hand.versions:measure"
    title: str
    timeout_s: int = 600
    declared: tuple[str, ...] = ()  # files it reads or runs without importing them
    previous: tuple[str, ...] = ()  # names its results were stored under before
    needs_gpu: bool = True

    @property
    def chapter(self) -> str:
        return self.name.split(".")[0]


def _chapter(name: str, module: str, func: str, title: str, timeout_s: int, previous: str | None = None
             ) -> Experiment:
    chapter = name.split(".")[0]
    return Experiment(name, f"{CHAPTERS}{chapter}.{module}:{func}", title, timeout_s,
                      previous=(previous,) if previous else ())


EXPERIMENTS: tuple[Experiment, ...] = (
    _chapter("machine.ceilings", "ceilings", "measure",
             "Copy and read bandwidth, bf16 matmul rate, launch cost", 300, "machine"),
    _chapter("memory_bound.eager_bytes", "eager_bytes", "measure",
             "Eager add + Qwen2RMSNorm and SwiGLU kernel by kernel: bytes per element, time, same-run copy", 120,
             "fusion.eager_bytes"),
    _chapter("fusing_by_hand.exactness", "exactness", "measure",
             "Triton add_rmsnorm and swiglu (and torch.compile) against eager on fresh bf16 inputs", 180,
             "fusion.exactness"),
    _chapter("fusing_by_hand.versions", "versions", "measure",
             "Eager, F.rms_norm, Triton and torch.compile at 8192 x 4096 bf16: time, kernels, bytes, GB/s", 240,
             "fusion.versions"),
    _chapter("torch_compile.codegen", "experiments", "codegen",
             "Generated code: add+RMSNorm, the MLP half at 1 token, and under max-autotune", 300,
             "inductor.codegen"),
    _chapter("torch_compile.mlp_profile", "experiments", "mlp_profile",
             "MLP half per-kernel GPU time, eager against compiled, 1 and 2,048 tokens", 240,
             "inductor.mlp_profile"),
    _chapter("torch_compile.compile_time", "experiments", "compile_time",
             "First-call compile time, cold and warm cache, in fresh processes", 420,
             "inductor.compile_time"),
    _chapter("torch_compile.recompiles", "experiments", "recompiles",
             "Recompiles of the MLP half at 1, 2, 3 and 64 tokens (TORCH_LOGS=recompiles)", 240,
             "inductor.recompiles"),
    _chapter("torch_compile.graph_breaks", "experiments", "graph_breaks",
             "torch._dynamo.explain of add+RMSNorm with an .item() branch", 120,
             "inductor.graph_breaks"),
    _chapter("torch_compile.modes", "experiments", "modes",
             "What each torch.compile mode turns on, and Inductor's big-GPU check", 60,
             "inductor.modes"),
    _chapter("decode.six_ways", "six_ways", "six_ways",
             "Six ways to run a Qwen2.5-1.5B batch-1 decode step: checked, then timed and profiled", 580),
    _chapter("decode.constraints", "constraints", "constraints",
             "What a CUDA graph records: the cache-counter trap, .item() in a capture, dynamo explain", 240),
    _chapter("decode.compile_warm", "compile_warm", "compile_warm",
             "Compile time of the decode step, cold and with the cache kept, in new processes", 480),
    _chapter("decode_far.ladder", "ladder", "measure",
             "How far batch-1 decode goes: tuned matvecs, then one change at a time from the plain graph, each step "
             "checked and timed",
             590, "decode.far"),
    _chapter("allocator.caching", "experiments", "measure_caching",
             "µs per allocation and per free, with and without the caching allocator", 180),
    _chapter("allocator.segments", "experiments", "measure_segments",
             "Blocks and segments per request size, measured and predicted by the model", 120),
    _chapter("allocator.fragmentation", "experiments", "measure_fragmentation",
             "Out of memory under a 2 GiB cap from split blocks, and the expandable-segments rescue", 180),
    _chapter("allocator.graph_pools", "experiments", "measure_graph_pools",
             "Memory reserved by CUDA graph private pools per captured batch size", 300),
    _chapter("allocator.pools", "pools", "measure",
             "Stream tags on freed blocks, a graph's private pool after release, expandable segments' pages and growth",
             180),
    _chapter("speed_of_light.add_rmsnorm", "add_rmsnorm", "measure",
             "Fused add+RMSNorm against a same-bytes copy across widths and row counts", 420,
             "sol.add_rmsnorm"),
    _chapter("speed_of_light.swiglu", "swiglu", "measure",
             "Fused SwiGLU against a same-bytes copy across row counts", 300, "sol.swiglu"),
    _chapter("speed_of_light.designs", "designs", "measure",
             "Persistent, split-row and warp-per-row add+RMSNorm against the row kernel and the same-bytes copy", 420,
             "sol.designs"),
)

BY_NAME: dict[str, Experiment] = {e.name: e for e in EXPERIMENTS}


class UnknownExperiment(KeyError):
    def __str__(self) -> str:
        return f"unknown experiment {self.args[0]!r}; `python -m kernelbook list` shows the known ones"


def get(name: str) -> Experiment:
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownExperiment(name) from None


def chapter(name: str) -> list[Experiment]:
    """The experiments of one chapter (`speed_of_light`), in registry order."""
    return [e for e in EXPERIMENTS if e.chapter == name]
