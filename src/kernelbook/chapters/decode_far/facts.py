"""The numbers and verdicts of docs/decode-far.md, from decode_far.ladder on one machine, with the decode chapter's
best step (decode.six_ways) it starts from, the article's RTX 4060 Laptop figures for that chapter, and the cost of
one launch replayed from a graph and the read-only bandwidth (machine.ceilings).

No sentence is written here: the page's Markdown reads these fields (`{{ f.last_ms }}`, in the text FORMATS gives
each; the decode chapter's best step from `facts("decode")`, a graph launch's cost from `facts("machine")`), is
written for the primary machine's results, and names above each paragraph the GUARDS it rests on. `derive`
recomputes the ratios, differences and sums printed beside their figures from the medians shown. A step the run
could not build or time leaves its numbers None (a dash on the page) and `complete` False.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import page
from kernelbook.chapters.decode_far import anchors
from kernelbook.chapters.decode_far import report as far
from kernelbook.decode import report as decode_report
from kernelbook.guards import Guard
from kernelbook.stats import CONFIDENCE, paired

LAPTOP = decode_report.LAPTOP
GOAL_MS = far.GOAL_MS
NEAR_FP32 = 1.2  # a step's largest error is "about bf16's own" within this factor of eager fp32's distance
MORE_THAN_HANDOFF = 1.3  # a removed kernel "cost more than its hand-off" past this many graph launches saved
BYTES_NEGLIGIBLE = 0.2  # attention's time "is not its bytes" when they take under this share of it at copy speed
OFF_LINE = 0.1  # the layer counts' times "lie on a straight line": none further from it than this share of a layer
NEAR_COPY = 0.1  # calls run "at about their bytes' copy time" when their share of the copy speed is within this of 100%
LABELS = {  # what each site's launch computes (decode/fast.py); the tables name a site added later by its key
    "qkv": "q, k, v projection + bias",
    "o": "output projection + residual",
    "o_few": "output projection + residual, in blocks of many rows (few programs)",
    "gate_up": "gate and up projection",
    "down": "down projection + residual",
    "lm_head": "final RMSNorm + logits (tied embedding)",
    "qkv_rope": "RMSNorm + q, k, v + bias + RoPE + cache write (pairs)",
    "swiglu": "RMSNorm + gate, up + SwiGLU (pairs)",
    "attention": "attention over the filled slots",
    "attention_o": "attention + output projection + residual (per head, summed by the last)",
    "swiglu_ring": "RMSNorm + gate, up + SwiGLU, weights through shared memory (pairs)",
    "down_ring": "down projection + residual, weights through shared memory (rows)",
    "attention_merge": "attention's partial results merged (split slots)",
}
CHAIN = ("qkv_rope", "attention", "o")  # a layer's attention half: three launches, each waiting for the one before
MLP_CALLS = ("swiglu", "swiglu_ring", "down", "down_ring")  # a step makes one of the two SwiGLU calls and one down call
FUSING_STEPS = ("fused add+RMSNorm, SwiGLU", "norm, RoPE, SwiGLU, residual in the matvecs")  # steps four and six
FIRST_TWO = ("own PyTorch step", "+ fused QKV, gate/up")  # the first two steps' labels (bit-identical to eager)
RETUNED = ("matvec_fusions", "pdl")  # the fused steps whose sites are tuned again inside them (ladder.IN_STEP)
Goal = Literal["met", "over", "failed", "missing"]  # failed: timed but wrong; missing: not built or not timed
Shrank = Literal["as_the_floor", "less", "not"]
Ordering = Literal["faster", "slower", "mixed", "missing"]  # one step against another in every round, or not
Paired = Literal["faster", "slower", "level", "missing"]  # the interval of a median saving: above, below or across 0
Stand = Literal["ahead", "level", "behind", "missing"]  # this run's rounds above, across or below a published figure
Side = Literal["within", "over", "under"]  # where a time's bytes at the copy bandwidth fall against its interval


@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    # where the page starts: the decode chapter's fastest correct step, and the article's laptop
    six_has_best: bool  # some decode-chapter variant passed its check
    six_best_label: str | None
    six_best_ms: float | None
    six_best_floor_share: float | None  # the floor's time over the step's
    six_floor_ms: float
    six_copy_tbps: float
    six_mostly_overhead: bool  # that step reaches under half of the floor
    laptop_best_label: str  # the laptop's best step by share of its floor (the article's figures)
    laptop_best_ms: float
    laptop_best_floor_share: float
    laptop_floor_ms: float
    laptop_dram_gbps: float  # the bandwidth the article's floor divides by (a memory read, not a copy)
    laptop_has_same: bool  # the article states the laptop's share for the H200's best variant too
    laptop_same_floor_share: float | None
    laptop_closer: bool  # the laptop's best step came closer to its floor than the H200's best to its own
    floor_ratio: float  # the laptop's floor over the H200's (decode.six_ways)
    six_rest_ms: float | None  # the H200's best step less its floor
    laptop_rest_ms: float  # the laptop's best step less its floor
    rest_ratio: float | None  # the laptop's best step's time beyond its floor over the H200's best step's
    rest_shrank: Shrank  # ... as the floor did (by floor_ratio or more), less, or not at all
    # the goal: at most GOAL_MS per step, and correct
    goal_ms: float
    goal_floor_share: float  # the share of the floor a step of goal_ms reaches
    goal: Goal  # the last step, synchronised around every step
    goal_over_ms: float | None  # the last step's time less the goal
    goal_over_share: float | None  # ... as a share of the goal
    loop_goal: Goal  # the same verdict for the last step run back to back
    # the ladder end to end
    complete: bool  # every step built, timed and profiled
    unbuilt: tuple[str, ...]  # labels of the steps that were not
    changes: int
    base_ms: float | None
    base_kernels: int | None
    last_label: str  # the last step's label without its "+ "
    last_ms: float | None
    last_loop_ms: float | None
    last_kernels: int | None
    last_floor_share: float | None
    speedup: float | None  # the plain graph's time over the last step's
    last_slower: bool  # the last change made the step slower than the one before it (medians)
    last_slower_every_round: bool  # ... in every round that timed both
    last_is_fold: bool  # the last step is attention folded into the output projection
    last_prev_label: str  # the step before the last
    last_prev_ms: float | None
    last_cost_ms: float | None  # the last step's time less the one before it
    last_is_best: bool  # the last step is the fastest that passed its check
    has_best: bool  # some step passed its check
    best_label: str  # the fastest step that passed its check
    best_ms: float | None
    best_floor_share: float | None
    best_loop_ms: float | None
    best_kernels: int | None
    best_speedup: float | None  # the plain graph's time over the best step's
    best_read_share: float | None  # the read floor over the best step's time
    fastest: tuple[str, ...]  # "the fastest": the best step's label and those of the steps that passed their check
    # and are level with it (or ahead) by the rounds, paired round by round (stats.paired), in the ladder's order
    # attention folded into the output projection, timed alone (one launch per layer, 28 layers in one graph)
    has_fold: bool
    fold_us: float | None  # the folded kernel, µs per layer at its tuned config
    fold_rows: int | None  # ... rows of W_o per program
    pair_us: float | None  # attention and the output projection as two launches, each at its tuned config
    fold_alone_slower: bool  # the fold lost already alone, before the step's overlap
    # the rounds' noise criterion (bench.py): synchronised steps and back-to-back loops
    rounds_quiet: bool  # every figure quiet: the rounds stopped on the criterion, not the cap
    rounds_min: int
    rounds_cap_s: float
    rounds_bound_pct: float
    step_noisy_count: int  # steps whose synchronised time stayed noisy at the cap
    step_noise_high: float  # the largest such noise, percent
    loop_all_quiet: bool  # every back-to-back loop quiet
    loop_noise_high: float
    round_trip_ms: float | None  # the last step synchronised less back to back
    round_trip_shows: bool  # back to back is faster
    weight_gb: float
    copy_gbps: float
    copy_gib: float  # the size of the copy that measured it
    floor_ms: float
    # the read floor: the weights at the read-only bandwidth of machine.ceilings (a projection only reads)
    read_gbps: float
    read_floor_ms: float
    lm_head_gbps: float  # the LM head's matvec tuned alone (lm_head site), weight bytes over its time
    lm_head_copy_share: float  # ... over the copy bandwidth
    lm_head_read_share: float  # ... over the read-only bandwidth
    rounds_n: int
    loop_steps: int
    delta_ms: dict[str, float | None]  # per step: its time less the time of the row before (negative: faster)
    delta_own_ms: float | None  # ... of the first three steps, as fields of their own (the page prints them)
    delta_fused_proj_ms: float | None
    delta_filled_attention_ms: float | None
    own_ms: float | None  # those three steps' times (medians over the rounds): the deltas are their differences
    fused_proj_ms: float | None
    filled_attention_ms: float | None
    # correct before timed
    check_steps: int
    fp32_rel_err: float  # eager in float32 against eager in bf16, the largest relative error
    fp32_top1_differ: int  # steps where those two pick different top tokens
    tol_factor: float
    tolerance: float
    band: float
    exact: tuple[str, ...]  # labels of the steps bit-identical to eager
    any_exact: bool
    any_rounded: bool  # some step differs from eager with finite logits
    worst_label: str | None
    worst_rel_err: float | None
    worst_of_tolerance: float | None
    worst_near_fp32: bool  # within NEAR_FP32 of eager fp32's own distance
    nonfinite: tuple[str, ...]  # labels of the steps whose logits held NaN or infinity
    any_nonfinite: bool
    failed: tuple[str, ...]  # labels of the steps that failed the check
    any_failed: bool
    free_steps: int  # steps run free (untethered) for check_steps tokens
    free_same: int  # ... that wrote exactly eager's tokens
    free_all_same: bool
    near_ties_only: bool  # every top-token difference under teacher forcing fell within the band
    same_eager_tokens: bool  # the decode chapter's eager run wrote the same tokens: its logit gaps apply here
    gap_median: float  # the median gap between eager's two best logits, run free (decode.six_ways)
    gaps_within_band: int  # ... gaps within the band, of gaps_n
    gaps_n: int
    has_next_check: bool  # a step that picks its own next token was checked doing so
    next_label: str | None
    next_steps: int | None
    next_agree: int | None  # steps where the token it wrote was the argmax of its logits
    next_positions_ok: bool
    # what the steps bought: the two largest savings
    first_label: str
    first_saved_ms: float
    first_before_ms: float  # the step before it and the step (medians over the rounds): the saving is the first
    first_after_ms: float  # less the second
    first_kernels_before: int
    first_kernels_after: int
    first_us_per_kernel: float | None  # µs saved per kernel removed (None: no kernel removed)
    second_label: str
    second_saved_ms: float
    second_before_ms: float
    second_after_ms: float
    second_kernels_before: int
    second_kernels_after: int
    second_us_per_kernel: float | None
    top_cut_kernels: bool  # both removed kernels
    graph_us_per_launch: float  # a trivial kernel replayed from a graph (machine.ceilings)
    per_kernel_ratio: float | None  # the smaller of the two µs per kernel removed, in graph launches
    removed_cost_more: bool  # at MORE_THAN_HANDOFF launches or more
    fusing_saved_ms: float | None  # the two fusing steps' savings together (FUSING_STEPS)
    fusing_gain_share: float | None  # ... over the plain graph's time less the best step's
    # cuBLAS against the matvec kernel
    has_matvec: bool  # the matvec step and the one before it were timed
    matvec_saved_ms: float | None
    matvec_before_ms: float | None  # the step before the matvec step and the matvec step: the saving's terms
    matvec_step_ms: float | None
    matvec_faster: bool
    matvec_kernels_before: int | None
    matvec_kernels_after: int | None
    matvec_profiled_all: bool  # both profiles caught every projection: their times compare
    matvec_launches: int | None  # the projection launches in the matvec step's profile, and in cuBLAS's step's
    cublas_launches: int | None
    cublas_ms: float | None
    cublas_gbps: float | None
    matvec_ms: float | None
    matvec_gbps: float | None
    matvec_share: float | None  # of the copy bandwidth
    # where the last step without PDL spends its time
    has_plain: bool
    plain_label: str | None
    plain_ms: float | None
    plain_matvec_ms: float | None
    plain_matvec_gbps: float | None
    plain_matvec_share: float | None
    plain_attention_ms: float | None
    plain_attention_launches: int | None
    plain_attention_us: float | None  # per launch
    kv_kib: float  # keys and values one attention launch reads at the position it was tuned at
    kv_us: float  # ... at the copy bandwidth
    attention_not_bytes: bool  # those bytes take under BYTES_NEGLIGIBLE of a launch's time
    plain_other_ms: float | None
    plain_idle_ms: float | None
    plain_host_ms: float | None
    plain_busy_over: bool  # its profiled kernels add up to more than its back-to-back step
    plain_busy_over_ms: float | None
    plain_matvec_loss_ms: float | None  # the matvecs' time beyond the floor
    plain_rest_ms: float | None  # attention, the other kernels, idle time and the round trip
    owners_ms: float | None  # plain_matvec_loss_ms + plain_rest_ms
    owners_cover: bool  # ... is more than the last step is over the goal
    # programmatic dependent launch
    has_pdl: bool
    pdl_used: bool
    pdl_saved_ms: float | None
    pdl_saved_share: float | None
    pdl_before_ms: float | None  # the step before PDL and the PDL step: the saving's terms
    pdl_ms: float | None
    pdl_faster: bool
    pdl_same_kernels: bool
    pdl_kernels: int | None
    pdl_kernels_before: int | None
    pdl_attention_config: str | None  # attention's config chosen inside the PDL step, "128 × 1 × 8"
    before_attention_config: str | None  # ... inside the step before
    # the graph alone (the launch costs' step replayed back to back) and the next token inside the graph
    has_alone: bool
    alone_us: float
    alone_label: str
    alone_ms: float
    alone_outside_ms: float | None  # its loop less its graph alone
    alone_loop_ms: float | None  # that step's back-to-back loop (the steps table's figure)
    loop_over_graph: bool
    alone_argmax_us: float | None
    alone_has_argmax: bool
    has_greedy: bool  # a step that picks its own next token, and the one before it, were timed
    greedy_kernels: int | None
    greedy_kernels_before: int | None
    greedy_host_us: float | None
    greedy_host_us_before: float | None
    greedy_loop_ms: float | None
    greedy_loop_ms_before: float | None
    greedy_ms: float | None
    greedy_ms_before: float | None
    # the tables' notes
    kernels_label: str | None
    kernels_distinct: int | None
    kernels_copies: int | None
    has_compared: bool
    kernels_overlap: bool
    kernels_busy_ms: float | None
    kernels_step_ms: float | None
    calls_sum_us: float
    calls_over_whole: bool  # the calls' costs add up to more than the whole step
    mlp_us: float  # per layer
    mlp_copy_us: float
    mlp_share: float
    chain_us: float
    chain_mib: float
    chain_copy_us: float
    chain_share: float
    chain_furthest: bool  # the attention half is further from its bytes than the MLP
    calls_over_copy: tuple[str, ...]  # calls past 100% of the copy speed
    any_call_over_copy: bool
    sites_over_copy: tuple[str, ...]  # tuned sites past 100%
    any_site_over_copy: bool
    tune_s: float
    attention_one_launch: bool  # the tuner, alone, kept one split (no merge launch)
    attention_splits: int  # ... the splits it kept
    retune_reps: int
    retune_finalists: int | None  # a site's fastest candidates in the step, timed again (None: not in this result)
    retune_final_rounds: int | None  # ... how many times each
    retune_has_finalists: bool
    retune_positions: tuple[int, ...]
    retune_position_first: int  # ... the first and the last of them
    retune_position_last: int
    retune_plain_label: str  # the fused step without PDL
    retune_plain_alone_us: float | None  # µs per step with every site at its config alone, then retuned
    retune_plain_us: float | None
    retune_plain_cut: float | None
    retune_plain_helped: bool
    # the step's waits: the launch costs' step with no kernel waiting for the one before (wrong values)
    has_no_wait: bool
    no_wait_label: str | None
    no_wait_with_us: float | None  # medians over the rounds
    no_wait_us: float | None
    waits_us: float | None  # what the waits cost: the first less the second
    waits_cost: bool  # every round without the waits was faster than every round with them
    waits_gap_share: float | None  # waits_us over the step's distance from the floor
    no_wait_floor_share: float | None  # the floor over the step without its waits
    no_wait_gap_us: float | None  # the step without its waits less the floor
    no_wait_step_ms: float | None  # the step's synchronised time (the goal's measure) less what its waits cost
    no_wait_step_timed: bool  # ... that step was timed synchronised
    no_wait_meets_goal: bool  # ... is within the goal
    # the step over fewer layers: t(n) = once + n per layer (report.layer_fit)
    has_layer_fit: bool
    fit_label: str | None
    fit_layers: tuple[int, ...]  # the layer counts it was built over
    fit_layers_text: str  # ... as the page lists them, "0, 1, 7, 14, 21, 28"
    fit_per_layer_us: float | None
    fit_once_us: float | None
    fit_off_line_us: float | None  # the largest distance of a count's median from the line
    layer_mib: float | None  # one layer's weights
    layer_copy_us: float | None  # ... at the copy bandwidth
    layer_share: float | None  # that over what a layer costs
    layer_over_us: float | None  # a layer's cost over its bytes at the copy bandwidth
    layers_over_us: float | None  # ... every layer's, together
    once_mib: float | None  # the weights read once a step (the LM head's, the final norm)
    once_copy_us: float | None
    fit_confidence: float  # the confidence of the once-a-step time's bootstrap interval
    once_low_us: float | None  # ... that interval
    once_high_us: float | None
    once_side: Side  # its bytes at the copy bandwidth inside that interval, or the interval over or under them
    once_off_us: float | None  # the once-a-step time less those bytes' time, over or under
    layers_gap_share: float | None  # the layers' part of the step's distance from the floor (the once part's, if over)
    layers_hold_most: bool  # ... more than half of it
    layer_goal_us: float | None  # a layer at the goal's share of the floor's speed
    layer_goal_cut_us: float | None  # what a layer would have to lose to get there
    layer_goal_met: bool
    # one layer of the cost step from profiled replays (report.timeline_rows)
    has_timeline: bool
    timeline_label: str | None
    timeline_position: int | None  # the slot the replays were profiled at
    timeline_replays: int | None
    timeline_period_us: float | None  # one layer's first launch to the next's
    timeline_chain_us: float | None  # the attention half's steps from end to end (CHAIN, and attention's merge)
    timeline_chain_copy_us: float | None  # ... its weights at the copy bandwidth
    timeline_mlp_us: float | None  # the MLP's steps from end to end
    timeline_mlp_copy_us: float | None
    timeline_worst: str | None  # the launch whose end comes furthest past its bytes' time after the end before it
    timeline_worst_after_us: float | None
    timeline_worst_copy_us: float | None
    timeline_worst_over_us: float | None
    timeline_worst_reads: bool  # ... reads weights (attention reads none)
    timeline_early: tuple[str, ...]  # launches that end sooner after the one before than their bytes take
    timeline_any_early: bool
    # one hand-off with nothing around it: empty hops as dependent launches and as a barrier in one launch
    has_handoff: bool
    handoff_hops: int | None
    handoff_pdl: bool  # the launches were programmatically dependent
    handoff_ordered: bool  # every chain ended in order
    handoff_programs_low: int | None  # the fewest and the most programs a hop
    handoff_programs_high: int | None
    launch_low_us: float | None  # µs a hop as a launch, at the fewest and the most programs
    launch_high_us: float | None
    barrier_low_us: float | None  # ... as a barrier
    barrier_high_us: float | None
    barrier_always_slower: bool  # at every count every round's barrier was slower than every round's launch
    layer_launches: int  # the dependent launches a layer of the cost step makes
    layer_launches_low_us: float | None  # that many hops at the fewest and the most programs
    layer_launches_high_us: float | None
    # SwiGLU through shared memory (ladder step swiglu_ring, and its check against the kernel it replaces)
    has_ring: bool  # the ring step and the step before it were timed, and the ring was tuned (it ran)
    ring_ms: float | None  # the ring step, synchronised around every step (median over the rounds)
    ring_before_ms: float | None  # the step before it
    ring_before_label: str
    ring_saved_us: float | None  # the step before less the ring step (medians)
    ring_floor_share: float | None
    ring_before_floor_share: float | None
    ring_rounds: Ordering  # the ring step against the one before, round by round
    ring_saved_low_us: float | None  # the least and the most a round saved (the step before less the ring)
    ring_saved_high_us: float | None
    ring_block_pairs: int | None  # the tuned config (in the ring step): pairs a block, blocks in flight, warps
    ring_blocks_in_flight: int | None
    ring_warps: int | None
    ring_per_sm: int | None  # programs per SM the shared memory takes
    ring_kib: float | None  # one program's ring, KiB
    ring_alone_us: float | None  # tuned alone, µs a layer, against matvec_pair's SwiGLU tuned the same way
    pair_alone_us: float | None
    ring_alone_faster: bool
    ring_checked: bool  # ring_check ran
    ring_check_seeds: int
    ring_identical: bool  # every output the same as matvec_pair's, at every seed
    ring_differ_max: int | None  # the most outputs that differed at one seed, of ring_outputs
    ring_outputs: int | None
    ring_abs_max: float | None
    ring_finite: bool  # no output NaN or infinite (the output is poisoned before the kernel runs)
    confidence: float  # of the paired intervals below (stats.paired)
    # the output projection in a few programs (ladder step few_o, the step after the ring)
    has_few: bool  # the step and the one before it were timed, and the o_few site was tuned
    few_ms: float | None  # the step, synchronised around every step (median over the rounds)
    few_before_ms: float | None
    few_before_label: str
    few_floor_share: float | None
    few_before_floor_share: float | None
    few_verdict: Paired  # against the step before, round by round: the interval of the median saving (stats.paired)
    few_saved_us: float | None  # the median of the rounds' savings (the step before less this one), µs
    few_saved_low_us: float | None  # its interval at `confidence`
    few_saved_high_us: float | None
    few_faster_rounds: int  # rounds in which it was faster, of few_rounds_n
    few_rounds_n: int
    few_rows: int | None  # rows a program of the output projection, chosen inside this step
    few_programs: int | None
    few_before_known: bool  # the step before was tuned inside itself, so its output projection's config is stored
    few_before_rows: int | None  # the same in the step before
    few_before_programs: int | None
    few_candidates: int | None  # the configs tried inside the step
    few_rows_fewest: int | None  # the fewest and the most rows a block among them
    few_rows_most: int | None
    o_rows_low: int | None  # the same among the output projection's configs in the steps before (site o)
    o_rows_high: int | None
    few_is_best: bool  # the fastest step that passed its check
    # the down projection through shared memory (ladder step down_ring, the step after few_o)
    has_down: bool  # the step and the one before it were timed, and the down_ring site was tuned (its ring ran)
    down_ms: float | None
    down_before_ms: float | None
    down_before_label: str
    down_floor_share: float | None
    down_before_floor_share: float | None
    down_verdict: Paired  # against the step before, round by round (stats.paired)
    down_saved_us: float | None  # the median of the rounds' savings, µs
    down_saved_low_us: float | None  # its interval at `confidence`
    down_saved_high_us: float | None
    down_faster_rounds: int
    down_rounds_n: int
    down_rows_in_flight: int | None  # rows of W_down a program keeps in shared memory, chosen inside the step
    down_warps: int | None
    down_per_sm: int | None  # programs an SM
    down_candidates: int | None  # the configs tried inside the step
    down_alone_us: float | None  # tuned alone, µs a layer, against matvec's down
    down_matvec_alone_us: float | None
    down_alone_faster: bool
    down_checked: bool  # down_check ran (the ring ran)
    down_check_seeds: int
    down_identical: bool  # every output the same as matvec's, at every seed
    down_differ_max: int | None
    down_outputs: int | None
    down_abs_max: float | None
    down_finite: bool
    down_programs: int | None  # the grid of the checked config
    down_in_flight_mib: float | None  # what its programs' rings hold (at most W_down): the most on its way at the wait
    down_weight_mib: float | None  # W_down, one layer
    down_is_best: bool
    retune_pdl_label: str
    retune_pdl_alone_us: float | None
    retune_pdl_us: float | None
    retune_pdl_cut: float | None
    retune_pdl_helped: bool
    # published steps on an H200 (anchors.py) against this run's fastest step that passed its check, as TB/s of
    # weights: the anchors' single figures against the slowest and fastest rounds of every run of the current code
    has_anchors: bool  # some step passed its check
    anchors_same_gpu: bool  # this run's GPU is an H200 too
    anchor_runs: int  # the runs of the current code the stands below hold in (the figures are this run's)
    anchor_many_runs: bool  # more than one
    anchor_model: str
    anchor_gpu: str  # the GPU the published steps ran on
    anchor_repo: str  # where the published figures are: owner/name, the file, its commit
    anchor_path: str
    anchor_commit: str
    anchor_url: str  # ... the file at that commit on GitHub (a link's target: the page reads it plain, `.value`)
    anchor_steps: int  # the dependent steps each published time is the mean over
    anchor_gb: float
    anchor_layers: int
    anchor_layer_mb: float
    our_layers: int | None  # from the layer fit (None: this result has none)
    our_layer_mb: float | None
    anchor_fewer_layers: bool  # the anchors' model reads its weights in fewer, larger layers
    anchor_fast_label: str  # the published step with the most TB/s
    anchor_fast_tbps: float
    anchor_fast_share: float  # of this run's copy bandwidth
    anchor_slow_label: str
    anchor_slow_tbps: float
    anchor_slow_share: float
    anchor_fast_built_for: str | None  # the GPU setting the fastest published step was built with (RESULTS.md)
    anchor_fast_fidelity: bool  # ... it passed the study's own numerical-fidelity check
    anchor_slow_fidelity: bool
    ours_tbps: float | None  # synchronised around every step (the goal's measure), median over the rounds
    ours_share: float | None
    ours_loop_tbps: float | None  # back to back
    ours_loop_share: float | None
    sync_vs_fast: Stand
    sync_vs_slow: Stand
    loop_vs_fast: Stand
    loop_vs_slow: Stand
    goal_tbps: float  # the weights read in goal_ms
    goal_over_fast: float  # ... over the fastest published step's TB/s


def _strip(label: str) -> str:
    return label.removeprefix("+ ")


def _config(c: list[int] | None) -> str | None:
    return None if c is None else " × ".join(map(str, c))


def _verdict(s: dict[str, Any] | None, ms: float | None, goal_ms: float) -> Goal:
    if s is None or ms is None:
        return "missing"
    if not s["passed"]:
        return "failed"
    return "met" if ms <= goal_ms else "over"


def _shrank(rest: float | None, laptop_rest: float, floor_ratio: float) -> Shrank:
    if rest is None or rest >= laptop_rest:
        return "not"
    return "as_the_floor" if laptop_rest / rest >= floor_ratio else "less"


def _start(six: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
    best = decode_report.best_valid(six)
    lap = {n: v for n, v in decode_report.laptop_rows(laptop).items() if v.get("floor_share")}
    lap_best = max(lap, key=lambda n: lap[n]["floor_share"])
    same = lap.get(best["name"]) if best else None
    rest, lap_rest = best and best["step_ms"] - six["floor_ms"], lap[lap_best]["step_ms"] - laptop["floor_ms"]
    return dict(
        laptop_closer=best is not None and lap[lap_best]["floor_share"] > best["floor_share"],
        floor_ratio=laptop["floor_ms"] / six["floor_ms"], six_rest_ms=rest, laptop_rest_ms=lap_rest,
        rest_ratio=rest and lap_rest / rest, rest_shrank=_shrank(rest, lap_rest, laptop["floor_ms"] / six["floor_ms"]),
        six_has_best=best is not None, six_best_label=best and best["label"], six_best_ms=best and best["step_ms"],
        six_best_floor_share=best and best["floor_share"], six_floor_ms=six["floor_ms"],
        six_copy_tbps=six["copy"]["gbps"] / 1e3, six_mostly_overhead=best is not None and best["floor_share"] < 0.5,
        laptop_best_label=six["labels"].get(lap_best, lap_best), laptop_best_ms=lap[lap_best]["step_ms"],
        laptop_best_floor_share=lap[lap_best]["floor_share"], laptop_floor_ms=laptop["floor_ms"],
        laptop_dram_gbps=laptop["dram_gbps"], laptop_has_same=same is not None and lap_best != best["name"],
        laptop_same_floor_share=same and same["floor_share"])


def _checks(d: dict[str, Any], s: dict[str, dict[str, Any]], six: dict[str, Any]) -> dict[str, Any]:
    steps = [s[n] for n in d["steps"] if n in s]
    rounded = [x for x in steps if x["checked"] and not x["bit_identical"] and x["rel_err_max"] is not None]
    worst = max(rounded, key=lambda x: x["rel_err_max"]) if rounded else None
    y = d["yardstick_fp32"]
    gaps = six["free_running"]["eager_static"]["gaps"]
    free = [v for n in d["steps"] if n in s and (v := far.free_running_same(d, n))]
    nxt = next(((n, c["next_token"]) for n in d.get("advances", []) if (c := far.check(d, n) or {}).get("next_token")),
               None)
    return dict(
        check_steps=d["check_steps"], fp32_rel_err=y["rel_err_max"], fp32_top1_differ=len(y["top1_disagree_steps"]),
        tol_factor=d["tol_factor"], tolerance=d["tolerance"], band=d["band"],
        exact=tuple(x["label"] for x in steps if x["bit_identical"]),
        any_exact=any(x["bit_identical"] for x in steps), any_rounded=worst is not None,
        worst_label=worst and worst["label"], worst_rel_err=worst and worst["rel_err_max"],
        worst_of_tolerance=worst and worst["rel_err_max"] / d["tolerance"],
        worst_near_fp32=worst is not None and worst["rel_err_max"] <= NEAR_FP32 * y["rel_err_max"],
        nonfinite=tuple(x["label"] for x in steps if x["checked"] and x["rel_err_max"] is None),
        any_nonfinite=any(x["checked"] and x["rel_err_max"] is None for x in steps),
        failed=tuple(x["label"] for x in s.values() if not x["passed"]),
        any_failed=not all(x["passed"] for x in s.values()),
        free_steps=len(free), free_same=sum(a == b for a, b in free), free_all_same=all(a == b for a, b in free),
        near_ties_only=all(not c["unexplained_steps"] for c in d["teacher_forced"].values()),
        same_eager_tokens=six["free_running"]["eager_static"]["tokens"] == d["free_running"].get("eager_static"),
        gap_median=decode_report.median_gap(six), gaps_n=len(gaps), gaps_within_band=sum(x < d["band"] for x in gaps),
        has_next_check=nxt is not None, next_label=nxt and _strip(d["labels"][nxt[0]]),
        next_steps=nxt and nxt[1]["steps"], next_agree=nxt and nxt[1]["agree"],
        next_positions_ok=bool(nxt and nxt[1]["positions_ok"]))


def _savings(rows: list[dict[str, Any]], launch: dict[str, Any]) -> dict[str, Any]:
    by = {x["name"]: x for x in rows}
    top = sorted((x for x in rows if x["saved_ms"] is not None), key=lambda x: -x["saved_ms"])[:2]
    out: dict[str, Any] = {}
    for key, x in zip(("first", "second"), top, strict=True):
        before = by[x["prev"]]["kernels"]
        cut = before - x["kernels"]
        out.update({f"{key}_label": x["label"], f"{key}_saved_ms": x["saved_ms"], f"{key}_kernels_before": before,
                    f"{key}_before_ms": by[x["prev"]]["step_ms"], f"{key}_after_ms": x["step_ms"],
                    f"{key}_kernels_after": x["kernels"],
                    f"{key}_us_per_kernel": 1e3 * x["saved_ms"] / cut if cut > 0 else None})
    per = [out[f"{k}_us_per_kernel"] for k in ("first", "second")]
    ratio = min(per) / launch["graph_us_per_launch"] if None not in per else None
    return {**out, "top_cut_kernels": None not in per, "graph_us_per_launch": launch["graph_us_per_launch"],
            "per_kernel_ratio": ratio, "removed_cost_more": ratio is not None and ratio > MORE_THAN_HANDOFF}


def _matvec(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("matvec")
    p = by.get(x["prev"]) if x and x["prev"] else None
    ws = far.weight_stream(d, "matvec") if x else None
    cb = far.weight_stream(d, p["name"], far.CUBLAS) if p else None
    return dict(
        has_matvec=bool(x and p), matvec_saved_ms=x and p and x["saved_ms"],
        matvec_before_ms=x and p and p["step_ms"], matvec_step_ms=x and p and x["step_ms"],
        matvec_faster=bool(x and p and x["saved_ms"] > 0),
        matvec_kernels_before=p and p["kernels"], matvec_kernels_after=x and p and x["kernels"],
        matvec_profiled_all=bool(ws and cb and ws["launches"] == far.cublas_projection_launches(d, p["name"])),
        matvec_launches=ws and ws["launches"],
        cublas_launches=far.cublas_projection_launches(d, p["name"]) if p else None,
        cublas_ms=cb and cb["us"] / 1e3, cublas_gbps=cb and cb["gbps"], matvec_ms=ws and ws["us"] / 1e3,
        matvec_gbps=ws and ws["gbps"], matvec_share=ws and ws["share_of_copy"])


def _plain(d: dict[str, Any], over_ms: float | None) -> dict[str, Any]:
    name = far.last_plain(d)
    b = far.breakdown(d, name) if name else None
    ws = far.weight_stream(d, name) if name else None
    kv = d["tuning"]["attention"]["bytes"]
    kv_us = kv / (d["copy"]["gbps"] * 1e3)
    each = b and 1e3 * b["attention_ms"] / max(b["attention_launches"], 1)
    loss = b and b["matvec_ms"] - d["floor_ms"]
    rest = b and b["attention_ms"] + b["other_ms"] + b["idle_ms"] + b["host_ms"]
    owners = b and loss + rest
    return dict(
        has_plain=b is not None, plain_label=name and d["labels"][name], plain_ms=b and b["step_ms"],
        plain_matvec_ms=b and b["matvec_ms"],
        plain_matvec_gbps=ws and ws["gbps"], plain_matvec_share=ws and ws["share_of_copy"],
        plain_attention_ms=b and b["attention_ms"], plain_attention_launches=b and b["attention_launches"],
        plain_attention_us=each, kv_kib=kv / 1024, kv_us=kv_us,
        attention_not_bytes=each is not None and kv_us < BYTES_NEGLIGIBLE * each,
        plain_other_ms=b and b["other_ms"], plain_idle_ms=b and b["idle_ms"], plain_host_ms=b and b["host_ms"],
        plain_busy_over=bool(b and b["busy_over_ms"]), plain_busy_over_ms=b and b["busy_over_ms"],
        plain_matvec_loss_ms=loss, plain_rest_ms=rest, owners_ms=owners,
        owners_cover=owners is not None and over_ms is not None and owners > over_ms)


def _pdl(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("pdl")
    p = by.get(x["prev"]) if x and x["prev"] else None
    att = {n: t["configs"].get("attention") for n, t in d["in_step"].items()}
    return dict(
        has_pdl=p is not None, pdl_used=bool(d.get("pdl_used")), pdl_saved_ms=p and x["saved_ms"],
        pdl_saved_share=p and x["saved_share"], pdl_before_ms=p and p["step_ms"], pdl_ms=p and x["step_ms"],
        pdl_faster=bool(p and x["saved_ms"] > 0), pdl_same_kernels=bool(p and x["kernels"] == p["kernels"]),
        pdl_kernels=x and x["kernels"], pdl_kernels_before=p and p["kernels"],
        pdl_attention_config=_config(att.get("pdl")), before_attention_config=_config(p and att.get(p["name"])))


def _alone(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    lc = d["launch_costs"]
    x = by.get(lc["step"])
    loop = x and x["loop_ms"]
    whole_ms = lc["whole_us"] / 1e3
    argmax = sum(k["us"] for k in far.kernel_rows(d, lc["step"]) if "ArgMax" in k["name"])
    g = next((by[n] for n in d.get("advances", []) if n in by and by[n]["prev"]), None)
    p = g and by[g["prev"]]
    return dict(
        has_alone=loop is not None, alone_label=_strip(d["labels"][lc["step"]]), alone_ms=whole_ms,
        alone_us=lc["whole_us"],
        alone_outside_ms=None if loop is None else loop - whole_ms, alone_loop_ms=loop,
        loop_over_graph=loop is not None and loop > whole_ms, alone_argmax_us=argmax or None,
        alone_has_argmax=bool(argmax),
        has_greedy=g is not None, greedy_kernels=g and g["kernels"],
        greedy_kernels_before=p and p["kernels"], greedy_host_us=g and 1e3 * g["host_ms"],
        greedy_host_us_before=p and 1e3 * p["host_ms"], greedy_loop_ms=g and g["loop_ms"],
        greedy_loop_ms_before=p and p["loop_ms"], greedy_ms=g and g["step_ms"], greedy_ms_before=p and p["step_ms"])


def _tables(d: dict[str, Any]) -> dict[str, Any]:
    last, before = far.kernels_shown(d)
    rows = far.kernel_rows(d, last, before) if last else []
    s = far.step_summary(d, last) if last else None
    mix = d["kernel_mix"].get(last, {}) if last else {}
    calls = {x["call"]: x for x in far.launch_cost_rows(d)}
    chain, mlp = [calls[c] for c in CHAIN], [calls[c] for c in MLP_CALLS if c in calls]
    chain_us, chain_copy = sum(x["us"] for x in chain), sum(x["copy_us"] for x in chain)
    mlp_us, mlp_copy = sum(x["us"] for x in mlp), sum(x["copy_us"] for x in mlp)
    summed = sum(x["total_us"] for x in calls.values())
    over_calls = tuple(c for c, x in calls.items() if x["share"] is not None and x["share"] > 1)
    over_sites = tuple(t["site"] for t in far.tuning_rows(d) if t["share_of_copy"] > 1)
    retune = {}
    for key, step in zip(("plain", "pdl"), RETUNED, strict=True):
        gain = far.in_step_gain(d, step)
        start, end = gain if gain else (None, None)
        retune.update({f"retune_{key}_label": d["labels"][step], f"retune_{key}_alone_us": start,
                       f"retune_{key}_us": end,
                       f"retune_{key}_cut": (start - end) / start if start else None,
                       f"retune_{key}_helped": bool(start and end < start)})
    return dict(
        kernels_label=last and d["labels"][last], kernels_distinct=mix.get("distinct"),
        kernels_copies=mix.get("copies"), has_compared=any(k["us_against"] is not None for k in rows),
        kernels_overlap=bool(s and s["overlapped"]),
        kernels_busy_ms=s and s["busy_ms"], kernels_step_ms=s and s["step_ms"],
        calls_sum_us=summed, calls_over_whole=summed > d["launch_costs"]["whole_us"],
        mlp_us=mlp_us, mlp_copy_us=mlp_copy, mlp_share=mlp_copy / mlp_us, chain_us=chain_us,
        chain_mib=sum(x["bytes"] for x in chain) / 2**20, chain_copy_us=chain_copy, chain_share=chain_copy / chain_us,
        chain_furthest=chain_copy / chain_us < mlp_copy / mlp_us,
        calls_over_copy=over_calls, any_call_over_copy=bool(over_calls),
        sites_over_copy=over_sites, any_site_over_copy=bool(over_sites),
        tune_s=d["tune_s"], attention_one_launch=d["tuning"]["attention"]["best"][1] == 1,
        attention_splits=d["tuning"]["attention"]["best"][1],
        retune_reps=d["in_step_back_to_back"], retune_finalists=d.get("in_step_finalists"),
        retune_final_rounds=d.get("in_step_final_rounds"), retune_has_finalists=bool(d.get("in_step_finalists")),
        retune_positions=(pos := tuple(next(iter(d["in_step"].values()))["positions"])),
        retune_position_first=pos[0], retune_position_last=pos[-1], **retune)


def _waits(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    w = d.get("no_wait")
    if not w:
        return dict(has_no_wait=False, no_wait_label=None, no_wait_with_us=None, no_wait_us=None, waits_us=None,
                    waits_cost=False, waits_gap_share=None, no_wait_floor_share=None, no_wait_gap_us=None,
                    no_wait_step_ms=None, no_wait_step_timed=False, no_wait_meets_goal=False)
    with_us, without_us = statistics.median(w["with_us"]), statistics.median(w["without_us"])
    floor_us = d["floor_ms"] * 1e3
    timed = by.get(w["step"])
    step_ms = None if timed is None else timed["step_ms"] - (with_us - without_us) / 1e3
    return dict(
        has_no_wait=True, no_wait_label=_strip(d["labels"][w["step"]]), no_wait_with_us=with_us,
        no_wait_step_ms=step_ms, no_wait_step_timed=step_ms is not None,
        no_wait_us=without_us, waits_us=with_us - without_us, waits_cost=max(w["without_us"]) < min(w["with_us"]),
        waits_gap_share=(with_us - without_us) / (with_us - floor_us) if with_us > floor_us else None,
        no_wait_floor_share=floor_us / without_us, no_wait_gap_us=without_us - floor_us,
        no_wait_meets_goal=step_ms is not None and step_ms <= GOAL_MS)


def _fit(d: dict[str, Any], goal_share: float) -> dict[str, Any]:
    x = far.layer_fit(d)
    if x is None:
        return dict(has_layer_fit=False, fit_label=None, fit_layers=(), fit_layers_text="", fit_per_layer_us=None,
                    fit_once_us=None,
                    fit_off_line_us=None, layer_mib=None, layer_copy_us=None, layer_share=None, layer_over_us=None,
                    layers_over_us=None, once_mib=None, once_copy_us=None, fit_confidence=far.FIT_CONFIDENCE,
                    once_low_us=None, once_high_us=None, once_side="within", once_off_us=None,
                    layers_gap_share=None, layers_hold_most=False, layer_goal_us=None, layer_goal_cut_us=None,
                    layer_goal_met=False)
    per, once = x["per_layer_us"], x["once_us"]
    layers_over = x["layers"] * (per - x["layer_copy_us"])
    once_over = once - x["once_copy_us"]
    gap = max(layers_over, 0.0) + max(once_over, 0.0)
    share = max(layers_over, 0.0) / gap if gap > 0 else None
    goal_us = x["layer_copy_us"] / goal_share
    return dict(
        has_layer_fit=True, fit_label=_strip(d["labels"][x["step"]]), fit_layers=tuple(r["layers"] for r in x["rows"]),
        fit_layers_text=", ".join(str(r["layers"]) for r in x["rows"]),
        fit_per_layer_us=per, fit_once_us=once, fit_off_line_us=x["off_line_us"],
        layer_mib=x["layer_bytes"] / 2**20, layer_copy_us=x["layer_copy_us"], layer_share=x["layer_copy_us"] / per,
        layer_over_us=per - x["layer_copy_us"], layers_over_us=layers_over, once_mib=x["once_bytes"] / 2**20,
        once_copy_us=x["once_copy_us"], fit_confidence=far.FIT_CONFIDENCE, once_low_us=x["once_low_us"],
        once_high_us=x["once_high_us"],
        once_side="over" if x["once_low_us"] > x["once_copy_us"] else "under" if x["once_high_us"] < x["once_copy_us"]
        else "within", once_off_us=abs(once_over), layers_gap_share=share,
        layers_hold_most=share is not None and share > 0.5, layer_goal_us=goal_us, layer_goal_cut_us=per - goal_us,
        layer_goal_met=per <= goal_us)


def _timeline(d: dict[str, Any]) -> dict[str, Any]:
    x = far.timeline_rows(d)
    rows = [r for r in x["rows"] if r["over_us"] is not None] if x else []
    if not rows:
        return dict(has_timeline=False, timeline_label=None, timeline_position=None, timeline_replays=None,
                    timeline_period_us=None, timeline_chain_us=None, timeline_chain_copy_us=None,
                    timeline_mlp_us=None, timeline_mlp_copy_us=None, timeline_worst=None, timeline_worst_after_us=None,
                    timeline_worst_copy_us=None, timeline_worst_over_us=None, timeline_worst_reads=False,
                    timeline_early=(), timeline_any_early=False)
    chain = [r for r in x["rows"] if r["launch"] in (*CHAIN, "attention_merge")]
    mlp = [r for r in x["rows"] if r["launch"] in MLP_CALLS]
    worst = max(rows, key=lambda r: r["over_us"])
    early = tuple(r["launch"] for r in rows if r["over_us"] < 0)
    return dict(
        has_timeline=True, timeline_label=_strip(d["labels"][x["step"]]), timeline_position=x["position"],
        timeline_replays=x["replays"], timeline_period_us=x["period_us"],
        timeline_chain_us=sum(r["after_us"] for r in chain),
        timeline_chain_copy_us=sum(r["copy_us"] or 0 for r in chain),
        timeline_mlp_us=sum(r["after_us"] for r in mlp), timeline_mlp_copy_us=sum(r["copy_us"] or 0 for r in mlp),
        timeline_worst=worst["launch"], timeline_worst_after_us=worst["after_us"],
        timeline_worst_copy_us=worst["copy_us"], timeline_worst_over_us=worst["over_us"],
        timeline_worst_reads=bool(worst["bytes"]), timeline_early=early, timeline_any_early=bool(early))


def _layer_launches(d: dict[str, Any]) -> int:
    """The dependent launches a layer of the cost step makes: the launches its profiled timeline names
    (ladder.layer_launches: attention's merge too where the slots are split); in a result without the timeline of
    that step, its calls a layer."""
    x, lc = d.get("timeline"), d["launch_costs"]
    if x and x["step"] == lc["step"]:
        return len(x["launches"])
    return sum(c["per"] == "layer" for c in lc["calls"].values())


def _handoff(d: dict[str, Any]) -> dict[str, Any]:
    rows = far.handoff_rows(d)
    launches = _layer_launches(d)
    if not rows:
        return dict(has_handoff=False, handoff_hops=None, handoff_pdl=False, handoff_ordered=False,
                    handoff_programs_low=None, handoff_programs_high=None, launch_low_us=None, launch_high_us=None,
                    barrier_low_us=None, barrier_high_us=None, barrier_always_slower=False, layer_launches=launches,
                    layer_launches_low_us=None, layer_launches_high_us=None)
    lo, hi = min(rows, key=lambda r: r["programs"]), max(rows, key=lambda r: r["programs"])
    return dict(
        has_handoff=True, handoff_hops=d["handoff"]["hops"], handoff_pdl=d["handoff"]["pdl"],
        handoff_ordered=all(r["ordered"] for r in rows), handoff_programs_low=lo["programs"],
        handoff_programs_high=hi["programs"], launch_low_us=lo["launch_us"], launch_high_us=hi["launch_us"],
        barrier_low_us=lo["barrier_us"], barrier_high_us=hi["barrier_us"],
        barrier_always_slower=all(r["barrier_slower"] for r in rows), layer_launches=launches,
        layer_launches_low_us=launches * lo["launch_us"], layer_launches_high_us=launches * hi["launch_us"])


def _ring(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("swiglu_ring")
    p = x and x["prev"] and by.get(x["prev"])
    cfg = d.get("in_step", {}).get("swiglu_ring", {}).get("configs", {}).get("swiglu_ring")
    tun = d["tuning"]
    chk = d.get("ring_check")
    pairs = [(r["variants"][p["name"]]["step_ms"], r["variants"]["swiglu_ring"]["step_ms"]) for r in d["rounds"]
             if p and "swiglu_ring" in r["variants"] and p["name"] in r["variants"]]
    saved = [a - b for a, b in pairs]
    rounds: Ordering = "missing" if not saved else (
        "faster" if min(saved) > 0 else "slower" if max(saved) < 0 else "mixed")
    rows = chk["rows"] if chk else []
    return dict(
        has_ring=bool(x and p and "swiglu_ring" in tun), ring_ms=x and x["step_ms"], ring_before_ms=p and p["step_ms"],
        ring_before_label=_strip(d["labels"][p["name"]]) if p else "",
        ring_saved_us=1e3 * (p["step_ms"] - x["step_ms"]) if x and p else None,
        ring_floor_share=x and x["floor_share"], ring_before_floor_share=p and p["floor_share"], ring_rounds=rounds,
        ring_saved_low_us=1e3 * min(saved) if saved else None, ring_saved_high_us=1e3 * max(saved) if saved else None,
        ring_block_pairs=cfg and cfg[0], ring_blocks_in_flight=cfg and cfg[1], ring_warps=cfg and cfg[2],
        ring_per_sm=chk and chk["programs"] // chk["sms"], ring_kib=chk and chk["ring_bytes"] / 1024,
        ring_alone_us=tun["swiglu_ring"]["us"] if "swiglu_ring" in tun else None, pair_alone_us=tun["swiglu"]["us"],
        ring_alone_faster="swiglu_ring" in tun and tun["swiglu_ring"]["us"] < tun["swiglu"]["us"],
        ring_checked=bool(rows), ring_check_seeds=len(rows),
        ring_identical=bool(rows) and all(r["differ"] == 0 for r in rows),
        ring_differ_max=max(r["differ"] for r in rows) if rows else None, ring_outputs=chk and chk["outputs"],
        ring_abs_max=max((r["max_abs"] for r in rows), default=None) if all(r["max_abs"] is not None for r in rows)
        else None,
        ring_finite=bool(rows) and all(r["nonfinite"] == 0 for r in rows))


def _against(d: dict[str, Any], name: str, before: str) -> dict[str, Any]:
    """Step `name` against the step before it, round by round (stats.paired over the rounds that timed both): the
    verdict, the median saving (before less this one) with its interval in µs, the rounds it was faster in, and the
    rounds."""
    both = [r["variants"] for r in d["rounds"] if name in r["variants"] and before in r["variants"]]
    cmp = paired([v[name]["step_ms"] for v in both], [v[before]["step_ms"] for v in both]) if both else None
    if not cmp:
        return {"verdict": "missing", "saved": None, "low": None, "high": None, "faster": 0, "n": 0}
    return {"verdict": {"ahead": "faster", "behind": "slower", "level": "level"}[cmp["verdict"]],
            "saved": -1e3 * cmp["median"], "low": -1e3 * cmp["high"], "high": -1e3 * cmp["low"],
            "faster": cmp["faster"], "n": cmp["n"]}


def _few(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("few_o")
    p = x and x["prev"] and by.get(x["prev"])
    site = d.get("in_step", {}).get("few_o", {}).get("sites", {}).get("o_few")
    if not (x and p and site and "o_few" in d["tuning"]):
        return dict(has_few=False, few_ms=None, few_before_ms=None, few_before_label="", few_floor_share=None,
                    few_before_floor_share=None, few_verdict="missing", few_saved_us=None, few_saved_low_us=None,
                    few_saved_high_us=None, few_faster_rounds=0, few_rounds_n=0,
                    few_rows=None, few_programs=None, few_before_known=False, few_before_rows=None,
                    few_before_programs=None,
                    few_candidates=None, few_rows_fewest=None, few_rows_most=None, o_rows_low=None, o_rows_high=None,
                    few_is_best=False)
    vs = _against(d, "few_o", p["name"])
    rows = math.isqrt(d["tuning"]["o"]["bytes"] // 2)  # W_o is (hidden, heads x head size) = (hidden, hidden), 2 B
    before = d.get("in_step", {}).get(p["name"], {}).get("configs", {}).get("o")
    best = far.best_passed(d)
    return dict(
        has_few=True, few_ms=x["step_ms"], few_before_ms=p["step_ms"], few_before_label=_strip(d["labels"][p["name"]]),
        few_floor_share=x["floor_share"], few_before_floor_share=p["floor_share"], few_verdict=vs["verdict"],
        few_saved_us=vs["saved"], few_saved_low_us=vs["low"], few_saved_high_us=vs["high"],
        few_faster_rounds=vs["faster"], few_rounds_n=vs["n"], few_rows=site["best"][0],
        few_programs=-(-rows // site["best"][0]), few_before_known=before is not None,
        few_before_rows=before and before[0],
        few_before_programs=before and -(-rows // before[0]), few_candidates=len(site["candidates"]),
        few_rows_fewest=min(c["config"][0] for c in site["candidates"]),
        few_rows_most=max(c["config"][0] for c in site["candidates"]),
        o_rows_low=min(c["config"][0] for c in d["tuning"]["o"]["candidates"]),
        o_rows_high=max(c["config"][0] for c in d["tuning"]["o"]["candidates"]),
        few_is_best=bool(best and best["name"] == "few_o"))


def _down(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("down_ring")
    p = x and x["prev"] and by.get(x["prev"])
    site = d.get("in_step", {}).get("down_ring", {}).get("sites", {}).get("down_ring")
    chk = d.get("down_check")
    rows = chk["rows"] if chk else []
    check = dict(
        down_checked=bool(rows), down_check_seeds=len(rows), down_identical=bool(rows) and all(
            r["differ"] == 0 for r in rows), down_differ_max=max(r["differ"] for r in rows) if rows else None,
        down_outputs=chk and chk["outputs"],
        down_abs_max=max((r["max_abs"] for r in rows), default=None) if all(r["max_abs"] is not None for r in rows)
        else None,
        down_finite=bool(rows) and all(r["nonfinite"] == 0 for r in rows), down_programs=chk and chk["programs"],
        down_in_flight_mib=chk and min(chk["programs"] * chk["ring_bytes"], d["tuning"]["down"]["bytes"]) / 2**20,
        down_weight_mib=d["tuning"]["down"]["bytes"] / 2**20)
    if not (x and p and site and "down_ring" in d["tuning"]):
        return dict(has_down=False, down_ms=None, down_before_ms=None, down_before_label="", down_floor_share=None,
                    down_before_floor_share=None, down_verdict="missing", down_saved_us=None,
                    down_saved_low_us=None, down_saved_high_us=None, down_faster_rounds=0, down_rounds_n=0,
                    down_rows_in_flight=None, down_warps=None, down_per_sm=None, down_candidates=None,
                    down_alone_us=None, down_matvec_alone_us=None, down_alone_faster=False, down_is_best=False,
                    **check)
    vs = _against(d, "down_ring", p["name"])
    best = far.best_passed(d)
    alone, mv = d["tuning"]["down_ring"]["us"], d["tuning"]["down"]["us"]
    return dict(
        has_down=True, down_ms=x["step_ms"], down_before_ms=p["step_ms"],
        down_before_label=_strip(d["labels"][p["name"]]), down_floor_share=x["floor_share"],
        down_before_floor_share=p["floor_share"], down_verdict=vs["verdict"], down_saved_us=vs["saved"],
        down_saved_low_us=vs["low"], down_saved_high_us=vs["high"], down_faster_rounds=vs["faster"],
        down_rounds_n=vs["n"],
        down_rows_in_flight=site["best"][0], down_warps=site["best"][1], down_per_sm=site["best"][2],
        down_candidates=len(site["candidates"]), down_alone_us=alone, down_matvec_alone_us=mv,
        down_alone_faster=alone < mv, down_is_best=bool(best and best["name"] == "down_ring"), **check)


def _fastest(d: dict[str, Any], s: dict[str, dict[str, Any]], best: dict[str, Any] | None) -> tuple[str, ...]:
    """The page's "the fastest step": the fastest that passed its check, and every other step that passed and is not
    slower than it by the rounds (the interval of the paired median difference reaches zero, or lies below it)."""
    if best is None:
        return ()
    level = [n for n, x in s.items() if x["passed"] and (n == best["name"] or _against(d, n, best["name"])["verdict"]
                                                          in ("faster", "level"))]
    return tuple(_strip(d["labels"].get(n, n)) for n in level)


def _stand(rows: list[dict[str, Any]], tbps: float) -> Stand:
    """This run's rows of one kind (one per run of the current code) against a published TB/s: ahead if even the
    slowest round of every run reads faster, behind if even the fastest reads slower, else level."""
    if not rows:
        return "missing"
    low, high = min(r["tbps_low"] for r in rows), max(r["tbps_high"] for r in rows)
    return "ahead" if low > tbps else "behind" if high < tbps else "level"


def _anchors(d: dict[str, Any], gpu: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    rows = far.anchor_rows(d)
    every = [r for x in runs for r in far.anchor_rows(x)]  # each run's rows: its own fastest correct step
    pub = sorted((r for r in rows if r["kind"] == "published mean"), key=lambda r: -r["tbps"])
    fast, slow = pub[0], pub[-1]
    published = {a.label: a for a in anchors.ANCHORS}
    sync = next((r for r in rows if r["kind"] == "synchronised"), None)
    loop = next((r for r in rows if r["kind"] == "back to back"), None)
    syncs, loops = ([r for r in every if r["kind"] == k] for k in ("synchronised", "back to back"))
    fit = far.layer_fit(d)
    goal_tbps = d["weight_bytes"] / (GOAL_MS * 1e9)
    return dict(
        has_anchors=sync is not None, anchors_same_gpu=anchors.GPU in gpu, anchor_runs=len(runs),
        anchor_many_runs=len(runs) > 1,
        anchor_model=anchors.MODEL, anchor_gpu=anchors.GPU, anchor_repo=anchors.REPO, anchor_path=anchors.PATH,
        anchor_commit=anchors.COMMIT,
        anchor_url=f"https://github.com/{anchors.REPO}/blob/{anchors.COMMIT}/{anchors.PATH}",
        anchor_steps=anchors.TIMED_STEPS, anchor_gb=fast["weight_gb"],
        anchor_layers=anchors.LLAMA32_1B["num_hidden_layers"], anchor_layer_mb=anchors.llama_layer_bytes() / 1e6,
        our_layers=fit and fit["layers"], our_layer_mb=fit and fit["layer_bytes"] / 1e6,
        anchor_fewer_layers=bool(fit) and anchors.LLAMA32_1B["num_hidden_layers"] < fit["layers"],
        anchor_fast_label=fast["who"], anchor_fast_tbps=fast["tbps"], anchor_fast_share=fast["copy_share"],
        anchor_slow_label=slow["who"], anchor_slow_tbps=slow["tbps"], anchor_slow_share=slow["copy_share"],
        anchor_fast_built_for=published[fast["who"]].built_for,
        anchor_fast_fidelity=published[fast["who"]].fidelity_passed,
        anchor_slow_fidelity=published[slow["who"]].fidelity_passed,
        ours_tbps=sync and sync["tbps"], ours_share=sync and sync["copy_share"],
        ours_loop_tbps=loop and loop["tbps"], ours_loop_share=loop and loop["copy_share"],
        sync_vs_fast=_stand(syncs, fast["tbps"]) if sync else "missing",
        sync_vs_slow=_stand(syncs, slow["tbps"]) if sync else "missing",
        loop_vs_fast=_stand(loops, fast["tbps"]) if loop else "missing",
        loop_vs_slow=_stand(loops, slow["tbps"]) if loop else "missing",
        goal_tbps=goal_tbps, goal_over_fast=goal_tbps / fast["tbps"])


def from_data(far_data: dict[str, Any], six: dict[str, Any], laptop_six: dict[str, Any], launch: dict[str, Any],
              read_gbps: float, gpu: str, runs: list[dict[str, Any]] | None = None) -> Facts:
    """far_data: decode_far.ladder; six: decode.six_ways on the same machine; laptop_six: the article's
    decode.six_ways record; launch: machine.ceilings' launch figures; read_gbps: machine.ceilings' read-only
    bandwidth; runs: every run of the current code of decode_far.ladder (default: far_data alone), which the verdicts
    against the published steps must hold in."""
    d = far_data
    s = far.summaries(d)
    rows = far.waterfall(d)
    by = {x["name"]: x for x in rows}
    base, last = far.baseline(d), far.final(d)
    last_name = d["steps"][-1]
    prev = by.get(last_name, {}).get("prev")
    prev_s = s.get(prev) if prev else None
    best = far.best_passed(d)
    q = d["quiet"]
    tun = d["tuning"]
    fold = tun.get("attention_o")
    pair = tun["attention"]["us"] + tun["o"]["us"]
    figs = q["figures"]
    step_noise = [f["step_ms"]["noise_pct"] for f in figs.values() if "step_ms" in f]
    loop_noise = [f["loop_ms"]["noise_pct"] for f in figs.values() if "loop_ms" in f]
    missing = [n for n in (d["baseline"], *d["steps"]) if n not in s]
    g = far.goal(d, GOAL_MS)
    return Facts(
        gpu=gpu, confidence=CONFIDENCE, **_start(six, laptop_six),
        goal_ms=GOAL_MS, goal_floor_share=g["floor_share_needed"], goal=_verdict(last, g["ms"], GOAL_MS),
        goal_over_ms=g["over_ms"], goal_over_share=None if g["over_ms"] is None else g["over_ms"] / GOAL_MS,
        loop_goal=_verdict(last, g["loop_ms"], GOAL_MS),
        complete=not missing and not d.get("build_errors"),
        unbuilt=tuple(d["labels"].get(n, n) for n in dict.fromkeys([*missing, *d.get("build_errors", {})])),
        changes=len(d["steps"]),
        base_ms=base and base["step_ms"], base_kernels=base and base["kernels"],
        last_label=_strip(d["labels"].get(last_name, last_name)), last_ms=last and last["step_ms"],
        last_loop_ms=last and last["loop_ms"], last_kernels=last and last["kernels"],
        last_floor_share=last and last["floor_share"],
        speedup=base["step_ms"] / last["step_ms"] if base and last else None,
        last_slower=bool(last and prev_s and last["step_ms"] > prev_s["step_ms"]),
        last_slower_every_round=bool(last and prev_s) and all(
            r["variants"][last_name]["step_ms"] > r["variants"][prev]["step_ms"] for r in d["rounds"]
            if last_name in r["variants"] and prev in r["variants"]),
        last_is_fold=last_name == "attention_o",
        last_prev_label=_strip(d["labels"].get(prev, "")) if prev else "", last_prev_ms=prev_s and prev_s["step_ms"],
        last_cost_ms=last["step_ms"] - prev_s["step_ms"] if last and prev_s else None,
        last_is_best=bool(last and best and best["name"] == last_name),
        has_best=best is not None, best_label=_strip(d["labels"][best["name"]]) if best else "",
        best_ms=best and best["step_ms"],
        best_floor_share=best and best["floor_share"], best_loop_ms=best and best["loop_ms"],
        best_kernels=best and best["kernels"],
        best_speedup=base["step_ms"] / best["step_ms"] if base and best else None,
        best_read_share=best and d["weight_bytes"] / (read_gbps * 1e6) / best["step_ms"], fastest=_fastest(d, s, best),
        fusing_saved_ms=(fusing := sum(x["saved_ms"] for x in rows if _strip(x["label"]) in FUSING_STEPS
                                       and x["saved_ms"] is not None)),
        fusing_gain_share=fusing / (base["step_ms"] - best["step_ms"]) if base and best
        and base["step_ms"] > best["step_ms"] else None,
        has_fold=fold is not None, fold_us=fold and fold["us"], fold_rows=fold and fold["best"][0],
        pair_us=pair if fold else None, fold_alone_slower=bool(fold and fold["us"] > pair),
        rounds_quiet=q["stopped"] == "quiet", rounds_min=q["min_rounds"], rounds_cap_s=q["cap_s"],
        rounds_bound_pct=q["bound_pct"],
        step_noisy_count=sum(not f["step_ms"]["quiet"] for f in figs.values() if "step_ms" in f),
        step_noise_high=max(step_noise), loop_all_quiet=all(f["loop_ms"]["quiet"] for f in figs.values()
                                                            if "loop_ms" in f),
        loop_noise_high=max(loop_noise) if loop_noise else 0.0,
        round_trip_ms=last["step_ms"] - last["loop_ms"] if last and last["loop_ms"] is not None else None,
        round_trip_shows=bool(last and last["loop_ms"] is not None and last["step_ms"] > last["loop_ms"]),
        weight_gb=d["weight_bytes"] / 1e9, copy_gbps=d["copy"]["gbps"], copy_gib=d["copy"]["bytes_moved"] / 2 / 2**30,
        floor_ms=d["floor_ms"], read_gbps=read_gbps, read_floor_ms=d["weight_bytes"] / (read_gbps * 1e6),
        lm_head_gbps=tun["lm_head"]["gbps"], lm_head_copy_share=tun["lm_head"]["gbps"] / d["copy"]["gbps"],
        lm_head_read_share=tun["lm_head"]["gbps"] / read_gbps,
        rounds_n=d["rounds_n"], loop_steps=d["loop_steps"],
        delta_ms=(delta := {n: None if by.get(n, {}).get("saved_ms") is None else -by[n]["saved_ms"]
                           for n in (d["baseline"], *d["steps"])}),
        delta_own_ms=delta.get("own"), delta_fused_proj_ms=delta.get("fused_proj"),
        delta_filled_attention_ms=delta.get("filled_attention"),
        **{f"{n}_ms": s[n]["step_ms"] if n in s else None for n in ("own", "fused_proj", "filled_attention")},
        **_checks(d, s, six), **_savings(rows, launch), **_matvec(d, by), **_plain(d, g["over_ms"]), **_pdl(d, by),
        **_alone(d, by), **_tables(d), **_waits(d, by), **_fit(d, g["floor_share_needed"]),
        **_timeline(d), **_handoff(d), **_ring(d, by), **_few(d, by), **_down(d, by), **_anchors(d, gpu, runs or [d]))


def facts(machine: str | None = None) -> Facts:
    r = page.result("decode_far.ladder", machine)
    ceilings = page.result("machine.ceilings", machine).data
    return from_data(r.data, page.result("decode.six_ways", machine).data, page.result("decode.six_ways", LAPTOP).data,
                     ceilings["launch"], ceilings["bandwidth"]["read"]["gbps"], page.machine_label(r),
                     [x.data for x in page.fresh_runs("decode_far.ladder", machine)])


# how each figure reads on every page (kernelbook.macros); counts (ints) read with thousands separators, words as
# themselves. index.md and takeaways.md read best_ms, best_floor_share and laptop_dram_gbps too.
FORMATS = {
    **dict.fromkeys(("goal_ms", "base_ms", "six_rest_ms", "first_saved_ms", "second_saved_ms", "matvec_saved_ms",
                     "first_before_ms", "first_after_ms", "second_before_ms", "second_after_ms", "matvec_before_ms",
                     "matvec_step_ms", "own_ms", "fused_proj_ms", "filled_attention_ms",
                     "plain_ms", "kernels_busy_ms", "kernels_step_ms", "kv_us", "fit_per_layer_us", "layer_copy_us",
                     "layer_goal_us", "layer_goal_cut_us", "ring_alone_us", "pair_alone_us", "down_alone_us",
                     "down_matvec_alone_us", "fold_us", "pair_us", "launch_low_us", "launch_high_us",
                     "barrier_low_us", "barrier_high_us", "timeline_period_us", "ours_tbps", "ours_loop_tbps",
                     "anchor_fast_tbps", "anchor_slow_tbps", "goal_tbps", "loop_noise_high"), "num:2"),
    **dict.fromkeys(("last_ms", "last_loop_ms", "last_prev_ms", "last_cost_ms", "best_ms", "weight_gb", "floor_ms",
                     "read_floor_ms", "goal_over_ms", "cublas_ms", "matvec_ms", "plain_matvec_ms", "plain_attention_ms",
                     "plain_other_ms", "plain_idle_ms", "plain_host_ms", "plain_matvec_loss_ms", "plain_rest_ms",
                     "owners_ms", "pdl_saved_ms", "round_trip_ms", "alone_ms", "alone_outside_ms", "alone_loop_ms",
                     "pdl_before_ms", "pdl_ms", "greedy_loop_ms",
                     "greedy_loop_ms_before", "greedy_ms", "greedy_ms_before", "ring_ms", "ring_before_ms", "few_ms",
                     "few_before_ms", "down_ms", "down_before_ms", "no_wait_step_ms", "band", "gap_median"), "num:3"),
    **dict.fromkeys(("laptop_rest_ms", "step_noise_high", "rounds_bound_pct", "first_us_per_kernel",
                     "second_us_per_kernel", "per_kernel_ratio", "plain_attention_us", "greedy_host_us",
                     "greedy_host_us_before", "ring_saved_us", "ring_saved_low_us", "ring_saved_high_us",
                     "few_saved_us", "few_saved_low_us", "few_saved_high_us", "down_saved_us", "down_saved_low_us",
                     "down_saved_high_us", "down_weight_mib", "down_in_flight_mib", "retune_plain_alone_us",
                     "retune_plain_us", "retune_pdl_alone_us", "retune_pdl_us", "alone_us", "calls_sum_us", "mlp_us",
                     "mlp_copy_us", "chain_us", "chain_mib", "chain_copy_us", "no_wait_us", "no_wait_with_us",
                     "waits_us", "no_wait_gap_us", "fit_off_line_us", "layer_mib", "fit_once_us", "once_mib",
                     "once_copy_us", "once_low_us", "once_high_us", "once_off_us", "timeline_chain_us",
                     "timeline_chain_copy_us", "timeline_mlp_us", "timeline_mlp_copy_us", "timeline_worst_after_us",
                     "timeline_worst_copy_us", "timeline_worst_over_us", "layer_launches_low_us",
                     "layer_launches_high_us", "layer_over_us", "laptop_dram_gbps"), "num:1"),
    **dict.fromkeys(("floor_ratio", "copy_gbps", "rounds_cap_s", "cublas_gbps", "matvec_gbps", "plain_matvec_gbps",
                     "kv_kib", "ring_kib", "copy_gib", "tune_s", "tol_factor", "layers_over_us", "anchor_layer_mb",
                     "our_layer_mb"), "num:0"),
    **dict.fromkeys(("read_gbps", "lm_head_gbps"), "num:0"),
    **dict.fromkeys(("lm_head_copy_share", "lm_head_read_share", "best_read_share"), "pct:0"),
    **dict.fromkeys(("last_floor_share", "best_floor_share", "laptop_same_floor_share", "matvec_share",
                     "plain_matvec_share", "confidence", "worst_of_tolerance", "mlp_share", "chain_share",
                     "waits_gap_share", "no_wait_floor_share", "layer_share", "fit_confidence", "layers_gap_share"),
                    "pct:0"),
    **dict.fromkeys(("goal_floor_share", "goal_over_share", "pdl_saved_share", "retune_plain_cut", "retune_pdl_cut",
                     "ring_floor_share", "ring_before_floor_share", "few_floor_share", "few_before_floor_share",
                     "down_floor_share", "down_before_floor_share"), "pct:1"),
    **dict.fromkeys(("fp32_rel_err", "tolerance", "worst_rel_err"), "pct:2"),
    **dict.fromkeys(("delta_own_ms", "delta_fused_proj_ms", "delta_filled_attention_ms"), "signed:2"),
    "speedup": "times:1", "best_speedup": "times:1", "goal_over_fast": "times:2", "ring_abs_max": "num:4",
}


def _less(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _over(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def derive(f: Facts) -> dict[str, Any]:
    """The ratios, differences and sums the page prints beside their figures, computed again from the medians shown,
    so that each reads as the figures next to it give."""
    first, second = f.first_before_ms - f.first_after_ms, f.second_before_ms - f.second_after_ms
    per = [_over(None if s is None else 1e3 * s, c) for s, c in (
        (first, f.first_kernels_before - f.first_kernels_after),
        (second, f.second_kernels_before - f.second_kernels_after))]
    pdl = _less(f.pdl_before_ms, f.pdl_ms)
    alone_ms = f.alone_us / 1e3
    floor_us = 1e3 * f.floor_ms
    loss = _less(f.plain_matvec_ms, f.floor_ms)
    rest = (None if f.plain_attention_ms is None else
            f.plain_attention_ms + f.plain_other_ms + f.plain_idle_ms + f.plain_host_ms)
    waits = _less(f.no_wait_with_us, f.no_wait_us)
    over = _less(f.last_ms, f.goal_ms)
    return dict(
        first_saved_ms=first, second_saved_ms=second, delta_own_ms=_less(f.own_ms, f.base_ms),
        delta_fused_proj_ms=_less(f.fused_proj_ms, f.own_ms),
        delta_filled_attention_ms=_less(f.filled_attention_ms, f.fused_proj_ms),
        matvec_saved_ms=_less(f.matvec_before_ms, f.matvec_step_ms), pdl_saved_ms=pdl,
        pdl_saved_share=_over(pdl, f.pdl_before_ms), alone_ms=alone_ms,
        alone_outside_ms=_less(f.alone_loop_ms, alone_ms),
        speedup=_over(f.base_ms, f.last_ms), last_floor_share=_over(f.floor_ms, f.last_ms),
        goal_floor_share=f.floor_ms / f.goal_ms, goal_over_ms=over, goal_over_share=_over(over, f.goal_ms),
        last_cost_ms=_less(f.last_ms, f.last_prev_ms), best_floor_share=_over(f.floor_ms, f.best_ms),
        best_speedup=_over(f.base_ms, f.best_ms), read_floor_ms=1e3 * f.weight_gb / f.read_gbps,
        best_read_share=_over(1e3 * f.weight_gb / f.read_gbps, f.best_ms),
        lm_head_copy_share=f.lm_head_gbps / f.copy_gbps, lm_head_read_share=f.lm_head_gbps / f.read_gbps,
        round_trip_ms=_less(f.last_ms, f.last_loop_ms),
        first_us_per_kernel=per[0], second_us_per_kernel=per[1],
        per_kernel_ratio=None if None in per else min(per) / f.graph_us_per_launch,
        plain_matvec_loss_ms=loss, plain_rest_ms=rest, owners_ms=None if loss is None or rest is None else loss + rest,
        ring_saved_us=None if f.ring_ms is None or f.ring_before_ms is None else 1e3 * (f.ring_before_ms - f.ring_ms),
        mlp_share=f.mlp_copy_us / f.mlp_us, chain_share=f.chain_copy_us / f.chain_us,
        waits_us=waits, waits_gap_share=None if waits is None else _over(waits, f.no_wait_with_us - floor_us),
        no_wait_floor_share=_over(floor_us, f.no_wait_us), no_wait_gap_us=_less(f.no_wait_us, floor_us),
        layer_share=_over(f.layer_copy_us, f.fit_per_layer_us),
        layer_over_us=_less(f.fit_per_layer_us, f.layer_copy_us),
        layer_goal_cut_us=_less(f.fit_per_layer_us, f.layer_goal_us),
        layer_launches_low_us=None if f.launch_low_us is None else f.layer_launches * f.launch_low_us,
        layer_launches_high_us=None if f.launch_high_us is None else f.layer_launches * f.launch_high_us,
        goal_over_fast=f.goal_tbps / f.anchor_fast_tbps)


DERIVED_FROM = {
    "first_saved_ms": ("first_before_ms", "first_after_ms"), "second_saved_ms": ("second_before_ms", "second_after_ms"),
    "delta_own_ms": ("own_ms", "base_ms"), "delta_fused_proj_ms": ("fused_proj_ms", "own_ms"),
    "delta_filled_attention_ms": ("filled_attention_ms", "fused_proj_ms"),
    "matvec_saved_ms": ("matvec_before_ms", "matvec_step_ms"), "pdl_saved_ms": ("pdl_before_ms", "pdl_ms"),
    "pdl_saved_share": ("pdl_saved_ms", "pdl_before_ms"), "alone_ms": ("alone_us",),
    "alone_outside_ms": ("alone_loop_ms", "alone_ms"),
    "speedup": ("base_ms", "last_ms"), "last_floor_share": ("floor_ms", "last_ms"),
    "goal_floor_share": ("floor_ms", "goal_ms"), "goal_over_ms": ("last_ms", "goal_ms"),
    "goal_over_share": ("goal_over_ms", "goal_ms"), "last_cost_ms": ("last_ms", "last_prev_ms"),
    "best_floor_share": ("floor_ms", "best_ms"), "round_trip_ms": ("last_ms", "last_loop_ms"),
    "best_speedup": ("base_ms", "best_ms"), "read_floor_ms": ("weight_gb", "read_gbps"),
    "best_read_share": ("read_floor_ms", "best_ms"), "lm_head_copy_share": ("lm_head_gbps", "copy_gbps"),
    "lm_head_read_share": ("lm_head_gbps", "read_gbps"),
    "first_us_per_kernel": ("first_saved_ms", "first_kernels_before", "first_kernels_after"),
    "second_us_per_kernel": ("second_saved_ms", "second_kernels_before", "second_kernels_after"),
    "per_kernel_ratio": ("first_us_per_kernel", "second_us_per_kernel", "machine.graph_us"),
    "plain_matvec_loss_ms": ("plain_matvec_ms", "floor_ms"),
    "plain_rest_ms": ("plain_attention_ms", "plain_other_ms", "plain_idle_ms", "plain_host_ms"),
    "owners_ms": ("plain_matvec_loss_ms", "plain_rest_ms"), "ring_saved_us": ("ring_before_ms", "ring_ms"),
    "mlp_share": ("mlp_copy_us", "mlp_us"), "chain_share": ("chain_copy_us", "chain_us"),
    "waits_us": ("no_wait_with_us", "no_wait_us"), "waits_gap_share": ("waits_us", "no_wait_with_us", "floor_ms"),
    "no_wait_floor_share": ("floor_ms", "no_wait_us"), "no_wait_gap_us": ("no_wait_us", "floor_ms"),
    "layer_share": ("layer_copy_us", "fit_per_layer_us"), "layer_over_us": ("fit_per_layer_us", "layer_copy_us"),
    "layer_goal_cut_us": ("fit_per_layer_us", "layer_goal_us"),
    "layer_launches_low_us": ("layer_launches", "launch_low_us"),
    "layer_launches_high_us": ("layer_launches", "launch_high_us"), "goal_over_fast": ("goal_tbps", "anchor_fast_tbps"),
}

# the ends of the rounds' savings and of their intervals: over every run, the least and the most (kernelbook.factbook),
# so that "faster in every round" or "clear of zero" holds in every run, not in the median one
EXTREMES = {f"{step}_saved_{end}_us": fn for step in ("ring", "few", "down")
            for end, fn in (("low", min), ("high", max))}

def _ms(x: float | None) -> str:
    return page.num(x, 3)


def _us(x: float | None, digits: int = 1) -> str:
    return page.num(x, digits)


def _q(label: str | None) -> str:
    return f"“{_strip(label or '')}”"


def _names(xs: tuple[str, ...]) -> str:
    return " and ".join(xs) if xs else "none"


def _not_fastest(what: str, label: Callable[[Facts], str | None]) -> Callable[[Facts], str]:
    """Where a step the page calls "the fastest" is slower by the rounds than the fastest that passed its check."""
    return lambda f: (f"{what} {_q(label(f))}, slower by the rounds than the fastest "
                      f"step that passed its check, {_q(f.best_label)} at {_ms(f.best_ms)} ms (level with it: "
                      f"{_names(tuple(_q(x) for x in f.fastest))})")


def _saved(name: str, x: float | None, low: float | None, high: float | None, clear: bool = False) -> str:
    """A step against the one before it, round by round: the median saving and its interval (`clear`: the page says
    the interval clears zero)."""
    side = "faster" if x is not None and x > 0 else "slower"
    reach = ", which reaches zero" if clear and low is not None and low <= 0 else ""
    return (f"paired round by round, {name} was {_us(None if x is None else abs(x))} µs {side} at the median "
            f"({_us(low)} to {_us(high)} µs saved over the rounds' interval{reach})")


def _stand_words(stand: str) -> str:
    return {"ahead": "ahead of", "behind": "behind", "level": "level with"}.get(stand, "not set against")


GUARDS = {  # what the page's sentences rest on (kernelbook.guards), one clause each; each tested both ways in tests/
    # the result
    "best_faster": Guard(
        "the fastest step that passed its check was faster than the plain graph",
        lambda f: f.best_speedup > 1, states=("faster than that graph",),
        found=lambda f: f"the fastest step that passed its check took {_ms(f.best_ms)} ms, the plain graph "
                        f"{_ms(f.base_ms)} ms",
        absent=(lambda f: f.best_ms is None, "no step passed its check")),
    "best_fewer_kernels": Guard(
        "the fastest step that passed its check ran fewer kernels than the plain graph",
        lambda f: f.best_kernels < f.base_kernels, states=("kernels instead of",),
        found=lambda f: f"the fastest step that passed its check ran {f.best_kernels} kernels, the plain graph "
                        f"{f.base_kernels}"),
    "fusing_most": Guard(
        "the two fusing steps together saved more than half of what the fastest step gained on the plain graph",
        lambda f: f.fusing_gain_share > 0.5, states=("bought most of the gain",),
        found=lambda f: f"the two fusing steps saved {_ms(f.fusing_saved_ms)} ms of the "
                        f"{_ms(None if f.best_ms is None else f.base_ms - f.best_ms)} ms gained "
                        f"({page.pct(f.fusing_gain_share)})"),
    "layers_hold_most": Guard(
        "the layers hold more than half of the step's distance from the floor, the once-a-step part the rest",
        lambda f: f.layers_gap_share > 0.5,
        states=(("What is left sits in each layer's", "The distance left to the floor is in the launches between"),),
        found=lambda f: f"the layers hold {page.pct(f.layers_gap_share)} of the step's distance from the floor",
        absent=(lambda f: not f.has_layer_fit, "the step was not built over fewer layers")),
    "attention_further": Guard(
        "a layer's attention half runs further from its bytes' copy time than its MLP",
        lambda f: f.chain_share < f.mlp_share,
        states=(("sits in each layer's attention half", "further from its bytes", "above all in the attention half"),),
        found=lambda f: f"a layer's attention half ran at {page.pct(f.chain_share)} of its bytes' copy speed, its MLP "
                        f"at {page.pct(f.mlp_share)}"),
    "mlp_at_copy": Guard(
        "the MLP's calls cost about their bytes' copy time, within a tenth",
        lambda f: abs(f.mlp_share - 1) <= NEAR_COPY,
        states=(("the MLP streams its weights at about the copy speed",
                 "stream their weights at about the copy speed"),),
        found=lambda f: f"the MLP's calls cost {_us(f.mlp_us)} µs for {_us(f.mlp_copy_us)} µs of bytes at copy speed "
                        f"({page.pct(f.mlp_share)} of it)"),
    # where the page starts
    "six_mostly_overhead": Guard(
        "the decode chapter's fastest step reached under half of the floor's speed",
        lambda f: f.six_best_floor_share < 0.5, states=("so most of the step was overhead",),
        found=lambda f: f"the decode chapter's best step took {_ms(f.six_best_ms)} ms against a floor of "
                        f"{_ms(f.six_floor_ms)} ms, {page.pct(f.six_best_floor_share)} of the floor's speed",
        absent=(lambda f: not f.six_has_best, "no variant of the decode chapter passed its check")),
    "laptop_closer": Guard(
        "the laptop's best step came closer to its floor than this GPU's best to its own",
        lambda f: f.laptop_best_floor_share > f.six_best_floor_share, states=("came closer to its own floor",),
        found=lambda f: f"the laptop's best step reached {page.pct(f.laptop_best_floor_share)} of its floor's speed, "
                        f"this GPU's {page.pct(f.six_best_floor_share)}"),
    "floor_shorter": Guard(
        "this GPU's floor is shorter than the laptop's", lambda f: f.floor_ratio > 1, states=("times shorter",),
        found=lambda f: f"this GPU's floor is {_ms(f.six_floor_ms)} ms, the laptop's {_ms(f.laptop_floor_ms)} ms"),
    "rest_longer": Guard(
        "this GPU's best step spent longer above its floor than the laptop's best",
        lambda f: f.six_rest_ms > f.laptop_rest_ms, states=("spent longer above it",),
        found=lambda f: f"this GPU's best step spent {_ms(f.six_rest_ms)} ms above its floor, the laptop's "
                        f"{_ms(f.laptop_rest_ms)} ms"),
    # two floors
    "read_faster": Guard(
        "the read-only pass ran faster than the copy, so its floor is the shorter",
        lambda f: f.read_gbps > f.copy_gbps, states=("a shorter floor",),
        found=lambda f: f"the read-only pass reached {page.num(f.read_gbps, 0)} GB/s, the copy "
                        f"{page.num(f.copy_gbps, 0)} GB/s"),
    "lm_past_copy": Guard(
        "the LM head's projection, tuned alone, read faster than the copy", lambda f: f.lm_head_copy_share > 1,
        states=("Neither pass is a hard limit",),
        found=lambda f: f"the LM head's projection, tuned alone, read at {page.pct(f.lm_head_copy_share)} of the "
                        f"copy's speed ({page.num(f.lm_head_gbps, 0)} against {page.num(f.copy_gbps, 0)} GB/s)"),
    "lm_past_read": Guard(
        "the LM head's projection, tuned alone, read faster than the read-only pass",
        lambda f: f.lm_head_read_share > 1, states=("Neither pass is a hard limit",),
        found=lambda f: f"the LM head's projection, tuned alone, read at {page.pct(f.lm_head_read_share)} of the "
                        f"read-only pass's speed ({page.num(f.lm_head_gbps, 0)} against "
                        f"{page.num(f.read_gbps, 0)} GB/s), so the read was a limit for it"),
    # what the steps bought
    "fusing_largest": Guard(
        "the two largest savings came from the two fusing steps, the one into the matvecs first",
        lambda f: (_strip(f.first_label), _strip(f.second_label)) == FUSING_STEPS[::-1],
        states=("The two largest savings came from fusing",),
        found=lambda f: f"the two largest savings came from {_q(f.first_label)} ({_ms(f.first_saved_ms)} ms) and "
                        f"{_q(f.second_label)} ({_ms(f.second_saved_ms)} ms)"),
    "top_cut_kernels": Guard(
        "both of the two largest savings removed kernels", lambda f: f.top_cut_kernels,
        states=("per kernel removed",),
        found=lambda f: f"{_q(f.first_label)} went from {f.first_kernels_before} to {f.first_kernels_after} kernels "
                        f"and {_q(f.second_label)} from {f.second_kernels_before} to {f.second_kernels_after}"),
    "kernel_costs_more": Guard(
        "each kernel the two largest savings removed cost more than a kernel launched from a graph",
        lambda f: f.per_kernel_ratio > 1, states=(("times its launch", "count launches before bytes"),),
        found=lambda f: f"the two largest savings came to {_us(f.first_us_per_kernel)} and "
                        f"{_us(f.second_us_per_kernel)} µs per kernel removed, a launch from a graph costs "
                        f"{page.num(f.graph_us_per_launch, 2)} µs"),
    "matvec_faster": Guard(
        "the step with the matvec kernel was faster than the cuBLAS step before it", lambda f: f.matvec_saved_ms > 0,
        states=("beat cuBLAS at its own job",),
        found=lambda f: f"the step with the matvec kernel took {_ms(f.matvec_step_ms)} ms, the cuBLAS step before "
                        f"it {_ms(f.matvec_before_ms)} ms",
        absent=(lambda f: not f.has_matvec, "the matvec step or the one before it was not timed")),
    "matvec_profiled_all": Guard(
        "both steps' profiles caught every projection, so their read speeds compare",
        lambda f: f.matvec_profiled_all, states=("In their profiles",),
        found=lambda f: f"the matvec step's profile caught {f.matvec_launches} projection launches, the cuBLAS "
                        f"step's {f.cublas_launches}"),
    "matvec_reads_faster": Guard(
        "in their profiles the matvec kernels read the weights faster than cuBLAS's projection kernels",
        lambda f: f.matvec_gbps > f.cublas_gbps, states=("read the weights faster",),
        found=lambda f: f"in their profiles the matvec kernels read the weights at {page.num(f.matvec_gbps, 0)} "
                        f"GB/s, cuBLAS's projection kernels at {page.num(f.cublas_gbps, 0)} GB/s"),
    "pdl_used": Guard(
        "programmatic dependent launch was used", lambda f: f.pdl_used,
        states=("Programmatic dependent launch saved",),
        found=lambda f: "the GPU did not support programmatic dependent launch, so the step ran without it"),
    "pdl_faster": Guard(
        "the step with programmatic dependent launch was faster than the one before it",
        lambda f: f.pdl_saved_ms > 0, states=("Programmatic dependent launch saved",),
        found=lambda f: f"the step with programmatic dependent launch took {_ms(f.pdl_ms)} ms, the one before it "
                        f"{_ms(f.pdl_before_ms)} ms",
        absent=(lambda f: not f.has_pdl, "the step with programmatic dependent launch was not timed")),
    "pdl_same_kernels": Guard(
        "the step with programmatic dependent launch ran the same kernels as the one before it",
        lambda f: f.pdl_same_kernels, states=("with the same kernels",),
        found=lambda f: f"the step with programmatic dependent launch ran {f.pdl_kernels} kernels, the one before "
                        f"it {f.pdl_kernels_before}"),
    "retune_pdl_helped": Guard(
        "tuning the sites again inside the step with programmatic dependent launch cut its time",
        lambda f: f.retune_pdl_cut > 0,
        states=(("part of it from tuning the kernels again", "retuned inside the step, in"),),
        found=lambda f: f"retuned inside the step, the step with programmatic dependent launch replayed in "
                        f"{_us(f.retune_pdl_us)} µs, against {_us(f.retune_pdl_alone_us)} µs with every site at its "
                        "config alone",
        absent=(lambda f: f.retune_pdl_cut is None, "the step with programmatic dependent launch was not tuned "
                "again inside itself")),
    "greedy_host_cut": Guard(
        "picking the next token inside the graph cut the host's time per step",
        lambda f: f.greedy_host_us < f.greedy_host_us_before, states=("cut the host's time per step",),
        found=lambda f: f"picking the next token inside the graph took the host's time per step from "
                        f"{_us(f.greedy_host_us_before)} µs to {_us(f.greedy_host_us)} µs",
        absent=(lambda f: not f.has_greedy, "the step that picks its own next token was not timed")),
    # the last four changes
    "ring_faster": Guard(
        "the step with SwiGLU's ring was faster than the step before it at the median",
        lambda f: f.ring_saved_us > 0, states=("SwiGLU's ring was faster at the median",),
        found=lambda f: f"the step with SwiGLU's ring took {_ms(f.ring_ms)} ms at the median, the step before it "
                        f"{_ms(f.ring_before_ms)} ms",
        absent=(lambda f: not f.has_ring, "the step with SwiGLU's ring was not built")),
    "ring_not_every_round": Guard(
        "in some round of some run the step with SwiGLU's ring was slower than the step before it",
        lambda f: f.ring_saved_low_us < 0,
        states=(("though not in every round", "in some round of one run the ring step was the slower"),),
        found=lambda f: f"the step with SwiGLU's ring was faster in every round, saving {_us(f.ring_saved_low_us)} "
                        f"to {_us(f.ring_saved_high_us)} µs",
        absent=(lambda f: f.ring_saved_low_us is None, "the step with SwiGLU's ring was not timed")),
    "few_faster": Guard(
        "the output projection in few programs saved time, its interval clear of zero",
        lambda f: f.few_saved_low_us > 0, states=("each saved time clear of the rounds' noise",),
        found=lambda f: _saved("the output projection in few programs", f.few_saved_us, f.few_saved_low_us,
                               f.few_saved_high_us, clear=True)),
    "down_faster": Guard(
        "down's ring saved time, its interval clear of zero",
        lambda f: f.down_saved_low_us > 0, states=("each saved time clear of the rounds' noise",),
        found=lambda f: _saved("down's ring", f.down_saved_us, f.down_saved_low_us, f.down_saved_high_us, clear=True)),
    "last_is_fold": Guard(
        "the last change folds attention into the output projection", lambda f: f.last_is_fold,
        states=("Folding attention into the output projection cost",),
        found=lambda f: f"the last change is {_q(f.last_label)}"),
    "last_slower_every_round": Guard(
        "the last change made the step slower than the one before it in every round",
        lambda f: f.last_slower_every_round, states=("ms in every round",),
        found=lambda f: f"the last change cost {_ms(f.last_cost_ms)} ms at the median, and was not slower in every "
                        "round",
        absent=(lambda f: f.last_cost_ms is None, "the last step or the one before it was not timed")),
    "fold_alone_slower": Guard(
        "tuned alone, the folded kernel was slower than attention and the output projection as two launches",
        lambda f: f.fold_us > f.pair_us, states=(("already slower timed alone", "the folded kernel was slower"),),
        found=lambda f: f"tuned alone, the folded kernel took {_us(f.fold_us, 2)} µs a layer, attention and the "
                        f"output projection {_us(f.pair_us, 2)} µs",
        absent=(lambda f: f.fold_us is None, "the folded kernel was not tuned")),
    "fastest_stays": Guard(
        "the step before the last is the fastest that passed its check, or level with it by the rounds",
        lambda f: f.last_prev_label in f.fastest, states=("stays the fastest step that passed its check",),
        found=_not_fastest("the step before the last is", lambda f: f.last_prev_label)),
    # the rings' checks and savings
    "ring_differs": Guard(
        "some outputs of SwiGLU's ring differ from the paired matvec kernel's", lambda f: f.ring_differ_max > 0,
        states=("outputs differed from matvec_pair's",),
        found=lambda f: f"every output of SwiGLU's ring matched the paired matvec kernel's at all "
                        f"{f.ring_check_seeds} seeds",
        absent=(lambda f: f.ring_differ_max is None, "SwiGLU's ring was not checked")),
    "ring_finite": Guard(
        "no output of SwiGLU's ring was NaN or infinite", lambda f: f.ring_finite, states=("none of them NaN",),
        found=lambda f: f"some of the {f.ring_outputs} outputs of SwiGLU's ring were NaN or infinite"),
    "few_saved": Guard(
        "paired round by round, the output projection in few programs saved time at the median",
        lambda f: f.few_saved_us > 0, states=("the step saved",),
        found=lambda f: _saved("the output projection in few programs", f.few_saved_us, f.few_saved_low_us,
                               f.few_saved_high_us),
        absent=(lambda f: not f.has_few, "the output projection in few programs was not built")),
    "down_exact": Guard(
        "down's ring matched the matvec kernel bit for bit", lambda f: f.down_differ_max == 0,
        states=("matched matvec's bit for bit",),
        found=lambda f: f"up to {f.down_differ_max} of the {f.down_outputs} outputs of down's ring differed from "
                        "the matvec kernel's",
        absent=(lambda f: f.down_differ_max is None, "down's ring was not checked")),
    "down_finite": Guard(
        "no output of down's ring was NaN or infinite", lambda f: f.down_finite, states=("none of them NaN",),
        found=lambda f: f"some of the {f.down_outputs} outputs of down's ring were NaN or infinite"),
    "down_saved": Guard(
        "paired round by round, down's ring saved time at the median", lambda f: f.down_saved_us > 0,
        states=("the step saved",),
        found=lambda f: _saved("down's ring", f.down_saved_us, f.down_saved_low_us, f.down_saved_high_us),
        absent=(lambda f: not f.has_down, "down's ring was not built")),
    # where the rest goes
    "fit_fastest": Guard(
        "the step built over fewer layers is the fastest that passed its check, or level with it by the rounds",
        lambda f: f.fit_label in f.fastest, states=("To see where the fastest step loses time",),
        found=_not_fastest("the step built over fewer layers is", lambda f: f.fit_label),
        absent=(lambda f: not f.has_layer_fit, "the step was not built over fewer layers")),
    "fit_straight": Guard(
        "every layer count's median lies within a tenth of a layer's cost of one straight line",
        lambda f: f.fit_off_line_us < OFF_LINE * f.fit_per_layer_us, states=("The times lie on a straight line",),
        found=lambda f: f"the best straight line passes {_us(f.fit_off_line_us)} µs from one of the medians, "
                        f"against {_us(f.fit_per_layer_us, 2)} µs a layer"),
    "once_under": Guard(
        "what runs once a step costs less than its bytes take at the copy bandwidth, its whole interval below them",
        lambda f: f.once_high_us < f.once_copy_us,
        states=(("costs less than its bytes' time", "above the whole bootstrap interval"),),
        found=lambda f: f"what runs once a step costs {_us(f.fit_once_us)} µs ({_us(f.once_low_us)} to "
                        f"{_us(f.once_high_us)} µs), its bytes take {_us(f.once_copy_us)} µs at the copy bandwidth"),
    "attention_reads_little": Guard(
        "the keys and values one attention launch reads take under a fifth of its time at the copy bandwidth",
        lambda f: f.attention_not_bytes, states=("Attention itself reads almost nothing",),
        found=lambda f: f"the keys and values one attention launch reads take {_us(f.kv_us, 3)} µs at the copy "
                        f"bandwidth, of the {_us(f.plain_attention_us)} µs it runs"),
    "timeline_worst_attention": Guard(
        "in the profiled layer, the launch that ends furthest past its bytes' time is attention",
        lambda f: f.timeline_worst == "attention", states=("The attention launch ends",),
        found=lambda f: f"the launch that ends furthest past its bytes' time is {f.timeline_worst}, "
                        f"{_us(f.timeline_worst_after_us)} µs after the launch ahead",
        absent=(lambda f: not f.has_timeline, "one layer's timeline was not profiled")),
    "timeline_worst_no_weights": Guard(
        "the launch that ends furthest past its bytes' time reads no weights", lambda f: not f.timeline_worst_reads,
        states=("reads no weights",),
        found=lambda f: f"the launch that ends furthest past its bytes' time, {f.timeline_worst}, reads weights "
                        f"that take {_us(f.timeline_worst_copy_us)} µs at the copy bandwidth"),
    "rings_early": Guard(
        "both rings end sooner after the launch ahead than their weights take",
        lambda f: {"swiglu_ring", "down_ring"} <= set(f.timeline_early), states=("Both rings end sooner",),
        found=lambda f: f"the launches that end sooner after the launch ahead than their weights take are "
                        f"{_names(f.timeline_early)}"),
    "timeline_fastest": Guard(
        "the profiled layer is the fastest step's that passed its check, or that of one level with it by the rounds",
        lambda f: f.timeline_label in f.fastest, states=("The fastest step's graph was replayed",),
        found=_not_fastest("the layer was profiled in", lambda f: f.timeline_label),
        absent=(lambda f: not f.has_timeline, "one layer's timeline was not profiled")),
    "waits_cost": Guard(
        "every round without the waits was faster than every round with them", lambda f: f.waits_cost,
        states=("faster in every round",),
        found=lambda f: f"without the waits the step replayed in {_us(f.no_wait_us)} µs at the median, with them in "
                        f"{_us(f.no_wait_with_us)} µs, and some round without them was not faster",
        absent=(lambda f: not f.has_no_wait, "the step without its waits was not built")),
    "handoff_pdl": Guard(
        "the hops ran as programmatically dependent launches", lambda f: f.handoff_pdl,
        states=("as dependent launches",),
        found=lambda f: "the hops ran as plain launches, without programmatic dependent launch",
        absent=(lambda f: not f.has_handoff, "the hand-off chain was not timed")),
    "launches_most_of_over": Guard(
        "a layer's launches at the cheapest hop's cost come to more than half of what a layer runs over its bytes",
        lambda f: f.layer_launches_low_us > 0.5 * f.layer_over_us, states=("that is most of the",),
        found=lambda f: f"a layer's {f.layer_launches} launches at a hop's cost come to "
                        f"{_us(f.layer_launches_low_us)} to {_us(f.layer_launches_high_us)} µs, of the "
                        f"{_us(f.layer_over_us)} µs a layer runs over its bytes"),
    "launches_under_over": Guard(
        "a layer's launches at the dearest hop's cost come to less than what a layer runs over its bytes",
        lambda f: f.layer_launches_high_us < f.layer_over_us, states=("that is most of the",),
        found=lambda f: f"a layer's {f.layer_launches} launches at a hop's cost come to "
                        f"{_us(f.layer_launches_low_us)} to {_us(f.layer_launches_high_us)} µs, more than the "
                        f"{_us(f.layer_over_us)} µs a layer runs over its bytes"),
    "barrier_slower": Guard(
        "the barrier in one launch was slower than the dependent launches in every round at every program count",
        lambda f: f.barrier_always_slower,
        states=(("was slower at every program count", "slower than the launch in every round"),),
        found=lambda f: f"a hop through the barrier took {_us(f.barrier_low_us, 2)} to {_us(f.barrier_high_us, 2)} "
                        f"µs, as a launch {_us(f.launch_low_us, 2)} to {_us(f.launch_high_us, 2)} µs, and the barrier "
                        "was not slower in every round at every program count",
        absent=(lambda f: not f.has_handoff, "the hand-off chain was not timed")),
    "handoff_ordered": Guard(
        "every chain of hops ended in order", lambda f: f.handoff_ordered, states=("Every chain ended in order",),
        found=lambda f: f"some chain of {f.handoff_hops} hops ended out of order",
        absent=(lambda f: not f.has_handoff, "the hand-off chain was not timed")),
    # against published steps
    "sync_level_fast": Guard(
        "synchronised, the fastest step is level by its rounds with the fastest published step",
        lambda f: f.sync_vs_fast == "level", states=("level with",),
        found=lambda f: f"synchronised, the fastest step here read {_us(f.ours_tbps, 2)} TB/s, "
                        f"{_stand_words(f.sync_vs_fast)} {f.anchor_fast_label}'s {_us(f.anchor_fast_tbps, 2)} TB/s",
        absent=(lambda f: not f.has_anchors, "no step passed its check")),
    "sync_ahead_slow": Guard(
        "synchronised, the fastest step is ahead by its rounds of the slower published step",
        lambda f: f.sync_vs_slow == "ahead", states=("That is ahead of",),
        found=lambda f: f"synchronised, at {_us(f.ours_tbps, 2)} TB/s, the fastest step here was "
                        f"{_stand_words(f.sync_vs_slow)} {f.anchor_slow_label}'s {_us(f.anchor_slow_tbps, 2)} TB/s"),
    "loop_ahead_fast": Guard(
        "back to back, the fastest step is ahead by its rounds of the fastest published step",
        lambda f: f.loop_vs_fast == "ahead", states=("Back to back it was ahead of",),
        found=lambda f: f"back to back, the fastest step here read {_us(f.ours_loop_tbps, 2)} TB/s, "
                        f"{_stand_words(f.loop_vs_fast)} {f.anchor_fast_label}'s {_us(f.anchor_fast_tbps, 2)} TB/s"),
    "loop_ahead_slow": Guard(
        "back to back, the fastest step is ahead by its rounds of the slower published step",
        lambda f: f.loop_vs_slow == "ahead", states=("back to back too",),
        found=lambda f: f"back to back, at {_us(f.ours_loop_tbps, 2)} TB/s, the fastest step here was "
                        f"{_stand_words(f.loop_vs_slow)} {f.anchor_slow_label}'s {_us(f.anchor_slow_tbps, 2)} TB/s"),
    "anchor_fewer_layers": Guard(
        "the published model has fewer layers than this one", lambda f: f.anchor_fewer_layers,
        states=("so it pays for fewer hand-offs per byte",),
        found=lambda f: f"their model has {f.anchor_layers} layers to this model's {f.our_layers}"),
    "megakernel_fastest": Guard(
        "the faster published step is the megakernel", lambda f: "megakernel" in f.anchor_fast_label,
        states=("The megakernel was built",),
        found=lambda f: f"the faster published step is {f.anchor_fast_label}"),
    "built_for_other": Guard(
        "the megakernel was built for another GPU than this one",
        lambda f: f.anchor_fast_built_for is not None and f.anchor_fast_built_for not in f.gpu,
        states=("not for this GPU",),
        found=lambda f: "the study's report does not say which GPU the megakernel was built for"
        if f.anchor_fast_built_for is None else
        f"the megakernel was built for the {f.anchor_fast_built_for}, this GPU"),
    "megakernel_missed_fidelity": Guard(
        "the megakernel missed the study's check of numerical fidelity", lambda f: not f.anchor_fast_fidelity,
        states=("It also missed the study's own check",),
        found=lambda f: f"{f.anchor_fast_label} passed the study's check of numerical fidelity"),
    "cuda_graph_passed_fidelity": Guard(
        "the published step with CUDA graphs passed the study's check of numerical fidelity",
        lambda f: f.anchor_slow_fidelity, states=("which their CUDA-graph step passed",),
        found=lambda f: f"{f.anchor_slow_label} missed the study's check of numerical fidelity"),
    # correct before timed
    "fp32_top1_differ": Guard(
        "eager in float32 and in bf16 picked different top tokens at some steps", lambda f: f.fp32_top1_differ > 0,
        states=("The two picked different top tokens at some steps",),
        found=lambda f: f"eager in float32 and in bf16 picked the same top token at all {f.check_steps} steps"),
    "first_two_exact": Guard(
        "the first two steps, and only they, matched eager bit for bit", lambda f: f.exact == FIRST_TWO,
        states=("The first two steps matched eager bit for bit",),
        found=lambda f: f"the steps that matched eager bit for bit are {_names(tuple(_q(x) for x in f.exact))}"),
    "worst_near_fp32": Guard(
        "the largest error of any step is about float32's own distance from bf16, within a fifth",
        lambda f: f.worst_rel_err <= NEAR_FP32 * f.fp32_rel_err,
        states=("about as far from eager as float32 is",),
        found=lambda f: "no step rounded differently from eager" if f.worst_rel_err is None else
        f"the largest error of any step was {page.pct(f.worst_rel_err, 2)}, float32's {page.pct(f.fp32_rel_err, 2)}"),
    "all_passed": Guard(
        "every step passed its check", lambda f: not f.any_failed, states=("Every step passed",),
        found=lambda f: f"{_names(tuple(_q(x) for x in f.failed))} failed the check"),
    "all_finite": Guard(
        "every step's logits were finite", lambda f: not f.any_nonfinite, states=("with finite logits throughout",),
        found=lambda f: f"the logits of {_names(tuple(_q(x) for x in f.nonfinite))} held NaN or infinity"),
    "free_some_parted": Guard(
        "some steps run free parted from eager's tokens", lambda f: f.free_same < f.free_steps,
        states=("the others parted from them",),
        found=lambda f: f"all {f.free_steps} steps run free wrote exactly eager's tokens"),
    "near_ties_only": Guard(
        "under teacher forcing every top-token difference fell within the band", lambda f: f.near_ties_only,
        states=("every top-token difference fell at a near-tie",),
        found=lambda f: f"under teacher forcing some top-token difference fell outside the band of {f.band:.3f}"),
    "same_eager_tokens": Guard(
        "the decode chapter's eager run wrote the same tokens, so its logit gaps apply here",
        lambda f: f.same_eager_tokens, states=("in the decode chapter's run",),
        found=lambda f: "the decode chapter's eager run wrote other tokens, so its logit gaps are not these"),
    "next_argmax": Guard(
        "the first step that picks its own next token wrote its argmax at every step",
        lambda f: f.next_agree == f.next_steps,
        states=("wrote the argmax of its logits into its input buffer every time",),
        found=lambda f: f"{_q(f.next_label)} wrote the argmax of its logits at {f.next_agree} of {f.next_steps} steps",
        absent=(lambda f: f.next_agree is None, "no step that picks its own next token was checked doing so")),
    "next_positions": Guard(
        "the first step that picks its own next token wrote the next position at every step",
        lambda f: f.next_positions_ok, states=("and the position after it",),
        found=lambda f: f"{_q(f.next_label)} wrote a wrong next position at some step"),
    # timing
    "rounds_at_cap": Guard(
        "the rounds stopped at the time cap, not quiet", lambda f: not f.rounds_quiet,
        states=("They stopped at the cap",),
        found=lambda f: f"the rounds stopped quiet after {f.rounds_n} rounds, before the "
                        f"{page.num(f.rounds_cap_s, 0)} s cap"),
    "steps_noisy": Guard(
        "more than one synchronised step stayed noisy at the cap", lambda f: f.step_noisy_count > 1,
        states=("Several steps timed one at a time stayed noisy",),
        found=lambda f: f"{f.step_noisy_count} step{'' if f.step_noisy_count == 1 else 's'} timed one at a time "
                        f"stayed noisy, up to {page.num(f.step_noise_high, 1)}%"),
    "loops_quiet": Guard(
        "every back-to-back loop was quiet", lambda f: f.loop_all_quiet,
        states=("every back-to-back loop was quiet",),
        found=lambda f: f"some back-to-back loop stayed noisy, up to {page.num(f.loop_noise_high, 2)}% against the "
                        f"{page.num(f.rounds_bound_pct, 1)}% bound"),
    "round_trip": Guard(
        "back to back, the last step was faster than synchronised around every step", lambda f: f.round_trip_ms > 0,
        states=("ms less than synchronised around every step",),
        found=lambda f: f"back to back the last step took {_ms(f.last_loop_ms)} ms, synchronised {_ms(f.last_ms)} ms",
        absent=(lambda f: f.round_trip_ms is None, "the last step was not timed back to back")),
    "alone_under_loop": Guard(
        "the graph replayed alone was faster than its loop", lambda f: f.alone_outside_ms > 0,
        states=("ms less than its loop",),
        found=lambda f: f"replayed alone the graph took {_ms(f.alone_ms)} ms, its loop {_ms(f.alone_loop_ms)} ms"),
    "costs_fastest": Guard(
        "the step whose calls were left out and whose graph was replayed alone is the fastest that passed its check, "
        "or level with it by the rounds",
        lambda f: f.alone_label in f.fastest,
        states=(("the fastest step's graph took", "Leaving one call out of the fastest step"),),
        found=_not_fastest("the calls were left out of", lambda f: f.alone_label)),
    "lm_head_site_over_copy": Guard(
        "tuned alone, the LM head's site read faster than the copy", lambda f: "lm_head" in f.sites_over_copy,
        states=("how `lm_head` can pass",),
        found=lambda f: f"tuned alone, the LM head's site read at {page.pct(f.lm_head_copy_share)} of the copy's "
                        "speed"),
    "attention_one_split": Guard(
        "tuned alone, attention was fastest with one split", lambda f: f.attention_one_launch,
        states=("attention was fastest with one split",),
        found=lambda f: f"tuned alone, attention was fastest with {f.attention_splits} splits"),
    "finalists": Guard(
        "the in-step tuning timed each site's fastest candidates again", lambda f: f.retune_has_finalists,
        states=("fastest candidates were then timed again",),
        found=lambda f: "the stored result has no finalists timed again inside the step"),
    "kernels_last": Guard(
        "the kernel table is the last step's", lambda f: _strip(f.kernels_label or "") == f.last_label,
        states=("One profiled step of the last step",),
        found=lambda f: f"the kernel table is of {_q(f.kernels_label)}, not of the last step, {_q(f.last_label)}",
        absent=(lambda f: f.kernels_label is None, "no step was profiled")),
    "kernels_no_copies": Guard(
        "the last step's profile holds no copy or memset", lambda f: f.kernels_copies == 0,
        states=("none of them a copy or a memset",),
        found=lambda f: f"the profile holds {f.kernels_copies} copies or memsets"),
    "kernels_overlap": Guard(
        "the last step's kernels' durations add up to more than the step",
        lambda f: f.kernels_busy_ms > f.kernels_step_ms,
        states=("durations add up to more than the step",),
        found=lambda f: f"the kernels' durations add up to {_us(f.kernels_busy_ms, 2)} ms, the step takes "
                        f"{_us(f.kernels_step_ms, 2)} ms"),
    "kernels_compared": Guard(
        "the last step without programmatic dependent launch was profiled beside it", lambda f: f.has_compared,
        states=("The last column, from the last step without programmatic dependent launch",),
        found=lambda f: "no step without programmatic dependent launch was profiled beside it: the last column is "
                        "empty"),
    "calls_under_whole": Guard(
        "the calls' costs, times the layers, add up to less than the whole graph",
        lambda f: f.calls_sum_us < f.alone_us,
        states=("The rest is what no single call owns",),
        found=lambda f: f"the calls' costs, times the layers, add up to {_us(f.calls_sum_us)} µs, the whole graph "
                        f"{_us(f.alone_us)} µs"),
    "calls_over_copy": Guard(
        "the calls that pass 100% of the copy are SwiGLU's ring and the LM head",
        lambda f: set(f.calls_over_copy) == {"swiglu_ring", "lm_head"}, states=("pass 100%",),
        found=lambda f: "the calls that pass 100% of the copy are "
                        + _names(tuple(LABELS.get(c, c) for c in f.calls_over_copy))),
}
