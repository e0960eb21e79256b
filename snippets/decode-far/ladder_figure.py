import statistics

import matplotlib.pyplot as plt

from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_waterfall(runs)  # the same medians as the ladder's table
floor = statistics.median(d["floor_ms"] for d in runs)
best = min((s for s in rows if s["passed"]), key=lambda s: s["step_ms"], default=None)

fig, ax = plt.subplots(figsize=(7.6, 0.3 * len(rows) + 1.3))
for i, s in enumerate(rows):
    color = ("C2" if s is best else "C0") if s["passed"] else "none"
    ax.barh(i, s["step_ms"], color=color, edgecolor="C3" if not s["passed"] else color,
            hatch=None if s["passed"] else "//", label="fastest that passed its check" if s is best else None)
    ax.text(s["step_ms"], i, f" {page.num(s['step_ms'], 3)} ms", va="center", fontsize=8)
ax.axvline(floor, ls=":", c="k", label=f"copy floor, {page.num(floor, 3)} ms")
ax.set_yticks(range(len(rows)), [s["label"] + ("" if s["passed"] else " (failed check)") for s in rows], fontsize=8)
ax.invert_yaxis()
ax.set_xlabel(f"ms per decode step, synchronised (median of {len(runs)} run{'s' * (len(runs) != 1)})")
ax.set_xlim(0, max(s["step_ms"] for s in rows) * 1.2)
ax.legend(fontsize=8, loc="lower right")
ax.grid(True, axis="x", alpha=0.3)
print(page.figure(fig, "The ladder: each rung's time per decode step"))
print(page.provenance(r))
