"""The numbers and verdicts of docs/stability.md: each headline figure of the site across every stored run on one
machine, how far it moved within a run (the rounds' fastest to slowest) and from run to run, and what moved the
ones that moved (the host under eager launches and the decode step's slow rounds; autotuning's picks).

Runs of the current code (page.fresh_runs) decide a figure's firmness. A figure is read as its chapter reads it
(the machine and fusing_by_hand facts' readers, kernelbook.across's arithmetic), and "today's" figure is the one its
page shows: the median across the current code's runs (kernelbook.factbook's one rule). Runs of earlier code (the
stale runs in the same folder: the same measurement before files moved, under other code hashes, on other days)
are context and are kept apart. Some of those store their data under older keys; OLD_KEYS maps them to today's.

A figure's within-run spread is twice its noise where its timer stopped on the noise criterion (bench.py), else
its rounds' fastest to slowest over the median. Its firmness, from the runs of the current code (FIRM is the one
threshold):
  unsettled  two or more runs disagree by more than FIRM of today's figure and by more than the widest
             within-run spread among them
  noisy      otherwise, a run's timing stayed noisy at its cap (bench.py); for a timer without the criterion,
             its rounds spread by more than FIRM of its median
  firm       otherwise, with two runs or more
  steady in one run   otherwise, with one run: the run-to-run range awaits a second run
  no rounds stored    one run that keeps a single value or a median without its fastest round

No sentence is written here: the page's Markdown reads these fields (`{{ f.n_noisy }}`, in the text FORMATS gives
each) and names above each paragraph the GUARDS it rests on.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import across, bench, page, paths, store
from kernelbook.chapters.decode_far import report as far
from kernelbook.chapters.fusing_by_hand.facts import LABELS as FUSION_LABELS
from kernelbook.chapters.fusing_by_hand.facts import speedup as fusion_speedup
from kernelbook.chapters.fusing_by_hand.facts import version_time
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.speed_of_light.facts import BIG_BYTES, OURS
from kernelbook.guards import Guard

ONE_RULE = False  # this page reads every stored run itself (kernelbook.factbook does not take medians over them)
RULE = "read over every stored run of each experiment, earlier code's too (the stability page's own rule)"
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
DECODE = {"decode_eager": "eager_dynamic", "decode_graph": "cuda_graph", "decode_ro": "compile_reduce_overhead",
          "decode_ma": "compile_max_autotune"}
LABELS = {  # headline figures' keys -> how the table and the figure name them
    "copy": "copy bandwidth", "matmul": "bf16 matmul rate", "launch_eager": "eager launch",
    "launch_graph": "graph replay, per kernel", "launch_speedup": "graph speedup over eager launches",
    "launch_host": "host time to enqueue one launch",
    **{f"fusion_{op}_{v}": FUSION_LABELS[(op, v)] for op, v in FUSION},
    "fusion_speedup": "add + RMSNorm: Triton's speedup over eager",
    "decode_eager": "decode step: eager, default cache", "decode_graph": "decode step: CUDA graph by hand",
    "decode_ro": "decode step: torch.compile reduce-overhead", "decode_ma": "decode step: torch.compile max-autotune",
    "far_last": "hand-built decode step, fastest checked", "far_share": "... its share of the bandwidth floor",
    "sol_add": "add + RMSNorm: ours' lowest share of the copy",
    "sol_swiglu": "SwiGLU: ours' lowest share of the copy",
    "compile_norm": "compile time: add + RMSNorm, cold cache",
    "compile_decode": "compile time: decode step, cold cache",
    "alloc": "caching allocator, µs per allocation",
}
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
        """How far the figure moved within its run (across.spread): twice its noise where recorded (about the band
        that holds 95% of its samples: a range over a hundred samples or more grows with their number), else fastest
        to slowest."""
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


def run_of(res: store.Result, current: bool) -> Run:
    p = res.provenance
    v, s0, s1 = p.get("versions") or {}, p.get("smi_start") or {}, p.get("smi_end") or {}
    return Run(res.data, current, str(p.get("started_utc", "?")), str(p.get("git", {}).get("commit", "?"))[:8],
               str(p.get("code_hash", "?"))[:8],
               (str(v.get("torch")), str(v.get("triton")), str(v.get("cuda")), str(p.get("driver"))),
               tuple(str(s.get(k)) for s in (s0, s1) for k in ("clocks.sm", "clocks.mem")))


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


def _sol(d: dict[str, Any]) -> across.Summary:
    """Ours' lowest share of the same-bytes copy over the shapes that count for the goal, with that shape's range and,
    where its rounds stopped on the noise criterion, the copy's and ours' noise."""
    shapes = [_versions(s) for s in d["shapes"] if s["bytes"] >= BIG_BYTES]
    v = min(shapes, key=lambda v: v["copy"]["ms"] / v[OURS]["ms"])
    return across.ratio(_timing(v["copy"]), _timing(v[OURS]))


def _alloc(d: dict[str, Any]) -> across.Summary:
    """The slowest size's cached allocation: its samples' summary where stored, else its median alone."""
    s = max(d["cached"]["sizes"], key=lambda s: s["alloc_us"])
    return s["alloc"] if "alloc" in s else {"median": s["alloc_us"]}


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


SPECS: tuple[Spec, ...] = (  # each read as its chapter reads it (machine and fusing_by_hand facts)
    Spec("copy", "machine.ceilings", "TB/s", 2, "machine.md", lambda d: across.scale(machine.bandwidth(d), 1e-3)),
    Spec("matmul", "machine.ceilings", "TFLOP/s", 0, "machine.md", machine.matmul_rate),
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
    Spec("sol_add", "speed_of_light.add_rmsnorm", "%", 1, "speed-of-light.md", _sol),
    Spec("sol_swiglu", "speed_of_light.swiglu", "%", 1, "speed-of-light.md", _sol),
    Spec("compile_norm", "torch_compile.compile_time", "s", 2, "torch-compile.md",
         lambda d: {"median": d["add_rmsnorm"]["cold"]["first_call_s"]}),
    Spec("compile_decode", "decode.compile_warm", "s", 1, "decode.md",
         lambda d: {"median": d["cold"]["modes"]["compile_default"]["compile_s"]}),
    Spec("alloc", "allocator.caching", "µs", 2, "allocator.md", _alloc),
)
# the chapter fact that shows each figure on its own page: the table prints that fact, so a figure reads the same
# here as there (where the chapter derives it otherwise, a ratio of medians or the slowest of the medians, the two
# differ in the last digits; the table's snippet stops the build if the two lie more than FIRM apart)
SHOWN_AS = {"copy": ("machine", "copy_tbps"), "matmul": ("machine", "matmul_tflops"),
            "launch_eager": ("machine", "eager_us"), "launch_graph": ("machine", "graph_us"),
            "launch_speedup": ("machine", "launch_speedup"), "launch_host": ("machine", "host_us"),
            "fusion_add_rmsnorm_eager": ("fusing_by_hand", "norm_eager_ms"),
            "fusion_add_rmsnorm_triton": ("fusing_by_hand", "norm_triton_ms"),
            "fusion_speedup": ("fusing_by_hand", "norm_speedup"),
            "decode_eager": ("decode", "dyn_ms"), "decode_graph": ("decode", "graph_ms"),
            "decode_ro": ("decode", "ro_ms"), "decode_ma": ("decode", "ma_ms"),
            "far_last": ("decode_far", "best_ms"), "far_share": ("decode_far", "best_floor_share"),
            "sol_add": ("speed_of_light", "add_share_low"), "sol_swiglu": ("speed_of_light", "swiglu_share_low"),
            "compile_norm": ("torch_compile", "norm_cold_s"),
            "compile_decode": ("torch_compile", "decode_default_cold_s"),
            "alloc": ("allocator", "cached_alloc_us")}
WHAT_MOVES = ("torch_compile.codegen",)  # read for autotuning's picks, not for a figure of the table
EXPERIMENTS = tuple(dict.fromkeys([s.experiment for s in SPECS] + list(WHAT_MOVES)))


# ---- the page's facts ---------------------------------------------------------------------------------------------

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
    within: float | None  # the widest within-run spread among the current code's runs (None: no rounds stored)
    current_runs: int
    current_range: float | None  # (highest - lowest run median) over `median`; None with one run
    earlier_runs: int
    earlier_low: float | None  # the earlier code's medians against today's, lowest and highest (-0.1: 10% below)
    earlier_high: float | None
    moved_before: bool  # an earlier-code run sits further from today's median than FIRM and than both spreads
    firmness: Firmness
    points: tuple[Point, ...]


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
    """A site of the hand-built decode step whose in-step retuning picked different configs across runs."""
    step: str
    site: str
    configs: tuple[str, ...]  # one per run, oldest first


@dataclass(frozen=True)
class Facts:
    gpu: str
    firm: float  # FIRM
    bound_pct: float  # bench.py's noise criterion, for the figures timed until quiet
    min_samples: int
    tracks: float  # TRACKS
    host_share: float  # HOST_SHARE
    # the runs
    experiments: int
    stored: tuple[Stored, ...]
    current_runs: int  # over every experiment
    earlier_runs: int
    earlier_experiments: int  # experiments with an earlier-code run
    any_earlier: bool
    one_current_each: bool  # every experiment has exactly one run of the current code
    any_one_current: bool  # some experiment has only one
    one_current_experiments: int  # ... how many
    one_run_figures: int  # figures whose experiment has only one run of the current code
    same_versions: bool  # every stored run ran the same torch, Triton, CUDA and driver
    software_seen: tuple[str, ...]  # ... each set of versions the stored runs ran, as the page writes them
    versions: tuple[str, ...]  # those of the newest run of machine.ceilings
    software: str  # ... as the page writes them: 'torch 2.11.0+cu130, Triton 3.6.0, CUDA 13.0, driver 580.159.04'
    earlier_first: str  # the oldest earlier-code run's date, '2026-11-29' ("" if none)
    # the figures
    figures: tuple[Figure, ...]
    n_figures: int
    firm_labels: tuple[str, ...]
    steady_labels: tuple[str, ...]
    noisy_labels: tuple[str, ...]
    unsettled_labels: tuple[str, ...]
    no_rounds_labels: tuple[str, ...]
    n_firm: int  # how many figures carry each label
    n_steady: int
    n_noisy: int
    n_unsettled: int
    n_no_rounds: int
    noisy_list: str  # the noisy figures' labels as the page lists them, "; " between them ("none" if none)
    unsettled_list: str
    any_noisy: bool
    any_unsettled: bool
    moved_labels: tuple[str, ...]  # figures an earlier-code run moved beyond FIRM and the spreads
    any_moved: bool
    n_moved: int
    moved_list: str
    moved_steady_labels: tuple[str, ...]  # ... of them steady in their one current run: a second run will tell
    any_moved_steady: bool
    # eager launches and the host (every stored machine.ceilings run)
    launch_runs: tuple[LaunchRun, ...]
    launch_n: int
    launch_current: int  # ... of them runs of the current code
    launch_earlier: int  # ... and of earlier code
    launch_eager_low: float
    launch_eager_high: float
    launch_graph_low: float
    launch_graph_high: float
    launch_eager_moved: float  # (highest - lowest) over every run, as a share of today's
    launch_graph_moved: float
    launch_speedup_low: float
    launch_speedup_high: float
    launch_tracks_host: bool  # in every run, eager µs per launch within TRACKS of the host's enqueue µs
    launch_host_gap: float  # the widest such gap
    launch_tracking: int  # runs whose eager µs per launch came within TRACKS of the host's enqueue µs
    launch_tracks_current: bool  # ... every run of the current code among them
    launch_eager_within: float  # the current run's spreads
    launch_host_within: float
    launch_graph_within: float
    launch_clocks_same: bool  # every run read the same SM and memory clocks at its start and at its end
    launch_sm_seen: tuple[str, ...]  # the SM clocks (MHz) the runs read at their starts and ends, each once
    launch_sm_end: str  # MHz at the newest run's end
    launch_unsettled: bool  # the eager launch and the host's enqueue time are both unsettled across the runs
    launch_eager_firmness: Firmness  # the eager launch's label in the table
    launch_host_firmness: Firmness  # the host's enqueue time's
    # the decode step's rounds (the newest decode.six_ways run)
    decode_rounds: tuple[WayRounds, ...]
    decode_rounds_n: int
    decode_clocks_same: bool  # every round began and ended at the same SM and memory clocks
    decode_sm_seen: tuple[str, ...]  # the SM clocks (MHz) the rounds read at their starts and ends, each once
    decode_sm: str
    ro_slow_round: int
    ro_slow_step_ms: float
    ro_slow_host_ms: float
    ma_slow_round: int
    ma_slow_step_ms: float
    ma_slow_host_ms: float
    graph_modes_host: bool  # for both compiled graph modes, the slow round's host time accounts for its step time
    same_slow_round: bool  # both compiled graph modes were slowest in the same round
    eager_host_low: float  # the lowest share of an eager step that the host's time took, over both eager ways' rounds
    eager_host_bound: bool  # ... at HOST_BOUND or more
    # autotuning's picks
    picks: tuple[Picks, ...]  # every stored torch_compile.codegen run
    picks_n: int
    picks_compared: bool  # more than one stored run
    picks_same: bool  # every run picked the same kernels
    picks_kernels: int  # how many the newest run picked
    picks_compile_low: float
    picks_compile_high: float
    decode_ma_runs: int  # stored decode.six_ways runs
    decode_ma_triton: int  # kernels of its profiled max-autotune step, Triton and other
    decode_ma_other: int
    decode_ma_compile_s: float
    decode_ma_one_run: bool
    far_runs: int
    far_compared: bool  # more than one stored run
    far_last_gap: float | None  # today's last step against the earlier-code run furthest from it, unsigned
    far_last_faster_now: bool  # ... and today's is the faster of the two
    far_tuned_same: bool  # the matvec tuning picked the same config at every site in every run
    far_sites: int
    far_sites_moved: int  # sites where the runs' tuning did not all pick the same config
    far_last_versus: Literal["faster", "slower"]  # today's fastest checked step against that earlier-code run
    retuned: tuple[Retuned, ...]
    n_retuned: int
    retuned_same: bool  # the in-step retuning picked the same configs in every run too


FORMATS = {  # how each figure reads on the page (kernelbook.macros); counts read as integers
    # shares of the copy round down, so that a share under 98% never prints as 98%
    "eager_host_low": "pct_down:1",
    "firm": "pct:0", "tracks": "pct:0", "host_share": "pct:0", "bound_pct": "num:1",
    "launch_eager_low": "num:2", "launch_eager_high": "num:2", "launch_eager_moved": "pct:0",
    "launch_graph_low": "num:3", "launch_graph_high": "num:3", "launch_graph_moved": "pct:1",
    "launch_eager_within": "pct:1", "launch_host_within": "pct:1", "launch_graph_within": "pct:1",
    "launch_host_gap": "pct:0", "launch_speedup_low": "times:1", "launch_speedup_high": "times:1",
    "ro_slow_step_ms": "num:2", "ro_slow_host_ms": "signed:2", "ma_slow_step_ms": "num:2",
    "ma_slow_host_ms": "signed:2", "picks_compile_low": "num:1", "picks_compile_high": "num:1",
    "decode_ma_compile_s": "num:0", "far_last_gap": "pct:1",
}

def _fig(f: Facts, key: str) -> Figure:
    return next(x for x in f.figures if x.key == key)


def _not_unsettled(f: Facts, key: str, name: str) -> str:
    """Where a launch figure is not unsettled: its runs, and what its label is instead."""
    x = _fig(f, key)
    if x.current_runs == 1:
        return (f"{name} has one run of the current code, {x.firmness} within it: whether its runs disagree needs a "
                "second run")
    return (f"{name}'s {x.current_runs} runs of the current code lie {page.pct(x.current_range, 1)} apart, within "
            f"{page.pct(FIRM)} or its own spread of {page.pct(x.within, 1)}: it is {x.firmness}")


def _one_run_each(f: Facts) -> str:
    """The runs of the current code, where some experiment has a single one."""
    if f.one_current_each:
        return (f"each of the {f.experiments} experiments has a single run of the current code, so how firm a figure "
                "is needs a second run")
    return f"{f.one_current_experiments} of the {f.experiments} experiments have a single run of the current code"


def _disagree_found(f: Facts) -> str:
    if f.one_run_figures == f.n_figures:
        return (f"every headline figure has a single run of the current code, so whether the next run agrees is not "
                f"measured yet ({f.n_steady} are steady in their one run, {f.n_noisy} noisy in it, {f.n_no_rounds} "
                f"store no rounds)")
    return (f"no figure's runs of the current code disagree by more than {page.pct(FIRM)} and by more than their own "
            f"spreads ({f.n_firm} are firm, {f.n_noisy} noisy)")


def _current_gap(f: Facts) -> str:
    x = max((r for r in f.launch_runs if r.current), key=lambda r: abs(r.eager_over_host - 1))
    return (f"in a run of the current code the eager cost per launch lay {page.pct(abs(x.eager_over_host - 1))} from "
            f"the host's enqueue time ({page.num(x.eager_us, 2)} against {page.num(x.host_us, 2)} µs)")


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "all_judged": Guard(
        "every headline figure has two runs or more of the current code, so each is firm, noisy or unsettled",
        lambda f: f.one_run_figures == 0, states=("their runs agree",),
        found=lambda f: (f"{f.one_run_figures} of the {f.n_figures} headline figures have a single run of the "
                         f"current code ({f.n_steady} steady in it, {f.n_no_rounds} with no rounds stored): how firm "
                         "they are needs a second run"),
        absent=(lambda f: f.one_run_figures == f.n_figures,
                "every headline figure has a single run of the current code, and how firm a figure is needs a second "
                "run")),
    "runs_disagree": Guard(
        f"the runs of some figure disagree by more than {FIRM:.0%} and by more than their own spreads",
        lambda f: f.n_unsettled > 0, states=("not that the next run will agree",), found=_disagree_found),
    "eager_unsettled": Guard(
        "the eager launch is unsettled: its runs disagree by more than the threshold and their own spreads",
        lambda f: f.launch_eager_firmness == "unsettled", states=("calls the eager launch unsettled",),
        found=lambda f: _not_unsettled(f, "launch_eager", "the eager launch")),
    "host_unsettled": Guard(
        "the host's enqueue time is unsettled: its runs disagree by more than the threshold and their own spreads",
        lambda f: f.launch_host_firmness == "unsettled", states=("calls the host's enqueue time unsettled",),
        found=lambda f: _not_unsettled(f, "launch_host", "the host's enqueue time")),
    "host_paced": Guard(
        f"in every run of the current code, the eager cost per launch came within {TRACKS:.0%} of the host's time to "
        "enqueue one launch", lambda f: f.launch_tracks_current,
        states=(("came within {{ f.tracks }} of the host's time", "move with the host"),), found=_current_gap),
    "launch_moved": Guard(
        f"over the stored runs, the eager cost per launch moved by more than {FIRM:.0%} of today's figure",
        lambda f: f.launch_eager_moved > FIRM, states=("ran from {{ f.launch_eager_low }} to",),
        found=lambda f: (f"over its {f.launch_n} stored runs the eager cost per launch ran from "
                         f"{page.num(f.launch_eager_low, 2)} to {page.num(f.launch_eager_high, 2)} µs, "
                         f"{page.pct(f.launch_eager_moved, 1)} of today's figure"),
        absent=(lambda f: f.launch_n == 1,
                "the launch loop has a single stored run, and how far it moves from run to run needs a second")),
    "launch_clocks": Guard(
        "every launch run read the same SM and memory clocks at its start and its end",
        lambda f: f.launch_clocks_same, states=("found the GPU's clocks where the others did",),
        found=lambda f: (f"the {f.launch_n} launch runs did not all read the same clocks at their starts and ends "
                         f"(SM at {', '.join(f.launch_sm_seen)} MHz)")),
    "eager_host": Guard(
        f"in both eager decode ways, the host's time was at least {HOST_BOUND:.0%} of the step in every round",
        lambda f: f.eager_host_low >= HOST_BOUND,
        states=(("at least {{ f.eager_host_low }} of the step in every round",
                 "eager decode steps move with the host"),),
        found=lambda f: (f"in some round of an eager decode way the host's time was only "
                         f"{page.pct_down(f.eager_host_low, 1)} of the step")),
    "graph_host": Guard(
        f"in both compiled graph modes, the slowest round's extra host time was at least {HOST_SHARE:.0%} of its "
        "extra step time", lambda f: f.graph_modes_host, states=("extra host time too",),
        found=lambda f: (f"in its slowest round, reduce-overhead's step ran {page.num(f.ro_slow_step_ms, 2)} ms over "
                         f"its median with {f.ro_slow_host_ms:+.2f} ms of host time, max-autotune's "
                         f"{page.num(f.ma_slow_step_ms, 2)} ms over with {f.ma_slow_host_ms:+.2f} ms")),
    "decode_clocks": Guard(
        "every decode round began and ended at the same SM and memory clocks",
        lambda f: f.decode_clocks_same, states=("read the same at the start and end of every round",),
        found=lambda f: (f"the decode rounds did not all read the same clocks at their starts and ends (SM at "
                         f"{', '.join(f.decode_sm_seen)} MHz)")),
    "picks_compared": Guard(
        "max-autotune's picks for the MLP half have two stored runs or more to compare",
        lambda f: f.picks_compared, states=("in every stored run",),
        found=lambda f: f"max-autotune's picks for the MLP half have {f.picks_n} stored run",
        absent=(lambda f: f.picks_n == 1,
                "max-autotune's picks have a single stored run, and whether a second keeps the same kernels is not "
                "measured yet")),
    "picks_same": Guard(
        "every stored run of max-autotune kept the same kernels for the MLP half",
        lambda f: f.picks_same, states=("kept the same",),
        found=lambda f: (f"its {f.picks_n} stored runs kept {len({p.kernels for p in f.picks})} different sets of "
                         "kernels for the MLP half")),
    "far_compared": Guard(
        "the hand-built decode step's tuning has two stored runs or more to compare",
        lambda f: f.far_compared, states=("from run to run",),
        found=lambda f: f"the hand-built decode step's tuning has {f.far_runs} stored run",
        absent=(lambda f: f.far_runs == 1,
                "the hand-built decode step's tuning has a single stored run, and whether a second picks the same "
                "configurations is not measured yet")),
    "two_each": Guard(
        "every experiment has at least two runs of the current code", lambda f: f.one_current_experiments == 0,
        states=("at least two runs each",), found=_one_run_each),
    "same_sw": Guard(
        "every stored run used the same torch, Triton, CUDA and driver", lambda f: f.same_versions,
        states=("the same software",),
        found=lambda f: f"the stored runs used {len(f.software_seen)} sets of software: {'; '.join(f.software_seen)}"),
    "earlier": Guard(
        "some experiment has a stored run of earlier code", lambda f: f.earlier_runs > 0,
        states=("runs of earlier code",), found=lambda f: f"{f.earlier_runs} runs of earlier code are stored",
        absent=(lambda f: f.earlier_runs == 0, "no run of earlier code is stored")),
    "moved": Guard(
        f"an earlier-code run put some figure further from today's than {FIRM:.0%} and than the spreads",
        lambda f: f.n_moved > 0, states=("further from today's median than the threshold",),
        found=lambda f: (f"none of the {f.earlier_runs} earlier-code runs lies further from today's figure than "
                         f"{page.pct(FIRM)} and than its own spread"),
        absent=(lambda f: f.earlier_runs == 0, "no run of earlier code is stored to set beside today's figures")),
}


def firmness(current: list[Sample], shown: float | None = None) -> Firmness:
    """The verdict on one figure from its current-code runs, oldest first, and the figure its page shows (default:
    the newest run's); the module docstring states the rule."""
    newest = current[-1].median if shown is None else shown
    spreads = [s.spread for s in current]
    known = [x for x in spreads if x is not None]
    if len(current) > 1:
        rng = (max(s.median for s in current) - min(s.median for s in current)) / newest
        if rng > FIRM and rng > max(known, default=0.0):
            return "unsettled"
    if any(s.quiet is False for s in current) or any(x > FIRM for s, x in zip(current, spreads, strict=True)
                                                      if x is not None and s.quiet is None):
        return "noisy"  # still noisy at its cap (bench.py), or, for a timer without the criterion, spread past FIRM
    if len(current) > 1:
        return "firm"
    return "no rounds stored" if not known else "steady in one run"


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


def _figure(spec: Spec, runs: list[Run]) -> Figure:
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
    return Figure(spec.key, LABELS[spec.key], spec.unit, spec.digits, spec.page, spec.experiment, ref, within,
                  len(cur), rng, len(old), min(rels, default=None), max(rels, default=None), moved,
                  firmness(cur, ref), pts)


def _labels(figs: list[Figure], verdict: str) -> tuple[str, ...]:
    return tuple(f.label for f in figs if f.firmness == verdict)


def _listed(labels: tuple[str, ...]) -> str:
    return "; ".join(labels) or "none"


def _launches(runs: list[Run]) -> dict[str, Any]:
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


def _decode_rounds(runs: list[Run]) -> dict[str, Any]:
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


def _picks(codegen: list[Run], ladder: list[Run]) -> dict[str, Any]:
    picks = tuple(Picks(r.started, r.current, tuple(r.data["mlp_1token_max_autotune"]["summary"]["kernel_names"]),
                        r.data["mlp_1token_max_autotune"]["seconds"]) for r in codegen)
    tuned = [{site: tuple(t["best"]) for site, t in r.data["tuning"].items()} for r in ladder]
    common = set.intersection(*(set(t) for t in tuned))  # a site a later run added has nothing to compare with
    tuned = [{site: c for site, c in t.items() if site in common} for t in tuned]
    steps = dict.fromkeys(step for r in ladder for step in r.data["in_step"])
    retuned = []
    for step in steps:
        per = [r.data["in_step"].get(step, {}).get("configs", {}) for r in ladder]
        for site in dict.fromkeys(s for p in per for s in p):
            configs = tuple(" × ".join(map(str, p[site])) if site in p else "—" for p in per)
            if len(set(configs)) > 1:
                retuned.append(Retuned(ladder[-1].data["labels"].get(step, step), site, configs))
    gap = _widest(ladder)
    return dict(
        picks=picks, picks_n=len(picks), picks_compared=len(picks) > 1, picks_same=len({p.kernels for p in picks}) == 1,
        picks_kernels=len(picks[-1].kernels), picks_compile_low=min(p.compile_s for p in picks),
        picks_compile_high=max(p.compile_s for p in picks),
        far_runs=len(ladder), far_compared=len(ladder) > 1, far_last_gap=None if gap is None else abs(gap),
        far_last_faster_now=gap is not None and gap > 0, far_tuned_same=all(t == tuned[-1] for t in tuned),
        far_sites=len(tuned[-1]), far_sites_moved=sum(len({t[site] for t in tuned}) > 1 for site in common),
        far_last_versus="faster" if gap is not None and gap > 0 else "slower",
        retuned=tuple(retuned), n_retuned=len(retuned), retuned_same=not retuned)


def _software(versions: tuple[str, ...]) -> str:
    return ", ".join(f"{k} {v}" for k, v in zip(("torch", "Triton", "CUDA", "driver"), versions, strict=True))


def from_data(runs: dict[str, list[Run]], gpu: str) -> Facts:
    """runs: every experiment of EXPERIMENTS -> its stored runs on one machine, oldest first, each marked current
    (a run of the current code) or not; at least one current run each."""
    figs = [_figure(spec, runs[spec.experiment]) for spec in SPECS]
    every = [r for name in EXPERIMENTS for r in runs[name]]
    earlier = [r for r in every if not r.current]
    moved = [f for f in figs if f.moved_before]
    steady = _labels(figs, "steady in one run")
    labels = {v: _labels(figs, v) for v in ("firm", "steady in one run", "noisy", "unsettled", "no rounds stored")}
    versions = [r for r in runs["machine.ceilings"] if r.current][-1].versions
    return Facts(
        gpu=gpu, firm=FIRM, bound_pct=bench.BOUND_PCT, min_samples=bench.MIN_SAMPLES, tracks=TRACKS,
        host_share=HOST_SHARE,
        experiments=len(EXPERIMENTS),
        stored=tuple(Stored(n, tuple(r for r in runs[n] if r.current), tuple(r for r in runs[n] if not r.current))
                     for n in EXPERIMENTS),
        current_runs=len(every) - len(earlier), earlier_runs=len(earlier),
        earlier_experiments=sum(any(not r.current for r in runs[n]) for n in EXPERIMENTS), any_earlier=bool(earlier),
        one_current_each=all(sum(r.current for r in runs[n]) == 1 for n in EXPERIMENTS),
        any_one_current=any(sum(r.current for r in runs[n]) == 1 for n in EXPERIMENTS),
        one_current_experiments=sum(sum(r.current for r in runs[n]) == 1 for n in EXPERIMENTS),
        one_run_figures=sum(x.current_runs == 1 for x in figs),
        same_versions=len({r.versions for r in every}) == 1,
        software_seen=tuple(dict.fromkeys(_software(r.versions) for r in every)),
        versions=versions, software=_software(versions),
        earlier_first=min((r.started for r in earlier), default="")[:10],
        figures=tuple(figs), n_figures=len(figs),
        firm_labels=_labels(figs, "firm"), steady_labels=steady, noisy_labels=_labels(figs, "noisy"),
        unsettled_labels=_labels(figs, "unsettled"), no_rounds_labels=_labels(figs, "no rounds stored"),
        any_noisy=bool(_labels(figs, "noisy")), any_unsettled=bool(_labels(figs, "unsettled")),
        n_firm=len(labels["firm"]), n_steady=len(labels["steady in one run"]), n_noisy=len(labels["noisy"]),
        n_unsettled=len(labels["unsettled"]), n_no_rounds=len(labels["no rounds stored"]),
        noisy_list=_listed(labels["noisy"]), unsettled_list=_listed(labels["unsettled"]),
        moved_labels=tuple(f.label for f in moved), any_moved=bool(moved), n_moved=len(moved),
        moved_list=_listed(tuple(f.label for f in moved)),
        moved_steady_labels=tuple(f.label for f in moved if f.label in steady),
        any_moved_steady=any(f.label in steady for f in moved),
        launch_unsettled=all(x.firmness == "unsettled" for x in figs if x.key in ("launch_eager", "launch_host")),
        launch_eager_firmness=next(x.firmness for x in figs if x.key == "launch_eager"),
        launch_host_firmness=next(x.firmness for x in figs if x.key == "launch_host"),
        **_launches(runs["machine.ceilings"]), **_decode_rounds(runs["decode.six_ways"]),
        **_picks(runs["torch_compile.codegen"], runs["decode_far.ladder"]),
    )


def facts(machine: str | None = None) -> Facts:
    machine = paths.primary_machine() if machine is None else machine
    runs = {}
    for name in EXPERIMENTS:
        current = page.fresh_runs(name, machine)
        shown = {r.path for r in current}
        earlier = [r for r in store.runs(name, machine) if r.status == store.STALE and r.path not in shown]
        found = [run_of(r, True) for r in current] + [run_of(r, False) for r in earlier]
        runs[name] = sorted(found, key=lambda r: (r.started, r.current))
    return from_data(runs, page.machine_label(page.result("machine.ceilings", machine)))
