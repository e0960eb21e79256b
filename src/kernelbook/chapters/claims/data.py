"""Reading the stored results the ledger's rows judge: small getters over one run's data (experiment name -> data),
the article's parts, the bands, and how a figure is written in a table cell. Nothing here decides a verdict."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from kernelbook.chapters.memory_bound.facts import BAND as BYTES_BAND
from kernelbook.decode import report

from .verdicts import Band, Data

# The article's parts, in its order: each row names the one its claim comes from (a claim the summary at the top or
# the takeaways repeat belongs to the step that measures it).
WHY, STEP1, STEP2, STEP3, STEP4, STEP5, WORLD, MYTHS = (
    "Why it matters", "Step 1 · memory-bound", "Step 2 · fusing by hand", "Step 3 · torch.compile",
    "Step 4 · CUDA graphs and decode", "Step 5 · the caching allocator", "In the real world",
    "Misconceptions and takeaways")
PARTS = (WHY, STEP1, STEP2, STEP3, STEP4, STEP5, WORLD, MYTHS)

# The bands, by what kind of figure a row judges, each stated before any result is read:
RATIO = Band(share=0.15)  # a ratio of two times on one machine (a speedup, a cut, a share of a floor or of a step)
COUNT = Band(share=0.05)  # a count that library versions move a little (kernels per step, operations per graph)
TIME = Band(share=0.50)  # an absolute time that depends on the machine's host or GPU (compile s, µs of one kernel)
BYTES = Band(share=BYTES_BAND)  # a time against its bytes over the bandwidth: the memory-bound chapter's band
OWN = Band()  # the article's own range, as it states it
AT_LEAST = Band(at_least=True)  # the article's figure or more ("more than a hundred times")

MiB = 1 << 20


# ---- how a figure reads in a cell ----------------------------------------------------------------------------------

def num(d: int = 1, unit: str = "") -> Callable[[float], str]:
    return lambda x: f"{x:,.{d}f}{unit}"


def times(d: int = 1) -> Callable[[float], str]:
    return num(d, "×")


def pct(d: int = 0) -> Callable[[float], str]:
    return lambda x: f"{100 * x:,.{d}f}%"


def ms(d: int = 2) -> Callable[[float], str]:
    return num(d, " ms")


def us(d: int = 1) -> Callable[[float], str]:
    return num(d, " µs")


def secs(d: int = 1) -> Callable[[float], str]:
    return num(d, " s")


def steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def ratios(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """a / b round by round (the rounds of one run are paired: each round timed both)."""
    return [x / y for x, y in zip(a, b, strict=True)]


def diffs(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x - y for x, y in zip(a, b, strict=True)]


def pairs(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """a - b over every pair of samples: the interval of the difference when the samples are not paired."""
    return [x - y for x in a for y in b]


# ---- fusing_by_hand.versions, memory_bound.eager_bytes, machine.ceilings -------------------------------------------

def version(d: Data, op: str, key: str) -> Data:
    return next(v for v in d["fusing_by_hand.versions"]["versions"] if v["op"] == op and v["key"] == key)


def version_times(d: Data, op: str, key: str) -> list[float]:
    return version(d, op, key)["time"]["values"]


def quiet_versions(d: Data, op: str, *keys: str) -> bool:
    """The fusion table's versions `keys` of `op` stopped quiet (a run from before the criterion counts as quiet)."""
    return all(version(d, op, k)["time"].get("quiet", True) for k in keys)


def quiet_chain(d: Data, name: str) -> bool:
    return chain(d, name)["bench"].get("quiet", True)


def quiet_launch(d: Data, *keys: str) -> bool:
    """The machine page's launch figures `keys` (eager_ms, graph_ms, host_enqueue_us) stopped quiet."""
    return all(launch(d)[k].get("quiet", True) for k in keys)


def quiet_copy(d: Data, experiment: str) -> bool:
    """The copy ceiling of `experiment` stopped quiet (a run from before the criterion counts as quiet)."""
    c = d[experiment]["bandwidth"]["copy"] if experiment == "machine.ceilings" else d[experiment]["copy"]
    return c.get("quiet", True)


