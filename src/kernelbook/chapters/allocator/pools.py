"""allocator.pools: four of the article's rules about the caching allocator's pools, each checked on the GPU.

- streams: a freed block is kept for the stream it was used on. The same size asked for on another stream gets
  other memory; asked for again on the first stream, it gets the freed block back.
- graph_pool: a captured graph's private pool stays reserved until the graph and its output are both gone. Read
  twice: the segments of private pools (memory_snapshot's pool id), and memory_reserved() against the base.
- expandable (run under expandable_segments:True): the segments grow in pages, 2 MiB for the small pool and
  20 MiB for the large one. Every step of memory_reserved() is a whole number of pages.
- grow (run twice, with and without expandable segments): the host time of a request that makes the reserved
  memory grow. A fresh 20 MiB block is either a cudaMalloc or a new page mapped into the segment. Samples are
  taken until quiet (bench.py) or until the memory cap.

Allocator settings are read once per process, so each case runs in a child of its own:
`python -m kernelbook.chapters.allocator.pools CASE`. It prints one line, MARK and then JSON.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from typing import Any

from kernelbook.chapters.allocator.child import run_child
from kernelbook.chapters.allocator.model import KiB, MiB
from kernelbook.chapters.allocator.scripts import MARK

EXPANDABLE = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
STREAM_SIZES = (4 * KiB, 64 * MiB)  # one request for each pool: small (≤ 1 MiB) and large
PAGE = {"small": 2 * MiB, "large": 20 * MiB}  # the article's page sizes, one per pool
# requests made one after another and kept alive, each followed by a memory_reserved() reading
EXPANDABLE_STEPS = (("small", 512), ("small", 100 * KiB), ("small", 1 * MiB), ("small", 1 * MiB),
                    ("large", 3 * MiB), ("large", 25 * MiB), ("large", 64 * MiB), ("large", 100 * MiB))
GROW_BYTES = 20 * MiB  # one fresh block a call: a cudaMalloc of its own (default), or one new page (expandable)
GROW_BATCH = 5  # a sample is the median of this many calls
GROW_MAX_SAMPLES = 100  # 100 × 5 × 20 MiB = 10 GiB at most kept alive
GROW_CAP_S = 2.0


# ---- the cases, each in its own process ----------------------------------------------------------------------------

def case_streams() -> dict[str, Any]:
    import torch

    side = torch.cuda.Stream()
    out = []
    for nbytes in STREAM_SIZES:
        torch.cuda.synchronize()
        x = torch.empty(nbytes, dtype=torch.uint8, device="cuda")  # on the default stream
        x.fill_(1)
        freed = x.data_ptr()
        del x  # back to the cache, tagged with the default stream
        torch.cuda.synchronize()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            other = torch.empty(nbytes, dtype=torch.uint8, device="cuda")  # the same size, on another stream
            other.fill_(2)
        same = torch.empty(nbytes, dtype=torch.uint8, device="cuda")  # and again on the default stream
        same.fill_(3)
        torch.cuda.synchronize()
        out.append({"bytes": nbytes, "other_stream_reuses": other.data_ptr() == freed,
                    "same_stream_reuses": same.data_ptr() == freed})
        del other, same
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    return {"sizes": out}


def case_graph_pool() -> dict[str, Any]:
    import torch

    from kernelbook.chapters.allocator.demos import _mlp

    torch.manual_seed(0)
    with torch.no_grad():
        model = _mlp(1536, 8960, 2)
        x = torch.randn(64, 1536, device="cuda", dtype=torch.bfloat16)  # (batch, hidden)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm-up on the capture stream
            model(x)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()

        def reserved() -> tuple[int, int]:
            """memory_reserved() after empty_cache() hands back every segment with nothing alive in it, and the
            bytes of the segments that belong to a private pool (any pool but the default one)."""
            gc.collect()
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            private = sum(s["total_size"] for s in torch.cuda.memory_snapshot()
                          if tuple(s.get("segment_pool_id", (0, 0))) != (0, 0))
            return torch.cuda.memory_reserved(), private

        base, _ = reserved()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=stream):
            y = model(x)  # the output lives in the graph's private pool
        x.copy_(torch.randn_like(x))
        y.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        err = (y.float() - model(x).float()).abs().max().item()
        assert err <= 1e-2, f"graph replay differs from eager by {err}"
        both = reserved()
        del g
        output_only = reserved()  # the graph deleted, its output still alive
        del y
        none = reserved()
        # the largest blocks still alive once both are gone (the weights and x among them), for what stayed
        alive = sorted((b["size"] for s in torch.cuda.memory_snapshot() for b in s["blocks"]
                        if b["state"] == "active_allocated"), reverse=True)[:8]
    return {"base_reserved": base, "graph_and_output": both[0], "output_only": output_only[0], "neither": none[0],
            "private": {"graph_and_output": both[1], "output_only": output_only[1], "neither": none[1]},
            "largest_alive": alive}


def case_expandable() -> dict[str, Any]:
    import torch

    assert "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""), "run with expandable segments"
    torch.cuda.init()
    keep, steps = [], []
    before = torch.cuda.memory_reserved()
    for pool, nbytes in EXPANDABLE_STEPS:
        keep.append(torch.empty(nbytes, dtype=torch.uint8, device="cuda"))
        after = torch.cuda.memory_reserved()
        steps.append({"pool": pool, "bytes": nbytes, "step": after - before})
        before = after
    segments = [{"pool": "small" if s["segment_type"] == "small" else "large", "size": s["total_size"]}
                for s in torch.cuda.memory_snapshot()]
    return {"steps": steps, "segments": segments}


def case_grow() -> dict[str, Any]:
    import torch

    from kernelbook.bench import BOUND_PCT, MIN_SAMPLES, rounds_until_quiet

    torch.cuda.init()
    torch.empty(1, device="cuda")  # the context and the first segment, outside the timings
    keep = []

    def one_round(i: int) -> dict[str, float]:
        us = []
        for _ in range(GROW_BATCH):
            t0 = time.perf_counter_ns()
            keep.append(torch.empty(GROW_BYTES, dtype=torch.uint8, device="cuda"))
            us.append((time.perf_counter_ns() - t0) / 1e3)
        return {"grow": statistics.median(us)}

    q = rounds_until_quiet(one_round, BOUND_PCT, MIN_SAMPLES, GROW_CAP_S, GROW_MAX_SAMPLES)
    expandable = "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    return {"expandable": expandable, "bytes": GROW_BYTES, "batch": GROW_BATCH, "grow_us": q["versions"]["grow"],
            "reserved": torch.cuda.memory_reserved(), "kept": len(keep)}


CASES = {"streams": case_streams, "graph_pool": case_graph_pool, "expandable": case_expandable, "grow": case_grow}


# ---- this process: start the children, check what they say -------------------------------------------------------

def run_case(name: str, env: dict[str, str] | None = None, timeout_s: float = 120) -> dict[str, Any]:
    """One case in a child process with exactly the allocator settings in `env`; returns its JSON."""
    return run_child("kernelbook.chapters.allocator.pools", [name], env, timeout_s)


def measure() -> dict[str, Any]:
    streams = run_case("streams")
    pool = run_case("graph_pool")
    expandable = run_case("expandable", EXPANDABLE)
    grow = {"default": run_case("grow"), "expandable": run_case("grow", EXPANDABLE)}
    assert not grow["default"]["expandable"] and grow["expandable"]["expandable"], "the setting did not reach a child"
    assert pool["graph_and_output"] > pool["base_reserved"], "the capture reserved nothing: no pool to follow"
    return {"streams": streams, "graph_pool": pool, "expandable": {**expandable, "page": PAGE}, "grow": grow}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CASES:
        print(f"usage: python -m kernelbook.chapters.allocator.pools {{{','.join(CASES)}}}", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        print("kernelbook.chapters.allocator.pools: no CUDA GPU visible", file=sys.stderr)
        return 3
    print(MARK + json.dumps(CASES[argv[0]](), allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
