from kernelbook import page
from kernelbook.chapters.machine.facts import LABELS, facts

r = page.result("machine.ceilings")
f = facts()

print(page.table(
    [f"{f.launches:,} one-element add_ kernels", f.gpu, "RTX 4060 Laptop (article)"],
    [
        [LABELS["eager"], page.num(f.eager_us, 2), "—"],
        [LABELS["graph"], page.num(f.graph_us, 2), "—"],
        [LABELS["speedup"], f"{f.launch_speedup:.1f}×", f"{f.laptop_graph_low}–{f.laptop_graph_high}×"],
        [LABELS["host"], page.num(f.host_us, 2), page.num(f.laptop_host_us, 1)],
    ],
))
print(page.provenance(r))
