"""How docs/stability.md's figures are computed from the stored runs: which headline figures it follows (SPECS) and
how one run's value of each is read, as its own chapter reads it; then each figure's firmness over the current
code's runs (the rule in stability.facts' docstring), and what moved the ones that moved (the host under eager
launches, the decode step's slow rounds, autotuning's picks). The thresholds of those verdicts are here too.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, store
from kernelbook.chapters.decode_far import report as far
from kernelbook.chapters.fusing_by_hand.facts import LABELS as FUSION_LABELS
from kernelbook.chapters.fusing_by_hand.facts import speedup as fusion_speedup
from kernelbook.chapters.fusing_by_hand.facts import version_time
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.speed_of_light.figures import BIG_BYTES, OURS

FIRM = 0.02  # a spread or a range under 2% of the median is firm (what the fusion table moved by between days)
TRACKS = 0.10  # eager launch "tracks the host" when its µs per launch is within 10% of the host's enqueue µs
HOST_SHARE = 0.5  # a slow round's extra host time "accounts for" its extra step time at half of it or more
HOST_BOUND = 0.9  # an eager decode step is "host-bound" when the host's time is this share of the step or more
EAGER = ("eager_dynamic", "eager_static")
OLD_KEYS = {  # speed_of_light versions stored under display labels before the rename -> today's data keys
    "same-bytes copy": "copy", "same-bytes copy, kernel-sized programs": "copy_tiled",
    "multi-row Triton (best)": "ours", "Triton (best block)": "ours", "multi-row Triton (heuristic)": "ours_heuristic",
    "one-row Triton": "one_row", "Triton (chapter's block)": "chapter", "torch.compile": "compiled",
    "Liger-Kernel": "liger", "F.rms_norm": "rms_norm", "eager": "eager",
}
FUSION = tuple(FUSION_LABELS)  # (op, version) in the fusion table's order
DECODE = {"decode_eager": "eager_dynamic", "decode_static": "eager_static", "decode_graph": "cuda_graph",
          "decode_ro": "compile_reduce_overhead", "decode_ma": "compile_max_autotune"}
LABELS = {  # headline figures' keys -> how the table and the figure name them
    "copy": "copy bandwidth", "matmul": "bf16 matmul rate", "ridge": "ridge point, matmul ÷ copy",
    "launch_eager": "eager launch",
    "launch_graph": "graph replay, per kernel", "launch_speedup": "graph speedup over eager launches",
    "launch_host": "host time to enqueue one launch",
    **{f"fusion_{op}_{v}": FUSION_LABELS[(op, v)] for op, v in FUSION},
    "fusion_speedup": "add + RMSNorm: Triton's speedup over eager",
    "decode_eager": "decode step: eager, default cache", "decode_static": "decode step: eager, StaticCache",
    "decode_graph": "decode step: CUDA graph by hand",
    "decode_ro": "decode step: torch.compile reduce-overhead", "decode_ma": "decode step: torch.compile max-autotune",
    "far_last": "hand-built decode step, fastest checked", "far_share": "... its share of the bandwidth floor",
    "sol_add": "add + RMSNorm: ours' lowest share of the copy",
    "sol_swiglu": "SwiGLU: ours' lowest share of the copy",
    "compile_norm": "compile time: add + RMSNorm, cold cache",
    "compile_decode": "compile time: decode step, cold cache",
    "alloc": "caching allocator, µs per allocation",
}
NONE = "—"  # a run that did not retune a site
Firmness = Literal["firm", "steady in one run", "noisy", "unsettled", "no rounds stored"]


@dataclass(frozen=True)
class Sample:
    """One run's value of a figure: the median and, where the run stored its rounds, their fastest and slowest; where
    its timer stopped on the noise criterion (bench.py), its noise (standard deviation over mean) and whether it was
    quiet."""
    median: float
    low: float | None = None
    high: float | None = None
    noise: float | None = None  # a fraction: 0.005 is bench.py's bound
    quiet: bool | None = None

    @property
    def spread(self) -> float | None:
        """How far the figure moved within this run (across.spread): twice its noise where recorded (about the band
        that holds 95% of its samples: a range over a hundred samples or more grows with their number), else fastest
        to slowest. A figure's within-run spread is the widest of its runs' (Figure.within)."""
        return across.spread({"median": self.median, "min": self.low, "max": self.high,
                              "noise_pct": None if self.noise is None else 100 * self.noise})


@dataclass(frozen=True)
class Run:
    """One stored run as this page reads it: its data and where it came from."""
    data: dict[str, Any]
    current: bool  # a run of the current code
    started: str  # its UTC start, '2026-12-01T07:45:18+00:00'
    commit: str
    code: str  # the code hash, 8 characters
    versions: tuple[str, ...]  # torch, triton, CUDA, driver
    clocks: tuple[str, ...]  # SM and memory MHz at the run's start and end
    host: str = ""  # the CPU around the GPU, 'Intel(R) Xeon(R) Processor · 16 vCPUs' ("" where not recorded)
    gpu_uuid: str = ""  # the card itself, 'GPU-e2c8010f-…' ("" where not recorded)
    sampled: Sampled | None = None  # nvidia-smi's readings through the run (None: the run predates sampling)


@dataclass(frozen=True)
class Sampled:
    """nvidia-smi's readings every `every_ms` through a run (provenance.Sampler): those taken while a kernel ran
    where the run stored them apart (busy), else every reading, setup and compiles included."""
    n: int  # the readings the figures below are over
    of: int  # every reading of the run
    busy: bool  # ... the figures are over the readings taken while a kernel ran
    every_ms: int
    sm_mhz: tuple[float, float, float]  # min, median, max
    mem_mhz: tuple[float, float, float]
    power_w: tuple[float, float, float]
    temp_c: tuple[float, float, float]


def sampled_of(summary: dict[str, Any] | None) -> Sampled | None:
    """A run's smi_samples summary as the page reads it (None where it took no reading)."""
    if not summary or not summary.get("n"):
        return None
    busy = summary.get("busy") or {}
    st = busy["stats"] if busy.get("n") else summary["stats"]

    def three(field: str) -> tuple[float, float, float]:
        x = st.get(field) or {}
        return (x.get("min", math.nan), x.get("median", math.nan), x.get("max", math.nan))

    n = int(busy["n"]) if busy.get("n") else int(summary["n"])
    return Sampled(n, int(summary["n"]), bool(busy.get("n")), int(summary["every_ms"]), three("clocks.sm"),
                   three("clocks.mem"), three("power.draw"), three("temperature.gpu"))


