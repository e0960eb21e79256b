"""decode.constraints: what a CUDA graph records, and what it silently gets wrong.

- the cache-counter trap: a hand capture replayed against a StaticCache whose write counter the warm-up moved,
  without and with an in-place reset before prefill, each compared with eager logits
- `.item()` inside a capture (in a child process, since a failed capture can leave the CUDA context unusable)
- why the default cache cannot be captured: its key tensor's address and shape across decode steps
- `torch._dynamo.explain` on the static decode step: graphs, breaks and operations
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import torch

from kernelbook.decode import variants as V
from kernelbook.decode.harness import (
    Buffers,
    Decoder,
    cache_layers,
    cache_length,
    decode_step_fn,
    generate,
    layer_keys,
    make_dynamic_cache,
    make_static_cache,
    prefill,
    prompt_ids,
    reset_static_cache,
    step_kwargs,
)
from kernelbook.decode.model import QWEN25_15B, build_model

STEPS = 8
FEED_SEED = 11
MARK = "KB-JSON:"


def rel_err(ref: torch.Tensor, got: torch.Tensor) -> float:
    return float((got.float() - ref.float()).norm() / ref.float().norm())


# --8<-- [start:trap]
def replay_forced(graph: torch.cuda.CUDAGraph, out: torch.Tensor, bufs: Buffers, feed: torch.Tensor, start: int
                  ) -> torch.Tensor:
    """Replay the captured step once per token of `feed`, copying each token and position into the captured
    buffers first. Returns each replay's logits (steps, vocab)."""
    logits = []
    for i in range(feed.shape[0]):
        bufs.ids.copy_(feed[i].view(1, 1))
        bufs.pos.fill_(start + i)
        graph.replay()
        logits.append(out.clone())
    return torch.cat(logits)


def counter_trap(model: torch.nn.Module, prompt: torch.Tensor, feed: torch.Tensor) -> dict[str, Any]:
    cache, bufs = make_static_cache(model), Buffers.on(prompt.device)
    ref = generate(Decoder(model, bufs, V.eager_static(model, cache, bufs)), prompt, feed.shape[0], feed)["logits"]
    t = prompt.shape[1]
    reset_static_cache(cache)
    prefill(model, cache, prompt)  # allocates the cache before capture
    counts = {"after_first_prefill": cache_length(cache)}
    graph, out = V.capture(decode_step_fn(model, cache, bufs))
    counts["after_warmup_and_capture"] = cache_length(cache)

    prefill(model, cache, prompt)  # no reset: prefill writes after the warm-up's slots
    counts["after_prefill_without_reset"] = cache_length(cache)
    stale = replay_forced(graph, out, bufs, feed, t)

    reset_static_cache(cache)  # in place: the graph still points at the same tensors
    prefill(model, cache, prompt)
    counts["after_prefill_with_reset"] = cache_length(cache)
    fresh = replay_forced(graph, out, bufs, feed, t)
    return {"counter": counts, "prompt_len": t, "warmup_calls": V.GRAPH_WARMUP, "steps": feed.shape[0],
            "without_reset": {"rel_err": rel_err(ref, stale), "bit_identical": bool(torch.equal(ref, stale)),
                              "top1_agree": float((ref.argmax(-1) == stale.argmax(-1)).float().mean())},
            "with_reset": {"rel_err": rel_err(ref, fresh), "bit_identical": bool(torch.equal(ref, fresh)),
                           "top1_agree": float((ref.argmax(-1) == fresh.argmax(-1)).float().mean())}}
# --8<-- [end:trap]


