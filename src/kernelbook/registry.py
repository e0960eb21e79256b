"""Every experiment the site shows: a name, the function that measures it, and the files whose code it runs.

An experiment is a function that takes no arguments, measures one thing on the GPU and returns JSON-serialisable
data. `sources` are the files that decide what it measures (its module, the kernels it calls, the code the page
shows); their hash is the experiment's code hash, and a stored result whose hash differs is stale. Paths are
relative to the repository root. Importing this module imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

SRC = "src/kernelbook/"
COMMON = (SRC + "timing.py",)


@dataclass(frozen=True)
class Experiment:
    name: str  # "fusion.versions": chapter, dot, what
    entry: str  # "kernelbook.fusion:measure_versions"
    sources: tuple[str, ...]
    title: str
    timeout_s: int = 600
    needs_gpu: bool = True

    @property
    def chapter(self) -> str:
        return self.name.split(".")[0]


def _exp(name: str, entry: str, sources: tuple[str, ...], title: str, timeout_s: int = 600) -> Experiment:
    return Experiment(name, entry, tuple(dict.fromkeys(sources + COMMON)), title, timeout_s)


_MACHINE = (SRC + "machine.py",)
_FUSION = (SRC + "fusion.py", SRC + "bytecount.py", SRC + "kernels/add_rmsnorm.py", SRC + "kernels/swiglu.py",
           SRC + "machine.py")
_INDUCTOR = (SRC + "inductor.py", SRC + "inductor_code.py", SRC + "mlp.py", SRC + "fusion.py")
_DECODE = (SRC + "decode/model.py", SRC + "decode/harness.py", SRC + "decode/variants.py")
_FAR = _DECODE + (SRC + "decode/measure.py", SRC + "decode/fast.py", SRC + "decode/far.py",
                  SRC + "kernels/matvec.py", SRC + "kernels/matvec_pair.py", SRC + "kernels/decode_attention.py",
                  SRC + "kernels/add_rmsnorm.py", SRC + "kernels/swiglu.py", SRC + "kernels/next_token.py")
_ALLOC = (SRC + "allocator/demos.py", SRC + "allocator/model.py", SRC + "allocator/scripts.py",
          SRC + "allocator/parse.py", SRC + "allocator/experiments.py")

_SOL = (SRC + "speed_of_light.py", SRC + "kernels/same_bytes_copy.py", SRC + "fusion.py", SRC + "machine.py")
_SOL_ADD = _SOL + (SRC + "sol_add_rmsnorm.py", SRC + "kernels/add_rmsnorm_rows.py", SRC + "kernels/add_rmsnorm.py")
_SOL_SWIGLU = _SOL + (SRC + "sol_swiglu.py", SRC + "kernels/swiglu.py")
_SOL_DESIGNS = _SOL_ADD + (SRC + "sol_designs.py", SRC + "kernels/add_rmsnorm_persistent.py",
                           SRC + "kernels/add_rmsnorm_split_row.py", SRC + "kernels/add_rmsnorm_warp_rows.py")

EXPERIMENTS: tuple[Experiment, ...] = (
    _exp("machine", "kernelbook.machine:measure", _MACHINE,
         "Copy and read bandwidth, bf16 matmul rate, launch cost", 300),
    # --- fusion experiments (issue 3) ---
    _exp("fusion.eager_bytes", "kernelbook.fusion:measure_eager_bytes", _FUSION,
         "Eager add + Qwen2RMSNorm and SwiGLU kernel by kernel: bytes per element, time, same-run copy", 120),
    _exp("fusion.exactness", "kernelbook.fusion:measure_exactness", _FUSION,
         "Triton add_rmsnorm and swiglu (and torch.compile) against eager on fresh bf16 inputs", 180),
    _exp("fusion.versions", "kernelbook.fusion:measure_versions", _FUSION,
         "Eager, F.rms_norm, Triton and torch.compile at 8192 x 4096 bf16: time, kernels, bytes, GB/s", 240),
    # --- inductor experiments (issue 4) ---
    _exp("inductor.codegen", "kernelbook.inductor:codegen", _INDUCTOR,
         "Generated code: add+RMSNorm, the MLP half at 1 token, and under max-autotune", 300),
    _exp("inductor.mlp_profile", "kernelbook.inductor:mlp_profile", _INDUCTOR,
         "MLP half per-kernel GPU time, eager against compiled, 1 and 2,048 tokens", 240),
    _exp("inductor.compile_time", "kernelbook.inductor:compile_time", _INDUCTOR,
         "First-call compile time, cold and warm cache, in fresh processes", 420),
    _exp("inductor.recompiles", "kernelbook.inductor:recompiles", _INDUCTOR,
         "Recompiles of the MLP half at 1, 2, 3 and 64 tokens (TORCH_LOGS=recompiles)", 240),
    _exp("inductor.graph_breaks", "kernelbook.inductor:graph_breaks", _INDUCTOR,
         "torch._dynamo.explain of add+RMSNorm with an .item() branch", 120),
    _exp("inductor.modes", "kernelbook.inductor:modes", _INDUCTOR,
         "What each torch.compile mode turns on, and Inductor's big-GPU check", 60),
    # --- decode experiments (issue 5) ---
    _exp("decode.six_ways", "kernelbook.decode.measure:six_ways", _DECODE + (SRC + "decode/measure.py",),
         "Six ways to run a Qwen2.5-1.5B batch-1 decode step: checked, then timed and profiled", 580),
    _exp("decode.constraints", "kernelbook.decode.constraints:constraints", _DECODE + (SRC + "decode/constraints.py",),
         "What a CUDA graph records: the cache-counter trap, .item() in a capture, dynamo explain", 240),
    _exp("decode.compile_warm", "kernelbook.decode.compile_warm:compile_warm",
         _DECODE + (SRC + "decode/compile_warm.py",),
         "Compile time of the decode step, cold and with the cache kept, in new processes", 480),
    _exp("decode.far", "kernelbook.decode.far:far", _FAR,
         "How far batch-1 decode goes: tuned matvecs, then eight steps from the plain graph, checked and timed", 590),
    # --- allocator experiments (issue 6) ---
    _exp("allocator.caching", "kernelbook.allocator.experiments:measure_caching", _ALLOC,
         "µs per allocation and per free, with and without the caching allocator", 180),
    _exp("allocator.segments", "kernelbook.allocator.experiments:measure_segments", _ALLOC,
         "Blocks and segments per request size, measured and predicted by the model", 120),
    _exp("allocator.fragmentation", "kernelbook.allocator.experiments:measure_fragmentation", _ALLOC,
         "Out of memory under a 2 GiB cap from split blocks, and the expandable-segments rescue", 180),
    _exp("allocator.graph_pools", "kernelbook.allocator.experiments:measure_graph_pools", _ALLOC,
         "Memory reserved by CUDA graph private pools per captured batch size", 300),
    # --- speed of light (issue 8) ---
    _exp("sol.add_rmsnorm", "kernelbook.sol_add_rmsnorm:measure", _SOL_ADD,
         "Fused add+RMSNorm against a same-bytes copy across widths and row counts", 420),
    _exp("sol.swiglu", "kernelbook.sol_swiglu:measure", _SOL_SWIGLU,
         "Fused SwiGLU against a same-bytes copy across row counts", 300),
    _exp("sol.designs", "kernelbook.sol_designs:measure", _SOL_DESIGNS,
         "Persistent, split-row and warp-per-row add+RMSNorm against the row kernel and the same-bytes copy", 420),
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
