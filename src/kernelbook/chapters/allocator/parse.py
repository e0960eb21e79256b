"""Reading what the allocator reports: memory_summary() text, the out-of-memory message, memory snapshots.

Pure Python, so the CPU tests check it on stored examples. Snapshot fields follow torch.cuda.memory._snapshot's
documented format ({"segments": [...], "device_traces": [[{"action", "addr", "size", ...}]]}); every field is read
with a default because the format grows from release to release.
"""

from __future__ import annotations

import re
from typing import Any

from kernelbook.chapters.allocator.model import round_size

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "bytes": 1}
# actions that change reserved memory, and by which sign
RESERVE_SIGN = {"segment_alloc": 1, "segment_map": 1, "segment_free": -1, "segment_unmap": -1}
KEPT_ACTIONS = ("alloc", "free_completed", "segment_alloc", "segment_free", "segment_map", "segment_unmap", "oom")


def parse_summary(text: str) -> dict[str, Any]:
    """memory_summary() -> {"ooms", "retries", "rows": {metric: {"cur", "peak", "alloc", "freed"}}}.

    Byte rows come back in bytes; the summary floors each figure to a whole unit, so they are exact only
    when the value is a whole number of that unit (896 MiB is, 896.5 MiB would read 896 MiB)."""
    head = re.search(r"CUDA OOMs:\s*(\d+)\s*\|\s*cudaMalloc retries:\s*(\d+)", text)
    rows: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("Metric", "") or cells[0].startswith("from "):
            continue
        vals = []
        for c in cells[1:]:
            m = re.fullmatch(r"(\d+)\s*(B|KiB|MiB|GiB|TiB|K|M)?", c)
            if not m:
                break
            n, unit = int(m.group(1)), m.group(2)
            vals.append(n * UNITS[unit] if unit in UNITS else n * {"K": 1000, "M": 10**6}.get(unit or "", 1))
        if len(vals) == 4:
            rows[cells[0]] = dict(zip(("cur", "peak", "alloc", "freed"), vals, strict=True))
    return {"ooms": int(head.group(1)) if head else None, "retries": int(head.group(2)) if head else None,
            "rows": rows}


def _size(text: str) -> int:
    n, unit = text.split()
    return round(float(n) * UNITS[unit])


def parse_oom(message: str) -> dict[str, Any]:
    """The figures in PyTorch's out-of-memory message, in bytes (rounded as printed, to 0.01 of a unit)."""
    size = r"([\d.]+ (?:bytes|KiB|MiB|GiB))"
    out: dict[str, Any] = {}
    for key, pat in (("tried", rf"Tried to allocate {size}"), ("total", rf"total capacity of {size}"),
                     ("device_free", rf"of which {size} is free"), ("allowed", rf"{size} allowed;"),
                     ("allocated", rf"Of the allocated memory {size} is allocated by PyTorch"),
                     ("unallocated", rf"and {size} is reserved by PyTorch but unallocated")):
        m = re.search(pat, message)
        out[key] = _size(m.group(1)) if m else None
    out["suggests_expandable"] = "expandable_segments:True" in message
    return out


