"""How docs/decode-far.md's figures are computed from the stored runs (decode_far.ladder, decode.six_ways): each
function reads the JSON through decode_far.report and returns the Facts fields of one part of the page, by name
(decode_far.facts assembles them), with the thresholds its verdicts use and the words those verdicts take.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Literal

from kernelbook.chapters.decode_far import anchors
from kernelbook.chapters.decode_far import report as far
from kernelbook.decode import report as decode_report
from kernelbook.stats import paired

NEAR_FP32 = 1.2  # a step's largest error is "about bf16's own" within this factor of eager fp32's distance
MORE_THAN_HANDOFF = 1.3  # a removed kernel "cost more than its hand-off" past this many graph launches saved
BYTES_NEGLIGIBLE = 0.2  # attention's time "is not its bytes" when they take under this share of it at copy speed
CHAIN = ("qkv_rope", "attention", "o")  # a layer's attention half: three launches, each waiting for the one before
FUSING_STEPS = ("fused add+RMSNorm, SwiGLU", "norm, RoPE, SwiGLU, residual in the matvecs")  # steps four and six
MLP_CALLS = ("swiglu", "swiglu_ring", "down", "down_ring")  # a step makes one of the two SwiGLU calls and one down call
COST_CALLS = ("qkv_rope", "attention", "o", "attention_o", "swiglu", "swiglu_ring", "down", "down_ring",
              "lm_head")  # the calls launch_costs may leave out (decode/fast.py's FUSED_CALLS): one Facts field each
PER_STEP_CALLS = ("lm_head",)  # made once a step; the others once a layer
RETUNED = ("matvec_fusions", "pdl")  # the fused steps whose sites are tuned again inside them (ladder.IN_STEP)
Goal = Literal["met", "over", "failed", "missing"]  # failed: timed but wrong; missing: not built or not timed
Shrank = Literal["as_the_floor", "less", "not"]
Ordering = Literal["faster", "slower", "mixed", "missing"]  # one step against another in every round, or not
Paired = Literal["faster", "slower", "level", "missing"]  # the interval of a median saving: above, below or across 0
Stand = Literal["ahead", "level", "behind", "missing"]  # this run's rounds above, across or below a published figure
Side = Literal["within", "over", "under"]  # where a time's bytes at the copy bandwidth fall against its interval


def strip(label: str) -> str:
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


def start(six: dict[str, Any], laptop: dict[str, Any]) -> dict[str, Any]:
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


def ladder(d: dict[str, Any], s: dict[str, dict[str, Any]], rows: list[dict[str, Any]], g: dict[str, Any],
           read_gbps: float) -> dict[str, Any]:
    """The ladder end to end (s: report.summaries; rows: report.waterfall; g: report.goal): the goal, the plain
    graph, the last and the best step, the fold timed alone, the rounds' noise, the floors and each step's delta."""
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
    return dict(
        goal_ms=far.GOAL_MS, goal_floor_share=g["floor_share_needed"], goal=_verdict(last, g["ms"], far.GOAL_MS),
        goal_over_ms=g["over_ms"], goal_over_share=None if g["over_ms"] is None else g["over_ms"] / far.GOAL_MS,
        loop_goal=_verdict(last, g["loop_ms"], far.GOAL_MS),
        complete=not missing and not d.get("build_errors"),
        unbuilt=tuple(d["labels"].get(n, n) for n in dict.fromkeys([*missing, *d.get("build_errors", {})])),
        changes=len(d["steps"]),
        base_ms=base and base["step_ms"], base_loop_ms=base and base["loop_ms"], base_kernels=base and base["kernels"],
        last_label=strip(d["labels"].get(last_name, last_name)), last_ms=last and last["step_ms"],
        last_loop_ms=last and last["loop_ms"], last_kernels=last and last["kernels"],
        last_floor_share=last and last["floor_share"],
        speedup=base["step_ms"] / last["step_ms"] if base and last else None,
        last_slower=bool(last and prev_s and last["step_ms"] > prev_s["step_ms"]),
        last_slower_every_round=bool(last and prev_s) and all(
            r["variants"][last_name]["step_ms"] > r["variants"][prev]["step_ms"] for r in d["rounds"]
            if last_name in r["variants"] and prev in r["variants"]),
        last_is_fold=last_name == "attention_o",
        last_prev_label=strip(d["labels"].get(prev, "")) if prev else "", last_prev_ms=prev_s and prev_s["step_ms"],
        last_cost_ms=last["step_ms"] - prev_s["step_ms"] if last and prev_s else None,
        last_is_best=bool(last and best and best["name"] == last_name),
        has_best=best is not None, best_label=strip(d["labels"][best["name"]]) if best else "",
        best_ms=best and best["step_ms"],
        best_floor_share=best and best["floor_share"], best_loop_ms=best and best["loop_ms"],
        best_kernels=best and best["kernels"],
        best_speedup=base["step_ms"] / best["step_ms"] if base and best else None,
        best_loop_speedup=base["loop_ms"] / best["loop_ms"] if base and best and base.get("loop_ms")
        and best.get("loop_ms") else None,
        best_loop_floor_share=d["floor_ms"] / best["loop_ms"] if best and best.get("loop_ms") else None,
        best_read_share=best and d["weight_bytes"] / (read_gbps * 1e6) / best["step_ms"], fastest=_fastest(d, s, best),
        fusing_saved_ms=(fusing := sum(x["saved_ms"] for x in rows if strip(x["label"]) in FUSING_STEPS
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
        **{f"{n}_ms": s[n]["step_ms"] if n in s else None for n in ("own", "fused_proj", "filled_attention")})


def checks(d: dict[str, Any], s: dict[str, dict[str, Any]], six: dict[str, Any]) -> dict[str, Any]:
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
        has_next_check=nxt is not None, next_label=nxt and strip(d["labels"][nxt[0]]),
        next_steps=nxt and nxt[1]["steps"], next_agree=nxt and nxt[1]["agree"],
        next_positions_ok=bool(nxt and nxt[1]["positions_ok"]))


def savings(rows: list[dict[str, Any]], launch: dict[str, Any]) -> dict[str, Any]:
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


def matvec(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
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


def plain(d: dict[str, Any], over_ms: float | None) -> dict[str, Any]:
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


def pdl(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    x = by.get("pdl")
    p = by.get(x["prev"]) if x and x["prev"] else None
    att = {n: t["configs"].get("attention") for n, t in d["in_step"].items()}
    return dict(
        has_pdl=p is not None, pdl_used=bool(d.get("pdl_used")), pdl_saved_ms=p and x["saved_ms"],
        pdl_saved_share=p and x["saved_share"], pdl_before_ms=p and p["step_ms"], pdl_ms=p and x["step_ms"],
        pdl_faster=bool(p and x["saved_ms"] > 0), pdl_same_kernels=bool(p and x["kernels"] == p["kernels"]),
        pdl_kernels=x and x["kernels"], pdl_kernels_before=p and p["kernels"],
        pdl_attention_config=_config(att.get("pdl")), before_attention_config=_config(p and att.get(p["name"])))


def alone(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    lc = d["launch_costs"]
    x = by.get(lc["step"])
    loop = x and x["loop_ms"]
    whole_ms = lc["whole_us"] / 1e3
    argmax = sum(k["us"] for k in far.kernel_rows(d, lc["step"]) if "ArgMax" in k["name"])
    g = next((by[n] for n in d.get("advances", []) if n in by and by[n]["prev"]), None)
    p = g and by[g["prev"]]
    return dict(
        has_alone=loop is not None, alone_label=strip(d["labels"][lc["step"]]), alone_ms=whole_ms,
        alone_us=lc["whole_us"],
        alone_outside_ms=None if loop is None else loop - whole_ms, alone_loop_ms=loop,
        loop_over_graph=loop is not None and loop > whole_ms, alone_argmax_us=argmax or None,
        alone_has_argmax=bool(argmax),
        has_greedy=g is not None, greedy_kernels=g and g["kernels"],
        greedy_kernels_before=p and p["kernels"], greedy_host_us=g and 1e3 * g["host_ms"],
        greedy_host_us_before=p and 1e3 * p["host_ms"], greedy_loop_ms=g and g["loop_ms"],
        greedy_loop_ms_before=p and p["loop_ms"], greedy_ms=g and g["step_ms"], greedy_ms_before=p and p["step_ms"])


def tables(d: dict[str, Any]) -> dict[str, Any]:
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
        **{f"cost_{c}_us": calls[c]["us"] if c in calls else None for c in COST_CALLS},
        cost_layers=next((x["count"] for x in calls.values() if x["per"] == "layer"), 0),
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


def waits(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
    w = d.get("no_wait")
    if not w:
        return dict(has_no_wait=False, no_wait_label=None, no_wait_with_us=None, no_wait_us=None, waits_us=None,
                    waits_cost=False, waits_gap_share=None, no_wait_floor_share=None, no_wait_gap_us=None,
                    no_wait_step_ms=None, no_wait_step_timed=False, no_wait_meets_goal=False)
    with_us, without_us = statistics.median(w["with_us"]), statistics.median(w["without_us"])
    floor_us = d["floor_ms"] * 1e3
    whole_us = _whole_us(d) or with_us  # the page's one figure for the graph replayed back to back
    timed = by.get(w["step"])
    step_ms = None if timed is None else timed["step_ms"] - (with_us - without_us) / 1e3
    return dict(
        has_no_wait=True, no_wait_label=strip(d["labels"][w["step"]]), no_wait_with_us=with_us,
        no_wait_step_ms=step_ms, no_wait_step_timed=step_ms is not None,
        no_wait_us=without_us, waits_us=with_us - without_us, waits_cost=max(w["without_us"]) < min(w["with_us"]),
        waits_gap_share=(with_us - without_us) / (whole_us - floor_us) if whole_us > floor_us else None,
        no_wait_floor_share=floor_us / without_us, no_wait_gap_us=without_us - floor_us,
        no_wait_meets_goal=step_ms is not None and step_ms <= far.GOAL_MS)


FIT_ROLES = ("none", "one", "quarter", "half", "three_quarters", "all")  # ladder.fit_layers' counts, by role


def fit_counts(layers: int) -> dict[str, int]:
    """The layer counts layer_fit builds the step over (ladder.fit_layers), by role: none, one, a quarter, half,
    three quarters, all. Two roles share a count in a model of few layers."""
    return dict(zip(FIT_ROLES, (0, 1, layers // 4, layers // 2, 3 * layers // 4, layers), strict=True))


def _whole_us(d: dict[str, Any]) -> float | None:
    """The whole graph replayed back to back: layer_fit's median over all the layers (None: no layer fit)."""
    x = d.get("layer_fit")
    return statistics.median(x["us"][x["layers"].index(max(x["layers"]))]) if x else None


