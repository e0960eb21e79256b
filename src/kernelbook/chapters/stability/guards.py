"""What docs/stability.md's sentences rest on: the GUARDS its paragraphs name (kernelbook.guards), each a test of
the page's facts (stability.facts) with the words that say what was found instead."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.chapters.stability.facts import Facts
from kernelbook.chapters.stability.figures import FIRM, HOST_BOUND, HOST_SHARE, TRACKS, Figure
from kernelbook.guards import Guard


def _fig(f: Facts, key: str) -> Figure:
    return next(x for x in f.figures if x.key == key)


def _not_unsettled(f: Facts, key: str, name: str) -> str:
    """Where a launch figure is not unsettled: its runs, and what its label is instead."""
    x = _fig(f, key)
    if x.current_runs == 1:
        return (f"{name} has one run of the current code, {fmt.num(x.median, 2)} µs with a spread of "
                f"{fmt.pct(x.within, 1)} inside it ({x.firmness}): there is no second run for it to disagree with")
    return (f"{name}'s {x.current_runs} runs of the current code lie {fmt.pct(x.current_range, 1)} apart, within "
            f"{fmt.pct(FIRM)} or its own spread of {fmt.pct(x.within, 1)}: it is {x.firmness}")


def _one_run_each(f: Facts) -> str:
    """The runs of the current code, where some experiment has a single one."""
    if f.one_current_each:
        return (f"each of the {f.experiments} experiments ran once with the current code ({f.current_runs} runs in "
                "all), so no experiment has a pair of runs to compare")
    return f"{f.one_current_experiments} of the {f.experiments} experiments have a single run of the current code"


def _disagree_found(f: Facts) -> str:
    if f.one_run_figures == f.n_figures:
        return (f"no headline figure has a run-to-run range yet: with one run each, none can disagree beyond its own "
                f"spread ({f.n_steady} are steady in their one run, {f.n_noisy} noisy in it, {f.n_no_rounds} store no "
                "rounds)")
    return (f"no figure's runs of the current code disagree by more than {fmt.pct(FIRM)} and by more than their own "
            f"spreads ({f.n_firm} are firm, {f.n_noisy} noisy)")


def _current_gap(f: Facts) -> str:
    x = max((r for r in f.launch_runs if r.current), key=lambda r: abs(r.eager_over_host - 1))
    return (f"in a run of the current code the eager cost per launch lay {fmt.pct(abs(x.eager_over_host - 1))} from "
            f"the host's enqueue time ({fmt.num(x.eager_us, 2)} against {fmt.num(x.host_us, 2)} µs)")


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "all_judged": Guard(
        "every headline figure has two runs or more of the current code, so each is firm, noisy or unsettled",
        lambda f: f.one_run_figures == 0, states=("their runs agree",),
        found=lambda f: (f"{f.one_run_figures} of the {f.n_figures} headline figures have a single run of the "
                         f"current code ({f.n_steady} steady in it, {f.n_no_rounds} with no rounds stored): how firm "
                         "they are needs a second run"),
        absent=(lambda f: f.one_run_figures == f.n_figures,
                lambda f: (f"each of the {f.n_figures} headline figures has one run of the current code, and firm "
                           "or unsettled weighs two runs or more against each other"))),
    "runs_disagree": Guard(
        f"the runs of some figure disagree by more than {FIRM:.0%} and by more than their own spreads",
        lambda f: f.n_unsettled > 0, states=("not that the next run will agree",), found=_disagree_found,
        absent=(lambda f: f.one_run_figures == f.n_figures, _disagree_found)),
    "eager_unsettled": Guard(
        "the eager launch is unsettled: its runs disagree by more than the threshold and their own spreads",
        lambda f: f.launch_eager_firmness == "unsettled", states=("calls the eager launch unsettled",),
        found=lambda f: _not_unsettled(f, "launch_eager", "the eager launch"),
        absent=(lambda f: _fig(f, "launch_eager").current_runs == 1,
                lambda f: _not_unsettled(f, "launch_eager", "the eager launch"))),
    "host_unsettled": Guard(
        "the host's enqueue time is unsettled: its runs disagree by more than the threshold and their own spreads",
        lambda f: f.launch_host_firmness == "unsettled", states=("calls the host's enqueue time unsettled",),
        found=lambda f: _not_unsettled(f, "launch_host", "the host's enqueue time"),
        absent=(lambda f: _fig(f, "launch_host").current_runs == 1,
                lambda f: _not_unsettled(f, "launch_host", "the host's enqueue time"))),
    "host_paced": Guard(
        f"in every run of the current code, the eager cost per launch came within {TRACKS:.0%} of the host's time to "
        "enqueue one launch", lambda f: f.launch_tracks_current,
        states=(("came within {{ f.tracks }} of the host's time", "move with the host"),), found=_current_gap),
    "launch_moved": Guard(
        f"over the stored runs, the eager cost per launch moved by more than {FIRM:.0%} of today's figure",
        lambda f: f.launch_eager_moved > FIRM, states=("ran from {{ f.launch_eager_low }} to",),
        found=lambda f: (f"over its {f.launch_n} stored runs the eager cost per launch ran from "
                         f"{fmt.num(f.launch_eager_low, 2)} to {fmt.num(f.launch_eager_high, 2)} µs, "
                         f"{fmt.pct(f.launch_eager_moved, 1)} of today's figure"),
        absent=(lambda f: f.launch_n == 1,
                lambda f: (f"the launch loop has one stored run, at {fmt.num(f.launch_eager_low, 2)} µs per eager "
                           "launch: the lowest and highest run are the same run"))),
    "launch_clocks": Guard(
        "every launch run read the same SM and memory clocks at its start and its end",
        lambda f: f.launch_clocks_same, states=("found the GPU's clocks where the others did",),
        found=lambda f: (f"the {f.launch_n} launch runs did not all read the same clocks at their starts and ends "
                         f"(SM at {', '.join(f.launch_sm_seen)} MHz)")),
    "eager_host": Guard(
        f"in both eager decode ways, the host's time was at least {HOST_BOUND:.0%} of the step in every round",
        lambda f: f.eager_host_low >= HOST_BOUND,
        states=(("at least {{ f.eager_host_low }} of the step in every round",
                 "eager decode [steps](glossary.md#step) move with the host"),),
        found=lambda f: (f"in some round of an eager decode way the host's time was only "
                         f"{fmt.pct_down(f.eager_host_low, 1)} of the step")),
    "graph_host": Guard(
        f"in both compiled graph modes, the slowest round's extra host time was at least {HOST_SHARE:.0%} of its "
        "extra step time", lambda f: f.graph_modes_host, states=("extra host time too",),
        found=lambda f: (f"in its slowest round, reduce-overhead's step ran {fmt.num(f.ro_slow_step_ms, 2)} ms over "
                         f"its median with {f.ro_slow_host_ms:+.2f} ms of host time, max-autotune's "
                         f"{fmt.num(f.ma_slow_step_ms, 2)} ms over with {f.ma_slow_host_ms:+.2f} ms")),
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
                lambda f: (f"max-autotune's {f.picks_kernels} kernels for the MLP half come from one stored run, with "
                           "no other run's picks to set beside them"))),
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
                lambda f: (f"the hand-built decode step tuned its {f.far_sites} sites in one stored run, with no "
                           "other run's configurations to compare"))),
    "two_each": Guard(
        "every experiment has at least two runs of the current code", lambda f: f.one_current_experiments == 0,
        states=("at least two runs each",), found=_one_run_each,
        absent=(lambda f: f.one_current_each, _one_run_each)),
    "same_sw": Guard(
        "every stored run used the same torch, Triton, CUDA and driver", lambda f: f.same_versions,
        states=("the same software",),
        found=lambda f: f"the stored runs used {len(f.software_seen)} sets of software: {'; '.join(f.software_seen)}"),
    "earlier": Guard(
        "some experiment has a stored run of earlier code", lambda f: f.earlier_runs > 0,
        states=("runs of earlier code",), found=lambda f: f"{f.earlier_runs} runs of earlier code are stored",
        instead=(lambda f: f.earlier_runs == 0, "every stored run is of the current code: none of earlier code")),
    "moved": Guard(
        f"an earlier-code run put some figure further from today's than {FIRM:.0%} and than the spreads",
        lambda f: f.n_moved > 0, states=("further from today's median than the threshold",),
        found=lambda f: (f"none of the {f.earlier_runs} earlier-code runs lies further from today's figure than "
                         f"{fmt.pct(FIRM)} and than its own spread"),
        absent=(lambda f: f.earlier_runs == 0,
                "with no earlier-code run stored, no figure has an older value to have moved from")),
}