def host_of(h: dict[str, Any] | None) -> str:
    """'CPU model · N vCPUs' from provenance.host(), "" where the run did not record it."""
    if not h or not h.get("cpu_model"):
        return ""
    return h["cpu_model"] + (f" · {h['vcpus']} vCPUs" if h.get("vcpus") else "")


def run_of(res: store.Result, current: bool) -> Run:
    p = res.provenance
    v, s0, s1 = p.get("versions") or {}, p.get("smi_start") or {}, p.get("smi_end") or {}
    return Run(res.data, current, str(p.get("started_utc", "?")), str(p.get("git", {}).get("commit", "?"))[:8],
               str(p.get("code_hash", "?"))[:8],
               (str(v.get("torch")), str(v.get("triton")), str(v.get("cuda")), str(p.get("driver"))),
               tuple(str(s.get(k)) for s in (s0, s1) for k in ("clocks.sm", "clocks.mem")),
               host_of(p.get("host")), str(p.get("gpu_uuid") or ""), sampled_of(p.get("smi_samples")))


# ---- reading one run's value of each figure ---------------------------------------------------------------------

def sample(t: across.Summary) -> Sample:
    """One run's figure from its timing summary (kernelbook.across: median; min and max where the run kept its
    rounds; noise_pct and quiet where its timer stopped on the noise criterion)."""
    noise = t.get("noise_pct")
    return Sample(t["median"], t.get("min"), t.get("max"), None if noise is None else noise / 100, t.get("quiet"))