def fit(d: dict[str, Any], goal_share: float) -> dict[str, Any]:
    x = far.layer_fit(d)
    floor_us = d["floor_ms"] * 1e3
    if x is None:
        return dict(has_layer_fit=False, fit_label=None, fit_layers=(), fit_layers_text="", fit_per_layer_us=None,
                    **dict.fromkeys(f"fit_{r}_us" for r in FIT_ROLES), floor_us=floor_us, replay_gap_us=None,
                    fit_once_us=None,
                    fit_off_line_us=None, layer_mib=None, layer_copy_us=None, layer_share=None, layer_over_us=None,
                    layers_over_us=None, once_mib=None, once_copy_us=None, fit_confidence=far.FIT_CONFIDENCE,
                    once_low_us=None, once_high_us=None, once_side="within", once_off_us=None,
                    layers_gap_share=None, layers_hold_most=False, layer_goal_us=None, layer_goal_cut_us=None,
                    layer_goal_met=False)
    per, once = x["per_layer_us"], x["once_us"]
    by_n = {r["layers"]: r["us"] for r in x["rows"]}
    counts = fit_counts(x["layers"])
    if set(by_n) != set(counts.values()):
        raise ValueError(f"decode_far.ladder layer_fit: layer counts {sorted(by_n)}, not ladder.fit_layers' "
                         f"{sorted(set(counts.values()))}")
    layers_over = x["layers"] * (per - x["layer_copy_us"])
    once_over = once - x["once_copy_us"]
    gap = max(layers_over, 0.0) + max(once_over, 0.0)
    share = max(layers_over, 0.0) / gap if gap > 0 else None
    goal_us = x["layer_copy_us"] / goal_share
    return dict(
        has_layer_fit=True, fit_label=strip(d["labels"][x["step"]]), fit_layers=tuple(r["layers"] for r in x["rows"]),
        fit_layers_text=", ".join(str(r["layers"]) for r in x["rows"]),
        fit_per_layer_us=per, fit_once_us=once, fit_off_line_us=x["off_line_us"],
        **{f"fit_{r}_us": by_n[n] for r, n in counts.items()}, floor_us=floor_us,
        replay_gap_us=by_n[x["layers"]] - floor_us,
        layer_mib=x["layer_bytes"] / 2**20, layer_copy_us=x["layer_copy_us"], layer_share=x["layer_copy_us"] / per,
        layer_over_us=per - x["layer_copy_us"], layers_over_us=layers_over, once_mib=x["once_bytes"] / 2**20,
        once_copy_us=x["once_copy_us"], fit_confidence=far.FIT_CONFIDENCE, once_low_us=x["once_low_us"],
        once_high_us=x["once_high_us"],
        once_side="over" if x["once_low_us"] > x["once_copy_us"] else "under" if x["once_high_us"] < x["once_copy_us"]
        else "within", once_off_us=abs(once_over), layers_gap_share=share,
        layers_hold_most=share is not None and share > 0.5, layer_goal_us=goal_us, layer_goal_cut_us=per - goal_us,
        layer_goal_met=per <= goal_us)


