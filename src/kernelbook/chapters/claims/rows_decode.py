"""The ledger's rows for Step 4 of the article: CUDA graphs, their constraints, and the decode step six ways."""

from __future__ import annotations

from .data import (
    COUNT,
    MYTHS,
    OWN,
    RATIO,
    STEP4,
    TIME,
    diffs,
    floor_rounds,
    host_rounds,
    idle_rounds,
    launch,
    mix,
    ms,
    num,
    pct,
    quiet_copy,
    quiet_launch,
    quiet_steps,
    ratios,
    secs,
    six,
    spans,
    step_rounds,
    times,
    tokens,
)
from .verdicts import exact, figure, relation, unmeasured

SIX, CON, MC = "decode.six_ways", "decode.constraints", "machine.ceilings"
E, S, G, D, R, M = ("eager_dynamic", "eager_static", "cuda_graph", "compile_default", "compile_reduce_overhead",
                    "compile_max_autotune")


def _v(d, name, key):
    return six(d)[name][key]


def _steps(a: str, b: str, sep: str = " vs "):
    """Two variants' median steps, as a cell."""
    return lambda d: f"{_v(d, a, 'step_ms'):.2f}{sep}{_v(d, b, 'step_ms'):.2f} ms"


def _laptop_steps(a: str, b: str, sep: str = " vs "):
    return lambda p: f"{p[SIX]['variants'][a]['step_ms']}{sep}{p[SIX]['variants'][b]['step_ms']} ms"


def _faster(a: str, b: str):
    """Each round's step of b minus a's: positive when a is the faster."""
    return lambda d: diffs(step_rounds(d, b), step_rounds(d, a))


def _fused_away(d) -> int:
    """Kernels of the eager StaticCache step that compiling (default mode) removed: all but the ones left outside
    Triton."""
    return _v(d, S, "kernels") - (_v(d, D, "kernels") - mix(d, D)["triton"])


def _trap(d):
    return d[CON]["trap"]


def _attention(d) -> list[str]:
    """The attention kernels of the compiled steps that Inductor did not write."""
    return [k["name"] for name in (R, M) for k in mix(d, name)["top"]
            if not k["name"].startswith("triton_") and any(w in k["name"] for w in ("sdpa", "attention", "fmha"))]