def _rounds(values: list[float]) -> across.Summary:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _versions(shape: dict[str, Any]) -> dict[str, Any]:
    return {OLD_KEYS.get(k, k): v for k, v in shape["versions"].items()}


def _timing(x: dict[str, Any]) -> across.Summary:
    """A version's rounds: its stored summary where its rounds stopped on the noise criterion, else its values."""
    return x if "median" in x else _rounds(x["values"])


def sol(d: dict[str, Any]) -> across.Summary:
    """Ours' lowest share of the same-bytes copy over the shapes that count for the goal, with that shape's range and,
    where its rounds stopped on the noise criterion, the copy's and ours' noise."""
    shapes = [_versions(s) for s in d["shapes"] if s["bytes"] >= BIG_BYTES]
    v = min(shapes, key=lambda v: v["copy"]["ms"] / v[OURS]["ms"])
    return across.ratio(_timing(v["copy"]), _timing(v[OURS]))


def _alloc(d: dict[str, Any], nbytes: int) -> across.Summary:
    """One size's cached allocation: its samples' summary where stored, else its median alone."""
    s = next(s for s in d["cached"]["sizes"] if s["bytes"] == nbytes)
    return s["alloc"] if "alloc" in s else {"median": s["alloc_us"]}


def alloc_size(runs: list[Run]) -> int:
    """The size the allocator page shows as its cached allocation (allocator.figures: the slowest size by its median
    across the current code's runs): every run is read at that size, so the range is the one that page prints."""
    sizes = [[(s["bytes"], s["alloc_us"]) for s in r.data["cached"]["sizes"]] for r in runs if r.current]
    medians = {b: statistics.median(dict(run)[b] for run in sizes) for b, _ in sizes[-1]}
    return max(medians, key=medians.__getitem__)


def kib(nbytes: int) -> str:
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"


def _noted(s: across.Summary, d: dict[str, Any], name: str) -> across.Summary:
    """s with the noise the decode rounds recorded for variant `name`'s step, where they did."""
    q = d.get("quiet", {}).get("figures", {}).get(name, {}).get("step_ms")
    if not q or q["noise_pct"] is None:
        return s
    return {**s, "noise_pct": q["noise_pct"], "quiet": q["quiet"]}


def _decode(name: str) -> Callable[[dict[str, Any]], across.Summary]:
    return lambda d: _noted(_rounds([r["variants"][name]["step_ms"] for r in d["rounds"] if name in r["variants"]]),
                            d, name)


def _far_last(d: dict[str, Any]) -> across.Summary:
    """The hand-built step's fastest checked rung (a later rung may be a lever that cost time)."""
    b = far.best_passed(d)
    s = far.step_summary(d, b["name"])
    return _noted({"median": s["step_ms"], "min": s["step_min_ms"], "max": s["step_max_ms"]}, d, b["name"])


@dataclass(frozen=True)
class Spec:
    key: str
    experiment: str
    unit: str  # "%" for a share, shown as a percentage
    digits: int
    page: str
    read: Callable[[dict[str, Any]], across.Summary]  # one run's data -> the figure's timing summary
    label: str = ""  # how the table names it, where not LABELS'


