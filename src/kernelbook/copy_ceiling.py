"""The copy ceiling: how fast this GPU moves bytes through its memory, measured in the run that needs it.

Every page that holds a kernel to the memory's speed divides by a device-to-device copy measured in the same
process, not by a datasheet figure: the machine chapter shows it, the fusion chapters and the speed-of-light page
take their shares of it.
"""

from __future__ import annotations

from typing import Any

import torch

from kernelbook.timing import do_bench_rounds

GIB = 1 << 30


def gbps(nbytes: int, t: dict[str, Any]) -> float:
    """Bytes moved over a timing summary's median (ms), in GB/s."""
    return nbytes / (t["median"] * 1e-3) / 1e9


# --8<-- [start:copy]
def copy_bandwidth(nbytes: int = 2 * GIB, rounds: int = 3) -> dict[str, Any]:
    """A device-to-device copy of `nbytes`: reads nbytes and writes nbytes, far beyond the L2 at a GiB or more."""
    src = torch.randn(nbytes // 4, device="cuda")  # fp32, random: never time zeros
    dst = torch.full_like(src, float("nan"))  # poisoned: the copy must overwrite every element
    t = do_bench_rounds(lambda: dst.copy_(src), rounds=rounds)
    assert torch.equal(dst, src), "copy did not reproduce its source"
    return {**t, "bytes_moved": 2 * nbytes, "gbps": gbps(2 * nbytes, t)}
# --8<-- [end:copy]
