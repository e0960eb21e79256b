"""The numbers and verdicts of docs/decode.md, from decode.six_ways, decode.constraints and decode.compile_warm on
one machine (with machine.ceilings' launch cost), and the article's RTX 4060 Laptop figures beside them.

No sentence is written here: the page's Markdown reads these fields (`{{ f.best_ms }}`, in the text FORMATS gives
each), is written for the primary machine's data, and names above each paragraph the GUARDS it rests on
(decode.guards, kernelbook.guards). `derive` recomputes the ratios and shares the page prints beside their figures
from the medians shown. What one launch costs is the machine chapter's fact on the page
(`facts("machine").eager_us`); the launch fields here hold the same medians, for the figures computed from them. A
verdict between two variants is read from the timing rounds: the median decides the direction only if most rounds
agree with it (report.rounds_faster). The step times of the headline (eager with either cache, the hand-captured
graph, reduce-overhead, the best valid way) are the median across every stored run of the current code of
decode.six_ways (kernelbook.across), each with its lowest and highest run and whether those lie further apart than
the widest run's own spread (`*_runs_vary`); the ratios shown beside them divide those medians; the verdicts between
two ways read the newest run's rounds. How often one way beat another is a share of each run's rounds (runs time
different numbers of rounds), read over the runs as its lowest and highest (EXTREMES), never as a median of counts.
The way the page names as the noisiest, the widest or the most grown after the profiles is chosen by its medians
over every run (figures.most, figures.after_worst), so that the one rule's median is of that one way's figure in
each run; the GPU's idle shares and the differences between two ways' steps are recomputed from the medians the six
ways table shows (`derive`).
Variant labels are stored with each result (`labels`, written from decode/variants.py), so the page uses those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from kernelbook import across, read, source
from kernelbook.chapters.claims.verdicts import Verdict
from kernelbook.chapters.decode import figures
from kernelbook.chapters.decode.figures import ItemOutcome, Range, Versus
from kernelbook.decode import report

LAPTOP = report.LAPTOP
GPU_BOUND_IDLE = 0.2  # a step "runs at the GPU's pace" when its GPU is idle for less than this share of it
FOLLOWS_BANDWIDTH = 0.7  # the best step's gain over the laptop "tracks the bandwidth" at this share of the ratio
COMPILED = ("compile_default", "compile_reduce_overhead", "compile_max_autotune")


@dataclass(frozen=True)
class Facts:
    gpu: str
    transformers: str  # the version the H200 ran
    # the model
    layers: int
    hidden: int
    mlp: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    rope_theta: float
    tied: bool
    init_std: float
    params_b: float  # billions of parameters
    weight_gb: float
    laptop_weight_gb: float
    weight_as_article: bool  # the same GB of weights as the real checkpoint the article decoded
    # the harness and the method
    prompt_len: int
    cache_slots: int
    n_variants: int
    n_static: int  # variants decoding into the shared StaticCache
    check_steps: int
    rounds_n: int
    min_rounds: int  # the noise criterion the rounds stopped on (bench.py): at least this many rounds ...
    rounds_cap_s: float  # ... within this many seconds
    bound_pct: float  # ... until every variant's step noise is at most this, percent
    rounds_quiet: bool  # every variant quiet: the rounds stopped on the criterion, not the cap
    noisy_count: int  # variants whose step was still noisy at the cap
    noisiest_label: str
    noisiest_pct: float  # its noise, percent (standard deviation of the round medians over their mean)
    quiet_labels: tuple[str, ...]  # the variants that were quiet
    some_quiet: bool  # ... at least one
    timed_steps: int
    warm_steps: int
    profile_calls: int
    compile_calls: int
    # headline
    any_valid: bool  # at least one variant passed the teacher-forced check
    all_passed: bool
    n_failed: int
    failed: str  # their labels, joined
    has_build_errors: bool
    build_failed: str
    best_label: str
    best_ms: float | None
    best_ms_low: float | None  # the lowest and highest run median
    best_ms_high: float | None
    best_ms_runs_vary: bool  # ... further apart than the widest run's own spread
    best_speedup: float | None  # eager default cache over the best valid step
    best_floor_share: float | None
    best_tok_s: float | None
    best_kernels: int | None
    best_busy_ms: float | None
    best_idle_ms: float | None
    best_busy_over_floor: float | None
    best_busy_beyond_floor_ms: float | None  # the best step's kernel time beyond the floor
    best_beyond_past_floor: bool  # ... is longer than the floor itself (the kernels take over twice the floor)
    laptop_best_label: str
    laptop_best_ms: float
    laptop_best_floor_share: float | None
    # one launch
    launches: int
    launch_samples: int  # eager loops the machine page timed (sampled until quiet, or its cap)
    launch_eager_us: float
    launch_graph_us: float
    launch_ratio: float
    laptop_launch_low: float
    laptop_launch_high: float
    launch_vs_laptop: Range  # our ratio against the laptop's range
    launch_ms: float  # the eager static step's kernels at the eager launch cost
    graph_launch_ms: float  # ... at the replayed cost
    launch_over_floor: float
    launch_bound: bool  # launching alone takes longer than the floor
    launch_step_share: float  # the eager static step's launches at the eager launch cost, as a share of its step
    host_beyond_launch_ms: float  # the eager static step's host time beyond those launches (Python, HF's code)
    # the floor
    copy_gbps: float
    floor_ms: float
    ceiling_tok_s: float
    laptop_dram_gbps: float
    laptop_floor_ms: float
    laptop_ceiling_tok_s: float
    laptop_dyn_floor_share: float
    dyn_floor_share: float
    bw_ratio: float
    step_ratio: float | None  # the laptop's best step over ours
    follows_bandwidth: bool
    # checks
    yard_rel_err: float
    yard_max_abs: float
    tol_factor: float
    tolerance: float
    band: float
    band_factor: float  # the band over the largest single-logit rounding difference (check.tolerance: TOL_FACTOR)
    worst_compiled_err: float
    trap_past_tolerance: bool  # the broken replay is further off than the tolerance lets through
    median_gap: float
    gap_within_band: bool  # the reference's median top-two gap is inside the rounding band
    n_departed: int
    all_same_tokens: bool
    departures_in_band: bool  # every first departure fell where the reference's top two were within the band
    n_wide: int
    laptop_all_same: bool
    # the trap
    trap_steps: int
    warmup_calls: int
    counter_after_prefill: int
    counter_after_capture: int
    counter_shift: int
    capture_moved_counter: bool  # the counter moved by more than the warm-up calls
    trap_first_slot: int
    trap_last_slot: int
    trap_rel_err: float
    trap_top1: float
    trap_any_top1: bool
    reset_exact: bool
    reset_rel_err: float
    # the six ways, in pairs
    six_runs: int  # stored runs of decode.six_ways of the current code
    six_several_runs: bool  # ... more than one, so a range across runs can be shown
    dyn_ms: float
    dyn_ms_low: float  # the lowest and highest run median
    dyn_ms_high: float
    dyn_ms_runs_vary: bool  # ... further apart than the widest run's own spread
    dyn_kernels: int
    dyn_busy_ms: float
    dyn_idle_share: float  # share of the eager default-cache step the GPU sits idle
    static_ms: float
    static_ms_low: float  # the lowest and highest run median
    static_ms_high: float
    static_ms_runs_vary: bool  # ... further apart than the widest run's own spread
    static_kernels: int
    static_busy_ms: float
    static_host_ms: float
    static_idle_share: float
    static_extra_kernels: int
    laptop_static_extra: int
    static_vs_dynamic: Versus
    static_dyn_diff_ms: float
    static_slower_low: float  # the share of a run's rounds in which its eager step was slower: lowest over runs
    static_slower_high: float  # ... highest over runs (EXTREMES)
    laptop_dyn_ms: float
    laptop_static_ms: float
    laptop_static_versus: Literal["slower", "faster"]
    graph_ms: float
    graph_ms_low: float  # the lowest and highest run median
    graph_ms_high: float
    graph_ms_runs_vary: bool  # ... further apart than the widest run's own spread
    graph_kernels: int
    graph_busy_ms: float
    graph_same_kernels: bool
    graph_speedup: float
    graph_host_ms: float
    graph_idle_share: float
    graph_idle_ms: float
    graph_gpu_bound: bool
    capture_s: float
    laptop_capture_s: float
    laptop_graph_ms: float
    laptop_graph_host_ms: float
    cd_ms: float  # default-mode torch.compile's step
    cd_kernels: int
    cd_triton: int
    cd_host_ms: float
    cd_busy_ms: float
    cd_idle_share: float
    cd_launch_bound: bool  # the host's launching takes longer than the kernels
    laptop_cd_kernels: int
    laptop_cd_triton: int
    laptop_cd_host_ms: float
    laptop_cd_idle_share: float
    cd_idle_above_laptop: bool
    ro_ms: float
    ro_ms_low: float  # the lowest and highest run median
    ro_ms_high: float
    ro_ms_runs_vary: bool  # ... further apart than the widest run's own spread
    ro_vs_graph: Versus
    ro_graph_diff_ms: float
    ro_faster_low: float  # the share of a run's rounds reduce-overhead beat the hand-made graph: lowest over runs
    fusion_cut_busy_ms: float  # GPU busy time of the hand graph minus reduce-overhead's
    fusion_cut_busy: bool  # ... more than zero
    laptop_ro_ms: float
    laptop_ro_gain_ms: float
    laptop_fusion_saved_ms: float
    ma_ms: float  # max-autotune's step
    ma_vs_ro: Versus
    ma_ro_diff_ms: float
    ma_speedup: float  # eager default cache over max-autotune: graphs and fusion together
    ma_faster_low: float  # the share of a run's rounds max-autotune beat reduce-overhead: lowest over runs
    ma_faster_high: float  # ... highest over runs (EXTREMES)
    ma_as_laptop: bool  # faster than reduce-overhead, as on the laptop
    laptop_ma_gain_ms: float
    compile_s_default: float
    compile_s_ro: float
    compile_s_ma: float
    laptop_compile_s_ma: float
    # spread and the round after the profiles
    widest_label: str
    widest_spread: float  # half the range of the round medians over the median
    widest_min_ms: float
    widest_max_ms: float
    has_after_profiler: bool
    after_worst_label: str  # the way whose host time grew most after the profiles, by the medians over runs
    after_worst_before_us: float | None  # its host µs per step in the rounds, and in the round after the profiles
    after_worst_host_us: float | None
    after_worst_added_us: float | None
    after_worst_share: float | None
    after_grew: bool  # some variant's host time per step grew in the round after the profiles
    # the timeline (one profiled step each)
    tl_static_gaps_ms: float
    tl_static_host_ms: float
    tl_static_mostly_gaps: bool  # the gaps take more than half the profiled host call
    tl_graph_launches: int
    tl_graph_kernels: int
    tl_graph_gaps_ms: float
    tl_graph_gaps_past_idle: bool  # more gaps under the profiler than the timed step leaves idle
    # what a graph cannot hold
    item_outcome: ItemOutcome
    item_error: str
    item_chained: bool
    item_context_error: str
    item_usable_after: bool
    item_returncode: int | None
    laptop_item_failed: bool
    dyn_grows: bool  # the default cache's keys one token longer at every step
    dyn_moves: bool  # ... and at a new address at every step
    static_fixed: bool  # the StaticCache's keys one shape at one address throughout
    graph_count: int
    break_count: int
    break_reasons: str
    op_count: int
    one_graph: bool
    laptop_graph_count: int
    laptop_break_count: int
    laptop_op_count: int
    # compile_warm
    warm_modes: tuple[str, ...]  # the modes it compiled ("default", "reduce-overhead")
    cold_low_s: float
    cold_high_s: float
    warm_low_s: float
    warm_high_s: float
    warm_one_figure: bool  # the warm compiles all print as one figure (to 0.1 s)
    warm_modes_words: str  # warm_modes joined in words ("default and reduce-overhead")
    laptop_cold_low_s: float
    laptop_cold_high_s: float
    laptop_warm_low_s: float
    laptop_warm_high_s: float
    static_median_more: bool  # the StaticCache step's median above the default cache's
    ma_median_more: bool  # max-autotune's median above reduce-overhead's
    # the claims ledger's verdicts on the article's "a StaticCache makes eager decode slower" and "max-autotune
    # takes another 0.14 ms off reduce-overhead" (rows static-slower, a relation, and ma-beats-ro, a figure)
    static_slower_verdict: Verdict = "not measured"
    ma_beats_ro_verdict: Verdict = "not measured"


def from_data(six: dict[str, Any], constraints: dict[str, Any], compile_warm: dict[str, Any],
              launch: dict[str, Any], laptop_six: dict[str, Any], laptop_constraints: dict[str, Any],
              laptop_compile_warm: dict[str, Any], laptop_machine: dict[str, Any], model: dict[str, Any],
              init_std: float, warm_steps: int, gpu: str, transformers: str,
              runs: Sequence[dict[str, Any]] | None = None) -> Facts:
    """six is the newest decode.six_ways run, which the verdicts read; runs, its every run of the current code
    oldest first (the newest among them; default: that one alone), which the headline step times read."""
    d = six
    s = report.summaries(d)
    lab = d["labels"]
    lap = laptop_six["variants"]
    dyn, st, g = s["eager_dynamic"], s["eager_static"], s["cuda_graph"]
    cd, ro = s["compile_default"], s["compile_reduce_overhead"]
    best = report.best_valid(d)
    b = best or {}
    tf = d["teacher_forced"]
    failed = [lab[n] for n in d["names"] if not tf[n]["passed"]]
    cfg = d["config"]
    floor = d["floor_ms"]
    laptop_best_name = min((n for n, v in lap.items() if v.get("step_ms")), key=lambda n: lap[n]["step_ms"])
    laptop_best = lap[laptop_best_name]
    steps = figures.headline_steps(runs or [six], best["name"] if best else None)
    # free-running
    free = report.free_running_table(d)
    departed = [x for x in free if x["step"] is not None]
    wide = [x for x in departed if x["ref_gap"] > d["band"]]
    gap = report.median_gap(d)
    # the trap
    trap = constraints["trap"]
    c = trap["counter"]
    shift = c["after_warmup_and_capture"] - c["after_first_prefill"]
    # pairs
    sv, sdiff, s_faster = figures.versus(d, s, "eager_static", "eager_dynamic")
    rv, rdiff, r_faster = figures.versus(d, s, "compile_reduce_overhead", "cuda_graph")
    mv, mdiff, m_faster = figures.versus(d, s, "compile_max_autotune", "compile_reduce_overhead")
    _, both_n = report.rounds_faster(d, "eager_static", "eager_dynamic")  # the rounds each pair was timed in
    _, r_n = report.rounds_faster(d, "compile_reduce_overhead", "cuda_graph")
    _, m_n = report.rounds_faster(d, "compile_max_autotune", "compile_reduce_overhead")
    every = runs or [six]  # the noisiest, the widest and the most grown after the profiles: by their medians
    widest = s[figures.most(every, lambda x: x["spread"])]
    q = d["quiet"]
    noisiest = s[figures.most(every, lambda x: x["noise_pct"])]
    # timeline
    tl_st, tl_g = d["timelines"]["eager_static"], d["timelines"]["cuda_graph"]
    tl_graph_gaps = sum(report.gaps_between(tl_g["kernels"])) / 1e3
    tl_static_gaps = sum(report.gaps_between(tl_st["kernels"])) / 1e3
    # constraints
    item = constraints["item"]
    dc, sc = constraints["dynamic_cache"], constraints["static_cache"]
    ex, lex = constraints["explain"], laptop_constraints["explain"]
    cold = [m["compile_s"] for m in compile_warm["cold"]["modes"].values()]
    warm = [m["compile_s"] for m in compile_warm["warm"]["modes"].values()]
    launch_ms = st["kernels"] * launch["eager_us_per_launch"] / 1e3
    modes = tuple(k.removeprefix("compile_").replace("_", "-") for k in compile_warm["cold"]["modes"])
    return Facts(
        gpu=gpu, transformers=transformers,
        layers=cfg["num_hidden_layers"], hidden=cfg["hidden_size"], mlp=cfg["intermediate_size"],
        heads=cfg["num_attention_heads"], kv_heads=cfg["num_key_value_heads"],
        head_dim=cfg["hidden_size"] // cfg["num_attention_heads"], vocab=cfg["vocab_size"],
        rope_theta=model["rope_theta"], tied=model["tie_word_embeddings"], init_std=init_std,
        params_b=d["params"] / 1e9, weight_gb=d["weight_bytes"] / 1e9, laptop_weight_gb=laptop_six["weight_gb"],
        weight_as_article=round(d["weight_bytes"] / 1e9, 3) == laptop_six["weight_gb"],
        prompt_len=d["prompt_len"], cache_slots=d["cache_slots"], n_variants=len(d["names"]),
        n_static=sum(n != "eager_dynamic" for n in d["names"]), check_steps=d["check_steps"],
        rounds_n=d["rounds_n"], timed_steps=d["timed_steps"], warm_steps=warm_steps, min_rounds=q["min_rounds"],
        rounds_cap_s=q["cap_s"], bound_pct=q["bound_pct"], rounds_quiet=q["stopped"] == "quiet",
        noisy_count=sum(not x["quiet"] for x in s.values()), noisiest_label=noisiest["label"],
        noisiest_pct=noisiest["noise_pct"], quiet_labels=tuple(x["label"] for x in s.values() if x["quiet"]),
        some_quiet=any(x["quiet"] for x in s.values()),
        profile_calls=d["profile_calls"], compile_calls=len(d["setup"]["compile_default"]["calls_s"]),
        any_valid=best is not None, all_passed=bool(d["all_passed"]), n_failed=len(failed),
        failed=", ".join(failed), has_build_errors=bool(d.get("build_errors")),
        build_failed=", ".join(d.get("build_errors") or {}),
        **steps, six_several_runs=steps["six_runs"] > 1, best_label=b.get("label", ""),
        best_speedup=steps["dyn_ms"] / steps["best_ms"] if best else None,  # the medians shown
        best_floor_share=b.get("floor_share"), best_tok_s=b.get("tok_s"), best_kernels=b.get("kernels"),
        best_busy_ms=b.get("busy_ms"), best_idle_ms=b.get("idle_ms"),
        best_busy_over_floor=b["busy_ms"] / floor if best else None,
        best_busy_beyond_floor_ms=b["busy_ms"] - floor if best else None,
        best_beyond_past_floor=bool(best) and b["busy_ms"] - floor > floor,
        laptop_best_label=lab.get(laptop_best_name, laptop_best_name), laptop_best_ms=laptop_best["step_ms"],
        laptop_best_floor_share=laptop_best.get("floor_share"),
        launches=launch["launches"], launch_samples=launch["eager_ms"]["n"],
        launch_eager_us=launch["eager_us_per_launch"], launch_graph_us=launch["graph_us_per_launch"],
        launch_ratio=launch["speedup"], laptop_launch_low=laptop_machine["graph_speedup_low"],
        laptop_launch_high=laptop_machine["graph_speedup_high"],
        launch_vs_laptop=figures.range_of(launch["speedup"], laptop_machine["graph_speedup_low"],
                                laptop_machine["graph_speedup_high"]),
        launch_ms=launch_ms, graph_launch_ms=st["kernels"] * launch["graph_us_per_launch"] / 1e3,
        launch_over_floor=launch_ms / floor, launch_bound=launch_ms > floor,
        launch_step_share=launch_ms / steps["static_ms"], host_beyond_launch_ms=st["host_ms"] - launch_ms,
        copy_gbps=d["copy"]["gbps"], floor_ms=floor, ceiling_tok_s=1e3 / floor,
        laptop_dram_gbps=laptop_six["dram_gbps"], laptop_floor_ms=laptop_six["floor_ms"],
        laptop_ceiling_tok_s=laptop_six["ceiling_tok_s"], laptop_dyn_floor_share=lap["eager_dynamic"]["floor_share"],
        dyn_floor_share=dyn["floor_share"], bw_ratio=d["copy"]["gbps"] / laptop_six["dram_gbps"],
        step_ratio=laptop_best["step_ms"] / steps["best_ms"] if best else None,
        follows_bandwidth=bool(best) and laptop_best["step_ms"] / steps["best_ms"]
        >= FOLLOWS_BANDWIDTH * d["copy"]["gbps"] / laptop_six["dram_gbps"],
        yard_rel_err=d["yardstick_fp32"]["rel_err_max"], yard_max_abs=d["yardstick_fp32"]["max_abs"],
        tol_factor=d["tol_factor"], tolerance=d["tolerance"], band=d["band"],
        band_factor=d["band"] / d["yardstick_fp32"]["max_abs"],
        worst_compiled_err=max(tf[n]["rel_err_max"] for n in COMPILED),
        trap_past_tolerance=trap["without_reset"]["rel_err"] > d["tolerance"],
        median_gap=gap, gap_within_band=gap < d["band"], n_departed=len(departed), all_same_tokens=not departed,
        departures_in_band=not wide, n_wide=len(wide), laptop_all_same=bool(laptop_six["all_six_same_tokens"]),
        trap_steps=trap["steps"], warmup_calls=trap["warmup_calls"], counter_after_prefill=c["after_first_prefill"],
        counter_after_capture=c["after_warmup_and_capture"], counter_shift=shift,
        capture_moved_counter=shift > trap["warmup_calls"], trap_first_slot=c["after_warmup_and_capture"],
        trap_last_slot=c["after_prefill_without_reset"] - 1, trap_rel_err=trap["without_reset"]["rel_err"],
        trap_top1=trap["without_reset"]["top1_agree"], trap_any_top1=trap["without_reset"]["top1_agree"] > 0,
        reset_exact=bool(trap["with_reset"]["bit_identical"]), reset_rel_err=trap["with_reset"]["rel_err"],
        dyn_kernels=dyn["kernels"], dyn_busy_ms=dyn["busy_ms"], dyn_idle_share=dyn["idle_share"],
        static_kernels=st["kernels"],
        static_busy_ms=st["busy_ms"], static_host_ms=st["host_ms"], static_idle_share=st["idle_share"],
        static_extra_kernels=st["kernels"] - dyn["kernels"], laptop_static_extra=laptop_six["static_extra_kernels"],
        static_median_more=s["eager_static"]["step_ms"] > s["eager_dynamic"]["step_ms"],
        ma_median_more=s["compile_max_autotune"]["step_ms"] > s["compile_reduce_overhead"]["step_ms"],
        static_vs_dynamic=sv, static_dyn_diff_ms=sdiff, static_slower_low=(both_n - s_faster) / max(both_n, 1),
        static_slower_high=(both_n - s_faster) / max(both_n, 1),
        laptop_dyn_ms=lap["eager_dynamic"]["step_ms"], laptop_static_ms=lap["eager_static"]["step_ms"],
        laptop_static_versus="slower" if lap["eager_static"]["step_ms"] > lap["eager_dynamic"]["step_ms"]
        else "faster",
        graph_kernels=g["kernels"], graph_busy_ms=g["busy_ms"], graph_same_kernels=g["kernels"] == st["kernels"],
        graph_speedup=steps["static_ms"] / steps["graph_ms"], graph_host_ms=g["host_ms"],
        graph_idle_share=g["idle_share"],
        graph_idle_ms=g["idle_ms"], graph_gpu_bound=g["idle_share"] < GPU_BOUND_IDLE,
        capture_s=d["setup"]["cuda_graph"]["capture_s"], laptop_capture_s=lap["cuda_graph"]["setup_s"],
        laptop_graph_ms=lap["cuda_graph"]["step_ms"], laptop_graph_host_ms=lap["cuda_graph"]["host_ms"],
        cd_ms=cd["step_ms"], cd_kernels=cd["kernels"],
        cd_triton=(report.kernel_mix(d, "compile_default") or {"triton": 0})["triton"],
        cd_host_ms=cd["host_ms"], cd_busy_ms=cd["busy_ms"], cd_idle_share=cd["idle_share"],
        cd_launch_bound=cd["host_ms"] > cd["busy_ms"],
        laptop_cd_kernels=lap["compile_default"]["kernels"], laptop_cd_triton=lap["compile_default"]["triton_kernels"],
        laptop_cd_host_ms=lap["compile_default"]["host_ms"], laptop_cd_idle_share=lap["compile_default"]["idle_share"],
        cd_idle_above_laptop=cd["idle_share"] > lap["compile_default"]["idle_share"],
        ro_vs_graph=rv, ro_graph_diff_ms=rdiff, ro_faster_low=r_faster / max(r_n, 1),
        fusion_cut_busy_ms=g["busy_ms"] - ro["busy_ms"], fusion_cut_busy=g["busy_ms"] > ro["busy_ms"],
        laptop_ro_ms=lap["compile_reduce_overhead"]["step_ms"],
        laptop_ro_gain_ms=laptop_six["ro_gain_over_graph_ms"], laptop_fusion_saved_ms=laptop_six["fusion_saved_gpu_ms"],
        ma_ms=s["compile_max_autotune"]["step_ms"], ma_vs_ro=mv, ma_ro_diff_ms=mdiff,
        ma_faster_low=m_faster / max(m_n, 1), ma_faster_high=m_faster / max(m_n, 1),
        ma_speedup=steps["dyn_ms"] / s["compile_max_autotune"]["step_ms"],
        ma_as_laptop=mv == "faster",
        laptop_ma_gain_ms=laptop_six["ma_gain_over_ro_ms"],
        compile_s_default=d["setup"]["compile_default"]["compile_s"],
        compile_s_ro=d["setup"]["compile_reduce_overhead"]["compile_s"],
        compile_s_ma=d["setup"]["compile_max_autotune"]["compile_s"],
        laptop_compile_s_ma=lap["compile_max_autotune"]["setup_s"],
        widest_label=widest["label"], widest_spread=widest["spread"] / 2, widest_min_ms=widest["step_min_ms"],
        widest_max_ms=widest["step_max_ms"],
        **figures.after_fields(d, every),
        tl_static_gaps_ms=tl_static_gaps, tl_static_host_ms=tl_st["host_us"] / 1e3,
        tl_static_mostly_gaps=tl_static_gaps > tl_st["host_us"] / 2e3,
        tl_graph_launches=len(tl_g["launches"]), tl_graph_kernels=len(tl_g["kernels"]), tl_graph_gaps_ms=tl_graph_gaps,
        tl_graph_gaps_past_idle=tl_graph_gaps > g["idle_ms"],
        item_outcome=figures.item_outcome(item), item_error=item.get("type") or "",
        item_chained=bool(item.get("context_type")), item_context_error=item.get("context_type") or "",
        item_usable_after=bool(item.get("context_usable_after")),
        item_returncode=item.get("returncode"),
        laptop_item_failed="fail" in str(laptop_constraints.get("item_in_capture", "")),
        dyn_grows=all(b["shape"][2] == a["shape"][2] + 1 for a, b in zip(dc, dc[1:], strict=False)),
        dyn_moves=all(b["data_ptr"] != a["data_ptr"] for a, b in zip(dc, dc[1:], strict=False)),
        static_fixed=len({(x["data_ptr"], tuple(x["shape"])) for x in sc}) == 1,
        graph_count=ex["graph_count"], break_count=ex["graph_break_count"],
        break_reasons="; ".join(ex.get("break_reasons", [])[:2]), op_count=ex["op_count"],
        one_graph=ex["graph_count"] == 1 and ex["graph_break_count"] == 0,
        laptop_graph_count=lex["graph_count"], laptop_break_count=lex["graph_break_count"],
        laptop_op_count=lex["op_count"],
        warm_modes=modes,
        cold_low_s=min(cold), cold_high_s=max(cold), warm_low_s=min(warm), warm_high_s=max(warm),
        warm_one_figure=round(min(warm), 1) == round(max(warm), 1),
        warm_modes_words=" and ".join(modes),
        laptop_cold_low_s=laptop_compile_warm["cold_s_low"], laptop_cold_high_s=laptop_compile_warm["cold_s_high"],
        laptop_warm_low_s=laptop_compile_warm["warm_s_low"], laptop_warm_high_s=laptop_compile_warm["warm_s_high"],
    )


def facts(machine: str | None = None) -> Facts:
    from kernelbook.chapters.claims import ledger  # the ledger imports the chapters' facts in turn
    # the model's fields and the warm-up steps as the measuring code states them, read without importing it (it
    # imports torch: 2.6 s of every site build, for three constants)
    QWEN25_15B, INIT_STD = source.constants("kernelbook.decode.model", "QWEN25_15B", "INIT_STD")  # noqa: N806
    (WARM_STEPS,) = source.constants("kernelbook.decode.rounds", "WARM_STEPS")  # noqa: N806

    r = read.result("decode.six_ways", machine)
    f = from_data(
        r.data, read.result("decode.constraints", machine).data, read.result("decode.compile_warm", machine).data,
        read.result("machine.ceilings", machine).data["launch"], read.result("decode.six_ways", LAPTOP).data,
        read.result("decode.constraints", LAPTOP).data, read.result("decode.compile_warm", LAPTOP).data,
        read.result("machine.ceilings", LAPTOP).data, QWEN25_15B, INIT_STD, WARM_STEPS, read.machine_label(r),
        str(r.provenance.get("versions", {}).get("transformers", "?")), across.datas("decode.six_ways", machine))
    return replace(f, static_slower_verdict=ledger.verdict_of("static-slower", machine),
                   ma_beats_ro_verdict=ledger.verdict_of("ma-beats-ro", machine))


# a share of a run's rounds is read over the runs as its lowest and highest (kernelbook.factbook), each run's own
EXTREMES = {"static_slower_low": min, "static_slower_high": max, "ro_faster_low": min, "ma_faster_low": min,
            "ma_faster_high": max}

# how each field reads on the page (kernelbook.macros): every count with thousands separators, words as themselves,
# the article's published figures as published
FORMATS = {
    **{x.name: "num:0" for x in fields(Facts) if x.type in ("int", "int | None")},
    **dict.fromkeys(("dyn_ms", "static_ms", "graph_ms", "ro_ms", "best_ms", "launch_ms", "graph_launch_ms",
                     "static_busy_ms", "static_host_ms", "static_dyn_diff_ms", "capture_s", "graph_host_ms",
                     "graph_idle_ms", "cd_host_ms", "cd_busy_ms", "ro_graph_diff_ms", "fusion_cut_busy_ms",
                     "ma_ro_diff_ms", "widest_min_ms", "widest_max_ms", "host_beyond_launch_ms",
                     "tl_static_gaps_ms", "tl_static_host_ms", "tl_graph_gaps_ms", "best_busy_ms", "best_idle_ms",
                     "best_busy_beyond_floor_ms", "params_b", "dyn_ms_low", "dyn_ms_high", "cd_ms", "ma_ms",
                     "graph_busy_ms", "dyn_busy_ms"), "num:2"),
    **dict.fromkeys(("weight_gb", "floor_ms", "yard_max_abs", "band", "median_gap"), "num:3"),
    **dict.fromkeys(("copy_gbps", "rope_theta", "tol_factor", "rounds_cap_s", "compile_s_default", "compile_s_ro",
                     "compile_s_ma", "cold_low_s", "cold_high_s", "ceiling_tok_s", "best_tok_s", "bw_ratio",
                     "after_worst_added_us", "after_worst_before_us", "after_worst_host_us", "band_factor"), "num:0"),
    **dict.fromkeys(("launch_over_floor", "best_busy_over_floor", "noisiest_pct", "warm_low_s", "warm_high_s"),
                    "num:1"),
    **dict.fromkeys(("best_speedup", "graph_speedup", "step_ratio"), "times:1"),
    "ma_speedup": "times:2",
    **dict.fromkeys(("launch_step_share", "best_floor_share", "laptop_best_floor_share", "dyn_floor_share",
                     "laptop_dyn_floor_share", "trap_rel_err", "trap_top1", "after_worst_share", "graph_idle_share",
                     "static_idle_share", "dyn_idle_share", "cd_idle_share", "laptop_cd_idle_share",
                     "static_slower_low", "static_slower_high", "ro_faster_low", "ma_faster_low", "ma_faster_high"),
                    "pct:0"),
    **dict.fromkeys(("yard_rel_err", "tolerance", "worst_compiled_err", "reset_rel_err"), "pct:2"),
    "widest_spread": "pct:1",
}


def derive(f: Facts) -> dict[str, Any]:
    """The ratios and shares the page prints beside their figures, computed again from the medians shown."""
    launch_ms = f.static_kernels * f.launch_eager_us / 1e3
    out: dict[str, Any] = {
        "graph_speedup": f.static_ms / f.graph_ms, "launch_ms": launch_ms, "launch_over_floor": launch_ms / f.floor_ms,
        "launch_step_share": launch_ms / f.static_ms, "host_beyond_launch_ms": f.static_host_ms - launch_ms,
        "graph_launch_ms": f.static_kernels * f.launch_graph_us / 1e3, "ceiling_tok_s": 1e3 / f.floor_ms,
        "dyn_floor_share": f.floor_ms / f.dyn_ms, "bw_ratio": f.copy_gbps / f.laptop_dram_gbps,
        # the GPU's idle time and share of a step: what its median step leaves beyond its median busy time (the
        # six ways table's columns), and the differences the page quotes between two medians it shows
        "dyn_idle_share": max(0.0, 1 - f.dyn_busy_ms / f.dyn_ms),
        "static_idle_share": max(0.0, 1 - f.static_busy_ms / f.static_ms),
        "graph_idle_share": max(0.0, 1 - f.graph_busy_ms / f.graph_ms),
        "graph_idle_ms": max(0.0, f.graph_ms - f.graph_busy_ms), "cd_idle_share": max(0.0, 1 - f.cd_busy_ms / f.cd_ms),
        "static_dyn_diff_ms": abs(f.static_ms - f.dyn_ms), "ro_graph_diff_ms": abs(f.graph_ms - f.ro_ms),
        "ma_ro_diff_ms": abs(f.ma_ms - f.ro_ms), "ma_speedup": f.dyn_ms / f.ma_ms}
    if f.after_worst_before_us is not None and f.after_worst_host_us is not None:
        added = f.after_worst_host_us - f.after_worst_before_us  # the after-profiler table's two medians
        out.update(after_worst_added_us=added, after_worst_share=added / f.after_worst_before_us)
    if f.best_ms is not None and f.best_busy_ms is not None:
        out.update(best_speedup=f.dyn_ms / f.best_ms, best_floor_share=f.floor_ms / f.best_ms,
                   best_tok_s=1e3 / f.best_ms, step_ratio=f.laptop_best_ms / f.best_ms,
                   best_busy_over_floor=f.best_busy_ms / f.floor_ms,
                   best_busy_beyond_floor_ms=f.best_busy_ms - f.floor_ms,
                   best_idle_ms=max(0.0, f.best_ms - f.best_busy_ms))
    return out


DERIVED_FROM = {
    "graph_speedup": ("static_ms", "graph_ms"), "launch_ms": ("static_kernels", "machine.eager_us"),
    "launch_over_floor": ("launch_ms", "floor_ms"), "launch_step_share": ("launch_ms", "static_ms"),
    "host_beyond_launch_ms": ("static_host_ms", "launch_ms"), "graph_launch_ms": ("static_kernels", "machine.graph_us"),
    "ceiling_tok_s": ("floor_ms",), "dyn_floor_share": ("floor_ms", "dyn_ms"), "bw_ratio": ("copy_gbps",
                                                                                            "laptop_dram_gbps"),
    "best_speedup": ("dyn_ms", "best_ms"), "best_floor_share": ("floor_ms", "best_ms"), "best_tok_s": ("best_ms",),
    "step_ratio": ("laptop_best_ms", "best_ms"), "best_busy_over_floor": ("best_busy_ms", "floor_ms"),
    "best_busy_beyond_floor_ms": ("best_busy_ms", "floor_ms"), "best_idle_ms": ("best_ms", "best_busy_ms"),
    "dyn_idle_share": ("dyn_busy_ms", "dyn_ms"), "static_idle_share": ("static_busy_ms", "static_ms"),
    "graph_idle_share": ("graph_busy_ms", "graph_ms"),
    "graph_idle_ms": ("graph_ms", "graph_busy_ms"), "cd_idle_share": ("cd_busy_ms", "cd_ms"),
    "static_dyn_diff_ms": ("static_ms", "dyn_ms"), "ro_graph_diff_ms": ("graph_ms", "ro_ms"),
    "ma_ro_diff_ms": ("ma_ms", "ro_ms"), "ma_speedup": ("dyn_ms", "ma_ms"),
    "after_worst_added_us": ("after_worst_host_us", "after_worst_before_us"),
    "after_worst_share": ("after_worst_added_us", "after_worst_before_us"),
}
