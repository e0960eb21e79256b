"""Reading decode.six_ways results for the page: medians across rounds with their spread, validity, the floor.

Pure Python on the stored JSON (no torch), so the page builds on a machine without a GPU.
"""

from __future__ import annotations

import statistics
from typing import Any

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"


def across(values: list[float]) -> dict[str, float]:
    """Median of per-round values and their spread, (max - min) / median."""
    med = statistics.median(values)
    return {"median": med, "min": min(values), "max": max(values),
            "spread": (max(values) - min(values)) / med if med else 0.0}


def valid(data: dict[str, Any], name: str) -> bool:
    """A variant's times count only if it passed the teacher-forced check."""
    return bool(data["teacher_forced"][name]["passed"])


def variant_summary(data: dict[str, Any], name: str) -> dict[str, Any]:
    """One variant over all rounds: step time (median and spread), host time, tokens per second and the share of
    the bandwidth floor it reaches; kernels and GPU busy time from its profile, idle the step's rest."""
    per = [r["variants"][name] for r in data["rounds"] if name in r["variants"]]
    if not per:
        raise KeyError(f"{name} has no timing rounds")
    step = across([p["step_ms"] for p in per])
    prof = data["profiles"][name]
    busy = prof["busy_us"]
    setup = data["setup"].get(name, {})
    noise = data.get("quiet", {}).get("figures", {}).get(name, {}).get("step_ms", {})
    return {
        "name": name, "label": data["labels"][name], "valid": valid(data, name), "rounds": len(per),
        "step_ms": step["median"], "spread": step["spread"], "noise_pct": noise.get("noise_pct"),
        "quiet": noise.get("quiet"), "step_min_ms": step["min"], "step_max_ms": step["max"],
        "kernels": prof["kernels"], "launches": prof["launches"],
        "busy_ms": busy / 1e3, "idle_ms": max(0.0, step["median"] - busy / 1e3),
        "idle_share": max(0.0, 1.0 - busy / 1e3 / step["median"]),
        "host_ms": statistics.median(p["host_us"] for p in per) / 1e3,
        "tok_s": 1e3 / step["median"], "floor_share": data["floor_ms"] / step["median"],
        "setup_s": setup.get("compile_s", setup.get("capture_s")),
    }


def rounds_faster(data: dict[str, Any], a: str, b: str) -> tuple[int, int]:
    """(rounds in which variant a's step was faster than b's, rounds that timed both): a comparison of medians
    read round by round, so that one slow round cannot decide it alone."""
    both = [r["variants"] for r in data["rounds"] if a in r["variants"] and b in r["variants"]]
    return sum(v[a]["step_ms"] < v[b]["step_ms"] for v in both), len(both)


def after_profiler(data: dict[str, Any], name: str) -> dict[str, float] | None:
    """The variant timed once more after the profiles, against the median of the rounds before them: ms per step
    and the host's µs per step, each with what it added. None if the result has no such round."""
    a = data.get("after_profiler", {}).get("variants", {}).get(name)
    per = [r["variants"][name] for r in data["rounds"] if name in r["variants"]]
    if not a or not per:
        return None
    step, host = statistics.median(p["step_ms"] for p in per), statistics.median(p["host_us"] for p in per)
    return {"step_ms": a["step_ms"], "host_us": a["host_us"], "before_ms": step, "before_host_us": host,
            "added_ms": a["step_ms"] - step, "added_host_us": a["host_us"] - host}


def summaries(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: variant_summary(data, n) for n in data["names"]}


def best_valid(data: dict[str, Any]) -> dict[str, Any] | None:
    ok = [s for s in summaries(data).values() if s["valid"]]
    return min(ok, key=lambda s: s["step_ms"]) if ok else None


def kernel_mix(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    """Triton against other kernels in one profiled step, taken after the timing rounds."""
    return data.get("kernel_mix", {}).get(name)


def timeline(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    return data.get("timelines", {}).get(name)


def gaps_between(kernels: list[list[float]]) -> list[float]:
    """Idle time on the GPU between consecutive kernels of a timeline (µs); overlaps count as zero."""
    out, end = [], None
    for ts, dur in sorted(kernels):
        if end is not None:
            out.append(max(0.0, ts - end))
        end = ts + dur if end is None else max(end, ts + dur)
    return out


def free_running_table(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per variant: tokens equal to eager StaticCache's, and where and how narrowly the first difference fell."""
    ref = data["free_running"]["eager_static"]["tokens"]
    rows = []
    for n in data["names"]:
        f = data["free_running"][n]
        same = sum(a == b for a, b in zip(ref, f["tokens"], strict=True))
        rows.append({"name": n, "label": data["labels"][n], "same": same, "of": len(ref), **f["first_divergence"]})
    return rows


def median_gap(data: dict[str, Any]) -> float:
    """Median top-two logit gap over the reference's free-running steps."""
    return statistics.median(data["free_running"]["eager_static"]["gaps"])


def laptop_rows(pub: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The article's laptop figures per variant (only what its text states; missing values are None)."""
    return {n: dict(v) for n, v in pub["variants"].items()}
