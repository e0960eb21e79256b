from kernelbook import page
from kernelbook.chapters.machine.facts import LABELS, facts

h200 = page.result("machine.ceilings")
f = facts()
bw, mm = h200.data["bandwidth"], h200.data["matmul"]


def spread(s: dict) -> str:  # a timing sampled until quiet: its noise, marked where it stayed noisy
    return f"±{s['noise_pct']:.1f}%" + ("" if s["quiet"] else " noisy")


print(page.table(
    ["ceiling", f.gpu, "± noise", "RTX 4060 Laptop (article)"],
    [
        [LABELS["copy"], page.num(f.copy_gbps, 0), spread(bw["copy"]), page.num(f.laptop_copy_gbps, 0)],
        [LABELS["read"], page.num(bw["read"]["gbps"], 0), spread(bw["read"]), "—"],
        [LABELS["write"], page.num(bw["write"]["gbps"], 0), spread(bw["write"]), "—"],
        [LABELS["matmul"], page.num(f.matmul_tflops, 0), spread(mm), page.num(f.laptop_tflops, 1)],
        [LABELS["ridge"], page.num(f.ridge, 0), "", page.num(f.laptop_ridge, 0)],
    ],
))
print(page.provenance(h200))
