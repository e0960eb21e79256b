"""Reading decode_far.ladder results for the page's tables, figure and facts: each step's time across rounds, what
each step saved, the tuned matvec configs, the kernels of the last step, and whether the goal was reached.

Pure Python on the stored JSON (no torch), so the page builds on a machine without a GPU. Keys a newer run may add
(a round's `loop_ms`, more tuning sites) are read where present and skipped where not.
"""

from __future__ import annotations

import functools
import random
import re
import statistics
from pathlib import Path
from typing import Any

from kernelbook import fmt
from kernelbook.chapters.decode_far import anchors
from kernelbook.decode.report import across

GOAL_MS = 0.85  # the goal set for the last step (issue 26): at most this many ms per decode step, a target
OURS = re.compile(r"_\w+_kernel")  # Triton names a kernel after its Python function: this book's kernels
FIT_CONFIDENCE, FIT_RESAMPLES = 0.95, 2000  # layer_fit's bootstrap interval of the once-a-step time

def half_range(values: list[float]) -> float:
    """The spread the tables show beside a median: half the range of the rounds."""
    return (max(values) - min(values)) / 2


def rounds_of(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The per-round records of one variant (a variant that failed to build has none)."""
    return [r["variants"][name] for r in data["rounds"] if name in r.get("variants", {})]


def check(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The teacher-forced comparison against eager StaticCache, or None if the variant was never checked."""
    return data.get("teacher_forced", {}).get(name)


def step_summary(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    """One variant over all rounds: median ms per step and its spread, the back-to-back time where measured,
    host time, the share of the bandwidth floor, and its check; kernels and GPU busy time from its profile. None if
    it has no rounds."""
    per = rounds_of(data, name)
    if not per:
        return None
    step = across([p["step_ms"] for p in per])
    loops = [p["loop_ms"] for p in per if p.get("loop_ms") is not None]
    loop = across(loops) if loops else None
    c = check(data, name) or {}
    prof = data["profiles"][name]
    busy_ms = prof["busy_us"] / 1e3
    return {
        "name": name, "label": data["labels"].get(name, name), "rounds": len(per),
        "step_ms": step["median"], "spread": step["spread"], "step_min_ms": step["min"], "step_max_ms": step["max"],
        "fastest_ms": min(p.get("step_ms_min", p["step_ms"]) for p in per),
        "loop_ms": loop["median"] if loop else None, "loop_spread": loop["spread"] if loop else None,
        "kernels": prof["kernels"],
        "busy_ms": busy_ms, "overlapped": busy_ms > step["median"],  # kernel durations overlap (PDL): no idle split
        "host_ms": statistics.median(p["host_us"] for p in per) / 1e3,
        "tok_s": 1e3 / step["median"], "floor_share": data["floor_ms"] / step["median"],
        "loop_floor_share": data["floor_ms"] / loop["median"] if loop else None,
        "passed": bool(c.get("passed")), "checked": bool(c), "rel_err_max": c.get("rel_err_max"),
        "bit_identical": c.get("bit_identical"), "top1_agree": c.get("top1_agree"),
        "nonfinite": c.get("nonfinite", 0),  # NaN or infinite logits (stored errors are then None)
    }


def summaries(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every variant that was timed, in the page's order: the plain graph, then the steps."""
    out = {}
    for n in data["names"]:
        s = step_summary(data, n)
        if s is not None:
            out[n] = s
    return out


def has_loop(data: dict[str, Any]) -> bool:
    """Whether this run also timed steps back to back (one synchronisation per 40 steps)."""
    return any(s["loop_ms"] is not None for s in summaries(data).values())


def waterfall(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Each timed variant with the ms it saved against the one timed before it (None for the first)."""
    rows, prev = [], None
    for s in summaries(data).values():
        saved = None if prev is None else prev["step_ms"] - s["step_ms"]
        rows.append({**s, "prev": None if prev is None else prev["name"], "saved_ms": saved,
                     "saved_share": None if prev is None else saved / prev["step_ms"]})
        prev = s
    return rows


def baseline(data: dict[str, Any]) -> dict[str, Any] | None:
    return summaries(data).get(data.get("baseline", "cuda_graph"))


def final(data: dict[str, Any]) -> dict[str, Any] | None:
    """The last step of the ladder, if it was built and timed."""
    return summaries(data).get(data["steps"][-1])


def best_passed(data: dict[str, Any]) -> dict[str, Any] | None:
    ok = [s for s in summaries(data).values() if s["passed"]]
    return min(ok, key=lambda s: s["step_ms"]) if ok else None


def goal(data: dict[str, Any], goal_ms: float = GOAL_MS) -> dict[str, Any]:
    """Is the last step at most `goal_ms` per step and correct? With how far it is over or under, both timings."""
    f = final(data)
    name = data["steps"][-1]
    if f is None:
        return {"name": name, "goal_ms": goal_ms, "built": False, "met": False, "passed": False, "ms": None,
                "over_ms": None, "loop_ms": None, "loop_met": None, "floor_share_needed": data["floor_ms"] / goal_ms}
    loop = f["loop_ms"]
    return {"name": name, "goal_ms": goal_ms, "built": True, "passed": f["passed"], "ms": f["step_ms"],
            "met": f["passed"] and f["step_ms"] <= goal_ms, "over_ms": f["step_ms"] - goal_ms,
            "loop_ms": loop, "loop_met": None if loop is None else (f["passed"] and loop <= goal_ms),
            "floor_share_needed": data["floor_ms"] / goal_ms}


def tuning_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per tuned site: the fastest config, its µs per launch and weight GB/s, that as a share of the copy
    bandwidth, and the range over the candidates tried."""
    copy = data["copy"]["gbps"]
    rows = []
    for site, t in data.get("tuning", {}).items():
        cands = t.get("candidates") or [{"config": t["best"], "us": t["us"], "gbps": t["gbps"]}]
        rows.append({"site": site, "best": list(t["best"]), "us": t["us"], "gbps": t["gbps"],
                     "bytes": t.get("bytes"), "share_of_copy": t["gbps"] / copy, "candidates": len(cands),
                     "slowest_us": max(c["us"] for c in cands), "seconds": t.get("seconds")})
    return rows


def in_step_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per fused step and site retuned inside it, in the order retuned: the site's config alone and in the step,
    and µs per step with each (the sites retuned before it already at their new config; the median of a
    finalist's timings again where it was one)."""
    rows = []
    for step, t in data.get("in_step", {}).items():
        for site, s in t["sites"].items():
            alone_us = next((statistics.median(c["again_us"]) if c.get("again_us") else c["step_us"]
                             for c in s["candidates"] if c["config"] == s["alone"]), None)
            rows.append({"step": step, "site": site, "alone": s["alone"], "best": s["best"], "alone_us": alone_us,
                         "best_us": s["step_us"], "candidates": len(s["candidates"])})
    return rows


def in_step_gain(data: dict[str, Any], step: str) -> tuple[float | None, float] | None:
    """(µs per step with every site at its config alone, µs per step with every site retuned), or None."""
    rows = [r for r in in_step_rows(data) if r["step"] == step]
    return (rows[0]["alone_us"], rows[-1]["best_us"]) if rows else None


def launch_cost_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per call of the step in launch_costs, in launch order: what leaving it out saved, per layer (per step for
    the output projection), the weight bytes one call reads, how long those bytes take at the copy bandwidth, and
    that as a share of the call's cost (None where the call reads no weights or its cost is not positive)."""
    lc = data.get("launch_costs")
    if not lc:
        return []
    copy = data["copy"]["gbps"]
    rows = []
    for call, x in lc["calls"].items():
        at_copy = x["weight_bytes"] / (copy * 1e3)  # µs
        rows.append({"call": call, "per": x["per"], "count": x["count"], "us": x["us"], "bytes": x["weight_bytes"],
                     "copy_us": at_copy, "total_us": x["us"] * x["count"],
                     "share": at_copy / x["us"] if x["weight_bytes"] and x["us"] > 0 else None})
    return rows


@functools.lru_cache(maxsize=64)
def _once_interval(ns: tuple[int, ...], us: tuple[tuple[float, ...], ...]) -> tuple[float, float]:
    """The bootstrap interval of the line's once-a-step time at FIT_CONFIDENCE: the rounds of every count resampled,
    the line fitted again (seeded: a page reads the same on every build; kept per timings, as a chapter's facts are
    computed again for every run)."""
    rng = random.Random(0)
    onces = sorted(statistics.linear_regression(ns, [statistics.median(rng.choices(v, k=len(v))) for v in us])[1]
                   for _ in range(FIT_RESAMPLES))
    tail = int((1 - FIT_CONFIDENCE) / 2 * FIT_RESAMPLES)
    return onces[tail], onces[-1 - tail]


def layer_fit(data: dict[str, Any]) -> dict[str, Any] | None:
    """The line through layer_fit's times, t(n) = once + n per_layer (least squares over the medians of the rounds),
    its rows (layers, median µs, spread: half the range of the rounds, the line's µs there) and the largest distance
    of a median from the line; the once-a-step time's bootstrap interval at FIT_CONFIDENCE (the rounds of every count
    resampled, the line fitted again); the bytes of a layer and of what the step reads once, and both at the copy
    bandwidth. None for a result without the diagnostic."""
    x = data.get("layer_fit")
    if not x:
        return None
    if len(x["us"]) != len(x["layers"]):
        raise ValueError(f"decode_far.ladder layer_fit: {len(x['layers'])} layer counts but {len(x['us'])} lists of "
                         "timings; the result is corrupt")
    ns, meds = x["layers"], [statistics.median(v) for v in x["us"]]
    per_layer, once = statistics.linear_regression(ns, meds)
    once_low, once_high = _once_interval(tuple(ns), tuple(tuple(v) for v in x["us"]))
    rows = [{"layers": n, "us": m, "spread_us": half_range(v), "line_us": once + per_layer * n}
            for n, m, v in zip(ns, meds, x["us"], strict=True)]
    copy = data["copy"]["gbps"] * 1e3  # bytes per µs
    once_bytes = data["weight_bytes"] - max(ns) * x["layer_bytes"]
    return {"step": x["step"], "rows": rows, "per_layer_us": per_layer, "once_us": once, "layers": max(ns),
            "once_low_us": once_low, "once_high_us": once_high,
            "off_line_us": max(abs(r["us"] - r["line_us"]) for r in rows),
            "layer_bytes": x["layer_bytes"], "layer_copy_us": x["layer_bytes"] / copy,
            "once_bytes": once_bytes, "once_copy_us": once_bytes / copy}


def timeline_rows(data: dict[str, Any]) -> dict[str, Any] | None:
    """One layer from `timeline`, launch by launch in order: start and end (µs from the layer's first launch,
    medians over the replays, with their spread, half the range), how long after the end before it each end comes
    (for the first launch, after the layer before's last end: the period less the layer's span), the weight bytes
    the launch reads (launch_costs' figures, for the same step), those at the copy bandwidth, and the difference.
    The steps between ends add up to the period. None for a result without the diagnostic, or of one layer."""
    x = data.get("timeline")
    if not x:
        return None
    n = len(x["launches"])
    if len(x["start_us"]) != n or len(x["end_us"]) != n:
        raise ValueError(f"decode_far.ladder timeline: {n} launches but {len(x['start_us'])} starts and "
                         f"{len(x['end_us'])} ends; the result is corrupt")
    if not x["period_us"]:
        return None  # a model of one layer: no next layer to step to
    lc = data.get("launch_costs") or {}
    calls = lc.get("calls", {}) if lc.get("step") == x["step"] else {}
    copy = data["copy"]["gbps"]
    period = statistics.median(x["period_us"])
    ends = [statistics.median(v) for v in x["end_us"]]
    rows = []
    for j, name in enumerate(x["launches"]):
        after = ends[j] - (ends[j - 1] if j else ends[-1] - period)
        nbytes = calls[name]["weight_bytes"] if name in calls else None
        at_copy = None if nbytes is None else nbytes / (copy * 1e3)
        rows.append({"launch": name, "start_us": statistics.median(x["start_us"][j]), "end_us": ends[j],
                     "spread_us": half_range(x["end_us"][j]), "after_us": after,
                     "bytes": nbytes, "copy_us": at_copy, "over_us": None if at_copy is None else after - at_copy})
    return {"step": x["step"], "position": x["position"], "replays": x["replays"], "period_us": period,
            "period_spread_us": half_range(x["period_us"]), "rows": rows}


def handoff_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per program count of the hand-off chains: µs per hop as a launch and as a barrier (medians over the rounds,
    spread: half their range), whether the barrier was slower in every round, and whether both chains ended in
    order. Empty for a result without the diagnostic."""
    x = data.get("handoff")
    if not x:
        return []
    rows = []
    for r in x["rows"]:
        la, ba = r["launch_us"], r["barrier_us"]
        rows.append({"programs": r["programs"], "per_sm": r["per_sm"], "launch_us": statistics.median(la),
                     "launch_spread_us": half_range(la), "barrier_us": statistics.median(ba),
                     "barrier_spread_us": half_range(ba), "barrier_slower": min(ba) > max(la),
                     "ordered": r["launch_ordered"] and r["barrier_ordered"]})
    return rows


def anchor_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The published steps of `anchors` and this run's fastest step that passed its check, synchronised around
    every step and back to back: µs a step, TB/s of weights, and the share of this run's copy bandwidth. This
    run's rows carry the TB/s of its slowest and fastest rounds; the published ones are single figures."""
    copy_tbps = data["copy"]["gbps"] / 1e3
    llama = anchors.llama_weight_bytes()

    def row(who: str, model: str, nbytes: int, us: float, kind: str, low_us: float | None = None,
            high_us: float | None = None) -> dict[str, Any]:
        tbps = nbytes / us / 1e6
        return {"who": who, "model": model, "weight_gb": nbytes / 1e9, "step_us": us, "tbps": tbps,
                "copy_share": tbps / copy_tbps, "kind": kind,
                "tbps_low": None if high_us is None else nbytes / high_us / 1e6,
                "tbps_high": None if low_us is None else nbytes / low_us / 1e6}

    rows = [row(a.label, anchors.MODEL, llama, a.step_us, "published mean") for a in anchors.ANCHORS]
    best = best_passed(data)
    if best is None:
        return rows
    ours, per = data["weight_bytes"], rounds_of(data, best["name"])
    who, model = f"this page: {best['label'].removeprefix('+ ')}", "Qwen2.5-1.5B"
    rows.append(row(who, model, ours, 1e3 * best["step_ms"], "synchronised", 1e3 * best["step_min_ms"],
                    1e3 * best["step_max_ms"]))
    loops = [p["loop_ms"] for p in per if p.get("loop_ms") is not None]
    if loops:
        rows.append(row(who, model, ours, 1e3 * statistics.median(loops), "back to back", 1e3 * min(loops),
                        1e3 * max(loops)))
    return rows


def short_kernel_name(name: str) -> str:
    """'void at::native::(anonymous namespace)::indexSelectSmallIndex<...>(...)' -> 'indexSelectSmallIndex'."""
    s = name.removeprefix("void ").replace("(anonymous namespace)::", "")
    s = re.split(r"[<(]", s)[0].strip()
    return s.split("::")[-1] or name[:40]


def kernel_rows(data: dict[str, Any], name: str, against: str | None = None) -> list[dict[str, Any]]:
    """The GPU events of one profiled step of `name` by kernel, with the same kernel's time in `against`'s step."""
    mix = data.get("kernel_mix", {}).get(name)
    if not mix:
        return []
    other = {k["name"]: k for k in data.get("kernel_mix", {}).get(against or "", {}).get("top", [])}
    rows = []
    for k in mix["top"]:
        o = other.get(k["name"])
        rows.append({"name": k["name"], "short": short_kernel_name(k["name"]), "ours": bool(OURS.fullmatch(k["name"])),
                     "count": k["count"], "us": k["us"], "us_per_launch": k["us"] / k["count"] if k["count"] else None,
                     "us_against": o["us"] if o else None})
    return rows


MATVEC = ("matvec",)  # this book's projection kernels
CUBLAS = ("nvjet", "gemv", "gemm", "cutlass", "splitKreduce")  # cuBLAS's kernels for the same projections


def kernels_shown(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """The step whose kernels the page lists (the last one profiled) and the step set beside it: where the listed
    step's kernel durations overlap (PDL), the last step before it whose durations do not, so the column beside
    reads each kernel's own cost; otherwise the step just before it. (None, None) if no step kept a kernel list."""
    mix = data.get("kernel_mix", {})
    last = next((n for n in reversed(data["names"]) if mix.get(n)), None)
    if last is None:
        return None, None
    prior = data["names"][:data["names"].index(last)]
    s = step_summary(data, last)
    if s and s["overlapped"]:
        before = next((n for n in reversed(prior) if (p := step_summary(data, n)) and not p["overlapped"]
                       and mix.get(n)), None)
    else:
        before = prior[-1] if prior else None
    return last, before


def weight_stream(data: dict[str, Any], name: str, match: tuple[str, ...] = MATVEC) -> dict[str, Any] | None:
    """The projection kernels of one step (names containing one of `match`) read about every weight once: their
    summed durations and launches, and the weight bytes over that time as GB/s and as a share of the copy
    bandwidth. None if the step has no such kernels."""
    rows = [k for k in kernel_rows(data, name) if any(m in k["name"] for m in match)]
    us = sum(k["us"] for k in rows)
    if not us:
        return None
    gbps = data["weight_bytes"] / (us * 1e-6) / 1e9
    return {"us": us, "launches": sum(k["count"] for k in rows), "gbps": gbps,
            "share_of_copy": gbps / data["copy"]["gbps"]}


def cublas_projection_launches(data: dict[str, Any], name: str) -> int:
    """cuBLAS's projection kernels in one profiled step, without its split-K reductions (one launch per
    projection, as the matvec steps launch one kernel per projection)."""
    return sum(k["count"] for k in kernel_rows(data, name)
               if any(c in k["name"] for c in CUBLAS) and "splitKreduce" not in k["name"])


def last_plain(data: dict[str, Any]) -> str | None:
    """The last step whose kernel durations do not overlap (no PDL) and whose profile has matvec kernels: the one
    whose profile splits its time into kernels, idle time and the host's round trip."""
    return next((n for n in reversed(data["names"]) if (s := step_summary(data, n)) and not s["overlapped"]
                 and weight_stream(data, n)), None)


def free_running_same(data: dict[str, Any], name: str, ref: str = "eager_static") -> tuple[int, int] | None:
    """(tokens equal to the reference's, tokens) in the free-running generation, or None if either is missing."""
    fr = data.get("free_running", {})
    a, b = fr.get(ref), fr.get(name)
    if isinstance(a, dict):
        a = a.get("tokens")
    if isinstance(b, dict):
        b = b.get("tokens")
    if not a or not b:
        return None
    return sum(x == y for x, y in zip(a, b, strict=False)), len(a)


def breakdown(data: dict[str, Any], name: str) -> dict[str, float] | None:
    """Where one profiled step's time went, in ms: the matvec kernels, attention, everything else, the GPU's idle
    time and the host's round trip. Idle is the back-to-back step less the busy time, and the round trip is the
    synchronised step less the back-to-back one; a run without back-to-back timing counts all of the synchronised
    step's rest as idle (host_ms 0). When the profiled kernels add up to more than the back-to-back step (the one
    profiled, synchronised step ran them slower than the loop does), idle is 0 and busy_over_ms says by how much.
    Meaningful only for a step whose kernel durations do not overlap (not PDL)."""
    rows, s = kernel_rows(data, name), step_summary(data, name)
    if not rows or s is None:
        return None
    mv = sum(k["us"] for k in rows if "matvec" in k["name"]) / 1e3
    att = sum(k["us"] for k in rows if "attention" in k["name"]) / 1e3
    listed = sum(k["us"] for k in rows) / 1e3
    other = max(0.0, s["busy_ms"] - mv - att)  # the mix lists only the top kernels; busy has them all
    gpu_ms = s["loop_ms"] if s["loop_ms"] is not None else s["step_ms"]  # the step without the host's round trip
    return {"matvec_ms": mv, "attention_ms": att, "other_ms": other, "listed_ms": listed, "busy_ms": s["busy_ms"],
            "step_ms": s["step_ms"], "idle_ms": max(0.0, gpu_ms - s["busy_ms"]),
            "busy_over_ms": max(0.0, s["busy_ms"] - gpu_ms),
            "host_ms": max(0.0, s["step_ms"] - gpu_ms),
            "attention_launches": sum(k["count"] for k in rows if "attention" in k["name"])}


# ---- across runs: the page's tables under the site's one rule ------------------------------------------------------
# Every figure a table shows is the median over the fresh runs of the current code of each run's figure
# (kernelbook.factbook); a column derived from others is computed again from the medians in its row. `runs` is every
# such run's data, oldest first (kernelbook.across.datas); the words, configs, checks and verdicts are the newest's.

def _numeric(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _median(values: list[Any]) -> Any:
    return statistics.median_low(values) if all(isinstance(v, int) for v in values) else statistics.median(values)


def median_rows(per_run: list[list[dict[str, Any]]], key: Any) -> list[dict[str, Any]]:
    """Rows of the same table from each run (oldest first), matched by key(row): the newest run's rows in its order,
    each numeric figure replaced by its median over the runs that have the row (ints by the lower median); everything
    else, and a figure some run lacks (None), the newest run's."""
    newest = per_run[-1]
    out = []
    for row in newest:
        same = [x for rows in per_run for x in rows if key(x) == key(row)]
        m = dict(row)
        for k, v in row.items():
            vals = [x.get(k) for x in same]
            if _numeric(v) and all(_numeric(x) for x in vals):
                m[k] = _median(vals)
        out.append(m)
    return out


def median_of(runs: list[dict[str, Any]], get: Any) -> float:
    """The median over the runs of get(run data)."""
    return _median([get(d) for d in runs])


def median_summaries(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """summaries() over every run: each variant's figures the median over the runs that timed it, with tokens/s and
    the share of the floor (the median floor over the runs) computed again from the medians."""
    per = [list(summaries(d).values()) for d in runs]
    floor = median_of(runs, lambda d: d["floor_ms"])
    out = {}
    for s in median_rows(per, lambda x: x["name"]):
        s.update(tok_s=1e3 / s["step_ms"], floor_share=floor / s["step_ms"],
                 loop_floor_share=None if s["loop_ms"] is None else floor / s["loop_ms"],
                 overlapped=s["busy_ms"] > s["step_ms"])
        out[s["name"]] = s
    return out


def median_waterfall(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """waterfall() over every run: each variant's medians, and what it saved against the row above computed from
    the two rows' medians (so that the column reads as the step times beside it subtract)."""
    rows, prev = [], None
    for s in median_summaries(runs).values():
        saved = None if prev is None else prev["step_ms"] - s["step_ms"]
        rows.append({**s, "prev": None if prev is None else prev["name"], "saved_ms": saved,
                     "saved_share": None if prev is None else saved / prev["step_ms"]})
        prev = s
    return rows


def median_kernel_rows(runs: list[dict[str, Any]], name: str, against: str | None = None) -> list[dict[str, Any]]:
    """kernel_rows() over every run that profiled `name`: each kernel's launches and µs the median over the runs,
    µs per launch from those medians."""
    per = [kernel_rows(d, name, against) for d in runs]
    per = [p for p in per if p]
    if not per:
        return []
    rows = median_rows(per, lambda x: x["name"])
    for k in rows:
        k["us_per_launch"] = k["us"] / k["count"] if k["count"] else None
    return rows


def median_handoff_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """handoff_rows() over every run: µs per hop and their spreads the median over the runs of each run's figure;
    in order and barrier slower only where every run says so."""
    per = [p for d in runs if (p := handoff_rows(d))]
    if not per:
        return []
    rows = median_rows(per, lambda x: x["programs"])
    for r in rows:
        same = [x for p in per for x in p if x["programs"] == r["programs"]]
        r["ordered"] = all(x["ordered"] for x in same)
        r["barrier_slower"] = all(x["barrier_slower"] for x in same)
    return rows


def median_tuning_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """tuning_rows() over every run: µs per launch and the slowest candidate's the median over the runs; GB/s and
    the share of the copy (the median copy bandwidth) computed from them; the configs the newest run's."""
    copy = median_of(runs, lambda d: d["copy"]["gbps"])
    rows = median_rows([tuning_rows(d) for d in runs], lambda x: x["site"])
    for t in rows:
        if t["bytes"]:
            t["gbps"] = t["bytes"] / (t["us"] * 1e3)
        t["share_of_copy"] = t["gbps"] / copy
    return rows


def median_in_step_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """in_step_rows() over every run: µs per step with each config the median over the runs; configs the newest's,
    with `agree`: whether every run chose the same config in the step (where not, the µs mix runs' choices)."""
    per = [in_step_rows(d) for d in runs]
    rows = median_rows(per, lambda x: (x["step"], x["site"]))
    for r in rows:
        key = (r["step"], r["site"])
        r["agree"] = all(x["best"] == r["best"] for p in per for x in p if (x["step"], x["site"]) == key)
    return rows


def median_launch_cost_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """launch_cost_rows() over every run: each call's cost the median over the runs; its bytes at the median copy
    bandwidth and that over the cost computed from them."""
    per = [p for d in runs if (p := launch_cost_rows(d))]
    if not per:
        return []
    copy = median_of(runs, lambda d: d["copy"]["gbps"])
    rows = median_rows(per, lambda x: x["call"])
    for x in rows:
        x["copy_us"] = x["bytes"] / (copy * 1e3)
        x["total_us"] = x["us"] * x["count"]
        x["share"] = x["copy_us"] / x["us"] if x["bytes"] and x["us"] > 0 else None
    return rows


def median_layer_fit(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """layer_fit() over every run: each layer count's µs and spread the median over the runs of each run's figure,
    and the line fitted again through those medians (so that on and off the line read from the row)."""
    fits = [f for d in runs if (f := layer_fit(d))]
    if not fits:
        return None
    rows = median_rows([f["rows"] for f in fits], lambda x: x["layers"])
    per_layer, once = statistics.linear_regression([r["layers"] for r in rows], [r["us"] for r in rows])
    for r in rows:
        r["line_us"] = once + per_layer * r["layers"]
    return {**fits[-1], "rows": rows, "per_layer_us": per_layer, "once_us": once,
            "off_line_us": max(abs(r["us"] - r["line_us"]) for r in rows)}


def median_timeline_rows(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """timeline_rows() over every run: each launch's start, end, spread and step after the one before the median over
    the runs; its bytes at the median copy bandwidth, and the difference, computed from them."""
    ts = [t for d in runs if (t := timeline_rows(d))]
    if not ts:
        return None
    copy = median_of(runs, lambda d: d["copy"]["gbps"])
    rows = median_rows([t["rows"] for t in ts], lambda x: x["launch"])
    for x in rows:
        x["copy_us"] = None if x["bytes"] is None else x["bytes"] / (copy * 1e3)
        x["over_us"] = None if x["copy_us"] is None else x["after_us"] - x["copy_us"]
    return {**ts[-1], "rows": rows, "period_us": _median([t["period_us"] for t in ts]),
            "period_spread_us": _median([t["period_spread_us"] for t in ts])}


def median_anchor_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """anchor_rows() over every run: this page's µs a step the median over the runs of each run's median, TB/s and
    the share of the copy (the median copy bandwidth) from it; the rounds' TB/s from the slowest round of any run to
    the fastest of any run. The published rows are single figures."""
    per = [anchor_rows(d) for d in runs]
    copy_tbps = median_of(runs, lambda d: d["copy"]["gbps"]) / 1e3
    rows = median_rows(per, lambda x: (x["who"], x["kind"]))
    for x in rows:
        same = [y for p in per for y in p if (y["who"], y["kind"]) == (x["who"], x["kind"])]
        x["tbps"] = x["weight_gb"] * 1e9 / x["step_us"] / 1e6
        x["copy_share"] = x["tbps"] / copy_tbps
        if x["tbps_low"] is not None:
            x["tbps_low"] = min(y["tbps_low"] for y in same)
            x["tbps_high"] = max(y["tbps_high"] for y in same)
    return rows


_KERNELS = Path(__file__).resolve().parents[2] / "kernels"  # this book's kernels (src/kernelbook/kernels)


def gluon_kernels() -> frozenset[str]:
    """The kernels of this book written in Gluon (`@gluon.jit` over their `def`), read from their sources."""
    found = set()
    for f in sorted(_KERNELS.glob("*.py")):
        found.update(re.findall(r"@gluon\.jit(?:\([^)]*\))?\s*\ndef (\w+)", f.read_text()))
    return frozenset(found)


def written(name: str) -> str:
    """Who wrote a kernel of a profile, and in what: this book in Gluon or Triton, or PyTorch and the driver."""
    if not OURS.fullmatch(name):
        return "PyTorch / driver"
    return "here, Gluon" if name in gluon_kernels() else "here, Triton"


def check_cell(s: dict[str, Any]) -> str:
    """A step's check as a table cell: its largest relative error (or why none), and whether it passed."""

    if not s["checked"]:
        return "not checked"
    if s["rel_err_max"] is None:
        how = f"{s['nonfinite']:,} non-finite logits" if s["nonfinite"] else "no error recorded"
    else:
        how = "bit-identical" if s["bit_identical"] else f"{fmt.num(100 * s['rel_err_max'], 2)}%"
    return f"{how}, **{'passed' if s['passed'] else 'FAILED'}**"
