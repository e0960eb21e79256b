from kernelbook import across, page
from kernelbook.chapters.fusing_by_hand.facts import LABELS, speedup, version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # every run of the current code: the times are their median
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
article = {("add_rmsnorm", "eager"):
           f"{laptop['add_rmsnorm_eager_ms']} ms, {laptop['add_rmsnorm_eager_kernels']} kernels",
           ("add_rmsnorm", "rms_norm"): f"{laptop['rms_norm_kernels']} kernel for the norm",
           ("add_rmsnorm", "triton"): f"{laptop['add_rmsnorm_triton_ms']} ms, {laptop['add_rmsnorm_speedup']}×",
           ("swiglu", "triton"): f"−{page.pct(laptop['swiglu_time_cut'])} time"}
rows = []
for v in r.data["versions"]:
    op, key = v["op"], v["key"]
    rows.append([LABELS[(op, key)], v["kernels"], across.cell(across.of([version_time(d, op, key) for d in runs]), 4),
                 across.value(across.of([speedup(d, op, key) for d in runs]), 2, unit="×"),
                 page.num(v["bytes_per_elem"], 1), page.num(v["effective_gbps"], 0), page.num(v["actual_gbps"], 0),
                 page.pct(v["share_of_copy"]), article.get((op, key), "—")])
ms = f"ms (median of {r.data['rounds']} rounds ± noise)" if len(runs) == 1 else \
    f"ms (median over {len(runs)} runs ± the widest run's noise)"
print(page.table(["version", "kernels", ms, "speedup over eager", "B/elem moved", "effective GB/s", "actual GB/s",
                  "of copy", "RTX 4060 Laptop (article)"], rows))
print(page.provenance(r))