def device_trace(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The first non-empty device's trace entries (the demos use device 0)."""
    for trace in snapshot.get("device_traces") or []:
        if trace:
            return list(trace)
    return []


def trim_trace(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a timeline needs: [{"i", "action", "size", "segment"}], no stacks, no addresses.

    "segment" numbers the address ranges that segment_alloc / segment_map events created, in order; an event
    inside none of them (or an oom, which has no address) gets None."""
    ranges: list[tuple[int, int]] = []
    events = []
    for i, e in enumerate(device_trace(snapshot)):
        action = e.get("action")
        if action not in KEPT_ACTIONS:
            continue
        addr, size = int(e.get("addr", 0) or 0), int(e.get("size", 0) or 0)
        if action in ("segment_alloc", "segment_map"):
            ranges.append((addr, addr + size))
        seg = next((k for k, (lo, hi) in enumerate(ranges) if lo <= addr < hi), None) if action != "oom" else None
        events.append({"i": i, "action": action, "size": size, "segment": seg})
    return events


def timeline(events: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Allocated and reserved bytes after each event. An alloc counts its request rounded to 512 B, which is
    the block's size whenever the block was split or fits exactly (true of every request in the demos)."""
    allocated = reserved = 0
    out: dict[str, list[int]] = {"allocated": [], "reserved": []}
    for e in events:
        a = e["action"]
        if a == "alloc":
            allocated += round_size(e["size"])
        elif a == "free_completed":
            allocated -= round_size(e["size"])
        reserved += RESERVE_SIGN.get(a, 0) * e["size"]
        out["allocated"].append(allocated)
        out["reserved"].append(reserved)
    return out


def snapshot_segments(segments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """memory_snapshot() segments -> the compact form the model produces, sorted by address."""
    out = []
    for s in sorted(segments, key=lambda s: s.get("address", 0)):
        blocks = [[int(b.get("size", 0)), "alloc" if b.get("state") == "active_allocated" else "free"]
                  for b in s.get("blocks", [])]
        out.append({"pool": s.get("segment_type", "large"), "size": int(s.get("total_size", 0)),
                    "expandable": bool(s.get("is_expandable", False)), "blocks": blocks})
    return out


def same_layout(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """Segments equal as a multiset (cudaMalloc addresses differ from the model's, so the order may too)."""
    def key(s: dict[str, Any]) -> tuple:
        return (s["pool"], s["size"], bool(s.get("expandable")), tuple(map(tuple, s["blocks"])))
    return sorted(map(key, a)) == sorted(map(key, b))


def compare(measured: dict[str, Any], predicted: dict[str, Any]) -> dict[str, bool]:
    """Per-figure agreement between a measured and a predicted checkpoint."""
    return {"allocated": measured["allocated"] == predicted["allocated"],
            "reserved": measured["reserved"] == predicted["reserved"],
            "inactive_split": measured["inactive_split"] == predicted["inactive_split"],
            "segments": same_layout(measured["segments"], predicted["segments"])}


def human(nbytes: int) -> str:
    """1048576 -> '1 MiB', 1049088 -> '1 MiB + 512 B', 3072 -> '3 KiB', 4 -> '4 B': exact, for tables."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            whole, rest = divmod(nbytes, scale)
            if rest == 0:
                return f"{whole:,} {unit}"
            if unit != "KiB" and rest % 1024 == 0 and rest < scale // 8:
                return f"{whole:,} {unit} + {human(rest)}"
            if rest < 1024:
                return f"{whole:,} {unit} + {rest} B"
            if scale - rest < scale // 8 and (scale - rest) % 512 == 0:
                return f"{whole + 1:,} {unit} − {human(scale - rest)}"
            return f"{nbytes / scale:,.2f} {unit}"
    return f"{nbytes:,} B"


def describe(segments: list[dict[str, Any]]) -> str:
    """'large 20 MiB: 5 MiB used, 15 MiB free' per segment, joined; identical segments counted once."""
    parts: list[str] = []
    for s in segments:
        used = [b[0] for b in s["blocks"] if b[1] == "alloc"]
        free = [b[0] for b in s["blocks"] if b[1] != "alloc"]
        inside = ", ".join(x for x in (
            f"{human(sum(used))} used" + (f" in {len(used)} blocks" if len(used) > 1 else "") if used else "",
            f"{human(sum(free))} free" if free else "") if x)
        parts.append(f"{s['pool']} {human(s['size'])}: {inside}")
    out: list[str] = []
    for p in dict.fromkeys(parts):
        n = parts.count(p)
        out.append(f"{n} × {p}" if n > 1 else p)
    return "; ".join(out) or "none"
