"""The numbers and verdicts of docs/stability.md: each headline figure of the site across every stored run on one
machine, how far it moved within a run (the rounds' fastest to slowest) and from run to run, and what moved the
ones that moved (the host under eager launches and the decode step's slow rounds; autotuning's picks).

Runs of the current code (read.fresh_runs) decide a figure's firmness. A figure is read as its chapter reads it
(the machine and fusing_by_hand facts' readers, kernelbook.across's arithmetic), and "today's" figure is the one its
page shows: the median across the current code's runs (kernelbook.factbook's one rule). Runs of earlier code (the
stale runs in the same folder: the same measurement before files moved, under other code hashes, on other days)
are context and are kept apart. Some of those store their data under older keys; OLD_KEYS maps them to today's.

A run's spread is twice its noise where its timer stopped on the noise criterion (bench.py), else its rounds'
fastest to slowest over the median; a figure's within-run spread is the widest of its current-code runs' (the
noisiest run's, not the noise its own page prints, which may be another run's or the runs' median). Its firmness,
from the runs of the current code (FIRM is the one threshold):
  unsettled  two or more runs disagree by more than FIRM of today's figure and by more than the widest
             within-run spread among them
  noisy      otherwise, a run's timing stayed noisy at its cap (bench.py); for a timer without the criterion,
             its rounds spread by more than FIRM of its median
  firm       otherwise, with two runs or more
  steady in one run   otherwise, with one run: the run-to-run range awaits a second run
  no rounds stored    one run that keeps a single value or a median without its fastest round

No sentence is written here: the page's Markdown reads these fields (`{{ f.n_noisy }}`, in the text FORMATS gives
each) and names above each paragraph the GUARDS it rests on (stability.guards). The figures are computed in
stability.figures, which sets FIRM and the other thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kernelbook import bench, paths, provenance, read, store
from kernelbook.chapters.stability import figures
from kernelbook.chapters.stability.figures import (
    EXPERIMENTS,
    FIRM,
    HOST_SHARE,
    TRACKS,
    Figure,
    Firmness,
    LaunchRun,
    Picks,
    Retuned,
    RetunedStep,
    Run,
    Stored,
    WayRounds,
    run_of,
)

ONE_RULE = False  # this page reads every stored run itself (kernelbook.factbook does not take medians over them)
RULE = ("the stability page's own reading of the stored runs: its labels, and a headline figure's lowest and highest "
        "run, weigh the current code's runs alone; a figure over the stored runs, or of earlier code, takes in the "
        "earlier code's runs")
# the chapter fact that shows each figure on its own page: the table prints that fact, so a figure reads the same
# here as there (where the chapter derives it otherwise, a ratio of medians or the slowest of the medians, the two
# differ in the last digits; the table's snippet stops the build if the two lie more than FIRM apart)
SHOWN_AS = {"copy": ("machine", "copy_tbps"), "matmul": ("machine", "matmul_tflops"), "ridge": ("machine", "ridge"),
            "launch_eager": ("machine", "eager_us"), "launch_graph": ("machine", "graph_us"),
            "launch_speedup": ("machine", "launch_speedup"), "launch_host": ("machine", "host_us"),
            "fusion_add_rmsnorm_eager": ("fusing_by_hand", "norm_eager_ms"),
            "fusion_add_rmsnorm_triton": ("fusing_by_hand", "norm_triton_ms"),
            "fusion_speedup": ("fusing_by_hand", "norm_speedup"),
            "decode_eager": ("decode", "dyn_ms"), "decode_static": ("decode", "static_ms"),
            "decode_graph": ("decode", "graph_ms"), "decode_ro": ("decode", "ro_ms"), "decode_ma": ("decode", "ma_ms"),
            "far_last": ("decode_far", "best_ms"), "far_share": ("decode_far", "best_floor_share"),
            "sol_add": ("speed_of_light", "add_share_low"), "sol_swiglu": ("speed_of_light", "swiglu_share_low"),
            "compile_norm": ("torch_compile", "norm_cold_s"),
            "compile_decode": ("torch_compile", "decode_default_cold_s"),
            "alloc": ("allocator", "cached_alloc_us")}


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
    # the machine through each run (provenance: host(), the GPU's UUID, nvidia-smi sampled while the run ran)
    sample_ms: int  # how often a run reads the GPU (provenance.SAMPLE_MS)
    sampled_runs: int  # current-code runs that sampled the GPU's clocks, power and temperature while they ran
    hosts_seen: int  # ... how many different CPUs (model and vCPUs) they name
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
    # the home page's eager StaticCache step (decode_static): its lowest and highest current-code run median
    static_low_ms: float
    static_high_ms: float
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
    retuned: tuple[Retuned, ...]  # sites whose in-step retuning picked different configs across the runs
    n_retuned: int
    retuned_same: bool  # the in-step retuning picked the same configs in every run too
    retuned_steps: tuple[RetunedStep, ...]  # each step that retunes its sites: how many, and how many moved
    retuned_sites: int  # sites retuned inside the steps, over every step


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
    "decode_ma_compile_s": "num:0", "far_last_gap": "pct:1", "static_low_ms": "num:2", "static_high_ms": "num:2",
}


def from_data(runs: dict[str, list[Run]], gpu: str) -> Facts:
    """runs: every experiment of EXPERIMENTS -> its stored runs on one machine, oldest first, each marked current
    (a run of the current code) or not; at least one current run each."""
    figs = [figures.figure(spec, runs[spec.experiment]) for spec in figures.specs(runs)]
    every = [r for name in EXPERIMENTS for r in runs[name]]
    earlier = [r for r in every if not r.current]
    current = [r for r in every if r.current]
    moved = [f for f in figs if f.moved_before]
    steady = figures.labels(figs, "steady in one run")
    labels = {v: figures.labels(figs, v)
              for v in ("firm", "steady in one run", "noisy", "unsettled", "no rounds stored")}
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
        software_seen=tuple(dict.fromkeys(figures.software(r.versions) for r in every)),
        sample_ms=provenance.SAMPLE_MS, sampled_runs=sum(r.sampled is not None for r in current),
        hosts_seen=len({r.host for r in current if r.host}),
        versions=versions, software=figures.software(versions),
        earlier_first=min((r.started for r in earlier), default="")[:10],
        figures=tuple(figs), n_figures=len(figs),
        firm_labels=figures.labels(figs, "firm"), steady_labels=steady, noisy_labels=figures.labels(figs, "noisy"),
        unsettled_labels=figures.labels(figs, "unsettled"), no_rounds_labels=figures.labels(figs, "no rounds stored"),
        any_noisy=bool(figures.labels(figs, "noisy")), any_unsettled=bool(figures.labels(figs, "unsettled")),
        n_firm=len(labels["firm"]), n_steady=len(labels["steady in one run"]), n_noisy=len(labels["noisy"]),
        n_unsettled=len(labels["unsettled"]), n_no_rounds=len(labels["no rounds stored"]),
        noisy_list=figures.listed(labels["noisy"]), unsettled_list=figures.listed(labels["unsettled"]),
        moved_labels=tuple(f.label for f in moved), any_moved=bool(moved), n_moved=len(moved),
        moved_list=figures.listed(tuple(f.label for f in moved)),
        moved_steady_labels=tuple(f.label for f in moved if f.label in steady),
        any_moved_steady=any(f.label in steady for f in moved),
        static_low_ms=next(x.low for x in figs if x.key == "decode_static"),
        static_high_ms=next(x.high for x in figs if x.key == "decode_static"),
        launch_unsettled=all(x.firmness == "unsettled" for x in figs if x.key in ("launch_eager", "launch_host")),
        launch_eager_firmness=next(x.firmness for x in figs if x.key == "launch_eager"),
        launch_host_firmness=next(x.firmness for x in figs if x.key == "launch_host"),
        **figures.launches(runs["machine.ceilings"]), **figures.decode_rounds(runs["decode.six_ways"]),
        **figures.picks(runs["torch_compile.codegen"], runs["decode_far.ladder"]),
    )


def facts(machine: str | None = None) -> Facts:
    machine = paths.primary_machine() if machine is None else machine
    runs = {}
    for name in EXPERIMENTS:
        current = read.fresh_runs(name, machine)
        shown = {r.path for r in current}
        earlier = [r for r in store.runs(name, machine) if r.status == store.STALE and r.path not in shown]
        found = [run_of(r, True) for r in current] + [run_of(r, False) for r in earlier]
        runs[name] = sorted(found, key=lambda r: (r.started, r.current))
    return from_data(runs, read.machine_label(read.result("machine.ceilings", machine)))
