"""The numbers and verdicts of docs/machine.md, from machine.ceilings on one machine (and SwiGLU's arithmetic
intensity from memory_bound.eager_bytes, which the roofline plots), with the article's RTX 4060 Laptop figures
beside them.

The headline figures (copy bandwidth, the matmul rate, eager and graph launches, their ratio, the host's enqueue
time) are the median across every stored run of the current code of machine.ceilings (kernelbook.across), each with
its lowest and highest run and whether those lie further apart than the widest run's own spread (`*_runs_vary`);
the verdicts read the newest run's samples.

No sentence is written here: the page's Markdown reads these fields (`{{ f.ridge }}`, in the text FORMATS gives
each) and names above each paragraph the GUARDS (guards.py) it rests on. This chapter is the one source of the
machine's quantities (copy bandwidth, matmul rate, launch costs): other pages read them as
`facts("machine").<field>`.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, bench, read

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
GIB, MIB = 1 << 30, 1 << 20
# "far below the ridge": the claims ledger's test of the article's "about a hundred times below" (claim `ridge`)
MIDDLE = 0.8  # the host's range is the middle share of its samples, which a few slow outliers do not widen
FAR_BELOW = 50  # a kernel this many times below the ridge or more is 'far below' it, on every page that says so
LABELS = {  # data keys -> how the tables name them
    "copy": "copy, read + write (GB/s)",
    "read": "read only (GB/s)",
    "write": "write only (GB/s)",
    "matmul": "bf16 matmul, {n} × {n} (TFLOP/s)",  # n: the matrices' side
    "ridge": "ridge point, matmul ÷ copy (FLOP/B)",
    "eager": "eager loop from Python, µs per launch (GPU clock)",
    "graph": "CUDA graph replay, µs per kernel",
    "speedup": "graph speedup",
    "host": "host time to enqueue one launch, µs",
}
HostVersus = Literal["slower", "faster", "similar"]
GraphVersus = Literal["more", "as much", "less"]


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    sm_count: int
    l2_known: bool  # the run recorded the L2 size
    l2_mib: float | None
    # bandwidth and matmul
    copy_gib: float  # the copied tensor's size
    copy_over_l2: float | None  # ... in L2s
    bw_quiet: bool  # the copy, the read-only and the write-only passes all quiet
    bw_noisy: tuple[str, ...]  # ... those still noisy at the cap, each with its noise: ('read ±0.7%',)
    matmul_samples: int  # do_bench medians behind the matmul rate, sampled until quiet or the cap
    matmul_quiet: bool
    matmul_noise: float  # relative standard deviation of its samples, percent
    ceilings_runs: int  # stored runs of machine.ceilings of the current code
    copy_gbps: float  # bytes read plus bytes written, over the time; the median across runs
    copy_gbps_low: float  # ... the lowest and highest run
    copy_gbps_high: float
    copy_gbps_runs_vary: bool  # ... further apart than the widest run's own spread
    read_gbps: float  # the read-only pass, the median across runs (the roofline's other yardstick)
    read_gbps_low: float
    read_gbps_high: float
    read_gbps_runs_vary: bool
    write_gbps: float  # the write-only pass, likewise
    write_gbps_low: float
    write_gbps_high: float
    write_gbps_runs_vary: bool
    copy_tbps: float
    copy_tbps_low: float
    copy_tbps_high: float
    matmul_n: int  # the product is n × n × n
    matmul_tflops: float
    matmul_tflops_low: float
    matmul_tflops_high: float
    matmul_tflops_runs_vary: bool
    ridge: float  # matmul rate over copy bandwidth, FLOP per byte
    laptop_copy_gbps: float
    laptop_dram_gbps: float  # the figure the article divided by for its ridge
    laptop_tflops: float
    laptop_ridge_published: float  # the article's ridge: matmul over DRAM bandwidth
    laptop_ridge: float  # the laptop's ridge as this page defines it: matmul over copy
    copy_vs_laptop: float  # this machine's copy over the laptop's
    tflops_vs_laptop: float
    ridge_above_laptop: bool  # this machine needs more FLOP per byte than the laptop (both over the copy)
    # SwiGLU's activation on the roofline
    swiglu_flop_per_elem: int
    swiglu_bytes_per_elem: float  # fused: read g and u, write the output
    swiglu_flop_per_byte: float
    ridge_over_swiglu: float  # how many times below the ridge it sits
    swiglu_far_below_ridge: bool  # at least FAR_BELOW times below
    # launches
    launches: int
    eager_samples: int  # eager loops timed, sampled until quiet (bench.py) or the cap
    graph_samples: int
    host_samples: int
    bound_pct: float  # the noise a quiet figure may keep, percent
    min_samples: int  # bench.py's criterion: at least this many samples ...
    cap_s: float  # ... within this many seconds
    max_samples: int  # ... or until this many samples
    eager_quiet: bool
    graph_quiet: bool
    host_quiet: bool
    eager_noise: float  # relative standard deviation of the samples, percent
    graph_noise: float
    host_noise: float
    launch_noisy_count: int  # of the three launch figures, those still noisy at the cap
    launch_all_quiet: bool  # ... none
    launch_all_noisy: bool  # ... all three
    eager_us: float  # GPU wall time per launch, launched one by one from Python (CUDA events); across runs
    eager_us_low: float
    eager_us_high: float
    eager_us_runs_vary: bool
    graph_us: float  # per kernel, replayed from one CUDA graph
    graph_us_low: float
    graph_us_high: float
    graph_us_runs_vary: bool
    launch_speedup: float
    launch_speedup_low: float
    launch_speedup_high: float
    launch_speedup_runs_vary: bool
    host_us: float  # host time to enqueue one launch, median over its samples; across runs
    host_us_runs_low: float  # the lowest and highest run median (host_us_low/high: the newest run's samples)
    host_us_runs_high: float
    host_us_runs_vary: bool
    host_us_low: float  # ... the ends of the middle MIDDLE of them
    host_us_high: float
    host_middle: float  # MIDDLE
    laptop_host_us: float
    laptop_graph_low: float  # the article's graph speedup, a range
    laptop_graph_high: float
    host_versus_laptop: HostVersus  # "similar": the laptop's figure lies in the middle of this machine's samples
    host_bound: bool  # Python takes longer to enqueue a launch than the GPU takes to run one from a graph: the
    # middle MIDDLE of the host's samples all above the middle of the graph's (per launch)
    gpu_bound: bool  # ... all below it; neither: the two ranges overlap
    graph_us_mid_low: float  # the middle MIDDLE of the graph replay's samples, µs per kernel (the newest run's)
    graph_us_mid_high: float
    graph_versus_laptop: GraphVersus  # the graph speedup against the laptop's range


def _middle(values: list[float]) -> tuple[float, float]:
    """The ends of the middle MIDDLE of the samples (0.8: the 10th and 90th percentile)."""
    if len(values) < 2:
        return values[0], values[0]
    cuts = statistics.quantiles(values, n=100, method="inclusive")  # the 1st .. 99th percentile
    tail = round(100 * (1 - MIDDLE) / 2)
    return cuts[tail - 1], cuts[-tail]


def _host_versus(low: float, high: float, laptop: float) -> HostVersus:
    return "slower" if low > laptop else "faster" if high < laptop else "similar"


def _graph_versus(speedup: float, low: float, high: float) -> GraphVersus:
    return "more" if speedup > high else "less" if speedup < low else "as much"


def _rate(value: float, t: dict[str, Any]) -> dict[str, Any]:
    """A stored rate (GB/s, TFLOP/s) with the spread of the time t it divides (its slowest round, its lowest rate)."""
    return {**across.rate(value * t["median"], t), "median": value}


def _per_launch(value: float, t: dict[str, Any], launches: int) -> dict[str, Any]:
    """A stored µs per launch with the spread of the loop's time t (ms for `launches` launches)."""
    return {**across.scale(t, 1e3 / launches), "median": value}


