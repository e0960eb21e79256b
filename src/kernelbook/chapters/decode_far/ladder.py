"""decode_far.ladder: how far a batch-1 decode step goes, one change at a time, on the decode chapter's model.

In order: (1) the matvec kernels are tuned on this GPU, each site over all 28 layers' real weights in one CUDA
graph, so the weights come from memory and not from L2, and for the fused steps every site is tuned again inside
the whole step; (2) the plain static-cache graph (Hugging Face's step, captured by hand) and every step of
fast.STEPS are built, each captured in one CUDA graph; (3) every one is checked teacher-forced against eager
StaticCache with the decode chapter's tolerance (three times bf16's own distance from fp32) before anything is
timed; (4) interleaved rounds time each step as the decode chapter does; (5) the step whose calls are taken apart
is timed again with no kernel waiting for the one before (wrong values, the same launches), to say what the waits
cost, and built over fewer layers, to say what a layer costs and what the step costs once; (6) a chain of empty
hops says what one hand-off costs on this GPU, as a launch and as a barrier inside one launch; (7) where SwiGLU's ring
runs (kernels/swiglu_ring.py), it and down's (kernels/matvec_ring.py) are checked against the kernels they replace
on fresh random inputs.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

import torch

from kernelbook.copy_ceiling import copy_bandwidth
from kernelbook.decode import fast
from kernelbook.decode import variants as V
from kernelbook.decode.check import CHECK_STEPS, TOL_FACTOR, compare, tolerance, yardstick_model
from kernelbook.decode.harness import (
    Buffers,
    Decoder,
    generate,
    make_static_cache,
    prefill,
    reset_static_cache,
)
from kernelbook.decode.model import QWEN25_15B, weight_bytes
from kernelbook.decode.rounds import MIN_ROUNDS, TIMED_STEPS, WARM_STEPS, timed_then_profiled
from kernelbook.kernels import attention_o as ao
from kernelbook.kernels import handoff as ho
from kernelbook.kernels import matvec_ring as mr
from kernelbook.kernels.decode_attention import decode_attention, workspace
from kernelbook.kernels.matvec import matvec, pdl_supported
from kernelbook.kernels.matvec_pair import qkv_rope, swiglu_pair
from kernelbook.kernels.swiglu_ring import fits, layout_fits, programs, ring_bytes, swiglu_ring
from kernelbook.timing import split_calls, trace

BASELINE = "cuda_graph"  # the decode chapter's hand-captured graph of Hugging Face's step
# (block rows or pairs, block_k, warps) tried per site: K = 1536 for all but down (K = 8960)
WIDE = tuple((b, k, w) for b in (1, 2, 4, 8) for k in (512, 1024, 2048) for w in (4, 8))
DEEP = tuple((b, k, w) for b in (1, 2, 4) for k in (1024, 2048, 16384) for w in (4, 8))
# attention: (slots per block, splits, warps); one split is one launch, more add a merge launch
SPLIT = ((8, 64, 2), (16, 32, 2), (16, 32, 4), (32, 16, 4), (64, 8, 4), (64, 1, 4), (64, 1, 8), (128, 1, 8))
# attention_o: (rows per block, slots per block, warps); fewer rows per block, more programs, each of which
# computes its head's attention again
FOLD = tuple((n, s, w) for n in (32, 64, 128) for s in (16, 32, 64) for w in (4, 8))
# swiglu_ring: (pairs per block, blocks in flight, warps); tune keeps the rings that fit RING_SMEM at the model's K
RING = tuple((b, n, w) for b in (2, 4, 8) for n in (2, 4, 8) for w in (4, 8))
# o_few (the output projection in the steps of fast.FEW): blocks of many rows, so a few programs (at the model's
# 1536 rows, 96 to 24), each of which reads most of its rows after the wait
FEW_ROWS = tuple((b, k, w) for b in (16, 32, 64) for k in (512, 1024) for w in (4, 8, 16))
# down_ring: (rows in flight, warps, programs per SM); tune keeps the ones whose rings fit an SM at the model's K
DOWN_RING = tuple((n, w, p) for n in (1, 2, 3) for w in (2, 4) for p in (3, 4))
TUNE_POS = 63  # the attention site is timed at 64 filled slots (or every slot of a smaller cache)
TUNE_REP_MS = 40
LOOP_STEPS = 40


def tune_pos(pk: fast.Packed) -> int:
    """The position attention is tuned at: TUNE_POS, within the cache's slots (cos has one row per slot)."""
    return min(TUNE_POS, pk.cos.shape[0] - 1)


