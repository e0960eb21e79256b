"""The allocator chapter's experiments: each starts its demos in fresh processes and adds the model's predictions.

This process never touches the allocator itself: settings such as expandable segments are fixed when a
process first allocates, so each configuration runs in its own child (kernelbook.chapters.allocator.demos).
"""

from __future__ import annotations

import json
from typing import Any

from kernelbook.chapters.allocator import parse, scripts
from kernelbook.chapters.allocator.child import run_child
from kernelbook.chapters.allocator.scripts import vllm_capture_sizes


def run_demo(name: str, env: dict[str, str] | None = None, cfg: dict[str, Any] | None = None,
             timeout_s: float = 120) -> dict[str, Any]:
    """Run one demo in a child process with exactly the allocator settings in `env`; returns its JSON."""
    return run_child("kernelbook.chapters.allocator.demos", [name, json.dumps(cfg or {})], env, timeout_s)


def measure_caching() -> dict[str, Any]:
    """µs per torch.empty and per free, with the cache and with PYTORCH_NO_CUDA_MEMORY_CACHING=1."""
    cached = run_demo("caching")
    uncached = run_demo("caching", {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
    assert not cached["uncached"] and uncached["uncached"], "the no-caching setting did not reach the child"
    assert cached["reserved_after_warmup"] > 0, "caching run: nothing stayed cached after the warm-up"
    return {"cached": cached, "uncached": uncached}


def measure_segments() -> dict[str, Any]:
    """Allocated, reserved and segments for single requests and short sequences, measured and predicted."""
    measured = run_demo("segments")["cases"]
    predicted = scripts.predict_cases()
    cases = []
    for label, nbytes, _ in scripts.CASES:
        m, p = measured[label], predicted[label]
        assert [c["label"] for c in m] == [c["label"] for c in p], f"case {label}: checkpoints differ"
        cases.append({"label": label, "bytes": nbytes, "measured": m, "predicted": p,
                      "match": [parse.compare(a, b) for a, b in zip(m, p, strict=True)]})
    return {"cases": cases}


def _fragmentation_run(expandable: bool) -> dict[str, Any]:
    env = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"} if expandable else {}
    measured = run_demo("fragmentation", env)
    predicted = scripts.predict_fragmentation(cap=measured["cap_bytes"], expandable=expandable)
    pc = predicted["checkpoints"]
    assert [c["label"] for c in measured["checkpoints"]] == [c["label"] for c in pc], "checkpoints differ"
    match = [parse.compare(a, b) for a, b in zip(measured["checkpoints"], pc, strict=True)]
    for m, p, ok in zip(measured["checkpoints"], pc, match, strict=True):
        ok["oom"] = (m["error"] is None) == (p["error"] is None)
    return {**measured, "predicted": pc, "predicted_events": predicted["events"], "match": match}


def measure_fragmentation() -> dict[str, Any]:
    """The 2 GiB fragmentation script with the default allocator and with expandable segments."""
    default = _fragmentation_run(False)
    expandable = _fragmentation_run(True)
    return {"default": default, "expandable": expandable}


def measure_graph_pools() -> dict[str, Any]:
    """Memory reserved by CUDA graphs of a small bf16 MLP, one private pool per batch size or one shared."""
    sizes = vllm_capture_sizes(512)
    data = run_demo("graph_pools", cfg={"hidden": 1536, "inter": 8960, "layers": 2, "max_size": 512},
                    timeout_s=240)
    return {**data, "vllm_sizes": sizes, "vllm_count": len(sizes)}
