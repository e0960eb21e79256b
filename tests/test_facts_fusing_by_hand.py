"""The fusing-by-hand facts on the fixture results, and each verdict driven both ways by the data."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from guardcases import both_ways

from kernelbook import page
from kernelbook.chapters.fusing_by_hand import facts as F
from kernelbook.chapters.fusing_by_hand import guards as G


@pytest.fixture
def data(fixture_results):
    load = lambda name, m=None: copy.deepcopy(page.result(name, m).data)  # noqa: E731
    return {"versions": load("fusing_by_hand.versions"), "exactness": load("fusing_by_hand.exactness"),
            "laptop_versions": load("fusing_by_hand.versions", F.LAPTOP),
            "laptop_exactness": load("fusing_by_hand.exactness", F.LAPTOP),
            "ceilings": load("machine.ceilings"), "eager_bytes": load("memory_bound.eager_bytes"),
            "sol_add": load("speed_of_light.add_rmsnorm"), "sol_swiglu": load("speed_of_light.swiglu"), "gpu": "H200"}


def _version(d, op, key):
    return next(v for v in d["versions"]["versions"] if v["op"] == op and v["key"] == key)


def test_the_fixture_reads_as_stored(data):
    f = F.from_data(**data)
    eager, triton = _version(data, "add_rmsnorm", "eager"), _version(data, "add_rmsnorm", "triton")
    assert f.norm_speedup == triton["speedup"] and f.norm_eager_ms == eager["time"]["median"]
    assert f.swiglu_cut == pytest.approx(1 - _version(data, "swiglu", "triton")["time"]["median"]
                                         / _version(data, "swiglu", "eager")["time"]["median"])
    assert f.laptop_norm_speedup == 5.2 and f.tie_limit == 0.002
    assert f.rounds == data["versions"]["rounds"] and f.round_s == data["versions"]["rep_ms"] / 1e3
    shares = [v["share_of_copy"] for v in data["versions"]["versions"] if v["share_of_copy"]]
    assert (f.share_low, f.share_high) == (min(shares), max(shares))
    assert F.facts().gpu == "H200"


def test_all_near_copy_follows_the_slowest_version(data):
    for v in data["versions"]["versions"]:
        if v["share_of_copy"]:
            v["share_of_copy"] = 0.95
    assert F.from_data(**data).all_near_copy
    f = F.from_data(**data)
    assert f.slow_versions == 0 and f.versions_counted == len(data["versions"]["versions"])
    _version(data, "add_rmsnorm", "eager")["share_of_copy"] = F.NEAR_COPY - 0.01
    _version(data, "swiglu", "eager")["share_of_copy"] = F.NEAR_COPY - 0.02
    f = F.from_data(**data)
    assert not f.all_near_copy and f.slow_versions == 2
    assert f.slowest_label == F.LABELS[("swiglu", "eager")] and f.share_low == F.NEAR_COPY - 0.02
    assert f.norm_eager_share == F.NEAR_COPY - 0.01 and f.norm_triton_share == 0.95


def test_far_below_the_ridge_only_at_fifty_times(data):
    f = F.from_data(**data)
    ceiling_copy = data["ceilings"]["bandwidth"]["copy"]["gbps"]  # the machine chapter's ridge, not this run's copy
    assert f.ridge == pytest.approx(data["ceilings"]["matmul"]["tflops"] * 1e3 / ceiling_copy)
    triton = _version(data, "swiglu", "triton")  # the fewest bytes for the most FLOP per element
    assert f.intensity_high == pytest.approx(data["eager_bytes"]["swiglu_intensity"]["flop_per_elem"]
                                             / triton["bytes_per_elem"])
    at_the_limit = F.FAR_BELOW * f.intensity_high * ceiling_copy / 1e3  # TFLOP/s
    data["ceilings"]["matmul"]["tflops"] = 1.001 * at_the_limit
    assert F.from_data(**data).far_below_ridge
    data["ceilings"]["matmul"]["tflops"] = 0.999 * at_the_limit
    assert not F.from_data(**data).far_below_ridge


@pytest.mark.parametrize("compiled_ms, verdict", [(1.001, "tied"), (1.05, "slower"), (0.95, "faster")])
def test_compiled_against_triton_is_tied_only_within_the_articles_limit(data, compiled_ms, verdict):
    _version(data, "swiglu", "triton")["time"]["median"] = 1.0
    _version(data, "swiglu", "compiled")["time"]["median"] = compiled_ms
    f = F.from_data(**data)
    assert f.compiled_swiglu_versus == verdict and f.compiled_swiglu_diff == pytest.approx(compiled_ms - 1)


def test_exactness_verdicts_follow_every_shape(data):
    cases = data["exactness"]["triton"]
    for c in cases:
        c["h"]["bit_identical"], c["swiglu"]["max_steps"] = True, 0
        c["y"]["max_steps"] = 1
    f = F.from_data(**data)
    assert f.h_exact and f.swiglu_exact and f.y_max_steps == 1 and not f.y_past_one_step and f.as_laptop
    cases[-1]["h"]["bit_identical"] = False  # one shape off is enough
    cases[0]["y"]["max_steps"] = 2
    cases[0]["swiglu"]["max_steps"] = 3
    f = F.from_data(**data)
    assert not f.h_exact and f.y_max_steps == 2 and f.y_past_one_step and not f.as_laptop
    assert not f.swiglu_exact and f.swiglu_max_steps == 3


def test_y_differences_are_counted_over_every_shape(data):
    cases = data["exactness"]["triton"]
    for i, c in enumerate(cases):
        c["y"]["differ"], c["y"]["elements"] = i, 100
    f = F.from_data(**data)
    assert f.y_differ == sum(range(len(cases))) and f.y_elements == 100 * len(cases)


def test_compiled_differs_reads_every_output(data):
    comp = data["exactness"]["compiled"]
    for k in ("h", "y", "swiglu"):
        comp[k]["differ"] = 0
    assert not F.from_data(**data).compiled_differs
    comp["swiglu"]["differ"] = 7
    assert F.from_data(**data).compiled_differs


def test_fused_faster_is_read_round_by_round(data):
    f = F.from_data(**data)
    assert f.norm_fused_versus == f.swiglu_fused_versus == "faster"  # the fixture's kernels beat eager every round
    eager, triton = _version(data, "add_rmsnorm", "eager"), _version(data, "add_rmsnorm", "triton")
    assert f.norm_bytes_ratio == pytest.approx(eager["bytes_moved"] / triton["bytes_moved"])
    triton["time"]["values"] = [1.1 * x for x in eager["time"]["values"]]
    sw_e, sw_t = _version(data, "swiglu", "eager")["time"], _version(data, "swiglu", "triton")["time"]
    sw_t["median"] = 1.2 * sw_e["median"]
    sw_t["values"] = [x * (0.9 if i % 2 else 1.1) for i, x in enumerate(sw_e["values"])]  # a noisy kernel: both sides
    f = F.from_data(**data)
    assert f.norm_fused_versus == "slower" and f.swiglu_fused_versus == "level"
    assert f.swiglu_cut == pytest.approx(-0.2)  # the median's share, shown whatever the rounds decide


def test_the_pages_words_for_the_articles_tie_are_the_ledgers(fixture_results):
    from kernelbook.chapters.claims import ledger

    f = F.facts()
    assert f.ties_norm_verdict == ledger.verdict_of("compiled-ties-norm") != "not measured"
    assert f.ties_swiglu_verdict == ledger.verdict_of("compiled-ties-swiglu") != "not measured"


def test_noise_marks_follow_each_versions_rounds(data):
    for v in data["versions"]["versions"]:
        v["time"].update(quiet=True, noise_pct=0.1)
    f = F.from_data(**data)
    assert f.all_quiet and f.noisy_count == 0 and f.compiled_quiet
    _version(data, "swiglu", "compiled")["time"].update(quiet=False, noise_pct=18.0)
    _version(data, "add_rmsnorm", "triton")["time"].update(noise_pct=0.4)
    f = F.from_data(**data)
    assert not f.all_quiet and f.noisy_count == 1 and not f.compiled_quiet
    assert f.noisiest_label == F.LABELS[("swiglu", "compiled")] and f.noisiest_pct == 18.0
    assert f.compiled_swiglu_noise == 18.0 and f.triton_noise_high == 0.4
    assert (f.min_rounds, f.cap_s) == (data["versions"]["min_rounds"], data["versions"]["cap_s"])


def test_compiled_noisiest_only_when_both_compiled_versions_are_noisier_than_the_rest(data):
    for v in data["versions"]["versions"]:
        v["time"].update(quiet=False, noise_pct=1.0)
    for op in ("add_rmsnorm", "swiglu"):
        _version(data, op, "compiled")["time"].update(noise_pct=10.0)
    assert F.from_data(**data).compiled_noisiest
    _version(data, "add_rmsnorm", "triton")["time"].update(noise_pct=12.0)
    assert not F.from_data(**data).compiled_noisiest


def _slower(d, op, key, k):
    """A copy of the run's data with one version's rounds k times as long (its speedup following)."""
    d = copy.deepcopy(d)
    v = next(x for x in d["versions"] if (x["op"], x["key"]) == (op, key))
    t = v["time"]
    for f in ("median", "min", "max"):
        t[f] *= k
    t["values"] = [x * k for x in t["values"]]
    if key != "eager":
        v["speedup"] /= k
    else:
        for x in d["versions"]:
            if x["op"] == op and x["key"] != "eager":
                x["speedup"] *= k
    return d


def test_one_run_reads_as_the_newest(data):
    f = F.from_data(**data)
    assert f.versions_runs == 1
    assert (f.norm_triton_ms_low, f.norm_triton_ms_high) == (f.norm_triton_ms, f.norm_triton_ms)
    assert not (f.norm_eager_ms_runs_vary or f.norm_triton_ms_runs_vary or f.norm_speedup_runs_vary
                or f.swiglu_cut_runs_vary)


def test_runs_apart_show_their_range_and_runs_inside_the_spread_do_not(data):
    v = data["versions"]
    noise = F.version_time(v, "add_rmsnorm", "triton")["noise_pct"] / 100
    near = F.from_data(**data, runs=[_slower(v, "add_rmsnorm", "triton", 1 + noise / 2), v])
    assert near.versions_runs == 2 and not near.norm_triton_ms_runs_vary and not near.norm_speedup_runs_vary
    far = F.from_data(**data, runs=[_slower(v, "add_rmsnorm", "triton", 1.3), v])
    t = F.version_time(v, "add_rmsnorm", "triton")["median"]
    assert far.norm_triton_ms_runs_vary and far.norm_speedup_runs_vary and not far.norm_eager_ms_runs_vary
    assert (far.norm_triton_ms_low, far.norm_triton_ms_high) == (t, pytest.approx(1.3 * t))
    assert far.norm_triton_ms == pytest.approx(1.15 * t)  # the median of two runs
    assert far.norm_speedup_high == _version(data, "add_rmsnorm", "triton")["speedup"]
    assert far.norm_speedup_low == pytest.approx(far.norm_speedup_high / 1.3)
    assert far.norm_fused_versus == F.from_data(**data).norm_fused_versus  # the verdict reads the newest run
    eager = F.from_data(**data, runs=[v, _slower(v, "add_rmsnorm", "eager", 1.3)])
    assert eager.norm_eager_ms_runs_vary and eager.norm_speedup_runs_vary and not eager.norm_triton_ms_runs_vary


def test_the_swiglu_cut_across_runs(data):
    v = data["versions"]
    f = F.from_data(**data, runs=[v, _slower(v, "swiglu", "triton", 1.2)])
    one = F.from_data(**data).swiglu_cut
    assert f.swiglu_cut_runs_vary and f.swiglu_cut_high == pytest.approx(one)
    assert f.swiglu_cut_low == pytest.approx(1 - 1.2 * (1 - one))
    assert not F.from_data(**data, runs=[v, copy.deepcopy(v)]).swiglu_cut_runs_vary


def _guard(name, f):
    return G.GUARDS[name][1](f)


@pytest.mark.parametrize("name, field", [("norm_fused_faster", "norm_fused_versus"),
                                         ("swiglu_fused_faster", "swiglu_fused_versus")])
def test_guards_fused_faster(data, name, field):
    f = F.from_data(**data)
    assert _guard(name, replace(f, **{field: "faster"}))
    assert not _guard(name, replace(f, **{field: "level"}))
    assert not _guard(name, replace(f, **{field: "slower"}))


def test_guard_norm_beats_rms_norm(data):
    """Against PyTorch's own fused norm the gain is small: a verdict from the paired rounds' interval, not medians."""
    f = F.from_data(**data)
    assert f.over_rms_norm > 1 and f.over_rms_norm_verdict in ("ahead", "behind", "level")
    assert _guard("norm_beats_rms_norm", replace(f, over_rms_norm=1.38, over_rms_norm_verdict="ahead"))
    assert not _guard("norm_beats_rms_norm", replace(f, over_rms_norm=1.38, over_rms_norm_verdict="level"))
    assert not _guard("norm_beats_rms_norm", replace(f, over_rms_norm=0.97, over_rms_norm_verdict="ahead"))
    v = copy.deepcopy(data["versions"])
    entry = next(x for x in v["versions"] if (x["op"], x["key"]) == ("add_rmsnorm", "rms_norm"))
    ours = next(x for x in v["versions"] if (x["op"], x["key"]) == ("add_rmsnorm", "triton"))
    entry["time"]["values"] = [0.9 * t for t in ours["time"]["values"]]  # F.rms_norm faster in every round
    entry["time"]["median"] = 0.9 * ours["time"]["median"]
    slower = F.from_data(**{**data, "versions": v})
    assert slower.over_rms_norm_verdict == "behind" and not _guard("norm_beats_rms_norm", slower)


def test_guards_on_exactness(data):
    f = F.from_data(**data)
    assert _guard("h_exact", replace(f, h_exact=True)) and not _guard("h_exact", replace(f, h_exact=False))
    assert _guard("y_differs", replace(f, y_max_steps=1))
    assert not _guard("y_differs", replace(f, y_max_steps=0))
    assert _guard("swiglu_exact", replace(f, swiglu_max_steps=0))
    assert not _guard("swiglu_exact", replace(f, swiglu_max_steps=1))
    assert _guard("compiled_differs", replace(f, compiled_differs=True))
    assert not _guard("compiled_differs", replace(f, compiled_differs=False))


def test_guard_laptop_closer(data):
    f = replace(F.from_data(**data), laptop_h_exact=True, laptop_y_max_steps=1)
    assert _guard("laptop_closer", replace(f, y_max_steps=2))
    assert not _guard("laptop_closer", replace(f, y_max_steps=1))  # as close as the laptop
    # the sentence speaks of y alone: the laptop's h does not decide it
    assert _guard("laptop_closer", replace(f, y_max_steps=2, laptop_h_exact=False))


def test_guards_rounds_capped_and_several_noisy(data):
    f = F.from_data(**data)
    assert _guard("rounds_capped", replace(f, all_quiet=False)) and _guard("several_noisy", replace(f, noisy_count=4))
    assert _guard("rounds_capped", replace(f, all_quiet=False, noisy_count=1))
    assert not _guard("several_noisy", replace(f, all_quiet=False, noisy_count=1))
    quiet = replace(f, all_quiet=True, noisy_count=0, rounds=10, noisiest_pct=0.33)
    assert not _guard("rounds_capped", quiet) and not _guard("several_noisy", quiet)
    assert "after 10 rounds" in G.GUARDS["rounds_capped"].found(quiet)
    assert G.GUARDS["several_noisy"].found(quiet).startswith("no version stayed noisy")


def test_guards_on_the_roofline(data):
    f = F.from_data(**data)
    assert _guard("far_below_ridge", replace(f, ridge_over_intensity=F.FAR_BELOW))
    assert not _guard("far_below_ridge", replace(f, ridge_over_intensity=F.FAR_BELOW - 1))
    assert _guard("some_below_copy", replace(f, slow_versions=2))
    assert not _guard("some_below_copy", replace(f, slow_versions=0))


def test_guards_beats_bytes_and_share_higher(data):
    f = replace(F.from_data(**data), norm_bytes_ratio=5.25, norm_triton_share=0.9, norm_eager_share=0.68)
    assert _guard("beats_bytes", replace(f, norm_speedup=7.0)) and _guard("share_higher", f)
    assert not _guard("beats_bytes", replace(f, norm_speedup=5.0))  # no more than the bytes predict
    assert not _guard("share_higher", replace(f, norm_eager_share=0.95))
    assert _guard("beats_bytes", replace(f, norm_speedup=7.0, norm_eager_share=0.95))  # one clause each


def test_guard_compiled_noisiest_reads_the_noise_not_the_stopping(data):
    f = F.from_data(**data)
    assert _guard("compiled_noisiest", replace(f, compiled_noisy=False, compiled_noisiest=True))
    assert not _guard("compiled_noisiest", replace(f, compiled_noisy=True, compiled_noisiest=False))


def _fusion_shape(d, rows, hidden):
    return next(s for s in d["shapes"] if (s["rows"], s["hidden"]) == (rows, hidden))["versions"]


def test_the_comparison_is_speed_of_lights_graph_replay_at_this_chapters_shape(data):
    """Issue 57, item 3: torch.compile against the hand-written kernels is GPU time by graph replay (speed-of-light's
    rounds, compiled over the fusion chapter's own kernels at this chapter's shape), not this chapter's do_bench
    times from Python, which keep the compiled call's host and guard cost inside the timer."""
    rows, hidden = data["versions"]["shape"]
    norm, sw = _fusion_shape(data["sol_add"], rows, hidden), _fusion_shape(data["sol_swiglu"], rows, hidden)
    f = F.from_data(**data)
    assert f.graph_norm_ratio == pytest.approx(norm["compiled"]["ms"] / norm["one_row"]["ms"])
    assert f.graph_swiglu_ratio == pytest.approx(sw["compiled"]["ms"] / sw["chapter"]["ms"])
    norm["compiled"]["ms"] = 1.25 * norm["one_row"]["ms"]  # the graph rounds move it; this chapter's table does not
    sw["compiled"]["ms"] = 0.9 * sw["chapter"]["ms"]
    moved = F.from_data(**data)
    assert moved.graph_norm_ratio == pytest.approx(1.25) and moved.graph_swiglu_ratio == pytest.approx(0.9)
    assert (moved.compiled_norm_ratio, moved.compiled_swiglu_ratio) == (f.compiled_norm_ratio, f.compiled_swiglu_ratio)
    _version(data, "add_rmsnorm", "compiled")["time"]["median"] *= 2  # and the table moves only its own figure
    assert F.from_data(**data).graph_norm_ratio == moved.graph_norm_ratio