# --8<-- [start:tune]
def site_launches(pk: fast.Packed, site: str, cfg: tuple[int, int, int]) -> tuple[list, int]:
    """One launch per layer (four of the output projection) of `site`'s kernel with config `cfg`, on scratch
    inputs, and the weight bytes one launch reads."""
    dev, dt, eps = pk.embed.device, pk.embed.dtype, pk.eps
    hidden = pk.embed.shape[1]
    g = torch.Generator(device=dev).manual_seed(1)
    x = torch.randn(hidden, device=dev, generator=g).to(dt)
    inter = pk.layers[0].w_gate_up.shape[0] // 2
    act = torch.randn(inter, device=dev, generator=g).to(dt)
    att = torch.randn(pk.q_heads * pk.head_dim, device=dev, generator=g).to(dt)
    res = torch.zeros(hidden, device=dev, dtype=dt)
    pos = torch.zeros(1, dtype=torch.long, device=dev)
    kc, vc = torch.empty_like(pk.layers[0].k_cache), torch.empty_like(pk.layers[0].v_cache)
    at = torch.tensor([tune_pos(pk)], device=dev)
    kv_bytes = 2 * pk.kv_heads * (tune_pos(pk) + 1) * pk.head_dim * pk.embed.element_size()
    if site == "attention":
        work = workspace(pk.q_heads, pk.head_dim, cfg[1], dev)
        return [(lambda lw=lw: decode_attention(att, lw.k_cache, lw.v_cache, at, config=cfg, work=work))
                for lw in pk.layers], kv_bytes
    if site == "attention_o":
        fold = ao.workspace(pk.q_heads, hidden, cfg[0], dev)
        return [(lambda lw=lw: ao.attention_o(att, lw.k_cache, lw.v_cache, at, lw.w_o, res, config=cfg, work=fold))
                for lw in pk.layers], pk.layers[0].w_o.nbytes + kv_bytes
    calls = {
        "qkv": lambda lw: matvec(x, lw.w_qkv, lw.b_qkv, config=cfg),
        "o": lambda lw: matvec(att, lw.w_o, residual=res, config=cfg),
        "gate_up": lambda lw: matvec(x, lw.w_gate_up, config=cfg),
        "down": lambda lw: matvec(act, lw.w_down, residual=res, config=cfg),
        "qkv_rope": lambda lw: qkv_rope(x, lw.w_qkv, lw.b_qkv, lw.ln1, pk.cos, pk.sin, pos, kc, vc, pk.q_heads,
                                        eps=eps, config=cfg),
        "swiglu": lambda lw: swiglu_pair(x, lw.w_gate_up, lw.ln2, eps=eps, config=cfg),
        "swiglu_ring": lambda lw: swiglu_ring(x, lw.w_gate_up, lw.ln2, eps=eps, config=cfg),
        "down_ring": lambda lw: mr.matvec_ring(act, lw.w_down, res, config=cfg),
    }
    calls["o_few"] = calls["o"]  # the same launch; the sites differ only in the configs they search
    if site == "lm_head":
        return [lambda: matvec(x, pk.lm_head, norm_weight=pk.norm, eps=eps, config=cfg)] * 4, pk.lm_head.nbytes
    w = {"qkv": "w_qkv", "qkv_rope": "w_qkv", "o": "w_o", "o_few": "w_o", "gate_up": "w_gate_up", "swiglu": "w_gate_up",
         "swiglu_ring": "w_gate_up", "down": "w_down", "down_ring": "w_down"}[site]
    return [(lambda lw=lw: calls[site](lw)) for lw in pk.layers], getattr(pk.layers[0], w).nbytes


def time_site(pk: fast.Packed, site: str, cfg: tuple[int, int, int]) -> dict[str, Any]:
    """µs per launch and weight GB/s, the launches replayed from one CUDA graph (launch gaps included)."""
    from triton.testing import do_bench

    launches, nbytes = site_launches(pk, site, cfg)
    for f in launches[:2]:
        f()  # compile outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for f in launches:
            f()
    us = do_bench(graph.replay, warmup=10, rep=TUNE_REP_MS, return_mode="median") * 1e3 / len(launches)
    return {"config": list(cfg), "us": us, "gbps": nbytes / (us * 1e-6) / 1e9, "bytes": nbytes}


