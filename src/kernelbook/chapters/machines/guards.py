"""What the machines page's sentences rest on: each guard's condition on the facts (kernelbook.guards), with the words
it states and what the page would say were it false."""

from __future__ import annotations

from kernelbook.chapters.machines.facts import WITH_COPY
from kernelbook.guards import Guard


def _x(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}×"


NO_OTHER = (lambda f: f.other is None, "no second GPU has a run of every experiment")
GUARDS = {
    "bytes_scale": Guard(
        "work near its bandwidth floor took about as much longer on the other GPU as the copy did",
        lambda f: f.bytes_n > 1 and (1 - WITH_COPY) * f.copy_ratio <= f.bytes_low
        and f.bytes_high <= (1 + WITH_COPY) * f.copy_ratio,
        states=("as much longer", "f.copy_ratio"),
        found=lambda f: f"work near its floor took {_x(f.bytes_low)} to {_x(f.bytes_high)} as long, the copy "
                        f"{_x(f.copy_ratio)}",
        absent=NO_OTHER),
    "flat_below_copy": Guard(
        "launches, host work and compiling took less extra time than the copy",
        lambda f: f.flat_n > 0 and f.flat_high < f.copy_ratio,
        states=("did not follow",),
        found=lambda f: f"launches, host work and compiling took up to {_x(f.flat_high)} as long, the copy "
                        f"{_x(f.copy_ratio)}",
        absent=NO_OTHER),
    "flat_both_sides": Guard(
        "some of that work was faster on the other GPU and some slower",
        lambda f: f.flat_low < 1 < f.flat_high,
        states=("either side",),
        found=lambda f: f"launches, host work and compiling took {_x(f.flat_low)} to {_x(f.flat_high)} as long",
        absent=NO_OTHER),
    "steps_between": Guard(
        "a whole decode step fell between: the launch-bound step scaled least, the hand-built one more, both less "
        "than the copy",
        lambda f: 1 < f.six_ratio < f.hand_ratio < f.copy_ratio,
        states=("f.six_ratio", "f.hand_ratio", "between"),
        found=lambda f: f"the six ways' best step took {_x(f.six_ratio)} as long, the hand-built one "
                        f"{_x(f.hand_ratio)}, the copy {_x(f.copy_ratio)}",
        absent=NO_OTHER),
    "findings_differ": Guard(
        "some statements of the chapters do not hold on the other GPU",
        lambda f: f.findings_differ > 0,
        states=("do not",),
        found=lambda f: f"all {f.findings_n} statements hold there",
        absent=NO_OTHER),
    "rows_differ": Guard(
        "some ledger rows read differently on the two GPUs",
        lambda f: f.rows_differ > 0,
        states=("read differently",),
        found=lambda f: f"all {f.rows_n} ledger rows read alike",
        absent=NO_OTHER),
}
