import statistics

from kernelbook import macros, page, paths, store
from kernelbook.chapters.claims import ledger as claims
from kernelbook.chapters.machines import carry
from kernelbook.registry import EXPERIMENTS

ROWS = [  # (label, chapter, fact): each cell is the chapter's fact, as its page shows it
    ("copy bandwidth, TB/s", "machine", "copy_tbps"),
    ("bf16 matmul, TFLOP/s", "machine", "matmul_tflops"),
    ("ridge point, FLOP/byte", "machine", "ridge"),
    ("launch, eager µs", "machine", "eager_us"),
    ("launch, graph µs", "machine", "graph_us"),
    ("add + RMSNorm: Triton speedup over eager", "fusing_by_hand", "norm_speedup"),
    ("decode step: eager, default cache (ms)", "decode", "dyn_ms"),
    ("decode step: six ways' best, checked (ms)", "decode", "best_ms"),
    ("decode step: its bandwidth-floor share", "decode", "best_floor_share"),
    ("decode step: hand-built, fastest checked (ms)", "decode_far", "best_ms"),
]
LAPTOP = {  # the article's published figures for the same rows, where it states them
    "copy bandwidth, TB/s": lambda p: page.num(p["machine.ceilings"]["copy_gbps"] / 1e3, 2),
    "bf16 matmul, TFLOP/s": lambda p: page.num(p["machine.ceilings"]["bf16_tflops"], 1),
    "ridge point, FLOP/byte": lambda p: f"{page.fact('machine', 'laptop_ridge')} (over DRAM read: "
                                        f"{page.fact('machine', 'laptop_ridge_published')})",  # ours: over the copy
    "add + RMSNorm: Triton speedup over eager":
        lambda p: f"{p['fusing_by_hand.versions']['add_rmsnorm_speedup']}×",
    "decode step: eager, default cache (ms)": lambda p: page.num(p["decode.six_ways"]["variants"]["eager_dynamic"][
        "step_ms"], 1),
    "decode step: six ways' best, checked (ms)": lambda p: page.num(p["decode.six_ways"]["variants"][
        "compile_max_autotune"]["step_ms"], 1),
    "decode step: its bandwidth-floor share": lambda p: page.pct(p["decode.six_ways"]["variants"][
        "compile_max_autotune"]["floor_share"]),
}


def cell(chapter: str, name: str, machine: str) -> str:
    """The fact on that machine (the primary's as every page shows it), or why there is none."""
    try:
        value = getattr(macros.facts(chapter, machine), name)
    except (FileNotFoundError, store.StoreError):
        return "not measured"
    return "—" if value is None else str(value)


# the machine the pages are written for first, then the book's second GPU, then readers' GPUs: the same order,
# and the same ratio (second over primary), whichever machine the site is built for
book = [paths.pyproject_primary(), *carry.measured()]
machines = sorted(claims.measured_machines(), key=lambda m: book.index(m) if m in book else len(book))
pub = {e: store.load(e, claims.LAPTOP).data for e in ("machine.ceilings", "fusing_by_hand.versions", "decode.six_ways")}


def ratio(chapter: str, name: str, a: str, b: str) -> str:
    """b's figure over a's (the second measured machine's over the primary's), from the facts' own values."""
    try:
        x, y = (getattr(macros.raw_facts(chapter, m), name) for m in (a, b))
    except (FileNotFoundError, store.StoreError):
        return "—"
    return "—" if not x or y is None else f"{y / x:.2f}"


pair = book[:2] if len(book) > 1 and set(book[:2]) <= set(machines) else []  # the primary and the book's second GPU
rows = [[label, *[cell(chapter, name, m) for m in machines], *([ratio(chapter, name, *pair)] if pair else []),
         LAPTOP[label](pub) if label in LAPTOP else "—"] for label, chapter, name in ROWS]


def run_s(name: str, machine: str) -> float:
    """An experiment's run time on that machine: the median over its runs of the current code (the newest run's
    where none is current)."""
    runs = [r for r in store.runs(name, machine) if r.status == store.FRESH] or [store.load(name, machine)]
    return statistics.median(r.provenance.get("duration_s", 0) for r in runs)


minutes = [sum(run_s(e.name, m) for e in EXPERIMENTS if store.status(e.name, m) in (store.FRESH, store.STALE)) / 60
           for m in machines]
ratios = [f"{minutes[machines.index(pair[1])] / minutes[machines.index(pair[0])]:.2f}"] if pair else []
rows.append(["GPU minutes its results record", *[page.num(x, 0) for x in minutes], *ratios, "—"])
labels = [page.machine_label(page.result("machine.ceilings", m)) for m in machines]
over = [f"{labels[machines.index(pair[1])]} ÷ {labels[machines.index(pair[0])]}, figure over figure"] if pair else []
heads = ["", *labels, *over, "RTX 4060 Laptop (article)"]
print(page.table(heads, rows, name="machines"))
