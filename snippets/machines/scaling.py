import matplotlib.pyplot as plt

from kernelbook import page, paths, store
from kernelbook.chapters.machines import carry

primary = paths.pyproject_primary()
others = carry.measured()
if not others:  # the page's paragraphs say why (their guards' absent words): a label here
    print("*no second GPU measured*")
else:
    other = others[0]
    items = carry.timed(primary, other)  # each: its share of the floor on the primary, the other's time over it
    copy, sheet = carry.copy_ratio(primary, other), carry.datasheet_ratio(primary, other)
    a, b = store.machine_label(primary), store.machine_label(other)
    style = {"bytes": ("C0", "o", "moves bytes"), "step": ("C2", "D", "a whole decode step"),
             "compute": ("C4", "s", "matrix arithmetic"), "launch": ("C3", "v", "launches"),
             "host": ("C1", "^", "host work"), "compile": ("C7", "P", "compiling")}

    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for kind, (color, marker, label) in style.items():
        pts = [t for t in items if t.kind == kind]
        if pts:
            ax.scatter([t.share for t in pts], [t.ratio for t in pts], c=color, marker=marker, s=36, zorder=3,
                       label=label)
    ax.axhline(copy, c="C0", ls="--", lw=1)
    ax.annotate(f"copy, measured: {copy:.2f}×", (0.02, copy), xytext=(0, -10), textcoords="offset points",
                fontsize=8, color="C0")
    if sheet is not None:
        ax.axhline(sheet, c="gray", ls=":", lw=1)
        ax.annotate(f"datasheets: {sheet:.2f}×", (0.02, sheet), xytext=(0, 4), textcoords="offset points",
                    fontsize=8, color="gray")
    ax.axhline(1, c="black", lw=0.6)
    ax.set_xlabel(f"share of its bandwidth floor reached on the {a}")
    ax.set_ylabel(f"time on the {b} ÷ time on the {a}")
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:.0%}")
    ax.set_xlim(-0.05, 1.12)
    ax.set_ylim(top=max(copy, sheet or copy, *(t.ratio for t in items)) + 0.08)  # room for the lines' labels
    ax.legend(loc="lower right", fontsize=8, ncol=2)
    ax.grid(True, alpha=0.3)
    print(page.figure(fig, f"{b} ÷ {a} time against share of floor"))
    rows = [[t.label, t.kind, page.pct(t.share), f"{t.ratio:.2f}×"] for t in sorted(items, key=lambda t: -t.share)]
    print(page.table(["item", "kind", f"of its floor ({a})", f"{b} ÷ {a}"], rows, name="carry-over-times"))
