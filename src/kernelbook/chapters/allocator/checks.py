"""The allocator's stated rules, each checked against a stored allocator.segments result.

Read-only over results (it measures nothing), so the allocator page and the claims ledger give the same verdicts.
"""

from __future__ import annotations

from typing import Any

from kernelbook.chapters.allocator.model import MiB, allocation_size, round_size


def rule_checks(data: dict[str, Any]) -> list[tuple[str, bool]]:
    """[(rule as CUDACachingAllocator.cpp states it, whether the measured segments obey it)]."""
    cases = {c["label"]: c for c in data["cases"]}
    single = [c for c in data["cases"] if c["bytes"] is not None and len(c["measured"]) == 1]

    def seg(c: dict, i: int = 0) -> list[dict]:
        return c["measured"][i]["segments"]

    checks = [
        ("a request rounds up to a multiple of 512 bytes",
         all(c["measured"][0]["allocated"] == round_size(c["bytes"]) for c in single)),
        ("up to 1 MiB: small pool, 2 MiB segments",
         all([(s["pool"], s["size"]) for s in seg(c)] == [("small", 2 * MiB)] for c in single if c["bytes"] <= MiB)),
        ("small requests share a segment until it is full",
         [len(c["segments"]) for c in cases["400 KiB each"]["measured"]] == [1, 2]),
        ("over 1 MiB and under 10 MiB: a 20 MiB segment, split",
         all([(s["pool"], s["size"]) for s in seg(c)] == [("large", 20 * MiB)] and len(seg(c)[0]["blocks"]) == 2
             for c in single if MiB < c["bytes"] < 10 * MiB)),
        ("such requests share a 20 MiB segment until it is full",
         [len(c["segments"]) for c in cases["6 MiB each"]["measured"]] == [1, 2]),
        ("from 10 MiB: a segment of its own, rounded up to 2 MiB",
         all([s["size"] for s in seg(c)] == [allocation_size(round_size(c["bytes"]))]
             for c in single if c["bytes"] >= 10 * MiB)),
        ("a cached free block serves a smaller request by splitting",
         cases["100 MiB, then 60 MiB"]["measured"][1]["reserved"] == 100 * MiB
         and len(seg(cases["100 MiB, then 60 MiB"], 1)[0]["blocks"]) == 2),
        ("empty_cache releases only segments with nothing alive",
         [c["reserved"] for c in cases["100 MiB, then 60 MiB"]["measured"][2:]] == [100 * MiB, 0]),
    ]
    return checks