ROWS = (
    figure("launch", STEP4, "machine.md",
           "A CUDA graph replays tiny kernels 8 to 9 times faster than launching them one by one",
           test="else: faster", needs=(MC,),
           value=lambda d: launch(d)["speedup"],
           quiet=lambda d: quiet_launch(d, "eager_ms", "graph_ms"),
           rounds=lambda d: spans(launch(d)["eager_ms"]["values"], launch(d)["graph_ms"]["values"]),
           direction=lambda d: launch(d)["speedup"] > 1, fmt=times(1), band=OWN,
           article=lambda p: (p[MC]["graph_speedup_low"], p[MC]["graph_speedup_high"])),
    exact("item-in-capture", STEP4, "decode.md", "A capture that calls .item() ends in a CUDA error",
          "an error raised, and it is CUDA's", needs=(CON,),
          value=lambda d: d[CON]["item"]["raised"] and "CUDA error" in d[CON]["item"]["message"],
          laptop=lambda p: p[CON]["item_in_capture"],
          ours=lambda d: f"{d[CON]['item']['type']}" if d[CON]["item"]["raised"] else "no error"),
    exact("replay-silent", STEP4, "decode.md",
          "A replay whose inputs were not copied into the captured buffers goes wrong without an error",
          "cache counter moved on: no error, wrong logits", needs=(CON,),
          value=lambda d: not _trap(d)["without_reset"]["bit_identical"], laptop=lambda p: "stated",
          ours=lambda d: f"relative error {_trap(d)['without_reset']['rel_err']:.0%}, no error raised"),
    exact("replay-reset", STEP4, "decode.md",
          "Copying the new state into the captured buffers first makes the replay exact",
          "after an in-place cache reset: bit-identical to eager", needs=(CON,),
          value=lambda d: _trap(d)["with_reset"]["bit_identical"], laptop=lambda p: "stated",
          ours=lambda d: "bit for bit" if _trap(d)["with_reset"]["bit_identical"] else "differs"),
    exact("default-cache-moves", STEP4, "decode.md",
          "The default Hugging Face cache concatenates each new token, so its tensors move",
          "keys one token longer each step, and not always at the same address", needs=(CON,),
          value=lambda d: len({c["data_ptr"] for c in d[CON]["dynamic_cache"]}) > 1
          and all(b["shape"][2] == a["shape"][2] + 1
                  for a, b in zip(d[CON]["dynamic_cache"], d[CON]["dynamic_cache"][1:], strict=False)),
          laptop=lambda p: "stated",
          ours=lambda d: f"{len({c['data_ptr'] for c in d[CON]['dynamic_cache']})} addresses in "
                         f"{len(d[CON]['dynamic_cache'])} steps"),
    exact("static-cache-fixed", STEP4, "decode.md",
          "A StaticCache allocates all 512 slots up front and keeps them at one address",
          "the same slots, one address throughout", needs=(CON,),
          value=lambda d: (len({c["data_ptr"] for c in d[CON]["static_cache"]}),
                           {c["shape"][2] for c in d[CON]["static_cache"]}),
          article=lambda p: (1, {p[CON]["static_cache_slots"]}),
          laptop=lambda p: f"{p[CON]['static_cache_slots']} slots",
          ours=lambda d: f"{d[CON]['static_cache'][0]['shape'][2]} slots, "
                         f"{len({c['data_ptr'] for c in d[CON]['static_cache']})} address"),
    exact("same-tokens", STEP4, "decode.md", "The six ways agree on all 20 greedy tokens",
          "every variant's 20 tokens the same", needs=(SIX,),
          value=lambda d: len(set(tokens(d).values())) == 1,
          # seeded random weights leave the top two logits nearly tied at many steps, so a rounding difference can
          # pick the other token: the teacher-forced check, not the free-running tokens, is what this model can test
          applies=lambda d: False, unless="real weights (this model's are seeded random, its logits near-tied)",
          laptop=lambda p: f"{p[SIX]['greedy_tokens']} tokens, all the same" if p[SIX]["all_six_same_tokens"]
          else "differ",
          ours=lambda d: "all the same" if len(set(tokens(d).values())) == 1
          else f"{len(set(tokens(d).values()))} different sequences"),
    unmeasured("profiler-short", STEP4, "decode.md",
               "The profiler reads kernel times about 9% shorter than CUDA events do (on the laptop, under WSL2)",
               "one large matrix-vector product timed with CUDA events and under torch.profiler in one process",
               laptop=lambda p: f"{p[SIX]['profiler_vs_events']['profiler_ms']} vs "
                                f"{p[SIX]['profiler_vs_events']['events_ms']} ms"),
    relation("static-slower", STEP4, "decode.md",
             "Eager decode is slower with a StaticCache than with the default cache",
             "StaticCache step slower in every round", needs=(SIX,),
             quiet=lambda d: quiet_steps(d, S, E),
             rounds=lambda d: diffs(step_rounds(d, S), step_rounds(d, E)),
             ours=_steps(S, E), laptop=_laptop_steps(S, E)),
    figure("static-extra", STEP4, "decode.md", "The StaticCache adds about 229 small kernels to each eager step",
           needs=(SIX,),
           value=lambda d: _v(d, S, "kernels") - _v(d, E, "kernels"), fmt=num(0), band=COUNT,
           article=lambda p: p[SIX]["static_extra_kernels"]),
    unmeasured("static-extra-why", STEP4, "decode.md",
               "Those extra kernels copy indices and mask the 512 cache slots",
               "each variant's full kernel list by name (the run keeps the 15 costliest kernels of each)",
               laptop=lambda p: "stated"),
    relation("graph-pays", STEP4, "decode.md",
             "Captured in a graph, the StaticCache step beats eager decode with the default cache",
             "the graph faster in every round", needs=(SIX,), rounds=_faster(G, E),
             quiet=lambda d: quiet_steps(d, G, E),
             ours=_steps(G, E), laptop=_laptop_steps(G, E)),
    figure("capture-time", STEP4, "decode.md", "A capture of the step costs about 0.2 s",
           test="else: quicker than compiling it", needs=(SIX,),
           value=lambda d: d[SIX]["setup"][G]["capture_s"],
           direction=lambda d: d[SIX]["setup"][G]["capture_s"] < d[SIX]["setup"][D]["compile_s"], fmt=secs(2),
           band=TIME, article=lambda p: p[SIX]["variants"][G]["setup_s"]),
    figure("graph-step", STEP4, "decode.md",
           "The graph takes the StaticCache step from 24.9 to 14.9 ms",
           test="else: faster", needs=(SIX,),
           value=lambda d: _v(d, S, "step_ms") / _v(d, G, "step_ms"),
           quiet=lambda d: quiet_steps(d, S, G),
           rounds=lambda d: ratios(step_rounds(d, S), step_rounds(d, G)),
           direction=lambda d: _v(d, S, "step_ms") > _v(d, G, "step_ms"), side=lambda x: x > 1, fmt=times(2),
           band=RATIO,
           article=lambda p: p[SIX]["variants"][S]["step_ms"] / p[SIX]["variants"][G]["step_ms"],
           ours=lambda d: f"{_v(d, S, 'step_ms') / _v(d, G, 'step_ms'):.2f}× ({_steps(S, G, ' → ')(d)})"),
    exact("graph-same-kernels", STEP4, "decode.md", "The captured step runs the very kernels of the eager one",
          "the same kernel count in both profiles", needs=(SIX,),
          value=lambda d: _v(d, G, "kernels") == _v(d, S, "kernels"),
          laptop=lambda p: f"{p[SIX]['variants'][G]['kernels']:,} both",
          ours=lambda d: f"{_v(d, G, 'kernels'):,} and {_v(d, S, 'kernels'):,}"),
    figure("step-kernels", STEP4, "decode.md", "The StaticCache step runs about 1,374 kernels", needs=(SIX,),
           value=lambda d: _v(d, S, "kernels"), fmt=num(0), band=COUNT,
           article=lambda p: p[SIX]["variants"][S]["kernels"]),
    figure("graph-host", STEP4, "decode.md", "Replaying it leaves the CPU a call of about 0.67 ms",
           test="else: below eager's host time", needs=(SIX,), value=lambda d: _v(d, G, "host_ms"),
           rounds=lambda d: host_rounds(d, G), direction=lambda d: _v(d, G, "host_ms") < _v(d, S, "host_ms"),
           fmt=ms(2), band=TIME, article=lambda p: p[SIX]["variants"][G]["host_ms"]),
    exact("graph-busy", STEP4, "decode.md", "Fed by the graph without gaps, the GPU sets the pace",
          "the GPU busy for most of the captured step", needs=(SIX,), value=lambda d: _v(d, G, "idle_share") < 0.5,
          laptop=lambda p: "stated", ours=lambda d: f"idle {_v(d, G, 'idle_share'):.0%}"),
    figure("fused-away", STEP4, "decode.md",
           "In default mode torch.compile fuses about 1,149 of the step's small kernels", needs=(SIX,),
           value=_fused_away,
           fmt=num(0), band=COUNT, article=lambda p: p[SIX]["fusion_removed_kernels"]),
    figure("fused-triton", STEP4, "decode.md", "Default mode turns them into about 282 Triton kernels", needs=(SIX,),
           value=lambda d: mix(d, D)["triton"], fmt=num(0), band=COUNT,
           article=lambda p: p[SIX]["variants"][D]["triton_kernels"]),
    unmeasured("fused-gpu-time", STEP4, "decode.md",
               "Those kernels' GPU time drops from about 2.0 ms to 0.5 ms",
               "every kernel's GPU time in the profiled steps, split by who wrote it (the run keeps the 15 costliest)",
               laptop=lambda p: f"{p[SIX]['fusion_removed_gpu_ms']} → {p[SIX]['fused_triton_gpu_ms']} ms"),
    figure("default-kernels", STEP4, "decode.md", "Compiled in default mode, the step runs about 509 kernels",
           needs=(SIX,),
           test="else: fewer than eager's", value=lambda d: _v(d, D, "kernels"),
           direction=lambda d: _v(d, D, "kernels") < _v(d, S, "kernels"), fmt=num(0), band=COUNT,
           article=lambda p: p[SIX]["variants"][D]["kernels"]),
    exact("default-python", STEP4, "decode.md", "Default mode still launches each of them from Python",
          "as many launches as kernels", needs=(SIX,),
          value=lambda d: _v(d, D, "launches") == _v(d, D, "kernels"), laptop=lambda p: "stated",
          ours=lambda d: f"{_v(d, D, 'launches'):,} launches, {_v(d, D, 'kernels'):,} kernels"),
    figure("default-idle", STEP4, "decode.md", "In default mode the GPU waits for about 15% of the step",
           test="else: more than reduce-overhead's", needs=(SIX,),
           quiet=lambda d: quiet_steps(d, D),
           value=lambda d: _v(d, D, "idle_share"), rounds=lambda d: idle_rounds(d, D),
           direction=lambda d: _v(d, D, "idle_share") > _v(d, R, "idle_share"), fmt=pct(), band=RATIO,
           article=lambda p: p[SIX]["variants"][D]["idle_share"]),
    relation("default-mode", STEP4, "decode.md",
             "Fusion alone (default mode) is slower than the plain graph: the graph matters more",
             "default mode slower in every round", needs=(SIX,), rounds=lambda d: diffs(step_rounds(d, D),
                                                                                         step_rounds(d, G)),
             quiet=lambda d: quiet_steps(d, D, G),
             ours=_steps(D, G), laptop=_laptop_steps(D, G)),
    relation("ro-beats-graph", STEP4, "decode.md",
             "reduce-overhead, fusion and graphs together, beats the hand-captured graph",
             "reduce-overhead faster in every round", needs=(SIX,), rounds=_faster(R, G),
             quiet=lambda d: quiet_steps(d, R, G),
             ours=_steps(R, G), laptop=_laptop_steps(R, G)),
    figure("ro-gain", STEP4, "decode.md", "reduce-overhead's step is about 1.1 ms shorter than the hand graph's",
           test="else: shorter", needs=(SIX,),
           quiet=lambda d: quiet_steps(d, R, G),
           value=lambda d: _v(d, G, "step_ms") - _v(d, R, "step_ms"), rounds=_faster(R, G),
           direction=lambda d: _v(d, G, "step_ms") > _v(d, R, "step_ms"), side=lambda x: x > 0, fmt=ms(2),
           band=RATIO,
           article=lambda p: p[SIX]["ro_gain_over_graph_ms"]),
    figure("ro-step", STEP4, "decode.md", "reduce-overhead, graphs and fusion together, takes 13.8 ms a step",
           test="else: faster than the plain graph and than default mode", needs=(SIX,),
           value=lambda d: _v(d, R, "step_ms"), rounds=lambda d: step_rounds(d, R), quiet=lambda d: quiet_steps(d, R),
           direction=lambda d: _v(d, R, "step_ms") < min(_v(d, G, "step_ms"), _v(d, D, "step_ms")), fmt=ms(2),
           band=TIME, article=lambda p: p[SIX]["variants"][R]["step_ms"]),
    figure("default-step", STEP4, "decode.md", "Fusion without a graph (default mode) takes 15.6 ms a step",
           test="else: slower than the plain graph", needs=(SIX,), value=lambda d: _v(d, D, "step_ms"),
           rounds=lambda d: step_rounds(d, D), quiet=lambda d: quiet_steps(d, D),
           direction=lambda d: _v(d, D, "step_ms") > _v(d, G, "step_ms"), fmt=ms(2), band=TIME,
           article=lambda p: p[SIX]["variants"][D]["step_ms"]),
    figure("fusion-gpu-saved", STEP4, "decode.md", "Fusion removes about 1.5 ms of GPU work from the step",
           test="else: some", needs=(SIX,),
           value=lambda d: _v(d, G, "busy_ms") - _v(d, R, "busy_ms"),
           direction=lambda d: _v(d, G, "busy_ms") > _v(d, R, "busy_ms"), fmt=ms(2), band=RATIO,
           article=lambda p: p[SIX]["fusion_saved_gpu_ms"]),
    exact("gain-is-fusion", STEP4, "decode.md", "Most of reduce-overhead's gain over the graph is that GPU work",
          "the gain at least half the GPU work removed", needs=(SIX,),
          value=lambda d: _v(d, G, "step_ms") - _v(d, R, "step_ms")
          >= 0.5 * (_v(d, G, "busy_ms") - _v(d, R, "busy_ms")),
          laptop=lambda p: f"{p[SIX]['ro_gain_over_graph_ms']} of {p[SIX]['fusion_saved_gpu_ms']} ms",
          ours=lambda d: f"{_v(d, G, 'step_ms') - _v(d, R, 'step_ms'):.2f} of "
                         f"{_v(d, G, 'busy_ms') - _v(d, R, 'busy_ms'):.2f} ms"),
    figure("ma-beats-ro", STEP4, "decode.md", "max-autotune's step is about 0.14 ms shorter than reduce-overhead's",
           test="else: shorter", needs=(SIX,),
           quiet=lambda d: quiet_steps(d, M, R),
           value=lambda d: _v(d, R, "step_ms") - _v(d, M, "step_ms"), rounds=_faster(M, R),
           direction=lambda d: _v(d, R, "step_ms") > _v(d, M, "step_ms"), side=lambda x: x > 0, fmt=ms(2),
           band=RATIO,
           article=lambda p: p[SIX]["ma_gain_over_ro_ms"],
           ours=lambda d: f"{_v(d, R, 'step_ms') - _v(d, M, 'step_ms'):.2f} ms ({_steps(M, R)(d)})"),
    figure("ma-compile", STEP4, "decode.md", "max-autotune compiles the decode step in about 63 s on a cold cache",
           test="else: the slowest mode to compile", needs=(SIX,),
           value=lambda d: d[SIX]["setup"][M]["compile_s"],
           direction=lambda d: d[SIX]["setup"][M]["compile_s"] > max(d[SIX]["setup"][n]["compile_s"] for n in (D, R)),
           fmt=secs(0), band=TIME, article=lambda p: p[SIX]["variants"][M]["setup_s"]),
    unmeasured("loaded-cpu", STEP4, "decode.md",
               "With other work loading the CPU, eager decode slows (37.6 ms) while the graph barely moves (16.3 ms)",
               "a second six-ways run with the host CPU kept busy by other work",
               laptop=lambda p: f"{p[SIX]['earlier_session']['eager_ms']} and {p[SIX]['earlier_session']['graph_ms']} "
                                "ms"),
    exact("weights", STEP4, "decode.md", "A step reads the 3.087 GB of weights once", "the same bytes, to the MB",
          needs=(SIX,), value=lambda d: round(d[SIX]["weight_bytes"] / 1e9, 3), article=lambda p: p[SIX]["weight_gb"],
          laptop=lambda p: f"{p[SIX]['weight_gb']} GB", ours=lambda d: f"{d[SIX]['weight_bytes'] / 1e9:.3f} GB"),
    figure("graph-launches", STEP4, "decode.md", "A CUDA graph replays the whole decode step with one launch",
           test="else: fewer launches than the eager step's", needs=(SIX,),
           value=lambda d: _v(d, G, "launches"),
           direction=lambda d: _v(d, G, "launches") < _v(d, S, "launches"),
           fmt=lambda x: f"{x:.0f}", band=COUNT, article=lambda p: p[SIX]["graph_launches_per_step"],
           laptop=lambda p: f"{p[SIX]['graph_launches_per_step']} launch",
           ours=lambda d: f"{_v(d, G, 'launches'):.0f} launches for {_v(d, G, 'kernels'):,.0f} kernels (eager: "
                          f"{_v(d, 'eager_static', 'launches'):,.0f})"),
    unmeasured("capture-static", STEP4, "decode.md",
               "A captured graph allows no dynamic shapes and no control flow that depends on the data",
               "capture a step at one input size and with a branch on a tensor's value, then replay it on another "
               "size and value: the replay keeps the captured shape and branch"),
    exact("laptop-floor", STEP4, "decode.md",
          "At the laptop's 248.7 GB/s those weights take 12.4 ms: at most 80.6 tokens per second",
          "a figure of the laptop's memory", needs=(SIX,), value=lambda d: True, applies=lambda d: False,
          unless="the laptop", laptop=lambda p: f"{p[SIX]['floor_ms']} ms, {p[SIX]['ceiling_tok_s']} tok/s",
          ours=lambda d: f"{d[SIX]['floor_ms']:.2f} ms, {1e3 / d[SIX]['floor_ms']:,.0f} tok/s"),
    figure("floor-ro", STEP4, "decode.md", "reduce-overhead's step runs at 90% of the bandwidth floor's speed",
           test="else: nearer the floor than eager", needs=(SIX,), value=lambda d: _v(d, R, "floor_share"),
           quiet=lambda d: quiet_steps(d, R) and quiet_copy(d, SIX),
           rounds=lambda d: floor_rounds(d, R), direction=lambda d: _v(d, R, "floor_share") > _v(d, E, "floor_share"),
           fmt=pct(), band=RATIO, article=lambda p: p[SIX]["variants"][R]["floor_share"]),
    figure("floor-ma", STEP4, "decode.md", "max-autotune's step runs at 91% of the floor's speed",
           test="else: nearer the floor than eager", needs=(SIX,), value=lambda d: _v(d, M, "floor_share"),
           quiet=lambda d: quiet_steps(d, M) and quiet_copy(d, SIX),
           rounds=lambda d: floor_rounds(d, M), direction=lambda d: _v(d, M, "floor_share") > _v(d, E, "floor_share"),
           fmt=pct(), band=RATIO, article=lambda p: p[SIX]["variants"][M]["floor_share"]),
    figure("floor-eager", STEP4, "decode.md", "Eager decode gets to 56% of the floor",
           test="else: further from the floor than the graph", needs=(SIX,), value=lambda d: _v(d, E, "floor_share"),
           quiet=lambda d: quiet_steps(d, E) and quiet_copy(d, SIX),
           rounds=lambda d: floor_rounds(d, E), direction=lambda d: _v(d, E, "floor_share") < _v(d, G, "floor_share"),
           fmt=pct(), band=RATIO, article=lambda p: p[SIX]["variants"][E]["floor_share"]),
    figure("graphs-and-fusion", STEP4, "decode.md",
           "With graphs and fusion the decode step drops from 22.2 to 13.6 ms",
           test="else: faster", needs=(SIX,),
           value=lambda d: _v(d, E, "step_ms") / _v(d, M, "step_ms"),  # the article's 13.6 ms is max-autotune's
           quiet=lambda d: quiet_steps(d, E, M),
           rounds=lambda d: ratios(step_rounds(d, E), step_rounds(d, M)),
           direction=lambda d: _v(d, E, "step_ms") > _v(d, M, "step_ms"), side=lambda x: x > 1, fmt=times(2),
           band=RATIO,
           article=lambda p: p[SIX]["variants"][E]["step_ms"] / p[SIX]["variants"][M]["step_ms"],
           ours=lambda d: f"{_v(d, E, 'step_ms') / _v(d, M, 'step_ms'):.2f}× ({_v(d, E, 'step_ms'):.2f} → "
                          f"{_v(d, M, 'step_ms'):.2f} ms, max-autotune)"),
    unmeasured("matvec-rest", STEP4, "decode.md",
               "What the best step still spends is mostly its matrix-vector kernels (about 12 of its 13.6 ms), plus "
               "attention",
               "every kernel's GPU time by kind over the whole step (the run keeps the 15 costliest of each variant)",
               laptop=lambda p: "about 12 ms of matvec"),
    exact("attention-left", STEP4, "claims.md",
          "Compiled steps still run attention in a kernel Inductor did not write (PyTorch's SDPA)",
          "a non-Triton attention kernel in the compiled steps", needs=(SIX,), value=lambda d: bool(_attention(d)),
          laptop=lambda p: "stated", ours=lambda d: _attention(d)[0].split("_fprop")[0] if _attention(d) else "none"),
    figure("default-host", MYTHS, "decode.md",
           "In default mode the CPU spends about 8.4 ms a step on launches",
           test="else: more than the GPU's busy time", needs=(SIX,), value=lambda d: _v(d, D, "host_ms"),
           rounds=lambda d: host_rounds(d, D), direction=lambda d: _v(d, D, "host_ms") > _v(d, D, "busy_ms"),
           fmt=ms(1), band=TIME, article=lambda p: p[SIX]["variants"][D]["host_ms"]),
)