SPECS: tuple[Spec, ...] = (  # each read as its chapter reads it (machine and fusing_by_hand facts)
    Spec("copy", "machine.ceilings", "TB/s", 2, "machine.md", lambda d: across.scale(machine.bandwidth(d), 1e-3)),
    Spec("matmul", "machine.ceilings", "TFLOP/s", 0, "machine.md", machine.matmul_rate),
    Spec("ridge", "machine.ceilings", "FLOP/B", 0, "machine.md",  # TFLOP/s over GB/s, times 1e3
         lambda d: across.scale(across.ratio(machine.matmul_rate(d), machine.bandwidth(d)), 1e3)),
    Spec("launch_eager", "machine.ceilings", "µs", 2, "machine.md", machine.eager_launch),
    Spec("launch_graph", "machine.ceilings", "µs", 2, "machine.md", machine.graph_launch),
    Spec("launch_speedup", "machine.ceilings", "×", 1, "machine.md", machine.graph_speedup),
    Spec("launch_host", "machine.ceilings", "µs", 2, "machine.md", machine.host_enqueue),
    *(Spec(f"fusion_{op}_{v}", "fusing_by_hand.versions", "ms", 4, "fusing-by-hand.md",
           lambda d, op=op, v=v: version_time(d, op, v)) for op, v in FUSION),
    Spec("fusion_speedup", "fusing_by_hand.versions", "×", 2, "fusing-by-hand.md",
         lambda d: fusion_speedup(d, "add_rmsnorm", "triton")),
    *(Spec(key, "decode.six_ways", "ms", 2, "decode.md", _decode(name)) for key, name in DECODE.items()),
    Spec("far_last", "decode_far.ladder", "ms", 3, "decode-far.md", _far_last),
    Spec("far_share", "decode_far.ladder", "%", 1, "decode-far.md",
         lambda d: across.rate(d["floor_ms"], _far_last(d))),
    Spec("sol_add", "speed_of_light.add_rmsnorm", "%", 1, "speed-of-light.md", sol),
    Spec("sol_swiglu", "speed_of_light.swiglu", "%", 1, "speed-of-light.md", sol),
    Spec("compile_norm", "torch_compile.compile_time", "s", 2, "torch-compile.md",
         lambda d: {"median": d["add_rmsnorm"]["cold"]["first_call_s"]}),
    Spec("compile_decode", "decode.compile_warm", "s", 1, "decode.md",
         lambda d: {"median": d["cold"]["modes"]["compile_default"]["compile_s"]}),
    Spec("alloc", "allocator.caching", "µs", 2, "allocator.md", lambda d: _alloc(d, 4096)),  # specs() sets the size
)


def specs(runs: dict[str, list[Run]]) -> tuple[Spec, ...]:
    """SPECS, the allocator's read at the size its page shows (alloc_size)."""
    n = alloc_size(runs["allocator.caching"])
    return tuple(dataclasses.replace(s, read=lambda d: _alloc(d, n), label=f"caching allocator, µs per {kib(n)} "
                                     "allocation") if s.key == "alloc" else s for s in SPECS)
WHAT_MOVES = ("torch_compile.codegen",)  # read for autotuning's picks, not for a figure of the table
EXPERIMENTS = tuple(dict.fromkeys([s.experiment for s in SPECS] + list(WHAT_MOVES)))


# ---- the figures over the runs ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Point:
    """One run of a figure, relative to the newest current-code run's median (0.05: 5% above it)."""
    started: str
    current: bool
    rel: float
    rel_low: float | None
    rel_high: float | None


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str
    digits: int
    page: str
    experiment: str
    median: float  # what its page shows: the median across the current code's runs
    low: float  # the lowest and the highest current-code run median
    high: float
    within: float | None  # the widest within-run spread among the current code's runs (None: no rounds stored)
    current_runs: int
    current_range: float | None  # (highest - lowest run median) over `median`; None with one run
    earlier_runs: int
    earlier_low: float | None  # the earlier code's medians against today's, lowest and highest (-0.1: 10% below)
    earlier_high: float | None
    moved_before: bool  # an earlier-code run sits further from today's median than FIRM and than both spreads
    firmness: Firmness
    points: tuple[Point, ...]
    why: str = ""  # what made it noisy or unsettled, in a reader's words


@dataclass(frozen=True)
class Stored:
    """The stored runs of one experiment, current code and earlier code apart."""
    experiment: str
    current: tuple[Run, ...]
    earlier: tuple[Run, ...]


@dataclass(frozen=True)
class LaunchRun:
    started: str
    current: bool
    code: str
    eager_us: float
    host_us: float
    graph_us: float
    speedup: float
    eager_over_host: float


@dataclass(frozen=True)
class WayRounds:
    """One decode way's rounds in the newest decode.six_ways run, in round order."""
    label: str
    step_ms: tuple[float, ...]
    host_ms: tuple[float, ...]
    slow_round: int  # 1-based: the round with the slowest step
    slow_step_ms: float  # that round's step over the median step
    slow_host_ms: float  # that round's host time over the median host time
    host_accounts: bool  # ... at HOST_SHARE of the extra step time or more


