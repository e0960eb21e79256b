from kernelbook import page, paths, store
from kernelbook.chapters.claims import ledger as claims
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.decode import report
from kernelbook.registry import EXPERIMENTS

ROWS = [  # (label, experiment, value from a measured record's data)
    ("copy bandwidth, GB/s", "machine.ceilings", lambda d: page.num(d["bandwidth"]["copy"]["gbps"], 0)),
    ("bf16 matmul, TFLOP/s", "machine.ceilings", lambda d: page.num(d["matmul"]["tflops"], 0)),
    ("ridge point, FLOP/byte", "machine.ceilings", lambda d: page.num(d["ridge_flop_per_byte"], 0)),
    ("launch, eager µs / graph µs", "machine.ceilings",
     lambda d: f"{page.num(d['launch']['eager_us_per_launch'], 1)} / "
               f"{page.num(d['launch']['graph_us_per_launch'], 2)}"),
    ("add + RMSNorm: Triton speedup over eager", "fusing_by_hand.versions",
     lambda d: page.num(next(v for v in d["versions"] if v["op"] == "add_rmsnorm" and v["key"] == "triton")["speedup"],
                        1) + "×"),
    ("decode step: eager, default cache (ms)", "decode.six_ways",
     lambda d: page.num(report.summaries(d)["eager_dynamic"]["step_ms"], 2)),
    ("decode step: six ways' best, checked (ms)", "decode.six_ways",
     lambda d: page.num(report.best_valid(d)["step_ms"], 2)),
    ("decode step: its bandwidth-floor share", "decode.six_ways",
     lambda d: page.pct(report.best_valid(d)["floor_share"])),
    ("decode step: hand-built ladder's last (ms)", "decode_far.ladder",
     lambda d: "not built" if (s := far_report.final(d)) is None
     else page.num(s["step_ms"], 3) + ("" if s["passed"] else " (failed its check)")),
]

# the machine the site is built from first, then the others
machines = sorted(claims.measured_machines(), key=lambda m: m != paths.primary_machine())
cols = []
for m in machines:
    cols.append({e: store.load(e, m) if store.status(e, m) not in (store.MISSING, store.CORRUPT) else None
                 for e in {r[1] for r in ROWS}})
LAPTOP = {  # the article's published figures for the same rows, where it states them
    "copy bandwidth, GB/s": lambda p: page.num(p["machine.ceilings"]["copy_gbps"], 0),
    "bf16 matmul, TFLOP/s": lambda p: page.num(p["machine.ceilings"]["bf16_tflops"], 1),
    "ridge point, FLOP/byte": lambda p: page.num(p["machine.ceilings"]["ridge_flop_per_byte"], 0),
    "add + RMSNorm: Triton speedup over eager":
        lambda p: f"{p['fusing_by_hand.versions']['add_rmsnorm_speedup']}×",
    "decode step: eager, default cache (ms)": lambda p: page.num(p["decode.six_ways"]["variants"]["eager_dynamic"][
        "step_ms"], 1),
    "decode step: six ways' best, checked (ms)": lambda p: page.num(p["decode.six_ways"]["variants"][
        "compile_max_autotune"]["step_ms"], 1),
    "decode step: its bandwidth-floor share": lambda p: page.pct(p["decode.six_ways"]["variants"][
        "compile_max_autotune"]["floor_share"]),
}
pub = {e: store.load(e, claims.LAPTOP).data for e in ("machine.ceilings", "fusing_by_hand.versions", "decode.six_ways")}
rows = [[label, *[fn(c[exp].data) if c[exp] else "not measured" for c in cols],
         LAPTOP[label](pub) if label in LAPTOP else "—"] for label, exp, fn in ROWS]
minutes = [sum(store.load(e.name, m).provenance.get("duration_s", 0) for e in EXPERIMENTS
               if store.status(e.name, m) in (store.FRESH, store.STALE)) / 60 for m in machines]
rows.append(["GPU minutes its results record", *[page.num(x, 0) for x in minutes], "—"])
heads = ["", *[page.machine_label(next(r for r in c.values() if r)) for c in cols], "RTX 4060 Laptop (article)"]
print(page.table(heads, rows, name="machines"))
