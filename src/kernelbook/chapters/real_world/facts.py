"""The numbers and verdicts of docs/real-world.md: vLLM's capture sizes held against the allocator chapter's
graph pools, and why engines capture decode and not prefill, from allocator.graph_pools, torch_compile.mlp_profile,
machine.ceilings and decode.six_ways on one machine, with the article's RTX 4060 Laptop figures beside them; and
whether the speed-of-light runs (speed_of_light.add_rmsnorm, .swiglu) had Liger-Kernel to race.

No sentence is written here: the page's Markdown reads these fields (`{{ f.shared_mib }}`, in the text FORMATS
gives each) and names above each paragraph the GUARDS (guards.py) it rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelbook import read
from kernelbook.decode import report

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
MiB = 1 << 20
SHOWN = 6, 3  # capture sizes written out at the start and the end of the list
SPEED_OF_LIGHT = ("speed_of_light.add_rmsnorm", "speed_of_light.swiglu")  # the runs that race Liger-Kernel


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    # vLLM's default capture sizes, captured by the allocator chapter
    capture_count: int
    capture_max: int
    capture_first: tuple[int, ...]
    capture_last: tuple[int, ...]
    capture_shown: str  # the list as the page writes it: '1, 2, 4, 8, 16, 24, …, 480, 496, 512'
    stand_in_layers: int
    stand_in_hidden: int
    stand_in_inter: int
    private_mib: float  # every graph in a private pool: reserved beyond the model
    shared_mib: float  # all graphs in one pool
    # prefill against decode
    prefill_tokens: int
    prefill_kernel_us_low: float  # the MLP half's mean kernel time at prefill_tokens, eager and compiled
    prefill_kernel_us_high: float
    prefill_gpu_us: float  # eager GPU busy time per call (the page prints torch_compile.big_eager_us, the same median)
    prefill_compiled_us: float  # compiled GPU busy time per call
    prefill_host_us: float  # eager host time per call, under the profiler
    prefill_host_bound: bool  # under the profiler, the host took longer to issue the call than the GPU to run it
    prefill_saved_share: float  # share of eager's GPU time that compiling saved (torch_compile.big_saved_share)
    prefill_fusion_saves: bool
    prefill_launches: int  # kernels one eager call launches
    prefill_launch_us: float  # those launches at the unprofiled cost of one (launch_us)
    launch_us: float  # host time to enqueue one launch, unprofiled (the page prints machine.host_us, the same median)
    decode_kernels: int  # kernels in one eager decode step (default cache)
    laptop_kernel_ms_low: float
    laptop_kernel_ms_high: float
    laptop_launch_us: float
    laptop_saved_share: float
    # hand-written kernels
    liger_raced: bool  # both speed-of-light runs timed Liger-Kernel's kernels beside this site's


FORMATS = {  # how each measured figure reads on the page (kernelbook.macros); counts read as integers
    "capture_max": "num:0", "private_mib": "num:0", "shared_mib": "num:0",
    "prefill_kernel_us_low": "num:0", "prefill_kernel_us_high": "num:0", "prefill_gpu_us": "num:0",
    "prefill_host_us": "num:0", "launch_us": "num:1", "prefill_saved_share": "pct:1", "prefill_compiled_us": "num:0",
    "prefill_launch_us": "num:0",
    "laptop_kernel_ms_low": "num:1", "laptop_kernel_ms_high": "num:1", "laptop_launch_us": "num:1",
    "laptop_saved_share": "pct:0",
}

def derive(f: Facts) -> dict[str, Any]:
    """The share and the product the page prints, computed again from the medians (as torch_compile's facts do)."""
    return {"prefill_saved_share": (f.prefill_gpu_us - f.prefill_compiled_us) / f.prefill_gpu_us,
            "prefill_launch_us": f.prefill_launches * f.launch_us}


DERIVED_FROM = {"prefill_saved_share": ("prefill_gpu_us", "prefill_compiled_us"),
                "prefill_launch_us": ("prefill_launches", "launch_us")}


def from_data(graph_pools: dict[str, Any], mlp_profile: dict[str, Any], ceilings: dict[str, Any],
              six_ways: dict[str, Any], laptop_profile: dict[str, Any], laptop_ceilings: dict[str, Any],
              speed_of_light: tuple[dict[str, Any], ...], gpu: str) -> Facts:
    """speed_of_light: the data of speed_of_light.add_rmsnorm and speed_of_light.swiglu."""
    sizes = graph_pools["vllm_sizes"]
    first, last = SHOWN
    tokens = max(mlp_profile["by_tokens"], key=int)
    big = mlp_profile["by_tokens"][tokens]
    per_kernel = [big[side]["busy_us"] / big[side]["per_call"] for side in ("eager", "compiled")]
    saved = big["saved_us"] / big["eager"]["busy_us"]
    return Facts(
        gpu=gpu, capture_count=len(sizes), capture_max=max(sizes), capture_first=tuple(sizes[:first]),
        capture_last=tuple(sizes[-last:]),
        capture_shown=", ".join(f"{n:,}" for n in sizes[:first]) + ", …, " + ", ".join(f"{n:,}" for n in sizes[-last:]),
        stand_in_layers=graph_pools["layers"],
        stand_in_hidden=graph_pools["hidden"], stand_in_inter=graph_pools["inter"],
        private_mib=(graph_pools["separate_reserved"][-1] - graph_pools["base_reserved"]) / MiB,
        shared_mib=(graph_pools["shared_reserved"][-1] - graph_pools["base_reserved_shared"]) / MiB,
        prefill_tokens=int(tokens), prefill_kernel_us_low=min(per_kernel), prefill_kernel_us_high=max(per_kernel),
        prefill_gpu_us=big["eager"]["busy_us"], prefill_compiled_us=big["compiled"]["busy_us"],
        prefill_host_us=big["eager"]["cpu_us"], prefill_host_bound=big["eager"]["cpu_us"] > big["eager"]["busy_us"],
        prefill_saved_share=saved, prefill_fusion_saves=saved > 0,
        prefill_launches=round(big["eager"]["launches"]),
        prefill_launch_us=round(big["eager"]["launches"]) * ceilings["launch"]["host_enqueue_us"]["median"],
        launch_us=ceilings["launch"]["host_enqueue_us"]["median"],
        decode_kernels=report.summaries(six_ways)["eager_dynamic"]["kernels"],
        laptop_kernel_ms_low=laptop_profile["kernel_ms_2048_low"],
        laptop_kernel_ms_high=laptop_profile["kernel_ms_2048_high"],
        laptop_launch_us=laptop_ceilings["launch_host_us"], laptop_saved_share=laptop_profile["saved_pct_2048"] / 100,
        liger_raced=all(s["liger"] for s in speed_of_light),
    )


def facts(machine: str | None = None) -> Facts:
    ceilings = read.result("machine.ceilings", machine)
    return from_data(read.result("allocator.graph_pools", machine).data,
                     read.result("torch_compile.mlp_profile", machine).data, ceilings.data,
                     read.result("decode.six_ways", machine).data,
                     read.result("torch_compile.mlp_profile", LAPTOP).data,
                     read.result("machine.ceilings", LAPTOP).data,
                     tuple(read.result(n, machine).data for n in SPEED_OF_LIGHT), read.machine_label(ceilings))
