import statistics

import matplotlib.pyplot as plt

from kernelbook import across, page
from kernelbook.decode import report

r = page.result("decode.six_ways")
runs = across.datas("decode.six_ways")  # every run of the current code: each bar is their median, as in the table
per_run = [report.summaries(d) for d in runs]
names = list(per_run[-1])


def med(name, key):
    return statistics.median(s[name][key] for s in per_run)


step = {n: med(n, "step_ms") for n in names}
busy = {n: min(med(n, "busy_ms"), step[n]) for n in names}  # idle is what the median step leaves beyond busy
valid = {n: all(s[n]["valid"] for s in per_run) for n in names}
labels = [per_run[-1][n]["label"] + ("" if valid[n] else " (failed check)") for n in names]
floor = statistics.median(d["floor_ms"] for d in runs)

fig, ax = plt.subplots(figsize=(7.2, 3.2))
y = range(len(names))
ax.barh(y, [busy[n] for n in names], color="C0", label="GPU busy (sum of kernel times)")
ax.barh(y, [step[n] - busy[n] for n in names], left=[busy[n] for n in names], color="C1", alpha=0.6,
        label="GPU idle")
for i, n in enumerate(names):
    ax.text(step[n], i, f" {page.num(step[n], 2)} ms", va="center", fontsize=8)
    if not valid[n]:
        ax.barh(i, step[n], fill=False, hatch="//", edgecolor="C3")
ax.axvline(floor, ls=":", c="k", label=f"bandwidth floor {page.num(floor, 3)} ms")
ax.set_yticks(list(y), labels)
ax.invert_yaxis()
ax.set_xlabel(f"ms per decode step ({page.over_runs(len(runs))})")
ax.set_xlim(0, max(step.values()) * 1.18)
ax.legend(fontsize=8, loc="lower right")
ax.grid(True, axis="x", alpha=0.3)
print(page.figure(fig, "Step time per variant: GPU busy, idle"))
print(page.provenance(r))