# --8<-- [start:item]
def item_in_capture_child() -> None:
    """Run in a child process: capture a step that calls .item(), print what was raised as JSON."""
    x = torch.ones(1024, device="cuda")
    y = x * 2  # warm-up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    res: dict[str, Any] = {"raised": False}
    try:
        with torch.cuda.graph(graph):
            y = x * 2
            if y.sum().item() > 0:  # a host-side branch on a GPU value
                y = y + 1
    except Exception as e:  # noqa: BLE001 - the point is to record whatever it is
        res = {"raised": True, "type": type(e).__name__, "message": str(e).strip()[:800]}
        ctx = e.__context__
        if ctx is not None:
            res["context_type"], res["context_message"] = type(ctx).__name__, str(ctx).strip()[:800]
    try:
        res["context_usable_after"] = float((torch.ones(2, device="cuda") + 1).sum().item()) == 4.0
    except Exception as e:  # noqa: BLE001
        res["context_usable_after"], res["after_error"] = False, f"{type(e).__name__}: {str(e)[:300]}"
    print(MARK + json.dumps(res), flush=True)
# --8<-- [end:item]


def item_in_capture() -> dict[str, Any]:
    src = str(Path(__file__).resolve().parents[3])  # src/, for the child's PYTHONPATH
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    code = "from kernelbook.chapters.decode.constraints import item_in_capture_child as f; f()"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith(MARK)]
    if not lines:
        return {"raised": None, "returncode": p.returncode, "stderr_tail": p.stderr[-1500:]}
    return {**json.loads(lines[-1][len(MARK):]), "returncode": p.returncode}


# --8<-- [start:dynamic]
def cache_addresses(model: torch.nn.Module, cache: Any, prompt: torch.Tensor, steps: int = 3) -> list[dict[str, Any]]:
    """Layer 0's key tensor after prefill and after each of `steps` eager decode steps: address and shape."""
    bufs = Buffers.on(prompt.device)
    kw = step_kwargs(model, cache, bufs.pos)
    logits = prefill(model, cache, prompt)
    rows = []
    for i in range(steps + 1):
        k = layer_keys(cache, 0)
        rows.append({"after": "prefill" if i == 0 else f"step {i}", "data_ptr": k.data_ptr(), "shape": list(k.shape)})
        if i < steps:
            bufs.ids.copy_(logits.argmax(-1).view(1, 1))
            bufs.pos.fill_(prompt.shape[1] + i)
            logits = model(input_ids=bufs.ids, position_ids=bufs.pos.view(1, 1), **kw).logits[:, -1, :]
    return rows
# --8<-- [end:dynamic]


def explain_step(model: torch.nn.Module, prompt: torch.Tensor) -> dict[str, Any]:
    """torch._dynamo.explain on the static-cache decode step (it runs the step once while tracing)."""
    import torch._dynamo

    cache, bufs = make_static_cache(model), Buffers.on(prompt.device)
    prefill(model, cache, prompt)
    bufs.pos.fill_(prompt.shape[1])
    torch._dynamo.reset()
    ex = torch._dynamo.explain(decode_step_fn(model, cache, bufs))()
    reasons = [str(getattr(r, "reason", r))[:300] for r in ex.break_reasons]
    return {"graph_count": ex.graph_count, "graph_break_count": ex.graph_break_count, "break_reasons": reasons,
            "op_count": ex.op_count, "ops_per_graph": [len(g) for g in (ex.ops_per_graph or [])]}


def constraints() -> dict[str, Any]:
    dev = torch.device("cuda")
    model = build_model(QWEN25_15B, dev, torch.bfloat16)
    prompt = prompt_ids(model.config.vocab_size, dev)
    feed = torch.randint(0, model.config.vocab_size, (STEPS,), generator=torch.Generator().manual_seed(FEED_SEED)
                         ).to(dev)
    trap = counter_trap(model, prompt, feed)
    dynamic = cache_addresses(model, make_dynamic_cache(model), prompt)
    static = cache_addresses(model, make_static_cache(model), prompt)
    explain = explain_step(model, prompt)
    item = item_in_capture()  # last, and in its own process
    layers = cache_layers(make_static_cache(model))
    return {"trap": trap, "dynamic_cache": dynamic, "static_cache": static, "explain": explain, "item": item,
            "static_layer_class": type(layers[0]).__name__ if layers else None}
