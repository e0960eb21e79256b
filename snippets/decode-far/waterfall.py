import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
rows = far_report.median_waterfall(runs)
floor_ms = far_report.median_of(runs, lambda x: x["floor_ms"])
goal_ms = far_report.GOAL_MS

fig, ax = plt.subplots(figsize=(7.6, 0.45 * len(rows) + 1.4))
for i, s in enumerate(rows):
    ax.barh(i, s["step_ms"], color="C0" if s["passed"] else "C3", hatch="" if s["passed"] else "//")
    if s["saved_ms"] is not None and s["saved_ms"] > 0:  # what this step removed, drawn where it was
        ax.barh(i, s["saved_ms"], left=s["step_ms"], color="C2", alpha=0.35)
    note = f" {page.num(s['step_ms'], 2)} ms, {page.pct(s['floor_share'])} of floor"
    if s["saved_ms"] is not None:
        note += f" ({'−' if s['saved_ms'] >= 0 else '+'}{page.num(abs(s['saved_ms']), 2)})"
    right = s["step_ms"] + max(s["saved_ms"] or 0.0, 0.0)
    ax.text(right, i, note, va="center", fontsize=7.5)
ax.axvline(floor_ms, ls="--", c="k", lw=1, label=f"bandwidth floor {page.num(floor_ms, 3)} ms")
ax.axvline(goal_ms, ls=":", c="C3", lw=1, label=f"goal {page.num(goal_ms, 2)} ms")
labels = [s["label"] + ("" if s["passed"] else " (failed check)") for s in rows]
ax.set_yticks(range(len(rows)), labels, fontsize=8)
ax.invert_yaxis()
ax.set_xlabel(f"ms per decode step (median of {d['rounds_n']} rounds, synchronised around each step; "
              f"median of {len(runs)} runs)")
ax.set_xlim(0, max(s["step_ms"] + max(s["saved_ms"] or 0.0, 0.0) for s in rows) * 1.45)
handles = ax.get_legend_handles_labels()[0] + [Patch(color="C2", alpha=0.35, label="saved against the bar above")]
ax.legend(handles=handles, fontsize=7.5, loc="lower right")
ax.grid(True, axis="x", alpha=0.3)
print(page.figure(fig, "Decode step time after each change"))
print(page.provenance(r))
