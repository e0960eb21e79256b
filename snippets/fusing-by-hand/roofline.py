import matplotlib.pyplot as plt
import numpy as np

from kernelbook import across, factbook, page
from kernelbook.chapters.fusing_by_hand.facts import version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # every run of the current code: each figure is their median
eb = page.result("memory_bound.eager_bytes").data
copy_gbps = factbook.book("fusing_by_hand").facts.copy_gbps  # the same-run copy, the median over the runs
peak = factbook.book("machine").facts.matmul_tflops
flops = {"add_rmsnorm": eb["add_rmsnorm_intensity"]["flop_per_elem"], "swiglu": eb["swiglu_intensity"]["flop_per_elem"]}
n = r.data["elements"]

fig, ax = plt.subplots(figsize=(6.8, 4.0))
x = np.logspace(-1.5, 3.5, 200)
ax.loglog(x, np.minimum(peak, x * copy_gbps / 1e3), lw=2, c="k", label="ceilings: same-run copy, bf16 matmul")
marks = {"eager": "o", "rms_norm": "s", "triton": "^", "compiled": "v"}
colors = {"add_rmsnorm": "C0", "swiglu": "C3"}
for v in r.data["versions"]:
    if not v["bytes_moved"]:
        continue
    intensity = flops[v["op"]] / v["bytes_per_elem"]
    ms = across.of([version_time(d, v["op"], v["key"]) for d in runs]).median
    tflops = flops[v["op"]] * n / (ms * 1e-3) / 1e12
    ax.scatter([intensity], [tflops], marker=marks[v["key"]], c=colors[v["op"]], s=50, zorder=3,
               label=f"{v['op'].replace('_', ' + ').replace('add + rmsnorm', 'add + RMSNorm')}: {v['key']}")
ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
ax.set_ylabel("achieved TFLOP/s")
ax.legend(fontsize=7, loc="upper left")
ax.grid(True, which="both", alpha=0.3)
print(page.figure(fig, f"Roofline of the {page.machine_label(r)} with each version"))
print(page.provenance(r))
