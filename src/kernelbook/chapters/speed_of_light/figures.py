"""How the figures of docs/speed-of-light.md are computed from the stored runs (speed_of_light.facts assembles
them): the constants the goal is held to, the goal and its verdicts at one shape (as facts.py's docstring states
them), the medians over the runs that the tables show (merged), the records the Facts hold, and the Facts' fields
computed from one run of each experiment (add_fields, designs_fields, swiglu_fields) and over every fresh run
(every_run_fields).
"""

from __future__ import annotations

import copy
import statistics
from dataclasses import dataclass
from typing import Any, Literal

from kernelbook import fmt
from kernelbook.stats import paired

GOAL_SHARE = 0.98  # the goal, not a measurement
BIG_BYTES = 64 << 20  # a shape counts for the goal from this many bytes moved
# an sm_90 SM's register file, 65,536 32-bit registers, handed to warps in units of 256 (the CUDA occupancy
# calculator's figures for compute capability 9.0; architecture, not measurement)
REGS_PER_SM, REG_UNIT = 65536, 256
NEAR_COPY = 0.95  # the one-row kernel "comes close to the copy" at this share or more at every large shape
TILE_MARGIN = 0.005  # the tile-sized copy "ahead of the kernel" by this share or more
FIGURE_LEAVES_OUT = ("rms_norm", "ours_heuristic")  # what snippets/speed-of-light/share_figure.py leaves to the table
SHOWN = 0.005  # a difference of shares smaller than this (half a point) is not worth a clause
RERUN_SHOWN = 0.001  # two runs of the row kernel "land apart" from a tenth of a point
ADD, SWIGLU, DESIGNS = "speed_of_light.add_rmsnorm", "speed_of_light.swiglu", "speed_of_light.designs"
OURS = "ours"  # the data key of our best configuration, in both goal experiments
RIVALS = {ADD: ("compiled", "liger", "rms_norm"), SWIGLU: ("compiled", "liger")}
OTHER_DESIGNS = ("persistent", "split_row", "warp_rows")
LABELS = {  # display labels of the versions' data keys: the one table the tables, figures and fields use
    "copy": "same-bytes copy",
    "copy_tiled": "same-bytes copy, kernel-sized programs",
    "ours": "ours (best configuration)",
    "ours_heuristic": "ours (heuristic configuration)",
    "one_row": "one-row Triton",
    "chapter": "Triton (chapter's block)",
    "compiled": "torch.compile",
    "liger": "Liger-Kernel",
    "rms_norm": "F.rms_norm",
    "eager": "eager",
    "row_kernel": "row kernel",
    "persistent": "persistent",
    "split_row": "split row",
    "warp_rows": "warp per row",
}
Verdict = Literal["ahead", "level", "behind", "noisy"]
Goal = Literal["met", "missed", "noisy"]
Swept = Literal["both", "ieee", "approx"]  # the divides that matched eager at every input, and so were swept


# ---- the goal -----------------------------------------------------------------------------------------------------

def shape_text(shape: dict[str, Any]) -> str:
    """A stored shape as the pages write it: '8,192 × 4,096' (rows × width)."""
    return f"{shape['rows']:,} × {shape['hidden']:,}"


def big(shape: dict[str, Any]) -> bool:
    return shape["bytes"] >= BIG_BYTES


