"""The facts of the summary pages (claims.md, index.md, takeaways.md, machines.md) on one machine: the claims
ledger's counts and verdicts, and the figures the summaries quote, from the stored results, with the article's
RTX 4060 Laptop figures beside them.

No sentence is written here. docs/claims.md reads these fields as `f`; the other summary pages, which have no facts
package of their own, as `{% set c = facts("claims") %}`. Every verdict word is the ledger's (`v_<row id>`, judged in
every stored run of the current code), so a summary can never say what the ledger's table denies, and the GUARDS
(claims.guards) are those verdicts. A figure that a chapter's page shows too is read on the summaries from that
chapter's facts (`facts("decode").best_ms`), so it reads the same everywhere; the figures here are read from the run
each page shows (`read.result`), so that kernelbook.factbook takes each as the median over the runs, as it does the
chapters'. `others` and `differ_rows` compare this machine's ledger with each other measured machine's
(ledger.verdicts_by_row gives every row's verdict on each).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from kernelbook import bench, paths, read, store
from kernelbook.chapters.fusing_by_hand.facts import LABELS as VERSION_LABELS
from kernelbook.decode import report

from . import ledger
from .data import BYTES, COUNT, RATIO, TIME
from .verdicts import (
    CONTRADICTED,
    DOCUMENTED,
    FAILS,
    HOLDS,
    NOISY,
    NOT_APPLICABLE,
    NOT_MEASURED,
    NOT_RESOLVED,
    OTHER_SIZE,
    REPRODUCED,
    VARIES,
    Judgement,
    Verdict,
    count,
)

LAPTOP = ledger.LAPTOP
MiB = 1 << 20
MOSTLY_IDLE = 0.5  # a step "pays mostly for launches" when the GPU is idle for more than this share of it
SUMMARY = ("machine.ceilings", "memory_bound.eager_bytes", "fusing_by_hand.versions", "torch_compile.codegen",
           "decode.six_ways", "torch_compile.modes", "decode.constraints", "allocator.fragmentation")
EXPERIMENTS = tuple(sorted(set(ledger.EXPERIMENTS) | set(SUMMARY)))
Data = dict[str, Any]
# the rows whose verdict a summary page names: field v_<id with underscores>
NAMED = ("ridge", "bytes-predict-time", "same-bandwidth", "speedup", "one-kernel", "matmuls-extern",
         "bias-on-cublas", "recompile", "graph-step", "default-mode", "ro-beats-graph", "floor-ro", "floor-ma",
         "oom", "expandable", "replay-silent", "replay-reset", "static-slower", "ma-beats-ro", "compiled-ties-norm",
         "compiled-ties-swiglu")


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    sm_count: int
    copy_tbps: float
    matmul_tflops: float
    # the bands a figure row is judged by when the article gives no range of its own (data.py), as shares
    band_count: float
    band_bytes: float
    band_ratio: float
    band_time: float
    bound_pct: float  # bench.py's noise criterion: the noise a quiet timing may keep, percent ...
    min_samples: int  # ... over at least this many samples
    laptop_dram_gbps: float  # what the article's floor divides by: a memory read it measured, not a copy
    # the ledger on this machine: how many rows, and how many of them got each verdict
    rows: int
    tested: int  # rows with a test over measured results (figure, relation or exact)
    reproduced: int
    other_size: int
    contradicted: int
    holds: int
    fails: int
    not_resolved: int
    noisy: int
    varies: int
    not_applicable: int
    not_measured: int  # no experiment stores the figure yet, or this machine lacks the result
    documented: int
    agree: int  # reproduced or holds
    against: int  # contradicted or does not hold
    undecided: int  # not resolved, noisy or varies
    any_against: bool
    against_rows: tuple[tuple[str, str, str], ...]  # (claim, verdict, page) of each row contradicted or failing
    any_undecided: bool
    undecided_rows: tuple[tuple[str, str, str], ...]
    runs_fewest: int  # runs of the current code behind a decided row, fewest and most
    runs_most: int
    one_run: bool  # every decided row rests on a single run
    runs_even: bool  # every decided row rests on the same number of runs
    any_single: bool  # some decided row rests on a single run
    any_varies: bool  # some row's runs disagree
    runs_rows: int  # rows read from measured runs
    runs_single: int  # ... those read from a single run of the current code
    # verdicts the summaries name
    v_ridge: Verdict
    v_bytes_predict_time: Verdict
    v_same_bandwidth: Verdict
    v_speedup: Verdict
    v_one_kernel: Verdict
    v_matmuls_extern: Verdict
    v_bias_on_cublas: Verdict
    v_recompile: Verdict
    v_graph_step: Verdict
    v_default_mode: Verdict
    v_ro_beats_graph: Verdict
    v_floor_ro: Verdict
    v_floor_ma: Verdict
    v_oom: Verdict
    v_expandable: Verdict
    v_replay_silent: Verdict
    v_replay_reset: Verdict
    v_static_slower: Verdict  # the chapters word these comparisons from the ledger's verdicts
    v_ma_beats_ro: Verdict
    v_compiled_ties_norm: Verdict
    v_compiled_ties_swiglu: Verdict
    named_figures: tuple[tuple[str, str], ...]  # (row id, the ledger's figure) of each row above: what a flag quotes
    # the other measured GPUs: their labels ("H100 80GB HBM3"; several joined by "or the"), and how many rows read
    # another verdict on one of them than on this machine (the ledger marks those rows)
    others: str
    differ_rows: int
    # bytes (memory_bound.eager_bytes, machine.ceilings)
    eager_kernels: int  # Qwen2's eager add + RMSNorm
    eager_bytes: float  # per element
    fused_bytes: float
    bytes_measured_ms: float  # eager add + RMSNorm's time, and its bytes over the copy bandwidth
    bytes_predicted_ms: float
    ridge: float  # FLOP per byte
    swiglu_flop_per_byte: float  # fused SwiGLU's intensity
    ridge_over_swiglu: float
    below_ridge: bool  # fused SwiGLU needs fewer FLOP per byte than the ridge
    compiled_kernels: int  # kernels torch.compile writes for add + RMSNorm
    # every version's bandwidth (fusing_by_hand.versions)
    slowest_version: str  # label of the version furthest below the copy
    slowest_share: float
    fastest_share: float
    # the decode step (decode.six_ways), ms
    eager_step_ms: float  # eager, default cache
    static_step_ms: float  # eager, StaticCache
    static_busy_ms: float  # GPU busy time inside it
    static_mostly_idle: bool
    graph_step_ms: float  # the StaticCache step captured by hand
    graph_launches: int
    default_step_ms: float  # torch.compile, default mode
    ro_step_ms: float  # torch.compile reduce-overhead
    ma_floor_share: float
    ro_floor_share: float
    best_label: str  # the fastest variant that matched eager
    best_step_ms: float
    best_kernels: int
    best_busy_ms: float
    best_idle_ms: float
    best_floor_share: float  # the floor over the best step
    all_passed: bool  # every variant matched eager's logits
    floor_ms: float  # the weights read once at the copy's speed
    laptop_floor_ms: float
    laptop_floor_over_ours: float
    laptop_eager_step_ms: float
    laptop_static_ms: float
    laptop_graph_ms: float
    laptop_best_step_ms: float
    laptop_best_floor_share: float
    laptop_ro_floor_share: float
    # max-autotune's matmuls (decode.six_ways kernel mix)
    bias_on_cublas: int  # bias projections left to cuBLAS under max-autotune, per step
    laptop_bias_on_cublas: int
    min_sms: int  # the SMs Inductor's matmul templates want
    # the graph that replays a moved cache counter (decode.constraints)
    trap_rel_err: float
    trap_top1: float  # share of steps whose top token agrees with eager's
    # the allocator (allocator.fragmentation)
    oom: bool  # the request failed
    cap_mib: int
    request_mib: int
    free_mib: int  # reserved but unallocated when it failed
    holes: int  # free blocks at that moment
    hole_max_mib: int
    laptop_free_mib: int
    expandable_ok: bool  # the same script with expandable_segments:True raised nothing
    expandable_allocated_mib: int
    expandable_reserved_mib: int


def _rows(judged: list[Judgement], *verdicts: Verdict) -> tuple[tuple[str, str, str], ...]:
    return tuple((j.row.claim, j.verdict, j.row.page) for j in judged if j.verdict in verdicts)


def from_data(runs: ledger.Runs, laptop: Data, gpu: str, sm_count: int, machine: str = "",
              shown: Data | None = None, others: dict[str, dict[str, Verdict]] | None = None) -> Facts:
    """runs: experiment -> (run id, data) of each stored run of the current code on this machine, oldest first;
    laptop: the article's published records by experiment; shown: experiment -> the data of the run the figures are
    read from (default: the newest of runs); others: each other measured machine's label -> its verdict by row id
    (ledger.verdicts_by_row)."""
    ids = tuple((n, tuple(run for run, _ in rs)) for n, rs in sorted(runs.items()))  # every run: no pick moves it
    judged = store.once(("ledger", machine, ids), lambda: ledger.judge_runs(machine, runs, laptop))
    verdict = {j.row.id: j.verdict for j in judged}
    others = others or {}
    differ = [rid for rid, v in verdict.items() if any(o.get(rid, v) != v for o in others.values())]
    decided = [j.runs for j in judged if j.readings and j.verdict not in (DOCUMENTED, NOT_APPLICABLE)]
    data = {n: rs[-1][1] for n, rs in runs.items()} | (shown or {})
    mc, mb = data["machine.ceilings"], data["memory_bound.eager_bytes"]
    chain, swiglu = mb["chains"]["add_rmsnorm"], mb["swiglu_intensity"]["fused_flop_per_byte"]
    versions = [v for v in data["fusing_by_hand.versions"]["versions"] if v["share_of_copy"] is not None]
    slowest = min(versions, key=lambda v: v["share_of_copy"])
    six, lap_six = data["decode.six_ways"], laptop["decode.six_ways"]
    s, best = report.summaries(six), report.best_valid(six)
    lap_v = lap_six["variants"]
    trap = data["decode.constraints"]["trap"]
    frag = data["allocator.fragmentation"]
    last, exp_last = frag["default"]["checkpoints"][-1], frag["expandable"]["checkpoints"][-1]
    holes = [b[0] for seg in last["segments"] for b in seg["blocks"] if b[1] == "free"]
    lap_frag = laptop["allocator.fragmentation"]
    tried = ((last["error"] or {}).get("parsed") or {}).get("tried")
    top = six["kernel_mix"]["compile_max_autotune"]["top"]
    return Facts(
        gpu=gpu, sm_count=sm_count, copy_tbps=mc["bandwidth"]["copy"]["gbps"] / 1e3,
        matmul_tflops=mc["matmul"]["tflops"],
        band_count=COUNT.share, band_bytes=BYTES.share, band_ratio=RATIO.share, band_time=TIME.share,
        bound_pct=bench.BOUND_PCT, min_samples=bench.MIN_SAMPLES,
        laptop_dram_gbps=laptop["decode.six_ways"]["dram_gbps"],
        rows=len(judged), tested=sum(j.row.kind in ("figure", "relation", "exact") for j in judged),
        reproduced=count(judged, REPRODUCED), other_size=count(judged, OTHER_SIZE),
        contradicted=count(judged, CONTRADICTED), holds=count(judged, HOLDS), fails=count(judged, FAILS),
        not_resolved=count(judged, NOT_RESOLVED), noisy=count(judged, NOISY), varies=count(judged, VARIES),
        not_applicable=count(judged, NOT_APPLICABLE), not_measured=count(judged, NOT_MEASURED),
        documented=count(judged, DOCUMENTED), agree=count(judged, REPRODUCED, HOLDS),
        against=count(judged, CONTRADICTED, FAILS), undecided=count(judged, NOT_RESOLVED, NOISY, VARIES),
        any_against=bool(count(judged, CONTRADICTED, FAILS)), against_rows=_rows(judged, CONTRADICTED, FAILS),
        any_undecided=bool(count(judged, NOT_RESOLVED, NOISY, VARIES)),
        undecided_rows=_rows(judged, NOT_RESOLVED, NOISY, VARIES),
        runs_fewest=min(decided, default=0), runs_most=max(decided, default=0),
        one_run=max(decided, default=0) <= 1, runs_even=min(decided, default=0) == max(decided, default=0),
        any_single=any(n == 1 for n in decided), any_varies=bool(count(judged, VARIES)),
        runs_rows=len(decided), runs_single=sum(n == 1 for n in decided),
        **{f"v_{rid.replace('-', '_')}": verdict[rid] for rid in NAMED},
        named_figures=tuple((j.row.id, j.figure) for j in judged if j.row.id in NAMED),
        others=" or the ".join(others), differ_rows=len(differ),
        eager_kernels=chain["count"], eager_bytes=chain["bytes_per_elem"], fused_bytes=chain["fused_bytes_per_elem"],
        bytes_measured_ms=chain["bench"]["median"], bytes_predicted_ms=chain["predicted_us"] / 1e3,
        ridge=mc["ridge_flop_per_byte"], swiglu_flop_per_byte=swiglu,
        ridge_over_swiglu=mc["ridge_flop_per_byte"] / swiglu, below_ridge=mc["ridge_flop_per_byte"] > swiglu,
        compiled_kernels=data["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernel_count"],
        slowest_version=VERSION_LABELS[(slowest["op"], slowest["key"])], slowest_share=slowest["share_of_copy"],
        fastest_share=max(v["share_of_copy"] for v in versions),
        eager_step_ms=s["eager_dynamic"]["step_ms"], static_step_ms=s["eager_static"]["step_ms"],
        static_busy_ms=s["eager_static"]["busy_ms"], static_mostly_idle=s["eager_static"]["idle_share"] > MOSTLY_IDLE,
        graph_step_ms=s["cuda_graph"]["step_ms"],
        graph_launches=s["cuda_graph"]["launches"], default_step_ms=s["compile_default"]["step_ms"],
        ro_step_ms=s["compile_reduce_overhead"]["step_ms"],
        ma_floor_share=s["compile_max_autotune"]["floor_share"],
        ro_floor_share=s["compile_reduce_overhead"]["floor_share"],
        best_label=best["label"], best_step_ms=best["step_ms"], best_kernels=best["kernels"],
        best_busy_ms=best["busy_ms"], best_idle_ms=best["idle_ms"], best_floor_share=best["floor_share"],
        all_passed=bool(six["all_passed"]), floor_ms=six["floor_ms"], laptop_floor_ms=lap_six["floor_ms"],
        laptop_floor_over_ours=lap_six["floor_ms"] / six["floor_ms"],
        laptop_eager_step_ms=lap_v["eager_dynamic"]["step_ms"], laptop_static_ms=lap_v["eager_static"]["step_ms"],
        laptop_graph_ms=lap_v["cuda_graph"]["step_ms"],
        laptop_best_step_ms=lap_v["compile_max_autotune"]["step_ms"],
        laptop_best_floor_share=lap_v["compile_max_autotune"]["floor_share"],
        laptop_ro_floor_share=lap_v["compile_reduce_overhead"]["floor_share"],
        bias_on_cublas=sum(k["count"] for k in top if "bias" in k["name"] and not k["name"].startswith("triton_")),
        laptop_bias_on_cublas=laptop["torch_compile.modes"]["decode_projections_on_cublas"],
        min_sms=data["torch_compile.modes"]["threshold"]["min_sms"],
        trap_rel_err=trap["without_reset"]["rel_err"], trap_top1=trap["without_reset"]["top1_agree"],
        oom=bool(last["error"]), cap_mib=frag["default"]["cap_bytes"] // MiB,
        request_mib=(tried or lap_frag["oom_request_mib"] * MiB) // MiB,
        free_mib=(last["reserved"] - last["allocated"]) // MiB, holes=len(holes),
        hole_max_mib=max(holes, default=0) // MiB, laptop_free_mib=lap_frag["oom_unallocated_mib"],
        expandable_ok=not exp_last["error"], expandable_allocated_mib=exp_last["allocated"] // MiB,
        expandable_reserved_mib=exp_last["reserved"] // MiB,
    )


def facts(machine: str | None = None) -> Facts:
    machine = machine or paths.primary_machine()
    runs = {n: [(r.run, r.data) for r in read.fresh_runs(n, machine)] for n in EXPERIMENTS}
    shown = {n: read.result(n, machine).data for n in SUMMARY}  # an older run where factbook picks one
    ceilings = read.result("machine.ceilings", machine)
    others = {html.escape(store.machine_label(m)): {j.row.id: j.verdict for j in ledger.judged_on(m)}
              for m in ledger.measured_machines() if m != machine}
    return from_data(runs, ledger.published(), read.machine_label(ceilings), ceilings.provenance["sm_count"],
                     machine, shown, others)


# how the figures read on every page (kernelbook.macros): the counts as whole numbers; the summaries take every figure
# that a chapter shows too from that chapter's facts, so few of these print there
FORMATS = {name: "num:0" for name, kind in Facts.__annotations__.items() if kind == "int"} | {
    **dict.fromkeys(("band_count", "band_bytes", "band_ratio", "band_time"), "pct:0"),
    **dict.fromkeys(("eager_step_ms", "static_step_ms", "static_busy_ms", "graph_step_ms", "default_step_ms",
                     "ro_step_ms", "best_step_ms", "best_busy_ms", "best_idle_ms", "floor_ms"), "num:2"),
}
