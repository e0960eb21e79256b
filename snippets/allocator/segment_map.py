import matplotlib.pyplot as plt

from kernelbook import page

MiB = 1 << 20
r = page.result("allocator.fragmentation")
runs = [("default: at the error", r.data["default"]["checkpoints"][-1]),
        ("expandable: after the 200 MiB request", r.data["expandable"]["checkpoints"][-1])]

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1]})
for ax, (title, cp) in zip(axes, runs, strict=True):
    segs = [s for s in cp["segments"] if s["pool"] == "large"]
    for row, s in enumerate(segs):
        left = 0
        for size, state in s["blocks"]:
            used = state == "alloc"
            ax.barh(row, size / MiB, left=left / MiB, color="C0" if used else "white",
                    edgecolor="white" if used else "C0", hatch=None if used else "///", lw=0.8)
            left += size
    ax.set_yticks(range(len(segs)), [f"{s['size'] / MiB:.0f} MiB" for s in segs], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("MiB from the segment start; filled: live block, hatched: free")
    ax.set_title(f"{title}: {len(segs)} large segment{'s' if len(segs) != 1 else ''}", fontsize=10)
print(page.figure(fig, "Large-pool segments and their blocks at the end of each run, from memory_snapshot()"))
