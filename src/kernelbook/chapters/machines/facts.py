"""The facts of docs/machines.md: what carries over from the primary GPU to the book's other measured GPU.

Every figure comes from kernelbook.chapters.machines.carry, which reads the other chapters' facts (each the median
over its machine's runs), their guards and the claims ledger on both machines. Where the book has no second measured
GPU, the fields that compare are None and each paragraph that states them gives way to one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernelbook import paths, read, store

from . import carry

ONE_RULE = False
RULE = "from each chapter's facts on both GPUs, each the median over that GPU's runs of the current code"
NEAR_FLOOR = 0.9  # an item "nearly all bytes": at this share of its bandwidth floor or more, on the primary
WITH_COPY = 0.1  # ... "as much longer as the copy": within this fraction of the copy's ratio
FORMATS = {"copy_ratio": "times:2", "datasheet_ratio": "times:2", "bytes_low": "times:2", "bytes_high": "times:2",
           "flat_low": "times:2", "flat_high": "times:2", "six_ratio": "times:2", "hand_ratio": "times:2",
           "hand_share": "pct", "near_floor": "pct"}


@dataclass(frozen=True)
class Facts:
    primary: str  # "H200"
    other: str | None  # "H100 80GB HBM3"; None without a second measured GPU
    others_n: int
    near_floor: float
    copy_ratio: float | None  # the other GPU's copy time over the primary's
    datasheet_ratio: float | None  # the same by the vendors' datasheet bandwidths
    bytes_n: int  # items at NEAR_FLOOR of their floor or more
    bytes_low: float | None  # ... their time ratios, the lowest and highest
    bytes_high: float | None
    flat_n: int  # items that move no bytes worth counting: launches, host work, compiling
    flat_low: float | None
    flat_high: float | None
    six_ratio: float | None  # the decode chapter's best step (mostly launches and waits)
    hand_ratio: float | None  # the fastest hand-built step
    hand_share: float | None  # ... its share of the bandwidth floor on the primary
    findings_n: int  # statements the chapters make of the primary's data (their guards)
    findings_both: int  # ... that hold on the other GPU too
    findings_differ: int  # ... that its data contradicts
    findings_unmeasured: int  # ... that rest on what it did not measure (a second run, mostly)
    rows_n: int  # claims ledger rows
    rows_differ: int  # ... whose verdicts differ between the two GPUs


def facts(machine: str | None = None) -> Facts:
    primary = paths.pyproject_primary()
    others = carry.measured()
    label = store.machine_label
    if not others:
        return Facts(label(primary), None, 0, NEAR_FLOOR, None, None, 0, None, None, 0, None, None, None, None, None,
                     0, 0, 0, 0, 0, 0)
    other = others[0]
    for m in (primary, other):
        read.result("machine.ceilings", m)  # read: the page's stale warning and footer name both machines' runs
    items = carry.timed(primary, other)
    near = [t.ratio for t in items if t.share >= NEAR_FLOOR]
    flat = [t.ratio for t in items if t.kind in ("launch", "host", "compile")]
    by = {t.label: t for t in items}
    found = carry.findings([primary, other])
    differ, by_row = carry.ledger([primary, other])
    six, hand = by.get("decode step, six ways' best"), by.get("decode step, fastest hand-built")
    return Facts(
        primary=label(primary), other=label(other), others_n=len(others), near_floor=NEAR_FLOOR,
        copy_ratio=carry.copy_ratio(primary, other), datasheet_ratio=carry.datasheet_ratio(primary, other),
        bytes_n=len(near), bytes_low=min(near, default=None), bytes_high=max(near, default=None),
        flat_n=len(flat), flat_low=min(flat, default=None), flat_high=max(flat, default=None),
        six_ratio=six.ratio if six else None, hand_ratio=hand.ratio if hand else None,
        hand_share=hand.share if hand else None,
        findings_n=len(found), findings_both=sum(all(x.holds) for x in found),
        findings_differ=sum(not x.holds[1] and not x.absent[1] for x in found),
        findings_unmeasured=sum(not x.holds[1] and x.absent[1] for x in found),
        rows_n=len(by_row), rows_differ=len(differ))
