"""The numbers and verdicts of docs/decode-far.md, from decode_far.ladder on one machine, with the decode chapter's
best step (decode.six_ways) it starts from, the article's RTX 4060 Laptop figures for that chapter, and the cost of
one launch replayed from a graph and the read-only bandwidth (machine.ceilings).

No sentence is written here: the page's Markdown reads these fields (`{{ f.last_ms }}`, in the text FORMATS gives
each; the decode chapter's best step from `facts("decode")`, a graph launch's cost from `facts("machine")`), is
written for the primary machine's results, and names above each paragraph the GUARDS it rests on (guards.py). The
fields are computed in figures.py and assembled by from_data. `derive` recomputes the ratios, differences and
sums printed beside their figures from the medians shown. A step the run could not build or time leaves its numbers
None (a dash on the page) and `complete` False.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from kernelbook import read
from kernelbook.chapters.decode_far import figures
from kernelbook.chapters.decode_far import report as far
from kernelbook.chapters.decode_far.figures import Goal, Ordering, Paired, Shrank, Side, Stand
from kernelbook.decode import report as decode_report
from kernelbook.stats import CONFIDENCE

LAPTOP = decode_report.LAPTOP
GOAL_MS = far.GOAL_MS
OFF_LINE = 0.1  # the layer counts' times "lie on a straight line": none further from it than this share of a layer
COST_DIGITS = 2  # the launch costs' table prints each call's µs to this many digits: the sums beside it add those
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
FIRST_TWO = ("own PyTorch step", "+ fused QKV, gate/up")  # the first two steps' labels (bit-identical to eager)
# the thresholds and step lists the computations read are in figures.py: NEAR_FP32, MORE_THAN_HANDOFF,
# BYTES_NEGLIGIBLE, FUSING_STEPS, CHAIN, MLP_CALLS, RETUNED, COST_CALLS, FIT_ROLES


# ruff: noqa: E702  (Facts puts fields that share a comment, or have none, on one line, with `;`)
@dataclass(frozen=True)
class Facts:
    gpu: str  # "H200"
    # where the page starts: the decode chapter's fastest correct step, and the article's laptop
    six_has_best: bool  # some decode-chapter variant passed its check
    six_best_label: str | None; six_best_ms: float | None
    six_best_floor_share: float | None  # the floor's time over the step's
    six_floor_ms: float; six_copy_tbps: float
    six_mostly_overhead: bool  # that step reaches under half of the floor
    laptop_best_label: str  # the laptop's best step by share of its floor (the article's figures)
    laptop_best_ms: float; laptop_best_floor_share: float; laptop_floor_ms: float
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
    changes: int; base_ms: float | None; base_loop_ms: float | None; base_kernels: int | None
    last_label: str  # the last step's label without its "+ "
    last_ms: float | None; last_loop_ms: float | None; last_kernels: int | None; last_floor_share: float | None
    speedup: float | None  # the plain graph's time over the last step's
    last_slower: bool  # the last change made the step slower than the one before it (medians)
    last_slower_every_round: bool  # ... in every round that timed both
    last_is_fold: bool  # the last step is attention folded into the output projection
    last_prev_label: str; last_prev_ms: float | None  # the step before the last
    last_cost_ms: float | None  # the last step's time less the one before it
    last_is_best: bool  # the last step is the fastest that passed its check
    has_best: bool  # some step passed its check
    best_label: str  # the fastest step that passed its check
    best_ms: float | None; best_floor_share: float | None; best_loop_ms: float | None; best_kernels: int | None
    best_speedup: float | None  # the plain graph's time over the best step's, each step synchronised
    best_loop_speedup: float | None  # ... both back to back (the result's figure)
    best_loop_floor_share: float | None  # the floor's time over the best step's back to back
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
    rounds_min: int; rounds_cap_s: float; rounds_bound_pct: float
    step_noisy_count: int  # steps whose synchronised time stayed noisy at the cap
    step_noise_high: float  # the largest such noise, percent
    loop_all_quiet: bool  # every back-to-back loop quiet
    loop_noise_high: float
    round_trip_ms: float | None  # the last step synchronised less back to back
    round_trip_shows: bool  # back to back is faster
    weight_gb: float; copy_gbps: float
    copy_gib: float  # the size of the copy that measured it
    floor_ms: float
    # the read floor: the weights at the read-only bandwidth of machine.ceilings (a projection only reads)
    read_gbps: float; read_floor_ms: float
    lm_head_gbps: float  # the LM head's matvec tuned alone (lm_head site), weight bytes over its time
    lm_head_copy_share: float  # ... over the copy bandwidth
    lm_head_read_share: float  # ... over the read-only bandwidth
    rounds_n: int; loop_steps: int
    delta_ms: dict[str, float | None]  # per step: its time less the time of the row before (negative: faster)
    delta_own_ms: float | None  # ... of the first three steps, as fields of their own (the page prints them)
    delta_fused_proj_ms: float | None; delta_filled_attention_ms: float | None
    own_ms: float | None  # those three steps' times (medians over the rounds): the deltas are their differences
    fused_proj_ms: float | None; filled_attention_ms: float | None
    # correct before timed
    check_steps: int
    fp32_rel_err: float  # eager in float32 against eager in bf16, the largest relative error
    fp32_top1_differ: int  # steps where those two pick different top tokens
    tol_factor: float; tolerance: float; band: float
    exact: tuple[str, ...]  # labels of the steps bit-identical to eager
    any_exact: bool
    any_rounded: bool  # some step differs from eager with finite logits
    worst_label: str | None; worst_rel_err: float | None; worst_of_tolerance: float | None
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
    gaps_within_band: int; gaps_n: int  # ... gaps within the band, of gaps_n
    has_next_check: bool  # a step that picks its own next token was checked doing so
    next_label: str | None; next_steps: int | None
    next_agree: int | None  # steps where the token it wrote was the argmax of its logits
    next_positions_ok: bool
    # what the steps bought: the two largest savings
    first_label: str; first_saved_ms: float
    first_before_ms: float  # the step before it and the step (medians over the rounds): the saving is the first
    first_after_ms: float  # less the second
    first_kernels_before: int; first_kernels_after: int
    first_us_per_kernel: float | None  # µs saved per kernel removed (None: no kernel removed)
    second_label: str; second_saved_ms: float; second_before_ms: float; second_after_ms: float
    second_kernels_before: int; second_kernels_after: int; second_us_per_kernel: float | None
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
    matvec_faster: bool; matvec_kernels_before: int | None; matvec_kernels_after: int | None
    matvec_profiled_all: bool  # both profiles caught every projection: their times compare
    matvec_launches: int | None  # the projection launches in the matvec step's profile, and in cuBLAS's step's
    cublas_launches: int | None
    cublas_ms: float | None; cublas_gbps: float | None; matvec_ms: float | None; matvec_gbps: float | None
    matvec_share: float | None  # of the copy bandwidth
    # where the last step without PDL spends its time
    has_plain: bool; plain_label: str | None; plain_ms: float | None
    plain_matvec_ms: float | None; plain_matvec_gbps: float | None; plain_matvec_share: float | None
    plain_attention_ms: float | None; plain_attention_launches: int | None
    plain_attention_us: float | None  # per launch
    kv_kib: float  # keys and values one attention launch reads at the position it was tuned at
    kv_us: float  # ... at the copy bandwidth
    attention_not_bytes: bool  # those bytes take under BYTES_NEGLIGIBLE of a launch's time
    plain_other_ms: float | None; plain_idle_ms: float | None; plain_host_ms: float | None
    plain_busy_over: bool  # its profiled kernels add up to more than its back-to-back step
    plain_busy_over_ms: float | None
    plain_matvec_loss_ms: float | None  # the matvecs' time beyond the floor
    plain_rest_ms: float | None  # attention, the other kernels, idle time and the round trip
    owners_ms: float | None  # plain_matvec_loss_ms + plain_rest_ms
    owners_cover: bool  # ... is more than the last step is over the goal
    # programmatic dependent launch
    has_pdl: bool; pdl_used: bool; pdl_saved_ms: float | None; pdl_saved_share: float | None
    pdl_before_ms: float | None; pdl_ms: float | None  # the step before PDL and the PDL step: the saving's terms
    pdl_faster: bool; pdl_same_kernels: bool; pdl_kernels: int | None; pdl_kernels_before: int | None
    pdl_attention_config: str | None  # attention's config chosen inside the PDL step, "128 × 1 × 8"
    before_attention_config: str | None  # ... inside the step before
    # the graph alone (the launch costs' step replayed back to back) and the next token inside the graph
    has_alone: bool; alone_us: float; alone_label: str; alone_ms: float
    alone_outside_ms: float | None  # its loop less its graph alone
    alone_loop_ms: float | None  # that step's back-to-back loop (the steps table's figure)
    loop_over_graph: bool; alone_argmax_us: float | None; alone_has_argmax: bool
    has_greedy: bool  # a step that picks its own next token, and the one before it, were timed
    greedy_kernels: int | None; greedy_kernels_before: int | None; greedy_host_us: float | None
    greedy_host_us_before: float | None; greedy_loop_ms: float | None; greedy_loop_ms_before: float | None
    greedy_ms: float | None; greedy_ms_before: float | None
    # the tables' notes
    kernels_label: str | None; kernels_distinct: int | None; kernels_copies: int | None
    has_compared: bool; kernels_overlap: bool; kernels_busy_ms: float | None; kernels_step_ms: float | None
    calls_sum_us: float  # the calls' costs (as the table prints them, COST_DIGITS) times the calls a step makes
    # what each call of COST_CALLS (figures.py) adds to the step, µs a call (None: the cost step makes no such call)
    cost_qkv_rope_us: float | None; cost_attention_us: float | None; cost_o_us: float | None
    cost_attention_o_us: float | None; cost_swiglu_us: float | None; cost_swiglu_ring_us: float | None
    cost_down_us: float | None; cost_down_ring_us: float | None; cost_lm_head_us: float | None
    cost_layers: int  # the times a step makes each call of a layer (the layers)
    calls_over_whole: bool  # the calls' costs add up to more than the whole step
    mlp_us: float  # per layer
    mlp_copy_us: float; mlp_share: float
    chain_us: float; chain_mib: float; chain_copy_us: float; chain_share: float
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
    retune_has_finalists: bool; retune_positions: tuple[int, ...]
    retune_position_first: int; retune_position_last: int  # ... the first and the last of them
    retune_plain_label: str  # the fused step without PDL
    retune_plain_alone_us: float | None  # µs per step with every site at its config alone, then retuned
    retune_plain_us: float | None; retune_plain_cut: float | None; retune_plain_helped: bool
    # the step's waits: the launch costs' step with no kernel waiting for the one before (wrong values)
    has_no_wait: bool; no_wait_label: str | None
    no_wait_with_us: float | None; no_wait_us: float | None  # medians over the rounds
    waits_us: float | None  # what the waits cost: the first less the second
    waits_cost: bool  # every round without the waits was faster than every round with them
    waits_gap_share: float | None  # waits_us over the step's distance from the floor
    no_wait_floor_share: float | None  # the floor over the step without its waits
    no_wait_gap_us: float | None  # the step without its waits less the floor
    no_wait_step_ms: float | None  # the step's synchronised time (the goal's measure) less what its waits cost
    no_wait_step_timed: bool  # ... that step was timed synchronised
    no_wait_meets_goal: bool  # ... is within the goal
    # the step over fewer layers: t(n) = once + n per layer (report.layer_fit)
    has_layer_fit: bool; fit_label: str | None
    fit_layers: tuple[int, ...]  # the layer counts it was built over
    fit_layers_text: str  # ... as the page lists them, "0, 1, 7, 14, 21, 28"
    fit_per_layer_us: float | None; fit_once_us: float | None
    fit_off_line_us: float | None  # the largest distance of a count's median from the line (as the table prints both)
    # each layer count's µs per step, median over the rounds, by role (figures.fit_counts): the line is fitted
    # through these; fit_all_us is the page's one figure for the whole graph replayed back to back
    fit_none_us: float | None; fit_one_us: float | None; fit_quarter_us: float | None; fit_half_us: float | None
    fit_three_quarters_us: float | None; fit_all_us: float | None
    floor_us: float  # floor_ms in µs
    replay_gap_us: float | None  # fit_all_us less the floor: the distance the page splits
    layer_mib: float | None  # one layer's weights
    layer_copy_us: float | None  # ... at the copy bandwidth
    layer_share: float | None  # that over what a layer costs
    layer_over_us: float | None  # a layer's cost over its bytes at the copy bandwidth
    layers_over_us: float | None  # ... every layer's, together
    once_mib: float | None  # the weights read once a step (the LM head's, the final norm)
    once_copy_us: float | None
    fit_confidence: float  # the confidence of the once-a-step time's bootstrap interval
    once_low_us: float | None; once_high_us: float | None  # ... that interval
    once_side: Side  # its bytes at the copy bandwidth inside that interval, or the interval over or under them
    once_off_us: float | None  # the once-a-step time less those bytes' time, over or under
    layers_gap_share: float | None  # the layers' part of the step's distance from the floor (the once part's, if over)
    layers_hold_most: bool  # ... more than half of it
    layer_goal_us: float | None  # a layer at the goal's share of the floor's speed
    layer_goal_cut_us: float | None  # what a layer would have to lose to get there
    layer_goal_met: bool
    # one layer of the cost step from profiled replays (report.timeline_rows)
    has_timeline: bool; timeline_label: str | None
    timeline_position: int | None  # the slot the replays were profiled at
    timeline_replays: int | None
    timeline_period_us: float | None  # one layer's first launch to the next's
    timeline_chain_us: float | None  # the attention half's steps from end to end (CHAIN, and attention's merge)
    timeline_chain_copy_us: float | None  # ... its weights at the copy bandwidth
    timeline_mlp_us: float | None  # the MLP's steps from end to end
    timeline_mlp_copy_us: float | None
    timeline_worst: str | None  # the launch whose end comes furthest past its bytes' time after the end before it
    timeline_worst_after_us: float | None; timeline_worst_copy_us: float | None; timeline_worst_over_us: float | None
    timeline_worst_reads: bool  # ... reads weights (attention reads none)
    timeline_early: tuple[str, ...]  # launches that end sooner after the one before than their bytes take
    timeline_any_early: bool
    # one hand-off with nothing around it: empty hops as dependent launches and as a barrier in one launch
    has_handoff: bool; handoff_hops: int | None
    handoff_pdl: bool  # the launches were programmatically dependent
    handoff_ordered: bool  # every chain ended in order
    handoff_programs_low: int | None; handoff_programs_high: int | None  # the fewest and the most programs a hop
    launch_low_us: float | None  # µs a hop as a launch, at the fewest and the most programs
    launch_high_us: float | None
    barrier_low_us: float | None; barrier_high_us: float | None  # ... as a barrier
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
    ring_floor_share: float | None; ring_before_floor_share: float | None
    ring_rounds: Ordering  # the ring step against the one before, round by round
    ring_saved_low_us: float | None  # the least and the most a round saved (the step before less the ring)
    ring_saved_high_us: float | None
    ring_block_pairs: int | None  # the tuned config (in the ring step): pairs a block, blocks in flight, warps
    ring_blocks_in_flight: int | None; ring_warps: int | None
    ring_per_sm: int | None  # programs per SM the shared memory takes
    ring_kib: float | None  # one program's ring, KiB
    ring_alone_us: float | None  # tuned alone, µs a layer, against matvec_pair's SwiGLU tuned the same way
    pair_alone_us: float | None; ring_alone_faster: bool
    ring_checked: bool  # ring_check ran
    ring_check_seeds: int
    ring_identical: bool  # every output the same as matvec_pair's, at every seed
    ring_differ_max: int | None  # the most outputs that differed at one seed, of ring_outputs
    ring_outputs: int | None; ring_abs_max: float | None
    ring_finite: bool  # no output NaN or infinite (the output is poisoned before the kernel runs)
    confidence: float  # of the paired intervals below (stats.paired)
    # the output projection in a few programs (ladder step few_o, the step after the ring)
    has_few: bool  # the step and the one before it were timed, and the o_few site was tuned
    few_ms: float | None  # the step, synchronised around every step (median over the rounds)
    few_before_ms: float | None; few_before_label: str
    few_floor_share: float | None; few_before_floor_share: float | None
    few_verdict: Paired  # against the step before, round by round: the interval of the median saving (stats.paired)
    few_saved_us: float | None  # the median of the rounds' savings (the step before less this one), µs
    few_saved_low_us: float | None; few_saved_high_us: float | None  # its interval at `confidence`
    few_faster_rounds: int; few_rounds_n: int  # rounds in which it was faster, of few_rounds_n
    few_rows: int | None; few_programs: int | None  # rows a program of the output projection, chosen inside this step
    few_before_known: bool  # the step before was tuned inside itself, so its output projection's config is stored
    few_before_rows: int | None; few_before_programs: int | None  # the same in the step before
    few_candidates: int | None  # the configs tried inside the step
    few_rows_fewest: int | None; few_rows_most: int | None  # the fewest and the most rows a block among them
    o_rows_low: int | None  # the same among the output projection's configs in the steps before (site o)
    o_rows_high: int | None
    few_is_best: bool  # the fastest step that passed its check
    # the down projection through shared memory (ladder step down_ring, the step after few_o)
    has_down: bool  # the step and the one before it were timed, and the down_ring site was tuned (its ring ran)
    down_ms: float | None; down_before_ms: float | None; down_before_label: str
    down_floor_share: float | None; down_before_floor_share: float | None
    down_verdict: Paired  # against the step before, round by round (stats.paired)
    down_saved_us: float | None  # the median of the rounds' savings, µs
    down_saved_low_us: float | None; down_saved_high_us: float | None  # its interval at `confidence`
    down_faster_rounds: int; down_rounds_n: int
    down_rows_in_flight: int | None  # rows of W_down a program keeps in shared memory, chosen inside the step
    down_warps: int | None
    down_per_sm: int | None  # programs an SM
    down_candidates: int | None  # the configs tried inside the step
    down_alone_us: float | None  # tuned alone, µs a layer, against matvec's down
    down_matvec_alone_us: float | None; down_alone_faster: bool
    down_checked: bool  # down_check ran (the ring ran)
    down_check_seeds: int
    down_identical: bool  # every output the same as matvec's, at every seed
    down_differ_max: int | None; down_outputs: int | None; down_abs_max: float | None; down_finite: bool
    down_programs: int | None  # the grid of the checked config
    down_in_flight_mib: float | None  # what its programs' rings hold (at most W_down): the most on its way at the wait
    down_weight_mib: float | None  # W_down, one layer
    down_is_best: bool
    retune_pdl_label: str; retune_pdl_alone_us: float | None; retune_pdl_us: float | None
    retune_pdl_cut: float | None; retune_pdl_helped: bool
    # published steps on an H200 (anchors.py) against this run's fastest step that passed its check, as TB/s of
    # weights: the anchors' single figures against the slowest and fastest rounds of every run of the current code
    has_anchors: bool  # some step passed its check
    anchors_same_gpu: bool  # this run's GPU is an H200 too
    ladder_runs: int  # the current code's stored runs, whose medians the ladder's tables show
    anchor_runs: int  # the runs of the current code the stands below hold in (the figures are this run's)
    anchor_many_runs: bool  # more than one
    anchor_model: str
    anchor_gpu: str  # the GPU the published steps ran on
    anchor_repo: str  # where the published figures are: owner/name, the file, its commit
    anchor_path: str; anchor_commit: str
    anchor_url: str  # ... the file at that commit on GitHub (a link's target: the page reads it plain, `.value`)
    anchor_steps: int  # the dependent steps each published time is the mean over
    anchor_gb: float; anchor_layers: int; anchor_layer_mb: float
    our_layers: int | None; our_layer_mb: float | None  # from the layer fit (None: this result has none)
    anchor_fewer_layers: bool  # the anchors' model reads its weights in fewer, larger layers
    anchor_fast_label: str  # the published step with the most TB/s
    anchor_fast_tbps: float
    anchor_fast_share: float  # of this run's copy bandwidth
    anchor_slow_label: str; anchor_slow_tbps: float; anchor_slow_share: float
    anchor_fast_built_for: str | None  # the GPU setting the fastest published step was built with (RESULTS.md)
    anchor_fast_fidelity: bool  # ... it passed the study's own numerical-fidelity check
    anchor_slow_fidelity: bool
    ours_tbps: float | None  # synchronised around every step (the goal's measure), median over the rounds
    ours_share: float | None
    ours_loop_tbps: float | None; ours_loop_share: float | None  # back to back
    sync_vs_fast: Stand; sync_vs_slow: Stand; loop_vs_fast: Stand; loop_vs_slow: Stand
    goal_tbps: float  # the weights read in goal_ms
    goal_over_fast: float  # ... over the fastest published step's TB/s


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
    g = far.goal(d, GOAL_MS)
    return Facts(
        gpu=gpu, confidence=CONFIDENCE, **figures.start(six, laptop_six), **figures.ladder(d, s, rows, g, read_gbps),
        **figures.checks(d, s, six), **figures.savings(rows, launch), **figures.matvec(d, by),
        **figures.plain(d, g["over_ms"]), **figures.pdl(d, by), **figures.alone(d, by), **figures.tables(d),
        **figures.waits(d, by), **figures.fit(d, g["floor_share_needed"]), **figures.timeline(d),
        **figures.handoff(d), **figures.ring(d, by), **figures.few(d, by), **figures.down(d, by),
        **figures.against_published(d, gpu, runs or [d]))


def facts(machine: str | None = None) -> Facts:
    r = read.result("decode_far.ladder", machine)
    ceilings = read.result("machine.ceilings", machine).data
    return from_data(r.data, read.result("decode.six_ways", machine).data, read.result("decode.six_ways", LAPTOP).data,
                     ceilings["launch"], ceilings["bandwidth"]["read"]["gbps"], read.machine_label(r),
                     [x.data for x in read.fresh_runs("decode_far.ladder", machine)])


# how each figure reads on every page (kernelbook.macros); counts (ints) read with thousands separators, words as
# themselves. index.md and takeaways.md read best_ms, best_floor_share and laptop_dram_gbps too.
FORMATS = {
    "per_kernel_ratio": "num_down:1",  # "at least" this many launches: rounded down
    **dict.fromkeys(("goal_ms", "base_ms", "six_rest_ms", "first_saved_ms", "second_saved_ms", "matvec_saved_ms",
                     "first_before_ms", "first_after_ms", "second_before_ms", "second_after_ms", "matvec_before_ms",
                     "matvec_step_ms", "base_loop_ms", "own_ms", "fused_proj_ms", "filled_attention_ms",
                     "plain_ms", "kernels_busy_ms", "kernels_step_ms", "kv_us", "fit_per_layer_us", "layer_copy_us",
                     "layer_goal_us", "layer_goal_cut_us", "ring_alone_us", "pair_alone_us", "down_alone_us",
                     "down_matvec_alone_us", "fold_us", "pair_us", "launch_low_us", "launch_high_us",
                     "barrier_low_us", "barrier_high_us", "timeline_period_us", "ours_tbps", "ours_loop_tbps",
                     "anchor_fast_tbps", "anchor_slow_tbps", "goal_tbps", "loop_noise_high"), "num:2"),
    **dict.fromkeys(("last_ms", "last_loop_ms", "last_prev_ms", "last_cost_ms", "best_ms", "weight_gb", "floor_ms",
                     "best_loop_ms",
                     "read_floor_ms", "goal_over_ms", "cublas_ms", "matvec_ms", "plain_matvec_ms", "plain_attention_ms",
                     "plain_other_ms", "plain_idle_ms", "plain_host_ms", "plain_matvec_loss_ms", "plain_rest_ms",
                     "owners_ms", "pdl_saved_ms", "round_trip_ms", "alone_ms", "alone_outside_ms", "alone_loop_ms",
                     "pdl_before_ms", "pdl_ms", "greedy_loop_ms",
                     "greedy_loop_ms_before", "greedy_ms", "greedy_ms_before", "ring_ms", "ring_before_ms", "few_ms",
                     "few_before_ms", "down_ms", "down_before_ms", "no_wait_step_ms", "band", "gap_median"), "num:3"),
    **dict.fromkeys(("laptop_rest_ms", "step_noise_high", "rounds_bound_pct", "first_us_per_kernel",
                     "second_us_per_kernel", "plain_attention_us", "greedy_host_us",
                     "greedy_host_us_before", "ring_saved_us", "ring_saved_low_us", "ring_saved_high_us",
                     "few_saved_us", "few_saved_low_us", "few_saved_high_us", "down_saved_us", "down_saved_low_us",
                     "down_saved_high_us", "down_weight_mib", "down_in_flight_mib", "retune_plain_alone_us",
                     "retune_plain_us", "retune_pdl_alone_us", "retune_pdl_us", "alone_us", "calls_sum_us", "mlp_us",
                     "mlp_copy_us", "chain_us", "chain_mib", "chain_copy_us", "no_wait_us", "no_wait_with_us",
                     "waits_us", "no_wait_gap_us", "fit_off_line_us", "layer_mib", "fit_once_us", "once_mib",
                     "once_copy_us", "once_low_us", "once_high_us", "once_off_us", "timeline_chain_us",
                     "timeline_chain_copy_us", "timeline_mlp_us", "timeline_mlp_copy_us", "timeline_worst_after_us",
                     "timeline_worst_copy_us", "timeline_worst_over_us", "layer_launches_low_us",
                     "layer_launches_high_us", "layer_over_us", "laptop_dram_gbps", "fit_none_us", "fit_one_us",
                     "fit_quarter_us", "fit_half_us", "fit_three_quarters_us", "fit_all_us", "floor_us",
                     "replay_gap_us"), "num:1"),
    **dict.fromkeys((f"cost_{c}_us" for c in figures.COST_CALLS), f"num:{COST_DIGITS}"),
    **dict.fromkeys(("floor_ratio", "copy_gbps", "rounds_cap_s", "cublas_gbps", "matvec_gbps", "plain_matvec_gbps",
                     "kv_kib", "ring_kib", "copy_gib", "tune_s", "tol_factor", "layers_over_us", "anchor_layer_mb",
                     "our_layer_mb"), "num:0"),
    **dict.fromkeys(("read_gbps", "lm_head_gbps"), "num:0"),
    **dict.fromkeys(("lm_head_copy_share", "lm_head_read_share", "best_read_share", "best_loop_floor_share"), "pct:0"),
    **dict.fromkeys(("last_floor_share", "best_floor_share", "laptop_same_floor_share", "matvec_share",
                     "plain_matvec_share", "confidence", "worst_of_tolerance", "mlp_share", "chain_share",
                     "waits_gap_share", "no_wait_floor_share", "layer_share", "fit_confidence", "layers_gap_share"),
                    "pct:0"),
    **dict.fromkeys(("goal_floor_share", "goal_over_share", "pdl_saved_share", "retune_plain_cut", "retune_pdl_cut",
                     "ring_floor_share", "ring_before_floor_share", "few_floor_share", "few_before_floor_share",
                     "down_floor_share", "down_before_floor_share"), "pct:1"),
    **dict.fromkeys(("fp32_rel_err", "tolerance", "worst_rel_err"), "pct:2"),
    **dict.fromkeys(("delta_own_ms", "delta_fused_proj_ms", "delta_filled_attention_ms"), "signed:2"),
    "best_loop_speedup": "times:1",
    "speedup": "times:1", "best_speedup": "times:1", "goal_over_fast": "times:2", "ring_abs_max": "num:4",
}


def _less(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _over(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def _digits(name: str) -> int:
    return int(FORMATS[name].partition(":")[2])


def on_line(once: float, per_layer: float, n: int) -> float:
    """The line's µs at n layers, from its once-a-step time and its µs a layer as the page prints them: the line's
    table and its sentence read the same line."""
    return round(once, _digits("fit_once_us")) + round(per_layer, _digits("fit_per_layer_us")) * n


def off_line(once: float, per_layer: float, n: int, us: float) -> float:
    """A layer count's median (as the table prints it) less the line there."""
    return round(us, _digits("fit_all_us")) - on_line(once, per_layer, n)


