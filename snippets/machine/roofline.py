import matplotlib.pyplot as plt
import numpy as np

from kernelbook import factbook, page

r = page.result("machine.ceilings")
f = factbook.book("machine").facts  # the page's figures: each the median over the runs of the current code
copy_gbps, peak_tflops, ridge = f.copy_gbps, f.matmul_tflops, f.ridge

intensity = np.logspace(-1, 4, 200)  # FLOP per byte
attainable = np.minimum(peak_tflops, intensity * copy_gbps / 1e3)  # TFLOP/s

fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.loglog(intensity, attainable, lw=2, label=f"{page.machine_label(r)}: measured ceilings")
ax.axvline(ridge, ls=":", c="gray")
ax.annotate(f"ridge ≈ {ridge:.0f} FLOP/B", (ridge, peak_tflops / 4), xytext=(8, 0), textcoords="offset points")
swiglu = f.swiglu_flop_per_byte  # FLOP per byte, fused
ax.scatter([swiglu], [swiglu * copy_gbps / 1e3], zorder=3, c="C3", label="SwiGLU activation, fused")
ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
ax.set_ylabel("attainable TFLOP/s")
ax.legend(loc="lower right", fontsize=8)
ax.grid(True, which="both", alpha=0.3)
print(page.figure(fig, f"Roofline of the {page.machine_label(r)}"))
print(page.provenance(r))
