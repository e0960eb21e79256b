"""The claims ledger: every measurable claim of the source article, each a row with its test, judged in every stored
run of the current code on each machine.

The rows are data (rows_*.py, one module per part of the article); verdicts.py holds the rules that judge them. This
module gathers the rows, reads the runs and the article's published records, and hands back one Judgement per row
and machine. The ledger page, the home page and the takeaways all read these judgements, so they give the same
verdicts; the page on how firm the numbers are reads each judgement's readings (one per run: its figure, spread and
verdict).
"""

from __future__ import annotations

from collections.abc import Sequence

from kernelbook import paths, read, store
from kernelbook.registry import BY_NAME

from . import rows_allocator, rows_compile, rows_decode, rows_kernels, rows_world
from .data import PARTS
from .verdicts import Data, Judgement, Row, Verdict, decide

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"
ROWS: tuple[Row, ...] = tuple(sorted(
    rows_kernels.ROWS + rows_compile.ROWS + rows_decode.ROWS + rows_allocator.ROWS + rows_world.ROWS,
    key=lambda r: PARTS.index(r.part)))
BY_ID = {r.id: r for r in ROWS}
EXPERIMENTS = tuple(sorted({n for r in ROWS for n in r.needs}))  # every result the ledger reads
Runs = dict[str, list[tuple[str, Data]]]  # experiment -> (run id, data) of each run of the current code, oldest first


def published() -> Data:
    """The article's published records (the laptop's figures), by experiment."""
    return {n: read.result(n, LAPTOP).data for n in sorted(BY_NAME) if store.status(n, LAPTOP) == store.PUBLISHED}


def runs(machine: str | None = None) -> Runs:
    """Every stored run of the current code of each experiment the ledger reads on `machine` (the newest run if none
    is current); an experiment the machine has not measured is left out."""
    out: Runs = {}
    for name in EXPERIMENTS:
        try:
            found = read.fresh_runs(name, machine)
        except FileNotFoundError:
            continue
        out[name] = [(r.run, r.data) for r in found]
    return out


def row_runs(row: Row, found: Runs) -> list[tuple[str, Data]]:
    """The runs that decide a row: each run of its first experiment, with its other experiments as shown (their
    newest run of the current code). None when the machine lacks one of them."""
    if not row.needs or any(n not in found for n in row.needs):
        return []
    first, *rest = row.needs
    others = {n: found[n][-1][1] for n in rest}
    return [(run, {first: data, **others}) for run, data in found[first]]


def judge_runs(machine: str, found: Runs, records: Data, rows: Sequence[Row] = ROWS) -> list[Judgement]:
    """Every row on one machine, from its runs and the article's records (pure: the facts and the tests call it)."""
    return [decide(r, machine, row_runs(r, found), records) for r in rows]


def judge_all(machine: str | None = None) -> list[Judgement]:
    machine = machine or paths.primary_machine()
    return judge_runs(machine, runs(machine), published())


def judge(row: Row, machine: str | None = None) -> Judgement:
    machine = machine or paths.primary_machine()
    return decide(row, machine, row_runs(row, runs(machine)), published())


def verdict_of(row_id: str, machine: str | None = None) -> Verdict:
    """One row's verdict on `machine`, reading only the experiments that row needs: what a chapter's facts quote
    when its page words a claim the ledger judges."""
    row = BY_ID[row_id]
    found: Runs = {}
    for name in row.needs:
        try:
            found[name] = [(r.run, r.data) for r in read.fresh_runs(name, machine)]
        except FileNotFoundError:
            continue
    return decide(row, machine or paths.primary_machine(), row_runs(row, found), published()).verdict


def by_part(judgements: Sequence[Judgement]) -> list[tuple[str, list[Judgement]]]:
    """The judgements grouped by the article's parts, in its order."""
    return [(p, [j for j in judgements if j.row.part == p]) for p in PARTS
            if any(j.row.part == p for j in judgements)]


def measured_machines() -> list[str]:
    """Machines with measured (not published) results: the primary first, then the book's other GPUs (pyproject's
    also-measured), then readers' GPUs."""
    book = [paths.primary_machine(), *paths.book_machines()]
    return sorted((m for m in store.machines() if m != LAPTOP), key=lambda m: book.index(m) if m in book else len(book))


def judged_on(machine: str) -> list[Judgement]:
    """Every row's judgement on `machine` (judge_all), once per `store.held()` block: the ledger's table, the
    summaries' facts and the machines page read one machine's ledger alike."""
    found = runs(machine)
    ids = tuple((n, tuple(run for run, _ in rs)) for n, rs in sorted(found.items()))
    return store.once(("ledger-on", machine, ids), lambda: judge_runs(machine, found, published()))


def verdicts_by_row(machines: Sequence[str] | None = None) -> dict[str, dict[str, Verdict]]:
    """Each row's verdict on each measured machine: row id -> {machine: verdict}, the rows in the ledger's order and
    the machines as given (default: measured_machines(), the primary first). A machine that lacks a row's results
    reads *not measured* there, as its own ledger does."""
    machines = measured_machines() if machines is None else list(machines)
    judged = {m: {j.row.id: j.verdict for j in judged_on(m)} for m in machines}
    return {r.id: {m: judged[m][r.id] for m in machines} for r in ROWS}


def differing(by_row: dict[str, dict[str, Verdict]]) -> list[str]:
    """The rows (ids, in order) whose verdicts differ between the machines of verdicts_by_row()."""
    return [rid for rid, by_machine in by_row.items() if len(set(by_machine.values())) > 1]