def tune(pk: fast.Packed, wide: tuple = WIDE, deep: tuple = DEEP, split: tuple = SPLIT, fold: tuple = FOLD,
         ring: tuple = RING, few: tuple = FEW_ROWS, down_ring: tuple = DOWN_RING) -> dict[str, Any]:
    """Every candidate config of every site; the fastest is the site's config. swiglu_ring and down_ring are tuned
    only where they run (fast.ring_runs, and for down_ring a config that fits): elsewhere their steps launch
    matvec_pair's SwiGLU and matvec."""
    out: dict[str, Any] = {}
    inter, hidden = pk.layers[0].w_gate_up.shape[0] // 2, pk.embed.shape[1]
    rings = fast.ring_runs(pk)
    for site in (s for s in fast.SITES if s not in ("swiglu_ring", "down_ring") or rings):
        own = {"down": deep, "attention": split, "attention_o": fold, "swiglu_ring": ring, "o_few": few,
               "down_ring": down_ring}.get(site, wide)
        cands = [c for c in own if (site != "qkv_rope" or (pk.head_dim // 2) % c[0] == 0)  # pairs stay in a head
                 and (site != "swiglu_ring" or (inter % c[0] == 0 and fits(c, hidden) and layout_fits(c, hidden)))
                 and (site != "down_ring" or mr.fits(c, inter))]
        if not cands:
            continue  # down_ring at an intermediate size no 16 B copy divides: its steps launch matvec
        t0 = time.perf_counter()
        rows = [time_site(pk, site, c) for c in cands]
        best = min(rows, key=lambda r: r["us"])
        out[site] = {"best": best["config"], "us": best["us"], "gbps": best["gbps"], "bytes": best["bytes"],
                     "candidates": rows, "seconds": time.perf_counter() - t0}
    return out


# the steps whose configs are chosen again inside
IN_STEP = ("matvec_fusions", "pdl", "swiglu_ring", "few_o", "down_ring", "attention_o")
CONFIGS_OF = {"greedy": "pdl"}  # a step that takes another's configs: it only adds a launch after the last one
COSTS_STEP = "down_ring"  # the newest kept step: launch_costs, wait_cost, layer_fit and timeline take it apart
# what they launch, in the order retuned (each step retunes the sites it reads: fast.step_sites)
STEP_SITES = ("attention", "attention_o", "qkv_rope", "o", "o_few", "swiglu", "swiglu_ring", "down", "down_ring",
              "lm_head")
TOP = 4  # the down projection's and the LM head's configs tried again inside the step: their fastest alone
# the sites whose every candidate is tried inside the step: a short launch of the attention half shares the GPU
# with the launches starting after it, so its time alone ranks its configs poorly there
EVERY = ("attention", "attention_o", "swiglu_ring", "qkv_rope", "o", "o_few", "down_ring")
FINALISTS, FINAL_ROUNDS = 3, 2  # a site's fastest candidates in the step, each timed FINAL_ROUNDS times more
BACK_TO_BACK = 10  # replays per timing in step_us, as a generation loop runs them


def tune_positions(pk: fast.Packed, prompt_len: int) -> tuple[int, int]:
    """The first and the last position the steps are timed at (after the prompt, the warm-up and timed steps),
    within the cache. The fused steps are tuned at both: attention's cost grows with the filled slots, and a config
    tuned at one position can lose at the other."""
    last = pk.cos.shape[0] - 1
    return min(prompt_len, last), min(prompt_len + WARM_STEPS + TIMED_STEPS, last)


def replay_us(graph: torch.cuda.CUDAGraph) -> float:
    """µs per replay of `graph`: the median of three timings of BACK_TO_BACK replays in a row, with nothing between
    them, as the back-to-back loop runs the steps (no L2 flush or host wait between replays, unlike do_bench)."""
    times = []
    for _ in range(3):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(BACK_TO_BACK):
            graph.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3 / BACK_TO_BACK)
    return sorted(times)[1]


def step_us(pk: fast.Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]],
            positions: tuple[int, ...], skip: tuple[str, ...] = (), wait: bool = True) -> float:
    """µs per replay of `step` built with `configs` (and without the calls in `skip`), captured in one CUDA graph,
    averaged over `positions`: at each, replay_us after three replays to warm up. A step that advances its own
    position (fast.ADVANCES) is built without that last kernel."""
    fn = fast.make_step(pk, bufs, step, configs, skip, advance=False, wait=wait)
    graph, _ = V.capture(fn)
    per_pos = []
    for pos in positions:
        bufs.pos.fill_(pos)
        for _ in range(3):
            graph.replay()
        per_pos.append(replay_us(graph))
    del graph, fn  # the graph first: it writes into the step's buffers
    return sum(per_pos) / len(per_pos)