def fit_points(f: Facts) -> dict[int, float] | None:
    """Each layer count's median µs (fit_<role>_us), by count; None without a layer fit."""
    if not f.fit_layers:
        return None
    points = {n: getattr(f, f"fit_{role}_us") for role, n in figures.fit_counts(max(f.fit_layers)).items()}
    return None if None in points.values() or len(points) < 2 else points


def _fit(f: Facts) -> dict[str, Any]:
    """The line through the layer counts' medians (the line's table fits the same), and what it splits."""
    points = fit_points(f)
    if points is None:
        return dict(fit_per_layer_us=None, fit_once_us=None, fit_off_line_us=None, layer_share=None,
                    layer_over_us=None, layers_over_us=None, layer_goal_cut_us=None, once_off_us=None,
                    layers_gap_share=None)
    per, once = statistics.linear_regression(list(points), list(points.values()))
    layers_over = max(points) * (per - f.layer_copy_us)
    once_over = once - f.once_copy_us
    gap = max(layers_over, 0.0) + max(once_over, 0.0)
    return dict(fit_per_layer_us=per, fit_once_us=once,
                fit_off_line_us=max(abs(off_line(once, per, n, us)) for n, us in points.items()),
                layer_share=f.layer_copy_us / per, layer_over_us=per - f.layer_copy_us, layers_over_us=layers_over,
                layer_goal_cut_us=_less(per, f.layer_goal_us), once_off_us=abs(once_over),
                layers_gap_share=max(layers_over, 0.0) / gap if gap > 0 else None)