def test_both_pages_print_one_value_for_the_comparison(monkeypatch):
    """On the stored results of both GPUs, fusing-by-hand's ratios are speed-of-light's (over several runs, the same
    median, with the same hover text)."""
    from kernelbook import factbook, paths

    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")
    for machine in (paths.primary_machine(), *paths.book_machines()):
        fb, sol = factbook.compute("fusing_by_hand", machine), factbook.compute("speed_of_light", machine)
        assert sol.facts.fusion_shape == f"{fb.facts.rows:,} × {fb.facts.hidden:,}", machine  # read at this shape
        for mine, theirs in (("graph_norm_ratio", "fusion_norm_ratio"), ("graph_swiglu_ratio", "fusion_swiglu_ratio")):
            assert getattr(fb.facts, mine) == getattr(sol.facts, theirs), (machine, mine)
            if sol.sources[theirs].rule == "median":  # several runs: the same median, said alike
                assert fb.sources[mine].title == sol.sources[theirs].title, (machine, mine)
            assert F.FORMATS[mine] == "times:3"


def test_compiled_noisy_only_when_neither_compiled_version_is_quiet(data):
    for v in data["versions"]["versions"]:
        v["time"].update(quiet=True, noise_pct=0.3)
    f = F.from_data(**data)
    assert not f.compiled_noisy and f.noise_other_high == 0.3
    _version(data, "swiglu", "compiled")["time"].update(quiet=False, noise_pct=20.0)
    assert not F.from_data(**data).compiled_noisy
    _version(data, "add_rmsnorm", "compiled")["time"].update(quiet=False, noise_pct=16.0)
    assert F.from_data(**data).compiled_noisy


