"""Reading stored results as a page or a chapter's facts do: the run asked for, measured first where the mode says so,
and counted as shown by whatever is being built.

    from kernelbook import read
    r = read.result("machine.ceilings")          # the newest fresh run on the primary machine
    runs = read.fresh_runs("decode.six_ways")     # every fresh run of the current code, oldest first

KERNELBOOK_MODE picks where results come from (replay, measure, auto: see kernelbook.page). Each result read is
counted by the sinks listening: the page being built (kernelbook.page.Build.shown, set by `start_page`) and any
`collecting()` block (a chapter's facts, which count as shown on every page that uses them). The one rule's picks
(`picking`) and the sets of experiments read one run at a time or across runs (`asked_one`, `asked_across`) are
kernelbook.factbook's. Nothing here knows of pages, Markdown or a site: it sits on the store (kernelbook.store) and,
in measure mode, the runner (kernelbook.runner).
"""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from kernelbook import paths, store
from kernelbook.registry import EXPERIMENTS, get

MODES = ("replay", "measure", "auto")
_measured: set[str] = set()
_gpu: str | None | bool = False  # False: not asked yet
_sinks: list[dict[tuple[str, str, str], store.Result]] = [{}]  # who counts the results read: the page being built first


class MeasureError(RuntimeError):
    """Measure mode on a machine that cannot measure the site's numbers: the build must fail, not replay."""


def _gpu_slug() -> str | None:
    global _gpu
    if _gpu is False:
        from kernelbook.runner import gpu_slug

        _gpu = gpu_slug()
    return _gpu  # type: ignore[return-value]


def mode() -> str:
    m = os.environ.get("KERNELBOOK_MODE")
    if m:
        if m not in MODES:
            raise paths.BadSetting(f"KERNELBOOK_MODE={m!r} is not a mode: use replay (stored results), measure (the "
                                   f"GPU runner) or auto, or unset it")
        return m
    return "auto" if _gpu_slug() == paths.primary_machine() else "replay"


def check_settings(results: bool = True) -> None:
    """The KERNELBOOK_* settings every command and build reads are usable (paths.BadSetting with one line if not):
    the primary machine, KERNELBOOK_MODE, and (with `results`) the results folders. Asks for no GPU."""
    paths.primary_machine()
    if os.environ.get("KERNELBOOK_MODE"):
        mode()
    if results:
        paths.results_dir()


def check_build(results: bool = True) -> None:
    """Before a site build renders anything: the settings are usable, measure mode has the primary machine's GPU,
    and (with `results`) a build that replays finds a readable result of every experiment. Raises one error with one
    line."""
    primary = paths.primary_machine()
    paths.results_dirs()
    m = mode()
    if m == "measure":
        _require_gpu_of(primary, f"{primary}'s results")
        return
    if m == "auto" and _gpu_slug() == primary or not results:
        return  # what is missing or stale gets measured
    if primary not in store.machine_folders():
        where = "KERNELBOOK_MACHINE" if os.environ.get("KERNELBOOK_MACHINE") is not None else "primary machine"
        known = ", ".join(store.machine_folders()) or "none"
        raise paths.BadSetting(f"{where} {primary} has no results in {', '.join(map(str, paths.results_dirs()))} "
                               f"(machines with results: {known}); measure it there with `python -m kernelbook run "
                               f"--all`, or name one of those")
    bad = []
    for e in EXPERIMENTS:
        try:
            store.load(e.name, primary)
        except (FileNotFoundError, store.StoreError) as err:
            bad.append(str(err))
    if bad:
        more = f" (and {len(bad) - 1} more: `python -m kernelbook check` lists them)" if len(bad) > 1 else ""
        raise store.StoreError(bad[0] + more)


def _require_gpu_of(machine: str, what: str) -> None:
    """Measure mode needs this machine's GPU: none, or another, stops the build rather than replay old numbers."""
    slug = _gpu_slug()
    if slug is None:
        raise MeasureError(f"KERNELBOOK_MODE=measure but no CUDA GPU is visible to measure {what}; a build from "
                           f"stored results is KERNELBOOK_MODE=replay")
    if slug != machine:
        raise MeasureError(f"KERNELBOOK_MODE=measure on {slug}, but the site shows {machine}: measure there, or set "
                           f"KERNELBOOK_MACHINE={slug} to build this GPU's site")


def _measure(name: str, machine: str) -> None:
    from kernelbook.runner import run_one

    exp = get(name)
    print(f"kernelbook: measuring {name} on {machine} ...", file=sys.stderr, flush=True)
    ok, msg = run_one(name, machine, exp.timeout_s)
    _measured.add(name)
    if not ok:
        raise MeasureError(f"measuring {name} on {machine} failed {msg}")


