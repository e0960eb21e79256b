"""Reading memory_summary() text, the out-of-memory message and memory snapshots, on stored and synthetic examples."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from unittest import mock

import torch
from conftest import run_file

from kernelbook.chapters.allocator import parse
from kernelbook.chapters.allocator.model import MiB

FIXTURE = run_file(Path(__file__).parent / "fixtures" / "results", "allocator.fragmentation")
MESSAGE = ("CUDA out of memory. Tried to allocate 200.00 MiB. GPU 0 has a total capacity of 139.81 GiB of which "
           "137.20 GiB is free. Including non-PyTorch memory, this process has 2.42 GiB memory in use. 2.00 GiB "
           "allowed; Of the allocated memory 1024.00 MiB is allocated by PyTorch, and 896.00 MiB is reserved by "
           "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")


def _summary_from(values: dict[str, int]) -> str:
    """The installed torch's own memory_summary() over a made-up stats dict (no GPU needed)."""
    stats: dict[str, int] = collections.defaultdict(int)
    for metric in ("allocated_bytes", "active_bytes", "requested_bytes", "reserved_bytes", "inactive_split_bytes",
                   "allocation", "active", "segment", "inactive_split", "oversize_allocations", "oversize_segments"):
        for sub in ("all.", "large_pool.", "small_pool.", ""):
            for field in ("current", "peak", "allocated", "freed"):
                stats[f"{metric}.{sub}{field}"] = values.get(f"{metric}.{sub}{field}", 0)
    stats.update(num_ooms=values.get("num_ooms", 0), num_alloc_retries=values.get("num_alloc_retries", 0))
    with mock.patch("torch.cuda.memory.memory_stats", return_value=dict(stats)):
        return torch.cuda.memory.memory_summary(device=0)


def test_parse_summary_of_the_installed_torch():
    text = _summary_from({"inactive_split_bytes.all.current": 896 * MiB, "reserved_bytes.all.current": 1920 * MiB,
                          "allocated_bytes.all.current": 1024 * MiB, "segment.all.current": 16, "num_ooms": 1,
                          "num_alloc_retries": 1, "reserved_bytes.all.freed": 2 * MiB})
    s = parse.parse_summary(text)
    assert s["ooms"] == 1 and s["retries"] == 1
    assert s["rows"]["Non-releasable memory"]["cur"] == 896 * MiB
    assert s["rows"]["GPU reserved memory"]["cur"] == 1920 * MiB
    assert s["rows"]["GPU reserved memory"]["freed"] == 2 * MiB  # printed as 2048 KiB
    assert s["rows"]["Allocated memory"]["cur"] == 1024 * MiB
    assert s["rows"]["GPU reserved segments"]["cur"] == 16


def test_parse_summary_of_the_stored_example():
    rec = json.loads(FIXTURE.read_text())
    err = next(c["error"] for c in rec["data"]["default"]["checkpoints"] if c["error"])
    assert parse.parse_summary(err["summary"])["rows"]["Non-releasable memory"]["cur"] == 896 * MiB


def test_parse_oom_message():
    p = parse.parse_oom(MESSAGE)
    assert p["tried"] == 200 * MiB and p["allowed"] == 2 << 30
    assert p["allocated"] == 1024 * MiB and p["unallocated"] == 896 * MiB
    assert p["suggests_expandable"]
    assert parse.parse_oom("something else")["tried"] is None


def _snapshot() -> dict:
    base = 0x7F0000000000
    trace = [
        {"action": "segment_alloc", "addr": base, "size": 2 * MiB, "stream": 0, "time_us": 1, "frames": []},
        {"action": "alloc", "addr": base, "size": 4, "stream": 0, "time_us": 2, "frames": []},
        {"action": "free_requested", "addr": base, "size": 4, "stream": 0},
        {"action": "free_completed", "addr": base, "size": 4, "stream": 0},
        {"action": "segment_alloc", "addr": base + 4 * MiB, "size": 120 * MiB, "stream": 0},
        {"action": "alloc", "addr": base + 4 * MiB, "size": 120 * MiB, "stream": 0},
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0},
        {"action": "segment_free", "addr": base, "size": 2 * MiB, "stream": 0},
        {"action": "oom", "size": 200 * MiB, "device_free": 10, "stream": 0},  # no addr, as documented
    ]
    segments = [{"address": base + 4 * MiB, "total_size": 120 * MiB, "segment_type": "large",
                 "blocks": [{"size": 64 * MiB, "state": "active_allocated"}, {"size": 56 * MiB, "state": "inactive"}]},
                {"address": base, "total_size": 2 * MiB, "segment_type": "small", "is_expandable": False,
                 "blocks": [{"size": 2 * MiB, "state": "inactive"}]}]
    return {"segments": segments, "device_traces": [[], trace]}


def test_trim_trace_keeps_actions_sizes_and_segments():
    events = parse.trim_trace(_snapshot())
    assert [e["action"] for e in events] == ["segment_alloc", "alloc", "free_completed", "segment_alloc", "alloc",
                                             "segment_free", "oom"]
    assert [e["segment"] for e in events] == [0, 0, 0, 1, 1, 0, None]
    assert all(set(e) == {"i", "action", "size", "segment"} for e in events)


def test_timeline_counts_allocated_and_reserved():
    curves = parse.timeline(parse.trim_trace(_snapshot()))
    assert curves["allocated"] == [0, 512, 0, 0, 120 * MiB, 120 * MiB, 120 * MiB]
    assert curves["reserved"] == [2 * MiB, 2 * MiB, 2 * MiB, 122 * MiB, 122 * MiB, 120 * MiB, 120 * MiB]


def test_trim_trace_tolerates_missing_keys():
    assert parse.trim_trace({}) == []
    assert parse.trim_trace({"device_traces": [[{"action": "alloc"}]]}) == [
        {"i": 0, "action": "alloc", "size": 0, "segment": None}]


def test_snapshot_segments_and_layout_comparison():
    segs = parse.snapshot_segments(_snapshot()["segments"])
    assert [s["pool"] for s in segs] == ["small", "large"]  # sorted by address
    assert segs[1]["blocks"] == [[64 * MiB, "alloc"], [56 * MiB, "free"]]
    assert parse.same_layout(segs, list(reversed(segs)))
    assert not parse.same_layout(segs, segs[:1])


def test_human_sizes():
    assert [parse.human(n) for n in (4, 3072, MiB + 512, 2 * MiB - 512, 100 * MiB)] == [
        "4 B", "3 KiB", "1 MiB + 512 B", "2 MiB − 512 B", "100 MiB"]
