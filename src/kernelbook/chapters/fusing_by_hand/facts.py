"""The numbers and verdicts of docs/fusing-by-hand.md, from fusing_by_hand.exactness and fusing_by_hand.versions
on one machine (with the matmul ceiling of machine.ceilings and the FLOP counts of memory_bound.eager_bytes, which
place the versions on the roofline), and the article's RTX 4060 Laptop figures beside them. How torch.compile
compares with the hand-written kernels is read from speed_of_light.add_rmsnorm and speed_of_light.swiglu at this
chapter's shape: GPU time by graph replay, the one figure every page gives (this chapter's do_bench times, taken
from Python, keep the compiled call's host and guard cost inside the timer).

The headline timings (the norm's two times, its speedup, SwiGLU's cut) are the median across every stored run of
the current code of fusing_by_hand.versions (kernelbook.across), each with its lowest and highest run and whether
those lie further apart than the widest run's own spread (`*_runs_vary`); the verdicts read the newest run round by
round, as the claims ledger reads each run.

No sentence is written here: the page's Markdown reads these fields (`{{ f.norm_speedup }}`, in the text FORMATS
gives each) and names above each paragraph the GUARDS it rests on (fusing_by_hand.guards).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from kernelbook import across, read, stats
from kernelbook.chapters.claims.verdicts import Verdict
from kernelbook.chapters.machine.facts import FAR_BELOW
from kernelbook.chapters.speed_of_light.figures import ADD as SOL_ADD
from kernelbook.chapters.speed_of_light.figures import SWIGLU as SOL_SWIGLU
from kernelbook.chapters.speed_of_light.figures import compiled_over_fusion

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
NEAR_COPY = 0.8  # a version "runs near the copy" at this share of the same-run copy or more
LABELS = {  # (op, version) data keys -> how the tables name them
    ("add_rmsnorm", "eager"): "add + RMSNorm: eager, as Qwen2 writes it",
    ("add_rmsnorm", "rms_norm"): "add + RMSNorm: eager with F.rms_norm",
    ("add_rmsnorm", "triton"): "add + RMSNorm: Triton, by hand",
    ("add_rmsnorm", "compiled"): "add + RMSNorm: torch.compile",
    ("swiglu", "eager"): "SwiGLU: eager",
    ("swiglu", "triton"): "SwiGLU: Triton, by hand",
    ("swiglu", "compiled"): "SwiGLU: torch.compile",
}
Versus = Literal["tied", "slower", "faster"]
RoundsVersus = Literal["faster", "slower", "level"]  # in every round; "level": the rounds fall on both sides


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    rows: int
    hidden: int
    rounds: int  # interleaved do_bench rounds behind each version's time
    round_s: float  # do_bench's repetition time per round, seconds
    # the noise criterion the rounds stopped on (bench.py)
    bound_pct: float  # a version is quiet when its rounds' relative standard deviation is at most this, percent
    min_rounds: int
    cap_s: float
    all_quiet: bool  # every version quiet: the rounds stopped on the criterion, not the cap
    noisy_count: int  # versions still noisy at the cap
    noisiest_label: str  # the version with the most noise
    noisiest_pct: float  # ... its noise, percent
    compiled_quiet: bool  # both torch.compile versions quiet
    compiled_noisy: bool  # both torch.compile versions still noisy when the rounds stopped
    compiled_norm_noise: float  # their noise, percent
    compiled_swiglu_noise: float
    triton_noise_high: float  # the hand-written kernels' larger noise, percent
    compiled_noisiest: bool  # both torch.compile versions noisier than every other version
    noise_other_high: float  # the largest noise of the other versions, percent
    # fusion's gain: each figure the median across runs, with its lowest and highest run (the fields after it)
    versions_runs: int  # stored runs of fusing_by_hand.versions of the current code
    norm_eager_ms: float
    norm_eager_ms_low: float
    norm_eager_ms_high: float
    norm_eager_ms_runs_vary: bool  # the runs lie further apart than the widest run's own spread
    norm_triton_ms: float
    norm_triton_ms_low: float
    norm_triton_ms_high: float
    norm_triton_ms_runs_vary: bool
    norm_speedup: float  # eager time over the Triton kernel's
    norm_speedup_low: float
    norm_speedup_high: float
    norm_speedup_runs_vary: bool
    norm_fused_versus: RoundsVersus  # the Triton kernel against the Qwen2 code, round by round
    over_rms_norm: float  # F.rms_norm's time over the Triton kernel's: the gain over PyTorch's own fused norm
    over_rms_norm_verdict: str  # the Triton kernel minus F.rms_norm, paired by round: ahead, behind or level
    swiglu_cut: float  # share of eager SwiGLU's time the fused kernel takes off
    swiglu_cut_low: float
    swiglu_cut_high: float
    swiglu_cut_runs_vary: bool
    swiglu_fused_versus: RoundsVersus  # the fused SwiGLU against eager's, round by round
    norm_bytes_ratio: float  # bytes the Qwen2 code moved over the bytes the Triton kernel moved
    laptop_norm_speedup: float
    laptop_swiglu_cut: float
    rms_norm_kernels: int
    rms_norm_speedup: float
    # torch.compile against the hand-written kernels. The comparison is GPU time by graph replay, as every page gives
    # it: speed_of_light's rounds at this chapter's shape (speed_of_light.figures.compiled_over_fusion), one run's
    # figure, so that the one rule gives the median over that experiment's runs, as speed-of-light's facts do
    tie_limit: float  # the article's "tie": within this share of each other
    graph_norm_ratio: float  # compiled time over the one-row kernel's, by graph replay (speed_of_light.add_rmsnorm)
    graph_swiglu_ratio: float  # ... over this chapter's SwiGLU launch's (speed_of_light.swiglu)
    # the same from this chapter's own table: do_bench from Python, the compiled call's host and guard cost inside
    # the timer (not the comparison)
    compiled_norm_diff: float  # compiled time over Triton's, minus 1 (add + RMSNorm)
    compiled_swiglu_diff: float
    compiled_norm_ratio: float  # compiled time over Triton's (add + RMSNorm): 1 + compiled_norm_diff
    compiled_swiglu_ratio: float
    compiled_norm_versus: Versus
    compiled_swiglu_versus: Versus
    compile_norm_s: float
    compile_swiglu_s: float
    # bytes over time
    copy_gbps: float
    gbps_low: float  # the slowest and fastest version's actual GB/s (bytes it moved over its time)
    gbps_high: float
    share_low: float  # ... and their shares of the same-run copy
    share_high: float
    all_near_copy: bool  # every version at NEAR_COPY of the copy or more
    near_copy: float  # NEAR_COPY
    versions_counted: int  # versions whose bytes were counted
    slow_versions: int  # ... of them below NEAR_COPY
    slowest_label: str  # the version with the lowest share of the copy
    norm_eager_share: float  # the Qwen2 code's share of the copy
    norm_triton_share: float  # the Triton kernel's
    # the roofline: the same-run copy against the bf16 matmul rate
    intensity_high: float  # the highest FLOP per byte moved of any version
    ridge: float  # the machine chapter's: its median matmul rate over its median copy, FLOP per byte
    ceiling_tflops: float  # machine.ceilings: the matmul rate the ridge divides
    ceiling_copy_gbps: float  # machine.ceilings: the copy it divides by
    ridge_over_intensity: float  # how many times below the ridge that version sits
    far_below_ridge: bool  # at least FAR_BELOW times below
    laptop_gbps_low: float
    laptop_gbps_high: float
    # exactness
    h_exact: bool  # the new residual bit-identical to eager's at every shape
    h_shapes_differ: int  # shapes where it is not
    shapes: int  # shapes checked
    h_max_steps: int  # its largest distance from eager's, in bf16 steps
    y_max_steps: int  # the normalised output's largest distance from eager, in bf16 steps
    y_past_one_step: bool  # more than one step somewhere
    y_max_abs: float
    y_step_at_max: float  # one bf16 step at the magnitude where the largest difference sits
    y_differ: int  # elements of y that differ from eager's, over every shape
    y_elements: int  # ... out of
    swiglu_max_steps: int
    swiglu_exact: bool
    compiled_y_steps: int
    compiled_swiglu_steps: int
    compiled_differs: bool  # torch.compile's outputs are not eager's bit for bit
    laptop_h_exact: bool
    laptop_y_max_steps: int
    laptop_y_max_abs: float
    as_laptop: bool  # h as exact as on the laptop and y no further from eager
    # the claims ledger's verdicts on the article's "the compiled versions tie the hand-written ones" (its rows
    # compiled-ties-norm and compiled-ties-swiglu, which read the graph-replay rounds of every run, not medians alone)
    ties_norm_verdict: Verdict = "not measured"
    ties_swiglu_verdict: Verdict = "not measured"


def _rounds_versus(ours: list[float], theirs: list[float]) -> RoundsVersus:
    """Ours against theirs in every round of the interleaved timing (the rounds are paired): faster or slower in
    all of them, else level. A median alone does not decide it: a noisy version's rounds may straddle."""
    pairs = list(zip(ours, theirs, strict=True))
    return "faster" if all(a < b for a, b in pairs) else "slower" if all(a > b for a, b in pairs) else "level"