def test_h_counts_the_shapes_that_differ(data):
    cases = data["exactness"]["triton"]
    f = F.from_data(**data)
    assert f.shapes == len(cases) and f.h_shapes_differ == 0 and f.h_max_steps == 0
    cases[0]["h"].update(bit_identical=False, max_steps=1)
    f = F.from_data(**data)
    assert f.h_shapes_differ == 1 and f.h_max_steps == 1
    assert f"at 1 of {len(cases)} shapes" in G.GUARDS["h_exact"].found(f)


def test_compiled_ratio_is_one_plus_the_difference(data):
    _version(data, "add_rmsnorm", "triton")["time"]["median"] = 1.0
    _version(data, "add_rmsnorm", "compiled")["time"]["median"] = 1.25
    f = F.from_data(**data)
    assert f.compiled_norm_ratio == pytest.approx(1.25) and f.compiled_norm_diff == pytest.approx(0.25)
    assert f.compiled_swiglu_ratio == pytest.approx(1 + f.compiled_swiglu_diff)


def test_the_speedup_shown_divides_the_two_times_shown(data):
    f = replace(F.from_data(**data), norm_eager_ms=0.49, norm_triton_ms=0.07)
    assert F.derive(f)["norm_speedup"] == pytest.approx(7.0)
    assert set(F.DERIVED_FROM) <= set(F.FORMATS)


