"""The copy ceiling: how fast this GPU moves bytes through its memory, measured in the run that needs it.

Every page that holds a kernel to the memory's speed divides by a device-to-device copy measured in the same
process, not by a datasheet figure: the machine chapter shows it, the fusion chapters and the speed-of-light page
take their shares of it. It is sampled until quiet (bench.py): do_bench medians of REP_MS each, at least
bench.MIN_SAMPLES of them, until their noise is at most bench.BOUND_PCT or the cap.
"""

from __future__ import annotations

from typing import Any

import torch

from kernelbook.bench import bench

GIB = 1 << 30
REP_MS = 50  # one sample: do_bench's median over ~50 ms of copies (a 2 GiB copy takes about 1 ms)


def gbps(nbytes: int, t: dict[str, Any]) -> float:
    """Bytes moved over a timing summary's median (ms), in GB/s."""
    return nbytes / (t["median"] * 1e-3) / 1e9


# --8<-- [start:copy]
def copy_bandwidth(nbytes: int = 2 * GIB) -> dict[str, Any]:
    """A device-to-device copy of `nbytes`: reads nbytes and writes nbytes, far beyond the L2 at a GiB or more.
    Returns bench's summary of the ms per copy (median, samples, noise, quiet), the bytes moved and the GB/s."""
    src = torch.randn(nbytes // 4, device="cuda")  # fp32, random: never time zeros
    dst = torch.full_like(src, float("nan"))  # poisoned: the copy must overwrite every element
    t = bench(lambda: dst.copy_(src), rep_ms=REP_MS)
    assert torch.equal(dst, src), "copy did not reproduce its source"
    return {**t, "bytes_moved": 2 * nbytes, "gbps": gbps(2 * nbytes, t)}
# --8<-- [end:copy]
