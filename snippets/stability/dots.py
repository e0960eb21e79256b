import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
figs = f.figures
fig, ax = plt.subplots(figsize=(5.4, 0.3 * len(figs) + 1.3))  # about the column's width with its labels: 1:1
ax.axvspan(-100 * f.firm, 100 * f.firm, color="C2", alpha=0.12, lw=0)
ax.axvline(0, c="k", lw=0.8)
for i, x in enumerate(figs):
    for p in x.points:
        y = i + (0.0 if p.current else 0.22)
        color = "C0" if p.current else "0.45"
        if p.rel_low is not None:  # the run's rounds, fastest to slowest
            ax.plot([100 * p.rel_low, 100 * p.rel_high], [y, y], c=color, lw=1.6, alpha=0.7, solid_capstyle="butt")
        ax.plot(100 * p.rel, y, "o", ms=5, mfc=color if p.current else "white", mec=color)
    ax.text(1.01, i, x.firmness, transform=ax.get_yaxis_transform(), va="center", fontsize=7.5,
            color="C3" if x.firmness in ("noisy", "unsettled") else "0.3")
ax.set_xscale("symlog", linthresh=0.5, linscale=0.5)  # linear within ±0.5%, logarithmic beyond
ticks = (-50, -10, -2, 0, 2, 10, 50, 200)
ax.set_xticks(ticks, [f"{t:+d}%" if t else "0" for t in ticks], fontsize=7)
ax.set_yticks(range(len(figs)), [x.label for x in figs], fontsize=7.5)
ax.set_ylim(len(figs) - 0.4, -0.6)
ax.set_xlabel("each run's median against today's; bars: rounds\n(scale linear within ±0.5%, logarithmic beyond)")
ax.grid(True, axis="x", alpha=0.3)
ax.legend(handles=[Line2D([], [], ls="", marker="o", c="C0", label="run of the current code"),
                   Line2D([], [], ls="", marker="o", mfc="white", mec="0.45", label="run of earlier code"),
                   plt.Rectangle((0, 0), 1, 1, color="C2", alpha=0.12, label=f"within ±{100 * f.firm:.0f}%")],
          fontsize=7.5, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
print(page.figure(fig, f"Every stored run of each headline figure, {f.gpu}", caption=True))