@dataclass(frozen=True)
class Picks:
    """The kernels torch.compile's max-autotune picked for the MLP half at one token, in one run."""
    started: str
    current: bool
    kernels: tuple[str, ...]
    compile_s: float


@dataclass(frozen=True)
class Retuned:
    """A site of the hand-built decode step whose in-step retuning picked different configs across the runs that
    retuned it."""
    step: str
    site: str
    configs: tuple[str, ...]  # one per run, oldest first; '—' where a run did not retune the site

    @property
    def picks(self) -> tuple[tuple[str, int], ...]:
        """Each config it picked and in how many runs, the most picked first."""
        return tuple(Counter(c for c in self.configs if c != NONE).most_common())


@dataclass(frozen=True)
class RetunedStep:
    """One step of the hand-built decode whose sites are retuned inside it, over the stored runs."""
    step: str
    runs: int  # runs that retuned the step
    sites: int  # sites retuned in it, in any run
    moved: int  # ... whose pick differed between the runs that retuned them


def firmness(current: list[Sample], shown: float | None = None) -> Firmness:
    """The verdict on one figure from its current-code runs, oldest first, and the figure its page shows (default:
    the newest run's); stability.facts' docstring states the rule."""
    return judged(current, shown)[0]


def judged(current: list[Sample], shown: float | None = None) -> tuple[Firmness, str]:
    """firmness(), and why in a reader's words ("" where nothing needs saying: firm, steady, no rounds)."""
    newest = current[-1].median if shown is None else shown
    spreads = [s.spread for s in current]
    known = [x for x in spreads if x is not None]
    if len(current) > 1:
        rng = (max(s.median for s in current) - min(s.median for s in current)) / newest
        if rng > FIRM and rng > max(known, default=0.0):
            return "unsettled", "runs apart beyond their spreads"
    capped = sum(s.quiet is False for s in current)
    if capped:  # still noisy when its sampling stopped at a cap (bench.py), whatever its spread came to
        if len(current) == 1:
            return "noisy", "its one run stopped noisy at the cap"
        return "noisy", f"{capped} of {len(current)} runs stopped noisy at the cap"
    if any(x > FIRM for s, x in zip(current, spreads, strict=True) if x is not None and s.quiet is None):
        return "noisy", "rounds spread past the threshold"  # a timer without the criterion
    if len(current) > 1:
        return "firm", ""
    return ("no rounds stored" if not known else "steady in one run"), ""


def _rel(x: float | None, ref: float) -> float | None:
    return None if x is None else x / ref - 1


def _read(spec: Spec, run: Run) -> Sample | None:
    """The figure's value in one run; None for an earlier-code run that did not store it (a current run must)."""
    try:
        return sample(spec.read(run.data))
    except (KeyError, StopIteration, TypeError, ValueError):
        if run.current:
            raise
        return None


def figure(spec: Spec, runs: list[Run]) -> Figure:
    read = [(r, s) for r in runs if (s := _read(spec, r)) is not None]
    cur = [s for r, s in read if r.current]
    old = [(r, s) for r, s in read if not r.current]
    ref = statistics.median(s.median for s in cur)
    spreads = [s.spread for s in cur if s.spread is not None]
    within = max(spreads) if spreads else None
    rng = (max(s.median for s in cur) - min(s.median for s in cur)) / ref if len(cur) > 1 else None
    rels = [s.median / ref - 1 for _, s in old]
    moved = any(abs(x) > FIRM and abs(x) > max(s.spread or 0.0, within or 0.0) for x, (_, s) in zip(rels, old,
                                                                                                     strict=True))
    pts = tuple(Point(r.started, r.current, s.median / ref - 1, _rel(s.low, ref), _rel(s.high, ref)) for r, s in read)
    verdict, why = judged(cur, ref)
    return Figure(spec.key, spec.label or LABELS[spec.key], spec.unit, spec.digits, spec.page, spec.experiment, ref,
                  min(s.median for s in cur), max(s.median for s in cur), within, len(cur), rng, len(old),
                  min(rels, default=None), max(rels, default=None), moved, verdict, pts, why)