def tune_in_step(pk: fast.Packed, bufs: Buffers, step: str, tuning: dict[str, Any], positions: tuple[int, ...],
                 split: tuple = SPLIT, top: int = TOP, fold: tuple = FOLD) -> dict[str, Any]:
    """The fused step's configs chosen by the whole step's time, one site at a time, attention first: each of the
    site's candidates (attention: every config in `split`, attention_o every config in `fold`, swiglu_ring, qkv_rope
    and o every config they were tuned at alone (EVERY); down and the LM head: their `top` fastest alone) is captured
    in the step with every other site at its current choice and the step is replayed back to back at `positions`;
    the fastest stays. Alone, a launch is timed after a finished one; in the step (with PDL above all) its neighbours
    start while it runs, so the fastest launch alone need not be the fastest in the chain. The ring is what it does
    while the kernels ahead run: alone, a deep ring only costs the time to fill it. The
    FINALISTS fastest are timed FINAL_ROUNDS times more, in turn, and the lowest median of those stays: step
    times vary by a few µs between captures, and the single fastest timing of many is often a lucky one."""
    chosen = {s: tuple(t["best"]) for s, t in tuning.items()}
    sites = {}
    for site in (s for s in STEP_SITES if s in fast.step_sites(step) and s in tuning):  # tuned where it runs
        alone = sorted(tuning[site]["candidates"], key=lambda c: c["us"])
        own = {"attention": split, "attention_o": fold}
        cands = own.get(site, [tuple(c["config"]) for c in (alone if site in EVERY else alone[:top])])
        rows = [{"config": list(c), "step_us": step_us(pk, bufs, step, {**chosen, site: c}, positions)}
                for c in cands]
        final = sorted(rows, key=lambda r: r["step_us"])[:FINALISTS]  # timed again, in turn: one timing each
        for r in final:  # would pick the luckiest candidate, not the fastest
            r["again_us"] = []
        for k in range(FINAL_ROUNDS):
            for r in final[k % len(final):] + final[:k % len(final)]:
                r["again_us"].append(step_us(pk, bufs, step, {**chosen, site: tuple(r["config"])}, positions))
        best = min(final, key=lambda r: statistics.median(r["again_us"]))
        chosen[site] = tuple(best["config"])
        sites[site] = {"alone": list(tuning[site]["best"]), "best": best["config"],
                       "step_us": statistics.median(best["again_us"]), "candidates": rows}
    return {"configs": {s: list(c) for s, c in chosen.items()}, "sites": sites, "positions": list(positions)}
# --8<-- [end:tune]


# --8<-- [start:costs]
COST_ROUNDS = 5


def launch_costs(pk: fast.Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]],
                 positions: tuple[int, ...], rounds: int = COST_ROUNDS) -> dict[str, Any]:
    """What each call of a fused step costs inside it: the step timed whole and with one call left out (its
    logits are then wrong, its time is not), in interleaved rounds, each as step_us times it. A call's cost is
    the difference of the medians; for the calls of a layer it is divided by the layers."""
    made = fast.fused_calls(step)
    variants = {"whole": (), **{c: (c,) for c in made}}
    times: dict[str, list[float]] = {k: [] for k in variants}
    for r in range(rounds):
        order = list(variants)[r % len(variants):] + list(variants)[:r % len(variants)]
        for k in order:
            times[k].append(step_us(pk, bufs, step, configs, positions, variants[k]))
    whole = statistics.median(times["whole"])
    lw, layers = pk.layers[0], len(pk.layers)
    reads = {"qkv_rope": lw.w_qkv.nbytes, "attention": 0, "o": lw.w_o.nbytes, "attention_o": lw.w_o.nbytes,
             "swiglu": lw.w_gate_up.nbytes, "swiglu_ring": lw.w_gate_up.nbytes, "down": lw.w_down.nbytes,
             "down_ring": lw.w_down.nbytes,
             "lm_head": pk.lm_head.nbytes}  # weight bytes
    calls = {}
    for c in made:
        per = 1 if c == "lm_head" else layers
        calls[c] = {"us": (whole - statistics.median(times[c])) / per, "per": "step" if per == 1 else "layer",
                    "count": per, "weight_bytes": reads[c], "without_us": times[c]}
    return {"step": step, "whole_us": whole, "whole_values": times["whole"], "calls": calls, "rounds": rounds,
            "positions": list(positions)}


def wait_cost(pk: fast.Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]],
              positions: tuple[int, ...], rounds: int = COST_ROUNDS) -> dict[str, Any]:
    """What the step's waits cost: the step timed as built and with no kernel waiting for the one before (its
    values are then wrong, its launches the same), in interleaved rounds, each as step_us times it. The second is
    what the same kernels would take with no dependency between them."""
    times: dict[str, list[float]] = {"with": [], "without": []}
    for r in range(rounds):
        for k in (("with", "without") if r % 2 == 0 else ("without", "with")):
            times[k].append(step_us(pk, bufs, step, configs, positions, wait=k == "with"))
    return {"step": step, "with_us": times["with"], "without_us": times["without"], "rounds": rounds,
            "positions": list(positions)}
# --8<-- [end:costs]


