"""Timing helpers on the CPU: summaries, and the profiler-trace split on a real (trimmed) H200 trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelbook import timing

TRACE = Path(__file__).parent / "fixtures" / "h200_trace_add_mul.json"


def test_summary_keeps_the_spread():
    s = timing.summary([1.0, 2.0, 4.0])
    assert s["median"] == 2.0 and s["min"] == 1.0 and s["max"] == 4.0 and s["n"] == 3
    assert s["spread_pct"] == pytest.approx(150.0)


def test_split_calls_on_a_real_trace():
    """3 profiled calls of `(x + r).float() * 2 -> bf16` on the H200: 4 kernels and 4 launches each."""
    calls = timing.split_calls(json.loads(TRACE.read_text()))
    assert len(calls) == 3
    s = timing.kernel_summary(calls)
    assert s["per_call"] == 4 and s["launches"] == 4
    names = [k["name"] for k in s["kernels"]]
    assert "CUDAFunctor_add" in names[0] and "AUnaryFunctor" in names[2]
    assert s["busy_us"] == pytest.approx(sum(k["us"] for k in s["kernels"]), rel=0.05)
    assert 0 < s["busy_us"] <= s["span_us"] <= s["cpu_us"]


def test_kernels_are_charged_to_the_call_that_launched_them():
    """A kernel that runs after its call's host span ended still belongs to that call (by correlation id)."""
    tr = {"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": timing.MARK, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "user_annotation", "name": timing.MARK, "ts": 100, "dur": 10},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 5, "dur": 1, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "ts": 50, "dur": 20, "args": {"correlation": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "ts": 8, "dur": 60,
         "args": {"correlation": 2}},
    ]}
    calls = timing.split_calls(tr)
    assert [len(c["gpu"]) for c in calls] == [1, 0]
    assert [len(c["launches"]) for c in calls] == [1, 0]  # the synchronize is not a launch
