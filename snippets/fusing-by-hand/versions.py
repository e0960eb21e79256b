from kernelbook import page
from kernelbook.chapters.fusing_by_hand.facts import LABELS

r = page.result("fusing_by_hand.versions")
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
article = {("add_rmsnorm", "eager"):
           f"{laptop['add_rmsnorm_eager_ms']} ms, {laptop['add_rmsnorm_eager_kernels']} kernels",
           ("add_rmsnorm", "rms_norm"): f"{laptop['rms_norm_kernels']} kernel for the norm",
           ("add_rmsnorm", "triton"): f"{laptop['add_rmsnorm_triton_ms']} ms, {laptop['add_rmsnorm_speedup']}×",
           ("swiglu", "triton"): f"−{page.pct(laptop['swiglu_time_cut'])} time"}
rows = []
for v in r.data["versions"]:
    rows.append([LABELS[(v["op"], v["key"])], v["kernels"], page.timed(v["time"], 4),
                 f"{page.num(v['speedup'], 2)}×", page.num(v["bytes_per_elem"], 1),
                 page.num(v["effective_gbps"], 0), page.num(v["actual_gbps"], 0), page.pct(v["share_of_copy"]),
                 article.get((v["op"], v["key"]), "—")])
print(page.table(["version", "kernels", f"ms (median of {r.data['rounds']} rounds ± noise)", "speedup over eager",
                  "B/elem moved", "effective GB/s", "actual GB/s", "of copy", "RTX 4060 Laptop (article)"], rows))
print(page.provenance(r))