def timeline(d: dict[str, Any]) -> dict[str, Any]:
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
        has_timeline=True, timeline_label=strip(d["labels"][x["step"]]), timeline_position=x["position"],
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


def handoff(d: dict[str, Any]) -> dict[str, Any]:
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


def ring(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
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
        ring_before_label=strip(d["labels"][p["name"]]) if p else "",
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


def few(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
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
        has_few=True, few_ms=x["step_ms"], few_before_ms=p["step_ms"], few_before_label=strip(d["labels"][p["name"]]),
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


def down(d: dict[str, Any], by: dict[str, dict[str, Any]]) -> dict[str, Any]:
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
        down_before_label=strip(d["labels"][p["name"]]), down_floor_share=x["floor_share"],
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
    return tuple(strip(d["labels"].get(n, n)) for n in level)


def _stand(rows: list[dict[str, Any]], tbps: float) -> Stand:
    """This run's rows of one kind (one per run of the current code) against a published TB/s: ahead if even the
    slowest round of every run reads faster, behind if even the fastest reads slower, else level."""
    if not rows:
        return "missing"
    low, high = min(r["tbps_low"] for r in rows), max(r["tbps_high"] for r in rows)
    return "ahead" if low > tbps else "behind" if high < tbps else "level"


def against_published(d: dict[str, Any], gpu: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    rows = far.anchor_rows(d)
    every = [r for x in runs for r in far.anchor_rows(x)]  # each run's rows: its own fastest correct step
    pub = sorted((r for r in rows if r["kind"] == "published mean"), key=lambda r: -r["tbps"])
    fast, slow = pub[0], pub[-1]
    published = {a.label: a for a in anchors.ANCHORS}
    sync = next((r for r in rows if r["kind"] == "synchronised"), None)
    loop = next((r for r in rows if r["kind"] == "back to back"), None)
    syncs, loops = ([r for r in every if r["kind"] == k] for k in ("synchronised", "back to back"))
    fit = far.layer_fit(d)
    goal_tbps = d["weight_bytes"] / (far.GOAL_MS * 1e9)
    return dict(
        has_anchors=sync is not None, anchors_same_gpu=anchors.GPU in gpu, anchor_runs=len(runs),
        ladder_runs=len(runs), anchor_many_runs=len(runs) > 1,
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