def _wants_measuring(name: str, machine: str) -> bool:
    m = mode()
    if m == "replay" or name in _measured:
        return False
    slug = _gpu_slug()
    if m == "measure":
        if machine != paths.primary_machine():
            return False  # other machines' columns are shown as stored
        _require_gpu_of(machine, name)
        return True
    return slug == machine and store.status(name, machine) in (store.MISSING, store.STALE)


asked_across: set[str] = set()  # the experiments whose every fresh run was read (kernelbook.factbook clears it)
asked_one: set[str] = set()  # ... and those whose one run (the newest, or a pick) was read
_across_depth: list[str] = []
_picks: list[dict[str, int]] = [{}]  # experiment -> which fresh run read.result returns (0: the newest)


@contextmanager
def picking(picks: dict[str, int]) -> Iterator[None]:
    """Inside the block, read.result(e) returns the picks[e]-th newest fresh run of e (on the primary machine)."""
    _picks.append(picks)
    try:
        yield
    finally:
        _picks.pop()


@contextmanager
def for_words() -> Iterator[None]:
    """Inside the block, what is read decides words (a verdict quoted from another chapter), not this chapter's
    figures: it marks no experiment as one the figures are taken across or one run at a time (kernelbook.factbook)."""
    across, one = set(asked_across), set(asked_one)
    try:
        yield
    finally:
        asked_across.intersection_update(across)
        asked_one.intersection_update(one)


def _picked(name: str, machine: str) -> store.Result | None:
    """The run a `picking` block asks for, or None outside one (read.result reads the store as usual)."""
    k = _picks[-1].get(name, 0)
    if not k or machine != paths.primary_machine():
        return None
    fresh = [r for r in store.runs(name, machine) if r.status == store.FRESH]
    return store.check_schema(fresh[-1 - k]) if k < len(fresh) else None


def result(name: str, machine: str | None = None) -> store.Result:
    """The result of `name` on `machine` (default: the primary machine), measured first where the mode says so."""
    machine = paths.primary_machine() if machine is None else machine
    if not _across_depth:
        asked_one.add(name)
    if (older := _picked(name, machine)) is not None:
        note(older)  # an older fresh run, read for the one rule (kernelbook.factbook): a page's figures come from it
        return older
    if _wants_measuring(name, machine):
        _measure(name, machine)
    res = store.load(name, machine)
    if res.stale:
        print(f"kernelbook: STALE result shown: {name} on {machine} (changed: {', '.join(res.changed)}); "
              f"re-measure with `python -m kernelbook run {name}`", file=sys.stderr, flush=True)
    note(res)
    return res


def fresh_runs(name: str, machine: str | None = None) -> list[store.Result]:
    """Every stored run of the current code of `name` on `machine` (default: the primary), oldest first: what a
    verdict that must hold in every run reads. At least one, since the page's result is measured first where the
    mode says so; each counts as shown on the page."""
    machine = paths.primary_machine() if machine is None else machine
    asked_across.add(name)
    _across_depth.append(name)
    try:
        shown_one = result(name, machine)
    finally:
        _across_depth.pop()
    if shown_one.published:
        return [shown_one]
    found = [store.check_schema(r) for r in store.runs(name, machine) if r.status == store.FRESH] or [shown_one]
    for res in found:
        note(res)
    return found


def note(res: store.Result) -> None:
    """Count res as shown by whatever is being built (the current page, or a collecting() block)."""
    for seen in _sinks:
        seen[(res.experiment, res.machine, res.run)] = res


@contextmanager
def collecting() -> Iterator[list[store.Result]]:
    """Collects the results read inside the block (a chapter's facts), so that a cached value can count them as
    shown again on every page that uses it."""
    seen: dict[tuple[str, str], store.Result] = {}
    got: list[store.Result] = []
    _sinks.append(seen)
    try:
        yield got
    finally:
        del _sinks[next(i for i, x in enumerate(_sinks) if x is seen)]  # by identity: an equal dict is another's
        got.extend(seen.values())


def results(name: str) -> dict[str, store.Result]:
    """Every machine's result of `name`: the primary first, then other measured machines, then published ones."""
    primary = paths.primary_machine()
    out = {primary: result(name)}
    for m in store.machines():
        if m != primary and store.status(name, m) not in (store.MISSING, store.CORRUPT):
            out[m] = result(name, m)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != primary, kv[1].published, kv[0])))


def start_page(sink: dict[tuple[str, str, str], store.Result]) -> None:
    """A page starts being built: the results read from here on are counted in `sink` (its Build.shown)."""
    _sinks[0] = sink


def machine_label(res: store.Result) -> str:
    """The column label of res's machine, from its folder's name (store.machine_label), not from provenance.gpu:
    'nvidia-h200' -> 'H200'. Two folders whose runs name one GPU keep two labels; a GPU name carries no markup in."""
    return html.escape(store.machine_label(res.machine))