def _costs(f: Facts) -> dict[str, Any]:
    """The launch costs' sums from the calls' costs as the table prints them (COST_DIGITS)."""
    parts = {c: round(x, COST_DIGITS) for c in figures.COST_CALLS if (x := getattr(f, f"cost_{c}_us")) is not None}
    chain = sum(parts[c] for c in figures.CHAIN) if all(c in parts for c in figures.CHAIN) else None
    mlp = sum(parts[c] for c in figures.MLP_CALLS if c in parts) or None
    return dict(calls_sum_us=sum(x * (1 if c in figures.PER_STEP_CALLS else f.cost_layers) for c, x in parts.items()),
                chain_us=chain, mlp_us=mlp, chain_share=_over(f.chain_copy_us, chain),
                mlp_share=_over(f.mlp_copy_us, mlp))


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
    gap = _less(f.fit_all_us, floor_us)
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
        best_speedup=_over(f.base_ms, f.best_ms), best_loop_speedup=_over(f.base_loop_ms, f.best_loop_ms),
        best_loop_floor_share=_over(f.floor_ms, f.best_loop_ms), read_floor_ms=1e3 * f.weight_gb / f.read_gbps,
        best_read_share=_over(1e3 * f.weight_gb / f.read_gbps, f.best_ms),
        lm_head_copy_share=f.lm_head_gbps / f.copy_gbps, lm_head_read_share=f.lm_head_gbps / f.read_gbps,
        round_trip_ms=_less(f.last_ms, f.last_loop_ms),
        first_us_per_kernel=per[0], second_us_per_kernel=per[1],
        per_kernel_ratio=None if None in per else min(per) / f.graph_us_per_launch,
        plain_matvec_loss_ms=loss, plain_rest_ms=rest, owners_ms=None if loss is None or rest is None else loss + rest,
        ring_saved_us=None if f.ring_ms is None or f.ring_before_ms is None else 1e3 * (f.ring_before_ms - f.ring_ms),
        **_costs(f), **_fit(f), floor_us=floor_us, replay_gap_us=gap,
        waits_us=waits, waits_gap_share=None if waits is None or gap is None or gap <= 0 else waits / gap,
        no_wait_floor_share=_over(floor_us, f.no_wait_us), no_wait_gap_us=_less(f.no_wait_us, floor_us),
        layer_launches_low_us=None if f.launch_low_us is None else f.layer_launches * f.launch_low_us,
        layer_launches_high_us=None if f.launch_high_us is None else f.layer_launches * f.launch_high_us,
        goal_over_fast=f.goal_tbps / f.anchor_fast_tbps)


