import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
s = list(report.summaries(d).values())
labels = [x["label"] + ("" if x["valid"] else " (failed check)") for x in s]

fig, ax = plt.subplots(figsize=(7.2, 3.2))
y = range(len(s))
ax.barh(y, [x["busy_ms"] for x in s], color="C0", label="GPU busy (sum of kernel times)")
ax.barh(y, [x["idle_ms"] for x in s], left=[x["busy_ms"] for x in s], color="C1", alpha=0.6, label="GPU idle")
for i, x in enumerate(s):
    ax.text(x["step_ms"], i, f" {page.num(x['step_ms'], 2)} ms", va="center", fontsize=8)
    if not x["valid"]:
        ax.barh(i, x["step_ms"], fill=False, hatch="//", edgecolor="C3")
ax.axvline(d["floor_ms"], ls=":", c="k", label=f"bandwidth floor {page.num(d['floor_ms'], 2)} ms")
ax.set_yticks(list(y), labels)
ax.invert_yaxis()
ax.set_xlabel(f"ms per decode step (median of {d['rounds_n']} rounds)")
ax.set_xlim(0, max(x["step_ms"] for x in s) * 1.18)
ax.legend(fontsize=8, loc="lower right")
ax.grid(True, axis="x", alpha=0.3)
print(page.figure(fig, "Step time per variant: GPU busy, idle"))
print(page.provenance(r))
