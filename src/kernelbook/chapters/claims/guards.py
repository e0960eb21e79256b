"""What the summary pages' sentences rest on: each guard's condition on the claims facts (kernelbook.guards), with the
words it states and what the page would say were it false."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.guards import Guard

from .facts import Facts
from .verdicts import CONTRADICTED, HOLDS, NOT_APPLICABLE, OTHER_SIZE, REPRODUCED


def _fig(f: Facts, rid: str) -> str:
    """The ledger's figure for row `rid` on this machine, as its table prints it."""
    return dict(f.named_figures).get(rid, "not measured")


def _ledger(f: Facts, rid: str) -> str:
    """'7.0× (the ledger: same direction, other size)': a row's figure and verdict, for a flag."""
    return f"{_fig(f, rid)} (the ledger: {getattr(f, 'v_' + rid.replace('-', '_'))})"


def _mib(x: int) -> str:
    return fmt.num(x, 0, "MiB")


# What the summaries' sentences rest on (kernelbook.guards): the ledger's verdicts, each judged in every stored run of
# the current code, and the counts over them. One clause each; `states` holds the words of each page that makes it
# (claims.md, index.md, takeaways.md). Each is driven both ways in tests/test_facts_claims.py.
GUARDS = {
    "fused_faster": Guard(
        "the hand-written add + RMSNorm kernel ran faster than eager, by the article's factor or another",
        lambda f: f.v_speedup in (REPRODUCED, OTHER_SIZE),
        states=(("{{ fb.norm_speedup }} faster", "fusion pays in bytes", "to go faster, move fewer bytes"),),
        found=lambda f: f"the hand-written add + RMSNorm ran {_fig(f, 'speedup')} as fast as eager "
                        f"(the ledger: {f.v_speedup})"),
    "bandwidth_apart": Guard(
        "eager's chain of small kernels streamed its bytes clearly below the copy's rate, unlike the laptop's "
        "versions (contradicted in the ledger)",
        lambda f: f.v_same_bandwidth == CONTRADICTED,
        states=(("stayed clearly below the copy's rate", "fell well short"),),
        found=lambda f: f"the versions streamed their bytes at {fmt.pct(f.slowest_share)} to "
                        f"{fmt.pct(f.fastest_share)} of the copy's rate (the ledger: {f.v_same_bandwidth})"),
    "far_below_ridge": Guard(
        "elementwise work sits more than a hundred times below the ridge point",
        lambda f: f.v_ridge == REPRODUCED,
        states=(("one or fewer per byte", "elementwise work is paid for in bytes"),),
        found=lambda f: f"fused SwiGLU does {fmt.num(f.swiglu_flop_per_byte, 2)} FLOP per byte against a ridge "
                        f"point of {fmt.num(f.ridge, 0)}, " + (f"{fmt.num(f.ridge_over_swiglu, 0)} times below it"
                                                                if f.below_ridge else "above it")
                        + f" (the ledger: {f.v_ridge})"),
    "bytes_not_time": Guard(
        "eager add + RMSNorm took longer than its bytes need at the copy bandwidth, beyond the band",
        lambda f: f.v_bytes_predict_time == OTHER_SIZE,
        states=("not the time itself",),
        found=lambda f: f"eager add + RMSNorm took {fmt.num(f.bytes_measured_ms, 3)} ms where its bytes need "
                        f"{fmt.num(f.bytes_predicted_ms, 3)} ms at the copy bandwidth "
                        f"(the ledger: {f.v_bytes_predict_time})"),
    "one_kernel": Guard(
        "torch.compile writes the add + RMSNorm chain as one Triton kernel",
        lambda f: f.v_one_kernel == HOLDS,
        states=("fuses what streams through memory into triton",),
        found=lambda f: f"torch.compile wrote add + RMSNorm as {_ledger(f, 'one-kernel')}"),
    "matmuls_to_cublas": Guard(
        "torch.compile leaves the MLP's matrix products to cuBLAS",
        lambda f: f.v_matmuls_extern == HOLDS,
        states=(("hand them to a tuned library", "leaves matrix products to cublas"),),
        found=lambda f: f"torch.compile wrote the MLP half as {_ledger(f, 'matmuls-extern')}"),
    "recompile_once": Guard(
        "torch.compile recompiles once when the tokens go from 1 to 2, and not for 3 or 64 after it",
        lambda f: f.v_recompile == HOLDS,
        states=("recompiles once when a shape first changes",),
        found=lambda f: f"the graphs compiled per call, at 1, 2, 3 and 64 tokens, were {_ledger(f, 'recompile')}"),
    "bias_templates": Guard(
        "this GPU has the SMs Inductor's matmul templates want, so the laptop's row on projections left to cuBLAS "
        "cannot apply", lambda f: f.v_bias_on_cublas == NOT_APPLICABLE,
        states=("with enough sms such as this one",),
        found=lambda f: f"this GPU has {f.sm_count} SMs where Inductor's matmul templates want {f.min_sms}, and "
                        f"max-autotune left {_fig(f, 'bias-on-cublas')} per step (the ledger: {f.v_bias_on_cublas})"),
    "step_mostly_idle": Guard(
        "the GPU idles for more than half of the eager StaticCache step",
        lambda f: f.static_mostly_idle,
        states=("mostly waits for the host",),
        found=lambda f: f"the GPU was busy for {fmt.num(f.static_busy_ms, 2)} ms of the "
                        f"{fmt.num(f.static_step_ms, 2)} ms eager StaticCache step"),
    "graph_beats_fusion": Guard(
        "the plain CUDA graph beat default-mode fusion in every round",
        lambda f: f.v_default_mode == HOLDS,
        states=(("did more of that than fusing them", "gains more than fusing kernels does",
                 "capture the step in a cuda graph first", "faster than fusion alone in every round"),),
        found=lambda f: f"default-mode fusion's step against the plain graph's: {_ledger(f, 'default-mode')}"),
    "ro_beats_graph": Guard(
        "reduce-overhead, fusion and a graph together, beat the plain graph in every round",
        lambda f: f.v_ro_beats_graph == HOLDS,
        states=("faster still",),
        found=lambda f: f"reduce-overhead's step against the plain graph's: {_ledger(f, 'ro-beats-graph')}"),
    "oom": Guard(
        "the 200 MiB request fails with the article's memory reserved but unallocated",
        lambda f: f.v_oom == HOLDS,
        states=(("can still fail an allocation", "a request failed with enough memory free in the cache"),),
        found=lambda f: (f"the {_mib(f.request_mib)} request failed with {_mib(f.free_mib)} reserved but "
                         f"unallocated, against the laptop's {_mib(f.laptop_free_mib)} (the ledger: {f.v_oom})"
                         if f.oom else f"the {_mib(f.request_mib)} request succeeded (the ledger: {f.v_oom})")),
    "expandable": Guard(
        "with expandable segments the same script succeeds, with the article's memory allocated and reserved",
        lambda f: f.v_expandable == HOLDS,
        states=(("made it succeed", "try `expandable_segments:true`"),),
        found=lambda f: f"with expandable segments the script {'succeeded' if f.expandable_ok else 'failed as well'}, "
                        f"allocating {_mib(f.expandable_allocated_mib)} within {_mib(f.expandable_reserved_mib)} "
                        f"reserved (the ledger: {f.v_expandable})"),
    "replay_silent": Guard(
        "a graph replayed over a moved cache counter goes wrong without raising an error",
        lambda f: f.v_replay_silent == HOLDS,
        states=("the replay raised nothing",),
        found=lambda f: f"the replay over a moved cache counter gave {_ledger(f, 'replay-silent')}"),
    "replay_reset": Guard(
        "resetting the cache in place before the prefill makes the replay exact",
        lambda f: f.v_replay_reset == HOLDS,
        states=("made the replay exact again",),
        found=lambda f: f"the replay after resetting the cache in place, against eager: {_ledger(f, 'replay-reset')}"),
    "most_carry_over": Guard(
        "more than half of the tested rows go the article's way, borne out or by another amount",
        lambda f: f.agree + f.other_size > f.tested / 2,
        states=(("most claims carry over", "lessons mostly carry over"),),
        found=lambda f: f"{f.agree + f.other_size} of {f.tested} tested rows go the article's way, borne out or by "
                        f"another amount"),
    "size_over_direction": Guard(
        "more rows go the article's way by another amount than go against it",
        lambda f: f.other_size > f.against,
        states=(("more often by how much than by which way", "more often in size than in direction"),),
        found=lambda f: f"{f.other_size} rows go the article's way by another amount and {f.against} go against it"),
    "some_against": Guard(
        "some row goes against the article", lambda f: f.any_against,
        states=("go against the article",),
        found=lambda f: f"none of the {f.tested} tested rows goes against the article"),
    "some_undecided": Guard(
        "some row cannot decide", lambda f: f.any_undecided,
        states=("cannot decide",),
        found=lambda f: f"every one of the {f.tested} tested rows decides"),
    "gpus_differ": Guard(
        "some rows read another verdict on another measured GPU than on this one",
        lambda f: f.differ_rows > 0,
        states=("read differently on",),
        found=lambda f: f"all {f.rows} rows read alike on the {f.others}",
        absent=(lambda f: not f.others, "no other GPU has measured results")),
}
