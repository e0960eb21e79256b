"""machine.ceilings: the ceilings every other page divides by, measured rather than read off a datasheet.

- copy: a device-to-device copy of a 2 GiB tensor, counting bytes read plus bytes written
- read: a sum over 2 GiB (reads only); write: a fill of 2 GiB (writes only)
- matmul: an 8192 x 8192 x 8192 bf16 product on random data, 2*M*N*K FLOP
- launch: 1,000 tiny `add_` kernels launched one by one, against the same 1,000 replayed from one CUDA graph

Every figure is sampled until quiet (bench.py: nvbench's noise criterion), or its cap.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from kernelbook.bench import bench, until_quiet
from kernelbook.copy_ceiling import GIB, copy_bandwidth, gbps

BW_BYTES = 2 * GIB  # several times the 60 MB L2, so every pass goes to HBM
MATMUL_N = 8192
LAUNCHES = 1000


# --8<-- [start:bandwidth]
def bandwidth() -> dict[str, Any]:
    copy = copy_bandwidth(BW_BYTES)  # the shared copy ceiling (copy_ceiling.py)
    src = torch.randn(BW_BYTES // 4, device="cuda")
    read = bench(lambda: src.sum())  # the 4-byte result is noise next to 2 GiB read
    total, ref = src.sum().double(), src.double().sum()
    assert abs(total - ref) <= 1e-3 * src.double().abs().sum(), "sum is wrong"
    dst = torch.full_like(src, float("nan"))
    write = bench(lambda: dst.fill_(1.5))
    assert bool((dst == 1.5).all()), "fill missed elements"
    return {
        "bytes": BW_BYTES,
        "copy": copy,
        "read": {**read, "bytes_moved": BW_BYTES, "gbps": gbps(BW_BYTES, read)},
        "write": {**write, "bytes_moved": BW_BYTES, "gbps": gbps(BW_BYTES, write)},
    }
# --8<-- [end:bandwidth]


def matmul() -> dict[str, Any]:
    n = MATMUL_N
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    t = bench(lambda: torch.mm(a, b, out=c))
    rows = torch.randint(0, n, (64,), device="cuda")  # spot-check 64 random rows against an fp64 reference
    ref = a[rows].double() @ b.double()
    rel = ((c[rows].double() - ref).norm() / ref.norm()).item()
    assert rel < 1e-2, f"bf16 matmul relative error {rel}"
    flop = 2 * n**3
    return {**t, "rounds": t["n"], "n": n, "flop": flop, "tflops": flop / (t["median"] * 1e-3) / 1e12,
            "rel_error": rel}  # "n" is the matrix size here; the timing summary's count of rounds is "rounds"


# --8<-- [start:launch]
def event_sample(fn) -> float:  # noqa: ANN001
    """One call of fn between a pair of CUDA events, in ms."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def launch_cost(launches: int = LAUNCHES) -> dict[str, Any]:
    """Eager: each add_ is its own launch from Python. Graph: the same adds captured once, replayed in one call.
    Each figure is sampled until quiet (bench.py); the counter proves every launch ran."""
    x = torch.zeros(1, device="cuda")
    calls = 0

    def eager() -> None:
        nonlocal calls
        calls += 1
        for _ in range(launches):
            x.add_(1)

    def enqueue_us() -> float:  # how long Python takes to enqueue the launches (the GPU runs them later)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        eager()
        return (time.perf_counter() - t0) * 1e6 / launches

    eager()
    torch.cuda.synchronize()
    host = until_quiet(enqueue_us)
    eager_ms = until_quiet(lambda: event_sample(eager))

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        eager()  # warm up on a side stream before capture, as the CUDA graphs notes advise
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        eager()  # captured, not run: the graph's replays run it
    replays = 0

    def replay() -> None:
        nonlocal replays
        replays += 1
        g.replay()

    graph_ms = until_quiet(lambda: event_sample(replay))
    torch.cuda.synchronize()
    runs = calls - 1 + replays  # every eager() call but the captured one, and every replay, added `launches`
    assert x.item() == runs * launches, f"counter {x.item()} != {runs * launches}: some launches did not run"
    return {
        "launches": launches, "eager_ms": eager_ms, "graph_ms": graph_ms, "host_enqueue_us": host,
        "eager_us_per_launch": eager_ms["median"] * 1e3 / launches,
        "graph_us_per_launch": graph_ms["median"] * 1e3 / launches,
        "speedup": eager_ms["median"] / graph_ms["median"],
    }
# --8<-- [end:launch]


def measure() -> dict[str, Any]:
    bw = bandwidth()
    mm = matmul()
    launch = launch_cost()
    ridge = mm["tflops"] * 1e12 / (bw["copy"]["gbps"] * 1e9)
    return {"bandwidth": bw, "matmul": mm, "launch": launch, "ridge_flop_per_byte": ridge}
