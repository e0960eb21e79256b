import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.chapters.allocator.facts import LABELS

MiB = 1 << 20
r = page.result("allocator.fragmentation")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1]})
for ax, key in zip(axes, ("default", "expandable"), strict=True):
    segs = [s for s in r.data[key]["checkpoints"][-1]["segments"] if s["pool"] == "large"]
    for row, s in enumerate(segs):
        left = 0
        for size, state in s["blocks"]:
            used = state == "alloc"
            ax.barh(row, size / MiB, left=left / MiB, color="C0" if used else "white",
                    edgecolor="white" if used else "C0", hatch=None if used else "///", lw=0.8)
            left += size
    ax.set_yticks(range(len(segs)), [f"{s['size'] / MiB:.0f} MiB" for s in segs], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("MiB from the segment's start")
    ax.set_title(f"{LABELS[key]}: {len(segs)} large segment{'s' if len(segs) != 1 else ''}", fontsize=10)
print(page.figure(fig, "Large-pool segments at each run's end"))
print(page.provenance(r))
