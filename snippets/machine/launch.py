from kernelbook import page
from kernelbook.chapters.machine.facts import LABELS, facts

r = page.result("machine.ceilings")
f = facts()

print(page.table(
    [f"{f.launches:,} one-element add_ kernels", f.gpu, "RTX 4060 Laptop (article)"],
    [
        [LABELS["eager"], page.timed(r.data["launch"]["eager_ms"], 2, 1e3 / f.launches), "—"],
        [LABELS["graph"], page.timed(r.data["launch"]["graph_ms"], 2, 1e3 / f.launches), "—"],
        [LABELS["speedup"], f"{f.launch_speedup:.1f}×", f"{f.laptop_graph_low}–{f.laptop_graph_high}×"],
        [LABELS["host"], page.timed(r.data["launch"]["host_enqueue_us"], 2), page.num(f.laptop_host_us, 1)],
    ],
))
print(page.provenance(r))