def _versus(diff: float, limit: float) -> Versus:
    return "tied" if abs(diff) <= limit else "slower" if diff > 0 else "faster"


def version_time(d: dict[str, Any], op: str, key: str) -> dict[str, Any]:
    """One version's timing summary in a fusing_by_hand.versions run."""
    return next(x for x in d["versions"] if (x["op"], x["key"]) == (op, key))["time"]


def speedup(d: dict[str, Any], op: str, key: str) -> dict[str, Any]:
    """A version's stored speedup over eager, with the spread of the two timings it divides."""
    v = next(x for x in d["versions"] if (x["op"], x["key"]) == (op, key))
    return {**across.ratio(version_time(d, op, "eager"), v["time"]), "median": v["speedup"]}


def _headline(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The headline timings across runs, oldest first."""
    cut = across.of([across.ratio(version_time(d, "swiglu", "triton"), version_time(d, "swiglu", "eager"))
                     for d in runs])
    return {"versions_runs": len(runs),
            **across.fields("norm_eager_ms", across.of([version_time(d, "add_rmsnorm", "eager") for d in runs])),
            **across.fields("norm_triton_ms", across.of([version_time(d, "add_rmsnorm", "triton") for d in runs])),
            **across.fields("norm_speedup", across.of([speedup(d, "add_rmsnorm", "triton") for d in runs])),
            "swiglu_cut": 1 - cut.median, "swiglu_cut_low": 1 - cut.high, "swiglu_cut_high": 1 - cut.low,
            "swiglu_cut_runs_vary": cut.vary}


def from_data(versions: dict[str, Any], exactness: dict[str, Any], laptop_versions: dict[str, Any],
              laptop_exactness: dict[str, Any], ceilings: dict[str, Any], eager_bytes: dict[str, Any],
              sol_add: dict[str, Any], sol_swiglu: dict[str, Any],
              gpu: str, runs: Sequence[dict[str, Any]] | None = None) -> Facts:
    """versions is the newest run, which the verdicts read; runs, every run of the current code oldest first (the
    newest among them; default: that one alone), which the headline timings read. sol_add and sol_swiglu are one
    run each of speed_of_light.add_rmsnorm and speed_of_light.swiglu: torch.compile against the kernels, at this
    chapter's shape, by graph replay."""
    v = {(x["op"], x["key"]): x for x in versions["versions"]}
    noise = {k: x["time"]["noise_pct"] for k, x in v.items()}
    noisiest = max(v, key=lambda k: noise[k])
    ms = {k: x["time"]["median"] for k, x in v.items()}
    moved = [x for x in versions["versions"] if x["actual_gbps"]]
    slowest = min(moved, key=lambda x: x["share_of_copy"])
    flop = {op: eager_bytes[f"{op}_intensity"]["flop_per_elem"] for op in ("add_rmsnorm", "swiglu")}
    intensity = max(flop[x["op"]] / x["bytes_per_elem"] for x in moved)
    ridge = ceilings["matmul"]["tflops"] * 1e3 / ceilings["bandwidth"]["copy"]["gbps"]
    limit = laptop_versions["compiled_vs_triton_within"]
    diff = {op: ms[(op, "compiled")] / ms[(op, "triton")] - 1 for op in ("add_rmsnorm", "swiglu")}
    cases = exactness["triton"]
    worst = max(cases, key=lambda c: c["y"]["max_abs"])["y"]
    comp = exactness["compiled"]
    h_exact = all(c["h"]["bit_identical"] for c in cases)
    y_steps = max(c["y"]["max_steps"] for c in cases)
    sw_steps = max(c["swiglu"]["max_steps"] for c in cases)
    return Facts(
        gpu=gpu, rows=versions["shape"][0], hidden=versions["shape"][1], rounds=versions["rounds"],
        round_s=versions["rep_ms"] / 1e3, bound_pct=v[noisiest]["time"]["bound_pct"],
        min_rounds=versions["min_rounds"], cap_s=versions["cap_s"],
        all_quiet=all(x["time"]["quiet"] for x in v.values()),
        noisy_count=sum(not x["time"]["quiet"] for x in v.values()), noisiest_label=LABELS[noisiest],
        noisiest_pct=noise[noisiest],
        compiled_quiet=all(v[(op, "compiled")]["time"]["quiet"] for op in ("add_rmsnorm", "swiglu")),
        compiled_noisy=not any(v[(op, "compiled")]["time"]["quiet"] for op in ("add_rmsnorm", "swiglu")),
        compiled_norm_noise=noise[("add_rmsnorm", "compiled")], compiled_swiglu_noise=noise[("swiglu", "compiled")],
        triton_noise_high=max(noise[(op, "triton")] for op in ("add_rmsnorm", "swiglu")),
        compiled_noisiest=min(noise[(op, "compiled")] for op in ("add_rmsnorm", "swiglu"))
        > max(x for k, x in noise.items() if k[1] != "compiled"),
        noise_other_high=max(x for k, x in noise.items() if k[1] != "compiled"),
        **_headline(runs or [versions]),
        norm_fused_versus=_rounds_versus(v[("add_rmsnorm", "triton")]["time"]["values"],
                                         v[("add_rmsnorm", "eager")]["time"]["values"]),
        over_rms_norm=v[("add_rmsnorm", "rms_norm")]["time"]["median"] / v[("add_rmsnorm", "triton")]["time"]["median"],
        over_rms_norm_verdict=stats.paired(v[("add_rmsnorm", "triton")]["time"]["values"],
                                           v[("add_rmsnorm", "rms_norm")]["time"]["values"])["verdict"],
        swiglu_fused_versus=_rounds_versus(v[("swiglu", "triton")]["time"]["values"],
                                           v[("swiglu", "eager")]["time"]["values"]),
        norm_bytes_ratio=v[("add_rmsnorm", "eager")]["bytes_moved"] / v[("add_rmsnorm", "triton")]["bytes_moved"],
        laptop_norm_speedup=laptop_versions["add_rmsnorm_speedup"],
        laptop_swiglu_cut=laptop_versions["swiglu_time_cut"],
        rms_norm_kernels=v[("add_rmsnorm", "rms_norm")]["kernels"],
        rms_norm_speedup=v[("add_rmsnorm", "rms_norm")]["speedup"],
        tie_limit=limit, graph_norm_ratio=compiled_over_fusion(sol_add, SOL_ADD, *versions["shape"]),
        graph_swiglu_ratio=compiled_over_fusion(sol_swiglu, SOL_SWIGLU, *versions["shape"]),
        compiled_norm_diff=diff["add_rmsnorm"], compiled_swiglu_diff=diff["swiglu"],
        compiled_norm_ratio=1 + diff["add_rmsnorm"], compiled_swiglu_ratio=1 + diff["swiglu"],
        compiled_norm_versus=_versus(diff["add_rmsnorm"], limit),
        compiled_swiglu_versus=_versus(diff["swiglu"], limit),
        compile_norm_s=versions["compile_s"]["add_rmsnorm"], compile_swiglu_s=versions["compile_s"]["swiglu"],
        copy_gbps=versions["copy"]["gbps"],
        gbps_low=min(x["actual_gbps"] for x in moved), gbps_high=max(x["actual_gbps"] for x in moved),
        share_low=min(x["share_of_copy"] for x in moved), share_high=max(x["share_of_copy"] for x in moved),
        all_near_copy=all(x["share_of_copy"] >= NEAR_COPY for x in moved), near_copy=NEAR_COPY,
        versions_counted=len(moved), slow_versions=sum(x["share_of_copy"] < NEAR_COPY for x in moved),
        slowest_label=LABELS[(slowest["op"], slowest["key"])],
        norm_eager_share=v[("add_rmsnorm", "eager")]["share_of_copy"],
        norm_triton_share=v[("add_rmsnorm", "triton")]["share_of_copy"],
        intensity_high=intensity, ridge=ridge, ridge_over_intensity=ridge / intensity,
        ceiling_tflops=ceilings["matmul"]["tflops"], ceiling_copy_gbps=ceilings["bandwidth"]["copy"]["gbps"],
        far_below_ridge=ridge / intensity >= FAR_BELOW,
        laptop_gbps_low=laptop_versions["actual_gbps_low"], laptop_gbps_high=laptop_versions["actual_gbps_high"],
        h_exact=h_exact, h_shapes_differ=sum(not c["h"]["bit_identical"] for c in cases), shapes=len(cases),
        h_max_steps=max(c["h"]["max_steps"] for c in cases), y_max_steps=y_steps, y_past_one_step=y_steps > 1,
        y_max_abs=worst["max_abs"],
        y_step_at_max=worst["step_at_max"],
        y_differ=sum(c["y"]["differ"] for c in cases), y_elements=sum(c["y"]["elements"] for c in cases),
        swiglu_max_steps=sw_steps, swiglu_exact=sw_steps == 0,
        compiled_y_steps=comp["y"]["max_steps"], compiled_swiglu_steps=comp["swiglu"]["max_steps"],
        compiled_differs=bool(comp["y"]["differ"] or comp["swiglu"]["differ"] or comp["h"]["differ"]),
        laptop_h_exact=laptop_exactness["h_bit_identical"], laptop_y_max_steps=laptop_exactness["y_max_steps"],
        laptop_y_max_abs=laptop_exactness["y_max_abs"],
        as_laptop=h_exact >= laptop_exactness["h_bit_identical"] and y_steps <= laptop_exactness["y_max_steps"],
    )


def facts(machine: str | None = None) -> Facts:
    from kernelbook.chapters.claims import ledger  # the ledger imports the chapters' facts in turn

    r = read.result("fusing_by_hand.versions", machine)
    f = from_data(r.data, read.result("fusing_by_hand.exactness", machine).data,
                     read.result("fusing_by_hand.versions", LAPTOP).data,
                     read.result("fusing_by_hand.exactness", LAPTOP).data,
                     read.result("machine.ceilings", machine).data,
                     read.result("memory_bound.eager_bytes", machine).data,
                     read.result(SOL_ADD, machine).data, read.result(SOL_SWIGLU, machine).data, read.machine_label(r),
                     across.datas("fusing_by_hand.versions", machine))
    with read.for_words():  # the ledger reads every run of speed-of-light's experiments for its verdict words alone
        verdicts = {"ties_norm_verdict": ledger.verdict_of("compiled-ties-norm", machine),
                    "ties_swiglu_verdict": ledger.verdict_of("compiled-ties-swiglu", machine)}
    return replace(f, **verdicts)


FORMATS = {  # how each figure reads on every page (kernelbook.macros)
    "rows": "num:0", "hidden": "num:0", "rounds": "num:0", "round_s": "num:1", "bound_pct": "num:1",
    "min_rounds": "num:0", "cap_s": "num:0", "noisy_count": "num:0", "noisiest_pct": "num:1",
    "compiled_norm_noise": "num:1", "compiled_swiglu_noise": "num:1", "triton_noise_high": "num:1",
    "versions_runs": "num:0",
    "norm_eager_ms": "num:3", "norm_eager_ms_low": "num:3", "norm_eager_ms_high": "num:3",
    "norm_triton_ms": "num:3", "norm_triton_ms_low": "num:3", "norm_triton_ms_high": "num:3",
    "norm_speedup": "times:1", "norm_speedup_low": "times:1", "norm_speedup_high": "times:1",
    "swiglu_cut": "pct:0", "swiglu_cut_low": "pct:0", "swiglu_cut_high": "pct:0",
    "norm_bytes_ratio": "num:1", "laptop_norm_speedup": "times:1", "laptop_swiglu_cut": "pct:0",
    "rms_norm_kernels": "num:0", "rms_norm_speedup": "times:1", "over_rms_norm": "times:2", "tie_limit": "pct:1",
    "compiled_norm_ratio": "times:3", "compiled_swiglu_ratio": "times:3", "graph_norm_ratio": "times:3",
    "graph_swiglu_ratio": "times:3",
    "compiled_norm_diff": "pct:1", "compiled_swiglu_diff": "pct:1",  # signed: negative where compiled is faster
    "compile_norm_s": "num:1", "compile_swiglu_s": "num:1",
    "copy_gbps": "num:0", "gbps_low": "num:0", "gbps_high": "num:0", "share_low": "pct:0", "share_high": "pct:0",
    "ceiling_copy_gbps": "num:0", "near_copy": "pct:0", "versions_counted": "num:0", "slow_versions": "num:0",
    "norm_eager_share": "pct:0", "norm_triton_share": "pct:0",
    "intensity_high": "num:2", "ridge": "num:0", "ridge_over_intensity": "num:0",
    "laptop_gbps_low": "num:0", "laptop_gbps_high": "num:0",
    "y_max_steps": "num:0", "y_max_abs": "num:4", "y_step_at_max": "num:4", "y_differ": "num:0",
    "y_elements": "num:0", "swiglu_max_steps": "num:0", "compiled_y_steps": "num:0", "compiled_swiglu_steps": "num:0",
    "laptop_y_max_steps": "num:0", "laptop_y_max_abs": "num:3",
}


def derive(f: Facts) -> dict[str, Any]:
    """The speedup the page prints beside its two times, from the medians shown; the ridge as the machine chapter
    derives it (its two medians), so that every page reads one ridge."""
    ridge = f.ceiling_tflops * 1e3 / f.ceiling_copy_gbps
    return {"norm_speedup": f.norm_eager_ms / f.norm_triton_ms, "ridge": ridge,
            "ridge_over_intensity": ridge / f.intensity_high, "far_below_ridge": ridge / f.intensity_high >= FAR_BELOW}


DERIVED_FROM = {"norm_speedup": ("norm_eager_ms", "norm_triton_ms"), "ridge": ("ceiling_tflops", "ceiling_copy_gbps"),
                "ridge_over_intensity": ("ridge", "intensity_high")}
