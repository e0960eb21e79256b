import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
t = far_report.median_timeline_rows(runs)
rows = t["rows"] if t else []
if rows:
    fig, ax = plt.subplots(figsize=(7.6, 0.42 * len(rows) + 2.0))
    for i, x in enumerate(rows):
        ax.barh(i, x["end_us"] - x["start_us"], left=x["start_us"], color="C0", alpha=0.35)  # scheduled, waiting
        ax.barh(i, x["after_us"], left=x["end_us"] - x["after_us"], color="C0")  # after the end before it
        if x["copy_us"]:
            ax.plot([x["end_us"] - x["copy_us"]] * 2, [i - 0.4, i + 0.4], c="k", lw=1)
    ax.axvline(t["period_us"], ls="--", c="C3", lw=1,
               label=f"next layer, {page.num(t['period_us'], 1)} µs")
    ax.set_yticks(range(len(rows)), [f"{x['launch']}" for x in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("µs from the layer's first launch")
    handles = [Patch(color="C0", alpha=0.35, label="scheduled"),
               Patch(color="C0", label="after the end ahead"),
               Line2D([], [], c="k", lw=1, label="weights at copy speed, back from the end"),
               *ax.get_legend_handles_labels()[0]]
    ax.legend(handles=handles, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=4)
    ax.grid(True, axis="x", alpha=0.3)
    print(page.figure(fig, "One layer's launches: starts and ends"))
else:
    print("This run profiled no layer.")
print(page.provenance(r))