def spans(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """The lowest and highest a / b over samples that were not taken in pairs: min(a) / max(b), max(a) / min(b)."""
    return [min(a) / max(b), max(a) / min(b)]


def chain(d: Data, name: str) -> Data:
    return d["memory_bound.eager_bytes"]["chains"][name]


def over_bytes(d: Data, name: str) -> float:
    """An eager chain's time over its bytes at the same run's copy bandwidth."""
    c = chain(d, name)
    return c["bench"]["median"] * 1e3 / c["predicted_us"]


def over_bytes_rounds(d: Data, name: str) -> list[float]:
    c = chain(d, name)
    return [v * 1e3 / c["predicted_us"] for v in c["bench"]["values"]]


def gbps_rounds(stat: Data) -> list[float]:
    """A bandwidth measurement's GB/s in each round (bytes moved over each round's ms)."""
    return [stat["bytes_moved"] / (v * 1e-3) / 1e9 for v in stat["values"]]


def launch(d: Data) -> Data:
    return d["machine.ceilings"]["launch"]


# ---- torch_compile.* ----------------------------------------------------------------------------------------------

def kernel0(d: Data) -> Data:
    return d["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernels"][0]


def mlp(d: Data, tokens: str) -> Data:
    return d["torch_compile.mlp_profile"]["by_tokens"][tokens]


def kernels_of(d: Data, tokens: str, way: str, family: str | None = None) -> list[Data]:
    return [k for k in mlp(d, tokens)[way]["kernels"] if family is None or k["family"] == family]


def saved_share(d: Data, tokens: str) -> float:
    """GPU time fusion saved in the MLP half, as a share of eager's."""
    return mlp(d, tokens)["saved_us"] / mlp(d, tokens)["eager"]["busy_us"]


def cold(d: Data) -> dict[str, float]:
    """Cold-cache compile seconds of the decode step by mode: the modes decode.compile_warm measured both ways, and
    max-autotune from decode.six_ways."""
    cw = d["decode.compile_warm"]
    out = {m: cw["cold"]["modes"][m]["compile_s"] for m in cw["modes"]}
    out["compile_max_autotune"] = d["decode.six_ways"]["setup"]["compile_max_autotune"]["compile_s"]
    return out


def warm(d: Data) -> dict[str, float]:
    cw = d["decode.compile_warm"]
    return {m: cw["warm"]["modes"][m]["compile_s"] for m in cw["modes"]}


def big_gpu(d: Data) -> bool:
    """Inductor's own verdict: this GPU has the SMs its matmul templates want."""
    return bool(d["torch_compile.modes"]["is_big_gpu"])


# ---- decode.six_ways ------------------------------------------------------------------------------------------------

def six(d: Data) -> dict[str, Data]:
    return report.summaries(d["decode.six_ways"])


def step_rounds(d: Data, name: str) -> list[float]:
    return [r["variants"][name]["step_ms"] for r in d["decode.six_ways"]["rounds"]]


def quiet_steps(d: Data, *names: str) -> bool:
    """The six ways' variants `names` stopped quiet over the rounds (a run from before the criterion counts as
    quiet)."""
    figs = d["decode.six_ways"].get("quiet", {}).get("figures", {})
    return all(figs.get(n, {}).get("step_ms", {}).get("quiet", True) for n in names)


def host_rounds(d: Data, name: str) -> list[float]:
    return [r["variants"][name]["host_us"] / 1e3 for r in d["decode.six_ways"]["rounds"]]


def idle_rounds(d: Data, name: str) -> list[float]:
    """The share of each round's step the GPU sat idle, against the busy time of the profiled steps."""
    busy = six(d)[name]["busy_ms"]
    return [max(0.0, 1 - busy / x) for x in step_rounds(d, name)]


def floor_rounds(d: Data, name: str) -> list[float]:
    return [d["decode.six_ways"]["floor_ms"] / x for x in step_rounds(d, name)]


def mix(d: Data, name: str) -> Data:
    return d["decode.six_ways"]["kernel_mix"][name]


def best(d: Data) -> Data:
    """The fastest variant whose logits matched eager's (the best of the six)."""
    return report.best_valid(d["decode.six_ways"])


def tokens(d: Data) -> dict[str, tuple[int, ...]]:
    fr = d["decode.six_ways"]["free_running"]
    return {n: tuple(fr[n]["tokens"]) for n in d["decode.six_ways"]["names"]}


# ---- allocator.* ----------------------------------------------------------------------------------------------------

def oom_point(d: Data) -> Data:
    """The checkpoint of the 200 MiB request, without expandable segments."""
    return d["allocator.fragmentation"]["default"]["checkpoints"][-1]


def holes(d: Data) -> list[int]:
    """The free blocks of the default run when the request failed, bytes."""
    return [b[0] for seg in oom_point(d)["segments"] for b in seg["blocks"] if b[1] == "free"]


def rules(d: Data) -> dict[str, bool]:
    from kernelbook.chapters.allocator.checks import rule_checks

    return dict(rule_checks(d["allocator.segments"]))


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def vllm_sizes(largest: int) -> list[int]:
    """vLLM's default CUDA graph capture sizes, as its engine arguments give the list."""
    return [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, largest + 1, 16))



