"""What carries over from the primary GPU to another measured one, read from what the book already holds.

- **Findings**: every guard a chapter declares (a statement some page makes of the primary's data), judged on each
  machine: it holds on both, or it differs (with what the other machine measured, in the guard's own words).
- **Ledger rows**: the claims ledger's verdict of each row on each machine (claims.ledger.verdicts_by_row).
- **Timed items**: one figure per item that both machines timed, from its chapter's facts: the other machine's time
  over the primary's, beside the share of the bandwidth floor the item reaches on the primary (its bytes at the
  copy's bandwidth over its time; 0 for what moves no bytes worth counting: launches, host work, compiling). An item
  that is all bytes should take as much longer as the copy does; one that moves none should not.

The machines compared are the book's own (pyproject's also-measured), each with a fresh run of every experiment; a
reader's folder is shown in its own column on the claims and machines tables, and compared nowhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernelbook import factbook, guards, paths, store
from kernelbook.registry import EXPERIMENTS

# The vendors' datasheet memory bandwidths, TB/s (NVIDIA H200 and H100 SXM product briefs): the line a reader would
# draw before measuring. The measured ratio is the copy's, from machine.ceilings on each GPU.
DATASHEET_TBPS = {"nvidia-h200": 4.8, "nvidia-h100-80gb-hbm3": 3.35}
PAGES = {"claims": "claims.md"}  # a chapter whose guards a page of another name makes (index and takeaways too)


def measured() -> list[str]:
    """The book's other GPUs (pyproject's also-measured) that hold a fresh run of every experiment, none of them
    published; a reader's folder is a column of the machines table, never compared here."""
    primary = paths.pyproject_primary()
    out = []
    for m in paths.book_machines():
        if m == primary or m not in store.machine_folders():
            continue
        try:
            res = [store.load(e.name, m) for e in EXPERIMENTS]
        except (FileNotFoundError, store.StoreError):
            continue
        if all(not r.stale and not r.published for r in res):
            out.append(m)
    return out


# ---- findings: each guard on each machine -------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    chapter: str
    name: str  # the guard's name in its chapter
    says: str  # the statement, in a reader's words
    page: str  # docs/<page> that makes it
    holds: tuple[bool, ...]  # on each machine, the primary first
    found: tuple[str, ...]  # where it does not hold: what that machine measured instead ('' where it holds)
    absent: tuple[bool, ...] = ()  # where it does not hold because that machine did not measure it (one run, say)


def chapters() -> list[str]:
    root = paths.root() / "src" / "kernelbook" / "chapters"
    return sorted(p.parent.name for p in root.glob("*/facts.py") if p.parent.name != "machines")


def findings(machines: list[str]) -> list[Finding]:
    """Every guard of every chapter, judged on each machine (the first is the primary)."""
    out = []
    for chapter in chapters():
        for name in guards.declared(chapter):
            outs = [guards.evaluate(name, chapter, m) for m in machines]
            out.append(Finding(chapter, name, outs[0].says, PAGES.get(chapter, chapter.replace("_", "-") + ".md"),
                               tuple(o.holds for o in outs), tuple("" if o.holds else o.in_words() for o in outs),
                               tuple(bool(o.absent) for o in outs)))
    return out


# ---- timed items: the other machine's time over the primary's, against the floor share ----------------------------

@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # "bytes", "step" (a whole decode step), "compute"; "launch", "host", "compile": no bytes worth counting
    chapter: str
    time: Callable[[Any], float]  # the item's time on one machine, from its chapter's facts (any unit)
    share: Callable[[Any], float]  # the share of the bandwidth floor it reaches (on the primary)


def _inv(field: str) -> Callable[[Any], float]:
    """A rate as a time: 1 / rate (the ratio of two such is the ratio of times for the same work)."""
    return lambda f: 1.0 / getattr(f, field)


def _get(field: str) -> Callable[[Any], float]:
    return lambda f: getattr(f, field)