def bandwidth(d: dict[str, Any], key: str = "copy") -> dict[str, Any]:
    """A pass's GB/s (copy, read or write) with the spread of its time."""
    return _rate(d["bandwidth"][key]["gbps"], d["bandwidth"][key])


def matmul_rate(d: dict[str, Any]) -> dict[str, Any]:
    return _rate(d["matmul"]["tflops"], d["matmul"])


def eager_launch(d: dict[str, Any]) -> dict[str, Any]:
    ln = d["launch"]
    return _per_launch(ln["eager_us_per_launch"], ln["eager_ms"], ln["launches"])


def graph_launch(d: dict[str, Any]) -> dict[str, Any]:
    ln = d["launch"]
    return _per_launch(ln["graph_us_per_launch"], ln["graph_ms"], ln["launches"])


def graph_speedup(d: dict[str, Any]) -> dict[str, Any]:
    ln = d["launch"]
    return {**across.ratio(ln["eager_ms"], ln["graph_ms"]), "median": ln["speedup"]}


def host_enqueue(d: dict[str, Any]) -> dict[str, Any]:
    return d["launch"]["host_enqueue_us"]


def _headline(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    copy = across.of([bandwidth(d) for d in runs])
    host = across.of([host_enqueue(d) for d in runs])
    return {"ceilings_runs": len(runs), **across.fields("copy_gbps", copy),
            **across.fields("read_gbps", across.of([bandwidth(d, "read") for d in runs])),
            **across.fields("write_gbps", across.of([bandwidth(d, "write") for d in runs])),
            "copy_tbps": copy.median / 1e3, "copy_tbps_low": copy.low / 1e3, "copy_tbps_high": copy.high / 1e3,
            **across.fields("matmul_tflops", across.of([matmul_rate(d) for d in runs])),
            **across.fields("eager_us", across.of([eager_launch(d) for d in runs])),
            **across.fields("graph_us", across.of([graph_launch(d) for d in runs])),
            **across.fields("launch_speedup", across.of([graph_speedup(d) for d in runs])),
            "host_us": host.median, "host_us_runs_low": host.low, "host_us_runs_high": host.high,
            "host_us_runs_vary": host.vary}


def from_data(ceilings: dict[str, Any], laptop: dict[str, Any], eager_bytes: dict[str, Any], gpu: str,
              sm_count: int, l2_bytes: int | None, runs: Sequence[dict[str, Any]] | None = None) -> Facts:
    """ceilings is the newest run, which the verdicts read; runs, every run of the current code oldest first (the
    newest among them; default: that one alone), which the headline figures read."""
    top = _headline(runs or [ceilings])
    bw, mm, launch = ceilings["bandwidth"], ceilings["matmul"], ceilings["launch"]
    si = eager_bytes["swiglu_intensity"]
    ridge = ceilings["ridge_flop_per_byte"]
    laptop_ridge = laptop["bf16_tflops"] * 1e3 / laptop["copy_gbps"]
    host = launch["host_enqueue_us"]
    low, high = _middle(host["values"])
    per_launch = 1e3 / launch["launches"]  # a graph sample's ms -> µs per launch
    graph_low, graph_high = (x * per_launch for x in _middle(launch["graph_ms"]["values"]))
    loops = (launch["eager_ms"], launch["graph_ms"], host)
    return Facts(
        gpu=gpu, sm_count=sm_count, l2_known=l2_bytes is not None, l2_mib=l2_bytes / MIB if l2_bytes else None,
        copy_gib=bw["bytes"] / GIB, copy_over_l2=bw["bytes"] / l2_bytes if l2_bytes else None,
        bw_quiet=all(bw[k]["quiet"] for k in ("copy", "read", "write")),
        bw_noisy=tuple(k + ("" if bw[k].get("noise_pct") is None else f" ±{bw[k]['noise_pct']:.1f}%")
                       for k in ("copy", "read", "write") if not bw[k]["quiet"]),
        matmul_samples=mm["rounds"] if "rounds" in mm else mm["n_rounds"], matmul_quiet=mm["quiet"],
        matmul_noise=mm["noise_pct"], **top, matmul_n=round((mm["flop"] / 2) ** (1 / 3)), ridge=ridge,
        laptop_copy_gbps=laptop["copy_gbps"], laptop_dram_gbps=laptop["dram_gbps"],
        laptop_tflops=laptop["bf16_tflops"], laptop_ridge_published=laptop["ridge_flop_per_byte"],
        laptop_ridge=laptop_ridge, copy_vs_laptop=top["copy_gbps"] / laptop["copy_gbps"],
        tflops_vs_laptop=top["matmul_tflops"] / laptop["bf16_tflops"], ridge_above_laptop=ridge > laptop_ridge,
        swiglu_flop_per_elem=si["flop_per_elem"], swiglu_bytes_per_elem=si["fused_bytes_per_elem"],
        swiglu_flop_per_byte=si["fused_flop_per_byte"], ridge_over_swiglu=ridge / si["fused_flop_per_byte"],
        swiglu_far_below_ridge=ridge / si["fused_flop_per_byte"] >= FAR_BELOW,
        launches=launch["launches"], eager_samples=launch["eager_ms"]["n"],
        graph_samples=launch["graph_ms"]["n"], host_samples=host["n"], bound_pct=host["bound_pct"],
        min_samples=bench.MIN_SAMPLES, cap_s=bench.CAP_S, max_samples=bench.MAX_SAMPLES,
        eager_quiet=launch["eager_ms"]["quiet"],
        graph_quiet=launch["graph_ms"]["quiet"], host_quiet=host["quiet"],
        eager_noise=launch["eager_ms"]["noise_pct"], graph_noise=launch["graph_ms"]["noise_pct"],
        host_noise=host["noise_pct"], launch_noisy_count=sum(not t["quiet"] for t in loops),
        launch_all_quiet=all(t["quiet"] for t in loops), launch_all_noisy=not any(t["quiet"] for t in loops),
        host_us_low=low, host_us_high=high,
        host_middle=MIDDLE,
        laptop_host_us=laptop["launch_host_us"], laptop_graph_low=laptop["graph_speedup_low"],
        laptop_graph_high=laptop["graph_speedup_high"],
        host_versus_laptop=_host_versus(low, high, laptop["launch_host_us"]),
        host_bound=low > graph_high, gpu_bound=high < graph_low, graph_us_mid_low=graph_low,
        graph_us_mid_high=graph_high,
        graph_versus_laptop=_graph_versus(top["launch_speedup"], laptop["graph_speedup_low"],  # the figure shown
                                          laptop["graph_speedup_high"]),
    )


def facts(machine: str | None = None) -> Facts:
    r = read.result("machine.ceilings", machine)
    return from_data(r.data, read.result("machine.ceilings", LAPTOP).data,
                     read.result("memory_bound.eager_bytes", machine).data, read.machine_label(r),
                     r.provenance["sm_count"], r.provenance.get("l2_bytes"), across.datas("machine.ceilings", machine))


FORMATS = {  # how each figure reads on every page (kernelbook.macros); other pages read the machine's quantities
    # as `facts("machine").<field>`, so these names and texts stay put
    "copy_gbps": "num:0", "copy_gbps_low": "num:0", "copy_gbps_high": "num:0",
    **{f"{k}_gbps{e}": "num:0" for k in ("read", "write") for e in ("", "_low", "_high")},
    "copy_tbps": "num:2", "copy_tbps_low": "num:2", "copy_tbps_high": "num:2",
    "matmul_tflops": "num:0", "matmul_tflops_low": "num:0", "matmul_tflops_high": "num:0",
    "ridge": "num:0",
    "eager_us": "num:1", "eager_us_low": "num:1", "eager_us_high": "num:1",
    "graph_us": "num:2", "graph_us_low": "num:2", "graph_us_high": "num:2",
    "launch_speedup": "times:1", "launch_speedup_low": "times:1", "launch_speedup_high": "times:1",
    "host_us": "num:1", "host_us_low": "num:1", "host_us_high": "num:1", "host_middle": "pct:0",
    "sm_count": "num:0", "l2_mib": "num:0", "copy_gib": "num:0", "copy_over_l2": "num:0", "matmul_n": "num:0",
    "bound_pct": "num:1", "min_samples": "num:0", "cap_s": "num:0", "max_samples": "num:0",
    "matmul_samples": "num:0", "matmul_noise": "num:1", "launches": "num:0", "eager_samples": "num:0",
    "graph_samples": "num:0", "host_samples": "num:0", "eager_noise": "num:1", "graph_noise": "num:1",
    "host_noise": "num:1", "graph_us_mid_low": "num:2", "graph_us_mid_high": "num:2",
    "copy_vs_laptop": "num:0", "tflops_vs_laptop": "num:0", "laptop_ridge": "num:0",
    "laptop_ridge_published": "num:0", "laptop_tflops": "num:1", "laptop_dram_gbps": "num:1",
    "laptop_copy_gbps": "num:0", "laptop_host_us": "num:1", "laptop_graph_low": "num:0", "laptop_graph_high": "num:0",
    "swiglu_flop_per_elem": "num:0", "swiglu_bytes_per_elem": "num:0", "swiglu_flop_per_byte": "num:2",
    "ridge_over_swiglu": "num:0",
}


def derive(f: Facts) -> dict[str, Any]:
    """The ratios the page prints beside their figures, from the medians shown: the ridge is the median matmul rate
    over the median copy, as the page prints the two."""
    ridge = f.matmul_tflops * 1e3 / f.copy_gbps
    return {"copy_vs_laptop": f.copy_gbps / f.laptop_copy_gbps, "tflops_vs_laptop": f.matmul_tflops / f.laptop_tflops,
            "ridge": ridge, "ridge_above_laptop": ridge > f.laptop_ridge,
            "ridge_over_swiglu": ridge / f.swiglu_flop_per_byte,
            "swiglu_far_below_ridge": ridge / f.swiglu_flop_per_byte >= FAR_BELOW}


DERIVED_FROM = {"copy_vs_laptop": ("copy_gbps", "laptop_copy_gbps"),
                "tflops_vs_laptop": ("matmul_tflops", "laptop_tflops"),
                "ridge": ("matmul_tflops", "copy_gbps"), "ridge_over_swiglu": ("ridge", "swiglu_flop_per_byte")}