_FIT = tuple(f"fit_{r}_us" for r in figures.FIT_ROLES)
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
    "best_speedup": ("base_ms", "best_ms"), "best_loop_speedup": ("base_loop_ms", "best_loop_ms"),
    "best_loop_floor_share": ("floor_ms", "best_loop_ms"), "read_floor_ms": ("weight_gb", "read_gbps"),
    "best_read_share": ("read_floor_ms", "best_ms"), "lm_head_copy_share": ("lm_head_gbps", "copy_gbps"),
    "lm_head_read_share": ("lm_head_gbps", "read_gbps"),
    "first_us_per_kernel": ("first_saved_ms", "first_kernels_before", "first_kernels_after"),
    "second_us_per_kernel": ("second_saved_ms", "second_kernels_before", "second_kernels_after"),
    "per_kernel_ratio": ("first_us_per_kernel", "second_us_per_kernel", "machine.graph_us"),
    "plain_matvec_loss_ms": ("plain_matvec_ms", "floor_ms"),
    "plain_rest_ms": ("plain_attention_ms", "plain_other_ms", "plain_idle_ms", "plain_host_ms"),
    "owners_ms": ("plain_matvec_loss_ms", "plain_rest_ms"), "ring_saved_us": ("ring_before_ms", "ring_ms"),
    "mlp_share": ("mlp_copy_us", "mlp_us"), "chain_share": ("chain_copy_us", "chain_us"),
    "calls_sum_us": (*(f"cost_{c}_us" for c in figures.COST_CALLS), "cost_layers"),
    "chain_us": tuple(f"cost_{c}_us" for c in figures.CHAIN),
    "mlp_us": tuple(f"cost_{c}_us" for c in figures.MLP_CALLS),
    **dict.fromkeys(("fit_per_layer_us", "fit_once_us"), _FIT),
    "fit_off_line_us": (*_FIT, "fit_once_us", "fit_per_layer_us"),
    "layers_over_us": ("fit_per_layer_us", "layer_copy_us"),
    "once_off_us": ("fit_once_us", "once_copy_us"),
    "layers_gap_share": ("fit_per_layer_us", "layer_copy_us", "fit_once_us", "once_copy_us"),
    "floor_us": ("floor_ms",), "replay_gap_us": ("fit_all_us", "floor_ms"),
    "waits_us": ("no_wait_with_us", "no_wait_us"), "waits_gap_share": ("waits_us", "replay_gap_us"),
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