def test_the_ridge_is_the_machine_chapters_from_the_two_medians(data):
    f = replace(F.from_data(**data), ceiling_tflops=500.0, ceiling_copy_gbps=4000.0)
    d = F.derive(f)
    assert d["ridge"] == pytest.approx(125) and d["ridge_over_intensity"] == pytest.approx(125 / f.intensity_high)
    assert d["far_below_ridge"] == (125 / f.intensity_high >= F.FAR_BELOW)


GUARD_CASES = {  # each guard: fields that make it hold, fields that make it fail
    "norm_fused_faster": ({"norm_fused_versus": "faster"}, {"norm_fused_versus": "level"}),
    "swiglu_fused_faster": ({"swiglu_fused_versus": "faster"}, {"swiglu_fused_versus": "slower"}),
    "norm_beats_rms_norm": ({"over_rms_norm": 1.38, "over_rms_norm_verdict": "ahead"},
                            {"over_rms_norm": 1.01, "over_rms_norm_verdict": "level"}),
    "h_exact": ({"h_exact": True}, {"h_exact": False, "h_shapes_differ": 1, "h_max_steps": 1}),
    "swiglu_exact": ({"swiglu_max_steps": 0}, {"swiglu_max_steps": 1}),
    "y_differs": ({"y_max_steps": 2}, {"y_max_steps": 0}),
    "laptop_closer": ({"y_max_steps": 2, "laptop_y_max_steps": 1}, {"y_max_steps": 1, "laptop_y_max_steps": 1}),
    "compiled_differs": ({"compiled_differs": True}, {"compiled_differs": False}),
    "some_below_copy": ({"slow_versions": 2}, {"slow_versions": 0, "share_low": 0.82, "share_high": 0.95}),
    "share_higher": ({"norm_triton_share": 0.9, "norm_eager_share": 0.68},
                     {"norm_triton_share": 0.7, "norm_eager_share": 0.8}),
    "beats_bytes": ({"norm_speedup": 7.0, "norm_bytes_ratio": 5.25}, {"norm_speedup": 5.0, "norm_bytes_ratio": 5.25}),
    "far_below_ridge": ({"ridge_over_intensity": 190.0}, {"ridge_over_intensity": 40.0}),
    "rms_norm_faster": ({"rms_norm_speedup": 5.1}, {"rms_norm_speedup": 0.9}),
    "compiled_noisiest": ({"compiled_noisiest": True}, {"compiled_noisiest": False}),
    "python_adds_host": ({"compiled_norm_ratio": 1.094, "graph_norm_ratio": 1.022, "compiled_swiglu_ratio": 1.21,
                          "graph_swiglu_ratio": 1.0},
                         {"compiled_norm_ratio": 1.009, "graph_norm_ratio": 1.014, "compiled_swiglu_ratio": 1.002,
                          "graph_swiglu_ratio": 0.997}),
    "rounds_capped": ({"all_quiet": False}, {"all_quiet": True}),
    "several_noisy": ({"noisy_count": 4}, {"noisy_count": 1}),
}


def test_every_guard_has_a_case():
    assert set(GUARD_CASES) == set(G.GUARDS)


@pytest.mark.parametrize("name", sorted(GUARD_CASES))
def test_each_guard_holds_one_way_and_fails_the_other_with_values(data, name):
    both_ways(name, G.GUARDS[name], F.from_data(**data), *GUARD_CASES[name])