def against(shape: dict[str, Any], others: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Ours against each of `others` on the shape's paired placements (empty where it has none)."""
    ms = shape.get("placements", {})
    return {o: paired(ms[OURS], ms[o]) for o in others if OURS in ms and o in ms}


def quiet(t: dict[str, Any]) -> bool:
    """A version's rounds stopped quiet (bench.py); a result from before the criterion counts as quiet."""
    return t.get("quiet", True)


def in_rounds(ours: dict[str, Any], rival: dict[str, Any]) -> Verdict:
    """Ours against a rival timed in the same rounds: a strictly lower median is ahead, anything else behind, where
    both are quiet; where either is noisy, the interval of their round-by-round differences decides (noisy where
    it straddles zero)."""
    if quiet(ours) and quiet(rival):
        return "ahead" if ours["ms"] < rival["ms"] else "behind"
    if len(ours["values"]) != len(rival["values"]):  # a version that failed mid-run: the rounds do not pair
        return "noisy"
    verdict = paired(ours["values"], rival["values"])["verdict"]
    return "noisy" if verdict == "level" else verdict


def standing(shape: dict[str, Any], experiment: str) -> dict[str, Verdict]:
    """Ours against each rival that ran at this shape: over its paired placements where it has them, else in the
    rounds (in_rounds)."""
    if pairs := against(shape, RIVALS[experiment]):
        return {o: p["verdict"] for o, p in pairs.items()}
    v = shape["versions"]
    return {o: in_rounds(v[OURS], v[o]) for o in RIVALS[experiment] if "ms" in v.get(o, {})}


def behind(shape: dict[str, Any], experiment: str) -> list[str]:
    """The rivals that keep ours from the goal at this shape: those it is behind. Level is not behind."""
    return [o for o, verdict in standing(shape, experiment).items() if verdict == "behind"]


def share_verdict(shape: dict[str, Any]) -> Literal["at", "under", "noisy"]:
    """Ours at the goal's share of the copy: by the medians where both are quiet, else by every round's share."""
    v = shape["versions"]
    copy, ours = v.get("copy", {}), v[OURS]
    if quiet(copy) and quiet(ours):
        return "at" if ours["share_of_copy"] >= GOAL_SHARE else "under"
    at = [c / o >= GOAL_SHARE for c, o in zip(copy["values"], ours["values"], strict=False)]
    return "at" if at and all(at) else "under" if not any(at) else "noisy"


def at_share(shape: dict[str, Any]) -> bool:
    return share_verdict(shape) == "at"


def goal(shape: dict[str, Any], experiment: str) -> Goal:
    """The goal at one shape that counts: missed where the share is under it or a rival ahead, else noisy where the
    share or a standing is noisy, else met."""
    share, stands = share_verdict(shape), set(standing(shape, experiment).values())
    if share == "under" or "behind" in stands:
        return "missed"
    return "noisy" if share == "noisy" or "noisy" in stands else "met"


def met(shape: dict[str, Any], experiment: str) -> bool:
    """The goal at one shape: large enough to count, at the share, and behind no rival, none of it noisy."""
    return big(shape) and goal(shape, experiment) == "met"


def goal_of(shapes: list[dict[str, Any]], experiment: str) -> Goal:
    """The goal over the shapes that count: met at all, missed at one, else noisy."""
    at = {goal(s, experiment) for s in shapes if big(s)}
    return "missed" if "missed" in at else "noisy" if "noisy" in at else "met"


def probe(swiglu: dict[str, Any]) -> dict[str, Any]:
    """The issue's probe shape of speed_of_light.swiglu: the one where the compiled kernel's registers were read."""
    return next(s for s in swiglu["shapes"] if "registers" in s)


# ---- torch.compile against the fusion chapter's own kernels, on the GPU alone -------------------------------------

FUSION_KERNEL = {ADD: "one_row", SWIGLU: "chapter"}  # the fusion chapter's kernels at its own launch, timed here


def fusion_versions(data: dict[str, Any], experiment: str, rows: int, hidden: int) -> tuple[dict[str, Any],
                                                                                          dict[str, Any]]:
    """torch.compile's timing and the fusion chapter's own kernel's (FUSION_KERNEL) at one shape of one run, both
    captured in CUDA graphs and timed by replay in the same rounds: GPU time, no host side."""
    v = next(s for s in data["shapes"] if (s["rows"], s["hidden"]) == (rows, hidden))["versions"]
    return v["compiled"], v[FUSION_KERNEL[experiment]]


def compiled_over_fusion(data: dict[str, Any], experiment: str, rows: int, hidden: int) -> float:
    """torch.compile's median GPU time over the fusion chapter's kernel's, at one shape of one run: the one figure
    every page gives for how the compiled code compares with the hand-written kernel (the fusion chapter's own
    timings run from Python, where the compiled call's host and guard cost falls inside the timer)."""
    compiled, hand = fusion_versions(data, experiment, rows, hidden)
    return compiled["ms"] / hand["ms"]


def programs_per_sm(regs: int, warps: int, threads_per_sm: int) -> int:
    """How many programs of `warps` warps, at `regs` registers per thread, one SM holds at once: the smaller of its
    thread limit and its register file."""
    per_warp = -(-regs * 32 // REG_UNIT) * REG_UNIT
    return min(threads_per_sm // (32 * warps), REGS_PER_SM // (per_warp * warps))


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One experiment's runs of the current code (oldest first) as the tables and the share figures read them: the
    newest run's data, with each timed version's time at each shape (and each finalist's, speed_of_light.designs)
    replaced by its median over the runs that timed it there, and its GB/s and share of the copy computed again
    from those medians, so that a row's share is its copy time over its kernel time as the row shows them. The
    rounds, noise, configurations and verdicts stay the newest run's. One run: its data as stored."""
    if len(runs) == 1:
        return runs[0]
    out = copy.deepcopy(runs[-1])
    for s in out["shapes"]:
        same = [t for d in runs for t in d["shapes"] if (t["rows"], t["hidden"]) == (s["rows"], s["hidden"])]
        _median_times(s["versions"], [t["versions"] for t in same], nbytes=s.get("bytes"))
        for design, configs in s.get("finalist_rounds", {}).items():
            _median_times(configs, [t.get("finalist_rounds", {}).get(design, {}) for t in same])
    out["runs"] = len(runs)
    return out


def _median_times(versions: dict[str, Any], each: list[dict[str, Any]], nbytes: int | None = None) -> None:
    """versions[k]["ms"] -> its median over each run's versions[k]; GB/s (nbytes moved) and the share of the copy
    among the versions follow it."""
    for k, v in versions.items():
        times = [x["ms"] for e in each if "ms" in (x := e.get(k, {}))]
        if "ms" not in v or not times:
            continue
        ms = statistics.median(times)
        if "gbps" in v:  # from the bytes moved, where the shape stores them (else the run's GB/s, rescaled)
            v["gbps"] = nbytes / ms / 1e6 if nbytes else v["gbps"] * v["ms"] / ms
        v["ms"] = v["median"] = ms
        v["runs"] = len(times)
    base = versions.get("copy", {}).get("ms")
    for v in versions.values():
        if "ms" in v and base is not None and "share_of_copy" in v:
            v["share_of_copy"] = base / v["ms"]


# ---- the records the facts hold -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class AtShape:
    """Some versions (display labels) at one shape: the rivals ours was level with there, say."""
    shape: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Under:
    """A large shape where ours did not reach the goal's share, and the KiB of each tensor one of its programs
    holds; noisy where its rounds fell on both sides of the share."""
    shape: str
    share: float
    kib: int
    noisy: bool = False


@dataclass(frozen=True)
class Open:
    """The first large add + RMSNorm shape where ours is not decidedly at the goal's share (under it, or noisy
    about it): its share there, and the KiB of each tensor one program of ours and of the fastest copy held. Empty
    where there is none. A record, so the page reads the newest run's figures of that one shape."""
    shape: str = ""
    share: float = 0.0
    kib: int = 0
    copy_kib: int = 0
    noisy: bool = False


@dataclass(frozen=True)
class Noise:
    """How one experiment's rounds stopped: the criterion, the rounds the shapes ran, and what stayed noisy."""
    bound_pct: float
    min_rounds: int
    max_rounds: int
    cap_s: float
    rounds_low: int
    rounds_high: int
    shapes: int
    quiet_shapes: int  # shapes whose rounds stopped with every version quiet
    all_quiet: bool
    noisy_big: tuple[AtShape, ...]  # the versions the page reports (not the finalists) still noisy, large shapes
    noisiest_label: str  # the noisiest reported version at a large shape
    noisiest_shape: str
    noisiest_pct: float


# ---- the facts' fields --------------------------------------------------------------------------------------------

def words(names: tuple[str, ...] | list[str]) -> str:
    """('a', 'b', 'c') -> 'a, b and c'."""
    names = list(names)
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def at_words(groups: tuple[AtShape, ...]) -> str:
    """Versions by shape, as words: 'torch.compile and Liger-Kernel at 8,192 × 4,096; F.rms_norm at 1 × 1,536'."""
    return "; ".join(f"{words(g.names)} at {g.shape}" for g in groups)


def _share(shape: dict[str, Any], key: str) -> float | None:
    return shape["versions"].get(key, {}).get("share_of_copy")


def _written_apart(low: float, high: float) -> bool:
    """Whether two shares read differently as the page writes them (rounded down to 0.1%)."""
    return fmt.pct_down(low) != fmt.pct_down(high)


def _group(shapes: list[dict[str, Any]], experiment: str, verdict: Verdict) -> tuple[AtShape, ...]:
    return tuple(AtShape(shape_text(s), names) for s in shapes
                 if (names := tuple(LABELS[o] for o, v in standing(s, experiment).items() if v == verdict)))


REPORTED = ("copy", OURS, "copy_tiled", "one_row", "chapter", "compiled", "liger", "rms_norm", "eager",
            "row_kernel", *OTHER_DESIGNS)  # the versions a table shows


def noise(data: dict[str, Any]) -> Noise:
    """How the rounds of one experiment stopped. A result from before the criterion (a fixed count, no noise
    stored) reads as all quiet, with its count as the rounds."""
    shapes = data["shapes"]
    ran = [s["rounds"]["rounds"] if "rounds" in s else data["rounds"] for s in shapes]
    quiet_shapes = [s for s in shapes if all(quiet(v) for v in s["versions"].values() if "ms" in v)]
    large = [s for s in shapes if not s.get("small", False)]
    noisy = tuple(AtShape(shape_text(s), names) for s in large
                  if (names := tuple(LABELS[k] for k in REPORTED if not quiet(s["versions"].get(k, {})))))
    reported = [(v.get("noise_pct") or 0.0, k, s) for s in large for k, v in s["versions"].items()
                if k in REPORTED and "ms" in v]
    pct, key, at = max(reported, key=lambda r: r[0])
    return Noise(bound_pct=data.get("bound_pct", 0.0), min_rounds=data.get("min_rounds", data.get("rounds", 0)),
                 max_rounds=data.get("max_rounds", data.get("rounds", 0)), cap_s=data.get("cap_s", 0.0),
                 rounds_low=min(ran), rounds_high=max(ran), shapes=len(shapes), quiet_shapes=len(quiet_shapes),
                 all_quiet=len(quiet_shapes) == len(shapes), noisy_big=noisy, noisiest_label=LABELS[key],
                 noisiest_shape=shape_text(at), noisiest_pct=pct)


def add_fields(add: dict[str, Any], med: dict[str, Any]) -> dict[str, Any]:
    """The Facts' fields of one add + RMSNorm run (`add`), its shares from `med` (the medians over the runs, merged)."""
    shapes = add["shapes"]
    large = [s for s in shapes if big(s)]
    small = [s for s in shapes if s["small"]]
    # the shares, from the medians over the runs (merged), as the tables show them; the verdicts from `add`
    m_large = [s for s in med["shapes"] if big(s)]
    m_small = [s for s in med["shapes"] if s["small"]]
    share = [s["versions"][OURS]["share_of_copy"] for s in m_large]
    one_row = [_share(s, "one_row") for s in m_large]
    tile = [_share(s, "copy_tiled") for s in m_large]
    lead, at = max(((t - b, s) for t, b, s in zip(tile, share, m_large, strict=True)), key=lambda p: p[0])
    under = [s for s in large if not at_share(s)]  # under the share, or noisy about it
    small_share = [s["versions"][OURS]["share_of_copy"] for s in m_small]
    small_tile = [_share(s, "copy_tiled") for s in m_small]
    med_share = {shape_text(s): s["versions"][OURS]["share_of_copy"] for s in med["shapes"]}
    own_work = max(t - x for t, x in zip(small_tile, small_share, strict=True))  # beyond the tile-sized copy
    copies = [s["versions"]["copy"]["values"] for s in shapes if not s["small"]]
    not_ahead = tuple(AtShape(shape_text(s), tuple(LABELS[o] for o in rivals)) for s in large  # behind or noisy
                      if (rivals := [o for o, v in standing(s, ADD).items() if v != "ahead"]))
    ours_y = [c["max_steps"] for s in shapes for k, c in s["check"].items() if k.startswith("y")]
    n_met = sum(met(s, ADD) for s in large)
    add_noise = noise(add)
    # placements a shape's rounds ran on: its pool (method.py), or one a round from before the pool was bounded
    pools = [(s["rounds"].get("placements", s["rounds"]["rounds"]) if "rounds" in s else add["rounds"], s)
             for s in shapes]
    pool_low, pool_at = min(pools, key=lambda p: p[0])
    first = under[0] if under else None
    return dict(
        bound_pct=add_noise.bound_pct, cap_s=add_noise.cap_s, min_rounds=add_noise.min_rounds,
        max_rounds=add_noise.max_rounds, add_goal_noisy_text=words([shape_text(s) for s in large
                                                                    if goal(s, ADD) == "noisy"]),
        add_open=Open(shape_text(first), first["versions"][OURS]["share_of_copy"],
                      first["best_config"][0] * first["hidden"] * 2 // 1024, first["copy_config"][0] * 2 // 1024,
                      share_verdict(first) == "noisy") if first else Open(),
        add_open_share=med_share[shape_text(first)] if first else 0.0, add_shares=med_share,
        rounds=add_noise.rounds_low, add_noise=add_noise, add_all_quiet=add_noise.all_quiet,
        add_rounds_vary=add_noise.rounds_high != add_noise.rounds_low, graph_calls=add["graph_calls"],
        finalists=add["finalists"],
        small_rows_low=min(s["rows"] for s in small), small_rows_high=max(s["rows"] for s in small),
        copy_round_spread=max((max(v) - min(v)) / min(v) for v in copies), add_y_max_steps=max(ours_y),
        add_own_placements=all(n >= (s["rounds"]["rounds"] if "rounds" in s else add["rounds"]) for n, s in pools),
        add_pool_low=pool_low, add_pool_shape=shape_text(pool_at),
        add_rivals=(rivals := tuple(LABELS[o] for o in RIVALS[ADD]
                                    if any("ms" in s["versions"].get(o, {}) for s in shapes))),
        add_rivals_text=words(rivals),
        add_big=len(large), add_share_low=min(share), add_share_high=max(share),
        add_at_share=sum(at_share(s) for s in large), add_ahead=len(large) - len(not_ahead),
        add_all_ahead=not not_ahead, add_not_ahead=not_ahead, add_met=n_met, add_goal_met=n_met == len(large),
        add_goal=goal_of(large, ADD), add_goal_noisy=tuple(shape_text(s) for s in large if goal(s, ADD) == "noisy"),
        add_one_row_picked=sum(s["best_config"][0] == 1 for s in large),
        one_row_low=min(one_row), one_row_high=max(one_row),
        one_row_gap_points=max(abs(a - b) for a, b in zip(share, one_row, strict=True)) * 100,
        one_row_close=min(one_row) >= NEAR_COPY,
        tile_low=min(tile), tile_high=max(tile), tile_margin_points=TILE_MARGIN * 100,
        tile_never_ahead=lead < TILE_MARGIN, tile_lead_points=lead * 100, tile_lead_shape=shape_text(at),
        add_all_at_share=not under,
        add_under=tuple(Under(shape_text(s), s["versions"][OURS]["share_of_copy"],
                              s["best_config"][0] * s["hidden"] * 2 // 1024, share_verdict(s) == "noisy")
                        for s in under),
        add_under_copy_kib=tuple(sorted({s["copy_config"][0] * 2 // 1024 for s in under})),
        small_share_low=min(small_share), small_share_high=max(small_share),
        small_tile_low=min(small_tile), small_tile_high=max(small_tile),
        small_own_work_points=own_work * 100, small_own_work_shows=own_work >= SHOWN,
        large_copy_gib=add["large_copy"]["bytes_moved"] / 2 / 2**30, large_copy_gbps=add["large_copy"]["gbps"],
        rms_norm_share_high=max(x for s in med["shapes"] if not s["small"] if (x := _share(s, "rms_norm")) is not None),
        figure_share_low=min(v["share_of_copy"] for s in med["shapes"] if not s["small"]
                             for k, v in s["versions"].items()
                             if k not in FIGURE_LEAVES_OUT and "share_of_copy" in v),
    )


def designs_fields(designs: dict[str, Any], add: dict[str, Any]) -> dict[str, Any]:
    """designs and add: the medians over the runs (merged), as the tables show them."""
    shapes = designs["shapes"]
    low = {d: min(x for s in shapes if (x := _share(s, d)) is not None) for d in ("row_kernel", *OTHER_DESIGNS)}
    high = {d: max(x for s in shapes if (x := _share(s, d)) is not None) for d in low}
    ahead = tuple(AtShape(shape_text(s), names) for s in shapes
                  if (names := tuple(LABELS[d] for d in OTHER_DESIGNS
                                     if (x := _share(s, d)) is not None and x > _share(s, "row_kernel"))))
    # the same row kernel at the same shapes in speed_of_light.add_rmsnorm, another process
    main = {(s["rows"], s["hidden"]): s["versions"][OURS]["share_of_copy"] for s in add["shapes"]}
    rerun, at = max(((_share(s, "row_kernel") - main[k], s) for s in shapes if (k := (s["rows"], s["hidden"])) in main),
                    key=lambda d: abs(d[0]))
    ran = [s for s in shapes if "warp_rows" in s["versions"]]
    spilled = {s["hidden"]: [k["local_bytes"] for k in s["warp_rows_kernels"].values()] for s in ran}
    fit = [s for s in ran if max(spilled[s["hidden"]]) == 0]
    spill = [s for s in ran if min(spilled[s["hidden"]]) > 0]
    best_fit = max(fit, key=lambda s: _share(s, "warp_rows"), default=None)
    not_run = sorted((s for s in shapes if "warp_rows" in s["not_run"]), key=lambda s: s["hidden"])
    why = not_run[0]["not_run"]["warp_rows"] if not_run else {}
    barriers = [(c, k["barriers"]) for s in ran for c, k in s["warp_rows_kernels"].items()]
    checks = [c["y"]["max_steps"] for s in shapes for c in s["check"].values()]
    return dict(
        designs_rounds=(dn := noise(designs)).rounds_low, designs_noise=dn, designs_all_quiet=dn.all_quiet,
        designs_rounds_vary=dn.rounds_high != dn.rounds_low, designs_finalists=designs["finalists"],
        designs_y_max_steps=max(checks),
        design_low=low, design_high=high, **{f"{d}_low": low[d] for d in low}, **{f"{d}_high": high[d] for d in high},
        **{f"{d}_spread": _written_apart(low[d], high[d]) for d in low},
        designs_none_ahead=not ahead, designs_ahead=ahead,
        rerun_shows=abs(rerun) >= RERUN_SHOWN, rerun_shape=shape_text(at), rerun_points=abs(rerun) * 100,
        rerun_higher=rerun > 0, rerun_here=_share(at, "row_kernel"), rerun_main=main[(at["rows"], at["hidden"])],
        warp_not_run=bool(not_run), warp_not_run_width=not_run[0]["hidden"] if not_run else 0,
        warp_elements_per_thread=why.get("elements_per_thread", 0), warp_registers_for_x=why.get("registers_for_x", 0),
        warp_registers=why.get("registers", 0),
        warp_fits=best_fit is not None, warp_fit_width=best_fit["hidden"] if best_fit else 0,
        warp_fit_share=_share(best_fit, "warp_rows") if best_fit else 0.0,
        warp_fit_row_share=_share(best_fit, "row_kernel") if best_fit else 0.0,
        warp_fit_behind=bool(best_fit) and _share(best_fit, "warp_rows") < _share(best_fit, "row_kernel"),
        warp_spills=bool(spill), warp_spill_widths=tuple(s["hidden"] for s in spill),
        warp_spill_widths_text=words([f"{s['hidden']:,}" for s in spill]),
        warp_spill_share=max((_share(s, "warp_rows") for s in spill), default=0.0),
        one_warp_barrier_free=all(n == 0 for c, n in barriers if c == "(1,)"),
        multi_warp_barriers=all(n > 0 for c, n in barriers if c != "(1,)"),
    )


def swiglu_fields(sw: dict[str, Any], med: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The Facts' fields of one SwiGLU run (`sw`), its shares from `med` (merged) and its placements over `runs`."""
    shapes = [s for s in sw["shapes"] if big(s)]
    m_shapes = [s for s in med["shapes"] if big(s)]  # the shares: medians over the runs, as the table shows them
    rivals = [o for o in RIVALS[SWIGLU] if any("ms" in s["versions"].get(o, {}) for s in sw["shapes"])]
    miss = sw["mismatches"]
    swept = [name for name in ("ieee", "approx") if miss[name]["differ"] == 0]
    shares = [[_share(s, k) for k in (OURS, *rivals) if _share(s, k) is not None] for s in m_shapes]
    counts = [len(ms) for s in shapes for ms in s.get("placements", {}).values()]
    level, behind_ = _group(shapes, SWIGLU, "level"), _group(shapes, SWIGLU, "behind")
    ahead = tuple(shape_text(s) for s in shapes if set(standing(s, SWIGLU).values()) == {"ahead"})
    n_met = sum(met(s, SWIGLU) for s in shapes)
    inexact = [(o, s) for s in shapes for o, v in standing(s, SWIGLU).items()
               if v != "ahead" and all(c["bit_identical"] for k, c in s["check"].items() if k in ("triton", "ieee",
                                                                                                   "approx"))
               and o in s["check"] and not s["check"][o]["bit_identical"]]
    rival, at = inexact[0] if inexact else (None, None)
    vs_copy = {shape_text(s): (p, s) for s in shapes if (p := against(s, ("copy",)).get("copy"))}
    over = [s for p, s in vs_copy.values() if p["verdict"] == "ahead"]
    under = [(p, s) for p, s in vs_copy.values() if p["verdict"] == "behind"]
    worst = max(under, key=lambda u: u[0]["median"], default=None)
    at_probe = probe(sw)
    # how far placements moved each version's time at the probe shape: the median over the runs of each run's range
    ranges = [{k: max(v) - min(v) for k, v in probe(d)["placements"].items()} for d in runs]
    moved = {k: statistics.median(r[k] for r in ranges if k in r) for k in at_probe["placements"]}
    widest = max(moved, key=moved.get)
    reg = at_probe["registers"]
    held = {d: programs_per_sm(n, reg["warps"], reg["threads_per_sm"]) for d, n in reg["per_thread"].items()}
    return dict(
        swiglu_rivals=tuple(LABELS[o] for o in rivals), swiglu_rivals_text=words([LABELS[o] for o in rivals]),
        divide_pairs=miss["ieee"]["pairs"], ieee_differ=miss["ieee"]["differ"], approx_differ=miss["approx"]["differ"],
        divides_swept="both" if len(swept) == 2 else swept[0], approx_won=sum(not s["best_config"][2] for s in shapes),
        swiglu_big=len(shapes),
        swiglu_share_low=min(s["versions"][OURS]["share_of_copy"] for s in m_shapes),
        swiglu_share_high=max(s["versions"][OURS]["share_of_copy"] for s in m_shapes),
        swiglu_kernels=1 + len(rivals), swiglu_spread_points=max(max(x) - min(x) for x in shares) * 100,
        swiglu_all_near_copy=all(min(x) >= GOAL_SHARE for x in shares), swiglu_all_low=min(min(x) for x in shares),
        placements_low=min(counts), placements_high=max(counts), placements_vary=min(counts) != max(counts),
        swiglu_ahead_shapes=ahead, swiglu_any_ahead=bool(ahead), swiglu_level=level, swiglu_any_level=bool(level),
        swiglu_compiled_level=any(LABELS["compiled"] in g.names for g in level),
        swiglu_behind=behind_, swiglu_any_behind=bool(behind_),
        swiglu_at_share=sum(at_share(s) for s in shapes), swiglu_met=n_met, swiglu_goal_met=n_met == len(shapes),
        swiglu_goal=goal_of(shapes, SWIGLU),
        swiglu_goal_noisy=tuple(shape_text(s) for s in shapes if goal(s, SWIGLU) == "noisy"),
        swiglu_noise=(sn := noise(sw)),
        swiglu_all_quiet=sn.all_quiet, swiglu_rounds_vary=sn.rounds_high != sn.rounds_low,
        swiglu_noisy_big=bool(sn.noisy_big), swiglu_noisy_text=at_words(sn.noisy_big),
        swiglu_ahead_text=words(ahead), swiglu_level_text=at_words(level),
        inexact_shows=bool(inexact), inexact_rival=LABELS[rival] if rival else "", inexact_compiled=rival == "compiled",
        inexact_level=bool(at) and standing(at, SWIGLU)[rival] == "level",
        inexact_shape=shape_text(at) if at else "",
        inexact_share=at["check"][rival]["differ"] / at["check"][rival]["elements"] if at else 0.0,
        inexact_steps=at["check"][rival]["max_steps"] if at else 0,
        copy_ahead=len(over), copy_level=sum(p["verdict"] == "level" for p, _ in vs_copy.values()),
        copy_behind=len(under), copy_behind_any=bool(under),
        copy_behind_us=worst[0]["median"] * 1e3 if worst else 0.0,
        copy_behind_low_us=min(p["median"] for p, _ in under) * 1e3 if under else 0.0,
        copy_behind_share=worst[0]["median"] / statistics.median(worst[1]["placements"]["copy"]) if worst else 0.0,
        copy_ahead_ieee=sum(s["best_config"][2] for s in over), beat_copy_any=bool(over),
        beat_copy_all_ieee=bool(over) and all(s["best_config"][2] for s in over),
        probe_shape=shape_text(at_probe), probe_widest=LABELS[widest], probe_widest_us=moved[widest] * 1e3,
        probe_ours_us=moved[OURS] * 1e3,
        probe_moves_more=moved[OURS] > max(abs(p["median"]) for p in against(at_probe, tuple(rivals)).values()),
        probe_rival_us=max(abs(p["median"]) for p in against(at_probe, tuple(rivals)).values()) * 1e3,
        regs_ieee=reg["per_thread"]["ieee"], regs_approx=reg["per_thread"]["approx"], reg_warps=reg["warps"],
        held_ieee=held["ieee"], held_approx=held["approx"], ieee_holds_fewer=held["ieee"] < held["approx"],
    )


def every_run_fields(adds: list[dict[str, Any]], m_add: dict[str, Any], sws: list[dict[str, Any]],
               m_sw: dict[str, Any]) -> dict[str, Any]:
    """What every fresh run says (oldest first), and the newest run's own words where the page names them as its."""
    a = [add_fields(d, m_add) for d in adds]
    w = [swiglu_fields(d, m_sw, sws) for d in sws]
    new_a, new_w = a[-1], w[-1]
    return dict(
        add_open=new_a["add_open"], add_goal_noisy_text=new_a["add_goal_noisy_text"],
        add_runs=len(a), add_ahead_every_run=all(x["add_all_ahead"] for x in a),
        add_ahead_runs=sum(x["add_all_ahead"] for x in a),
        add_missed_no_run=all(x["add_goal"] != "missed" for x in a),
        add_missed_runs=sum(x["add_goal"] == "missed" for x in a),
        add_met_runs=sum(x["add_goal"] == "met" for x in a), add_newest_noisy=new_a["add_goal_noisy"],
        add_newest_under=len(new_a["add_under"]),
        swiglu_noisy_text=new_w["swiglu_noisy_text"], swiglu_ahead_text=new_w["swiglu_ahead_text"],
        swiglu_level_text=new_w["swiglu_level_text"], swiglu_compiled_level=new_w["swiglu_compiled_level"],
        **{k: v for k, v in new_w.items() if k.startswith("inexact_")},
        swiglu_runs=len(w), swiglu_quiet_big_runs=sum(not x["swiglu_noisy_big"] for x in w),
        swiglu_newest_noisy_big=new_w["swiglu_noisy_big"],
        swiglu_same_placements=not any(x["placements_vary"] for x in w)
        and len({x["placements_low"] for x in w}) == 1,
        swiglu_behind_no_run=not any(x["swiglu_any_behind"] for x in w),
        swiglu_behind_runs=sum(x["swiglu_any_behind"] for x in w),
        swiglu_met_every_run=all(x["swiglu_goal_met"] for x in w),
        swiglu_met_runs=sum(x["swiglu_goal_met"] for x in w),
        swiglu_copy_ahead_same=len({x["copy_ahead"] for x in w}) == 1,
        copy_ahead_low=min(x["copy_ahead"] for x in w), copy_ahead_high=max(x["copy_ahead"] for x in w),
        copy_behind_runs=sum(x["copy_behind_any"] for x in w), copy_behind_most=max(x["copy_behind"] for x in w),
        swiglu_all_ahead_runs=sum(not x["swiglu_any_level"] and not x["swiglu_any_behind"] for x in w),
        swiglu_newest_ahead=new_w["swiglu_any_ahead"], swiglu_newest_level=new_w["swiglu_any_level"],
        inexact_runs=sum(x["inexact_shows"] and x["inexact_level"] and x["inexact_compiled"] for x in w),
        probe_more_runs=sum(x["probe_moves_more"] for x in w),
    )
