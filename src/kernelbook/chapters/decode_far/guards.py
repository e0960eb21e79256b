"""What docs/decode-far.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test of
the chapter's facts (decode_far.facts) with the words that say what was found instead."""

from __future__ import annotations

from collections.abc import Callable

from kernelbook import fmt
from kernelbook.chapters.decode_far.facts import FIRST_TWO, NEAR_COPY, OFF_LINE, Facts
from kernelbook.chapters.decode_far.figures import FUSING_STEPS, NEAR_FP32, strip
from kernelbook.guards import Guard


def _ms(x: float | None) -> str:
    return fmt.num(x, 3)


def _us(x: float | None, digits: int = 1) -> str:
    return fmt.num(x, digits)


def _q(label: str | None) -> str:
    return f"“{strip(label or '')}”"


def _names(xs: tuple[str, ...]) -> str:
    return " and ".join(xs) if xs else "none"


def _not_fastest(what: str, label: Callable[[Facts], str | None]) -> Callable[[Facts], str]:
    """Where a rung the page calls "the fastest" is slower by the rounds than the fastest that passed its check."""
    return lambda f: (f"{what} {_q(label(f))}, slower by the rounds than the fastest "
                      f"rung that passed its check, {_q(f.best_label)} at {_ms(f.best_ms)} ms (level with it: "
                      f"{_names(tuple(_q(x) for x in f.fastest))})")