def labels(figs: list[Figure], verdict: str) -> tuple[str, ...]:
    return tuple(f.label for f in figs if f.firmness == verdict)


def listed(labels: tuple[str, ...]) -> str:
    return "; ".join(labels) or "none"


def launches(runs: list[Run]) -> dict[str, Any]:
    rows = []
    for r in runs:
        ln = r.data["launch"]
        eager, graph = machine.eager_launch(r.data)["median"], machine.graph_launch(r.data)["median"]
        host = ln["host_enqueue_us"]["median"]
        rows.append(LaunchRun(r.started, r.current, r.code, eager, host, graph, eager / graph, eager / host))
    now = [r for r in runs if r.current][-1]
    # as the machine page shows them: the median across the current code's runs
    today_eager = statistics.median(x.eager_us for x in rows if x.current)
    today_graph = statistics.median(x.graph_us for x in rows if x.current)
    eager, graph = [x.eager_us for x in rows], [x.graph_us for x in rows]
    gap = max(abs(x.eager_over_host - 1) for x in rows)
    return dict(
        launch_runs=tuple(rows), launch_n=len(rows), launch_current=sum(x.current for x in rows),
        launch_earlier=sum(not x.current for x in rows),
        launch_eager_low=min(eager), launch_eager_high=max(eager),
        launch_graph_low=min(graph), launch_graph_high=max(graph),
        launch_eager_moved=(max(eager) - min(eager)) / today_eager,
        launch_graph_moved=(max(graph) - min(graph)) / today_graph,
        launch_speedup_low=min(x.speedup for x in rows), launch_speedup_high=max(x.speedup for x in rows),
        launch_tracks_host=gap <= TRACKS, launch_host_gap=gap,
        launch_tracking=sum(abs(x.eager_over_host - 1) <= TRACKS for x in rows),
        launch_tracks_current=all(abs(x.eager_over_host - 1) <= TRACKS for x in rows if x.current),
        launch_eager_within=sample(machine.eager_launch(now.data)).spread,
        launch_host_within=sample(machine.host_enqueue(now.data)).spread,
        launch_graph_within=sample(machine.graph_launch(now.data)).spread,
        launch_clocks_same=len({r.clocks for r in runs}) == 1, launch_sm_end=now.clocks[2],
        launch_sm_seen=tuple(dict.fromkeys(c for r in runs for c in (r.clocks[0], r.clocks[2]))))


def _way(d: dict[str, Any], name: str) -> WayRounds:
    per = [r["variants"][name] for r in d["rounds"] if name in r["variants"]]
    steps, hosts = [p["step_ms"] for p in per], [p["host_us"] / 1e3 for p in per]
    slow = max(range(len(steps)), key=steps.__getitem__)
    extra_step = steps[slow] - statistics.median(steps)
    extra_host = hosts[slow] - statistics.median(hosts)
    return WayRounds(d["labels"][name], tuple(steps), tuple(hosts), slow + 1, extra_step, extra_host,
                     extra_host >= HOST_SHARE * extra_step)


