import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from kernelbook import across, factbook, page
from kernelbook.chapters.fusing_by_hand.facts import version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # every run of the current code: each figure is their median
eb = page.result("memory_bound.eager_bytes").data
copy_gbps = factbook.book("machine").facts.copy_gbps  # the machine's roofline: its copy and matmul medians
peak = factbook.book("machine").facts.matmul_tflops
flops = {"add_rmsnorm": eb["add_rmsnorm_intensity"]["flop_per_elem"], "swiglu": eb["swiglu_intensity"]["flop_per_elem"]}
n = r.data["elements"]
names = {"eager": "eager", "rms_norm": "F.rms_norm", "triton": "Triton", "compiled": "compiled"}
# where each label sits beside its marker (points): add + RMSNorm to the left, SwiGLU to the right, and the two
# versions that share an intensity one above the other
offsets = {("add_rmsnorm", "eager"): (8, -4), ("add_rmsnorm", "rms_norm"): (-8, -12),
           ("add_rmsnorm", "triton"): (-8, 6), ("add_rmsnorm", "compiled"): (8, -14),
           ("swiglu", "eager"): (-8, 4), ("swiglu", "triton"): (8, 4), ("swiglu", "compiled"): (8, -8)}

fig, ax = plt.subplots(figsize=(6.8, 4.6))
x = np.logspace(np.log10(0.08), np.log10(2.0), 100)
ax.loglog(x, np.minimum(peak, x * copy_gbps / 1e3), lw=2, c="k")
for v in r.data["versions"]:
    if not v["bytes_moved"]:
        continue
    op, key = v["op"], v["key"]
    intensity = flops[op] / v["bytes_per_elem"]
    ms = across.of([version_time(d, op, key) for d in runs]).median
    tflops = flops[op] * n / (ms * 1e-3) / 1e12
    color = "C0" if op == "add_rmsnorm" else "C3"
    ax.scatter([intensity], [tflops], marker="o" if op == "add_rmsnorm" else "s", c=color, s=24, zorder=3)
    dx, dy = offsets[(op, key)]
    ax.annotate(f"{'norm' if op == 'add_rmsnorm' else 'SwiGLU'} {names[key]}", (intensity, tflops),
                xytext=(dx, dy), textcoords="offset points", fontsize=8, color=color,
                ha="right" if dx < 0 else "left")
ridge = factbook.book("fusing_by_hand").facts.ridge  # as the page's text gives it
ax.annotate(f"ridge {ridge:.0f} FLOP/B,\n{peak:.0f} TFLOP/s →", (1.95, 0.28), ha="right", fontsize=8, color="0.3")
ax.set_xlim(0.08, 2.0)
ax.set_ylim(0.25, 6)
ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
ax.set_ylabel("achieved TFLOP/s")
ax.set_xticks([0.1, 0.2, 0.5, 1, 2], ["0.1", "0.2", "0.5", "1", "2"])
ax.set_yticks([0.3, 0.5, 1, 2, 5], ["0.3", "0.5", "1", "2", "5"])
for axis in (ax.xaxis, ax.yaxis):
    axis.set_minor_formatter(NullFormatter())
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
(x0, y0), (x1, y1) = ax.transData.transform([(0.1, 0.1 * copy_gbps / 1e3), (1, copy_gbps / 1e3)])
ax.annotate("copy bandwidth (machine page)", (0.1, 0.1 * copy_gbps / 1e3), xytext=(0, 6), textcoords="offset points",
            rotation=math.degrees(math.atan2(y1 - y0, x1 - x0)), rotation_mode="anchor", fontsize=8)
print(page.figure(fig, f"Each version under the {page.machine_label(r)}'s bandwidth slope"))
print(page.provenance(r))