# --8<-- [start:fit]
def fit_layers(layers: int) -> tuple[int, ...]:
    """The layer counts layer_fit builds the step over: none, one, a quarter, half, three quarters, all."""
    return tuple(sorted({0, 1, layers // 4, layers // 2, 3 * layers // 4, layers}))


def layer_fit(pk: fast.Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]],
              positions: tuple[int, ...], rounds: int = COST_ROUNDS) -> dict[str, Any]:
    """The step built over its first n layers only, for each n of fit_layers (with none, only the embedding lookup
    and the LM head run), in interleaved rounds, each as step_us times it. A line through the times, once + n per
    layer, splits the step into what a layer costs and what the step costs once; `layer_bytes` is one layer's
    weights, the rest of the model's weights are read once."""
    counts = fit_layers(len(pk.layers))
    layer_calls = tuple(c for c in fast.fused_calls(step) if c != "lm_head")
    times: dict[int, list[float]] = {n: [] for n in counts}
    for r in range(rounds):
        for n in counts[r % len(counts):] + counts[:r % len(counts)]:
            part = dataclasses.replace(pk, layers=pk.layers[:max(n, 1)])  # with none, one layer's calls all left out
            times[n].append(step_us(part, bufs, step, configs, positions, layer_calls if n == 0 else ()))
    lw = pk.layers[0]
    weights = (lw.ln1, lw.ln2, lw.w_qkv, lw.b_qkv, lw.w_o, lw.w_gate_up, lw.w_down)
    return {"step": step, "layers": list(counts), "us": [times[n] for n in counts],
            "layer_bytes": sum(t.nbytes for t in weights), "rounds": rounds, "positions": list(positions)}
# --8<-- [end:fit]


# --8<-- [start:handoff]
HOPS = 140  # about a step's launches
PER_SM = (1, 2, 4)  # programs a hop, per SM: every program of the persistent launch resident at once


def handoff(hops: int = HOPS, rounds: int = COST_ROUNDS) -> dict[str, Any]:
    """One hand-off's cost with no work around it (kernels/handoff.py): `hops` hops as dependent launches in one
    CUDA graph (PDL where supported), and as one persistent launch with a grid-wide barrier between hops, at
    PER_SM programs per SM. Each chain's graph also zeroes its buffers; per round, replay_us divided by the hops;
    then whether every chain ended in order (handoff_ref)."""
    dev = torch.device("cuda")
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    rows = []
    for per_sm in PER_SM:
        g = per_sm * sms
        bufs = ho.buffers(g, hops, dev)

        def chain(kind: str, g: int = g, bufs: tuple = bufs) -> torch.Tensor:
            for t in bufs:
                t.zero_()
            return ho.hop_chain(bufs, g, hops) if kind == "launch" else ho.barrier_chain(bufs, g, hops)
        graphs = {k: V.capture(lambda k=k: chain(k)) for k in ("launch", "barrier")}
        times: dict[str, list[float]] = {k: [] for k in graphs}
        ordered = {}
        for r in range(rounds):
            for k in (("launch", "barrier") if r % 2 == 0 else ("barrier", "launch")):
                graph, out = graphs[k]
                graph.replay()
                times[k].append(replay_us(graph) / hops)
                ordered[k] = ordered.get(k, True) and torch.equal(out, ho.handoff_ref(g, hops, dev))
        rows.append({"programs": g, "per_sm": per_sm, "launch_us": times["launch"], "barrier_us": times["barrier"],
                     "launch_ordered": ordered["launch"], "barrier_ordered": ordered["barrier"]})
        del graphs
    return {"hops": hops, "sms": sms, "pdl": pdl_supported(dev), "rows": rows, "rounds": rounds}
# --8<-- [end:handoff]


# --8<-- [start:ring_check]
RING_SEEDS = (0, 1, 2)


# --8<-- [start:timeline]
TIMELINE_REPLAYS = 5


def layer_launches(step: str, configs: dict[str, tuple[int, int, int]]) -> tuple[str, ...]:
    """One layer's launches of the fused step `step`, in order: its calls, with attention's merge after attention
    where its slots are split."""
    out: list[str] = []
    for c in fast.fused_calls(step):
        if c != "lm_head":
            out += [c, "attention_merge"] if c == "attention" and configs["attention"][1] > 1 else [c]
    return tuple(out)


def layer_times(runs: list[list[dict[str, float]]], names: tuple[str, ...], layers: int) -> dict[str, Any]:
    """Per profiled replay (its kernels in order, "ts" and "dur" in µs: the embedding lookup, `layers` times the
    launches `names`, the LM head): each launch's start and end from the start of its layer's first launch and the
    time from one layer's first launch to the next, medians over the layers but the first and the last (all of
    them under three layers)."""
    want = 2 + layers * len(names)
    if not runs or any(len(ks) != want for ks in runs):
        raise ValueError(f"a profiled replay has {sorted({len(ks) for ks in runs})} kernels, not {want} (the "
                         f"embedding lookup, {layers} x {len(names)} launches, the LM head)")
    inner = range(1, layers - 1) if layers >= 3 else range(layers)
    start: dict[str, list[float]] = {n: [] for n in names}
    end: dict[str, list[float]] = {n: [] for n in names}
    period = []
    for ks in runs:
        lay = [ks[1 + i * len(names):1 + (i + 1) * len(names)] for i in range(layers)]
        for j, n in enumerate(names):
            start[n].append(statistics.median(lay[i][j]["ts"] - lay[i][0]["ts"] for i in inner))
            end[n].append(statistics.median(lay[i][j]["ts"] + lay[i][j]["dur"] - lay[i][0]["ts"] for i in inner))
        nxt = [i for i in inner if i + 1 < layers]
        if nxt:
            period.append(statistics.median(lay[i + 1][0]["ts"] - lay[i][0]["ts"] for i in nxt))
    return {"launches": list(names), "start_us": [start[n] for n in names], "end_us": [end[n] for n in names],
            "period_us": period}


def timeline(pk: fast.Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]], position: int,
             replays: int = TIMELINE_REPLAYS) -> dict[str, Any]:
    """Where a layer's time goes inside `step`: its CUDA graph replayed `replays` times under the profiler at
    `position` (each replay on an idle GPU), then layer_times. Under programmatic dependent launch a kernel starts
    while the one ahead still runs and waits inside, so its start says when it was scheduled and its end when its
    last program finished: one end after another is the chain a layer waits through. Run after the timings: the
    profiler leaves CUPTI attached, and launches cost more after it."""
    fn = fast.make_step(pk, bufs, step, configs, advance=False)
    graph, _ = V.capture(fn)
    bufs.pos.fill_(position)
    calls = split_calls(trace(graph.replay, calls=replays, warmup=3))
    del graph, fn
    runs = [[k for k in c["gpu"] if k["cat"] == "kernel"] for c in calls]
    names = layer_launches(step, configs)
    return {"step": step, "position": position, "replays": replays, "layers": len(pk.layers),
            **layer_times(runs, names, len(pk.layers))}
