"""torch.compile of unchanged eager code, as the fusion and speed-of-light pages time it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch


def compile_timed(fn: Callable, *args: Any) -> tuple[Callable, float]:
    """torch.compile(fn), compiled by one call on args with Inductor's caches off; (compiled fn, seconds)."""
    import torch._inductor.config as inductor_config

    compiled = torch.compile(fn)
    patch = {"force_disable_caches": True} if hasattr(inductor_config, "force_disable_caches") else {}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with inductor_config.patch(patch):
        compiled(*args)
    torch.cuda.synchronize()
    return compiled, time.perf_counter() - t0
