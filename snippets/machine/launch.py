from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.machine.facts import LABELS, facts

r = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median
f = facts()

print(page.table(
    [f"{f.launches:,} one-element add_ kernels", f.gpu, "RTX 4060 Laptop (article)"],
    [
        [LABELS["eager"], across.cell(across.of([machine.eager_launch(d) for d in runs]), 2), "—"],
        [LABELS["graph"], across.cell(across.of([machine.graph_launch(d) for d in runs]), 2), "—"],
        [LABELS["speedup"], across.value(across.of([machine.graph_speedup(d) for d in runs]), 1, unit="×"),
         f"{f.laptop_graph_low}–{f.laptop_graph_high}×"],
        [LABELS["host"], across.cell(across.of([machine.host_enqueue(d) for d in runs]), 2),
         page.num(f.laptop_host_us, 1)],
    ],
))
print(page.provenance(r))
