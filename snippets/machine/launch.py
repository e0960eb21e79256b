from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.machine.facts import LABELS, facts

r = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median
f = facts()
per_launch = 1e3 / f.launches  # a loop's ms -> µs per launch

print(page.table(
    [f"{f.launches:,} one-element add_ kernels", f.gpu, "RTX 4060 Laptop (article)"],
    [
        [LABELS["eager"], across.cell(across.of([d["launch"]["eager_ms"] for d in runs]), 2, per_launch), "—"],
        [LABELS["graph"], across.cell(across.of([d["launch"]["graph_ms"] for d in runs]), 2, per_launch), "—"],
        [LABELS["speedup"], across.value(across.of([machine.graph_speedup(d) for d in runs]), 1, unit="×"),
         f"{f.laptop_graph_low}–{f.laptop_graph_high}×"],
        [LABELS["host"], across.cell(across.of([machine.host_enqueue(d) for d in runs]), 2),
         page.num(f.laptop_host_us, 1)],
    ],
))
print(page.provenance(r))