def _saved(name: str, x: float | None, low: float | None, high: float | None, clear: bool = False) -> str:
    """A rung against the one before it, round by round: the median saving and its interval (`clear`: the page says
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
        "the fastest rung that passed its check was faster than the plain graph, both timed back to back",
        lambda f: f.best_loop_speedup > 1, states=("faster, with",),
        found=lambda f: f"back to back, the fastest rung that passed its check took {_ms(f.best_loop_ms)} ms, the "
                        f"plain graph {_ms(f.base_loop_ms)} ms",
        absent=(lambda f: f.best_ms is None or f.best_loop_ms is None or f.base_loop_ms is None,
                "no rung passed its check, or the runs timed no steps back to back")),
    "best_fewer_kernels": Guard(
        "the fastest rung that passed its check ran fewer kernels than the plain graph",
        lambda f: f.best_kernels < f.base_kernels, states=("kernels instead of",),
        found=lambda f: f"the fastest rung that passed its check ran {f.best_kernels} kernels, the plain graph "
                        f"{f.base_kernels}"),
    "fusing_most": Guard(
        "the two fusing rungs together saved more than half of what the fastest rung gained on the plain graph",
        lambda f: f.fusing_gain_share > 0.5, states=("bought most of this gain",),
        found=lambda f: f"the two fusing rungs saved {_ms(f.fusing_saved_ms)} ms of the "
                        f"{_ms(None if f.best_ms is None else f.base_ms - f.best_ms)} ms gained "
                        f"({fmt.pct(f.fusing_gain_share)})"),
    "layers_hold_most": Guard(
        "the layers hold more than half of the step's distance from the floor, the once-a-step part the rest",
        lambda f: f.layers_gap_share > 0.5,
        states=(("Most of what is left is inside the layers",
                 "The distance left to the floor is in the launches between"),),
        found=lambda f: f"the layers hold {fmt.pct(f.layers_gap_share)} of the step's distance from the floor",
        absent=(lambda f: not f.has_layer_fit, "the rung was not built over fewer layers")),
    "attention_further": Guard(
        "a layer's attention half runs further from its bytes' copy time than its MLP",
        lambda f: f.chain_share < f.mlp_share,
        states=(("more of it in each layer's attention half", "further from its bytes",
                 "above all in the attention half"),),
        found=lambda f: f"a layer's attention half ran at {fmt.pct(f.chain_share)} of its bytes' copy speed, its MLP "
                        f"at {fmt.pct(f.mlp_share)}"),
    "mlp_at_copy": Guard(
        "the MLP's calls cost about their bytes' copy time, within a tenth",
        lambda f: abs(f.mlp_share - 1) <= NEAR_COPY,
        states=(("streams its weights at about the copy speed", "stream their weights at about the copy speed"),),
        found=lambda f: f"the MLP's calls cost {_us(f.mlp_us)} µs for {_us(f.mlp_copy_us)} µs of bytes at copy speed "
                        f"({fmt.pct(f.mlp_share)} of it)"),
    # where the page starts
    "six_mostly_overhead": Guard(
        "the decode chapter's fastest step reached under half of the floor's speed",
        lambda f: f.six_best_floor_share < 0.5, states=("so most of the step was overhead",),
        found=lambda f: f"the decode chapter's best step took {_ms(f.six_best_ms)} ms against a floor of "
                        f"{_ms(f.six_floor_ms)} ms, {fmt.pct(f.six_best_floor_share)} of the floor's speed",
        absent=(lambda f: not f.six_has_best, "no variant of the decode chapter passed its check")),
    "beyond_six": Guard(
        "the fastest rung that passed its check beat the decode chapter's fastest way, each step timed alone",
        lambda f: f.best_ms < f.six_best_ms, states=("it went to",),
        found=lambda f: f"timed alone, the fastest rung that passed its check took {_ms(f.best_ms)} ms, the decode "
                        f"chapter's fastest way {_ms(f.six_best_ms)} ms",
        absent=(lambda f: not f.six_has_best or f.best_ms is None, "no rung or no way of the decode chapter passed "
                                                                   "its check")),
    "laptop_closer": Guard(
        "the laptop's best step came closer to its floor than this GPU's best to its own",
        lambda f: f.laptop_best_floor_share > f.six_best_floor_share, states=("came closer to its own floor",),
        found=lambda f: f"the laptop's best step reached {fmt.pct(f.laptop_best_floor_share)} of its floor's speed, "
                        f"this GPU's {fmt.pct(f.six_best_floor_share)}"),
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
        found=lambda f: f"the read-only pass reached {fmt.num(f.read_gbps, 0)} GB/s, the copy "
                        f"{fmt.num(f.copy_gbps, 0)} GB/s"),
    "lm_past_copy": Guard(
        "the LM head's projection, tuned alone, read faster than the copy", lambda f: f.lm_head_copy_share > 1,
        states=("Neither pass is a hard limit",),
        found=lambda f: f"the LM head's projection, tuned alone, read at {fmt.pct(f.lm_head_copy_share)} of the "
                        f"copy's speed ({fmt.num(f.lm_head_gbps, 0)} against {fmt.num(f.copy_gbps, 0)} GB/s)"),
    "lm_past_read": Guard(
        "the LM head's projection, tuned alone, read faster than the read-only pass",
        lambda f: f.lm_head_read_share > 1, states=("Neither pass is a hard limit",),
        found=lambda f: f"the LM head's projection, tuned alone, read at {fmt.pct(f.lm_head_read_share)} of the "
                        f"read-only pass's speed ({fmt.num(f.lm_head_gbps, 0)} against "
                        f"{fmt.num(f.read_gbps, 0)} GB/s), so the read was a limit for it"),
    # what the steps bought
    "fusing_largest": Guard(
        "the two largest savings came from the two fusing rungs, the one into the matvecs first",
        lambda f: (strip(f.first_label), strip(f.second_label)) == FUSING_STEPS[::-1],
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
                        f"{fmt.num(f.graph_us_per_launch, 2)} µs"),
    "matvec_faster": Guard(
        "the rung with the matvec kernel was faster than the cuBLAS rung before it", lambda f: f.matvec_saved_ms > 0,
        states=("beat cuBLAS at its own job",),
        found=lambda f: f"the rung with the matvec kernel took {_ms(f.matvec_step_ms)} ms, the cuBLAS rung before "
                        f"it {_ms(f.matvec_before_ms)} ms",
        absent=(lambda f: not f.has_matvec, "the matvec rung or the one before it was not timed")),
    "matvec_profiled_all": Guard(
        "both rungs' profiles caught every projection, so their read speeds compare",
        lambda f: f.matvec_profiled_all, states=("In their profiles",),
        found=lambda f: f"the matvec rung's profile caught {f.matvec_launches} projection launches, the cuBLAS "
                        f"rung's {f.cublas_launches}"),
    "matvec_reads_faster": Guard(
        "in their profiles the matvec kernels read the weights faster than cuBLAS's projection kernels",
        lambda f: f.matvec_gbps > f.cublas_gbps, states=("read the weights faster",),
        found=lambda f: f"in their profiles the matvec kernels read the weights at {fmt.num(f.matvec_gbps, 0)} "
                        f"GB/s, cuBLAS's projection kernels at {fmt.num(f.cublas_gbps, 0)} GB/s"),
    "pdl_used": Guard(
        "programmatic dependent launch was used", lambda f: f.pdl_used,
        states=("Programmatic dependent launch saved",),
        found=lambda f: "the GPU did not support programmatic dependent launch, so the rung ran without it"),
    "pdl_faster": Guard(
        "the rung with programmatic dependent launch was faster than the one before it",
        lambda f: f.pdl_saved_ms > 0, states=("Programmatic dependent launch saved",),
        found=lambda f: f"the rung with programmatic dependent launch took {_ms(f.pdl_ms)} ms, the one before it "
                        f"{_ms(f.pdl_before_ms)} ms",
        absent=(lambda f: not f.has_pdl, "the rung with programmatic dependent launch was not timed")),
    "pdl_same_kernels": Guard(
        "the rung with programmatic dependent launch ran the same kernels as the one before it",
        lambda f: f.pdl_same_kernels, states=("with the same kernels",),
        found=lambda f: f"the rung with programmatic dependent launch ran {f.pdl_kernels} kernels, the one before "
                        f"it {f.pdl_kernels_before}"),
    "retune_pdl_helped": Guard(
        "tuning the sites again inside the rung with programmatic dependent launch cut its time",
        lambda f: f.retune_pdl_cut > 0,
        states=(("part of it from tuning the kernels again", "retuned inside the step, in"),),
        found=lambda f: f"retuned inside the step, the rung with programmatic dependent launch replayed in "
                        f"{_us(f.retune_pdl_us)} µs, against {_us(f.retune_pdl_alone_us)} µs with every site at its "
                        "config alone",
        absent=(lambda f: f.retune_pdl_cut is None, "the rung with programmatic dependent launch was not tuned "
                "again inside itself")),
    "greedy_host_cut": Guard(
        "picking the next token inside the graph cut the host's time per step",
        lambda f: f.greedy_host_us < f.greedy_host_us_before, states=("cut the host's time per step",),
        found=lambda f: f"picking the next token inside the graph took the host's time per step from "
                        f"{_us(f.greedy_host_us_before)} µs to {_us(f.greedy_host_us)} µs",
        absent=(lambda f: not f.has_greedy, "the rung that picks its own next token was not timed")),
    # the last four changes
    "ring_faster": Guard(
        "the rung with SwiGLU's ring was faster than the rung before it at the median",
        lambda f: f.ring_saved_us > 0, states=("SwiGLU's ring was faster at the median",),
        found=lambda f: f"the rung with SwiGLU's ring took {_ms(f.ring_ms)} ms at the median, the rung before it "
                        f"{_ms(f.ring_before_ms)} ms",
        absent=(lambda f: not f.has_ring, "the rung with SwiGLU's ring was not built")),
    "ring_not_every_round": Guard(
        "in some round of some run the rung with SwiGLU's ring was slower than the rung before it",
        lambda f: f.ring_saved_low_us < 0,
        states=(("though not in every [round](glossary.md#round)",
                 "in some round of one run the ring rung was the slower"),),
        found=lambda f: f"the rung with SwiGLU's ring was faster in every round, saving {_us(f.ring_saved_low_us)} "
                        f"to {_us(f.ring_saved_high_us)} µs",
        absent=(lambda f: f.ring_saved_low_us is None, "the rung with SwiGLU's ring was not timed")),
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
        absent=(lambda f: f.last_cost_ms is None, "the last rung or the one before it was not timed")),
    "fold_alone_slower": Guard(
        "tuned alone, the folded kernel was slower than attention and the output projection as two launches",
        lambda f: f.fold_us > f.pair_us, states=(("already slower timed alone", "the folded kernel was slower"),),
        found=lambda f: f"tuned alone, the folded kernel took {_us(f.fold_us, 2)} µs a layer, attention and the "
                        f"output projection {_us(f.pair_us, 2)} µs",
        absent=(lambda f: f.fold_us is None, "the folded kernel was not tuned")),
    "fastest_stays": Guard(
        "the rung before the last is the fastest that passed its check, or level with it by the rounds",
        lambda f: f.last_prev_label in f.fastest, states=("stays the fastest rung that passed its check",),
        found=_not_fastest("the rung before the last is", lambda f: f.last_prev_label)),
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
        lambda f: f.few_saved_us > 0, states=("the rung saved",),
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
        states=("the rung saved",),
        found=lambda f: _saved("down's ring", f.down_saved_us, f.down_saved_low_us, f.down_saved_high_us),
        absent=(lambda f: not f.has_down, "down's ring was not built")),
    # where the rest goes
    "fit_fastest": Guard(
        "the rung built over fewer layers is the fastest that passed its check, or level with it by the rounds",
        lambda f: f.fit_label in f.fastest, states=("the fastest that passed its check or level with it",),
        found=_not_fastest("the rung built over fewer layers is", lambda f: f.fit_label),
        absent=(lambda f: not f.has_layer_fit, "the rung was not built over fewer layers")),
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
        "the profiled layer is the fastest rung's that passed its check, or that of one level with it by the rounds",
        lambda f: f.timeline_label in f.fastest, states=("The graph of the rung taken apart",),
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
        "synchronised, the fastest rung is level by its rounds with the fastest published step",
        lambda f: f.sync_vs_fast == "level", states=("level with",),
        found=lambda f: f"synchronised, the fastest rung here read {_us(f.ours_tbps, 2)} TB/s, "
                        f"{_stand_words(f.sync_vs_fast)} {f.anchor_fast_label}'s {_us(f.anchor_fast_tbps, 2)} TB/s",
        absent=(lambda f: not f.has_anchors, "no rung passed its check")),
    "sync_ahead_slow": Guard(
        "synchronised, the fastest rung is ahead by its rounds of the slower published step",
        lambda f: f.sync_vs_slow == "ahead", states=("That is ahead of",),
        found=lambda f: f"synchronised, at {_us(f.ours_tbps, 2)} TB/s, the fastest rung here was "
                        f"{_stand_words(f.sync_vs_slow)} {f.anchor_slow_label}'s {_us(f.anchor_slow_tbps, 2)} TB/s"),
    "loop_ahead_fast": Guard(
        "back to back, the fastest rung is ahead by its rounds of the fastest published step",
        lambda f: f.loop_vs_fast == "ahead", states=("Back to back it was ahead of",),
        found=lambda f: f"back to back, the fastest rung here read {_us(f.ours_loop_tbps, 2)} TB/s, "
                        f"{_stand_words(f.loop_vs_fast)} {f.anchor_fast_label}'s {_us(f.anchor_fast_tbps, 2)} TB/s"),
    "loop_ahead_slow": Guard(
        "back to back, the fastest rung is ahead by its rounds of the slower published step",
        lambda f: f.loop_vs_slow == "ahead", states=("back to back too",),
        found=lambda f: f"back to back, at {_us(f.ours_loop_tbps, 2)} TB/s, the fastest rung here was "
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
        "the first two rungs, and only they, matched eager bit for bit", lambda f: f.exact == FIRST_TWO,
        states=("The first two rungs matched eager bit for bit",),
        found=lambda f: f"the rungs that matched eager bit for bit are {_names(tuple(_q(x) for x in f.exact))}"),
    "worst_near_fp32": Guard(
        "the largest error of any rung is about float32's own distance from bf16, within a fifth",
        lambda f: f.worst_rel_err <= NEAR_FP32 * f.fp32_rel_err,
        states=("about as far from eager as float32 is",),
        found=lambda f: "no rung rounded differently from eager" if f.worst_rel_err is None else
        f"the largest error of any rung was {fmt.pct(f.worst_rel_err, 2)}, float32's {fmt.pct(f.fp32_rel_err, 2)}"),
    "all_passed": Guard(
        "every rung passed its check", lambda f: not f.any_failed, states=("Every rung passed",),
        found=lambda f: f"{_names(tuple(_q(x) for x in f.failed))} failed the check"),
    "all_finite": Guard(
        "every rung's logits were finite", lambda f: not f.any_nonfinite, states=("with finite logits throughout",),
        found=lambda f: f"the logits of {_names(tuple(_q(x) for x in f.nonfinite))} held NaN or infinity"),
    "free_some_parted": Guard(
        "some rungs run free parted from eager's tokens", lambda f: f.free_same < f.free_steps,
        states=("the others parted from them",),
        found=lambda f: f"all {f.free_steps} rungs run free wrote exactly eager's tokens"),
    "near_ties_only": Guard(
        "under teacher forcing every top-token difference fell within the band", lambda f: f.near_ties_only,
        states=("every top-token difference fell at a near-tie",),
        found=lambda f: f"under teacher forcing some top-token difference fell outside the band of {f.band:.3f}"),
    "same_eager_tokens": Guard(
        "the decode chapter's eager run wrote the same tokens, so its logit gaps apply here",
        lambda f: f.same_eager_tokens, states=("in the decode chapter's run",),
        found=lambda f: "the decode chapter's eager run wrote other tokens, so its logit gaps are not these"),
    "next_argmax": Guard(
        "the first rung that picks its own next token wrote its argmax at every step",
        lambda f: f.next_agree == f.next_steps,
        states=("wrote the argmax of its logits into its input buffer every time",),
        found=lambda f: f"{_q(f.next_label)} wrote the argmax of its logits at {f.next_agree} of {f.next_steps} steps",
        absent=(lambda f: f.next_agree is None, "no rung that picks its own next token was checked doing so")),
    "next_positions": Guard(
        "the first rung that picks its own next token wrote the next position at every step",
        lambda f: f.next_positions_ok, states=("and the position after it",),
        found=lambda f: f"{_q(f.next_label)} wrote a wrong next position at some step"),
    # timing
    "rounds_at_cap": Guard(
        "the rounds stopped at the time cap, not quiet", lambda f: not f.rounds_quiet,
        states=("They stopped at the cap",),
        found=lambda f: f"the rounds stopped quiet after {f.rounds_n} rounds, before the "
                        f"{fmt.num(f.rounds_cap_s, 0)} s cap"),
    "steps_noisy": Guard(
        "more than one rung, timed one step at a time, stayed noisy at the cap", lambda f: f.step_noisy_count > 1,
        states=("Several rungs timed one step at a time stayed noisy",),
        found=lambda f: f"{f.step_noisy_count} rung{'' if f.step_noisy_count == 1 else 's'} timed one step at a time "
                        f"stayed noisy, up to {fmt.num(f.step_noise_high, 1)}%"),
    "loops_quiet": Guard(
        "every back-to-back loop was quiet", lambda f: f.loop_all_quiet,
        states=("every back-to-back loop was quiet",),
        found=lambda f: f"some back-to-back loop stayed noisy, up to {fmt.num(f.loop_noise_high, 2)}% against the "
                        f"{fmt.num(f.rounds_bound_pct, 1)}% bound"),
    "round_trip": Guard(
        "back to back, the last rung was faster than synchronised around every step", lambda f: f.round_trip_ms > 0,
        states=("ms less than synchronised around every step",),
        found=lambda f: f"back to back the last rung took {_ms(f.last_loop_ms)} ms, synchronised {_ms(f.last_ms)} ms",
        absent=(lambda f: f.round_trip_ms is None, "the last rung was not timed back to back")),
    "alone_under_loop": Guard(
        "the graph replayed alone was faster than its loop", lambda f: f.alone_outside_ms > 0,
        states=("ms less than its loop",),
        found=lambda f: f"replayed alone the graph took {_ms(f.alone_ms)} ms, its loop {_ms(f.alone_loop_ms)} ms"),
    "costs_fastest": Guard(
        "the rung whose calls were left out and whose graph was replayed alone is the fastest that passed its check, "
        "or level with it by the rounds",
        lambda f: f.alone_label in f.fastest,
        states=(("the rung taken apart", "Leaving one call out of the rung taken apart"),),
        found=_not_fastest("the calls were left out of", lambda f: f.alone_label)),
    "lm_head_site_over_copy": Guard(
        "tuned alone, the LM head's site read faster than the copy", lambda f: "lm_head" in f.sites_over_copy,
        states=("how `lm_head` can pass",),
        found=lambda f: f"tuned alone, the LM head's site read at {fmt.pct(f.lm_head_copy_share)} of the copy's "
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
        "the kernel table is the last rung's", lambda f: strip(f.kernels_label or "") == f.last_label,
        states=("One profiled step of the last rung",),
        found=lambda f: f"the kernel table is of {_q(f.kernels_label)}, not of the last rung, {_q(f.last_label)}",
        absent=(lambda f: f.kernels_label is None, "no rung was profiled")),
    "kernels_no_copies": Guard(
        "the last rung's profile holds no copy or memset", lambda f: f.kernels_copies == 0,
        states=("none of them a copy or a memset",),
        found=lambda f: f"the profile holds {f.kernels_copies} copies or memsets"),
    "kernels_overlap": Guard(
        "the last rung's kernels' durations add up to more than the step",
        lambda f: f.kernels_busy_ms > f.kernels_step_ms,
        states=("durations add up to more than the step",),
        found=lambda f: f"the kernels' durations add up to {_us(f.kernels_busy_ms, 2)} ms, the step takes "
                        f"{_us(f.kernels_step_ms, 2)} ms"),
    "kernels_compared": Guard(
        "the last rung without programmatic dependent launch was profiled beside it", lambda f: f.has_compared,
        states=("The last column, from the last rung without programmatic dependent launch",),
        found=lambda f: "no rung without programmatic dependent launch was profiled beside it: the last column is "
                        "empty"),
    "calls_under_whole": Guard(
        "the calls' costs, times the layers, add up to less than the whole graph replayed",
        lambda f: f.calls_sum_us < f.fit_all_us,
        states=("The rest is what no single call owns",),
        found=lambda f: f"the calls' costs, times the layers, add up to {_us(f.calls_sum_us)} µs, the whole graph "
                        f"{_us(f.fit_all_us)} µs",
        absent=(lambda f: f.fit_all_us is None, "the rung was not built over fewer layers")),
    "calls_over_copy": Guard(
        "the calls that pass 100% of the copy are SwiGLU's ring and the LM head",
        lambda f: set(f.calls_over_copy) == {"swiglu_ring", "lm_head"}, states=("pass 100%",),
        found=lambda f: "the calls that pass 100% of the copy are "  # named as the cost table names them
                        + _names(f.calls_over_copy)),
}
