"""The counts and verdicts of the summary pages (docs/index.md, claims.md, takeaways.md, machines.md) on one
machine: the claims ledger's verdicts and the figures the summaries quote, from the stored results, with the
article's RTX 4060 Laptop figures beside them.

No sentence is written here. docs/claims.md reads these fields as `f`; the other summary pages, which have no facts
package of their own, as `{% set c = facts("claims") %}`. Every verdict is the ledger's (`holds_<claim id>`), so a
summary can never say what the ledger's table denies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelbook import page
from kernelbook.chapters.claims import ledger
from kernelbook.chapters.fusing_by_hand.facts import LABELS as VERSION_LABELS
from kernelbook.decode import report

LAPTOP = ledger.LAPTOP
MiB = 1 << 20
MOSTLY_IDLE = 0.5  # a step "pays mostly for launches" when the GPU is idle for more than this share of it
EXPERIMENTS = tuple(sorted({n for c in ledger.CLAIMS for n in c.needs}))  # every result the ledger reads
LAPTOP_EXPERIMENTS = ("allocator.fragmentation", "decode.six_ways", "torch_compile.modes")
Data = dict[str, Any]


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    sm_count: int
    copy_tbps: float
    matmul_tflops: float
    # the ledger on this machine
    claims: int
    holds: int
    fails: int
    any_fail: bool
    failed: tuple[tuple[str, str], ...]  # (the claim as the ledger words it, the chapter page) of each that fails
    holds_ridge: bool
    holds_bytes_predict_time: bool
    holds_same_bandwidth: bool
    holds_one_kernel: bool
    holds_matmuls_extern: bool
    holds_recompile: bool
    holds_graph_step: bool
    holds_default_mode: bool
    holds_reduce_overhead: bool
    holds_floor: bool
    holds_bias_on_cublas: bool
    holds_oom: bool
    holds_expandable: bool
    # bytes (memory_bound.eager_bytes, machine.ceilings)
    eager_kernels: int  # Qwen2's eager add + RMSNorm
    eager_bytes: float  # per element
    fused_bytes: float
    bytes_measured_ms: float  # eager add + RMSNorm's time, and its bytes over the copy bandwidth
    bytes_predicted_ms: float
    ridge: float  # FLOP per byte
    swiglu_flop_per_byte: float  # fused SwiGLU's intensity
    ridge_over_swiglu: float
    compiled_kernels: int  # kernels torch.compile writes for add + RMSNorm
    # every version's bandwidth (fusing_by_hand.versions)
    slowest_version: str  # label of the version furthest below the copy
    slowest_share: float
    # the decode step (decode.six_ways), ms
    eager_step_ms: float  # eager, default cache
    static_step_ms: float  # eager, StaticCache
    static_busy_ms: float  # GPU busy time inside it
    static_mostly_idle: bool
    graph_step_ms: float  # the StaticCache step captured by hand
    graph_launches: int
    default_step_ms: float  # torch.compile, default mode
    ro_step_ms: float  # torch.compile reduce-overhead
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
    laptop_best_step_ms: float
    laptop_best_floor_share: float
    # max-autotune's matmuls (decode.six_ways kernel mix)
    bias_on_cublas: int  # bias projections left to cuBLAS under max-autotune, per step
    laptop_bias_on_cublas: int
    # the graph that replays a moved cache counter (decode.constraints)
    trap_wrong: bool  # replayed without a cache reset, the logits are not eager's
    trap_rel_err: float
    trap_top1: float  # share of steps whose top token agrees with eager's
    reset_exact: bool  # after an in-place reset, the replay is bit-identical to eager
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


def _ver(versions: Data, op: str, key: str) -> Data:
    return next(v for v in versions["versions"] if v["op"] == op and v["key"] == key)


def from_data(data: dict[str, Data], laptop: dict[str, Data], gpu: str, sm_count: int) -> Facts:
    """data, laptop: experiment name -> that experiment's data on this machine, and the article's published record."""
    judged = [(c, ledger.judge(c, data)[1]) for c in ledger.CLAIMS]
    held = {c.id: v == ledger.HOLDS for c, v in judged}
    failed = tuple((c.text, c.page) for c, v in judged if v == ledger.FAILS)
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
    request = (last["error"] or {}).get("alloc_size", lap_frag["oom_request_mib"] * MiB)
    return Facts(
        gpu=gpu, sm_count=sm_count, copy_tbps=mc["bandwidth"]["copy"]["gbps"] / 1e3,
        matmul_tflops=mc["matmul"]["tflops"],
        claims=len(judged), holds=sum(held.values()), fails=len(failed), any_fail=bool(failed), failed=failed,
        holds_ridge=held["ridge"], holds_bytes_predict_time=held["bytes-predict-time"],
        holds_same_bandwidth=held["same-bandwidth"], holds_one_kernel=held["one-kernel"],
        holds_matmuls_extern=held["matmuls-extern"], holds_recompile=held["recompile"],
        holds_graph_step=held["graph-step"], holds_default_mode=held["default-mode"],
        holds_reduce_overhead=held["reduce-overhead"], holds_floor=held["floor"],
        holds_bias_on_cublas=held["bias-on-cublas"], holds_oom=held["oom"], holds_expandable=held["expandable"],
        eager_kernels=chain["count"], eager_bytes=chain["bytes_per_elem"], fused_bytes=chain["fused_bytes_per_elem"],
        bytes_measured_ms=chain["bench"]["median"], bytes_predicted_ms=chain["predicted_us"] / 1e3,
        ridge=mc["ridge_flop_per_byte"], swiglu_flop_per_byte=swiglu,
        ridge_over_swiglu=mc["ridge_flop_per_byte"] / swiglu,
        compiled_kernels=data["torch_compile.codegen"]["add_rmsnorm"]["summary"]["kernel_count"],
        slowest_version=VERSION_LABELS[(slowest["op"], slowest["key"])], slowest_share=slowest["share_of_copy"],
        eager_step_ms=s["eager_dynamic"]["step_ms"], static_step_ms=s["eager_static"]["step_ms"],
        static_busy_ms=s["eager_static"]["busy_ms"], static_mostly_idle=s["eager_static"]["idle_share"] > MOSTLY_IDLE,
        graph_step_ms=s["cuda_graph"]["step_ms"],
        graph_launches=s["cuda_graph"]["launches"], default_step_ms=s["compile_default"]["step_ms"],
        ro_step_ms=s["compile_reduce_overhead"]["step_ms"],
        best_label=best["label"], best_step_ms=best["step_ms"], best_kernels=best["kernels"],
        best_busy_ms=best["busy_ms"], best_idle_ms=best["idle_ms"], best_floor_share=best["floor_share"],
        all_passed=bool(six["all_passed"]), floor_ms=six["floor_ms"], laptop_floor_ms=lap_six["floor_ms"],
        laptop_floor_over_ours=lap_six["floor_ms"] / six["floor_ms"],
        laptop_eager_step_ms=lap_v["eager_dynamic"]["step_ms"],
        laptop_best_step_ms=lap_v["compile_max_autotune"]["step_ms"],
        laptop_best_floor_share=lap_v["compile_max_autotune"]["floor_share"],
        bias_on_cublas=ledger._bias_cublas(data),
        laptop_bias_on_cublas=laptop["torch_compile.modes"]["decode_projections_on_cublas"],
        trap_wrong=not trap["without_reset"]["bit_identical"], trap_rel_err=trap["without_reset"]["rel_err"],
        trap_top1=trap["without_reset"]["top1_agree"], reset_exact=trap["with_reset"]["bit_identical"],
        oom=bool(last["error"]), cap_mib=frag["default"]["cap_bytes"] // MiB, request_mib=request // MiB,
        free_mib=(last["reserved"] - last["allocated"]) // MiB, holes=len(holes),
        hole_max_mib=max(holes, default=0) // MiB, laptop_free_mib=lap_frag["oom_unallocated_mib"],
        expandable_ok=not exp_last["error"], expandable_allocated_mib=exp_last["allocated"] // MiB,
        expandable_reserved_mib=exp_last["reserved"] // MiB,
    )


def facts(machine: str | None = None) -> Facts:
    data = {n: page.result(n, machine).data for n in EXPERIMENTS}
    laptop = {n: page.result(n, LAPTOP).data for n in LAPTOP_EXPERIMENTS}
    ceilings = page.result("machine.ceilings", machine)
    return from_data(data, laptop, page.machine_label(ceilings), ceilings.provenance["sm_count"])
