from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.machine.facts import LABELS, facts

h200 = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median
f = facts()
ridge = page.num(f.ridge, 0)


def spread(a: across.Across) -> str:  # sampled until quiet: the widest run's noise, marked where a run stayed noisy
    t = across.pooled(a)
    return f"±{t['noise_pct']:.1f}%" + ("" if t["quiet"] else " noisy")


copy, read, write = (across.of([machine.bandwidth(d, k) for d in runs]) for k in ("copy", "read", "write"))
mm = across.of([machine.matmul_rate(d) for d in runs])
print(page.table(
    ["ceiling", f.gpu, "± noise", "RTX 4060 Laptop (article)"],
    [
        [LABELS["copy"], across.value(copy, 0), spread(copy), page.num(f.laptop_copy_gbps, 0)],
        [LABELS["read"], across.value(read, 0), spread(read), "—"],
        [LABELS["write"], across.value(write, 0), spread(write), "—"],
        [LABELS["matmul"], across.value(mm, 0), spread(mm), page.num(f.laptop_tflops, 1)],
        [LABELS["ridge"], ridge, "", page.num(f.laptop_ridge, 0)],
    ],
))
print(page.provenance(h200))