def decode_rounds(runs: list[Run]) -> dict[str, Any]:
    d = [r for r in runs if r.current][-1].data
    ways = {name: _way(d, name) for name in d["names"]}
    ro, ma = ways["compile_reduce_overhead"], ways["compile_max_autotune"]
    clocks = {(s["clocks.sm"], s["clocks.mem"]) for r in d["rounds"] for s in (r["smi"], r["smi_end"])}
    ma_mix = d["kernel_mix"]["compile_max_autotune"]
    eager_low = min(h / s for n in EAGER for h, s in zip(ways[n].host_ms, ways[n].step_ms, strict=True))
    return dict(
        decode_rounds=tuple(ways.values()), decode_rounds_n=len(d["rounds"]), decode_clocks_same=len(clocks) == 1,
        decode_sm_seen=tuple(dict.fromkeys(f"{s['clocks.sm']:.0f}" for r in d["rounds"]
                                           for s in (r["smi"], r["smi_end"]))),
        decode_sm=f"{d['rounds'][-1]['smi_end']['clocks.sm']:.0f}",
        ro_slow_round=ro.slow_round, ro_slow_step_ms=ro.slow_step_ms, ro_slow_host_ms=ro.slow_host_ms,
        ma_slow_round=ma.slow_round, ma_slow_step_ms=ma.slow_step_ms, ma_slow_host_ms=ma.slow_host_ms,
        graph_modes_host=ro.host_accounts and ma.host_accounts, same_slow_round=ro.slow_round == ma.slow_round,
        eager_host_low=eager_low, eager_host_bound=eager_low >= HOST_BOUND,
        decode_ma_runs=len(runs), decode_ma_triton=ma_mix["triton"], decode_ma_other=ma_mix["other"],
        decode_ma_compile_s=d["setup"]["compile_max_autotune"]["compile_s"], decode_ma_one_run=len(runs) == 1)


def _widest(ladder: list[Run]) -> float | None:
    """The earlier code's last decode step against today's: the gap of the run furthest from it, signed."""
    now = _far_last([r for r in ladder if r.current][-1].data)["median"]
    gaps = [_far_last(r.data)["median"] / now - 1 for r in ladder if not r.current]
    return max(gaps, key=abs, default=None)


def picks(codegen: list[Run], ladder: list[Run]) -> dict[str, Any]:
    picks = tuple(Picks(r.started, r.current, tuple(r.data["mlp_1token_max_autotune"]["summary"]["kernel_names"]),
                        r.data["mlp_1token_max_autotune"]["seconds"]) for r in codegen)
    tuned = [{site: tuple(t["best"]) for site, t in r.data["tuning"].items()} for r in ladder]
    common = set.intersection(*(set(t) for t in tuned))  # a site a later run added has nothing to compare with
    tuned = [{site: c for site, c in t.items() if site in common} for t in tuned]
    steps = dict.fromkeys(step for r in ladder for step in r.data["in_step"])
    retuned, by_step = [], []
    for step in steps:
        per = [r.data["in_step"].get(step, {}).get("configs", {}) for r in ladder]
        label = ladder[-1].data["labels"].get(step, step)
        sites = list(dict.fromkeys(s for p in per for s in p))
        moved = 0
        for site in sites:
            configs = tuple(" × ".join(map(str, p[site])) if site in p else NONE for p in per)
            if len(set(configs) - {NONE}) > 1:  # a site a run did not retune has nothing to differ from
                retuned.append(Retuned(label, site, configs))
                moved += 1
        by_step.append(RetunedStep(label, sum(step in r.data["in_step"] for r in ladder), len(sites), moved))
    gap = _widest(ladder)
    return dict(
        picks=picks, picks_n=len(picks), picks_compared=len(picks) > 1, picks_same=len({p.kernels for p in picks}) == 1,
        picks_kernels=len(picks[-1].kernels), picks_compile_low=min(p.compile_s for p in picks),
        picks_compile_high=max(p.compile_s for p in picks),
        far_runs=len(ladder), far_compared=len(ladder) > 1, far_last_gap=None if gap is None else abs(gap),
        far_last_faster_now=gap is not None and gap > 0, far_tuned_same=all(t == tuned[-1] for t in tuned),
        far_sites=len(tuned[-1]), far_sites_moved=sum(len({t[site] for t in tuned}) > 1 for site in common),
        far_last_versus="faster" if gap is not None and gap > 0 else "slower",
        retuned=tuple(retuned), n_retuned=len(retuned), retuned_same=not retuned, retuned_steps=tuple(by_step),
        retuned_sites=sum(x.sites for x in by_step))


def software(versions: tuple[str, ...]) -> str:
    return ", ".join(f"{k} {v}" for k, v in zip(("torch", "Triton", "CUDA", "driver"), versions, strict=True))
