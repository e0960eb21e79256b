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
_FUSION = (SRC + "fusion.py", SRC + "bytecount.py", SRC + "kernels/add_rmsnorm.py", SRC + "kernels/swiglu.py")
_INDUCTOR = (SRC + "inductor.py", SRC + "mlp.py", SRC + "fusion.py")
_DECODE = (SRC + "decode/model.py", SRC + "decode/harness.py", SRC + "decode/variants.py", SRC + "decode/measure.py")
_ALLOC = (SRC + "allocator/demos.py", SRC + "allocator/model.py")

EXPERIMENTS: tuple[Experiment, ...] = (
    _exp("machine", "kernelbook.machine:measure", _MACHINE,
         "Copy and read bandwidth, bf16 matmul rate, launch cost", 300),
    # --- fusion experiments (issue 3) ---
    # --- inductor experiments (issue 4) ---
    # --- decode experiments (issue 5) ---
    # --- allocator experiments (issue 6) ---
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
