"""The six ways to run one decode step. Each is a `Variant`: a zero-argument step function that reads the shared
input buffers and returns logits (1, vocab), the cache it decodes into, and how to empty that cache.

The five static-cache variants share one `StaticCache` and one pair of input buffers; only the eager baseline with
Hugging Face's default cache has its own (a `DynamicCache`, rebuilt for every generation since it grows).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from kernelbook.decode.harness import (
    Buffers,
    cache_kwarg,
    decode_step_fn,
    make_dynamic_cache,
    prefill,
    reset_static_cache,
    takes_cache_position,
)

NAMES = ("eager_dynamic", "eager_static", "cuda_graph", "compile_default", "compile_reduce_overhead",
         "compile_max_autotune")
LABELS = {
    "eager_dynamic": "eager, default cache",
    "eager_static": "eager, StaticCache",
    "cuda_graph": "CUDA graph by hand",
    "compile_default": "torch.compile default",
    "compile_reduce_overhead": "torch.compile reduce-overhead",
    "compile_max_autotune": "torch.compile max-autotune",
}
MODES = {"compile_default": "default", "compile_reduce_overhead": "reduce-overhead",
         "compile_max_autotune": "max-autotune"}
GRAPH_WARMUP = 3  # eager calls on a side stream before capture (the CUDA graphs notes ask for warm-up)
COMPILE_CALLS = 3  # compile, then (with CUDA graphs) record, then replay


@dataclass
class Variant:
    name: str
    step: Callable[[], torch.Tensor]
    cache: Any
    reset: Callable[[], None]
    same_kernels_as_reference: bool  # eager static's kernels, replayed or not: must match it bit for bit
    setup: dict[str, Any] = field(default_factory=dict)  # capture or compile time, what reset touched

    @property
    def label(self) -> str:
        return LABELS[self.name]


def eager_dynamic(model: torch.nn.Module, bufs: Buffers) -> Variant:
    """Hugging Face's default cache: keys and values grow by torch.cat every step."""
    v = Variant("eager_dynamic", step=lambda: torch.empty(0), cache=make_dynamic_cache(model),
                reset=lambda: None, same_kernels_as_reference=False)

    def reset() -> None:
        v.cache = make_dynamic_cache(model)

    name, extra = cache_kwarg(model), ({"cache_position": bufs.pos} if takes_cache_position(model) else {})

    def step() -> torch.Tensor:
        return model(input_ids=bufs.ids, position_ids=bufs.pos.view(1, 1), use_cache=True, **{name: v.cache},
                     **extra).logits[:, -1, :]

    v.reset, v.step = reset, step
    return v


def eager_static(model: torch.nn.Module, cache: Any, bufs: Buffers) -> Variant:
    return Variant("eager_static", decode_step_fn(model, cache, bufs), cache, lambda: reset_static_cache(cache),
                   same_kernels_as_reference=True)


def _sync_if_cuda(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --8<-- [start:capture]
def capture(step: Callable[[], torch.Tensor], warmup: int = GRAPH_WARMUP
            ) -> tuple[torch.cuda.CUDAGraph, torch.Tensor]:
    """Record one call of `step` into a CUDA graph. Returns the graph and the tensor its replays overwrite.

    Warm-up runs on a side stream, as PyTorch's CUDA graph notes advise. Capture only records launches, but the
    warm-up calls do run: every one of them advances a StaticCache's write counter.
    """
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()  # (1, vocab), in the graph's private memory pool
    return graph, out


def cuda_graph(model: torch.nn.Module, cache: Any, bufs: Buffers, prompt: torch.Tensor) -> Variant:
    """The static step captured by hand; the loop copies each token into bufs.ids before the replay."""
    reset_static_cache(cache)
    prefill(model, cache, prompt)  # allocates the cache's keys and values before capture, outside the graph pool
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    graph, out = capture(decode_step_fn(model, cache, bufs))
    torch.cuda.synchronize()
    capture_s = time.perf_counter() - t0
    touched = reset_static_cache(cache)  # warm-up moved the write counter: without this, replays use wrong slots

    def replay() -> torch.Tensor:
        graph.replay()
        return out

    return Variant("cuda_graph", replay, cache, lambda: reset_static_cache(cache), same_kernels_as_reference=True,
                   setup={"capture_s": capture_s, "reset_touched": touched[:6], "graph": graph})
# --8<-- [end:capture]


def compiled(model: torch.nn.Module, cache: Any, bufs: Buffers, prompt: torch.Tensor, name: str,
             backend: str = "inductor") -> Variant:
    """torch.compile of the static step in one of three modes; compiled here (first calls timed), not on first use.

    Before each call, `cudagraph_mark_step_begin` tells CUDA-graph trees that the previous step's outputs are no
    longer read, so a replay may overwrite them.
    """
    mode = MODES[name]
    kwargs: dict[str, Any] = {"backend": backend}
    if backend == "inductor":
        kwargs["mode"] = mode
    fn = torch.compile(decode_step_fn(model, cache, bufs), **kwargs)

    def step() -> torch.Tensor:
        torch.compiler.cudagraph_mark_step_begin()
        return fn()

    reset_static_cache(cache)
    prefill(model, cache, prompt)
    bufs.ids.fill_(0)
    bufs.pos.fill_(prompt.shape[1])
    device = prompt.device
    times = []
    for _ in range(COMPILE_CALLS):
        _sync_if_cuda(device)
        t0 = time.perf_counter()
        step()
        _sync_if_cuda(device)
        times.append(time.perf_counter() - t0)
    reset_static_cache(cache)
    return Variant(name, step, cache, lambda: reset_static_cache(cache), same_kernels_as_reference=False,
                   setup={"mode": mode, "backend": backend, "first_call_s": times[0], "calls_s": times,
                          "compile_s": sum(times)})


def build_all(model: torch.nn.Module, cache: Any, bufs: Buffers, prompt: torch.Tensor,
              names: tuple[str, ...] = NAMES, before_compile: Callable[[str], None] | None = None
              ) -> dict[str, Variant]:
    """The variants in `names`, sharing `cache` and `bufs` (eager_dynamic has its own cache)."""
    out: dict[str, Variant] = {}
    for name in names:
        if name == "eager_dynamic":
            out[name] = eager_dynamic(model, bufs)
        elif name == "eager_static":
            out[name] = eager_static(model, cache, bufs)
        elif name == "cuda_graph":
            out[name] = cuda_graph(model, cache, bufs, prompt)
        else:
            if before_compile is not None:
                before_compile(name)
            out[name] = compiled(model, cache, bufs, prompt, name)
    return out
