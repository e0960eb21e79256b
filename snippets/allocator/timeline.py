import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.chapters.allocator.facts import LABELS
from kernelbook.chapters.allocator.parse import timeline

MiB = 1 << 20
r = page.result("allocator.fragmentation")
cap = r.data["default"]["cap_bytes"] / MiB

fig, axes = plt.subplots(1, 2, figsize=(7.2, 3.4), sharey=True)
for ax, key in zip(axes, ("default", "expandable"), strict=True):
    events = r.data[key]["events"]
    curves = timeline(events)
    x = range(len(events))
    ax.step(x, [v / MiB for v in curves["reserved"]], where="post", lw=2, label="reserved (segments)")
    ax.step(x, [v / MiB for v in curves["allocated"]], where="post", lw=2, label="allocated (live tensors)")
    ax.axhline(cap, ls=":", c="gray", label="the cap")
    for i, e in enumerate(events):
        if e["action"] == "oom":
            y = curves["reserved"][i] / MiB  # the text below the point, clear of the curves: an arrow up to it
            ax.annotate(f"out of memory:\n{e['size'] / MiB:.0f} MiB request", (i, y), xytext=(i - 6, 0.7 * y),
                        ha="center", arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.set_title(LABELS[key], fontsize=9)
    ax.set_xlabel("allocator event (memory snapshot trace)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("MiB")
fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
           frameon=False)  # above the panels: off the curves
print(page.figure(fig, "The fragmentation script in the allocator's trace"))
print(page.provenance(r))