def NONE(f: Any) -> float:  # noqa: N802 - reads as the constant it is: moves no bytes worth counting
    return 0.0

ITEMS = (
    Item("2 GiB device copy", "bytes", "machine", _inv("copy_gbps"), lambda f: 1.0),
    Item("2 GiB read-only pass", "bytes", "machine", _inv("read_gbps"), lambda f: f.read_gbps / f.copy_gbps),
    Item("LM head matvec, tuned alone", "bytes", "decode_far", _inv("lm_head_gbps"), _get("lm_head_copy_share")),
    Item("a layer's MLP calls", "bytes", "decode_far", _get("mlp_us"), _get("mlp_share")),
    Item("a layer's attention half", "bytes", "decode_far", _get("chain_us"), _get("chain_share")),
    Item("add + RMSNorm, Triton", "bytes", "fusing_by_hand", _get("norm_triton_ms"), _get("norm_triton_share")),
    Item("add + RMSNorm, eager", "bytes", "fusing_by_hand", _get("norm_eager_ms"), _get("norm_eager_share")),
    Item("decode step, plain CUDA graph", "step", "decode_far", _get("base_ms"), lambda f: f.floor_ms / f.base_ms),
    Item("decode step, fastest hand-built", "step", "decode_far", _get("best_ms"), _get("best_floor_share")),
    Item("decode step, six ways' best", "step", "decode", _get("best_ms"), _get("best_floor_share")),
    Item("bf16 matmul 8192³", "compute", "machine", _inv("matmul_tflops"),
         lambda f: (3 * f.matmul_n ** 2 * 2 / (f.copy_gbps * 1e9)) / (2 * f.matmul_n ** 3 / (f.matmul_tflops * 1e12))),
    Item("eager launch", "launch", "machine", _get("eager_us"), NONE),
    Item("CUDA graph replay, per kernel", "launch", "machine", _get("graph_us"), NONE),
    Item("host enqueue of a launch", "host", "machine", _get("host_us"), NONE),
    Item("host work of a greedy step", "host", "decode_far", _get("greedy_host_us"), NONE),
    Item("compile add + RMSNorm", "compile", "fusing_by_hand", _get("compile_norm_s"), NONE),
    Item("cold compile, decode step (default)", "compile", "torch_compile", _get("decode_default_cold_s"), NONE),
    Item("warm compile, decode step (default)", "compile", "torch_compile", _get("decode_default_warm_s"), NONE),
    Item("cold compile, MLP", "compile", "torch_compile", _get("mlp_cold_s"), NONE),
)


@dataclass(frozen=True)
class Timed:
    label: str
    kind: str
    share: float  # of the bandwidth floor, on the primary
    ratio: float  # the other machine's time over the primary's


def timed(primary: str, other: str) -> list[Timed]:
    """Each item both machines timed (an item a machine lacks is left out)."""
    out = []
    for it in ITEMS:
        try:
            p, o = factbook.book(it.chapter, primary).facts, factbook.book(it.chapter, other).facts
            ratio, share = it.time(o) / it.time(p), it.share(p)
        except (TypeError, ZeroDivisionError, AttributeError):
            continue
        out.append(Timed(it.label, it.kind, share, ratio))
    return out


def copy_ratio(primary: str, other: str) -> float:
    """The other machine's copy time over the primary's (the primary's bandwidth over the other's)."""
    return factbook.book("machine", primary).facts.copy_gbps / factbook.book("machine", other).facts.copy_gbps


def datasheet_ratio(primary: str, other: str) -> float | None:
    if primary in DATASHEET_TBPS and other in DATASHEET_TBPS:
        return DATASHEET_TBPS[primary] / DATASHEET_TBPS[other]
    return None


def ledger(machines: list[str]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The ledger rows whose verdicts differ between the machines, and every row's verdicts."""
    claims = importlib.import_module("kernelbook.chapters.claims.ledger")
    by_row = claims.verdicts_by_row(machines)
    return claims.differing(by_row), by_row