# --8<-- [end:timeline]


def ring_check(pk: fast.Packed, ring_config: tuple[int, int, int], pair_config: tuple[int, int, int]
               ) -> dict[str, Any]:
    """swiglu_ring against matvec_pair's SwiGLU, the kernel it replaces, on fresh random inputs: per seed a new x
    and norm weight, with the first, middle or last layer's weights; the ring's output is poisoned (NaN) before it
    runs. How many of the I outputs differ, by how much at most, and how many are not finite."""
    dev, dt = pk.embed.device, pk.embed.dtype
    hidden, layers = pk.embed.shape[1], len(pk.layers)
    rows = []
    for seed in RING_SEEDS:
        g = torch.Generator(device=dev).manual_seed(seed)
        x = torch.randn(hidden, device=dev, generator=g).to(dt)
        nw = (1 + 0.1 * torch.randn(hidden, device=dev, generator=g)).to(dt)
        layer = (0, layers // 2, layers - 1)[seed % 3]
        w = pk.layers[layer].w_gate_up
        ref = swiglu_pair(x, w, nw, eps=pk.eps, config=pair_config)
        out = torch.full_like(ref, float("nan"))
        swiglu_ring(x, w, nw, out=out, eps=pk.eps, config=ring_config)
        torch.cuda.synchronize()
        rows.append({"seed": seed, "layer": layer, "differ": int((out != ref).sum()),
                     "max_abs": float((out.float() - ref.float()).abs().nan_to_num(float("inf")).max()),
                     "nonfinite": int((~torch.isfinite(out)).sum())})
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    return {"config": list(ring_config), "pair_config": list(pair_config), "outputs": int(ref.numel()), "rows": rows,
            "ring_bytes": ring_bytes(ring_config, hidden), "sms": sms,
            "programs": min(int(ref.numel()) // ring_config[0], programs(hidden, ring_config, sms))}
# --8<-- [end:ring_check]


# --8<-- [start:down_check]
def down_check(pk: fast.Packed, ring_config: tuple[int, int, int], matvec_config: tuple[int, int, int]
               ) -> dict[str, Any]:
    """matvec_ring against matvec, the kernel it replaces, on fresh random inputs: per seed a new x (I,) and
    residual (H,), with the first, middle or last layer's W_down; each adds into its own copy of the residual. How
    many of the H outputs differ, by how much at most, and how many are not finite."""
    dev, dt = pk.embed.device, pk.embed.dtype
    hidden, layers = pk.embed.shape[1], len(pk.layers)
    inter = pk.layers[0].w_down.shape[1]
    rows = []
    for seed in RING_SEEDS:
        g = torch.Generator(device=dev).manual_seed(100 + seed)
        x = torch.randn(inter, device=dev, generator=g).to(dt)
        res = torch.randn(hidden, device=dev, generator=g).to(dt)
        layer = (0, layers // 2, layers - 1)[seed % 3]
        w = pk.layers[layer].w_down
        ref = matvec(x, w, residual=res.clone(), config=matvec_config)
        out = mr.matvec_ring(x, w, res.clone(), config=ring_config)
        torch.cuda.synchronize()
        rows.append({"seed": seed, "layer": layer, "differ": int((out != ref).sum()),
                     "max_abs": float((out.float() - ref.float()).abs().nan_to_num(float("inf")).max()),
                     "nonfinite": int((~torch.isfinite(out)).sum())})
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    return {"config": list(ring_config), "matvec_config": list(matvec_config), "outputs": hidden, "rows": rows,
            "ring_bytes": mr.ring_bytes(ring_config, inter), "sms": sms,
            "programs": mr.programs(hidden, ring_config, sms)}
# --8<-- [end:down_check]


def next_token_check(dec: Decoder, prompt: torch.Tensor, steps: int = CHECK_STEPS) -> dict[str, Any]:
    """For a step that takes its own argmax (fast.ADVANCES), free-running: at every step, the token it wrote into
    the input buffer against the argmax of the logits it returned, and the position it wrote against the host's."""
    dec.start(prompt)
    agree, positions_ok = 0, True
    for _ in range(steps):
        logits = dec.advance()
        agree += int(torch.equal(dec.bufs.ids.view(1), logits.argmax(-1)))
        positions_ok &= int(dec.bufs.pos.item()) == dec.pos
    return {"steps": steps, "agree": agree, "positions_ok": positions_ok,
            "passed": agree == steps and positions_ok}


# --8<-- [start:loop]
def loop_ms(dec: Decoder, prompt: torch.Tensor, steps: int = LOOP_STEPS) -> float:
    """ms per step with `steps` steps back to back and one synchronize at the end, as a generation loop runs:
    the host launches step i + 1 while the GPU still runs step i."""
    dec.start(prompt)
    dec.advance()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        dec.advance()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / steps
# --8<-- [end:loop]


def graph_variant(model: torch.nn.Module, cache: Any, bufs: Buffers, prompt: torch.Tensor, name: str,
                  step: Any) -> V.Variant:
    """Capture `step` into one CUDA graph after a prefill (so the cache tensors exist), then empty the cache."""
    reset_static_cache(cache)
    prefill(model, cache, prompt)
    bufs.ids.fill_(0)
    bufs.pos.fill_(prompt.shape[1])
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    graph, out = V.capture(step)
    torch.cuda.synchronize()
    capture_s = time.perf_counter() - t0
    reset_static_cache(cache)

    def replay() -> torch.Tensor:
        graph.replay()
        return out

    # the graph replays into buffers that only `step` holds (the fused step allocates its own): keep it alive, or
    # the allocator hands that memory to the next tensor while the graph still writes there
    return V.Variant(name, replay, cache, lambda: reset_static_cache(cache), same_kernels_as_reference=False,
                     setup={"capture_s": capture_s, "graph": graph, "step": step})


def measure(fields: dict[str, Any] = QWEN25_15B, device: str = "cuda", min_rounds: int = MIN_ROUNDS,
            wide: tuple = WIDE, deep: tuple = DEEP, split: tuple = SPLIT, fold: tuple = FOLD,
            few: tuple = FEW_ROWS) -> dict[str, Any]:
    """The experiment. Its arguments exist for a dry run on a small model; the stored result uses the defaults."""
    dev = torch.device(device)
    copy = copy_bandwidth()
    torch.cuda.empty_cache()

    model, prompt, feed, bufs, ref32 = yardstick_model(fields, dev)  # the decode chapter's yardstick, then bf16
    wbytes = weight_bytes(model)

    cache = make_static_cache(model)
    prefill(model, cache, prompt)  # creates the cache tensors that pack() points at
    pk = fast.pack(model, cache)
    t0 = time.perf_counter()
    tuning = tune(pk, wide, deep, split, fold, few=few)
    configs = {s: tuple(t["best"]) for s, t in tuning.items()}
    positions = tune_positions(pk, prompt.shape[1])
    in_step = {n: tune_in_step(pk, bufs, n, tuning, positions, split, fold=fold) for n in IN_STEP}
    step_configs = {n: {s: tuple(c) for s, c in t["configs"].items()} for n, t in in_step.items()}
    tune_s = time.perf_counter() - t0
    step_cfg = {n: step_configs.get(CONFIGS_OF.get(n, n), configs) for n in fast.FUSED}
    costs = launch_costs(pk, bufs, COSTS_STEP, step_cfg[COSTS_STEP], positions)
    no_wait = wait_cost(pk, bufs, COSTS_STEP, step_cfg[COSTS_STEP], positions)
    fit = layer_fit(pk, bufs, COSTS_STEP, step_cfg[COSTS_STEP], positions)
    hand = handoff()
    ring, before = step_cfg["swiglu_ring"], step_cfg["greedy"]  # the ring against the kernel it replaces
    exact = ring_check(pk, ring["swiglu_ring"], before["swiglu"]) if "swiglu_ring" in ring else None
    down = step_cfg["down_ring"]  # down's ring against the matvec of the step before
    down_exact = down_check(pk, down["down_ring"], step_cfg["few_o"]["down"]) if "down_ring" in down else None

    variants: dict[str, V.Variant] = {"eager_static": V.eager_static(model, cache, bufs)}
    errors: dict[str, str] = {}
    names = (BASELINE, *fast.STEPS)
    for name in names:
        try:
            if name == BASELINE:
                variants[name] = V.cuda_graph(model, cache, bufs, prompt)
            else:
                variants[name] = graph_variant(model, cache, bufs, prompt, name,
                                               fast.make_step(pk, bufs, name, step_cfg.get(name, configs)))
        except Exception as e:  # noqa: BLE001 - one failing step is recorded, the others still run
            errors[name] = f"{type(e).__name__}: {str(e)[:1500]}"
            torch.cuda.synchronize()
    decs = {n: (fast.GreedyDecoder if n in fast.ADVANCES else Decoder)(model, bufs, v) for n, v in variants.items()}

    forced = {n: generate(d, prompt, CHECK_STEPS, feed) for n, d in decs.items()}
    ref = forced["eager_static"]["logits"]
    yard, tol, band = tolerance(ref32, ref)
    checks = {n: {**compare(ref, f["logits"], tol, variants[n].same_kernels_as_reference, band),
                  "nonfinite": int((~torch.isfinite(f["logits"])).sum())}
              for n, f in forced.items() if n != "eager_static"}
    for n in fast.ADVANCES:
        if n in checks:
            checks[n]["next_token"] = next_token_check(decs[n], prompt)
            checks[n]["passed"] = checks[n]["passed"] and checks[n]["next_token"]["passed"]
    free = {n: generate(d, prompt, CHECK_STEPS)["tokens"] for n, d in decs.items()}
    del forced, ref32

    timed = [n for n in names if n in variants]
    measured = timed_then_profiled(decs, prompt, timed, min_rounds, lambda dec: {"loop_ms": loop_ms(dec, prompt)},
                                   quiet_on=("step_ms", "loop_ms"))
    measured.pop("timelines")
    layer_timeline = timeline(pk, bufs, COSTS_STEP, step_cfg[COSTS_STEP], positions[-1])  # after the profiles

    return finite({
        "steps": list(fast.STEPS), "advances": list(fast.ADVANCES), "baseline": BASELINE, "names": timed,
        "loop_steps": LOOP_STEPS,
        "labels": {BASELINE: "plain graph (Hugging Face step)", **fast.LABELS},
        "weight_bytes": wbytes, "copy": copy, "floor_ms": wbytes / (copy["gbps"] * 1e9) * 1e3,
        "prompt_len": prompt.shape[1], "check_steps": CHECK_STEPS,
        "rounds_n": len(measured["rounds"]), "min_rounds": min_rounds,
        "tuning": tuning, "tune_s": tune_s, "configs": {s: list(c) for s, c in configs.items()},
        "in_step": in_step, "in_step_back_to_back": BACK_TO_BACK,
        "in_step_finalists": FINALISTS, "in_step_final_rounds": FINAL_ROUNDS, "launch_costs": costs,
        "no_wait": no_wait, "layer_fit": fit, "timeline": layer_timeline, "handoff": hand, "ring_check": exact,
        "down_check": down_exact,
        "capability": list(torch.cuda.get_device_capability(dev)), "pdl_used": pdl_supported(dev),
        "yardstick_fp32": yard, "tolerance": tol, "band": band, "tol_factor": TOL_FACTOR,
        "teacher_forced": checks, "free_running": free,
        "all_passed": not errors and all(c["passed"] for c in checks.values()), "build_errors": errors,
        "setup": {n: {k: v for k, v in variants[n].setup.items() if k not in ("graph", "step")} for n in timed},
        **measured,  # rounds, profiles, kernel_mix, after_profiler
    })


def finite(obj: Any) -> Any:
    """NaN and infinities (a broken step's errors) become None, so a failed check is stored, not lost."""
    if isinstance(obj, float):
        return obj if obj == obj and abs(obj) != float("inf") else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj

