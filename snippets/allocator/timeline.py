import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.chapters.allocator.facts import LABELS
from kernelbook.chapters.allocator.parse import timeline

MiB = 1 << 20
r = page.result("allocator.fragmentation")
cap = r.data["default"]["cap_bytes"] / MiB

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
for ax, key in zip(axes, ("default", "expandable"), strict=True):
    events = r.data[key]["events"]
    curves = timeline(events)
    x = range(len(events))
    ax.step(x, [v / MiB for v in curves["reserved"]], where="post", lw=2, label="reserved (segments)")
    ax.step(x, [v / MiB for v in curves["allocated"]], where="post", lw=2, label="allocated (live tensors)")
    ax.axhline(cap, ls=":", c="gray", label="the cap")
    for i, e in enumerate(events):
        if e["action"] == "oom":
            ax.annotate(f"out of memory:\n{e['size'] / MiB:.0f} MiB request", (i, curves["reserved"][i] / MiB),
                        xytext=(-95, -60), textcoords="offset points", arrowprops={"arrowstyle": "->"}, fontsize=8)
    ax.set_title(LABELS[key], fontsize=10)
    ax.set_xlabel("allocator event (memory snapshot trace)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("MiB")
axes[0].legend(loc="lower right", fontsize=8)
print(page.figure(fig, "The fragmentation script in the allocator's trace"))
print(page.provenance(r))
